"""Two writers at once: real processes, one catalog (issue 16, item 9)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from lexcite._sqlite import transaction
from lexcite.catalog import Catalog
from lexcite.errors import CatalogError

pytestmark = pytest.mark.integration


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "lexcite", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=os.environ.copy())


def _both(*args: str) -> list[tuple[int, str]]:
    procs = [_start(*args), _start(*args)]
    return [(p.returncode, p.communicate(timeout=300)[1]) for p in procs for _ in [p.wait(timeout=300)]]


@pytest.mark.parametrize("attempt", range(3))
def test_two_ingests_on_a_new_home_both_succeed(corpus, lexcite_home, attempt):
    results = _both("ingest", str(corpus / "32024R2977.oj.html"), "--json")
    assert [rc for rc, _ in results] == [0, 0], results
    assert not any("Traceback" in err for _, err in results)
    with Catalog() as catalog:
        assert [(v.act, v.unit_count) for v in catalog.versions()] == [("32024R2977", 64)]


def test_two_ingests_of_one_new_expression_on_an_existing_home_serialise(corpus, lexcite_home):
    assert subprocess.run([sys.executable, "-m", "lexcite", "ingest", str(corpus / "32026R1744.oj.xhtml")],
                          capture_output=True, env=os.environ.copy(), timeout=300).returncode == 0
    results = _both("ingest", str(corpus / "32024R2977.oj.html"), "--json")
    assert [rc for rc, _ in results] == [0, 0], results
    with Catalog() as catalog:
        assert sorted(v.act for v in catalog.versions()) == ["32024R2977", "32026R1744"]


def test_a_writer_that_cannot_get_the_lock_in_time_says_busy(tmp_path):
    path = tmp_path / "catalog.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")
    waiter = sqlite3.connect(path, isolation_level=None, timeout=0.05)
    with pytest.raises(CatalogError, match="is busy: another lexcite process"), transaction(waiter):
        pass
    holder.execute("ROLLBACK")


def test_a_migration_applied_by_another_process_meanwhile_is_not_run_again(tmp_path, monkeypatch):
    """The race made deterministic: this process has read 'nothing applied' when the other one migrates."""
    from lexcite._sqlite import Migrations
    from lexcite.catalog.schema import MIGRATIONS

    path = tmp_path / "catalog.sqlite"
    stale = Migrations.applied

    def applied_then_the_other_process_migrates(self, conn):
        seen = stale(self, conn)
        monkeypatch.setattr(Migrations, "applied", stale)
        Catalog(path).close()  # the other process, starting at the same moment, wins the race
        return seen

    monkeypatch.setattr(Migrations, "applied", applied_then_the_other_process_migrates)
    with Catalog(path) as catalog:
        assert catalog.versions() == []
    assert MIGRATIONS.names
