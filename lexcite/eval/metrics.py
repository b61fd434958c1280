"""Retrieval and abstention metrics: pure functions over ranked candidates and golden questions.

Relevance follows DESIGN.md "Golden sets": a retrieved unit is relevant when
its reference lies on one branch with an expected one (same act, ids equal,
below or above: `CitationRef.on_branch`) or when its text contains an anchor
after whitespace normalisation.

Rank-based metrics credit each expected unit once, so a paragraph and its
article both retrieved do not count twice and nDCG never exceeds 1. The
*targets* of a question are its expected references, or its anchors when it
names no reference. When a question has both, a unit that is relevant only
through an anchor (the same words in a recital, or in another version) counts
as one more target found per distinct anchor, up to the number of targets:
the golden set promises that every anchor lies in one of the expected units.
With this rule the first gain is at the first relevant rank, so hit@k > 0
exactly when recall@k > 0.

A unit of a version derived by applying an amending act (format `amended`)
carries the amending unit that enacted its text (`changed_by`): it is the same
words, so it is relevant where that amending unit is expected.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lexcite.contract import CitationRef
from lexcite.eval.golden import GoldenQuestion

__all__ = [
    "Ranked",
    "normalise",
    "contains",
    "is_relevant",
    "gains",
    "first_relevant_rank",
    "hit_at_k",
    "in_evidence",
    "recall_at_k",
    "mrr",
    "ndcg_at_k",
    "abstention_rates",
    "mean",
    "MRR_DEPTH",
]

MRR_DEPTH = 10

# Every Unicode space (NBSP, narrow NBSP, thin space, ideographic space, line
# separators...) is `\s` for str patterns; zero-width characters are not, and
# EUR-Lex pages carry them around footnote marks, so they are dropped.
_SPACES = re.compile(r"\s+")
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")


@dataclass(frozen=True)
class Ranked:
    """The part of a retrieved candidate that relevance looks at."""

    ref: CitationRef
    text: str
    changed_by: CitationRef | None = None  # the amending unit that enacted this text (a derived version)

    def on_branch(self, target: CitationRef) -> bool:
        """On the target's branch, itself or through the amending unit whose quoted text it is."""
        return self.ref.on_branch(target) or (self.changed_by is not None and self.changed_by.on_branch(target))


def normalise(text: str) -> str:
    """Collapse all Unicode whitespace to one ASCII space and trim; drop zero-width characters."""
    return _SPACES.sub(" ", _ZERO_WIDTH.sub("", text)).strip()


def contains(haystack: str, needle: str, casefold: bool = False) -> bool:
    """Whether `needle` occurs in `haystack` after whitespace normalisation (and case folding)."""
    h, n = normalise(haystack), normalise(needle)
    if casefold:
        h, n = h.casefold(), n.casefold()
    return bool(n) and n in h


def is_relevant(item: Ranked, q: GoldenQuestion) -> bool:
    """The DESIGN hit rule: on an expected branch, or contains an anchor."""
    return any(item.on_branch(e) for e in q.expected) or any(contains(item.text, a) for a in q.anchors)


def _targets(q: GoldenQuestion) -> tuple[CitationRef | str, ...]:
    return q.expected or q.anchors


def _matches(item: Ranked, target: CitationRef | str) -> bool:
    if isinstance(target, CitationRef):
        return item.on_branch(target)
    return contains(item.text, target)


def _credits(ranked: Sequence[Ranked], q: GoldenQuestion) -> list[int]:
    """Targets found so far, after each rank (see the module docstring)."""
    targets = _targets(q)
    direct: set[int] = set()
    stand_ins: set[str] = set()  # anchors found in units on no expected branch
    out = []
    for item in ranked:
        hit = {i for i, t in enumerate(targets) if _matches(item, t)}
        if hit:
            direct |= hit
        elif q.expected:
            stand_ins |= {a for a in q.anchors if contains(item.text, a)}
        out.append(min(len(targets), len(direct) + len(stand_ins)))
    return out


def gains(ranked: Sequence[Ranked], q: GoldenQuestion) -> list[int]:
    """Binary gain per rank: 1 where a unit raises the number of targets found."""
    before, out = 0, []
    for c in _credits(ranked, q):
        out.append(1 if c > before else 0)
        before = c
    return out


def first_relevant_rank(ranked: Sequence[Ranked], q: GoldenQuestion) -> int | None:
    """1-based rank of the first relevant unit, None when none is."""
    return next((i for i, item in enumerate(ranked, start=1) if is_relevant(item, q)), None)


def hit_at_k(ranked: Sequence[Ranked], q: GoldenQuestion, k: int) -> float:
    return 1.0 if any(is_relevant(item, q) for item in ranked[:k]) else 0.0


def in_evidence(evidence: Sequence[Ranked], q: GoldenQuestion) -> float:
    """1.0 when a relevant unit is among the units a generator received (the ceiling's term, DESIGN.md)."""
    return 1.0 if any(is_relevant(item, q) for item in evidence) else 0.0


def recall_at_k(ranked: Sequence[Ranked], q: GoldenQuestion, k: int) -> float:
    """Share of the question's targets (expected units, else anchors) covered in the top k."""
    targets, credits = _targets(q), _credits(ranked[:k], q)
    return credits[-1] / len(targets) if targets and credits else 0.0


def mrr(ranked: Sequence[Ranked], q: GoldenQuestion, depth: int = MRR_DEPTH) -> float:
    """Reciprocal rank of the first relevant unit within `depth` (MRR@10), else 0."""
    rank = first_relevant_rank(ranked[:depth], q)
    return 1.0 / rank if rank else 0.0


def ndcg_at_k(ranked: Sequence[Ranked], q: GoldenQuestion, k: int) -> float:
    """Binary-relevance nDCG@k: DCG of the gains over DCG of min(k, #targets) ones."""
    targets = _targets(q)
    if not targets:
        return 0.0
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains(ranked[:k], q)))
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(targets))))
    return dcg / ideal


def abstention_rates(decisions: Iterable[tuple[GoldenQuestion, bool]]) -> dict[str, float | None]:
    """From (question, abstained) pairs: `abstain_correct` on abstain questions, `abstain_wrong` on the others.

    None where the set has no question of that kind.
    """
    on_abstain, on_answerable = [], []
    for q, abstained in decisions:
        (on_answerable if q.answerable else on_abstain).append(1.0 if abstained else 0.0)
    return {"abstain_correct": mean(on_abstain), "abstain_wrong": mean(on_answerable)}


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the values that are not None; None when there are none."""
    xs = [v for v in values if v is not None]
    return sum(xs) / len(xs) if xs else None
