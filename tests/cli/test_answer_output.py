"""`ask` output: refusal exit code, refusal reasons naming the real cause, the Markdown memo, source labels.

The catalog is real (SQLite, small hand-made acts); the index is replaced by the term searcher of
tests/answer/helpers.py, as in tests/answer/test_cli_answer.py, so no embedding model is needed.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from lexcite.catalog import Catalog
from lexcite.cli._app import EXIT_REFUSED
from lexcite.cli.answer import memo, render
from lexcite.contract import Answer, CitationRef, CitedSentence, Evidence, Perimeter

_HELPERS = Path(__file__).resolve().parents[1] / "answer" / "helpers.py"
if "answer_helpers" not in sys.modules:
    spec = importlib.util.spec_from_file_location("answer_helpers", _HELPERS)
    sys.modules["answer_helpers"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sys.modules["answer_helpers"])
helpers = sys.modules["answer_helpers"]
ask_module = importlib.import_module("lexcite.answer.ask")

Q = "What is the maximum fine for prohibited AI practices?"


@pytest.fixture
def home(lexcite_home, monkeypatch):
    with Catalog() as c:
        helpers.store(c, helpers.ai_act())
        helpers.store(c, helpers.gdpr())
    monkeypatch.setattr(ask_module, "_default_searcher", lambda catalog, settings: helpers.TermSearcher(catalog))
    return lexcite_home


def test_an_answer_exits_0_and_a_refusal_exits_3(cli, home):
    assert cli("ask", Q).code == 0
    r = cli("ask", "Where do lighthouse keepers moor their boats?", "--json")
    assert r.code == EXIT_REFUSED == 3 and json.loads(r.out)["refused"] is True


@pytest.mark.parametrize("options, says", [
    (["--language", "it"], "no text in 'it' is held; the catalog holds en"),
    (["--as-of", "2010-01-01"], "nothing in the perimeter is in force on 2010-01-01; the earliest text held is in "
                                "force from 2016-05-04"),
])
def test_a_refusal_names_the_real_cause(cli, home, options, says):
    r = cli("ask", Q, *options, "--json")
    assert r.code == EXIT_REFUSED
    reason = json.loads(r.out)["refusal_reason"]
    assert says in reason and "no unit in the perimeter matched" not in reason


def test_an_act_the_catalog_does_not_hold_is_named_as_the_cause(home):
    # `--act` refuses it before asking (a usage mistake, test_act_takes_a_name); from Python it is the refusal's cause
    a = ask_module.ask(Q, Perimeter(acts=("32099R0001",)), k=6, generator="extractive")
    assert a.refused and "32099R0001 is not in the catalog" in a.refusal_reason


def test_act_takes_a_name(cli, home):
    r = cli("ask", Q, "--act", "GDPR", "--json")
    assert json.loads(r.out)["perimeter"]["acts"] == [helpers.GDPR]
    for unheld in ("Data Act", "32023R2854"):  # a choice not offered: a usage mistake
        r = cli("ask", Q, "--act", unheld)
        assert r.code == 2 and "--act: unknown act" in r.err and unheld in r.err


def test_the_markdown_memo_quotes_each_cited_paragraph_with_version_and_link(cli, home):
    r = cli("ask", Q, "--format", "markdown")
    assert r.code == 0
    md = r.out
    with Catalog() as c:
        cited = c.resolve("32024R1689@2024-07-12#art_99.par_3").unit
    assert md.startswith(f"# {Q}\n\n## Answer\n\n")
    assert "## Cited provisions" in md
    assert f"`{cited.ref}` — version 2024-07-12, current, binding — <{cited.source_url}>" in md
    assert f"> {cited.text}" in md
    trace = json.loads(cli("trace", "list", "--json").out)[0]["id"]
    assert f"Trace `{trace}`" in md
    assert "[S1]" in md.split("## Cited provisions")[0]


def test_a_bad_format_is_an_error_naming_the_choices(cli, home):
    r = cli("ask", Q, "--format", "html")
    assert r.code == 2 and "--format 'html': choose from text, json, markdown" in r.err  # a usage mistake


def _answer_citing_a_recital() -> Answer:
    ref = CitationRef("32024R1689", "2024-07-12", "rct_12")
    e = Evidence("S1", ref, "Recital 12", "The notion of 'AI system' should be clearly defined.", "current", True,
                 "https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:32024R1689#rct_12", 0.9)
    return Answer("What is an AI system?", (CitedSentence("The notion should be clearly defined.", (ref,)),),
                  (e,), perimeter=Perimeter(as_of="2025-01-01"), generator="extractive", trace_id="abc123")


def test_a_recital_is_not_labelled_binding(capsys):
    a = _answer_citing_a_recital()
    render(a)
    out = capsys.readouterr().out
    assert "recital (not binding)" in out and ", binding" not in out
    assert "recital (not binding)" in memo(a)
    assert any(a.evidence[0].source_url in line for line in out.splitlines())  # the full link, whole


def test_a_score_above_1_is_not_called_a_cosine():
    from lexcite.cli.index import scale_label

    assert scale_label("cosine", 0.83) == "cosine"
    assert scale_label("cosine", 1.07) == "cosine plus ranking bonuses"


def test_the_memo_lists_each_side_of_a_conflict_with_its_reference():
    from dataclasses import replace

    from lexcite.contract import Conflict

    old = CitationRef("32024R1689", "2024-07-12", "art_113")
    new = CitationRef("32024R1689", "2026-07-27", "art_113")
    conflict = Conflict("date", (("2 August 2026", old), ("2 December 2027", new)), new, "the later version prevails")
    a = replace(_answer_citing_a_recital(), conflicts=(conflict,))
    md = memo(a)
    section = md.split("## Where the texts disagree", 1)[1]
    assert f"2 August 2026 (`{old}`)" in section and f"2 December 2027 (`{new}`)" in section
    assert f"prevails: `{new}`" in section and "Trace `abc123`" in md
