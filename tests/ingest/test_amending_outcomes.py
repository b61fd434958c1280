"""What `lexcite ingest` says of amending acts it does not apply: an official consolidation is never
one, and an amending act whose changes a stored consolidation already has is said to be in it.

On the real files: Regulation (EU) 2024/1183 (Formex) amends eIDAS 910/2014, whose official
consolidation 02014R0910-20241018 names it among its amending acts (GR.MOD.ACT).
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from lexcite.catalog import Catalog, Source
from lexcite.cli import app
from lexcite.contract import ParsedAct, Unit
from lexcite.ingest.load import Outcome, ingest_batch

pytestmark = pytest.mark.integration

EIDAS, EIDAS_2024, AI = "fmx4/02014R0910-20241018", "fmx4/32024R1183", "32024R1689"


def lines(outcomes: list[Outcome]) -> list[tuple[str, str, str]]:
    return [(o.action, o.path.name, o.note) for o in outcomes]


def no_gaps(outcomes: list[Outcome]) -> None:
    for o in outcomes:
        assert "  " not in o.note and " to  " not in o.note and "to (" not in o.note, o.note


@pytest.fixture(scope="module")
def batch(corpus, tmp_path_factory):
    with Catalog(tmp_path_factory.mktemp("outcomes") / "catalog.sqlite") as c:
        yield c, ingest_batch(c, [corpus / f"{AI}.oj.xhtml", corpus / "32026R1744.oj.xhtml", corpus / EIDAS,
                                  corpus / EIDAS_2024, corpus / "fmx4/02024R1689-20260727"])


class TestOneBatch:
    def test_an_official_consolidation_never_gives_an_unapplied_line(self, batch):
        _, outcomes = batch
        consolidations = {"02014R0910-20241018", "02024R1689-20260727"}
        assert [o.action for o in outcomes if o.path.name in consolidations] == ["new", "consolidated", "updated",
                                                                                 "consolidated"]

    def test_2024_1183_is_said_to_be_in_the_stored_eidas_consolidation(self, batch):
        _, outcomes = batch
        assert ("consolidated", "02014R0910-20241018", "32024R1183@2024-04-30 → 32014R0910: its changes are in "
                "32014R0910@2024-10-18, the official consolidation already stored") in lines(outcomes)

    def test_the_omnibus_is_said_to_be_checked_against_the_official_ai_act(self, batch):
        _, outcomes = batch
        (note,) = [o.note for o in outcomes if o.action == "consolidated" and o.note.startswith("32026R1744")]
        assert "32024R1689@2026-07-27 prevails" in note and "lexcite consolidation-check 32024R1689" in note

    def test_every_unapplied_line_names_its_targets_without_gaps(self, batch):
        _, outcomes = batch
        no_gaps(outcomes)
        # 2024/1183 comes first (publication order), before eIDAS is stored; the batch settles it later,
        # so it gets no line saying it was not applied.
        assert [o.note for o in outcomes if o.action == "unapplied"] == [
            "32024R1689@2024-07-12 not applied to 9 act(s) not in the catalog: 32008R0300, 32013R0167, 32013R0168, "
            "32014L0090, 32016L0797, 32018R0858, 32018R1139, 32019R2144, 32020L1828",
            "32026R1744@2026-07-24 not applied to 2 act(s) not in the catalog: 32018R1139, 32023R1230"]


def test_the_amending_act_alone_names_its_target_and_why(corpus, tmp_path):
    with Catalog(tmp_path / "c.sqlite") as c:
        outcomes = ingest_batch(c, [corpus / EIDAS_2024])
    no_gaps(outcomes)
    assert lines(outcomes)[1] == (
        "unapplied", "32024R1183", "32024R1183@2024-04-30 not applied to 1 act(s) not in the catalog: 32014R0910 "
        "(stored as formex, and amendment instructions are read from OJ XHTML only: ingest the OJ XHTML of "
        "32024R1183 to apply them)")


def test_the_consolidation_first_then_the_amending_act_alone(corpus, tmp_path):
    with Catalog(tmp_path / "c.sqlite") as c:
        ingest_batch(c, [corpus / EIDAS])
        outcomes = ingest_batch(c, [corpus / EIDAS_2024])
    assert [o.action for o in outcomes] == ["new", "consolidated"]
    assert "its changes are in 32014R0910@2024-10-18" in outcomes[1].note


def test_a_stored_target_without_the_changes_keeps_the_ojxhtml_advice(corpus, tmp_path):
    """A version of eIDAS that is not a consolidation naming 2024/1183: the act is named, the reason follows."""
    art = Unit("32014R0910", "2014-08-28", "art_1", "article", "Article 1", "Subject matter.", None, 0, "en")
    with Catalog(tmp_path / "c.sqlite") as c:
        c.store(ParsedAct("32014R0910", "2014-08-28", "en", "oj", "REGULATION (EU) No 910/2014", (art,)),
                Source("eidas.xhtml", sha256="e" * 64))
        outcomes = ingest_batch(c, [corpus / EIDAS_2024])
    no_gaps(outcomes)
    assert lines(outcomes)[1] == ("unapplied", "32024R1183", "32024R1183@2024-04-30 not applied to 32014R0910 "
                                  "(stored as formex, and amendment instructions are read from OJ XHTML only: "
                                  "ingest the OJ XHTML of 32024R1183 to apply them)")


def test_the_printed_lines(corpus, lexcite_home):
    r = CliRunner().invoke(app, ["ingest", str(corpus / EIDAS), str(corpus / EIDAS_2024)])
    assert r.exit_code == 0, r.output
    said = " ".join(r.output.split()).replace(f"{corpus}/", "")
    assert "unapplied" not in said
    assert ("consolidated fmx4/02014R0910-20241018 32024R1183@2024-04-30 → 32014R0910: its changes are in "
            "32014R0910@2024-10-18, the official consolidation already stored") in said
