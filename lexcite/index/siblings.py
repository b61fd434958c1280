"""Sibling expansion: the other passages of a top hit's article or annex join the pool.

A question answered by Article 6(2) is often also answered by 6(3); the fused
ranking finds one paragraph and the siblings bring its neighbours, nearest in
document order first, drawn through the same perimeter mask (invariant 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from lexcite.index.chunks import Passage

__all__ = ["Siblings", "Expansion", "expand"]


class Siblings:
    """Passages grouped by the provision they belong to (act, version, language, article or annex)."""

    def __init__(self, passages: Sequence[Passage]):
        self._passages = passages
        self._groups: dict[tuple[str, str, str, str], list[int]] = {}
        for i, p in enumerate(passages):
            u = p.record.unit
            self._groups.setdefault((u.act, u.version, u.language, p.article), []).append(i)

    def group(self, i: int) -> list[int]:
        """The positions of passage `i`'s provision, in document order (whatever the perimeter)."""
        p = self._passages[i]
        u = p.record.unit
        return self._groups.get((u.act, u.version, u.language, p.article), [i])

    def of(self, i: int, mask: np.ndarray, limit: int) -> list[int]:
        """Other passages of passage `i`'s article (or annex), nearest first, inside the mask."""
        p = self._passages[i]
        u = p.record.unit
        if u.kind == "recital":
            return []
        group = self._groups.get((u.act, u.version, u.language, p.article), [])
        if len(group) <= 1:
            return []
        at = group.index(i)
        others = sorted((j for j in group if j != i and mask[j]), key=lambda j: abs(group.index(j) - at))
        return others[:limit]


@dataclass(frozen=True)
class Expansion:
    added: tuple[tuple[int, float, int], ...]  # (passage, score, the hit that brought it), in order added


def expand(pool: Mapping[int, float], seeds: Sequence[tuple[int, float]], siblings: Siblings, mask: np.ndarray,
           limit: int, decay: float) -> Expansion:
    """The siblings of each seed hit that are not in the pool yet, each scored `decay` x its seed's score."""
    taken = set(pool)
    added = []
    for i, s in seeds:
        for j in siblings.of(i, mask, limit):
            if j not in taken:
                taken.add(j)
                added.append((j, s * decay, i))
    return Expansion(tuple(added))
