"""The catalog's schema: named, ordered migrations, each applied once (lexcite/_sqlite.Migrations).

Append a step to change the schema; never edit one that has shipped. Catalogs made before the
steps were named recorded how many had run in PRAGMA user_version; `migrate` adopts those, and
keeps that number at 3 so such a lexcite still opens the catalog.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lexcite._sqlite import Migrations, run_script
from lexcite.catalog._rows import INSERT_FACTS, RECORD_SQL, fact_rows, unit_record
from lexcite.catalog.dates import backfill_dates
from lexcite.errors import CatalogError

__all__ = ["MIGRATIONS", "migrate"]

MIGRATIONS = Migrations()

# How many steps existed when the schema was numbered by PRAGMA user_version.
_NUMBERED_STEPS = 3


@MIGRATIONS
def m001_acts_versions_units(db: sqlite3.Connection) -> None:
    run_script(db, """
    CREATE TABLE acts (
        celex TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        doc_kind TEXT NOT NULL,
        binding INTEGER NOT NULL
    );
    CREATE TABLE versions (
        id INTEGER PRIMARY KEY,
        act TEXT NOT NULL REFERENCES acts(celex),
        version TEXT NOT NULL,
        language TEXT NOT NULL,
        format TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('current', 'superseded', 'draft')),
        status_pinned INTEGER NOT NULL DEFAULT 0,
        valid_from TEXT NOT NULL,
        valid_to TEXT,
        binding INTEGER NOT NULL,
        title TEXT NOT NULL,
        source TEXT NOT NULL,
        source_url TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        raw_path TEXT,
        etag TEXT,
        last_modified TEXT,
        headers TEXT NOT NULL DEFAULT '{}',
        fetched_at TEXT,
        ingested_at TEXT NOT NULL,
        modified_by TEXT NOT NULL DEFAULT '[]',
        access_tags TEXT NOT NULL DEFAULT '[]',
        UNIQUE (act, version, language)
    );
    CREATE TABLE units (
        version_id INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
        unit TEXT NOT NULL,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        text TEXT NOT NULL,
        parent TEXT,
        position INTEGER NOT NULL,
        source_url TEXT NOT NULL,
        footnotes TEXT NOT NULL DEFAULT '[]',
        changed_by TEXT,
        valid_from TEXT,
        valid_to TEXT,
        PRIMARY KEY (version_id, unit)
    );
    CREATE INDEX units_kind ON units(kind);
    CREATE TABLE fetches (
        key TEXT PRIMARY KEY,
        url TEXT NOT NULL,
        etag TEXT,
        last_modified TEXT,
        sha256 TEXT NOT NULL,
        fetched_at TEXT NOT NULL
    );
    """)


@MIGRATIONS
def m002_facts(db: sqlite3.Connection) -> None:
    """The structured numeric channel (lexcite/ingest/facts.py); units already stored get their facts now."""
    run_script(db, """
    CREATE TABLE facts (
        version_id INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
        unit TEXT NOT NULL,
        kind TEXT NOT NULL,
        value TEXT NOT NULL,
        value_unit TEXT NOT NULL,
        display TEXT NOT NULL,
        subject TEXT NOT NULL,
        start_char INTEGER NOT NULL,
        end_char INTEGER NOT NULL
    );
    CREATE INDEX facts_unit ON facts(version_id, unit);
    CREATE INDEX facts_value ON facts(value_unit, value);
    """)
    # Backfilled here, not by re-ingesting: re-ingesting unchanged bytes writes nothing (invariant 5).
    for (version_id,) in db.execute("SELECT id FROM versions").fetchall():
        units = [unit_record(r).unit for r in db.execute(
            RECORD_SQL + " WHERE u.version_id=? ORDER BY u.position", (version_id,))]
        db.executemany(INSERT_FACTS, fact_rows(version_id, units))


@MIGRATIONS
def m003_amendments(db: sqlite3.Connection) -> None:
    """Amendment links of amending acts (lexcite/ingest/amendments.py), one row per instruction and target."""
    run_script(db, """
    CREATE TABLE amendments (
        amending_act TEXT NOT NULL,
        amending_version TEXT NOT NULL,
        seq INTEGER NOT NULL,
        amending TEXT NOT NULL,
        target_act TEXT NOT NULL,
        target_unit TEXT,
        action TEXT NOT NULL,
        applies_from TEXT,
        new_text TEXT NOT NULL DEFAULT '',
        instruction TEXT NOT NULL DEFAULT '',
        reason TEXT NOT NULL DEFAULT '',
        outcome TEXT,
        PRIMARY KEY (amending_act, amending_version, seq)
    );
    CREATE INDEX amendments_target ON amendments(target_act, target_unit);
    """)


@MIGRATIONS
def m004_dates(db: sqlite3.Connection) -> None:
    """When each unit is in force and applies, read from its act's final provisions (lexcite/ingest/dates.py),
    each date with the unit that sets it; versions already stored get theirs now (and an original text's
    validity starts at its entry into force, no longer at its publication)."""
    run_script(db, """
    ALTER TABLE versions ADD COLUMN divisions TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE versions ADD COLUMN entry_into_force TEXT;
    ALTER TABLE versions ADD COLUMN entry_into_force_by TEXT;
    ALTER TABLE versions ADD COLUMN applies_from TEXT;
    ALTER TABLE versions ADD COLUMN applies_from_by TEXT;
    ALTER TABLE versions ADD COLUMN dates_said TEXT;
    ALTER TABLE units ADD COLUMN in_force_from TEXT;
    ALTER TABLE units ADD COLUMN in_force_by TEXT;
    ALTER TABLE units ADD COLUMN applies_from TEXT;
    ALTER TABLE units ADD COLUMN applies_from_by TEXT;
    ALTER TABLE units ADD COLUMN applies_until TEXT;
    ALTER TABLE units ADD COLUMN applies_until_by TEXT;
    ALTER TABLE units ADD COLUMN dates TEXT
    """)
    backfill_dates(db)


@MIGRATIONS
def m_consolidation_checks(db: sqlite3.Connection) -> None:
    """An official consolidated version against the version lexcite derived for the same date
    (lexcite/ingest/consolidation.py): one row per act, version and language, the result as JSON."""
    run_script(db, """
    CREATE TABLE consolidation_checks (
        act TEXT NOT NULL,
        version TEXT NOT NULL,
        language TEXT NOT NULL,
        result TEXT NOT NULL,
        checked_at TEXT NOT NULL,
        PRIMARY KEY (act, version, language)
    );
    """)


@MIGRATIONS
def m_derived_units(db: sqlite3.Connection) -> None:
    """The units lexcite derived for a version that an official consolidation holds (DESIGN.md, "Time":
    kept as the check against it): the official text is the version's units, these stay readable
    (`lexcite show REF --derived`). One row per unit, the unit as JSON (Unit.to_dict)."""
    run_script(db, """
    CREATE TABLE derived_units (
        act TEXT NOT NULL,
        version TEXT NOT NULL,
        language TEXT NOT NULL,
        unit TEXT NOT NULL,
        position INTEGER NOT NULL,
        data TEXT NOT NULL,
        changed_by TEXT,
        PRIMARY KEY (act, version, language, unit)
    );
    """)


def migrate(conn: sqlite3.Connection, path: Path) -> list[str]:
    """Bring the catalog at `path` up to date; returns the steps that ran.

    Raises CatalogError when the catalog was made by a newer lexcite.
    """
    numbered = conn.execute("PRAGMA user_version").fetchone()[0]
    if numbered > _NUMBERED_STEPS:
        raise CatalogError(f"{path}: schema version {numbered} is newer than this lexcite "
                           f"({_NUMBERED_STEPS}); upgrade lexcite")
    if numbered:
        MIGRATIONS.adopt(conn, numbered)
    try:
        ran = MIGRATIONS.apply(conn, where=str(path))
    except ValueError as e:
        raise CatalogError(str(e)) from None
    # Kept at the numbered steps' count, so a lexcite from before named steps still opens this catalog.
    conn.execute(f"PRAGMA user_version = {_NUMBERED_STEPS}")
    return ran


_TABLES = ("acts", "versions", "units", "fetches", "facts", "amendments")


def damaged(path: Path, error: BaseException) -> CatalogError:
    """The one message for a catalog SQLite cannot read: what failed, and the way back."""
    return CatalogError(f"{path}: the catalog is damaged ({error}); nothing was changed. Restore it from a "
                        "copy, or move it away and ingest the documents again (`lexcite refresh`, `lexcite ingest`)")


def check_tables(conn: sqlite3.Connection, path: Path) -> None:
    """Every table the catalog relies on is there (a table dropped by hand is named, not a traceback later)."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    missing = [t for t in _TABLES if t not in have]
    if missing:
        raise damaged(path, sqlite3.DatabaseError(f"table {', '.join(missing)} missing"))
