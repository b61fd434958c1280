"""For a question that asks when: the provisions that set the dates of the best candidates join them.

"Since when is social scoring banned?" ranks Article 5 and its recitals; the date is in Article
113(a) ("Chapters I and II shall apply from 2 February 2025"), which shares no word with the
question. The catalog knows, for each unit, the unit that sets its entry into force and each of its
dates of application (lexcite/catalog/dates.py), so those units join the candidates, each just
below the candidate whose date it sets: the final provisions are read the way a lawyer reads them,
from the provision asked about.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from lexcite.contract import CitationRef
from lexcite.index.chunks import Passage
from lexcite.ingest.dates import UnitDates
from lexcite.question import asks_entry_into_force

__all__ = ["DateSetters", "date_setters"]

_BELOW = 1e-4  # how far below its candidate a date-setting unit is placed


@dataclass(frozen=True)
class DateSetters:
    scores: dict[int, float]  # passage position -> its score, just below the candidate whose date it sets
    set_for: dict[int, int]  # passage position -> the candidate whose date it sets


def date_setters(question: str, ranked: Sequence[int], final: Mapping[int, float], passages: Sequence[Passage],
                 unit_dates: Callable[[CitationRef], UnitDates | None],
                 positions: Callable[[CitationRef], list[int]], top: int) -> DateSetters:
    """The units that set the dates of the best `top` operative candidates in `ranked` (best first).

    `unit_dates` gives a unit's dates (None when not stored), `positions` the passage positions of a
    reference inside the perimeter. A unit already ranked higher keeps its score.
    """
    entry = asks_entry_into_force(question)
    scores: dict[int, float] = {}
    set_for: dict[int, int] = {}
    sources = [i for i in ranked if passages[i].record.unit.kind != "recital"][:top]  # a recital has no date
    for i in sources:
        dates = unit_dates(passages[i].record.unit.ref)
        if dates is None:
            continue
        said = [dates.in_force_from] if entry else [*dates.applies_from, *dates.notes]
        setters = dict.fromkeys(d.set_by for d in said if d.set_by is not None)
        for n, ref in enumerate(setters, start=1):
            score = final[i] - n * _BELOW
            for j in positions(ref):
                if j != i and final.get(j, float("-inf")) < score and scores.get(j, float("-inf")) < score:
                    scores[j] = score
                    set_for[j] = i
    return DateSetters(scores, set_for)
