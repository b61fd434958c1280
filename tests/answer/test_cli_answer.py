"""`lexcite ask` and `lexcite trace list|show|replay`, in process over a small catalog in LEXCITE_HOME.

The index is the one edge replaced here (by the small term searcher of helpers.py), so
these tests need no embedding model; the real index is exercised in test_real_acts.py.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import pytest
from answer_helpers import TermSearcher, ai_act, gdpr, store
from typer.testing import CliRunner

from lexcite.catalog import Catalog
from lexcite.cli import app
from lexcite.errors import ConfigError

pytestmark = pytest.mark.integration

ask_module = importlib.import_module("lexcite.answer.ask")  # `lexcite.answer.ask` the attribute is the function

Q = "What is the maximum fine for prohibited AI practices?"


@pytest.fixture
def home_catalog(lexcite_home, monkeypatch):
    with Catalog() as c:
        store(c, ai_act())
        store(c, gdpr())
    monkeypatch.setattr(ask_module, "_default_searcher", lambda catalog, settings: TermSearcher(catalog))
    return lexcite_home


def run(*args: str):
    result = CliRunner().invoke(app, list(args))
    return result


def last_trace_id() -> str:
    r = run("trace", "list", "--json")
    return json.loads(r.stdout)[0]["id"]


class TestAsk:
    def test_json_output_is_the_whole_answer(self, home_catalog):
        r = run("ask", Q, "--json")
        assert r.exit_code == 0, r.output
        d = json.loads(r.stdout)
        assert d["refused"] is False and d["generator"] == "extractive"
        assert d["sentences"][0]["refs"] == ["32024R1689@2024-07-12#art_99.par_3"]
        assert d["evidence"][0]["sid"] == "S1" and d["trace_id"]
        assert set(d) >= {"question", "answer", "verdicts", "conflicts", "flags", "perimeter"}

    def test_human_output_puts_the_reference_after_each_sentence_then_the_sources(self, home_catalog):
        r = run("ask", Q)
        assert r.exit_code == 0, r.output
        assert "EUR 35 000 000" in r.stdout
        assert "[S1 32024R1689@2024-07-12#art_99.par_3]" in " ".join(r.stdout.split())
        assert "Sources" in r.stdout and "Article 99(3)" in r.stdout
        assert "version 2024-07-12, current, binding" in r.stdout
        assert "https://eur-lex.europa.eu/eli/32024R1689#art_99.par_3" in r.stdout

    def test_the_generator_in_use_is_said_once_on_stderr(self, home_catalog):
        r = CliRunner().invoke(app, ["ask", Q])
        assert "offline extractive: ANTHROPIC_API_KEY not set" in r.output

    def test_the_trace_records_the_choice_the_cli_showed(self, home_catalog):
        r = CliRunner().invoke(app, ["ask", Q])
        assert r.exit_code == 0, r.output
        d = json.loads(run("trace", "show", last_trace_id(), "--json").stdout)
        # the generator is chosen once per question: not "extractive (given)" in the trace
        assert d["trace"]["params"]["generator_choice"] == "offline extractive: ANTHROPIC_API_KEY not set"

    def test_a_refusal_says_what_was_searched_and_why_nothing_qualified(self, home_catalog):
        r = run("ask", "What is the best pizza dough?", "--act", "32024R1689")
        assert r.exit_code == 3, r.output  # a refusal has its own exit code
        out = " ".join(r.stdout.split())
        assert "Not found in the admitted documents." in out
        assert "acts 32024R1689" in out and "no unit in the perimeter matched the question" in out

    def test_the_act_filter_keeps_other_acts_out_of_the_answer(self, home_catalog):
        r = run("ask", "What is the maximum administrative fine?", "--act", "32016R0679", "--json")
        d = json.loads(r.stdout)
        assert d["sentences"] and all(ref.startswith("32016R0679@") for s in d["sentences"] for ref in s["refs"])
        assert all(e["ref"].startswith("32016R0679@") for e in d["evidence"])

    def test_binding_only_and_as_of_reach_the_perimeter(self, home_catalog):
        d = json.loads(run("ask", Q, "--binding-only", "--as-of", "2025-01-01", "--json").stdout)
        assert d["perimeter"]["binding_only"] is True and d["perimeter"]["as_of"] == "2025-01-01"

    def test_no_trace_records_nothing(self, home_catalog):
        run("ask", Q, "--no-trace")
        assert json.loads(run("trace", "list", "--json").stdout) == []

    def test_an_unknown_generator_is_a_config_error(self, home_catalog):
        r = run("ask", Q, "--generator", "gpt")
        assert isinstance(r.exception, ConfigError)

    def test_claude_without_a_key_is_a_config_error(self, home_catalog):
        r = run("ask", Q, "--generator", "claude")
        assert isinstance(r.exception, ConfigError) and "ANTHROPIC_API_KEY" in str(r.exception)


class TestTraceCommands:
    def test_list_show_and_replay(self, home_catalog):
        run("ask", Q)
        tid = last_trace_id()
        r = run("trace", "list")
        assert tid in r.stdout and "answered" in r.stdout
        r = run("trace", "show", tid)
        assert r.exit_code == 0, r.output
        assert "unchanged in the catalog" in r.stdout and "S1" in r.stdout
        r = run("trace", "replay", tid)
        assert "same answer" in r.stdout

    def test_show_says_when_the_trace_no_longer_verifies(self, home_catalog):
        run("ask", Q)
        tid = last_trace_id()
        with Catalog() as c:
            store(c, ai_act(version="2026-07-27"))
        r = run("trace", "show", tid)
        assert "no longer verifies" in r.stdout and "newer current version" in " ".join(r.stdout.split())
        d = json.loads(run("trace", "show", tid, "--json").stdout)
        assert d["catalog_problems"] and d["content_ok"] is True

    def test_replay_reports_differences_after_an_update(self, home_catalog):
        run("ask", Q)
        tid = last_trace_id()
        with Catalog() as c:
            store(c, ai_act(version="2026-07-27"))
        d = json.loads(run("trace", "replay", tid, "--json").stdout)
        assert d["same"] is False and any("2026-07-27" in x for x in d["differences"])


def test_asking_without_an_index_fails_with_one_line_and_exit_1(lexcite_home):
    r = subprocess.run([sys.executable, "-m", "lexcite", "ask", "What is an AI system?"], capture_output=True,
                       text=True, env=os.environ.copy(), timeout=300)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr and "error" in r.stderr


def test_a_refusal_lists_the_best_ranked_units_not_every_unit_of_the_evidence(capsys):
    from lexcite.cli.answer import render
    from lexcite.contract import REFUSAL, Answer, CitationRef, Evidence

    def unit(n: int, score: float) -> Evidence:
        return Evidence(sid=f"S{n}", ref=CitationRef.parse(f"32016R0679@2016-05-04#art_12.par_{n}"),
                        title=f"Article 12({n})", text="...", status="current", binding=True, source_url="",
                        score=score)

    # paragraphs 1-19 given as context (score 0), paragraph 20 ranked best, paragraph 7 second
    evidence = tuple(unit(n, {20: 0.95, 7: 0.93}.get(n, 0.0)) for n in range(1, 21))
    render(Answer(question="Which icons?", refused=True, refusal_reason=f"{REFUSAL} Why not.", evidence=evidence))
    printed = capsys.readouterr().out
    assert printed.index("art_12.par_20") < printed.index("art_12.par_7")
    assert "art_12.par_1 " not in printed and "and 18 more units of the evidence" in printed


def test_two_versions_of_a_long_text_are_shown_from_where_they_differ():
    from lexcite.cli.answer import excerpts

    opening = "1. The following AI practices shall be prohibited: " + "(a) the placing on the market of a system; " * 12
    former, current = opening + "(c) social scoring of natural persons.", opening + "(ba) intimate deepfakes; (c) ..."
    shown = excerpts([former, current])
    assert all(s.startswith("…") for s in shown) and shown[0] != shown[1]
    assert "(c) social scoring" in shown[0] and "(ba) intimate deepfakes" in shown[1]
    assert excerpts(["EUR 15 000 000", "EUR 7 500 000"]) == ["EUR 15 000 000", "EUR 7 500 000"]  # short: whole
    long_apart = ["A" * 400, "B" * 400]  # different from the start: their openings
    apart = excerpts(long_apart)
    assert [s[:3] for s in apart] == ["AAA", "BBB"] and all(s.endswith("…") for s in apart)
