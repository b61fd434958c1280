"""`refresh` against the replay Cellar: fetch, discover, ingest what changed, nothing else."""

from __future__ import annotations

import pytest

from lexcite.catalog import Catalog
from lexcite.ingest.fetch import CellarClient
from lexcite.ingest.refresh import load_acts, refresh
from lexcite.ingest.sparql import SparqlClient

pytestmark = pytest.mark.integration


def _clients():
    return (CellarClient(throttle_s=0, backoff_factor=0.01), SparqlClient(throttle_s=0, backoff_factor=0.01))


def _run(catalog, celexes, languages=("en",)):
    cellar, sparql = _clients()
    return refresh(catalog, celexes, languages, cellar=cellar, sparql=sparql)


@pytest.fixture
def catalog():
    with Catalog() as c:
        yield c


def _no_discovery(cellar, celex="32024R1689"):
    cellar.set_sparql("consolidated", celex, [])
    cellar.set_sparql("amending", celex, [])


class TestRefresh:
    def test_default_acts_come_from_data_acts_toml(self):
        assert [a.celex for a in load_acts()][:3] == ["32024R1689", "32026R1744", "32016R0679"]

    def test_first_refresh_ingests_the_act(self, cellar, catalog):
        _no_discovery(cellar)
        report = _run(catalog, ["32024R1689"])
        assert [(i.celex, i.role, i.action) for i in report.items] == [("32024R1689", "act", "new")]
        (version,) = catalog.versions()
        assert (version.act, version.version, version.status) == ("32024R1689", "2024-07-12", "current")
        assert version.source.endswith("/DOC_1") and version.etag and version.fetched_at

    def test_a_second_refresh_sends_a_conditional_request_and_changes_nothing(self, cellar, catalog):
        _no_discovery(cellar)
        _run(catalog, ["32024R1689"])
        before = catalog.state()
        report = _run(catalog, ["32024R1689"])
        assert [i.action for i in report.items] == ["not_modified"]
        assert catalog.state() == before
        assert any("if-none-match" in {k.lower() for k in r.headers} for r in cellar.requests)

    def test_a_failing_document_is_reported_and_everything_else_is_stored(self, cellar, catalog):
        _no_discovery(cellar)
        _no_discovery(cellar, "32016R0679")
        cellar.script("/resource/celex/32016R0679", [500, 500, 500, 500, 500, 500])
        report = _run(catalog, ["32024R1689", "32016R0679"])
        assert [i.action for i in report.items] == ["new", "failed"]
        assert "after" in report.failed[0].error and "tries" in report.failed[0].error
        assert [v.act for v in catalog.versions()] == ["32024R1689"]

    def test_discovered_amending_acts_and_consolidated_versions_are_ingested(self, cellar, catalog):
        cellar.set_sparql("consolidated", "32024R1689", [])
        cellar.set_sparql("amending", "32024R1689", [{"celex": "32026R1744", "date": "2026-07-08"}])
        report = _run(catalog, ["32024R1689"])
        assert [(i.celex, i.role, i.action) for i in report.items] == [
            ("32024R1689", "act", "new"), ("32026R1744", "amending", "new"), ("32024R1689", "amended", "new")]
        assert [(v.act, v.version, v.status) for v in catalog.versions()] == [
            ("32024R1689", "2024-07-12", "superseded"), ("32024R1689", "2026-07-27", "current"),
            ("32026R1744", "2026-07-24", "current")]

    def test_the_scripted_sequence_act_then_omnibus_then_consolidated_is_followed(self, cellar, catalog):
        """First only the AI Act; then the Omnibus appears; then a consolidated version appears."""
        _no_discovery(cellar)
        _run(catalog, ["32024R1689"])
        assert catalog.resolve("32024R1689#art_4").unit.version == "2024-07-12"

        cellar.set_sparql("amending", "32024R1689", [{"celex": "32026R1744", "date": "2026-07-08"}])
        _run(catalog, ["32024R1689"])
        art4 = catalog.resolve("32024R1689#art_4")
        assert art4.unit.version == "2026-07-27" and "take measures to support" in art4.unit.text
        assert art4.changed_by.startswith("32026R1744")

        # A consolidated text of the same date is the editorial current text: it replaces the derived one.
        cellar.set_sparql("consolidated", "32024R1689", [{"celex": "02024R1689-20260727", "date": "2026-07-27"}])
        report = _run(catalog, ["32024R1689"])
        assert [(i.celex, i.role, i.action) for i in report.items if i.action != "not_modified"] == [
            ("02024R1689-20260727", "consolidated", "updated")]
        (v,) = [v for v in catalog.versions("32024R1689") if v.version == "2026-07-27"]
        assert (v.format, v.status) == ("formex_consolidated", "current")
        assert "take measures to support" in catalog.resolve("32024R1689#art_4").unit.text
        (check,) = catalog.consolidation_checks("32024R1689")  # the derived version, kept as the check
        assert (check["share_equal"], check["units_differ"]) == (1.0, [])

    def test_a_consolidated_version_becomes_a_version_of_the_base_act(self, cellar, catalog):
        cellar.set_sparql("consolidated", "32024R1689",
                          [{"celex": "02024R1689-20240712", "date": "2024-07-12"}])
        cellar.set_sparql("amending", "32024R1689", [])
        report = _run(catalog, ["32024R1689"], languages=("nl",))
        assert [(i.celex, i.role) for i in report.items] == [
            ("32024R1689", "act"), ("02024R1689-20240712", "consolidated")]
        # Same act, same date, same language: the consolidated text is the same expression, re-manifested.
        (version,) = catalog.versions("32024R1689")
        assert (version.language, version.format, version.status) == ("nl", "consolidated", "current")


class TestTwelveActs:
    """The twelve acts of data/acts.toml, served by the replay Cellar in the formats the corpus holds."""

    def test_one_refresh_stores_all_twelve_and_a_second_parses_nothing(self, cellar, catalog, monkeypatch):
        from lexcite.ingest import load

        cellar.set_sparql("consolidated", "32024R1689", [{"celex": "02024R1689-20260727", "date": "2026-07-27"}])
        report = _run(catalog, None)

        assert report.failed == []
        acts = {v.act for v in catalog.versions()}
        assert acts == {a.celex for a in load_acts()}
        formats = {(v.act, v.format) for v in catalog.versions() if v.status == "current"}
        assert {("32019R0881", "formex"), ("32014R0910", "formex_consolidated"),
                ("32002L0058", "consolidated"), ("32024R1689", "formex_consolidated")} <= formats

        parsed: list[object] = []
        real = load.read_document
        monkeypatch.setattr(load, "read_document", lambda *a, **k: parsed.append(a) or real(*a, **k))
        before = catalog.state()
        again = _run(catalog, None)

        assert {i.action for i in again.items} == {"not_modified"} and len(again.items) == len(report.items)
        assert parsed == [] and catalog.state() == before
