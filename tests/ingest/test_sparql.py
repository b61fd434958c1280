"""SparqlClient against the replay endpoint (tests/replay_server.py + tests/fixtures/sparql/*.json)."""

from __future__ import annotations

import json
from urllib.parse import parse_qs

import pytest

from lexcite.errors import ConfigError, FetchError
from lexcite.ingest.sparql import AmendingAct, ConsolidatedVersion, SparqlClient

SPARQL = "/webapi/rdf/sparql"


def client(cellar, **kw) -> SparqlClient:
    opts = {"timeout": 5.0, "retries": 2, "backoff_factor": 0.0, "throttle_s": 0.0}
    return SparqlClient(cellar.sparql_url, **{**opts, **kw})


def sent_query(cellar) -> str:
    return parse_qs(cellar.requests[-1].body.decode())["query"][0]


class TestDiscovery:
    def test_the_consolidated_versions_of_the_ai_act_are_listed(self, cellar):
        versions = client(cellar).consolidated_versions("32024R1689")

        assert versions == [ConsolidatedVersion("02024R1689-20240712", "2024-07-12")]
        assert versions[0].valid_from == "2024-07-12"

    def test_the_amending_acts_of_the_ai_act_are_listed_with_their_dates(self, cellar):
        assert client(cellar).amending_acts("32024R1689") == [AmendingAct("32026R1744", "2026-07-08")]

    def test_the_consolidated_query_asks_by_the_indexed_based_on_property(self, cellar):
        client(cellar).consolidated_versions("32024R1689")

        query = sent_query(cellar)
        assert "?base owl:sameAs <http://publications.europa.eu/resource/celex/32024R1689>" in query
        assert "cdm:act_consolidated_based_on_resource_legal ?base" in query
        assert "cdm:act_consolidated_date ?date" in query
        assert "PREFIX cdm: <http://publications.europa.eu/ontology/cdm#>" in query

    def test_the_amending_query_uses_both_directions_and_the_document_date(self, cellar):
        client(cellar).amending_acts("32024R1689")

        query = sent_query(cellar)
        assert "cdm:resource_legal_amended_by_resource_legal" in query
        assert "cdm:resource_legal_amends_resource_legal" in query
        assert "cdm:work_date_document" in query

    def test_the_query_is_posted_as_a_form_asking_for_sparql_json(self, cellar):
        client(cellar).amending_acts("32024R1689")

        sent = cellar.requests[-1]
        assert sent.method == "POST"
        assert sent.headers["Content-Type"] == "application/x-www-form-urlencoded"
        assert sent.headers["Accept"] == "application/sparql-results+json"
        assert sent.headers["User-Agent"].startswith("lexcite/")

    def test_an_act_nobody_amended_has_no_amending_acts_and_no_versions(self, cellar):
        assert client(cellar).amending_acts("32024R2977") == []
        assert client(cellar).consolidated_versions("32024R2977") == []

    def test_the_endpoint_defaults_to_lexcite_sparql_url(self, cellar):
        assert SparqlClient(throttle_s=0).endpoint == cellar.sparql_url


class TestRunTimeResults:
    def test_results_replaced_during_a_test_are_what_the_next_query_sees(self, cellar):
        sparql = client(cellar)
        cellar.set_sparql("amending", "32024R1689", [])
        cellar.set_sparql("consolidated", "32024R1689", [])
        assert (sparql.amending_acts("32024R1689"), sparql.consolidated_versions("32024R1689")) == ([], [])

        cellar.set_sparql("amending", "32024R1689", [{"celex": "32026R1744", "date": "2026-07-08"}])
        assert sparql.amending_acts("32024R1689") == [AmendingAct("32026R1744", "2026-07-08")]
        assert sparql.consolidated_versions("32024R1689") == []

        cellar.set_sparql("consolidated", "32024R1689", [{"celex": "02024R1689-20260727", "date": "2026-07-27"}])
        assert sparql.consolidated_versions("32024R1689") == [ConsolidatedVersion("02024R1689-20260727", "2026-07-27")]

    def test_versions_come_oldest_first_without_duplicates(self, cellar):
        rows = [
            {"celex": "02024R1689-20260727", "date": "2026-07-27"},
            {"celex": "02024R1689-20240712", "date": "2024-07-12"},
            {"celex": "02024R1689-20260727", "date": "2026-07-27"},
        ]
        cellar.set_sparql("consolidated", "32024R1689", rows)

        got = client(cellar).consolidated_versions("32024R1689")

        assert [v.celex for v in got] == ["02024R1689-20240712", "02024R1689-20260727"]

    def test_an_undated_amending_act_is_kept_and_sorted_last(self, cellar):
        cellar.set_sparql(
            "amending", "32024R1689", [{"celex": "32027R0001"}, {"celex": "32026R1744", "date": "2026-07-08"}]
        )

        got = client(cellar).amending_acts("32024R1689")

        assert got == [AmendingAct("32026R1744", "2026-07-08"), AmendingAct("32027R0001", None)]

    def test_a_date_with_a_timezone_is_read_as_its_day(self, cellar):
        cellar.set_sparql("consolidated", "32024R1689", [{"celex": "02024R1689-20240712", "date": "2024-07-12+02:00"}])

        assert client(cellar).consolidated_versions("32024R1689")[0].date == "2024-07-12"


