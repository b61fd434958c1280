"""The joiner: the retrievers' ranked lists fused into one candidate pool.

With both retrievers on, reciprocal-rank fusion (fuse.py) orders the union; with
one, its own order and scores are kept. Only the best `size` go on to the later
stages; the rest are reported as beyond the pool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from lexcite.index.fuse import rrf

__all__ = ["Pool", "join"]

Scored = tuple[int, float]  # (passage position, score)


@dataclass(frozen=True)
class Pool:
    fused: tuple[Scored, ...]  # every retrieved passage, best first
    scale: str  # what the fused scores are: "rrf", or the one retriever's ("bm25", "dense")
    size: int

    @property
    def members(self) -> dict[int, float]:
        """The pool itself: the best `size` passages and their fused scores, best first."""
        return dict(self.fused[:self.size])

    @property
    def beyond(self) -> tuple[Scored, ...]:
        return self.fused[self.size:]


def join(lists: Mapping[str, Sequence[Scored]], size: int, rrf_k: int) -> Pool:
    """Fuse the retrievers' lists (retriever name -> best first) into a pool of `size`.

    Raises:
        ValueError: no list to join.
    """
    if not lists:
        raise ValueError("no retriever list to join")
    if len(lists) > 1:
        fused = rrf({name: [i for i, _ in ranked] for name, ranked in lists.items()}, rrf_k)
        return Pool(tuple(cast(list[Scored], fused)), "rrf", size)
    (scale, only), = lists.items()
    return Pool(tuple(only), scale, size)
