"""Acts and provisions as people write them, looked up in the catalog (`show`, `--act`, `lexcite.locate`).

The reading itself is lexcite/references.py; this module only looks the result up in the catalog
(which act, which version on a date, which unit ids that version holds) and words the errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lexcite.catalog.catalog import Catalog
from lexcite.contract import CitationRef, UnitRecord, VersionRow, is_celex
from lexcite.errors import CitationError, UnreadableReference
from lexcite.references import ActNames, Reference, parse_reference, resolve, suggest

__all__ = ["act_titles", "act_names", "require_act", "Located", "locate", "version_on"]

_FULL = re.compile(r"^\s*(?P<act>\d{5}[A-Z]{1,2}\d{4})(?:@(?P<date>\d{4}-\d{2}-\d{2}))?#(?P<unit>\S+)\s*$")


def act_titles(catalog: Catalog) -> dict[str, str]:
    """CELEX -> the one title each act is named from: an English original's where held (a derived version's
    title adds "as amended by ..."; other languages name the act in their own words)."""
    titles: dict[str, str] = {}
    for v in sorted(catalog.versions(), key=lambda v: (v.language != "en", v.format == "amended", v.version),
                    reverse=True):
        titles[v.act] = v.title  # the best-placed title comes last and stays
    return titles


def act_names(catalog: Catalog) -> ActNames:
    """The names of the acts the catalog holds (CELEX, number, short title, short forms)."""
    return ActNames(act_titles(catalog).items())


def require_act(catalog: Catalog, name: str, names: ActNames | None = None) -> str:
    """The CELEX `name` stands for ('GDPR', 'AI Act', '2016/679', '32016R0679'); CitationError 'unknown act'."""
    names = names or act_names(catalog)
    found = names.resolve(name)
    if found is not None:
        return found
    if is_celex(name.strip()):
        raise UnreadableReference(f"unknown act {name.strip()}: not in the catalog (see `lexcite acts`)")
    return names.require(name)


def version_on(versions: list[VersionRow], day: str) -> VersionRow | None:
    """The version in force on `day` (valid_from <= day < valid_to); an exact version date wins."""
    exact = [v for v in versions if v.version == day]
    if exact:
        return exact[0]
    live = [v for v in versions if v.valid_from <= day < (v.valid_to or "9999-12-31") and v.status != "draft"]
    return max(live, key=lambda v: v.valid_from, default=None)


@dataclass(frozen=True)
class Located:
    ref: CitationRef  # act, exact version (None: the current one) and unit
    language: str | None


def _held(catalog: Catalog, act: str, version: str | None, language: str | None) -> dict[str, UnitRecord]:
    return {r.unit.unit: r for r in catalog.records(act, language)
            if (r.unit.version == version if version else r.status == "current")}


def locate(catalog: Catalog, text: str, act: str | None = None, as_of: str | None = None,
           language: str | None = None) -> Located:
    """The stored unit a written reference means.

    `text`: '32024R1689@2025-01-01#art_6.par_2', 'Art. 6(2) AI Act', 'article 83(5) GDPR', 'Annex III point 4(a)',
    'art_6.par_2'; the act from the text, else `act` (a CELEX or a name). A date (in the reference or `as_of`)
    that is no version's date means the version in force on it.

    Raises:
        CitationError: an unknown act, no version on that date, or no such unit (with the nearest ones).
    """
    names = act_names(catalog)
    full = _FULL.match(text)
    if full:
        celex, day, ref = full["act"], full["date"], Reference(full["unit"], (full["unit"],))
        if celex not in names.acts:
            raise UnreadableReference(f"unknown act {celex}: not in the catalog (see `lexcite acts`)")
    else:
        ref = parse_reference(text)
        # the reader takes one word after a reference as a possible act name ("Digital"); the words
        # left beside the reference are the longer name ("Digital Omnibus on AI")
        rest = text.replace(ref.text, " ", 1).strip(" ,;") if ref.text else ""
        named = next((n for n in (ref.act, rest) if n and names.resolve(n)), None) or ref.act or act
        if named is None:
            if len(names.acts) != 1:
                raise UnreadableReference(f"{text!r}: which act? name it ('{text} AI Act') or give --act")
            named = next(iter(names.acts))
        celex, day = require_act(catalog, named, names), None
    day = day or as_of
    version = None
    if day is not None:
        rows = [v for v in catalog.versions(celex) if language is None or v.language == language]
        found = version_on(rows, day)
        if found is None:
            first = min((v.valid_from for v in rows), default=None)
            raise CitationError(f"{celex}: no version in force on {day}" + (f"; the earliest is in force from {first}"
                                                                             if first else ""))
        version = found.version
    held = _held(catalog, celex, version, language)
    unit = resolve(ref, held.__contains__)
    if unit is None:
        near = suggest(ref.unit, held)
        where = f"{celex}@{version}" if version else f"{celex} (current version)"
        hint = f"; nearest: {', '.join(near)}" if near else ""
        raise CitationError(f"{where} has no {ref.unit}{hint}")
    return Located(CitationRef(celex, version, unit), language)

