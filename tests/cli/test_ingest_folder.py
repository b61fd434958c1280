"""`lexcite ingest FOLDER`: every file on its own line, publication order, one manifestation per version,
amending acts applied, a bad file reported without stopping the rest. Real EUR-Lex files."""

from __future__ import annotations

import json

import pytest

from lexcite.catalog import Catalog

pytestmark = pytest.mark.integration

AI, OMNI = "32024R1689", "32026R1744"


@pytest.fixture
def folder(corpus, tmp_path):
    """The Omnibus sorts first by name; the AI Act comes as OJ XHTML and as Formex of the same version."""
    d = tmp_path / "acts"
    d.mkdir()
    (d / "0-omnibus.oj.xhtml").symlink_to(corpus / f"{OMNI}.oj.xhtml")
    (d / "ai.oj.xhtml").symlink_to(corpus / f"{AI}.oj.xhtml")
    (d / "ai.fmx4.zip").symlink_to(corpus / "fmx4" / f"{AI}.fmx4.zip")
    (d / "broken.html").write_text("<html><body><p class='post'>not an act</p></body></html>")
    return d


def test_a_folder_is_stored_in_publication_order_each_file_reported(cli, folder):
    r = cli("ingest", str(folder), "--json")
    assert r.code == 1  # one file failed ...
    rows = [json.loads(line) for line in r.out.splitlines()]
    by_path = {}
    for row in rows:
        by_path.setdefault(row["path"].rsplit("/", 1)[-1], []).append(row)
    # ... and is reported on its own line, while everything else was stored
    assert [x["action"] for x in by_path["broken.html"]] == ["failed"]
    assert "no known EUR-Lex markup" in by_path["broken.html"][0]["note"]
    assert "1 of" in r.err and "not ingested" in r.err
    # one manifestation per version, by a stated rule
    [fmx] = by_path["ai.fmx4.zip"]
    assert fmx["action"] == "skipped" and "stored from ai.oj.xhtml" in fmx["note"] and "OJ XHTML" in fmx["note"]
    # the AI Act is stored before the Omnibus that amends it, though the Omnibus's file sorts first
    stored = [(x["act"], x["format"]) for x in rows if x["action"] in ("new", "applied")]
    assert stored.index((AI, "oj")) < stored.index((OMNI, "oj")) < stored.index((AI, "amended"))
    applied = [x for x in by_path["0-omnibus.oj.xhtml"] if x["action"] == "applied"]
    assert applied and applied[0]["version"] == "2026-07-27"
    assert "applied to 32024R1689@2024-07-12" in applied[0]["note"]
    with Catalog() as c:
        assert {(v.version, v.format) for v in c.versions(AI)} == {("2024-07-12", "oj"), ("2026-07-27", "amended")}
        assert "take measures to support" in c.resolve(f"{AI}#art_4").unit.text  # the Omnibus's text is current


def test_the_human_lines_name_each_file_and_its_outcome(cli, folder):
    r = cli("ingest", str(folder))
    lines = r.out.splitlines()
    assert any(line.startswith("new ") and "ai.oj.xhtml" in line and f"{AI}@2024-07-12 [en, oj]" in line
               for line in lines)
    assert any(line.startswith("skipped ") and "ai.fmx4.zip" in line for line in lines)
    assert any(line.startswith("failed ") and "broken.html" in line for line in r.err.splitlines())
    again = cli("ingest", str(folder))  # unchanged input: nothing new, and the same report
    assert not any(line.startswith(("new ", "applied ")) for line in again.out.splitlines())
