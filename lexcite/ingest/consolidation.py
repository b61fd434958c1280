"""An official consolidated text against the version lexcite derived for the same date.

The Publications Office's consolidation (e.g. the AI Act of 27 July 2026, `02024R1689-20260727`)
applies the same amending acts that `lexcite.ingest.apply_amendments` applies. Comparing the two
unit by unit checks the amendment engine: a unit is *equal* when both texts are the same after
whitespace normalisation, *differs* otherwise (with a word diff), or is in only one of them.

Recitals are left out when the official text has none: a consolidated text carries no preamble,
while a derived version keeps its base act's recitals.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lexcite.contract import Unit
from lexcite.ingest._markup import norm_space

__all__ = ["ConsolidationCheck", "UnitDifference", "compare_versions", "word_diff"]


@dataclass(frozen=True)
class UnitDifference:
    unit: str
    official: str
    derived: str

    def diff(self) -> str:
        return word_diff(self.derived, self.official)


@dataclass(frozen=True)
class ConsolidationCheck:
    act: str
    version: str
    language: str
    official: str  # the official version's source (CELEX of the consolidation, or its location)
    derived: str  # how the derived version was built: "32024R1689@2024-07-12 + 32026R1744@2026-07-24"
    units_equal: tuple[str, ...]
    units_differ: tuple[UnitDifference, ...]
    only_official: tuple[str, ...]
    only_derived: tuple[str, ...]

    @property
    def share_equal(self) -> float:
        """Share of the official text's units that the derived version has with the same text."""
        total = len(self.units_equal) + len(self.units_differ) + len(self.only_official)
        return len(self.units_equal) / total if total else 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "act": self.act, "version": self.version, "language": self.language,
            "official": self.official, "derived": self.derived, "share_equal": round(self.share_equal, 4),
            "units_equal": list(self.units_equal),
            "units_differ": [{"unit": d.unit, "official": d.official, "derived": d.derived, "diff": d.diff()}
                             for d in self.units_differ],
            "only_official": list(self.only_official),
            "only_derived": list(self.only_derived),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ConsolidationCheck:
        return cls(
            act=d["act"], version=d["version"], language=d["language"], official=d["official"],
            derived=d["derived"], units_equal=tuple(d["units_equal"]),
            units_differ=tuple(UnitDifference(x["unit"], x["official"], x["derived"]) for x in d["units_differ"]),
            only_official=tuple(d["only_official"]), only_derived=tuple(d["only_derived"]),
        )


def compare_versions(official: Iterable[Unit], derived: Iterable[Unit], *, official_source: str,
                     derived_source: str) -> ConsolidationCheck:
    """Compare two versions of one act, in the official text's unit order."""
    off = {u.unit: u for u in official}
    der = {u.unit: u for u in derived}
    if not any(u.kind == "recital" for u in off.values()):
        der = {k: u for k, u in der.items() if u.kind != "recital"}
    first = next(iter(off.values()), None) or next(iter(der.values()))
    equal, differ, only_off = [], [], []
    for uid, u in off.items():
        if uid not in der:
            only_off.append(uid)
        elif norm_space(u.text) == norm_space(der[uid].text):
            equal.append(uid)
        else:
            differ.append(UnitDifference(uid, u.text, der[uid].text))
    return ConsolidationCheck(
        act=first.act, version=first.version, language=first.language, official=official_source,
        derived=derived_source, units_equal=tuple(equal), units_differ=tuple(differ),
        only_official=tuple(only_off), only_derived=tuple(k for k in der if k not in off),
    )


def word_diff(derived: str, official: str) -> str:
    """The words that differ, as `[-derived-]{+official+}` around the unchanged words next to them."""
    a, b = norm_space(derived).split(), norm_space(official).split()
    parts: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            words = a[i1:i2]
            parts.append(" ".join(words) if len(words) <= 6 else f"{' '.join(words[:3])} … {' '.join(words[-3:])}")
            continue
        if i2 > i1:
            parts.append("[-" + " ".join(a[i1:i2]) + "-]")
        if j2 > j1:
            parts.append("{+" + " ".join(b[j1:j2]) + "+}")
    return " ".join(p for p in parts if p)
