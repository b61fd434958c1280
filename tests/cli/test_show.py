"""`show`, `--act`, `acts`, `amendments` with citations as people write them, on the real AI Act, Omnibus, GDPR."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from lexcite.catalog import Catalog
from lexcite.cli._options import perimeter_from_options
from lexcite.ingest.load import ingest_batch

pytestmark = pytest.mark.integration

AI, OMNI, GDPR = "32024R1689", "32026R1744", "32016R0679"


@pytest.fixture(scope="module")
def shared_home(tmp_path_factory, corpus):
    home = tmp_path_factory.mktemp("show-home")
    with Catalog(home / "catalog.sqlite") as c:
        ingest_batch(c, [corpus / f"{AI}.oj.xhtml", corpus / f"{OMNI}.oj.xhtml", corpus / f"{GDPR}.oj.html"])
    return home


@pytest.fixture
def home(shared_home, lexcite_home, monkeypatch):
    monkeypatch.setenv("LEXCITE_HOME", str(shared_home))
    return shared_home


def shown(cli, *args: str) -> dict:
    r = cli("show", *args, "--json")
    assert r.code == 0, r.err
    return json.loads(r.out)


@pytest.mark.parametrize("written, act, unit", [
    ("Art. 6(2) AI Act", AI, "art_6.par_2"),
    ("Article 6(2) of the AI Act", AI, "art_6.par_2"),
    ("article 83(5) GDPR", GDPR, "art_83.par_5"),
    ("Annex III point 4(a) AI Act", AI, "anx_III.pnt_4.pnt_a"),
    ("Article 4 Digital Omnibus on AI", OMNI, "art_4"),
    (f"{AI}#art_6.par_2", AI, "art_6.par_2"),
])
def test_references_as_people_write_them(cli, home, written, act, unit):
    d = shown(cli, written)
    assert (d["act"], d["unit"]) == (act, unit)


@pytest.mark.parametrize("written, act", [("art_6.par_2", "GDPR"), ("Art. 6(2)", "AI Act"), ("Art. 6(2)", AI)])
def test_the_act_may_come_from_act_by_name(cli, home, written, act):
    d = shown(cli, written, "--act", act)
    assert d["unit"] == "art_6.par_2" and d["act"] == (GDPR if act == "GDPR" else AI)


def test_a_date_that_is_no_version_date_means_the_version_in_force_then(cli, home):
    assert shown(cli, f"{AI}@2025-01-01#art_4")["version"] == "2024-07-12"
    assert shown(cli, "Article 4 AI Act", "--as-of", "2025-01-01")["version"] == "2024-07-12"
    assert shown(cli, "Article 4 AI Act", "--as-of", "2026-08-01")["version"] == "2026-07-27"


def test_nothing_in_force_on_the_date_says_from_when(cli, home):
    r = cli("show", "Article 4 AI Act", "--as-of", "2010-01-01")
    assert r.code == 1 and "no version in force on 2010-01-01; the earliest is in force from 2024-08-01" in r.err


def test_an_unknown_act_says_unknown_act(cli, home):
    # the acts the catalog holds are the choices, as for --act: a usage mistake (exit 2), not a lookup that failed
    for written in ("32099R0001#art_1", "Article 1 Data Act"):
        r = cli("show", written)
        assert r.code == 2 and "unknown act" in r.err and "Traceback" not in r.err


@pytest.mark.parametrize("written, says", [
    ("xyz", "'xyz' is not a provision reference"),
    ("Art 5 and Art 6 GDPR", "holds 2 references (Art 5, Art 6); give one"),
    ("Art 5", "'Art 5': which act? name it"),
])
def test_a_reference_that_names_no_provision_is_a_usage_mistake(cli, home, written, says):
    r = cli("show", written)
    assert r.code == 2 and says in r.err and "see lexcite show --help" in r.err and "Traceback" not in r.err


def test_derived_and_history_together_are_a_usage_mistake(cli, home):
    r = cli("show", "Article 4 AI Act", "--derived", "--history")
    assert r.code == 2 and "leave out --history" in r.err


def test_an_act_option_the_catalog_does_not_hold_is_a_usage_mistake(cli, home):
    r = cli("show", "Article 1", "--act", "Data Act")
    assert r.code == 2 and "--act: unknown act 'Data Act'" in r.err and "see lexcite show --help" in r.err


def test_a_wrong_reference_gets_the_nearest_valid_ones(cli, home):
    r = cli("show", f"{AI}#art_6.par_9")
    assert r.code == 1 and "has no art_6.par_9; nearest: art_6.par_8" in r.err


def test_an_article_prints_each_paragraph_on_its_own_line_unwrapped(cli, home):
    r = cli("show", "Article 6 AI Act", "--as-of", "2025-01-01")
    lines = r.out.splitlines()
    with Catalog() as c:
        paragraphs = [c.resolve(f"{AI}@2024-07-12#art_6.par_{n}").unit.text for n in range(1, 9)]
    assert all(p in lines for p in paragraphs)  # whole lines: no wrap, however long (par 1 > 200 chars)
    assert max(len(p) for p in paragraphs) > 200


def test_history_json_is_one_json_array(cli, home):
    docs = json.loads(cli("show", "Article 4 AI Act", "--history", "--json").out)
    assert [d["version"] for d in docs] == ["2024-07-12", "2026-07-27"]


def test_an_amended_paragraph_links_to_the_amended_act(cli, home):
    d = shown(cli, "Article 4 AI Act", "--as-of", "2026-08-01")
    assert d["changed_by"].startswith(OMNI)
    assert d["source_url"] == "https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:02024R1689-20260727#art_4"
    assert OMNI not in d["source_url"]


def test_acts_shows_the_names_act_accepts(cli, home):
    r = cli("acts")
    for name in ("Artificial Intelligence Act", "General Data Protection Regulation", "Digital Omnibus on AI"):
        assert name in r.out
    names = {d["act"]: d["name"] for d in json.loads(cli("acts", "--json").out)}
    assert names[GDPR] == "General Data Protection Regulation"
    assert perimeter_from_options(["GDPR", "AI Act", OMNI]).acts == (GDPR, AI, OMNI)


def test_amendments_of_an_act_nobody_amended_says_so_and_exits_0(cli, home):
    r = cli("amendments", "GDPR")
    assert r.code == 0 and r.out.strip() == f"{GDPR}: no stored act gives amendment instructions to it"
    for unknown in ("32099R0001", "Data Act"):  # an act the catalog does not hold is a choice not offered
        r = cli("amendments", unknown)
        assert r.code == 2 and "ACT: unknown act" in r.err
    r = cli("consolidation-check", "Data Act")
    assert r.code == 2 and "ACT: unknown act 'Data Act'" in r.err


@pytest.mark.parametrize("fmt", [(), ("--json",)])
def test_a_reader_that_stops_reading_is_no_error(home, fmt):
    """`lexcite show ... | head -1`: the pipe's reader has gone before the output is written; exit 0, nothing on
    stderr (rich's console exited 1, and Python's flush at exit printed an error)."""
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run([sys.executable, "-m", "lexcite", "show", "Art. 17 GDPR", *fmt], stdout=w,
                           stderr=subprocess.PIPE, env={**os.environ, "LEXCITE_HOME": str(home)}, timeout=120)
    finally:
        os.close(w)
    assert (p.returncode, p.stderr.decode()) == (0, "")
