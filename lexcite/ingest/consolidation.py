"""An official consolidated text against the version lexcite derived for the same date.

The Publications Office's consolidation (e.g. the AI Act of 27 July 2026, `02024R1689-20260727`)
applies the same amending acts that `lexcite.ingest.apply_amendments` applies. Comparing the two
unit by unit checks the amendment engine: a unit is *equal* when both texts are the same after
whitespace normalisation, *differs* otherwise (with a word diff), or is in only one of them.

Recitals are left out when the official text has none: a consolidated text carries no preamble,
while a derived version keeps its base act's recitals.

The official text is then the version's text (search, `show`, answers); the derived units are kept
with the check (`Catalog.derived_units`), and `derived_text` reads one back (`lexcite show --derived`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lexcite.contract import DERIVED_FORMAT, CitationRef, Unit
from lexcite.errors import CitationError
from lexcite.ingest._markup import norm_space

if TYPE_CHECKING:
    from lexcite.catalog import Catalog

__all__ = ["ConsolidationCheck", "DerivedText", "UnitDifference", "compare_versions", "derived_text", "word_diff"]

# How `apply_amendments` names the source of a derived version it stored itself.
_DERIVED_SUFFIX = " (derived by lexcite)"


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


@dataclass(frozen=True)
class DerivedText:
    """One unit as lexcite derived it: the base version with the amending acts applied."""

    unit: Unit
    parts: tuple[Unit, ...]  # its direct parts (an article's paragraphs), in document order
    changed_by: str | None  # the amending unit that last changed it
    derived: str  # how: "32024R1689@2024-07-12 + 32026R1744@2026-07-24"
    # the official consolidation that is this version's text, and how the unit compares with it
    # ("equal", "differs", "only derived", "not compared": recitals, which a consolidation has none of);
    # None when no official text of that date is stored and the derived one is the version's text
    official: str | None = None
    comparison: str | None = None
    diff: str | None = None  # [-derived-]{+official+} when it differs

    def to_dict(self) -> dict[str, Any]:
        return {**self.unit.to_dict(), "ref": str(self.unit.ref), "parts": [u.to_dict() for u in self.parts],
                "changed_by": self.changed_by, "derived": self.derived, "official": self.official,
                "comparison": self.comparison, "diff": self.diff}


def derived_text(catalog: Catalog, ref: CitationRef, language: str) -> DerivedText:
    """The text lexcite derived for the unit `ref` (a version with its date and unit) names.

    Raises CitationError when lexcite derived no text for that version, or none for that unit.
    """
    version = next((v for v in catalog.versions(ref.act) if (v.version, v.language) == (ref.version, language)),
                   None)
    if version is None:
        raise CitationError(f"{ref} [{language}]: no such version in the catalog; see `lexcite acts`")
    if version.format == DERIVED_FORMAT:  # no official text of that date: the derived one is the version
        rec = catalog.resolve(ref, language)
        return DerivedText(rec.unit, tuple(c.unit for c in catalog.children(rec)), rec.changed_by,
                           version.source.removesuffix(_DERIVED_SUFFIX))
    check = next((c for c in catalog.consolidation_checks(ref.act)
                  if (c["version"], c["language"]) == (version.version, language)), None)
    if check is None:
        raise CitationError(f"{ref} [{language}]: lexcite derived no text of this version (stored as "
                            f"{version.format}); see lexcite amendments {ref.act}")
    kept = catalog.derived_units(ref.act, version.version, language, under=ref.unit)
    if not kept and not catalog.derived_units(ref.act, version.version, language):
        # A check stored before the derived units were kept with it: applying again stores them.
        amending = check["derived"].rsplit(" + ", 1)[-1].split("@")[0]
        raise CitationError(f"{ref} [{language}]: the derived text was compared but not kept; "
                            f"lexcite apply-amendments {amending} keeps it")
    if not kept:
        raise CitationError(f"{ref} [{language}]: the derived text has no unit {ref.unit}; "
                            f"see lexcite consolidation-check {ref.act}")
    unit, changed_by = kept[0]
    differ = {d["unit"]: d["diff"] for d in check["units_differ"]}
    comparison = ("equal" if unit.unit in check["units_equal"] else "differs" if unit.unit in differ
                  else "only derived" if unit.unit in check["only_derived"] else "not compared")
    return DerivedText(unit, tuple(u for u, _ in kept if u.parent == unit.unit), changed_by, check["derived"],
                       check["official"], comparison, differ.get(unit.unit))
