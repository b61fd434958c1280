from __future__ import annotations

import sqlite3

import pytest

from lexcite.catalog import Catalog, Source
from lexcite.catalog.schema import MIGRATIONS
from lexcite.contract import ParsedAct, Unit
from lexcite.errors import CatalogError, CitationError


def _act(version: str, text: str = "Providers shall comply.", act: str = "32099R0001", n: int = 3) -> ParsedAct:
    units = [Unit(act, version, "art_1", "article", "Article 1 — Subject", text, None, 0, "en")]
    units += [
        Unit(act, version, f"art_1.par_{i}", "paragraph", f"Article 1({i})", f"{i}. {text}", "art_1", i, "en")
        for i in range(1, n + 1)
    ]
    return ParsedAct(act, version, "en", "oj", "Regulation 2099/1 on testing", tuple(units))


def _source(sha: str) -> Source:
    return Source(location="/tmp/x.xhtml", sha256=sha)


@pytest.fixture
def catalog(tmp_path):
    with Catalog(tmp_path / "catalog.sqlite") as c:
        yield c


class TestSchema:
    def test_migrating_twice_is_a_noop(self, tmp_path):
        Catalog(tmp_path / "c.sqlite").close()
        with Catalog(tmp_path / "c.sqlite") as c:
            assert MIGRATIONS.apply(c.conn) == []
            assert MIGRATIONS.applied(c.conn) == MIGRATIONS.names

    def test_a_catalog_numbered_by_user_version_adopts_its_steps_and_runs_only_the_rest(self, tmp_path):
        path = tmp_path / "c.sqlite"
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA user_version = 1")  # a catalog made before steps were named, at step 1
        for _name, step in MIGRATIONS.steps[:1]:
            step(conn)
        conn.commit()
        conn.close()
        with Catalog(path) as c:  # step 1 is not run again (its CREATE TABLE would fail)
            assert MIGRATIONS.applied(c.conn) == MIGRATIONS.names
            assert c.conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name='amendments'").fetchone()[0] == 1
            # a lexcite from before named steps reads this number, so it stays at the numbered steps' count
            assert c.conn.execute("PRAGMA user_version").fetchone()[0] == 3

    def test_a_step_this_lexcite_does_not_know_is_refused_as_newer(self, tmp_path):
        Catalog(tmp_path / "c.sqlite").close()
        conn = sqlite3.connect(tmp_path / "c.sqlite")
        conn.execute("INSERT INTO _lexcite_migrations (name, applied_at) VALUES ('m999_future', 'x')")
        conn.commit()
        conn.close()
        with pytest.raises(CatalogError, match="m999_future are newer than this lexcite"):
            Catalog(tmp_path / "c.sqlite")

    def test_a_newer_schema_is_refused_with_a_clear_error(self, tmp_path):
        conn = sqlite3.connect(tmp_path / "c.sqlite")
        conn.execute("PRAGMA user_version = 999")
        conn.close()
        with pytest.raises(CatalogError, match="newer than this lexcite"):
            Catalog(tmp_path / "c.sqlite")


