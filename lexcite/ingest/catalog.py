"""The SQLite catalog: acts (works), versions (expressions) and their units.

It is the trust root for "which version is current". Every write is one
transaction: a failed or interrupted ingest leaves the previous state whole
(invariant 5), and re-storing identical input writes nothing at all.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lexcite import config
from lexcite._sqlite import connect, transaction
from lexcite.contract import CitationRef, Fact, ParsedAct, Unit
from lexcite.errors import CatalogError, CitationError
from lexcite.ingest.facts import fact_rows

__all__ = ["Catalog", "Source", "StoreResult", "UnitRecord", "VersionRow", "STATUSES"]

STATUSES = ("current", "superseded", "draft")

# Named, ordered migrations; each runs once, tracked by PRAGMA user_version.
_MIGRATIONS: list[str] = [
    """
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
    """,
    # 2 (_FACTS_MIGRATION): the structured numeric channel (lexcite/ingest/facts.py), written by store()
    # with the units; units already stored get their facts when this migration runs.
    """
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
    """,
    # 3: amendment links of amending acts (lexcite/ingest/amendments.py), one row per instruction and target.
    """
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
    """,
]

_FACTS_MIGRATION = 2


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Source:
    """Where a manifestation came from: a local file or a Cellar fetch."""

    location: str  # path or URL
    sha256: str
    raw_path: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    fetched_at: str | None = None


@dataclass(frozen=True)
class StoreResult:
    act: str
    version: str
    language: str
    format: str
    action: str  # "new", "updated", "unchanged"
    counts: dict[str, int]
    changed_units: tuple[str, ...] = ()  # ids added, removed or whose text changed
    lost: tuple[str, ...] = ()  # stored ids the new text lacks (only with an explicit replace)

    def to_dict(self) -> dict[str, Any]:
        return {
            "act": self.act,
            "version": self.version,
            "format": self.format,
            "language": self.language,
            "action": self.action,
            "units": self.counts,
            "changed_units": len(self.changed_units),
            **({"lost_units": list(self.lost)} if self.lost else {}),
        }


@dataclass(frozen=True)
class VersionRow:
    id: int
    act: str
    version: str
    language: str
    format: str
    status: str
    valid_from: str
    valid_to: str | None
    binding: bool
    title: str
    source: str
    source_url: str
    sha256: str
    etag: str | None
    last_modified: str | None
    fetched_at: str | None
    ingested_at: str
    modified_by: tuple[str, ...]
    access_tags: tuple[str, ...]
    unit_count: int = 0


@dataclass(frozen=True)
class UnitRecord:
    """A unit with the catalog facts retrieval filters on."""

    unit: Unit
    status: str
    valid_from: str
    valid_to: str | None
    access_tags: tuple[str, ...] = ()
    changed_by: str | None = None

    def in_force(self, day: str) -> bool:
        return self.valid_from <= day and (self.valid_to is None or day < self.valid_to)


class Catalog:
    """Open (and migrate) the catalog at `path`, default LEXCITE_HOME/catalog.sqlite."""

    def __init__(self, path: Path | None = None):
        self.path = path or config.home() / "catalog.sqlite"
        self.conn = connect(self.path, wal=True)
        self._migrate()

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema ---------------------------------------------------------------

    def _migrate(self) -> None:
        current = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if current > len(_MIGRATIONS):
            raise CatalogError(
                f"{self.path}: schema version {current} is newer than this lexcite "
                f"({len(_MIGRATIONS)}); upgrade lexcite"
            )
        for number, script in enumerate(_MIGRATIONS[current:], start=current + 1):
            with self.transaction():
                for statement in script.split(";"):
                    if statement.strip():
                        self.conn.execute(statement)
                if number == _FACTS_MIGRATION:
                    self._backfill_facts()
                self.conn.execute(f"PRAGMA user_version = {number}")

    def _backfill_facts(self) -> None:
        """Facts for units stored before the facts table existed (re-ingesting unchanged bytes writes nothing)."""
        for (version_id,) in self.conn.execute("SELECT id FROM versions").fetchall():
            units = [self._record(r).unit for r in self.conn.execute(
                self._RECORD_SQL + " WHERE u.version_id=? ORDER BY u.position", (version_id,))]
            self.conn.executemany("INSERT INTO facts (version_id, unit, kind, value, value_unit, display, subject, "
                                  "start_char, end_char) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                  fact_rows(version_id, units))

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self.conn)

    def state(self) -> str:
        """A fingerprint of the catalog's content: changes whenever any version changes."""
        rows = self.conn.execute(
            "SELECT act, version, language, sha256, status, valid_from, IFNULL(valid_to, '') "
            "FROM versions ORDER BY act, version, language"
        ).fetchall()
        unit_rows = self.conn.execute(
            "SELECT COUNT(*), IFNULL(SUM(LENGTH(text)), 0), "
            "IFNULL(GROUP_CONCAT(IFNULL(valid_from, '') || IFNULL(valid_to, ''), ''), '') FROM units"
        ).fetchone()
        h = hashlib.sha256()
        for r in rows:
            h.update("|".join(map(str, tuple(r))).encode())
        h.update(repr(tuple(unit_rows)).encode())
        return h.hexdigest()[:16]

    # -- writing --------------------------------------------------------------

    def store(
        self,
        parsed: ParsedAct,
        source: Source,
        *,
        status: str | None = None,
        valid_from: str | None = None,
        access_tags: tuple[str, ...] = (),
        progress: Callable[[int, int], None] | None = None,
    ) -> StoreResult:
        """Store one parsed manifestation in one transaction.

        Identical input (same act, version, language and sha256) writes nothing.
        A newer version marks the older ones of the same act and language superseded.
        """
        if status is not None and status not in STATUSES:
            raise CatalogError(f"status {status!r} is not one of {', '.join(STATUSES)}")
        key = (parsed.act, parsed.version, parsed.language)
        old = self.conn.execute(
            "SELECT id, sha256, status, status_pinned FROM versions WHERE act=? AND version=? AND language=?",
            key,
        ).fetchone()
        counts = parsed.counts()
        if old is not None and old["sha256"] == source.sha256 and (status is None or status == old["status"]):
            return StoreResult(*key, parsed.format, "unchanged", counts)

        old_texts: dict[str, str] = {}
        if old is not None:
            old_texts = dict(
                self.conn.execute("SELECT unit, text FROM units WHERE version_id=?", (old["id"],)).fetchall()
            )
        changed_by = dict(parsed.changed_units)
        with self.transaction() as c:
            c.execute(
                "INSERT INTO acts (celex, title, doc_kind, binding) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(celex) DO UPDATE SET title=excluded.title, doc_kind=excluded.doc_kind, "
                "binding=excluded.binding",
                (parsed.act, parsed.title, parsed.doc_kind, int(parsed.binding)),
            )
            row = (
                parsed.format,
                status or "current",
                int(status is not None),
                valid_from or parsed.version,
                int(parsed.binding),
                parsed.title,
                source.location,
                parsed.source_url,
                source.sha256,
                source.raw_path,
                source.etag,
                source.last_modified,
                json.dumps(source.headers),
                source.fetched_at,
                _now(),
                json.dumps(list(parsed.modified_by)),
                json.dumps(list(access_tags)),
            )
            if old is None:
                cur = c.execute(
                    "INSERT INTO versions (format, status, status_pinned, valid_from, binding, title, source, "
                    "source_url, sha256, raw_path, etag, last_modified, headers, fetched_at, ingested_at, "
                    "modified_by, access_tags, act, version, language) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*row, *key),
                )
                version_id = cur.lastrowid
            else:
                version_id = old["id"]
                c.execute(
                    "UPDATE versions SET format=?, status=?, status_pinned=?, valid_from=?, binding=?, title=?, "
                    "source=?, source_url=?, sha256=?, raw_path=?, etag=?, last_modified=?, headers=?, "
                    "fetched_at=?, ingested_at=?, modified_by=?, access_tags=? WHERE id=?",
                    (*row, version_id),
                )
                c.execute("DELETE FROM units WHERE version_id=?", (version_id,))
            total = len(parsed.units)
            for i, u in enumerate(parsed.units):
                c.execute(
                    "INSERT INTO units (version_id, unit, kind, title, text, parent, position, source_url, "
                    "footnotes, changed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        version_id,
                        u.unit,
                        u.kind,
                        u.title,
                        u.text,
                        u.parent,
                        u.position,
                        u.source_url,
                        json.dumps(list(u.footnotes)),
                        changed_by.get(u.unit),
                    ),
                )
                if progress is not None:
                    progress(i + 1, total)
            c.execute("DELETE FROM facts WHERE version_id=?", (version_id,))
            c.executemany("INSERT INTO facts (version_id, unit, kind, value, value_unit, display, subject, "
                          "start_char, end_char) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                          fact_rows(version_id, parsed.units))
            self._restatus(parsed.act, parsed.language)
        new_texts = {u.unit: u.text for u in parsed.units}
        changed = tuple(
            sorted(k for k in old_texts.keys() | new_texts.keys() if old_texts.get(k) != new_texts.get(k))
        )
        return StoreResult(*key, parsed.format, "new" if old is None else "updated", counts, changed)

    def _restatus(self, act: str, language: str) -> None:
        """The latest version (by validity start) is current; each earlier one ends where the next begins."""
        rows = self.conn.execute(
            "SELECT id, valid_from, status, status_pinned FROM versions WHERE act=? AND language=? "
            "ORDER BY valid_from, version",
            (act, language),
        ).fetchall()
        live = [r for r in rows if not (r["status_pinned"] and r["status"] == "draft")]
        for i, r in enumerate(live):
            nxt = live[i + 1]["valid_from"] if i + 1 < len(live) else None
            if r["status_pinned"]:
                status = r["status"]
            else:
                status = "current" if nxt is None else "superseded"
            self.conn.execute("UPDATE versions SET status=?, valid_to=? WHERE id=?", (status, nxt, r["id"]))

    def set_unit_validity(self, ref: CitationRef, language: str, valid_from: str | None, valid_to: str | None,
                          changed_by: str | None) -> None:
        """Unit-level validity (amendments without a consolidated text)."""
        self.conn.execute(
            "UPDATE units SET valid_from=?, valid_to=?, changed_by=? WHERE unit=? AND version_id="
            "(SELECT id FROM versions WHERE act=? AND version=? AND language=?)",
            (valid_from, valid_to, changed_by, ref.unit, ref.act, ref.version, language),
        )

    # -- reading --------------------------------------------------------------

    def versions(self, act: str | None = None) -> list[VersionRow]:
        sql = (
            "SELECT v.*, (SELECT COUNT(*) FROM units u WHERE u.version_id=v.id) AS unit_count FROM versions v"
        )
        args: tuple[Any, ...] = ()
        if act:
            sql += " WHERE v.act=?"
            args = (act,)
        sql += " ORDER BY v.act, v.language, v.valid_from"
        return [self._version_row(r) for r in self.conn.execute(sql, args).fetchall()]

    @staticmethod
    def _version_row(r: sqlite3.Row) -> VersionRow:
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
        )

    def unit_counts(self, version_id: int) -> dict[str, int]:
        rows = self.conn.execute(
            "SELECT kind, COUNT(*) FROM units WHERE version_id=? GROUP BY kind", (version_id,)
        ).fetchall()
        return {k: n for k, n in rows}

    _RECORD_SQL = (
        "SELECT u.*, v.act, v.version, v.language, v.binding, v.status, v.access_tags, "
        "IFNULL(u.valid_from, v.valid_from) AS eff_from, "
        "CASE WHEN u.valid_to IS NULL THEN v.valid_to "
        "     WHEN v.valid_to IS NULL THEN u.valid_to "
        "     ELSE MIN(u.valid_to, v.valid_to) END AS eff_to "
        "FROM units u JOIN versions v ON v.id = u.version_id"
    )

    @staticmethod
    def _record(r: sqlite3.Row) -> UnitRecord:
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
            footnotes=tuple(json.loads(r["footnotes"])),
        )
        return UnitRecord(
            unit=unit,
            status=r["status"],
            valid_from=r["eff_from"],
            valid_to=r["eff_to"],
            access_tags=tuple(json.loads(r["access_tags"])),
            changed_by=r["changed_by"],
        )

    def records(self, act: str | None = None, language: str | None = None) -> Iterator[UnitRecord]:
        """Every stored unit with its catalog facts, in act/version/document order."""
        sql, args = self._RECORD_SQL, []
        where = []
        if act:
            where.append("v.act=?")
            args.append(act)
        if language:
            where.append("v.language=?")
            args.append(language)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY v.act, v.language, v.valid_from, u.position"
        for r in self.conn.execute(sql, args):
            yield self._record(r)

    def resolve(self, ref: CitationRef | str, language: str | None = None) -> UnitRecord:
        """The one stored unit a reference names; no version = the current one."""
        if isinstance(ref, str):
            ref = CitationRef.parse(ref)
        sql = self._RECORD_SQL + " WHERE v.act=? AND u.unit=?"
        args: list[Any] = [ref.act, ref.unit]
        if ref.version:
            sql += " AND v.version=?"
            args.append(ref.version)
        else:
            sql += " AND v.status='current'"
        if language:
            sql += " AND v.language=?"
            args.append(language)
        rows = self.conn.execute(sql + " ORDER BY v.language='en' DESC, v.language", args).fetchall()
        if not rows:
            hint = "" if ref.version else " (no current version holds it; give @YYYY-MM-DD)"
            raise CitationError(f"{ref}: no such unit in the catalog{hint}; see `lexcite acts`")
        return self._record(rows[0])

    def history(self, act: str, unit: str, language: str | None = None) -> list[UnitRecord]:
        sql = self._RECORD_SQL + " WHERE v.act=? AND u.unit=?"
        args: list[Any] = [act, unit]
        if language:
            sql += " AND v.language=?"
            args.append(language)
        return [self._record(r) for r in self.conn.execute(sql + " ORDER BY v.valid_from", args)]

    def facts(self, refs: Iterable[CitationRef] | None = None, kinds: Iterable[str] | None = None,
              language: str | None = None) -> list[Fact]:
        """Stored facts (ingest/facts.py), of these units only when `refs` is given, in document order."""
        sql = ("SELECT f.*, v.act, v.version FROM facts f JOIN versions v ON v.id = f.version_id "
               "JOIN units u ON u.version_id = f.version_id AND u.unit = f.unit")
        where, args = [], []
        if kinds is not None:
            kinds = list(kinds)
            where.append(f"f.kind IN ({', '.join('?' * len(kinds))})")
            args.extend(kinds)
        if language:
            where.append("v.language=?")
            args.append(language)
        if refs is not None:
            refs = list(refs)
            if not refs:
                return []
            one = ["(v.act=? AND f.unit=?" + (" AND v.version=?)" if r.version else ")") for r in refs]
            where.append("(" + " OR ".join(one) + ")")
            for r in refs:
                args.extend([r.act, r.unit] + ([r.version] if r.version else []))
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY v.act, v.version, u.position, f.start_char"
        return [Fact(kind=r["kind"], value=r["value"], unit=r["value_unit"], display=r["display"],
                     subject=r["subject"], ref=CitationRef(r["act"], r["version"], r["unit"]),
                     start=r["start_char"], end=r["end_char"]) for r in self.conn.execute(sql, args)]

    # -- fetch bookkeeping (conditional requests) --------------------------------

    def last_fetch(self, key: str) -> sqlite3.Row | None:
        """What the last fetch of `key` (e.g. "32024R1689/en") returned: etag, last_modified, sha256."""
        return self.conn.execute("SELECT * FROM fetches WHERE key=?", (key,)).fetchone()

    def record_fetch(self, key: str, url: str, etag: str | None, last_modified: str | None, sha256: str,
                     fetched_at: str) -> None:
        self.conn.execute(
            "INSERT INTO fetches (key, url, etag, last_modified, sha256, fetched_at) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(key) DO UPDATE SET url=excluded.url, etag=excluded.etag, "
            "last_modified=excluded.last_modified, sha256=excluded.sha256, fetched_at=excluded.fetched_at",
            (key, url, etag, last_modified, sha256, fetched_at),
        )
