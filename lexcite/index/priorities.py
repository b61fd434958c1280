"""Priorities added to the final scores, in units of the score scale (admission.bonus_unit).

- binding: binding text over guidance, and in it the operative provisions over
  recitals: guidance is not law, and recitals give reasons without binding force
  (they cannot derogate from the articles).
- named: a unit under a provision the question cites, or the definition of a
  term it asks about (named.py).
- value: "When ...?" is answered by a passage that states a date, "how much ...?"
  by one with an amount (question.cues), so a passage stating the kind of value
  asked for is lifted a little.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lexcite.index.chunks import Passage
from lexcite.values import kinds_answered

__all__ = ["binding_bonuses", "act_bonuses", "value_bonuses", "named_bonuses", "ValueKinds"]


def binding_bonuses(final: Mapping[int, float], passages: Sequence[Passage], unit: float, binding: float,
                    operative: float) -> dict[int, float]:
    """The bonus of each candidate that earns one: `binding`, plus `operative` unless it is a recital."""
    out = {}
    for i in final:
        u = passages[i].record.unit
        bonus = (binding + (operative if u.kind != "recital" else 0.0)) * unit if u.binding else 0.0
        if bonus:
            out[i] = bonus
    return out


def act_bonuses(final: Mapping[int, float], passages: Sequence[Passage], acts: frozenset[str], unit: float,
                weight: float) -> dict[int, float]:
    """`weight` for each candidate of an act the question names ("under the GDPR")."""
    return {i: weight * unit for i in final if passages[i].record.unit.act in acts}


class ValueKinds:
    """The kinds of value each passage states (dates, amounts, ...), read once, when a question first asks
    for a value and the passage is a candidate: reading all passages would slow every start-up."""

    def __init__(self, passages: Sequence[Passage]):
        self._passages = passages
        self._kinds: dict[int, frozenset[str]] = {}

    def __call__(self, i: int) -> frozenset[str]:
        kinds = self._kinds.get(i)
        if kinds is None:
            kinds = self._kinds[i] = frozenset(kinds_answered(self._passages[i].body))
        return kinds


def value_bonuses(final: Mapping[int, float], asked: frozenset[str], kinds: ValueKinds, unit: float,
                  bonus: float) -> dict[int, float]:
    """`bonus` x `unit` for each candidate that states a kind of value the question asks for."""
    if not asked:
        return {}
    return {i: bonus * unit for i in final if asked & kinds(i)}


def named_bonuses(final: Mapping[int, float], named: Sequence[int], unit: float, bonus: float,
                  most: int) -> dict[int, float]:
    """`bonus` x `unit` for the `most` best-scored candidates the question names: a whole annex cited in
    passing must not crowd out the provision that answers."""
    best = sorted((i for i in named if i in final), key=lambda i: -final[i])[:most]
    return {i: bonus * unit for i in best if bonus}
