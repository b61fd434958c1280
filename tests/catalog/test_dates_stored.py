"""Dates in the catalog (lexcite/catalog/dates.py) on the real AI Act, Digital Omnibus and GDPR: per unit, with the
unit that sets each; amendment links dated by the amended act's rules; the migration that dates an older catalog;
and what `show`, `acts` and `amendments` print."""

from __future__ import annotations

import json
import sqlite3

import pytest
from typer.testing import CliRunner

from lexcite.catalog import Catalog
from lexcite.catalog.dates import backfill_dates
from lexcite.cli import app
from lexcite.ingest.load import ingest_paths

pytestmark = pytest.mark.integration

AI, OMNI, GDPR = "32024R1689", "32026R1744", "32016R0679"
FILES = ("32024R1689.oj.xhtml", "32026R1744.oj.xhtml", "32016R0679.oj.html")


@pytest.fixture(scope="module")
def catalog(corpus, tmp_path_factory):
    with Catalog(tmp_path_factory.mktemp("dates") / "catalog.sqlite") as c:
        ingest_paths(c, [corpus / f for f in FILES])
        yield c


def _dates(catalog, ref):
    d = catalog.unit_dates(ref, "en")
    return [(x.date, str(x.set_by)) for x in d.applies_from], (d.in_force_from.date, str(d.in_force_from.set_by))


def test_an_original_text_is_valid_from_its_entry_into_force_not_its_publication(catalog):
    starts = {(v.act, v.version): v.valid_from for v in catalog.versions()}
    assert starts == {(AI, "2024-07-12"): "2024-08-01", (AI, "2026-07-27"): "2026-07-27",
                      (OMNI, "2026-07-24"): "2026-07-27", (GDPR, "2016-05-04"): "2016-05-24"}


def test_unit_dates_are_stored_with_the_unit_that_sets_each(catalog):
    assert _dates(catalog, f"{AI}@2024-07-12#art_5.par_1.pnt_a") == (
        [("2025-02-02", f"{AI}@2024-07-12#art_113.pnt_a")], ("2024-08-01", f"{AI}@2024-07-12#art_113"))
    assert _dates(catalog, f"{GDPR}#art_33.par_1") == (
        [("2018-05-25", f"{GDPR}@2016-05-04#art_99.par_2")], ("2016-05-24", f"{GDPR}@2016-05-04#art_99.par_1"))
    # the amended AI Act: Chapter III Sections 1-3 postponed, by case, by the new point (c)
    applies, _ = _dates(catalog, f"{AI}#art_26.par_1")
    assert applies == [("2027-12-02", f"{AI}@2026-07-27#art_113.pnt_c.pnt_i"),
                       ("2028-08-02", f"{AI}@2026-07-27#art_113.pnt_c.pnt_ii")]


def test_a_text_an_amending_act_enacted_is_in_force_from_that_act_and_applies_from_its_rule(catalog):
    # inserted by the Omnibus: in force from its entry into force, applying from the date new point (a) sets
    assert _dates(catalog, f"{AI}#art_5.par_1.pnt_ba") == (
        [("2026-12-02", f"{AI}@2026-07-27#art_113.pnt_a")], ("2026-07-27", f"{OMNI}@2026-07-24#art_4"))
    assert catalog.unit_dates(f"{AI}#art_5.par_1.pnt_ba", "en").former_until is None  # a new point replaced nothing
    # replaced Article 4 (Chapter I, applying since 2025): its new text applies when the Omnibus is in force
    literacy = catalog.unit_dates(f"{AI}#art_4", "en")
    assert [(x.date, str(x.set_by)) for x in literacy.applies_from] == [("2026-07-27", f"{OMNI}@2026-07-24#art_4")]
    assert literacy.former_until.date == "2026-07-27"


def test_each_amendment_link_applies_from_the_date_set_for_the_unit_it_changes(catalog):
    links = {(link.target_unit, link.action): link.applies_from for link, _ in catalog.links(target_act=AI)}
    assert links[("art_5.par_1.pnt_ba", "inserted")] == "2026-12-02"
    assert links[("art_4", "replaced")] == "2026-07-27"
    assert links[("art_57.par_1", "amended")] == "2026-08-02"  # Chapter VI: Article 113's general date
    assert min(links.values()) == "2026-07-27"  # never before the Omnibus is in force
    assert len(set(links.values())) > 1


