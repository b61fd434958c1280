"""EUR-Lex consolidated HTML: metadata, unit ids, change markers, text rules, bad input, the real NL file."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from lxml import etree

from lexcite.errors import FormatNotRecognised, ParseError
from lexcite.ingest._markup import read_html
from lexcite.ingest.parse_consolidated import parse_consolidated

PATH = Path("02099R0042-20990401.consolidated.en.html")


def grid(label: str, *body: str) -> str:
    return (f'<div class="grid-container grid-list"><div class="list grid-list-column-1"><span>{label} </span>'
            f'</div><div class="grid-list-column-2">{"".join(body)}</div></div>')


def par(label: str, *body: str) -> str:
    return (f'<div class="norm"><span class="no-parag">{label}  </span>'
            f'<div class="norm inline-element">{"".join(body)}</div></div>')


def p(text: str, cls: str = "norm") -> str:
    return f'<p class="{cls}">{text}</p>'


def modref(celex: str, label: str) -> str:
    return (f'<p class="modref"><a href="./../../../../legal-content/EN/AUTO/?uri=celex:{celex.split(":")[0]}" '
            f'title="{celex}">{label}</a></p>')


def article(n: str, subject: str, *blocks: str) -> str:
    return (f'<div class="eli-subdivision" id="art_{n}"><p class="title-article-norm">Article {n}</p>'
            f'<div class="eli-title" id="art_{n}.tit_1"><p class="stitle-article-norm">{subject}</p></div>'
            f'{"".join(blocks)}</div>')


def flat(label: str, text: str, *more: str) -> str:
    return (f'<div style="margin-left: 36pt; text-indent: -36pt"><p class="norm">{label}'
            f'<span style="word-spacing: 18pt"> </span>{text}</p>{"".join(more)}</div>')


HEADER = """
<p class="reference">02099R0042 — EN — 01.04.2099 — 001.002</p>
<table><tr><td><p class="arrow"><a href="./../../../../legal-content/EN/AUTO/?uri=celex:32099R0042"
  title="32099R0042">►B</a></p></td><td><p class="title-doc-first">REGULATION (EU) 2099/42 OF THE EUROPEAN
  PARLIAMENT AND OF THE COUNCIL</p><p class="title-doc-first">of 1 March 2099</p>
  <p class="title-doc-first">on test fixtures</p></td></tr></table>
<p class="hd-modifiers">Amended by:</p>
<table><tr><td><p class="arrow"><a href="./../../../../legal-content/EN/AUTO/?uri=celex:32099R0077"
  title="32099R0077">►M1</a></p></td><td><p class="title-fam-member">Regulation (EU) 2099/77</p></td></tr></table>
<p class="hd-modifiers">Corrected by:</p>
<table><tr><td><p class="arrow"><a href="./../../../../legal-content/EN/AUTO/?uri=celex:32099R0042R%2801%29"
  title="32099R0042R(01)">►C1</a></p></td></tr></table>
