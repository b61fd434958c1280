"""Admission: which ranked candidates the generator may use, and the one owner of the score scale.

A threshold, and every bonus added to a score, is a point on the scale of the
last ranking stage that ran: a cosine for an `embedder:` reranker or dense
alone, the model's own (probability or logit) for a cross-encoder, an RRF sum
for plain hybrid, a BM25 score for BM25 alone. `score_scale` names it for a
configuration, `bonus_unit` gives one unit of it, `threshold_for` reads the
threshold calibrated for it, and `admit` applies scope, k and threshold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from lexcite.contract import Candidate
from lexcite.errors import ConfigError
from lexcite.index.named import absent_reason
from lexcite.index.rerank import parse_spec
from lexcite.index.scope import refusal_reason
from lexcite.index.stages import Params, Stages, stages_key

__all__ = ["SCALES", "score_scale", "bonus_unit", "threshold_for", "Admission", "admit", "refused_before_ranking"]

SCALES = {"cosine": "cosine", "model": "model (probability or logit)", "rrf": "rrf", "bm25": "bm25"}


def score_scale(stages: Stages, reranker_spec: str) -> str:
    """The scale of the final scores under `stages` with this reranker: a key of SCALES."""
    kind = parse_spec(reranker_spec)[0]
    if stages.rerank and kind != "none":
        return "cosine" if kind == "embedder" else "model"
    if stages.bm25 and stages.dense:
        return "rrf"
    return "bm25" if stages.bm25 else "cosine"


def bonus_unit(scale: str, rrf_k: int, final: Mapping[int, float]) -> float:
    """One unit of the final score scale, that bonuses are multiples of: 1 for a cosine or a model score,
    the rank-1 share 1/(k+1) for RRF, the best score of this query for BM25 (whose scale varies per query)."""
    if scale == "rrf":
        return 1.0 / (rrf_k + 1)
    if scale == "bm25":
        return max(final.values())
    return 1.0


def threshold_for(manifest: Mapping[str, Any], stages: Stages, params: Params, reranker_spec: str) -> float:
    """The threshold calibrated for this ranking configuration.

    Raises:
        ConfigError: none calibrated for it, or one calibrated with other weights or another reranker.
    """
    entry = manifest.get("thresholds", {}).get(stages_key(stages))
    if entry is None:
        raise ConfigError(f"no abstention threshold calibrated for stages {stages_key(stages)!r}; "
                          "run `lexcite calibrate` (it needs dev questions in the golden set)")
    # a threshold is a point on one score scale: other weights or another reranker move the scale
    if entry.get("params") != asdict(params) or entry.get("reranker") != reranker_spec:
        raise ConfigError(f"the threshold for {stages_key(stages)!r} was calibrated with other search "
                          "parameters or another reranker; run `lexcite calibrate`")
    return float(entry["value"])


@dataclass(frozen=True)
class Admission:
    admitted: tuple[Candidate, ...]
    discarded: tuple[tuple[str, str], ...]  # (ref, why not admitted)


def admit(ranked: Sequence[Candidate], k: int, threshold: float | None, outside: Sequence[str],
          absent: Sequence[str] = ()) -> Admission:
    """The top `k` when the best of them is at or above `threshold`, none when it is below; none when the
    question is asked under a law the catalog lacks, or cites a provision no act it may mean has.

    The threshold is calibrated on the best score of each dev question (calibrate.py), so it is applied to
    the best: it tells a question the catalog has something on from one it has nothing on. Which of the top k
    answer is then the answer stage's business (answer/answerable.py). Applied to each unit, it cut the
    evidence of answerable questions to the one or two units above the line (dev: key facts 0.787 -> 0.800,
    ceiling 0.908 -> 0.918, abstention unchanged; bench/RESULTS.md).
    """
    admitted, discarded = [], []
    below = threshold is not None and bool(ranked) and ranked[0].score < threshold
    refused = refused_before_ranking(outside, absent)
    for n, c in enumerate(ranked, start=1):
        if refused:
            discarded.append((str(c.ref), refused))
        elif n > k:
            discarded.append((str(c.ref), f"rank {n} beyond k={k}"))
        elif below:
            discarded.append((str(c.ref), f"best score {ranked[0].score:.4f} below the threshold {threshold:.4f}"))
        else:
            admitted.append(c)
    return Admission(tuple(admitted), tuple(discarded))


def refused_before_ranking(outside: Sequence[str], absent: Sequence[str]) -> str | None:
    """Why a question admits nothing whatever its ranking, or None: it is asked under a law the catalog lacks
    (scope.py), or it cites a provision no act it may mean has inside the perimeter (named.py)."""
    if outside:
        return refusal_reason(tuple(outside))
    if absent:
        return absent_reason(tuple(absent))
    return None
