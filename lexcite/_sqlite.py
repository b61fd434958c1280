"""The one way lexcite opens a SQLite file, writes to it in a transaction and migrates its schema (catalog, traces)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from lexcite.errors import CatalogError

__all__ = ["connect", "transaction", "Migrations", "run_script"]

Step = Callable[[sqlite3.Connection], None]


def connect(path: Path, *, wal: bool = False) -> sqlite3.Connection:
    """Autocommit connection (transactions are explicit), rows by name, foreign keys on."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    if wal:
        conn.execute("PRAGMA journal_mode = WAL")
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception (an interrupted write leaves nothing).

    Writers queue for up to the connection's timeout (30 s); past it, one clear "busy" error.
    """
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as e:
        if not is_busy(e):
            raise
        raise busy(_path_of(conn)) from None
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


def is_busy(e: sqlite3.OperationalError) -> bool:
    """SQLite's 'database is locked' / 'busy': another process holds the file, which is not damage."""
    return "locked" in str(e) or "busy" in str(e)


def busy(path: object) -> CatalogError:
    """The one 'busy' error, for a writer or an opener that waited its 30 s."""
    return CatalogError(f"{path} is busy: another lexcite process has held it for more than 30 s; "
                        "try again when it has finished")


def _path_of(conn: sqlite3.Connection) -> str:
    row = conn.execute("PRAGMA database_list").fetchone()
    return row[2] if row and row[2] else "the database"


def run_script(db: sqlite3.Connection, script: str) -> None:
    """Run `;`-separated statements inside the caller's transaction."""
    # Not executescript(): it commits first, and a migration must run inside its own transaction.
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


class Migrations:
    """Named, ordered schema steps, each applied once and recorded in `_lexcite_migrations`.

    The simonw/llm `migrations.py` pattern: decorate a function to append it; `apply` runs, in
    order and each in its own transaction, the ones the database has not recorded yet.
    """

    TABLE = "_lexcite_migrations"

    def __init__(self) -> None:
        self.steps: list[tuple[str, Step]] = []

    def __call__(self, fn: Step) -> Step:
        if any(name == fn.__name__ for name, _ in self.steps):
            raise ValueError(f"migration {fn.__name__} is defined twice")
        self.steps.append((fn.__name__, fn))
        return fn

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.steps]

    def applied(self, conn: sqlite3.Connection) -> list[str]:
        """Names of the steps this database has recorded, in the order they ran."""
        conn.execute(f"CREATE TABLE IF NOT EXISTS {self.TABLE} (name TEXT PRIMARY KEY, applied_at TEXT)")
        return [r[0] for r in conn.execute(f"SELECT name FROM {self.TABLE} ORDER BY rowid")]

    def apply(self, conn: sqlite3.Connection, *, where: str = "database") -> list[str]:
        """Run the steps not yet applied; returns their names (empty when up to date).

        Raises sqlite3.DatabaseError from a failing step (that step's changes are rolled back).
        A database that records a step this code does not know is newer than this lexcite:
        ValueError naming it, before anything runs.
        """
        done = set(self.applied(conn))
        unknown = done - set(self.names)
        if unknown:
            raise ValueError(f"{where}: schema step(s) {', '.join(sorted(unknown))} are newer than this lexcite; "
                             "upgrade lexcite")
        ran = []
        for name, fn in self.steps:
            if name in done:
                continue
            with transaction(conn) as db:
                # Another process starting at the same moment may have applied it while we waited.
                if db.execute(f"SELECT 1 FROM {self.TABLE} WHERE name=?", (name,)).fetchone():
                    continue
                fn(db)
                db.execute(f"INSERT INTO {self.TABLE} (name, applied_at) VALUES (?, ?)",
                           (name, datetime.now(UTC).isoformat(timespec="seconds")))
            ran.append(name)
        return ran

    def adopt(self, conn: sqlite3.Connection, count: int) -> None:
        """Record the first `count` steps as applied without running them (a schema made before the table)."""
        self.applied(conn)
        with transaction(conn) as db:
            db.executemany(f"INSERT OR IGNORE INTO {self.TABLE} (name, applied_at) VALUES (?, ?)",
                           [(name, "adopted") for name in self.names[:count]])
