"""Amending acts: the formula parser, the links of Regulation (EU) 2026/1744, and the AI Act version that results."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexcite.catalog import Catalog, Source
from lexcite.cli import app
from lexcite.contract import CitationRef, ParsedAct, Perimeter
from lexcite.ingest._markup import read_html
from lexcite.ingest.amendments import (
    entry_into_force,
    link_counts,
    new_unit_id,
    parse_formula,
    read_amending_act,
)
from lexcite.ingest.apply_amendments import derive, oj_subparagraphs, update_amendments
from lexcite.ingest.consolidation import derived_text
from lexcite.ingest.load import ingest_paths
from lexcite.ingest.parse_oj import parse_oj

AI, OMNI = "32024R1689", "32026R1744"


# ---------------------------------------------------------------------------
# The formula parser, on hand-written instructions
# ---------------------------------------------------------------------------


@pytest.mark.unit
class TestFormulaParser:
    def test_an_article_replaced(self):
        f = parse_formula("Article 4 is replaced by the following:")
        assert (f.action, f.targets) == ("replaced", ("art_4",))

    def test_a_point_replaced_inside_a_paragraph_of_an_article(self):
        f = parse_formula("in Article 1(2), point (g) is replaced by the following:")
        assert (f.action, f.targets) == ("replaced", ("art_1.par_2.pnt_g",))

    def test_a_unit_that_opens_with_a_formula_is_an_instruction(self):
        from lexcite.ingest.amendment_formula import opens_with_formula

        assert opens_with_formula("(3) in Article 2, the following paragraph is added: ‘13. For high-risk AI ...")
        assert opens_with_formula("(5) Article 4 is replaced by the following: ‘Article 4 AI literacy ...")
        assert opens_with_formula("Regulation (EU) 2024/1689 is amended as follows:")
        # a rule that lists cases is none, though it ends on a colon too
        assert not opens_with_formula("(c) they modify the intended purpose of an AI system: ...")
        assert not opens_with_formula("(a) the CE marking has been affixed in violation of Article 48;")

    def test_a_paragraph_deleted_by_its_article_reference(self):
        f = parse_formula("Article 10(5) is deleted;")
        assert (f.action, f.targets) == ("deleted", ("art_10.par_5",))

    def test_relative_formulas_resolve_against_the_context_of_their_parent_point(self):
        assert parse_formula("paragraph 5 is deleted;", "art_10").targets == ("art_10.par_5",)
        assert parse_formula("in paragraph 2, point (a) is replaced by the following:", "art_6").targets == (
            "art_6.par_2.pnt_a",)
        assert parse_formula("in Section A, point 1 is deleted;", "anx_I").targets == ("anx_I.sct_A.pnt_1",)

    def test_plural_objects_give_one_target_each(self):
        f = parse_formula("in Annex VIII, section B, points 7 and 9 are deleted;")
        assert (f.action, f.targets) == ("deleted", ("anx_VIII.sct_B.pnt_7", "anx_VIII.sct_B.pnt_9"))
        assert parse_formula("paragraphs 2 and 3 are replaced by the following:", "art_97").targets == (
            "art_97.par_2", "art_97.par_3")

    def test_inserted_units_take_their_ids_from_the_quoted_labels(self):
        f = parse_formula("in paragraph 1, the first subparagraph, the following points are inserted:", "art_5")
        assert (f.action, f.what, f.container) == ("inserted", "point", "art_5.par_1")
        assert new_unit_id(f, "ba") == "art_5.par_1.pnt_ba"
        art = parse_formula("the following Article is inserted:")
        assert (art.action, art.container, new_unit_id(art, "4a")) == ("inserted", "", "art_4a")
        assert new_unit_id(parse_formula("the following points are inserted:", "art_3"), "14a") == "art_3.pnt_14a"

    def test_added_annexes_paragraphs_and_points(self):
        assert new_unit_id(parse_formula("the following Annex is added:"), "XIV") == "anx_XIV"
        f = parse_formula("in Article 2, the following paragraph is added:")
        assert (f.action, new_unit_id(f, "13")) == ("added", "art_2.par_13")
        f = parse_formula("in Article 39 the following paragraph is added:")  # no comma, as printed
        assert new_unit_id(f, "3") == "art_39.par_3"

    def test_amended_as_follows_sets_the_context_of_its_sub_points(self):
        assert parse_formula("Article 3 is amended as follows:") == parse_formula("Article 3 is amended as follows:")
        f = parse_formula("Article 3 is amended as follows:")
        assert (f.action, f.targets) == ("context", ("art_3",))
        # an article without numbered paragraphs: its points hang from the article
        f = parse_formula("in Article 113, the third paragraph is amended as follows:")
        assert (f.action, f.targets) == ("context", ("art_113",))
        assert parse_formula("point (a) is replaced by the following:", "art_113").targets == ("art_113.pnt_a",)

    def test_parts_of_units_are_amendments_of_the_unit(self):
        f = parse_formula("the heading is replaced by the following:", "art_75")
        assert (f.action, f.targets, f.part) == ("amended", ("art_75",), "heading")
        f = parse_formula("in Article 11(1), the second subparagraph is replaced by the following:")
        assert (f.action, f.targets, f.part) == ("amended", ("art_11.par_1",), "subpar_2")
        f = parse_formula("in Article 40(2), the following subparagraph is added:")
        assert (f.action, f.what, f.container) == ("added", "subparagraph", "art_40.par_2")

    def test_the_sentence_naming_the_target_act_gives_its_celex(self):
        assert parse_formula("Regulation (EU) 2024/1689 is amended as follows:").act == AI
        assert parse_formula("Regulation (EU) 2018/1139 is amended as follows:").act == "32018R1139"
        assert parse_formula("Directive (EU) 2016/797 is amended as follows:").act == "32016L0797"

    @pytest.mark.parametrize("formula, context, why", [
        ("in Article 7, the words ‘2 August 2026’ are replaced by ‘2 August 2027’", "", "no rule"),
        ("the following sentence is added:", "art_5", "'sentence' is not modelled"),
        ("the third paragraph is replaced by the following:", "art_113", "unnumbered paragraph"),
        ("the following point is inserted after point (c):", "art_5.par_1", "position"),
        ("Article 5 is hereby repealed", "", "no rule"),
    ])
    def test_unknown_formulas_are_unparsed_with_a_reason_never_guessed(self, formula, context, why):
        f = parse_formula(formula, context)
        assert f.action == "unparsed" and f.targets == () and why in f.reason

    def test_entry_into_force_is_read_from_the_text_not_hard_coded(self):
        third = "This Regulation shall enter into force on the third day following that of its publication in the OJ."
        assert entry_into_force([third], "2026-07-24")[0] == "2026-07-27"
        twentieth = third.replace("third", "twentieth")
        assert entry_into_force([twentieth], "2024-07-12")[0] == "2024-08-01"
        assert entry_into_force(["It shall enter into force on 1 January 2027."], "2026-07-24")[0] == "2027-01-01"
        day, why = entry_into_force(["This Regulation applies to AI systems."], "2026-07-24")
        assert day is None and "enter into force" in why


# ---------------------------------------------------------------------------
# A hand-written amending act applied to a hand-written base act
# ---------------------------------------------------------------------------

_HEAD = """<html><body><p class="oj-hd-date">{date}</p><div class="eli-container">
<div class="eli-main-title" id="tit_1"><p class="oj-doc-ti">REGULATION (EU) {no}</p></div>
<div class="eli-subdivision" id="enc_1">{body}</div></div></body></html>"""


def _row(label: str, inner: str) -> str:
    return (f'<table><tbody><tr><td><p class="oj-normal">{label}</p></td>'
            f"<td>{inner}</td></tr></tbody></table>")


BASE = _HEAD.format(date="1.1.2099", no="2099/1", body=(
    '<div class="eli-subdivision" id="art_1"><p class="oj-ti-art">Article 1</p>'
    '<div class="eli-title"><p class="oj-sti-art">Rules</p></div>'
    '<div id="001.001"><p class="oj-normal">1.   Providers shall:</p>'
    + _row("(a)", '<p class="oj-normal">register;</p>')
    + _row("(b)", '<p class="oj-normal">report;</p>')
    + _row("(c)", '<p class="oj-normal">cooperate.</p>')
    + '<p class="oj-normal">Member States shall check this.</p></div>'
    '<div id="001.002"><p class="oj-normal">2.   Old paragraph two.</p></div>'
    '<div id="001.003"><p class="oj-normal">3.   Paragraph three.</p></div></div>'
    '<div class="eli-subdivision" id="art_2"><p class="oj-ti-art">Article 2</p>'
    '<div class="eli-title"><p class="oj-sti-art">Old heading</p></div>'
    '<p class="oj-normal">This Regulation shall enter into force on the day following that of its publication.</p>'
    '</div>'))

AMENDING = _HEAD.format(date="1.6.2099", no="2099/2", body=(
    '<div class="eli-subdivision" id="art_1"><p class="oj-ti-art">Article 1</p>'
    '<p class="oj-normal">Regulation (EU) 2099/1 is amended as follows:</p>'
    + _row("(1)", '<p class="oj-normal">Article 1 is amended as follows:</p>'
           + _row("(a)", '<p class="oj-normal">in paragraph 1, the following point is inserted:</p>'
                  + _row("‘(ba)", '<p class="oj-normal">keep records;’</p>') + '<p class="oj-normal">;</p>')
           + _row("(b)", '<p class="oj-normal">paragraph 2 is replaced by the following:</p>'
                  '<div id="001.002"><p class="oj-normal">‘2.   New paragraph two:</p>'
                  + _row("(a)", '<p class="oj-normal">first;</p>') + _row("(b)", '<p class="oj-normal">second.’</p>')
                  + "</div>;")
           + _row("(c)", '<p class="oj-normal">paragraph 3 is deleted;</p>')
           + _row("(d)", '<p class="oj-normal">in paragraph 1, the second subparagraph is replaced by the '
                  'following:</p><p class="oj-normal">‘Member States shall check this yearly.’</p>;'))
    + _row("(2)", '<p class="oj-normal">in Article 2, the heading is replaced by the following:</p>'
           '<p class="oj-normal">‘Entry into force’</p>;')
    + _row("(3)", '<p class="oj-normal">Article 2 is hereby reworded in part;</p>')
    + "</div>"
    '<div class="eli-subdivision" id="art_2"><p class="oj-ti-art">Article 2</p>'
    '<p class="oj-normal">This Regulation shall enter into force on the twentieth day following that of its '
    "publication.</p></div>"))


def _parse(markup: str, act: str):
    root = read_html(markup.encode(), Path(f"{act}.xhtml"))
    return root, parse_oj(root, Path(f"{act}.xhtml"), act=act, language="en")


@pytest.fixture(scope="module")
def derived():
    """The hand-written amending act applied to the hand-written base act (subparagraphs from its markup)."""
    base_root, base = _parse(BASE, "32099R0001")
    root, amending_parsed = _parse(AMENDING, "32099R0002")
    amending = read_amending_act(root, "32099R0002", amending_parsed.version, "en", amending_parsed.units)
    units, changed, outcomes = derive(list(base.units), amending.instructions, act="32099R0001",
                                      version=amending.applies_from, language="en",
                                      subparagraphs=oj_subparagraphs(base_root))
    return amending, {u.unit: u for u in units}, [u.unit for u in units], dict(changed), outcomes


@pytest.mark.unit
class TestDeriveOnAHandWrittenAct:
    def test_links_and_the_unparsed_formula_with_its_reason(self, derived):
        amending, *_ = derived
        assert amending.applies_from == "2099-06-21"  # twentieth day after 1.6.2099
        got = [(link.target_unit, link.action) for link in amending.links]
        assert got == [("art_1.par_1.pnt_ba", "inserted"), ("art_1.par_2", "replaced"), ("art_1.par_3", "deleted"),
                       ("art_1.par_1", "amended"), ("art_2", "amended"), (None, "unparsed")]
        unparsed = amending.links[-1]
        assert unparsed.instruction == "Article 2 is hereby reworded in part;" and unparsed.reason
        assert link_counts(amending.links) == {"parsed": 5, "unparsed": 1, "inserted": 1, "replaced": 1,
                                               "deleted": 1, "amended": 2}

    def test_inserted_point_sits_in_document_order_and_in_its_parents_text(self, derived):
        _, units, order, changed, outcomes = derived
        assert outcomes[:5] == ["applied"] * 5 and outcomes[5].startswith("not applied: unparsed")
        assert order.index("art_1.par_1.pnt_b") < order.index("art_1.par_1.pnt_ba") < order.index(
            "art_1.par_1.pnt_c")
        assert units["art_1.par_1"].text == ("1. Providers shall: (a) register; (b) report; (ba) keep records; "
                                             "(c) cooperate. Member States shall check this yearly.")
        assert changed["art_1.par_1.pnt_ba"] == "32099R0002@2099-06-01#art_1.pnt_1.pnt_a"
        assert [u.position for u in units.values()] == sorted(u.position for u in units.values())

    def test_replaced_paragraph_gets_its_new_points_and_deleted_one_is_gone(self, derived):
        _, units, order, changed, _ = derived
        assert units["art_1.par_2"].text == "2. New paragraph two: (a) first; (b) second."
        assert units["art_1.par_2.pnt_b"].parent == "art_1.par_2"
        assert "art_1.par_3" not in units and "Paragraph three" not in units["art_1"].text
        assert "New paragraph two" in units["art_1"].text and changed["art_1"].startswith("32099R0002@")

    def test_heading_replaced_in_the_titles(self, derived):
        _, units, *_ = derived
        assert units["art_2"].title == "Article 2 — Entry into force"


# ---------------------------------------------------------------------------
# The real case: Regulation (EU) 2026/1744 amending the AI Act
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def omnibus(corpus):
    path = corpus / "32026R1744.oj.xhtml"
    root = read_html(path.read_bytes(), path)
    parsed = parse_oj(root, path)
    return read_amending_act(root, parsed.act, parsed.version, parsed.language, parsed.units), parsed


@pytest.fixture(scope="module")
def ingested(corpus, tmp_path_factory):
    """AI Act + Omnibus ingested the way `lexcite ingest` does it (amendments applied automatically)."""
    with Catalog(tmp_path_factory.mktemp("amend") / "catalog.sqlite") as cat:
        results = ingest_paths(cat, [corpus / "32024R1689.oj.xhtml", corpus / "32026R1744.oj.xhtml"])
        yield cat, results


def _links(amending, target_unit):
    return [link for link in amending.links if link.target_unit == target_unit]


@pytest.mark.integration
class TestOmnibusLinks:
    def test_article_4_replaced_and_4a_inserted(self, omnibus):
        amending, _ = omnibus
        (art4,) = _links(amending, "art_4")
        assert (art4.target_act, art4.action, str(art4.amending)) == (AI, "replaced", f"{OMNI}@2026-07-24#art_1.pnt_5")
        assert art4.instruction == "Article 4 is replaced by the following:"
        assert art4.new_text.startswith("Article 4 AI literacy 1. Providers and deployers of AI systems shall take "
                                        "measures to support")
        assert not art4.new_text.startswith("‘") and not art4.new_text.endswith("’")
        (art4a,) = _links(amending, "art_4a")
        assert (art4a.action, str(art4a.amending)) == ("inserted", f"{OMNI}@2026-07-24#art_1.pnt_6")

    def test_new_points_of_article_5_1(self, omnibus):
        amending, _ = omnibus
        ba, bb = _links(amending, "art_5.par_1.pnt_ba") + _links(amending, "art_5.par_1.pnt_bb")
        assert (ba.action, bb.action) == ("inserted", "inserted")
        assert "identifiable natural person’s intimate parts" in ba.new_text
        assert str(ba.amending) == f"{OMNI}@2026-07-24#art_1.pnt_7.pnt_a"

    def test_changed_dates_of_article_113(self, omnibus):
        amending, _ = omnibus
        got = {link.target_unit: link for link in amending.links if link.target_unit.startswith("art_113")}
        assert {u: link.action for u, link in got.items()} == {
            "art_113.pnt_a": "replaced", "art_113.pnt_c": "replaced", "art_113.pnt_d": "added"}
        assert "2 December 2027" in got["art_113.pnt_c"].new_text
        assert "2 August 2028" in got["art_113.pnt_c"].new_text
        assert got["art_113.pnt_d"].new_text == "(d) Articles 102 to 110 shall apply from 27 July 2026."

    def test_other_changes_named_in_the_notes(self, omnibus):
        amending, _ = omnibus
        targets = {link.target_unit: link.action for link in amending.links if link.target_act == AI}
        assert targets["art_3.pnt_14a"] == targets["art_3.pnt_14b"] == "inserted"
        assert targets["art_111.par_4"] == "added" and targets["anx_XIV"] == "added"
        assert targets["art_99.par_6a"] == targets["art_60a"] == "inserted"
        assert {t for t in targets if t.startswith("art_75") and "." not in t} == {
            "art_75", "art_75a", "art_75b", "art_75c", "art_75d"}
        assert targets["art_10.par_5"] == "deleted" and targets["anx_I.sct_A.pnt_1"] == "deleted"

    def test_every_instruction_of_article_1_is_parsed_and_none_is_left_out(self, omnibus):
        amending, parsed = omnibus
        art1 = [link for link in amending.links if link.amending.unit.startswith("art_1.")]
        assert link_counts(art1) == {"parsed": 88, "unparsed": 0, "replaced": 36, "inserted": 26, "added": 13,
                                     "amended": 9, "deleted": 4}
        # each of the 43 points of Article 1 (or each of its sub-points) gave at least one link
        leaves = {u.unit for u in parsed.units if u.unit.startswith("art_1.pnt_")
                  and not any(v.parent == u.unit for v in parsed.units)}
        assert len({u for u in leaves if u.count(".") == 1}) + len(
            {u.rsplit(".", 1)[0] for u in leaves if u.count(".") == 2}) == 43
        assert leaves == {link.amending.unit for link in art1}

    def test_articles_2_and_3_amend_the_other_two_regulations(self, omnibus):
        amending, _ = omnibus
        by_act = {}
        for link in amending.links:
            by_act.setdefault(link.target_act, []).append(link)
        assert {a: len(v) for a, v in by_act.items()} == {AI: 88, "32018R1139": 7, "32023R1230": 5}
        assert [link.target_unit for link in by_act["32018R1139"]][:2] == ["art_27.par_3", "art_31.par_3"]

    def test_applies_from_is_the_entry_into_force_read_from_article_4(self, omnibus):
        amending, _ = omnibus
        assert (amending.published, amending.applies_from) == ("2026-07-24", "2026-07-27")
        assert {link.applies_from for link in amending.links} == {"2026-07-27"}


@pytest.mark.integration
class TestOmnibusApplied:
    def test_the_amended_version_is_current_with_the_new_ai_literacy_text(self, ingested):
        cat, results = ingested
        assert [(r.act, r.version, r.format) for r in results] == [
            (AI, "2024-07-12", "oj"), (OMNI, "2026-07-24", "oj"), (AI, "2026-07-27", "amended")]
        art4 = cat.resolve(f"{AI}#art_4")
        assert art4.unit.version == "2026-07-27" and art4.status == "current"
        assert "take measures to support the development of AI literacy" in art4.unit.text
        assert art4.changed_by == f"{OMNI}@2026-07-24#art_1.pnt_5"
        # the link opens the amended act (consolidated as of the new version), not the amending one
        assert art4.unit.source_url.endswith("CELEX:02024R1689-20260727#art_4")

    def test_the_original_is_kept_superseded_until_the_amendment_applies(self, ingested):
        cat, _ = ingested
        old, new = cat.versions(AI)
        assert (old.version, old.status, old.valid_to) == ("2024-07-12", "superseded", "2026-07-27")
        assert (new.version, new.status, new.valid_from, new.format) == ("2026-07-27", "current", "2026-07-27",
                                                                         "amended")
        assert new.modified_by == (OMNI,) and "2026/1744" in new.title

    def test_article_4a_exists_with_changed_by_pointing_to_the_omnibus(self, ingested):
        cat, _ = ingested
        rec = cat.resolve(f"{AI}#art_4a")
        assert rec.changed_by == f"{OMNI}@2026-07-24#art_1.pnt_6"
        assert rec.unit.title.startswith("Article 4a — Processing of special categories")
        assert cat.resolve(f"{AI}#art_4a.par_1.pnt_a").unit.parent == "art_4a.par_1"

    def test_as_of_2026_01_01_article_4_is_the_original(self, ingested):
        cat, _ = ingested
        history = cat.history(AI, "art_4", "en")
        then = [r for r in history if Perimeter(as_of="2026-01-01").admits(r)]
        assert len(then) == 1 and "take measures to ensure, to their best extent" in then[0].unit.text
        assert cat.resolve(CitationRef(AI, "2024-07-12", "art_4")).unit.text == then[0].unit.text
        assert [r for r in history if Perimeter(as_of="2026-08-01").admits(r)][0].unit.version == "2026-07-27"

    def test_inserted_and_deleted_units_and_parent_texts(self, ingested):
        cat, _ = ingested
        par = cat.resolve(f"{AI}#art_5.par_1")
        b, ba, bb, c = (par.unit.text.index(x) for x in ("(b) ", "(ba) ", "(bb) ", "(c) "))
        assert b < ba < bb < c
        ids = [r.unit.unit for r in cat.records(AI, "en") if r.unit.version == "2026-07-27"]
        assert ids.index("art_5.par_1.pnt_b") < ids.index("art_5.par_1.pnt_ba") < ids.index("art_5.par_1.pnt_c")
        assert "art_10.par_5" not in ids and "anx_I.sct_A.pnt_1" not in ids
        assert "2 December 2027" in cat.resolve(f"{AI}#art_113").unit.text
        assert len([i for i in ids if i.startswith("art_") and "." not in i]) == 119  # 113 + 4a, 60a, 75a-d
        assert len([i for i in ids if i.startswith("art_3.pnt_") and i.count(".") == 1]) == 70
        assert "anx_XIV" in ids

    def test_every_instruction_for_the_ai_act_was_applied(self, ingested):
        cat, _ = ingested
        rows = cat.links(target_act=AI)
        assert len(rows) == 88 and {outcome for _, outcome in rows} == {"applied"}
        others = cat.links(target_act="32018R1139")
        assert others and all(o.startswith("pending: no version of 32018R1139") for _, o in others)

    def test_reingesting_unchanged_input_changes_nothing(self, ingested, corpus):
        cat, _ = ingested
        before = cat.state()
        again = ingest_paths(cat, [corpus / "32026R1744.oj.xhtml", corpus / "32024R1689.oj.xhtml"])
        assert [r.action for r in again] == ["unchanged"] * 3
        assert cat.state() == before


@pytest.mark.integration
def test_ingesting_the_amending_act_first_gives_the_same_version(corpus, tmp_path, ingested):
    cat, _ = ingested
    with Catalog(tmp_path / "other.sqlite") as other:
        ingest_paths(other, [corpus / "32026R1744.oj.xhtml"])
        assert other.versions(AI) == [] and other.links(target_act=AI)
        ingest_paths(other, [corpus / "32024R1689.oj.xhtml"])
        assert [v.sha256 for v in other.versions(AI)] == [v.sha256 for v in cat.versions(AI)]


@pytest.mark.integration
def test_a_consolidated_version_of_the_same_date_replaces_the_derived_one_and_stays(corpus, tmp_path, ingested):
    cat, _ = ingested
    with Catalog(tmp_path / "cons.sqlite") as c:
        cat.conn.backup(c.conn)
        derived = [r.unit for r in c.records(AI, "en") if r.unit.version == "2026-07-27"]
        units = tuple(dataclasses.replace(u, text=u.text + " [consolidated]") if u.unit == "art_4" else u
                      for u in derived)
        consolidated = ParsedAct(AI, "2026-07-27", "en", "consolidated", "AI Act (consolidated)", units,
                                 modified_by=(OMNI,), changed_units=(("art_4", OMNI),))
        r = c.store(consolidated, Source("02024R1689-20260727.xhtml", sha256="c" * 64))
        assert r.action == "updated"
        (v,) = [v for v in c.versions(AI) if v.version == "2026-07-27"]
        assert (v.format, v.status) == ("consolidated", "current")
        assert c.resolve(f"{AI}#art_4").changed_by == OMNI  # modref markers land in units.changed_by
        # Re-ingesting the Omnibus must not overwrite the consolidated text with a derived one.
        ingest_paths(c, [corpus / "32026R1744.oj.xhtml"])
        (v,) = [v for v in c.versions(AI) if v.version == "2026-07-27"]
        assert v.format == "consolidated" and c.resolve(f"{AI}#art_4").unit.text.endswith("[consolidated]")
        # The derived version is still built, as the check against the consolidated text: every link
        # applied, and the one unit the consolidated text changes is the one difference.
        assert {o for _, o in c.links(target_act=AI)} == {"applied"}
        (check,) = c.consolidation_checks(AI)
        assert [(d["unit"], d["diff"]) for d in check["units_differ"]] == [
            ("art_4", "1. Providers and … out common objectives. {+[consolidated]+}")]
        # ... and its text stays readable beside the official one
        d = derived_text(c, CitationRef(AI, "2026-07-27", "art_4"), "en")
        assert (d.comparison, d.diff) == ("differs", "1. Providers and … out common objectives. {+[consolidated]+}")
        assert not d.unit.text.endswith("[consolidated]")


@pytest.mark.integration
def test_a_derived_version_without_official_text_is_its_own_derived_text(ingested):
    cat, _ = ingested
    d = derived_text(cat, CitationRef(AI, "2026-07-27", "art_4a"), "en")
    assert (d.derived, d.official, d.comparison) == (f"{AI}@2024-07-12 + {OMNI}@2026-07-24", None, None)
    assert d.changed_by == cat.resolve(f"{AI}#art_4a").changed_by and d.changed_by.startswith(OMNI)


@pytest.mark.integration
class TestCli:
    @pytest.fixture
    def home(self, ingested, lexcite_home):
        cat, _ = ingested
        lexcite_home.mkdir(parents=True, exist_ok=True)
        dst = sqlite3.connect(lexcite_home / "catalog.sqlite")
        cat.conn.backup(dst)
        dst.close()
        return lexcite_home

    def test_show_history_names_the_act_that_changed_the_unit(self, home):
        r = CliRunner().invoke(app, ["show", f"{AI}#art_4", "--history", "--json"])
        assert r.exit_code == 0, r.output
        rows = json.loads(r.output)  # one JSON array
        assert [(x["version"], x["status"], x["valid_to"], x["changed_by"]) for x in rows] == [
            ("2024-07-12", "superseded", "2026-07-27", None),
            ("2026-07-27", "current", None, f"{OMNI}@2026-07-24#art_1.pnt_5")]
        plain = CliRunner().invoke(app, ["show", f"{AI}#art_4", "--history"])
        assert f"changed by {OMNI}@2026-07-24#art_1.pnt_5" in " ".join(plain.output.split())

    def test_amendments_lists_links_with_counts(self, home):
        r = CliRunner().invoke(app, ["amendments", AI, "--json"])
        assert r.exit_code == 0, r.output
        got = json.loads(r.output)
        assert got["counts"]["parsed"] == 88 and got["counts"]["unparsed"] == 0
        assert {"target_unit": "art_4a", "action": "inserted", "outcome": "applied"}.items() <= next(
            x for x in got["links"] if x["target_unit"] == "art_4a").items()
        text = CliRunner().invoke(app, ["amendments", AI])
        assert "88 instructions: 88 parsed" in " ".join(text.output.split())

    def test_apply_amendments_again_reports_unchanged(self, home):
        r = CliRunner().invoke(app, ["apply-amendments", OMNI, "--json"])
        assert r.exit_code == 0, r.output
        rows = {x["target"]: x for x in map(json.loads, r.output.splitlines())}
        assert (rows[AI]["action"], rows[AI]["applied"], rows[AI]["not_applied"]) == ("unchanged", 88, {})
        assert rows["32018R1139"]["version"] is None and "no version" in rows["32018R1139"]["note"]


@pytest.mark.integration
def test_update_amendments_is_a_no_op_for_acts_that_amend_nothing(corpus, tmp_path):
    with Catalog(tmp_path / "c.sqlite") as c:
        results = ingest_paths(c, [corpus / "32024R2977.oj.html"])
        assert update_amendments(c, results) == [] and c.links() == []


@pytest.mark.integration
def test_consolidated_modref_markers_land_in_changed_by_and_show_history(corpus, lexcite_home):
    """The NL consolidated text marks Art. 73(10) ▼C2 (corrigendum 32024R1689R(04)): `show --history` names it."""
    r = CliRunner().invoke(app, ["ingest", str(corpus / "02024R1689-20240712.consolidated.nl.html")])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["show", f"{AI}#art_73.par_10", "--history", "--json"])
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.output)  # one JSON array
    assert (row["language"], row["changed_by"]) == ("nl", "32024R1689R(04)")


@pytest.mark.integration
def test_a_target_ingest_stands_when_an_earlier_amending_acts_file_is_gone(corpus, tmp_path):
    copy = tmp_path / "omnibus.xhtml"
    copy.write_bytes((corpus / "32026R1744.oj.xhtml").read_bytes())
    with Catalog(tmp_path / "c.sqlite") as c:
        ingest_paths(c, [copy])
        copy.unlink()
        results = ingest_paths(c, [corpus / "32024R1689.oj.xhtml"])
        assert [(r.act, r.format) for r in results] == [(AI, "oj")]
        assert [v.version for v in c.versions(AI)] == ["2024-07-12"]