def test_the_migration_dates_a_catalog_stored_before_it(catalog, tmp_path):
    """Undo the dates (as a catalog from before migration m004 would be) and run the backfill: same result."""
    path = tmp_path / "old.sqlite"
    dst = sqlite3.connect(path)
    catalog.conn.backup(dst)
    dst.execute("UPDATE units SET in_force_from=NULL, applies_from=NULL, dates=NULL")
    dst.execute("UPDATE versions SET valid_from=version WHERE format='oj'")
    dst.execute("UPDATE amendments SET applies_from='2026-07-27'")
    dst.commit()
    dst.row_factory = sqlite3.Row
    backfill_dates(dst)
    dst.commit()
    dst.close()
    with Catalog(path) as old:
        assert old.state() == catalog.state()
        for ref in (f"{AI}#art_26.par_1", f"{AI}#art_5.par_1.pnt_ba", f"{AI}@2024-07-12#art_30"):
            assert _dates(old, ref) == _dates(catalog, ref)
        assert sorted(old.links(target_act=AI), key=str) == sorted(catalog.links(target_act=AI), key=str)


@pytest.fixture
def home(catalog, lexcite_home):
    lexcite_home.mkdir(parents=True, exist_ok=True)
    dst = sqlite3.connect(lexcite_home / "catalog.sqlite")
    catalog.conn.backup(dst)
    dst.close()
    return lexcite_home


def test_show_prints_when_a_unit_entered_into_force_and_applies_with_the_setting_unit(home):
    r = CliRunner().invoke(app, ["show", f"{AI}@2024-07-12#art_30.par_1"])
    assert r.exit_code == 0, r.output
    out = " ".join(r.output.split())
    assert "entered into force 2024-08-01 (Article 113), applies from 2025-08-02 (Article 113, point (b))" in out


def test_show_history_lists_the_period_each_text_applied(home):
    r = CliRunner().invoke(app, ["show", f"{AI}#art_26.par_1", "--history"])
    out = " ".join(r.output.split())
    # the original text was replaced (2026-07-27) before its date of application (2026-08-02)
    assert "this text never applied: replaced on 2026-07-27, before its date of application" in out
    assert "this text applies 2027-12-02 → open" in out
    r = CliRunner().invoke(app, ["show", f"{AI}#art_4", "--history", "--json"])
    rows = json.loads(r.output)  # one JSON array
    assert [row["dates"]["applies_from"][0]["date"] for row in rows] == ["2025-02-02", "2026-07-27"]


def test_acts_prints_entry_into_force_and_application(home):
    r = CliRunner().invoke(app, ["acts", "--json"])
    rows = {(x["act"], x["version"]): x for x in json.loads(r.output)}
    gdpr = rows[(GDPR, "2016-05-04")]
    assert (gdpr["entry_into_force"], gdpr["applies_from"]) == ("2016-05-24", "2018-05-25")
    assert gdpr["applies_from_by"] == f"{GDPR}@2016-05-04#art_99.par_2"
    assert rows[(AI, "2026-07-27")]["entry_into_force"] == "2024-08-01"  # the act's, not its amendment's
    plain = CliRunner().invoke(app, ["acts"])
    assert "entry into force" in plain.output and "2018-05-25" in plain.output


def test_amendments_json_shows_each_links_date(home):
    r = CliRunner().invoke(app, ["amendments", AI, "--json"])
    links = json.loads(r.output)["links"]
    assert {x["applies_from"] for x in links if x["target_unit"] == "art_5.par_1.pnt_bb"} == {"2026-12-02"}


def test_the_period_a_text_applied_runs_from_its_date_of_application_to_the_next_text(catalog):
    # Article 26(1) of 2024 was to apply from 2026-08-02; the Omnibus replaced the text before that day
    old = catalog.resolve(f"{AI}@2024-07-12#art_26.par_1", "en")
    start, end = catalog.unit_dates(old.unit.ref, "en").period(old.valid_from, old.valid_to)
    assert (start, end) == ("2026-08-02", "2026-07-27") and end <= start  # it never applied
    gdpr = catalog.resolve(f"{GDPR}#art_33.par_1", "en")
    assert catalog.unit_dates(gdpr.unit.ref, "en").period(gdpr.valid_from, gdpr.valid_to) == ("2018-05-25", None)