class TestStore:
    def test_storing_a_new_act_reports_its_counts(self, catalog):
        r = catalog.store(_act("2099-01-01"), _source("a"))
        assert (r.action, r.counts) == ("new", {"article": 1, "paragraph": 3})

    def test_reingesting_unchanged_act_changes_nothing(self, catalog):
        catalog.store(_act("2099-01-01"), _source("a"))
        before = catalog.state()
        ingested_at = catalog.versions()[0].ingested_at
        r = catalog.store(_act("2099-01-01"), _source("a"))
        assert r.action == "unchanged"
        assert catalog.state() == before
        assert catalog.versions()[0].ingested_at == ingested_at

    def test_changed_text_of_the_same_version_is_an_update_listing_changed_units(self, catalog):
        catalog.store(_act("2099-01-01"), _source("a"))
        r = catalog.store(_act("2099-01-01", text="Providers shall not comply."), _source("b"))
        assert r.action == "updated"
        assert set(r.changed_units) == {"art_1", "art_1.par_1", "art_1.par_2", "art_1.par_3"}

    def test_a_newer_version_supersedes_the_older_without_deleting_it(self, catalog):
        catalog.store(_act("2099-01-01"), _source("a"))
        catalog.store(_act("2099-06-01", text="Providers shall comply fully."), _source("b"))
        old, new = catalog.versions("32099R0001")
        assert (old.status, old.valid_to) == ("superseded", "2099-06-01")
        assert (new.status, new.valid_to) == ("current", None)
        assert old.unit_count == new.unit_count == 4

    def test_an_older_version_ingested_later_does_not_become_current(self, catalog):
        catalog.store(_act("2099-06-01"), _source("b"))
        catalog.store(_act("2099-01-01"), _source("a"))
        assert [(v.version, v.status) for v in catalog.versions()] == [
            ("2099-01-01", "superseded"), ("2099-06-01", "current")]

    def test_an_unknown_status_is_refused(self, catalog):
        with pytest.raises(CatalogError, match="not one of"):
            catalog.store(_act("2099-01-01"), _source("a"), status="valid")

    def test_the_state_follows_writes_by_this_connection_and_by_another(self, catalog, tmp_path):
        empty = catalog.state()
        assert catalog.state() == empty  # read once, kept until a write
        catalog.store(_act("2099-01-01"), _source("a"))
        stored = catalog.state()
        assert stored != empty
        with Catalog(tmp_path / "catalog.sqlite") as other:  # another process's catalog, on the same file
            other.store(_act("2099-01-01", text="Providers shall not comply."), _source("b"))
            assert other.state() != stored
            assert catalog.state() == other.state()

    def test_a_failure_midway_leaves_the_previous_state_whole(self, catalog):
        catalog.store(_act("2099-01-01"), _source("a"))
        before = catalog.state()

        def boom(i: int, n: int) -> None:
            if i == 2:
                raise RuntimeError("disk on fire")

        with pytest.raises(RuntimeError):
            catalog.store(_act("2099-01-01", text="Changed."), _source("b"), progress=boom)
        assert catalog.state() == before
        assert catalog.resolve("32099R0001#art_1.par_1").unit.text == "1. Providers shall comply."


class TestResolve:
    def test_a_reference_without_version_resolves_to_the_current_text(self, catalog):
        catalog.store(_act("2099-01-01"), _source("a"))
        catalog.store(_act("2099-06-01", text="New text."), _source("b"))
        rec = catalog.resolve("32099R0001#art_1.par_2")
        assert (rec.unit.version, rec.status, rec.unit.text) == ("2099-06-01", "current", "2. New text.")

    def test_a_versioned_reference_resolves_to_that_version(self, catalog):
        catalog.store(_act("2099-01-01"), _source("a"))
        catalog.store(_act("2099-06-01", text="New text."), _source("b"))
        rec = catalog.resolve("32099R0001@2099-01-01#art_1.par_2")
        assert (rec.status, rec.valid_to) == ("superseded", "2099-06-01")

    def test_an_unknown_unit_is_a_citation_error(self, catalog):
        catalog.store(_act("2099-01-01"), _source("a"))
        with pytest.raises(CitationError, match="no such unit"):
            catalog.resolve("32099R0001#art_9")

    def test_history_lists_every_version_of_a_unit(self, catalog):
        catalog.store(_act("2099-01-01"), _source("a"))
        catalog.store(_act("2099-06-01", text="New text."), _source("b"))
        assert [r.unit.version for r in catalog.history("32099R0001", "art_1")] == ["2099-01-01", "2099-06-01"]

    def test_children_are_the_direct_parts_of_that_version_in_document_order(self, catalog):
        catalog.store(_act("2099-01-01", n=3), _source("a"))
        catalog.store(_act("2099-06-01", text="New text.", n=2), _source("b"))
        old = catalog.resolve("32099R0001@2099-01-01#art_1")
        assert [c.unit.unit for c in catalog.children(old)] == ["art_1.par_1", "art_1.par_2", "art_1.par_3"]
        new = catalog.resolve("32099R0001#art_1")
        assert [c.unit.text for c in catalog.children(new)] == ["1. New text.", "2. New text."]
        assert catalog.children(catalog.resolve("32099R0001#art_1.par_1")) == []


_KILLER = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from pathlib import Path
from test_catalog import _act, _source
from lexcite.catalog import Catalog
c = Catalog(Path({db!r}))
c.store(_act("2099-01-01"), _source("a"))
print("stored", flush=True)
def die(i, n):
    if i == 2:
        os.kill(os.getpid(), signal.SIGKILL)
c.store(_act("2099-01-01", text="Half-written."), _source("b"), progress=die)
"""


@pytest.mark.integration
def test_a_process_killed_mid_ingest_leaves_the_previous_state_whole(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    db = tmp_path / "catalog.sqlite"
    code = _KILLER.format(tests=str(Path(__file__).parent), db=str(db))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -9 and "stored" in proc.stdout, proc.stderr
    with Catalog(db) as c:
        assert c.versions()[0].sha256 == "a"
        assert c.resolve("32099R0001#art_1.par_1").unit.text == "1. Providers shall comply."
        assert c.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
