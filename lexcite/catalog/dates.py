"""Per-unit dates in the catalog: written with each stored version, read back for answers, `show` and `acts`.

What the dates are comes from `lexcite/ingest/dates.py` (pure, over the units of one text); this
module feeds it what only the catalog knows and stores the result:

* the chapter/section of each article (`versions.divisions`; a version without its own, such as a
  derived one, uses its act's latest version that has them: the numbering of chapters is the act's);
* the publication date entry into force counts from: an original text's own version date, else
  (a derived or consolidated text) the date of its act's original OJ text, when one is stored;
* for a unit whose text an amending act enacted (`changed_by`): that act's entry into force, as the
  catalog holds it for the amending act.

Columns: `units.in_force_from`, `applies_from` (the earliest case), `applies_until`, each with `*_by`
(the citation of the unit whose words set it) and `units.dates` (every case and condition, JSON);
`versions.entry_into_force` / `applies_from` (the act's general date). A date no rule reads is
stored as "unknown" with the reason in `dates`, never as the publication date.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace

from lexcite.catalog._rows import RECORD_SQL, unit_record
from lexcite.catalog._validity import restatus
from lexcite.contract import CitationRef, ParsedAct
from lexcite.errors import CitationError
from lexcite.ingest.dates import (
    UNKNOWN,
    ActDates,
    Dated,
    UnitDates,
    amended,
    divisions_from_file,
    read_dates,
    unit_dates,
)

__all__ = ["ORIGINAL_FORMATS", "entry_into_force_of", "write_dates", "backfill_dates", "unit_dates_of",
           "version_dates"]

# Formats of an act's original OJ text (its version is its publication date); not consolidated or derived.
ORIGINAL_FORMATS = ("oj", "oj_old", "formex")


def entry_into_force_of(parsed: ParsedAct) -> str | None:
    """An original text's entry into force, read from its final provisions (where its validity starts)."""
    if parsed.format not in ORIGINAL_FORMATS:
        return None
    return read_dates(parsed.units, parsed.version).entry_into_force.date


def _published(db: sqlite3.Connection, v: sqlite3.Row) -> str | None:
    if v["format"] in ORIGINAL_FORMATS:
        return v["version"]
    marks = ", ".join("?" * len(ORIGINAL_FORMATS))
    row = db.execute(f"SELECT MIN(version) FROM versions WHERE act=? AND format IN ({marks})",
                     (v["act"], *ORIGINAL_FORMATS)).fetchone()
    return row[0] if row else None


def _divisions(db: sqlite3.Connection, v: sqlite3.Row) -> dict[str, str]:
    own = json.loads(v["divisions"] or "[]")
    if own:
        return dict(own)
    for (other,) in db.execute("SELECT divisions FROM versions WHERE act=? AND id<>? AND divisions<>'[]' "
                               "ORDER BY valid_from DESC", (v["act"], v["id"])):
        return dict(json.loads(other))
    return {}


def _entry_of_amending(db: sqlite3.Connection, changed_by: str) -> Dated | None:
    """The entry into force of the act that enacted a unit's text ("32026R1744@2026-07-24#art_1.pnt_5" or,
    from a consolidated text's markers, "32026R1744"), as stored for that act."""
    try:
        ref: CitationRef | None = CitationRef.parse(changed_by)
        act, version = ref.act, ref.version
    except CitationError:
        act, version = changed_by.strip(), None
    sql, args = "SELECT entry_into_force, entry_into_force_by FROM versions WHERE act=?", [act]
    if version:
        sql += " AND version=?"
        args.append(version)
    row = db.execute(sql + " ORDER BY version LIMIT 1", args).fetchone()
    if row is None or not row[0] or row[0] == UNKNOWN:
        return None
    return Dated(row[0], CitationRef.parse(row[1]) if row[1] else None,
                 f"the entry into force of {act}, whose instruction enacted this text")


