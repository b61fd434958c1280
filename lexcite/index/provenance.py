"""Amending instructions attached to the text they enacted, instead of ranking beside it.

An amending act's instruction ("in Article 63, paragraph 1 is replaced by the
following: '1. ...'") shares its words with the provision it changed, so it
competes with the current text for plain questions about the amended act.
When the unit an instruction enacted is inside the perimeter (a derived or
consolidated current version, whose units carry `changed_by`), the instruction
leaves the ranking and the enacted unit takes its place: the unit's
`changed_by` names the instruction, shown and citable as the source of the
change. A question about the change itself ("what did the Omnibus change in
Article 60?", "what was replaced ...?") keeps the instruction where it ranked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from lexcite.index.chunks import Passage
from lexcite.references import self_and_ancestors

__all__ = ["Provenance", "Attached", "asks_about_a_change", "without_change_words"]

_CHANGE = re.compile(r"\b(?:chang\w*|amend\w*|omnibus|replac\w*|insert\w*|delet\w*|modif\w*|revis\w*|"
                     r"new (?:rule|text|version|wording)|used to|no longer|before the)\b", re.I)


def asks_about_a_change(query: str) -> bool:
    """Whether the question asks what an amendment did, rather than what the law says."""
    return bool(_CHANGE.search(query))


def without_change_words(query: str) -> str:
    """The question without the words that ask about a change ("What did the Omnibus change in Article 60?"): they
    say what kind of answer is wanted, not what it is about."""
    return _CHANGE.sub(" ", query)


@dataclass(frozen=True)
class Attached:
    ranked: tuple[int, ...]  # the new order of passage positions
    scores: dict[int, float]  # an enacted unit that took its instruction's place, with the instruction's score
    attached: tuple[tuple[int, int], ...]  # (instruction, the enacted unit it is attached to)


class Provenance:
    """Which passages of amended versions each instruction passage enacted."""

    def __init__(self, passages: Sequence[Passage]):
        by_source: dict[tuple[str, str, str], list[int]] = {}  # (act, version, instruction unit) -> enacted
        for j, p in enumerate(passages):
            source = p.record.changed_by
            if source:
                act_version, _, unit = source.partition("#")
                by_source.setdefault((act_version, p.record.unit.language, unit), []).append(j)
        self._enacted: dict[int, list[int]] = {}
        for i, p in enumerate(passages):
            u = p.record.unit
            enacted = [j for unit in self_and_ancestors(u.unit)  # the instruction's own point, then the ones it is in
                       for j in by_source.get((f"{u.act}@{u.version}", u.language, unit), [])]
            if enacted:
                self._enacted[i] = enacted

    def attach(self, ranked: Sequence[int], final: Mapping[int, float], mask: np.ndarray) -> Attached:
        """Replace each ranked instruction whose enacted unit is inside `mask` by that unit (the best-scored
        one, when it enacted several), which takes the instruction's place and score if they are higher."""
        out: list[int] = []
        scores: dict[int, float] = {}
        attached = []
        for i in ranked:
            enacted = [j for j in self._enacted.get(i, []) if mask[j]]
            if not enacted:
                out.append(i)
                continue
            target = max(enacted, key=lambda j: final.get(j, float("-inf")))
            attached.append((i, target))
            out.append(target)
            if final[i] > final.get(target, float("-inf")):
                scores[target] = max(final[i], scores.get(target, float("-inf")))
        return Attached(tuple(dict.fromkeys(out)), scores, tuple(attached))
