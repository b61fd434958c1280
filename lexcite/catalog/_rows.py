"""SQLite rows <-> contract types for the catalog: the one place a catalog row is read into a value."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from lexcite.contract import AmendmentLink, CitationRef, Fact, Unit, UnitRecord, VersionRow
from lexcite.ingest.facts import extract_facts

# A unit joined with its version; a unit's own validity (set by an amendment) narrows its version's.
# The columns `unit_record` reads, named: `u.*` would also carry each unit's `dates` JSON (two thirds the size of
# the texts together), which doubled the read of every record when a Searcher opens.
RECORD_SQL = (
    "SELECT u.unit, u.kind, u.title, u.text, u.parent, u.position, u.source_url, u.footnotes, u.changed_by, "
    "v.act, v.version, v.language, v.binding, v.status, v.access_tags, "
    "IFNULL(u.valid_from, v.valid_from) AS eff_from, "
    "CASE WHEN u.valid_to IS NULL THEN v.valid_to "
    "     WHEN v.valid_to IS NULL THEN u.valid_to "
    "     ELSE MIN(u.valid_to, v.valid_to) END AS eff_to "
    "FROM units u JOIN versions v ON v.id = u.version_id"
)

INSERT_FACTS = ("INSERT INTO facts (version_id, unit, kind, value, value_unit, display, subject, start_char, end_char) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")

LINK_COLUMNS = ("amending", "target_act", "target_unit", "action", "applies_from", "new_text", "instruction",
                "reason")


def where(equal: dict[str, Any]) -> tuple[str, list[Any]]:
    """' WHERE col=? AND ...' for the columns whose value is given (None or empty: no condition), and the args."""
    given = {col: value for col, value in equal.items() if value}
    clause = " WHERE " + " AND ".join(f"{col}=?" for col in given) if given else ""
    return clause, list(given.values())


def _json_tuple(text: str) -> tuple[Any, ...]:
    """A stored JSON list as a tuple; the empty list, which nearly every unit has, without the parser."""
    return () if text == "[]" else tuple(json.loads(text))


def unit_record(r: sqlite3.Row) -> UnitRecord:
    unit = Unit(
        act=r["act"],
        version=r["version"],
        unit=r["unit"],
        kind=r["kind"],
        title=r["title"],
        text=r["text"],
        parent=r["parent"],
        position=r["position"],
        language=r["language"],
        binding=bool(r["binding"]),
        source_url=r["source_url"],
        footnotes=_json_tuple(r["footnotes"]),
    )
    return UnitRecord(
        unit=unit,
        status=r["status"],
        valid_from=r["eff_from"],
        valid_to=r["eff_to"],
        access_tags=_json_tuple(r["access_tags"]),
        changed_by=r["changed_by"],
    )


def version_row(r: sqlite3.Row) -> VersionRow:
    return VersionRow(
        id=r["id"],
        act=r["act"],
        version=r["version"],
        language=r["language"],
        format=r["format"],
        status=r["status"],
        valid_from=r["valid_from"],
        valid_to=r["valid_to"],
        binding=bool(r["binding"]),
        title=r["title"],
        source=r["source"],
        source_url=r["source_url"],
        sha256=r["sha256"],
        etag=r["etag"],
        last_modified=r["last_modified"],
        fetched_at=r["fetched_at"],
        ingested_at=r["ingested_at"],
        modified_by=tuple(json.loads(r["modified_by"])),
        access_tags=tuple(json.loads(r["access_tags"])),
        unit_count=r["unit_count"] if "unit_count" in r.keys() else 0,
        raw_path=r["raw_path"],
    )


def fact(r: sqlite3.Row) -> Fact:
    return Fact(kind=r["kind"], value=r["value"], unit=r["value_unit"], display=r["display"], subject=r["subject"],
                ref=CitationRef(r["act"], r["version"], r["unit"]), start=r["start_char"], end=r["end_char"])


def fact_rows(version_id: int, units: Iterable[Unit]) -> Iterable[tuple[Any, ...]]:
    """Rows for the `facts` table (Catalog.store writes them in the same transaction as the units)."""
    for u in units:
        for f in extract_facts(u):
            yield (version_id, u.unit, f.kind, f.value, f.unit, f.display, f.subject, f.start, f.end)


def link_row(link: AmendmentLink) -> tuple[Any, ...]:
    return (str(link.amending), link.target_act, link.target_unit, link.action, link.applies_from,
            link.new_text, link.instruction, link.reason)


def link(r: sqlite3.Row) -> AmendmentLink:
    return AmendmentLink(CitationRef.parse(r["amending"]), r["target_act"], r["target_unit"], r["action"],
                         r["applies_from"], r["new_text"], r["instruction"], r["reason"])
