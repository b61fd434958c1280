"""parse_oj_old: the older un-prefixed OJ HTML (`ti-art`, `normal`, no ELI divs) -> normative units.

The fixture `tests/fixtures/old_oj.html` is a hand-written, fictitious directive in that markup.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lexcite.contract import ParsedAct
from lexcite.errors import FormatNotRecognised, ParseError
from lexcite.ingest._markup import read_html
from lexcite.ingest.parse_oj_old import parse_oj_old

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "old_oj.html"
OLD = FIXTURE.read_text(encoding="utf-8")


def parse(text: str = OLD, **kw) -> ParsedAct:
    return parse_oj_old(read_html(text.encode("utf-8"), FIXTURE), FIXTURE, **kw)


def ids(pa: ParsedAct, kind: str | None = None) -> list[str]:
    return [u.unit for u in pa.units if kind is None or u.kind == kind]


def children(pa: ParsedAct, parent: str) -> list[str]:
    return [u.unit for u in pa.units if u.parent == parent]


@pytest.fixture(scope="module")
def act() -> ParsedAct:
    return parse()


@pytest.fixture(scope="module")
def units(act) -> dict:
    return {u.unit: u for u in act.units}


class TestDetectedMetadata:
    def test_the_celex_comes_from_the_old_style_directive_number_in_the_title(self, act):
        assert act.act == "32009L0997"
        assert act.doc_kind == "directive"

    def test_the_version_and_language_come_from_the_oj_header(self, act):
        assert (act.version, act.language, act.format) == ("2009-05-08", "en", "oj_old")

    def test_the_title_is_the_doc_title_lines_without_the_eea_line(self, act):
        assert act.title == (
            "DIRECTIVE 2009/997/EC OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL of 23 April 2009 "
            "on the safety of garden trampolines and amending Directive 2001/95/EC"
        )

    def test_explicit_arguments_override_the_header(self):
        pa = parse(act="32009L0998", version="2009-06-01", language="fr", binding=False)
        assert (pa.act, pa.version, pa.language, pa.binding) == ("32009L0998", "2009-06-01", "fr", False)
        assert {u.act for u in pa.units} == {"32009L0998"}

    def test_a_missing_date_names_the_version_option(self):
        with pytest.raises(ParseError, match="--version"):
            parse(OLD.replace('class="hd-date"', 'class="hd-other"'))

    def test_a_missing_language_falls_back_to_the_formex_name_in_the_title(self):
        pa = parse(OLD.replace('<p class="hd-lg">EN</p>', "").replace("L_2009123EN", "L_2009123DE"))
        assert pa.language == "de"


class TestRecitals:
    def test_recitals_come_from_tables_and_from_numbered_paragraphs(self, act):
        assert ids(act, "recital") == ["rct_1", "rct_2", "rct_3", "rct_4"]

    def test_a_recital_running_over_two_paragraphs_keeps_both(self, units):
        assert units["rct_3"].text == (
            "Directive 2001/95/EC of the European Parliament and of the Council of 3 December 2001 on general "
            "product safety should therefore be supplemented. That Directive should continue to apply to the "
            "aspects not covered by this Directive."
        )
        assert units["rct_3"].footnotes == ("OJ L 11, 15.1.2002, p. 4.",)

    def test_the_adoption_formula_ends_the_recitals(self, units):
        assert "HAVE ADOPTED" not in units["rct_4"].text
        assert units["rct_4"].title == "Recital 4"


class TestArticles:
    def test_articles_are_numbered_from_their_headings(self, act):
        assert ids(act, "article") == ["art_1", "art_2", "art_3", "art_4", "art_5"]

    def test_chapter_headings_are_not_article_text(self, units):
        assert "CHAPTER" not in units["art_2"].text
        assert "GENERAL PROVISIONS" not in units["art_1"].text

    def test_points_written_as_paragraphs_nest_by_label_kind(self, act, units):
        assert children(act, "art_1") == ["art_1.pnt_a", "art_1.pnt_b"]
        assert children(act, "art_1.pnt_b") == ["art_1.pnt_b.pnt_i", "art_1.pnt_b.pnt_ii"]
        assert units["art_1.pnt_b"].text == (
            "(b) placed on the market after 1 January 2011 and either: (i) sold with a safety net; "
            "or (ii) sold without a safety net."
        )
        assert units["art_1.pnt_b.pnt_ii"].title == "Article 1, point (b)(ii) — Subject matter and scope"

    def test_an_unnumbered_closing_subparagraph_belongs_to_the_article_not_to_the_last_point(self, units):
        assert units["art_1"].text.endswith("This Directive shall not apply to trampolines used in gymnastics "
                                            "competitions.")
        assert "gymnastics" not in units["art_1.pnt_b.pnt_ii"].text

    def test_points_written_as_tables_nest_recursively(self, act, units):
        assert children(act, "art_2") == ["art_2.pnt_1", "art_2.pnt_2", "art_2.pnt_3"]
        assert children(act, "art_2.pnt_2") == ["art_2.pnt_2.pnt_a", "art_2.pnt_2.pnt_b"]
        assert units["art_2.pnt_1"].text.startswith("(1) ‘garden trampoline’ means")

    def test_numbered_paragraphs_run_until_the_next_number(self, act, units):
        assert children(act, "art_3") == ["art_3.par_1", "art_3.par_2", "art_3.par_3"]
        assert units["art_3.par_3"].text == (
            "3. Member States shall designate the authorities responsible for market surveillance. "
            "Those authorities shall report to the Commission every two years."
        )
        assert units["art_3.par_2"].title == "Article 3(2) — Safety requirements"

    def test_a_paragraph_holds_its_points_and_their_text(self, act, units):
        assert children(act, "art_3.par_1") == ["art_3.par_1.pnt_a", "art_3.par_1.pnt_b", "art_3.par_1.pnt_c"]
        assert children(act, "art_3.par_1.pnt_b") == ["art_3.par_1.pnt_b.pnt_i", "art_3.par_1.pnt_b.pnt_ii"]
        for pid in children(act, "art_3.par_1"):
            assert units[pid].text in units["art_3.par_1"].text

    def test_an_article_text_contains_all_its_paragraphs(self, act, units):
        for pid in children(act, "art_3"):
            assert units[pid].text in units["art_3"].text

    def test_exponents_and_footnotes_are_handled_as_in_the_oj_format(self, units):
        par = units["art_3.par_2"]
        assert "more than 10^5 cycles" in par.text
        assert "EN 71-14." in par.text and "(4)" not in par.text
        assert par.footnotes == ("EN 71-14:2008 Safety of toys — Trampolines for domestic use.",)

    def test_units_link_to_the_article_heading_anchor(self, units):
        assert units["art_3.par_1.pnt_a"].source_url == (
            "https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:32009L0997#d1e338-45-1"
        )


class TestQuotedText:
    def test_a_quoted_article_is_text_of_the_amending_article_and_never_a_unit(self, act, units):
        assert "art_2a" not in units
        assert children(act, "art_4") == []
        assert "‘Article 2a Trampolines 1. Garden trampolines shall be presumed safe" in units["art_4"].text

    def test_the_next_real_article_ends_a_quotation_whose_closing_mark_is_missing(self):
        pa = parse(OLD.replace("relevant standards.’</p>", "relevant standards.</p>"))
        assert ids(pa, "article") == ["art_1", "art_2", "art_3", "art_4", "art_5"]
        assert [u for u in ids(pa) if u.startswith("art_4.")] == []
        assert children(pa, "art_5") == ["art_5.par_1", "art_5.par_2"]

    def test_an_unquoted_article_heading_inside_an_open_quotation_stays_quoted(self):
        # "‘Article 2a … Article 6 …’": 6 is not the act's next article (5 is), so it is quoted text.
        quoted_second = OLD.replace(
            '<p class="normal">2.&#160;&#160;&#160;The Commission shall publish',
            '<p class="ti-art">Article 6</p><p class="normal">2.&#160;&#160;&#160;The Commission shall publish',
        )
        pa = parse(quoted_second)
        assert ids(pa, "article") == ["art_1", "art_2", "art_3", "art_4", "art_5"]
        assert "Article 6 2. The Commission shall publish" in {u.unit: u for u in pa.units}["art_4"].text


class TestAnnex:
    def test_an_unnumbered_annex_is_anx_1_with_its_title(self, units):
        assert units["anx_1"].title == "Annex — SAFETY REQUIREMENTS FOR GARDEN TRAMPOLINES"
        assert units["anx_1"].source_url.endswith("#d1e500-45-1")

    def test_annex_sections_hold_their_points_and_sub_points(self, act, units):
        assert children(act, "anx_1") == ["anx_1.sct_A", "anx_1.sct_B"]
        assert children(act, "anx_1.sct_A") == ["anx_1.sct_A.pnt_1", "anx_1.sct_A.pnt_2"]
        assert children(act, "anx_1.sct_A.pnt_2") == ["anx_1.sct_A.pnt_2.pnt_a", "anx_1.sct_A.pnt_2.pnt_b"]
        assert units["anx_1.sct_B"].title == "Annex, Section B — Labelling"

    def test_a_dash_indent_is_text_of_its_section(self, act, units):
        assert children(act, "anx_1.sct_B") == ["anx_1.sct_B.pnt_3"]
        assert "— Markings shall be legible and indelible." in units["anx_1.sct_B"].text

    def test_signatures_and_footnotes_are_not_annex_or_article_text(self, units):
        assert "Done at Strasbourg" not in units["art_5"].text
        assert "PÖTTERING" not in units["anx_1"].text
        assert "OJ C 100" not in units["art_5"].text


class TestInvariants:
    def test_parents_precede_children_and_positions_follow_document_order(self, act):
        seen: set[str] = set()
        for i, u in enumerate(act.units):
            assert u.position == i
            assert u.parent is None or (u.parent in seen and u.unit.startswith(u.parent + "."))
            seen.add(u.unit)

    def test_the_same_input_gives_the_same_units(self, act):
        assert parse().units == act.units

    def test_a_document_without_article_headings_is_not_recognised(self):
        with pytest.raises(FormatNotRecognised):
            parse(OLD.replace('class="ti-art"', 'class="normal"'))

    def test_a_gap_in_the_article_numbers_is_refused(self):
        with pytest.raises(ParseError, match="sequence"):
            parse(OLD.replace(">Article 5<", ">Article 6<"))