"""

BODY = "".join([
    '<div class="eli-container"><p class="arrow"><a href="x?uri=celex:32099R0042" title="32099R0042">▼B</a></p>',
    '<div class="eli-main-title" id="tit_1"><p class="title-doc-first">REGULATION (EU) 2099/42</p></div>',
    '<div class="eli-subdivision" id="enc_1"><div id="cpt_I">',
    '<p class="title-division-1">CHAPTER I</p><p class="title-division-2">GENERAL</p>',
    article("1", "Definitions",
            p("For the purposes of this Regulation:"),
            grid("1)", p("‘model’ means a model;")),
            grid("14a)", p("‘flop’ means 10<span class=\"superscript\">25</span> operations as defined in a Directive"
                           ' (<a href="#E0001" id="src.E0001"><span class="superscript">1</span></a>);'))),
    article("2", "Obligations",
            par("1.", p("Providers shall:", "norm inline-element"),
                grid("a)", p("test;")),
                grid("b)", p("document, in particular:"), grid("i)", p("inputs;")), grid("ii)", p("outputs.")))),
            p("Where the first subparagraph applies, providers shall also:"),
            grid("a)", p("report;")), grid("b)", p("archive;")), grid("c)", p("repeat.")),
            modref("32099R0077: REPLACED", "▼M1"),
            par("2.", "Deployers shall comply with ►M1 the new rules ◄."),
            par("3.", "Member States shall ►M1 report ◄ yearly."),
            modref("32099R0042", "▼B")),
    article("3", "Amendment to Regulation (EU) 2098/1",
            p("In Article 5 of Regulation (EU) 2098/1, the following paragraph is added:"),
            par("“4.", "Quoted text.”")),
    modref("32099R0077: INSERTED", "▼M1"),
    article("4", "Entry into force", p("This Regulation shall enter into force on the twentieth day.")),
    modref("32099R0042", "▼B"),
    article("5", "Review",
            p('The Commission shall report by <a href="./x?uri=celex:32099R0077" title="32099R0077">►M1</a>'
              " 2100 ◄ on the application.")),
    "</div></div>",
    '<div id="anx_I"><p><br/></p><hr class="separator-annex"/>',
    '<p class="title-annex-1">ANNEX I</p><p class="title-annex-2">Lists</p>',
    '<p class="title-gr-seq-level-1">Section A — First list</p>',
    flat("1.", "Directive 2006/42/EC;"), flat("2.", "Directive 2009/48/EC."),
    '<p class="title-gr-seq-level-1">Section B</p><p class="title-gr-seq-level-1">Second list</p>',
    flat("3.", "Regulation (EC) No 300/2008."),
    "</div>",
    '<div id="anx_II"><p class="title-annex-1">ANNEX II</p><p class="title-annex-1">Procedure</p>',
    '<p class="title-gr-seq-level-1">1.   <span class="boldface">Introduction</span></p>',
    p("An introduction."),
    '<p class="title-gr-seq-level-1">2.   <span class="boldface">Application</span></p>',
    flat("2.1.", "The application shall include:"),
    grid("a)", p("a name;")),
    grid("b)", p("an address.")),
    flat("2.2.", "It shall be assessed."),
    p("A decision follows the assessment.", "list"),
    grid("—", p("a dash item, text only")),
    "</div></div>",
    '<p class="footnote">(<a href="#src.E0001" id="E0001"><span class="superscript">1</span></a>)'
    "\u00a0Directive 2099/1 on floating point (OJ L 1, 1.1.2099, p. 1).</p>",
])


def page(header: str = HEADER, body: str = BODY, title: str = "Consolidated TEXT: 32099R0042 — EN — 01.04.2099"):
    return read_html(f"<html><head><title>{title}</title></head><body>{header}{body}</body></html>".encode(), PATH)


def parse(**kw):
    return parse_consolidated(page(**{k: v for k, v in kw.items() if k in ("header", "body", "title")}), PATH,
                              **{k: v for k, v in kw.items() if k not in ("header", "body", "title")})


def units(parsed) -> dict:
    return {u.unit: u for u in parsed.units}


# ------------------------------------------------------------------------------------------------


class TestMetadata:
    def test_the_reference_line_gives_the_base_act_the_consolidation_date_and_the_language(self):
        parsed = parse()

        assert (parsed.act, parsed.version, parsed.language, parsed.format) == (
            "32099R0042", "2099-04-01", "en", "consolidated")
        assert {(u.act, u.version, u.language) for u in parsed.units} == {("32099R0042", "2099-04-01", "en")}

    def test_the_consolidated_celex_is_the_link_target_and_in_the_title(self):
        parsed = parse()

        assert parsed.source_url.endswith("uri=CELEX:02099R0042-20990401")
        assert units(parsed)["art_2.par_1"].source_url.endswith("uri=CELEX:02099R0042-20990401#art_2")
        assert "02099R0042-20990401" in parsed.title and parsed.title.startswith("REGULATION (EU) 2099/42")

    def test_explicit_act_version_and_language_win_over_detection(self):
        parsed = parse(act="32099R0043", version="2099-05-01", language="NL", binding=False)

        assert {(u.act, u.version, u.language, u.binding) for u in parsed.units} == {
            ("32099R0043", "2099-05-01", "nl", False)}

    def test_a_consolidated_celex_given_as_act_names_the_base_act(self):
        parsed = parse(act="02099R0042-20990401")

        assert parsed.act == "32099R0042"
        assert parsed.source_url.endswith("CELEX:02099R0042-20990401")

    def test_without_a_reference_line_the_html_title_is_read(self):
        parsed = parse(header=HEADER.replace('class="reference"', 'class="other"'))

        assert (parsed.act, parsed.version, parsed.language) == ("32099R0042", "2099-04-01", "en")


class TestUnitIds:
    def test_articles_paragraphs_and_points_get_eli_path_ids(self):
        got = [u.unit for u in parse().units]

        assert got[:4] == ["art_1", "art_1.pnt_1", "art_1.pnt_14a", "art_2"]
        assert got[4:9] == ["art_2.par_1", "art_2.par_1.pnt_a", "art_2.par_1.pnt_b", "art_2.par_1.pnt_b.pnt_i",
                            "art_2.par_1.pnt_b.pnt_ii"]

    def test_unnumbered_subparagraphs_and_sibling_lists_belong_to_the_paragraph_above(self):
        par1 = units(parse())["art_2.par_1"]

        assert par1.text.startswith("1. Providers shall: a) test; b) document, in particular: i) inputs;")
        assert par1.text.endswith("providers shall also: a) report; b) archive; c) repeat.")

    def test_a_restarted_list_in_a_second_subparagraph_stays_text(self):
        u = units(parse())

        assert u["art_2.par_1.pnt_a"].text == "a) test;"
        assert "art_2.par_1.pnt_c" not in u

    def test_a_quoted_numbered_paragraph_is_text_of_the_amending_article(self):
        u = units(parse())

        assert [k for k in u if k.startswith("art_3")] == ["art_3"]
        assert u["art_3"].text.endswith("the following paragraph is added: “4. Quoted text.”")

    def test_an_article_without_paragraphs_or_points_is_one_unit(self):
        assert [k for k in units(parse()) if k.startswith("art_4")] == ["art_4"]

    def test_annex_sections_take_their_points_and_a_split_heading_joins_the_title(self):
        u = units(parse())

        assert u["anx_I.sct_B.pnt_3"].parent == "anx_I.sct_B"
        assert u["anx_I.sct_B"].title == "Annex I, Section B — Second list"
        assert u["anx_I.sct_B"].text == "Section B Second list 3. Regulation (EC) No 300/2008."
        assert u["anx_I.sct_A.pnt_2"].text == "2. Directive 2009/48/EC."

    def test_flat_annex_points_nest_by_label_dotted_under_groups_letters_under_dotted(self):
        u = units(parse())

        assert u["anx_II.pnt_2.pnt_1.pnt_b"].parent == "anx_II.pnt_2.pnt_1"
        assert u["anx_II.pnt_2.pnt_1"].text == "2.1. The application shall include: a) a name; b) an address."
        assert u["anx_II.pnt_2.pnt_2"].text == "2.2. It shall be assessed. A decision follows the assessment."
        assert u["anx_II.pnt_1"].text == "1. Introduction An introduction."

    def test_a_second_annex_heading_line_is_a_subtitle_not_another_annex(self):
        parsed = parse()

        assert [u.unit for u in parsed.units if u.kind == "annex"] == ["anx_I", "anx_II"]
        assert units(parsed)["anx_II"].title == "Annex II — Procedure"

    def test_every_parent_is_emitted_before_its_children_in_document_order(self):
        seen: set[str] = set()
        for i, unit in enumerate(parse().units):
            assert unit.position == i and (unit.parent is None or unit.parent in seen)
            seen.add(unit.unit)


class TestChangeMarkers:
    def test_amending_acts_come_from_the_header_arrows_and_corrigenda_are_left_out(self):
        assert parse().modified_by == ("32099R0077",)

    def test_units_after_a_change_marker_up_to_the_next_base_marker_are_changed(self):
        changed = dict(parse().changed_units)

        assert changed["art_2.par_2"] == "32099R0077"
        assert changed["art_4"] == "32099R0077"
        assert not {"art_2", "art_2.par_1", "art_3", "anx_I"} & changed.keys()

    def test_an_inline_marker_changes_the_innermost_unit_around_it(self):
        changed = dict(parse().changed_units)

        assert changed["art_5"] == "32099R0077"  # a linked ►M1
        assert changed["art_2.par_3"] == "32099R0077"  # bare ►M1 text, resolved by the header's ►M1

    def test_marker_glyphs_never_reach_the_text(self):
        u = units(parse())

        assert u["art_2.par_2"].text == "2. Deployers shall comply with the new rules."
        assert u["art_5"].text == "The Commission shall report by 2100 on the application."
        assert not any(ch in unit.text for unit in u.values() for ch in "►▼◄")


class TestText:
    def test_footnote_calls_and_their_brackets_leave_the_text_and_the_note_is_kept(self):
        point = units(parse())["art_1.pnt_14a"]

        assert point.text == "14a) ‘flop’ means 10^25 operations as defined in a Directive;"
        assert point.footnotes == ("Directive 2099/1 on floating point (OJ L 1, 1.1.2099, p. 1).",)

    def test_titles_follow_the_oj_convention_with_labels_as_printed(self):
        u = units(parse())

        assert u["art_2"].title == "Article 2 — Obligations"
        assert u["art_2.par_1"].title == "Article 2(1) — Obligations"
        assert u["art_2.par_1.pnt_b.pnt_ii"].title == "Article 2(1), point b)ii) — Obligations"
        assert u["anx_I.sct_A.pnt_2"].title == "Annex I, Section A, point 2 — Lists"
        assert u["anx_II.pnt_2.pnt_1.pnt_b"].title == "Annex II, point 2.1b) — Procedure"
        assert u["anx_II.pnt_2"].title == "Annex II, point 2 — Application"

    def test_the_callers_tree_is_left_untouched(self):
        root = page()
        before = etree.tostring(root)
        parse_consolidated(root, PATH)

        assert etree.tostring(root) == before


class TestBadInput:
    def test_a_page_without_consolidated_article_headings_is_not_recognised(self):
        root = read_html(b"<html><body><p class='oj-ti-art'>Article 1</p></body></html>", PATH)
        with pytest.raises(FormatNotRecognised, match="title-article-norm"):
            parse_consolidated(root, PATH)

    def test_the_flat_variant_without_article_containers_is_not_recognised(self):
        body = p("Article 1", "title-article-norm") + p("1. Text.") + p("Article 2", "title-article-norm")
        with pytest.raises(FormatNotRecognised, match="2 p.title-article-norm but no div#art_N"):
            parse(body=f'<div class="eli-container">{body}</div>')

    def test_no_reference_and_no_overrides_is_a_parse_error(self):
        with pytest.raises(ParseError, match="act=, version=, language="):
            parse(header="", title="A page")

    def test_an_article_heading_outside_any_article_container_fails_the_count(self):
        body = BODY.replace('<div id="anx_I">', p("Article 99", "title-article-norm") + '<div id="anx_I">')
        with pytest.raises(ParseError, match="6 in the markup but 5 article units"):
            parse(body=body)

    def test_a_heading_that_disagrees_with_its_div_id_is_a_parse_error(self):
        head = '<p class="title-article-norm">Article 4<'
        with pytest.raises(ParseError, match="disagrees"):
            parse(body=BODY.replace(head, head.replace("4", "44")))

    def test_an_explicit_version_that_is_not_an_iso_date_is_refused(self):
        with pytest.raises(ParseError, match="ISO date"):
            parse(version="01.04.2099")

    @pytest.mark.integration
    def test_an_oj_page_is_not_taken_for_a_consolidated_text(self, corpus):
        path = corpus / "32024R1689.oj.xhtml"
        with pytest.raises(FormatNotRecognised):
            parse_consolidated(read_html(path.read_bytes(), path), path)

    def test_an_unknown_point_label_is_reported_not_dropped(self):
        with pytest.raises(ParseError, match=r"\[x\]\*"):
            parse(body=BODY.replace("<span>ii) </span>", "<span>[x]* </span>"))


# ------------------------------------------------------------------------------------------------

REAL = "02024R1689-20240712.consolidated.nl.html"


@pytest.fixture(scope="module")
def real(corpus):
    return parse_consolidated(read_html((corpus / REAL).read_bytes(), corpus / REAL), corpus / REAL)


class TestRealNlFile:
    @pytest.mark.integration
    def test_metadata_names_the_base_act_at_the_consolidation_date(self, real):
        assert (real.act, real.version, real.language) == ("32024R1689", "2024-07-12", "nl")
        assert real.source_url.endswith("CELEX:02024R1689-20240712")

    @pytest.mark.integration
    def test_113_articles_no_recitals_13_annexes(self, real, corpus):
        raw = (corpus / REAL).read_bytes()
        # 14 p.title-annex-1, 13 annexes: Annex X marks its subtitle ("Wetgevingshandelingen van de Unie
        # over grootschalige IT-systemen …") title-annex-1 instead of title-annex-2; the Formex file
        # makes the same slip (ANNEX X and its subtitle both in TI). It is Annex X's title, not an annex.
        assert raw.count(b'class="title-annex-1"') == 14
        counts = real.counts()
        assert (counts["article"], counts.get("recital", 0), counts["annex"]) == (113, 0, 13)
        assert real.units[-1].unit.startswith("anx_XIII")

    @pytest.mark.integration
    def test_500_numbered_paragraphs_out_of_509_no_parag_labels(self, real, corpus):
        # 509 span.no-parag = 500 AI Act paragraphs + 9 paragraphs that Articles 105-109 insert into
        # other regulations, printed with an opening quote ("“5."): 4 as direct children of Articles
        # 105, 106, 107 and 109, 5 inside the points of Article 108. They are text, not AI Act units.
        raw = (corpus / REAL).read_bytes()
        assert raw.count(b'class="no-parag"') == 509
        assert real.counts()["paragraph"] == 500
        assert "art_105.par_5" not in {u.unit for u in real.units}

    @pytest.mark.integration
    def test_points_sections_and_the_deepest_ids(self, real):
        u = units(real)

        assert (real.counts()["point"], real.counts()["section"]) == (664, 7)
        assert u["art_5.par_1.pnt_h.pnt_iii"].text.startswith("iii) de lokalisatie of identificatie")
        assert u["art_3.pnt_14"].parent == "art_3"
        assert u["anx_I.sct_A.pnt_11"].parent == "anx_I.sct_A"
        assert u["anx_VII.pnt_3.pnt_1.pnt_a"].parent == "anx_VII.pnt_3.pnt_1"
        assert u["anx_XI.sct_1"].title.startswith("Bijlage XI, Afdeling 1 — Informatie die moet")

    @pytest.mark.integration
    def test_text_keeps_exponents_and_drops_footnote_calls(self, real):
        u = units(real)

        assert u["art_51.par_2"].text.endswith("groter is dan 10^25.")
        assert u["art_6"].title == "Artikel 6 — Classificatieregels voor AI-systemen met een hoog risico"
        assert "*1" not in u["art_102"].text and "de Raad, worden" in u["art_102"].text
        assert u["art_102"].footnotes[0].startswith("Verordening (EU) 2024/1689")

    @pytest.mark.integration
    def test_the_corrigendum_marker_in_article_73_marks_paragraphs_10_and_11(self, real):
        # 000.004 carries corrigenda only (C1, C2), no amending act: modified_by is empty, and the one
        # ▼C2 "RENUMBERED" marker covers Article 73(10)-(11) up to the next ▼B.
        assert real.modified_by == ()
        assert real.changed_units == (("art_73.par_10", "32024R1689R(04)"), ("art_73.par_11", "32024R1689R(04)"))

    @pytest.mark.integration
    def test_the_callers_tree_is_reusable(self, corpus, real):
        root = read_html((corpus / REAL).read_bytes(), corpus / REAL)
        again = copy.deepcopy(root)
        first = parse_consolidated(root, corpus / REAL)

        assert first.units == real.units
        assert etree.tostring(root) == etree.tostring(again)
