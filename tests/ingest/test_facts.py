"""The structured numeric channel at ingest: facts extracted from units, stored with them, read back."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from lexcite.catalog import Catalog, Source
from lexcite.catalog.schema import MIGRATIONS
from lexcite.contract import CitationRef, ParsedAct, Unit
from lexcite.ingest.facts import extract_facts

pytestmark = pytest.mark.unit

FINE = ("Non-compliance with the prohibition of the AI practices referred to in Article 5 shall be subject to "
        "administrative fines of up to EUR 35 000 000 or, if the offender is an undertaking, up to 7 % of its total "
        "worldwide annual turnover for the preceding financial year, whichever is higher.")
APPLY = "It shall apply from 2 August 2026. The report shall be made not later than 15 days after 1 March 2025."
FLOPS = "when the cumulative amount of computation used for its training measured in floating point operations " \
        "is greater than 10^25."


def unit(uid: str, text: str, version: str = "2024-07-12") -> Unit:
    return Unit("32024R1689", version, uid, "paragraph", uid, text, None, 0, "en")


def act(*units: Unit, version: str = "2024-07-12") -> ParsedAct:
    return ParsedAct("32024R1689", version, "en", "oj", "AI Act", units)


def put(catalog: Catalog, parsed: ParsedAct) -> None:
    sha = hashlib.sha256(repr(parsed).encode()).hexdigest()
    catalog.store(parsed, Source("test", sha))


class TestExtraction:
    def test_a_fine_and_a_turnover_share_are_facts_with_their_spans(self):
        facts = extract_facts(unit("art_99.par_3", FINE))
        assert [(f.kind, f.value, f.unit, f.display) for f in facts] == [
            ("fine_amount", "35000000", "EUR", "EUR 35 000 000"),
            ("turnover_pct", "7", "%", "7 %"),
        ]
        f = facts[0]
        assert FINE[f.start:f.end] == "EUR 35 000 000"
        assert f.ref == CitationRef("32024R1689", "2024-07-12", "art_99.par_3")
        assert "fines" in f.subject

    def test_a_date_after_apply_from_is_a_date_of_application(self):
        facts = extract_facts(unit("art_113", APPLY))
        assert [(f.kind, f.value, f.unit) for f in facts] == [
            ("application_date", "2026-08-02", "date"),
            ("deadline", "15", "days"),
            ("date", "2025-03-01", "date"),
        ]

    def test_a_power_of_ten_near_floating_point_operations_is_a_flop_threshold(self):
        (f,) = extract_facts(unit("art_51.par_2", FLOPS))
        assert (f.kind, f.value, f.unit, f.display) == ("threshold", "10^25", "FLOP", "10^25")

    def test_article_numbers_are_not_facts(self):
        assert extract_facts(unit("art_6", "Article 6(2) and Annex III apply.")) == []


class TestCatalogFacts:
    def test_store_writes_the_facts_in_the_same_transaction_and_facts_reads_them(self, tmp_path):
        with Catalog(tmp_path / "c.sqlite") as c:
            put(c, act(unit("art_99.par_3", FINE), unit("art_113", APPLY)))
            facts = c.facts()
            assert len(facts) == 5
            only = c.facts(refs=[CitationRef.parse("32024R1689@2024-07-12#art_99.par_3")])
            assert [f.display for f in only] == ["EUR 35 000 000", "7 %"]
            assert [f.kind for f in c.facts(kinds=["application_date"])] == ["application_date"]
            assert c.facts(refs=[]) == []

    def test_restoring_a_changed_version_replaces_its_facts(self, tmp_path):
        with Catalog(tmp_path / "c.sqlite") as c:
            put(c, act(unit("art_99.par_3", FINE)))
            put(c, act(unit("art_99.par_3", FINE.replace("35 000 000", "40 000 000"))))
            assert [f.value for f in c.facts(kinds=["fine_amount"])] == ["40000000"]

    def test_each_version_keeps_its_own_facts(self, tmp_path):
        with Catalog(tmp_path / "c.sqlite") as c:
            put(c, act(unit("art_99.par_3", FINE)))
            put(c, act(unit("art_99.par_3", FINE.replace("35 000 000", "40 000 000"), "2026-07-27"),
                       version="2026-07-27"))
            old = c.facts(refs=[CitationRef.parse("32024R1689@2024-07-12#art_99.par_3")], kinds=["fine_amount"])
            new = c.facts(refs=[CitationRef.parse("32024R1689@2026-07-27#art_99.par_3")], kinds=["fine_amount"])
            assert [f.value for f in old] == ["35000000"] and [f.value for f in new] == ["40000000"]

    def test_a_failing_store_leaves_no_facts_behind(self, tmp_path, monkeypatch):
        import lexcite.catalog._rows as cat

        def boom(version_id, units):
            yield (version_id, "art_1", "date", "2026-08-02", "date", "x", "", 0, 1)
            raise RuntimeError("interrupted")

        monkeypatch.setattr(cat, "fact_rows", boom)
        with Catalog(tmp_path / "c.sqlite") as c:
            with pytest.raises(RuntimeError):
                put(c, act(unit("art_113", APPLY)))
            assert c.facts() == [] and c.versions() == []

    def test_the_facts_migration_is_appended_and_runs_once(self, tmp_path):
        path = tmp_path / "c.sqlite"
        Catalog(path).close()
        Catalog(path).close()
        db = sqlite3.connect(path)
        assert db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name='facts'").fetchone()[0] == 1
        assert [r[0] for r in db.execute("SELECT name FROM _lexcite_migrations ORDER BY rowid")] == MIGRATIONS.names


def test_a_catalog_from_before_the_facts_table_gets_its_facts_when_migrated(tmp_path):
    path = tmp_path / "c.sqlite"
    with Catalog(path) as c:
        put(c, act(unit("art_99.par_3", FINE)))
    db = sqlite3.connect(path)
    step_one = {"acts", "versions", "units", "fetches"}  # back to schema version 1, before facts existed
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
        if table not in step_one and not table.startswith("sqlite_"):
            db.execute(f"DROP TABLE {table}")
    # and without the columns later steps added to those tables (m004: dates)
    for table, column in [*(("versions", c) for c in ("divisions", "entry_into_force", "entry_into_force_by",
                                                       "applies_from", "applies_from_by", "dates_said")),
                          *(("units", c) for c in ("in_force_from", "in_force_by", "applies_from", "applies_from_by",
                                                    "applies_until", "applies_until_by", "dates"))]:
        db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with Catalog(path) as c:
        assert [f.display for f in c.facts()] == ["EUR 35 000 000", "7 %"]
