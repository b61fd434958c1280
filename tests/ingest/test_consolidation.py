"""Official consolidation vs derived version: the comparison, its storage, `lexcite consolidation-check`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from lexcite.catalog import Catalog
from lexcite.contract import CitationRef, Unit
from lexcite.errors import CitationError
from lexcite.ingest.consolidation import ConsolidationCheck, compare_versions, derived_text, word_diff
from lexcite.ingest.load import ingest_paths

AI_ACT, OMNIBUS, OFFICIAL = "32024R1689.oj.xhtml", "32026R1744.oj.xhtml", "fmx4/02024R1689-20260727"


def unit(uid: str, text: str, kind: str = "article") -> Unit:
    return Unit("32099R0001", "2099-01-01", uid, kind, uid, text, None, 0, "en")


class TestCompare:
    def test_units_are_equal_after_whitespace_normalisation_and_otherwise_differ_or_are_alone(self):
        official = [unit("art_1", "The  rule\u00a0applies."), unit("art_2", "Fines up to 7 %."), unit("art_3", "New.")]
        derived = [unit("art_1", "The rule applies."), unit("art_2", "Fines up to 6 %."), unit("art_4", "Gone.")]

        c = compare_versions(official, derived, official_source="CL", derived_source="base + amending")

        assert c.units_equal == ("art_1",) and [d.unit for d in c.units_differ] == ["art_2"]
        assert (c.only_official, c.only_derived) == (("art_3",), ("art_4",))
        assert c.share_equal == pytest.approx(1 / 3)
        assert c.units_differ[0].diff() == "Fines up to [-6-] {+7+} %."

    def test_the_base_acts_recitals_are_left_out_when_the_official_text_has_none(self):
        c = compare_versions([unit("art_1", "A.")], [unit("rct_1", "Whereas.", "recital"), unit("art_1", "A.")],
                             official_source="CL", derived_source="d")

        assert c.only_derived == () and c.share_equal == 1.0

    def test_a_check_survives_its_json_form(self):
        c = compare_versions([unit("art_1", "A b c.")], [unit("art_1", "A c.")], official_source="CL",
                             derived_source="d")

        assert ConsolidationCheck.from_dict(json.loads(json.dumps(c.to_dict()))) == c

    def test_a_long_unchanged_run_is_shortened_in_the_word_diff(self):
        assert word_diff("one two three four five six seven eight end", "one two three four five six seven "
                         "eight finish") == "one two three … six seven eight [-end-] {+finish+}"


@pytest.fixture(scope="module", params=["official last", "official first"])
def catalog(request, corpus, tmp_path_factory):
    order = [AI_ACT, OMNIBUS, OFFICIAL] if request.param == "official last" else [OFFICIAL, AI_ACT, OMNIBUS]
    with Catalog(tmp_path_factory.mktemp("cons") / "catalog.sqlite") as cat:
        for name in order:  # one ingest per document, as a user adds them over time
            ingest_paths(cat, [corpus / name])
        yield cat


@pytest.mark.integration
class TestAiActOfJuly2026:
    def test_the_derived_version_equals_the_official_consolidation_unit_by_unit(self, catalog):
        (d,) = catalog.consolidation_checks("32024R1689")
        c = ConsolidationCheck.from_dict(d)

        assert (c.version, c.language) == ("2026-07-27", "en")
        assert c.derived == "32024R1689@2024-07-12 + 32026R1744@2026-07-24"
        assert len(c.units_equal) == 1418 and c.units_differ == () and c.only_official == c.only_derived == ()

    def test_the_official_text_is_the_current_version_of_that_date(self, catalog):
        (v,) = [v for v in catalog.versions("32024R1689") if v.version == "2026-07-27"]

        assert (v.format, v.status) == ("formex_consolidated", "current")
        assert catalog.resolve("32024R1689#art_4a").unit.version == "2026-07-27"

    def test_ingesting_the_same_documents_again_writes_nothing(self, catalog, corpus):
        kept = catalog.derived_units("32024R1689", "2026-07-27", "en")
        before = catalog.state(), catalog.consolidation_checks("32024R1689")

        ingest_paths(catalog, [corpus / AI_ACT, corpus / OMNIBUS, corpus / OFFICIAL])

        assert (catalog.state(), catalog.consolidation_checks("32024R1689")) == before
        assert catalog.derived_units("32024R1689", "2026-07-27", "en") == kept


@pytest.mark.integration
class TestTheDerivedTextStaysReachable:
    def test_every_derived_unit_is_kept_beside_the_official_text(self, catalog):
        kept = catalog.derived_units("32024R1689", "2026-07-27", "en")
        official = [r.unit for r in catalog.records("32024R1689", "en") if r.unit.version == "2026-07-27"]

        # the 1418 units compared, and the base act's 180 recitals (a consolidation has no preamble)
        assert len(kept) == 1418 + 180 and sum(u.kind == "recital" for u, _ in kept) == 180
        # the version's own units, which search and answers read, are the official ones: no recital
        assert len(official) == 1418 and not any(u.kind == "recital" for u in official)

    def test_a_changed_article_reads_back_with_how_it_was_built(self, catalog):
        d = derived_text(catalog, CitationRef("32024R1689", "2026-07-27", "art_4"), "en")

        assert (d.derived, d.changed_by) == ("32024R1689@2024-07-12 + 32026R1744@2026-07-24",
                                             "32026R1744@2026-07-24#art_1.pnt_5")
        assert d.official.endswith("02024R1689-20260727") and (d.comparison, d.diff) == ("equal", None)
        assert [p.unit for p in d.parts] == ["art_4.par_1", "art_4.par_2", "art_4.par_3"]
        assert d.unit.text.startswith("1. Providers and deployers of AI systems shall take measures")

    def test_a_recital_is_derived_but_not_compared(self, catalog):
        d = derived_text(catalog, CitationRef("32024R1689", "2026-07-27", "rct_1"), "en")
        assert (d.unit.kind, d.comparison, d.parts) == ("recital", "not compared", ())

    def test_the_original_text_was_derived_from_nothing(self, catalog):
        with pytest.raises(CitationError, match="lexcite derived no text of this version"):
            derived_text(catalog, CitationRef("32024R1689", "2024-07-12", "art_4"), "en")


def lexcite(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lexcite", *args], capture_output=True, text=True,
                          env=os.environ.copy(), timeout=300)


@pytest.mark.integration
class TestCommand:
    def test_json_reports_the_four_lists_and_text_mode_the_counts(self, corpus):
        r = lexcite("ingest", str(corpus / AI_ACT), str(corpus / OMNIBUS), str(corpus / OFFICIAL))
        assert r.returncode == 0, r.stderr

        r = lexcite("consolidation-check", "32024R1689", "--json")
        assert r.returncode == 0, r.stderr
        (d,) = json.loads(r.stdout)  # a JSON array, one object per checked version
        assert {"units_equal", "units_differ", "only_official", "only_derived"} <= set(d)
        assert (len(d["units_equal"]), d["units_differ"], d["share_equal"]) == (1418, [], 1.0)
        text = lexcite("consolidation-check", "32024R1689").stdout
        assert "units equal: 1418 of 1418 official units (100.0%)" in text

    def test_show_derived_prints_the_derived_text_and_where_it_came_from(self, corpus):
        r = lexcite("ingest", str(corpus / AI_ACT), str(corpus / OMNIBUS), str(corpus / OFFICIAL))
        assert r.returncode == 0, r.stderr

        r = lexcite("show", "Art. 4 AI Act", "--derived")
        assert r.returncode == 0, r.stderr
        said = " ".join(r.stdout.split())
        assert said.startswith("32024R1689@2026-07-27#art_4 Article 4 — AI literacy derived by lexcite from "
                               "32024R1689@2024-07-12 + 32026R1744@2026-07-24 (en), changed by "
                               "32026R1744@2026-07-24#art_1.pnt_5")
        assert "02024R1689-20260727 is this version's text: the same text 1. Providers and deployers" in said
        d = json.loads(lexcite("show", "32024R1689#art_4.par_1", "--derived", "--json").stdout)
        assert (d["ref"], d["comparison"], d["parts"]) == ("32024R1689@2026-07-27#art_4.par_1", "equal", [])
        # without --derived, the official text (the Formex links to the act; the derived text to the
        # consolidation of its date, where the Omnibus changed the unit)
        official = json.loads(lexcite("show", "32024R1689#art_4", "--json").stdout)
        derived = json.loads(lexcite("show", "32024R1689#art_4", "--derived", "--json").stdout)
        assert official["version"] == derived["version"] == "2026-07-27"
        assert (official["source_url"], derived["source_url"]) == (
            "https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:32024R1689#art_4",
            "https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:02024R1689-20260727#art_4")

    def test_an_act_without_a_check_is_one_error_line_naming_what_to_ingest(self, corpus):
        r = lexcite("consolidation-check", "32016R0679")

        assert r.returncode != 0 and r.stdout == ""
        assert len(r.stderr.strip().splitlines()) == 1 and "32016R0679: no official consolidation" in r.stderr