class TestBadAnswers:
    def test_malformed_json_raises_naming_the_endpoint(self, cellar):
        cellar.script(SPARQL, ["malformed"])

        with pytest.raises(FetchError, match="not SPARQL JSON results") as err:
            client(cellar).consolidated_versions("32024R1689")
        assert err.value.url == cellar.sparql_url
        assert cellar.sparql_url in str(err.value)

    def test_json_that_is_not_a_result_set_raises(self, cellar):
        cellar.script(
            SPARQL, [(200, {"Content-Type": "application/sparql-results+json"}, json.dumps({"boolean": True}))]
        )

        with pytest.raises(FetchError, match="not SPARQL JSON results"):
            client(cellar).amending_acts("32024R1689")

    def test_a_value_that_is_not_a_celex_raises(self, cellar):
        cellar.set_sparql("amending", "32024R1689", [{"celex": "not a celex", "date": "2026-07-08"}])

        with pytest.raises(FetchError, match="not a CELEX"):
            client(cellar).amending_acts("32024R1689")

    def test_a_date_that_is_not_a_date_raises(self, cellar):
        cellar.set_sparql("consolidated", "32024R1689", [{"celex": "02024R1689-20240712", "date": "someday"}])

        with pytest.raises(FetchError, match="not a date"):
            client(cellar).consolidated_versions("32024R1689")

    def test_a_503_is_retried_then_the_answer_is_read(self, cellar):
        cellar.script(SPARQL, [503, "ok"])

        assert client(cellar).amending_acts("32024R1689") == [AmendingAct("32026R1744", "2026-07-08")]
        assert cellar.count(SPARQL, "POST") == 2

    def test_a_persistent_500_raises_after_all_tries(self, cellar):
        cellar.script(SPARQL, [500] * 5)

        with pytest.raises(FetchError, match="after 3 tries with backoff") as err:
            client(cellar, retries=2).amending_acts("32024R1689")
        assert (err.value.status, err.value.attempts) == (500, 3)

    def test_a_query_error_is_reported_with_the_endpoint_message(self, cellar):
        cellar.script(SPARQL, [(400, {"Content-Type": "text/plain"}, "Virtuoso 37000 Error SP030: SPARQL compiler")])

        with pytest.raises(FetchError, match="HTTP 400 .*SP030"):
            client(cellar).amending_acts("32024R1689")


class TestCelexValidation:
    @pytest.mark.parametrize(
        "celex",
        [
            "32024R1689> } ; DROP ALL ; #",
            '32024R1689" .',
            "",
            "http://example.org/x",
            "3202412R1689",
        ],
    )
    def test_only_a_celex_number_can_reach_a_query(self, cellar, celex):
        with pytest.raises(ConfigError, match="not a CELEX"):
            client(cellar).consolidated_versions(celex)
        with pytest.raises(ConfigError, match="not a CELEX"):
            client(cellar).amending_acts(celex)
        assert cellar.count() == 0

    @pytest.mark.parametrize("celex", ["32024R1689", "02024R1689-20240712", "32024R1689R(02)", "32024r1689"])
    def test_real_celex_forms_are_accepted(self, cellar, celex):
        client(cellar).amending_acts(celex)

        assert f"<http://publications.europa.eu/resource/celex/{celex.upper()}>" in sent_query(cellar)