def write_dates(db: sqlite3.Connection, version_id: int) -> None:
    """Compute and store the dates of every unit of one stored version, in the caller's transaction."""
    v = db.execute("SELECT * FROM versions WHERE id=?", (version_id,)).fetchone()
    records = [unit_record(r) for r in db.execute(RECORD_SQL + " WHERE u.version_id=? ORDER BY u.position",
                                                   (version_id,))]
    units = [r.unit for r in records]
    published = _published(db, v)
    if published is None:
        why = Dated(None, None, "no original OJ text of this act is stored, so the publication date its entry "
                                "into force counts from is unknown")
        acts = ActDates(why, why)
    else:
        acts = read_dates(units, published)
    per_unit = unit_dates(units, acts, _divisions(db, v))
    version_in_force = acts.entry_into_force
    before = {row[0] for row in db.execute(
        "SELECT unit FROM units WHERE version_id=(SELECT id FROM versions WHERE act=? AND language=? AND "
        "valid_from<? ORDER BY valid_from DESC LIMIT 1)", (v["act"], v["language"], v["valid_from"]))}
    for r in records:
        if not r.changed_by:
            continue
        entry = _entry_of_amending(db, r.changed_by) or Dated(
            None, None, f"the entry into force of {r.changed_by}, whose instruction enacted this text, is not stored")
        d = amended(per_unit[r.unit.unit], entry)
        # a new provision replaced no text
        per_unit[r.unit.unit] = d if r.unit.unit in before else replace(d, former_until=None)
    rows = []
    for uid, d in per_unit.items():
        first = d.first
        rows.append((d.in_force_from.date or UNKNOWN, _by(d.in_force_from), first.date or UNKNOWN, _by(first),
                     d.applies_until.date if d.applies_until else None,
                     _by(d.applies_until) if d.applies_until else None, d.to_json(), version_id, uid))
    db.executemany("UPDATE units SET in_force_from=?, in_force_by=?, applies_from=?, applies_from_by=?, "
                   "applies_until=?, applies_until_by=?, dates=? WHERE version_id=? AND unit=?", rows)
    general = acts.applies_from
    db.execute("UPDATE versions SET entry_into_force=?, entry_into_force_by=?, applies_from=?, applies_from_by=?, "
               "dates_said=? WHERE id=?",
               (version_in_force.date or UNKNOWN, _by(version_in_force), general.date or UNKNOWN, _by(general),
                json.dumps({"entry_into_force": version_in_force.said, "applies_from": general.said,
                            "unread": [list(x) for x in acts.unread]}, ensure_ascii=False), version_id))


def _by(d: Dated | None) -> str | None:
    return str(d.set_by) if d is not None and d.set_by is not None else None


def backfill_dates(db: sqlite3.Connection) -> None:
    """Dates for versions stored before the columns existed: divisions from each raw file when it is still
    there, originals first (an amended text takes its amending act's entry into force); an original text's
    validity then starts at its entry into force."""
    rows = db.execute("SELECT id, act, language, format, version, source, raw_path, sha256 FROM versions "
                      "ORDER BY format NOT IN ('oj', 'oj_old', 'formex'), valid_from").fetchall()
    for r in rows:
        divisions = divisions_from_file(r["raw_path"], r["sha256"]) or divisions_from_file(r["source"], r["sha256"])
        db.execute("UPDATE versions SET divisions=? WHERE id=?", (json.dumps(list(divisions)), r["id"]))
    for r in rows:
        write_dates(db, r["id"])
        if r["format"] in ORIGINAL_FORMATS:
            start = db.execute("SELECT entry_into_force FROM versions WHERE id=?", (r["id"],)).fetchone()[0]
            if start and start != UNKNOWN:
                db.execute("UPDATE versions SET valid_from=? WHERE id=? AND status_pinned=0", (start, r["id"]))
    for act, language in {(r["act"], r["language"]) for r in rows}:
        restatus(db, act, language)
    # each stored amendment link applies from when the unit it changed applies (apply_amendments does the same)
    db.execute("""
        UPDATE amendments SET applies_from = (
            SELECT u.applies_from FROM units u JOIN versions v ON v.id = u.version_id
            WHERE v.act = amendments.target_act AND u.unit = amendments.target_unit AND u.applies_from <> 'unknown'
              AND u.changed_by LIKE amendments.amending_act || '@' || amendments.amending_version || '#%'
            ORDER BY v.valid_from LIMIT 1)
        WHERE target_unit IS NOT NULL AND EXISTS (
            SELECT 1 FROM units u JOIN versions v ON v.id = u.version_id
            WHERE v.act = amendments.target_act AND u.unit = amendments.target_unit AND u.applies_from <> 'unknown'
              AND u.changed_by LIKE amendments.amending_act || '@' || amendments.amending_version || '#%')""")


def unit_dates_of(db: sqlite3.Connection, version_id: int, unit: str) -> UnitDates | None:
    row = db.execute("SELECT dates FROM units WHERE version_id=? AND unit=?", (version_id, unit)).fetchone()
    return UnitDates.from_json(row[0]) if row and row[0] else None


def version_dates(db: sqlite3.Connection, version_id: int) -> tuple[Dated, Dated] | None:
    """The act's entry into force and general date of application, as this version's final provisions say."""
    r = db.execute("SELECT entry_into_force, entry_into_force_by, applies_from, applies_from_by, dates_said "
                   "FROM versions WHERE id=?", (version_id,)).fetchone()
    if r is None or r["entry_into_force"] is None:
        return None
    said = json.loads(r["dates_said"] or "{}")

    def dated(day: str, by: str | None, words: str) -> Dated:
        return Dated(None if day == UNKNOWN else day, CitationRef.parse(by) if by else None, words)

    return (dated(r["entry_into_force"], r["entry_into_force_by"], said.get("entry_into_force", "")),
            dated(r["applies_from"], r["applies_from_by"], said.get("applies_from", "")))
