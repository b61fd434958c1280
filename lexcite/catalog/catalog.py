"""The SQLite catalog: acts (works), versions (expressions) and their units.

It is the trust root for "which version is current". Every write is one
transaction: a failed or interrupted ingest leaves the previous state whole
(invariant 5), and re-storing identical input writes nothing at all.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lexcite import config
from lexcite._sqlite import busy, connect, is_busy, transaction
from lexcite.catalog import _rows
from lexcite.catalog._validity import restatus
from lexcite.catalog.dates import entry_into_force_of, unit_dates_of, version_dates, write_dates
from lexcite.catalog.schema import check_tables, damaged, migrate
from lexcite.config import Settings
from lexcite.contract import (
    STATUSES,
    AmendmentLink,
    CitationRef,
    Fact,
    ParsedAct,
    Perimeter,
    Unit,
    UnitRecord,
    VersionRow,
)
from lexcite.errors import CatalogError, CitationError
from lexcite.ingest.dates import Dated, UnitDates

__all__ = ["Catalog", "Source", "StoreResult", "FetchRecord", "catalog_path"]


def catalog_path(home: Path) -> Path:
    """Where a home keeps its catalog: LEXCITE_HOME/catalog.sqlite."""
    return home / "catalog.sqlite"


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
    action: str  # "new", "updated", "replaced" (with units lost, asked for), "unchanged"
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
class FetchRecord:
    """What the last fetch of a key (e.g. "32024R1689/en") returned, for a conditional request."""

    key: str
    url: str
    etag: str | None
    last_modified: str | None
    sha256: str
    fetched_at: str


class Catalog:
    """Open (and migrate) the catalog at `path`, default LEXCITE_HOME/catalog.sqlite."""

    def __init__(self, path: Path | None = None, settings: Settings | None = None):
        self.path = path or catalog_path(config.settings(settings).home)
        self._pages_checked = False
        self._state: tuple[tuple[int, int], str] | None = None  # (write stamp, fingerprint): see state()
        deadline = time.monotonic() + 30
        while True:
            try:
                self.conn = connect(self.path, wal=True)
                migrate(self.conn, self.path)
                check_tables(self.conn, self.path)
                return
            except sqlite3.OperationalError as e:
                # another process creating or migrating the same new catalog holds it: busy, not damaged
                if not is_busy(e):
                    raise damaged(self.path, e) from None
                if getattr(self, "conn", None) is not None:
                    self.conn.close()
                if time.monotonic() > deadline:
                    raise busy(self.path) from None
                time.sleep(0.05)
            except sqlite3.DatabaseError as e:
                raise damaged(self.path, e) from None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema ---------------------------------------------------------------

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """A write transaction; the first one of this connection checks every page first (below)."""
        if not self._pages_checked:
            self._check_pages()
        return transaction(self.conn)

    def _check_pages(self) -> None:
        """`PRAGMA quick_check` before the first write: a catalog with a damaged page is refused, never
        written on. Only on the write path: it reads the whole file (6-10 ms for a 10 MB catalog of 12 acts,
        warm), which every `ask` and `show` would pay on open, while a read that meets a bad page already
        ends in the one "damaged" line (cli/_app.py)."""
        try:
            result = self.conn.execute("PRAGMA quick_check(1)").fetchone()[0]
        except sqlite3.DatabaseError as e:
            raise damaged(self.path, e) from None
        if result != "ok":  # "*** in database main ***\nPage 23: btreeInitPage() returns error code 11"
            said = "; ".join(x.strip() for x in result.splitlines() if x.strip() and not x.startswith("***"))
            raise damaged(self.path, sqlite3.DatabaseError(f"quick_check: {said}"))
        self._pages_checked = True

    def state(self) -> str:
        """A fingerprint of the catalog's content: changes whenever any version changes."""
        # read again only after a write, by this connection (total_changes) or another (data_version): every
        # `ask` records it, and reading every unit's dates took 3-6 ms
        stamp = (self.conn.execute("PRAGMA data_version").fetchone()[0], self.conn.total_changes)
        if self._state is not None and self._state[0] == stamp:
            return self._state[1]
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
        self._state = (stamp, h.hexdigest()[:16])
        return self._state[1]

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
        check_loss: Callable[[set[str]], set[str]] | None = None,
    ) -> StoreResult:
        """Store one parsed manifestation in one transaction.

        Identical input (same act, version, language and sha256) writes nothing.
        A newer version marks the older ones of the same act and language superseded.
        `check_loss`, given the unit ids of the stored text this one replaces, raises to refuse it or
        returns the ids it accepts to lose (the action is then "replaced"); it runs inside the write
        transaction, so the ids it judges are the ones this write replaces.
        """
        if status is not None and status not in STATUSES:
            raise CatalogError(f"status {status!r} is not one of {', '.join(STATUSES)}")
        key = (parsed.act, parsed.version, parsed.language)
        counts = parsed.counts()
        changed_by = dict(parsed.changed_units)
        # The stored row is read inside the write transaction: two processes storing the same
        # expression serialise here, and the second sees what the first stored.
        with self.transaction() as c:
            old = c.execute(
                "SELECT id, sha256, status, status_pinned FROM versions WHERE act=? AND version=? AND language=?",
                key,
            ).fetchone()
            if old is not None and old["sha256"] == source.sha256 and (status is None or status == old["status"]):
                return StoreResult(*key, parsed.format, "unchanged", counts)
            old_texts: dict[str, str] = {}
            if old is not None:
                old_texts = dict(c.execute("SELECT unit, text FROM units WHERE version_id=?", (old["id"],)).fetchall())
            lost = check_loss(set(old_texts)) if old is not None and check_loss is not None else set()
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
                valid_from or entry_into_force_of(parsed) or parsed.version,
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
                json.dumps([list(d) for d in parsed.divisions]),
            )
            if old is None:
                cur = c.execute(
                    "INSERT INTO versions (format, status, status_pinned, valid_from, binding, title, source, "
                    "source_url, sha256, raw_path, etag, last_modified, headers, fetched_at, ingested_at, "
                    "modified_by, access_tags, divisions, act, version, language) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*row, *key),
                )
                version_id = cur.lastrowid
            else:
                version_id = old["id"]
                c.execute(
                    "UPDATE versions SET format=?, status=?, status_pinned=?, valid_from=?, binding=?, title=?, "
                    "source=?, source_url=?, sha256=?, raw_path=?, etag=?, last_modified=?, headers=?, "
                    "fetched_at=?, ingested_at=?, modified_by=?, access_tags=?, divisions=? WHERE id=?",
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
            c.executemany(_rows.INSERT_FACTS, _rows.fact_rows(version_id, parsed.units))
            write_dates(c, version_id)
            restatus(c, parsed.act, parsed.language)
        new_texts = {u.unit: u.text for u in parsed.units}
        changed = tuple(
            sorted(k for k in old_texts.keys() | new_texts.keys() if old_texts.get(k) != new_texts.get(k))
        )
        action = "replaced" if lost else "new" if old is None else "updated"
        return StoreResult(*key, parsed.format, action, counts, changed, tuple(sorted(lost)))

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
        clause, args = _rows.where({"v.act": act})
        sql = ("SELECT v.*, (SELECT COUNT(*) FROM units u WHERE u.version_id=v.id) AS unit_count FROM versions v"
               f"{clause} ORDER BY v.act, v.language, v.valid_from")
        return [_rows.version_row(r) for r in self.conn.execute(sql, args).fetchall()]

    def unit_counts(self, version_id: int) -> dict[str, int]:
        rows = self.conn.execute(
            "SELECT kind, COUNT(*) FROM units WHERE version_id=? GROUP BY kind", (version_id,)
        ).fetchall()
        return {k: n for k, n in rows}

    def records(self, act: str | None = None, language: str | None = None) -> Iterator[UnitRecord]:
        """Every stored unit with its catalog facts, in act/version/document order."""
        clause, args = _rows.where({"v.act": act, "v.language": language})
        sql = _rows.RECORD_SQL + clause + " ORDER BY v.act, v.language, v.valid_from, u.position"
        for r in self.conn.execute(sql, args):
            yield _rows.unit_record(r)

    def resolve(self, ref: CitationRef | str, language: str | None = None) -> UnitRecord:
        """The one stored unit a reference names; no version = the current one."""
        if isinstance(ref, str):
            ref = CitationRef.parse(ref)
        sql = _rows.RECORD_SQL + " WHERE v.act=? AND u.unit=?"
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
        return _rows.unit_record(rows[0])

    def unit_dates(self, ref: CitationRef | str, language: str | None = None) -> UnitDates | None:
        """When the unit a reference names is in force and applies, each date with the unit that sets it
        (lexcite/catalog/dates.py); None for a unit stored without dates."""
        rec = self.resolve(ref, language)
        u = rec.unit
        row = self.conn.execute("SELECT id FROM versions WHERE act=? AND version=? AND language=?",
                                (u.act, u.version, u.language)).fetchone()
        return unit_dates_of(self.conn, row["id"], u.unit)

    def version_dates(self, version_id: int) -> tuple[Dated, Dated] | None:
        """(entry into force, general date of application) of the act, as one stored version says; None when
        not read."""
        return version_dates(self.conn, version_id)

    def act_dates(self, act: str, version: str, language: str) -> tuple[Dated, Dated] | None:
        """`version_dates` of the version `act@version` in `language`."""
        row = self.conn.execute("SELECT id FROM versions WHERE act=? AND version=? AND language=?",
                                (act, version, language)).fetchone()
        return version_dates(self.conn, row["id"]) if row else None

    def outside(self, ref: CitationRef, perimeter: Perimeter) -> str | None:
        """Why the unit `ref` names is outside `perimeter`, by its stored record (`Perimeter.rejects`); None inside."""
        try:
            return perimeter.rejects(self.resolve(ref, perimeter.language))
        except CitationError:
            return "not in the catalog"

    def children(self, rec: UnitRecord) -> list[UnitRecord]:
        """The direct parts of a stored unit (an article's paragraphs), in document order; [] when it has none."""
        u = rec.unit
        sql = _rows.RECORD_SQL + " WHERE v.act=? AND v.version=? AND v.language=? AND u.parent=? ORDER BY u.position"
        return [_rows.unit_record(r) for r in self.conn.execute(sql, (u.act, u.version, u.language, u.unit))]

    def history(self, act: str, unit: str, language: str | None = None) -> list[UnitRecord]:
        sql = _rows.RECORD_SQL + " WHERE v.act=? AND u.unit=?"
        args: list[Any] = [act, unit]
        if language:
            sql += " AND v.language=?"
            args.append(language)
        return [_rows.unit_record(r) for r in self.conn.execute(sql + " ORDER BY v.valid_from", args)]

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
        return [_rows.fact(r) for r in self.conn.execute(sql, args)]

    # -- fetch bookkeeping (conditional requests) --------------------------------

    def last_fetch(self, key: str) -> FetchRecord | None:
        """What the last fetch of `key` (e.g. "32024R1689/en") returned: etag, last_modified, sha256."""
        r = self.conn.execute("SELECT * FROM fetches WHERE key=?", (key,)).fetchone()
        return None if r is None else FetchRecord(**dict(r))

    def record_fetch(self, key: str, url: str, etag: str | None, last_modified: str | None, sha256: str,
                     fetched_at: str) -> None:
        self.conn.execute(
            "INSERT INTO fetches (key, url, etag, last_modified, sha256, fetched_at) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(key) DO UPDATE SET url=excluded.url, etag=excluded.etag, "
            "last_modified=excluded.last_modified, sha256=excluded.sha256, fetched_at=excluded.fetched_at",
            (key, url, etag, last_modified, sha256, fetched_at),
        )

    # -- amendment links (lexcite/ingest/amendments.py reads them, apply_amendments.py applies them) ----------

    def store_links(self, act: str, version: str, links: Sequence[AmendmentLink]) -> bool:
        """Replace the stored links of one amending act version; identical links write nothing. True if written."""
        old = self.conn.execute(
            f"SELECT {', '.join(_rows.LINK_COLUMNS)} FROM amendments WHERE amending_act=? AND amending_version=? "
            "ORDER BY seq", (act, version)).fetchall()
        new = [_rows.link_row(link) for link in links]
        if [tuple(r) for r in old] == new:
            return False
        with self.transaction() as c:
            c.execute("DELETE FROM amendments WHERE amending_act=? AND amending_version=?", (act, version))
            c.executemany(
                f"INSERT INTO amendments (amending_act, amending_version, seq, {', '.join(_rows.LINK_COLUMNS)}) "
                f"VALUES (?, ?, ?, {', '.join('?' * len(_rows.LINK_COLUMNS))})",
                [(act, version, i, *r) for i, r in enumerate(new)],
            )
        return True

    def set_link_outcomes(self, act: str, version: str, outcomes: dict[int, str]) -> None:
        """Record, per link (by its order), whether applying it worked; writes only what changed."""
        old = dict(self.conn.execute(
            "SELECT seq, outcome FROM amendments WHERE amending_act=? AND amending_version=?",
            (act, version)).fetchall())
        changed = [(v, act, version, k) for k, v in outcomes.items() if k in old and old[k] != v]
        if changed:
            with self.transaction() as c:
                c.executemany("UPDATE amendments SET outcome=? WHERE amending_act=? AND amending_version=? AND seq=?",
                              changed)

    def links(self, target_act: str | None = None, amending_act: str | None = None,
              ) -> list[tuple[AmendmentLink, str | None]]:
        """Stored links (of one target act / one amending act, or all), in order, with their apply outcome."""
        clause, args = _rows.where({"target_act": target_act, "amending_act": amending_act})
        rows = self.conn.execute(f"SELECT {', '.join(_rows.LINK_COLUMNS)}, outcome FROM amendments{clause} "
                                 "ORDER BY amending_act, amending_version, seq", args).fetchall()
        return [(_rows.link(r), r["outcome"]) for r in rows]

    def amending_versions(self, target_acts: Iterable[str]) -> list[tuple[str, str]]:
        """(amending act, version) of every stored act with a link into one of `target_acts`."""
        targets = tuple(target_acts)
        if not targets:
            return []
        return [tuple(r) for r in self.conn.execute(
            f"SELECT DISTINCT amending_act, amending_version FROM amendments "
            f"WHERE target_act IN ({','.join('?' * len(targets))})", targets).fetchall()]

    # -- official consolidation vs derived version (lexcite/ingest/consolidation.py) -------------------------

    def store_consolidation_check(self, act: str, version: str, language: str, result: dict[str, Any],
                                  derived: Sequence[Unit], changed_by: Iterable[tuple[str, str]] = ()) -> bool:
        """Keep the comparison of an official consolidated version with the derived one, and the derived
        units themselves (`derived_units`: the official text is the version's, the derived one stays
        readable); the same result and units write nothing (invariant 5). True if written."""
        text = json.dumps(result, ensure_ascii=False, sort_keys=True)
        changes = dict(changed_by)
        rows = [(u.unit, u.position, json.dumps(u.to_dict(), ensure_ascii=False, sort_keys=True), changes.get(u.unit))
                for u in sorted(derived, key=lambda u: u.position)]
        key = (act, version, language)
        old = self.conn.execute("SELECT result FROM consolidation_checks WHERE act=? AND version=? AND language=?",
                                key).fetchone()
        old_rows = [tuple(r) for r in self.conn.execute(
            "SELECT unit, position, data, changed_by FROM derived_units WHERE act=? AND version=? AND language=? "
            "ORDER BY position", key)]
        if old is not None and old["result"] == text and old_rows == rows:
            return False
        with self.transaction() as c:
            c.execute("INSERT INTO consolidation_checks (act, version, language, result, checked_at) "
                      "VALUES (?, ?, ?, ?, ?) ON CONFLICT(act, version, language) DO UPDATE SET "
                      "result=excluded.result, checked_at=excluded.checked_at",
                      (*key, text, _now()))
            c.execute("DELETE FROM derived_units WHERE act=? AND version=? AND language=?", key)
            c.executemany("INSERT INTO derived_units (act, version, language, unit, position, data, changed_by) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?)", [(*key, *r) for r in rows])
        return True

    def derived_units(self, act: str, version: str, language: str, under: str | None = None,
                      ) -> list[tuple[Unit, str | None]]:
        """The units lexcite derived for a version an official consolidation holds, in document order, each
        with the amending unit that changed it; `under`: that unit and its parts only. [] when none are kept."""
        sql = "SELECT data, changed_by FROM derived_units WHERE act=? AND version=? AND language=?"
        args: list[Any] = [act, version, language]
        if under is not None:
            sql += " AND (unit=? OR substr(unit, 1, ?)=?)"
            args += [under, len(under) + 1, under + "."]
        return [(Unit.from_dict(json.loads(r["data"])), r["changed_by"])
                for r in self.conn.execute(sql + " ORDER BY position", args)]

    def consolidation_checks(self, act: str) -> list[dict[str, Any]]:
        """The stored comparisons for `act`, latest version first (each with its `checked_at`)."""
        rows = self.conn.execute("SELECT result, checked_at FROM consolidation_checks WHERE act=? "
                                 "ORDER BY version DESC, language", (act,)).fetchall()
        return [{**json.loads(r["result"]), "checked_at": r["checked_at"]} for r in rows]

    # -- small reads ------------------------------------------------------------------------------------------

    def doc_kind(self, act: str) -> str:
        """The stored kind of document of `act` (regulation, directive, ...). Raises CatalogError when absent."""
        row = self.conn.execute("SELECT doc_kind FROM acts WHERE celex=?", (act,)).fetchone()
        if row is None:
            raise CatalogError(f"{act}: not in the catalog; see `lexcite acts`")
        return row["doc_kind"]

    def texts(self, act: str, version: str, language: str, kind: str) -> list[str]:
        """The texts of one version's units of one kind, in document order."""
        return [r[0] for r in self.conn.execute(
            "SELECT u.text FROM units u JOIN versions v ON v.id=u.version_id "
            "WHERE v.act=? AND v.version=? AND v.language=? AND u.kind=? ORDER BY u.position",
            (act, version, language, kind))]
