"""Reciprocal-rank fusion of ranked lists (Cormack, Clarke & Büttcher, SIGIR 2009).

score(d) = sum over lists L containing d of 1 / (k + rank_L(d)), rank from 1.
Only ranks matter, so BM25 scores and cosines need no common scale.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

__all__ = ["rrf", "RRF_K"]

RRF_K = 10  # measured on the dev split: 10 beat the paper's 60 (bench/RESULTS.md, "Retrieval")


def rrf(rankings: Mapping[str, Sequence[Hashable]], k: int = RRF_K) -> list[tuple[Hashable, float]]:
    """Fuse ranked lists of keys; returns (key, score) best first, ties in order of first appearance."""
    if k < 0:
        raise ValueError(f"RRF k must be >= 0, got {k}")
    scores: dict[Hashable, float] = {}
    for ranked in rankings.values():
        for rank, key in enumerate(ranked, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    first = {key: i for i, key in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], first[kv[0]]))
