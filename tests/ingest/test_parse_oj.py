"""parse_oj: Official Journal XHTML (`oj-` classes, ELI divs) -> normative units."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lexcite.contract import ParsedAct
from lexcite.errors import FormatNotRecognised, ParseError
from lexcite.ingest._markup import read_html
from lexcite.ingest.detect import detect_html_format
from lexcite.ingest.load import read_document
from lexcite.ingest.parse_oj import parse_oj

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def parse_file(path: Path, **kw) -> ParsedAct:
    return parse_oj(read_html(path.read_bytes(), path), path, **kw)


def by_id(pa: ParsedAct) -> dict:
    return {u.unit: u for u in pa.units}


def children(pa: ParsedAct, parent: str) -> list[str]:
    return [u.unit for u in pa.units if u.parent == parent]


def top(pa: ParsedAct, kind: str) -> list[str]:
    return [u.unit for u in pa.units if u.kind == kind]


def point(label: str, text: str, inner: str = "") -> str:
    return (
        '<table width="100%" border="0" cellspacing="0" cellpadding="0"><col width="4%"/><col width="96%"/>'
        f'<tbody><tr><td valign="top"><p class="oj-normal">{label}</p></td>'
        f'<td valign="top"><p class="oj-normal">{text}</p>{inner}</td></tr></tbody></table>'
    )


def article(n: str, title: str, body: str) -> str:
    return (
        f'<div class="eli-subdivision" id="art_{n}"><p class="oj-ti-art">Article {n}</p>'
        f'<div class="eli-title" id="art_{n}.tit_1"><p class="oj-sti-art">{title}</p></div>{body}</div>'
    )


def oj_doc(
    enacting: str,
    *,
    date: str = "3.2.2025",
    lang: str = "EN",
    doc_title: str = "REGULATION (EU) 2025/42 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL",
    eli: str = "",
    recitals: int = 2,
    annex: str = "",
) -> bytes:
    header = ""
    if date:
        header += f'<p class="oj-hd-date">{date}</p>'
    if lang:
        header += f'<p class="oj-hd-lg">{lang}</p>'
    rcts = "".join(
        f'<div class="eli-subdivision" id="rct_{i}">{point(f"({i})", f"Recital text {i}.")}</div>'
        for i in range(1, recitals + 1)
    )
    eli_line = f'<p class="oj-normal">ELI: {eli}</p>' if eli else ""
    return f"""<html><head><title>Test</title></head><body>
<table><tbody><tr><td>{header}</td></tr></tbody></table>
<div class="eli-container">
<div class="eli-main-title" id="tit_1"><p class="oj-doc-ti">{doc_title}</p>
<p class="oj-doc-ti">of 1 February 2025</p><p class="oj-doc-ti">on testing</p>
<p class="oj-doc-ti">(Text with EEA relevance)</p></div>
<div class="eli-subdivision" id="pbl_1"><p class="oj-normal">Whereas:</p>{rcts}
<p class="oj-normal">HAVE ADOPTED THIS REGULATION:</p></div>
<div class="eli-subdivision" id="enc_1">{enacting}</div>
<div class="eli-subdivision" id="fnp_1"><div class="oj-final"><p class="oj-normal">Done at Brussels.</p></div></div>
</div>{annex}{eli_line}</body></html>""".encode()


def parse_bytes(data: bytes, **kw) -> ParsedAct:
    path = Path("test.html")
    return parse_oj(read_html(data, path), path, **kw)


SIMPLE = article(
    "1",
    "Subject matter",
    '<div id="001.001"><p class="oj-normal">1.   This Regulation lays down rules on:</p>'
    + point("(a)", "testing;")
    + point("(b)", "more testing.")
    + '</div><div id="001.002"><p class="oj-normal">2.   It applies from 10<span class="oj-super">3</span> days.'
    '<a id="ntc1-X" href="#ntr1-X"> (<span class="oj-super oj-note-tag">1</span>)</a>, really.</p></div>',
) + article("2", "Entry into force", '<p class="oj-normal">This Regulation shall enter into force.</p>')


# ---------------------------------------------------------------------------
# real documents (integration)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ai_act(corpus) -> ParsedAct:
    return parse_file(corpus / "32024R1689.oj.xhtml")


@pytest.fixture(scope="module")
def ai_act_nl(corpus) -> ParsedAct:
    return parse_file(corpus / "32024R1689.oj.nl.html")


@pytest.fixture(scope="module")
def gdpr(corpus) -> ParsedAct:
    return parse_file(corpus / "32016R0679.oj.html")


@pytest.fixture(scope="module")
def omnibus(corpus) -> ParsedAct:
    return parse_file(corpus / "32026R1744.oj.xhtml")


@pytest.fixture(scope="module")
def eudi(corpus) -> ParsedAct:
    return parse_file(corpus / "32024R2977.oj.html")


@pytest.mark.integration
class TestCountsOnRealActs:
    @pytest.mark.parametrize("fixture", ["ai_act", "ai_act_nl"])
    def test_the_ai_act_has_180_recitals_113_articles_and_13_annexes_in_both_languages(self, fixture, request):
        pa = request.getfixturevalue(fixture)
        assert len(top(pa, "recital")) == 180
        assert len(top(pa, "article")) == 113
        assert top(pa, "annex") == [f"anx_{n}" for n in "I II III IV V VI VII VIII IX X XI XII XIII".split()]

    def test_the_gdpr_has_173_recitals_99_articles_and_no_annex(self, gdpr):
        assert len(top(gdpr, "recital")) == 173
        assert len(top(gdpr, "article")) == 99
        assert top(gdpr, "annex") == []

    def test_the_omnibus_has_only_its_own_4_articles_and_47_recitals(self, omnibus):
        assert top(omnibus, "article") == ["art_1", "art_2", "art_3", "art_4"]
        assert len(top(omnibus, "recital")) == 47

    def test_the_eudi_implementing_regulation_has_6_articles_14_recitals_and_one_annex_anx_1(self, eudi):
        assert len(top(eudi, "article")) == 6
        assert len(top(eudi, "recital")) == 14
        assert top(eudi, "annex") == ["anx_1"]

    def test_every_numbered_paragraph_div_of_the_gdpr_becomes_a_paragraph(self, gdpr):
        assert len(top(gdpr, "paragraph")) == 372

    def test_recitals_run_from_1_to_n_in_document_order(self, ai_act):
        assert top(ai_act, "recital") == [f"rct_{i}" for i in range(1, 181)]


@pytest.mark.integration
class TestDetectedMetadata:
    def test_the_ai_act_is_detected_from_its_eli_line_and_oj_header(self, ai_act):
        assert (ai_act.act, ai_act.version, ai_act.language) == ("32024R1689", "2024-07-12", "en")
        assert (ai_act.format, ai_act.doc_kind) == ("oj", "regulation")

    def test_the_dutch_ai_act_is_detected_as_dutch_with_its_dutch_title(self, ai_act_nl):
        assert (ai_act_nl.act, ai_act_nl.version, ai_act_nl.language) == ("32024R1689", "2024-07-12", "nl")
        assert ai_act_nl.title.startswith("VERORDENING (EU) 2024/1689 VAN HET EUROPEES PARLEMENT")
        assert ai_act_nl.doc_kind == "regulation"
        assert by_id(ai_act_nl)["art_5"].title.startswith("Artikel 5 — ")

    def test_the_gdpr_without_eli_line_is_identified_by_its_doc_title(self, gdpr):
        assert (gdpr.act, gdpr.version, gdpr.language) == ("32016R0679", "2016-05-04", "en")

    def test_the_omnibus_is_identified_by_its_own_eli_line_not_the_ones_in_its_footnotes(self, omnibus):
        assert (omnibus.act, omnibus.version, omnibus.language) == ("32026R1744", "2026-07-24", "en")

    def test_an_implementing_regulation_is_a_regulation(self, eudi):
        assert (eudi.act, eudi.doc_kind) == ("32024R2977", "regulation")

    def test_the_title_is_the_full_title_without_the_eea_relevance_line(self, ai_act):
        assert ai_act.title.startswith("REGULATION (EU) 2024/1689 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL"
                                       " of 13 June 2024 laying down harmonised rules on artificial intelligence")
        assert ai_act.title.endswith("(Artificial Intelligence Act)")
        assert "EEA relevance" not in ai_act.title

    def test_every_unit_carries_the_act_version_language_and_binding_flag(self, ai_act):
        assert {(u.act, u.version, u.language, u.binding) for u in ai_act.units} == {
            ("32024R1689", "2024-07-12", "en", True)
        }


@pytest.mark.integration
class TestArticleStructure:
    def test_article_3_definitions_hang_from_the_article_as_points_1_to_68(self, ai_act):
        assert children(ai_act, "art_3") == [f"art_3.pnt_{i}" for i in range(1, 69)]
        assert by_id(ai_act)["art_3.pnt_1"].title == "Article 3, point (1) — Definitions"

    def test_article_4_without_paragraphs_or_points_is_a_single_unit(self, ai_act):
        u = by_id(ai_act)["art_4"]
        assert children(ai_act, "art_4") == []
        assert u.text.startswith("Providers and deployers of AI systems shall take measures")
        assert u.title == "Article 4 — AI literacy"

    def test_article_5_has_exactly_its_8_paragraphs(self, ai_act):
        assert children(ai_act, "art_5") == [f"art_5.par_{i}" for i in range(1, 9)]

    def test_points_and_sub_points_nest_under_their_paragraph(self, ai_act):
        units = by_id(ai_act)
        assert units["art_5.par_1.pnt_a"].parent == "art_5.par_1"
        assert children(ai_act, "art_5.par_1.pnt_h") == [f"art_5.par_1.pnt_h.pnt_{r}" for r in ("i", "ii", "iii")]
        assert units["art_5.par_1.pnt_h.pnt_iii"].title == "Article 5(1), point (h)(iii) — Prohibited AI practices"

    def test_a_paragraph_is_titled_with_its_article_number_and_heading(self, ai_act):
        assert by_id(ai_act)["art_6.par_2"].title == "Article 6(2) — Classification rules for high-risk AI systems"
        assert by_id(ai_act)["art_6.par_2"].kind == "paragraph"

    def test_a_paragraph_text_contains_the_text_of_its_points(self, ai_act):
        units = by_id(ai_act)
        par = units["art_5.par_1"]
        assert par.text.startswith("1. The following AI practices shall be prohibited:")
        for pid in children(ai_act, "art_5.par_1"):
            assert units[pid].text in par.text
        assert units["art_5.par_1.pnt_h.pnt_iii"].text in units["art_5.par_1.pnt_h"].text

    def test_an_article_text_is_the_whole_article_without_its_heading(self, ai_act):
        units = by_id(ai_act)
        art = units["art_6"]
        assert not art.text.startswith("Article 6")
        for pid in children(ai_act, "art_6"):
            assert units[pid].text in art.text

    def test_the_paragraph_number_comes_from_the_div_id_even_when_the_text_misnumbers_it(self, ai_act_nl):
        # The Dutch OJ text numbers Article 73(10) as "11." (two paragraphs read "11.").
        units = by_id(ai_act_nl)
        assert children(ai_act_nl, "art_73") == [f"art_73.par_{i}" for i in range(1, 12)]
        assert units["art_73.par_10"].text.startswith("11. Voor AI-systemen met een hoog risico")

    def test_a_second_run_of_points_with_the_same_labels_stays_text_of_the_paragraph(self, ai_act):
        # Article 43(1) lists (a), (b) in its first subparagraph and again in a later one.
        units = by_id(ai_act)
        assert children(ai_act, "art_43.par_1") == ["art_43.par_1.pnt_a", "art_43.par_1.pnt_b"]
        assert units["art_43.par_1.pnt_a"].text.startswith("(a) the internal control referred to in Annex VI")
        assert "(d) one or more of the harmonised standards referred to in point (a)" in units["art_43.par_1"].text


@pytest.mark.integration
class TestQuotedTextOfAmendingProvisions:
    def test_paragraph_divs_quoted_in_articles_102_to_110_never_become_units_of_the_quoted_article(self, ai_act):
        units = by_id(ai_act)
        art5 = [u for u in ai_act.units if u.unit.startswith("art_5.")]
        assert not any(u.unit.startswith("art_5.par_12") for u in art5)
        assert units["art_5.par_4"].text.startswith("4. Without prejudice to paragraph 3")
        assert "Regulation (EU) 2018/858" not in " ".join(u.text for u in art5)
        for quoting in ("art_102", "art_103", "art_104", "art_105", "art_106", "art_107", "art_109", "art_110"):
            assert all(u.kind == "point" for u in ai_act.units if u.parent == quoting)

    def test_the_quoted_paragraph_is_text_of_the_quoting_article(self, ai_act):
        art107 = by_id(ai_act)["art_107"]
        assert "‘4. When adopting delegated acts pursuant to paragraph 3" in art107.text
        assert children(ai_act, "art_107") == []

    def test_a_quoted_point_label_does_not_make_a_point(self, ai_act):
        # Article 110 adds "‘(68) Regulation (EU) 2024/1689 ..." to Annex I of Directive (EU) 2020/1828.
        assert children(ai_act, "art_110") == []
        assert "‘(68) Regulation (EU) 2024/1689" in by_id(ai_act)["art_110"].text

    def test_the_omnibus_quoted_article_4a_is_text_of_article_1_point_6(self, omnibus):
        units = by_id(omnibus)
        assert "art_4a" not in units
        assert not any(u.unit.startswith(("art_4a", "art_60a", "art_75")) for u in omnibus.units)
        assert "‘Article 4a Processing of special categories of personal data" in units["art_1.pnt_6"].text
        assert "‘Article 4a" in units["art_1"].text
        assert children(omnibus, "art_1.pnt_6") == []

    def test_the_omnibus_amending_points_keep_their_own_sub_points_but_not_the_quoted_ones(self, omnibus):
        units = by_id(omnibus)
        assert children(omnibus, "art_1") == [f"art_1.pnt_{i}" for i in range(1, 44)]
        assert children(omnibus, "art_1.pnt_2") == ["art_1.pnt_2.pnt_a", "art_1.pnt_2.pnt_b"]
        # (4)(b) inserts ‘(14a) … (14b) …’: quoted points, not sub-points of (4)(b).
        assert children(omnibus, "art_1.pnt_4.pnt_b") == []
        assert "(14b)" in units["art_1.pnt_4.pnt_b"].text
        # (1) replaces point (g): ‘(g) … is quoted, not a point of (1).
        assert children(omnibus, "art_1.pnt_1") == []

    def test_no_omnibus_unit_is_deeper_than_an_amending_point_and_its_sub_point(self, omnibus):
        assert max(u.unit.count(".") for u in omnibus.units) == 2


@pytest.mark.integration
class TestText:
    def test_an_exponent_is_written_with_a_caret(self, ai_act):
        assert "greater than 10^25" in by_id(ai_act)["art_51.par_2"].text

    def test_footnote_markers_are_out_of_the_text_and_the_footnotes_are_kept(self, ai_act):
        art110 = by_id(ai_act)["art_110"]
        assert "of the Council, the following point is added:" in art110.text
        assert "(58)" not in art110.text
        assert any("Directive (EU) 2020/1828" in f for f in art110.footnotes)

    def test_footnote_bodies_inside_amending_points_are_not_text(self, ai_act):
        # Article 108 carries the body of its (*) footnote inside point (1).
        pnt = by_id(ai_act)["art_108.pnt_1"]
        assert "OJ L, 2024/1689" not in pnt.text

    def test_no_unit_text_has_a_space_before_a_comma_left_by_a_footnote_marker(self, gdpr):
        assert not [u.unit for u in gdpr.units if re.search(r"\w ,", u.text)]

    def test_whitespace_is_normalised(self, ai_act):
        for u in ai_act.units:
            assert u.text == u.text.strip()
            assert "  " not in u.text and "\u00a0" not in u.text and "\n" not in u.text

    def test_a_recital_text_is_its_content_without_the_number(self, ai_act):
        rct = by_id(ai_act)["rct_1"]
        assert rct.title == "Recital 1"
        assert rct.text.startswith("The purpose of this Regulation is to improve the functioning")


@pytest.mark.integration
class TestAnnexes:
    def test_an_annex_is_titled_with_its_number_and_heading(self, ai_act):
        assert by_id(ai_act)["anx_III"].title == "Annex III — High-risk AI systems referred to in Article 6(2)"

    def test_annex_points_and_their_sub_points_hang_from_the_annex(self, ai_act):
        assert children(ai_act, "anx_III") == [f"anx_III.pnt_{i}" for i in range(1, 9)]
        assert "anx_III.pnt_4.pnt_a" in by_id(ai_act)

    def test_annex_sections_hold_their_points(self, ai_act):
        units = by_id(ai_act)
        assert children(ai_act, "anx_I") == ["anx_I.sct_A", "anx_I.sct_B"]
        assert units["anx_I.sct_A"].kind == "section"
        assert units["anx_I.sct_A.pnt_11"].text.startswith("11. Regulation (EU) 2017/745")
        assert units["anx_I.sct_B.pnt_20"].parent == "anx_I.sct_B"

    def test_a_section_heading_on_two_lines_gets_its_title_line(self, ai_act):
        assert by_id(ai_act)["anx_XI.sct_2"].title.startswith("Annex XI, Section 2 — Additional information")

    def test_numbered_annex_headings_hold_their_dotted_points(self, ai_act):
        units = by_id(ai_act)
        assert units["anx_VII.pnt_3"].title == "Annex VII, point 3 — Quality management system"
        assert units["anx_VII.pnt_3.pnt_1"].text.startswith("3.1. The application of the provider")
        assert "anx_VII.pnt_3.pnt_1.pnt_a" in units

    def test_dash_indents_are_text_not_points(self, ai_act):
        assert children(ai_act, "anx_II") == []
        assert "— terrorism," in by_id(ai_act)["anx_II"].text

    def test_an_unnumbered_single_annex_is_anx_1_and_its_data_tables_are_not_points(self, eudi):
        units = by_id(eudi)
        assert units["anx_1"].title.startswith("Annex — TECHNICAL SPECIFICATIONS")
        assert "family_name" in units["anx_1"].text
        assert not any("family" in u.unit for u in eudi.units)


@pytest.mark.integration
class TestSourceUrls:
    def test_a_paragraph_links_to_its_div_anchor(self, ai_act):
        assert by_id(ai_act)["art_6.par_2"].source_url == (
            "https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:32024R1689#006.002"
        )

    def test_a_point_links_to_its_paragraph(self, ai_act):
        assert by_id(ai_act)["art_5.par_1.pnt_h.pnt_iii"].source_url.endswith("#005.001")
        assert by_id(ai_act)["art_3.pnt_14"].source_url.endswith("#art_3")

    def test_recitals_articles_and_annexes_link_to_their_ids(self, ai_act):
        units = by_id(ai_act)
        assert units["rct_12"].source_url.endswith("#rct_12")
        assert units["art_6"].source_url.endswith("#art_6")
        assert units["anx_III"].source_url.endswith("#anx_III")

    def test_a_dutch_unit_links_to_the_dutch_page(self, ai_act_nl):
        assert "/NL/TXT/HTML/" in by_id(ai_act_nl)["art_6"].source_url


@pytest.mark.integration
class TestUnitInvariants:
    @pytest.mark.parametrize("fixture", ["ai_act", "ai_act_nl", "gdpr", "omnibus", "eudi"])
    def test_parents_precede_children_and_positions_follow_document_order(self, fixture, request):
        pa = request.getfixturevalue(fixture)
        seen: set[str] = set()
        for i, u in enumerate(pa.units):
            assert u.position == i
            assert u.parent is None or u.parent in seen
            assert u.parent is None or u.unit.startswith(u.parent + ".")
            seen.add(u.unit)
        assert len(seen) == len(pa.units)

    def test_the_callers_tree_is_left_whole(self, corpus):
        path = corpus / "32024R1689.oj.xhtml"
        root = read_html(path.read_bytes(), path)
        notes = len(root.xpath("//p[contains(@class, 'oj-note')]"))
        parse_oj(root, path)
        assert len(root.xpath("//p[contains(@class, 'oj-note')]")) == notes > 0


# ---------------------------------------------------------------------------
# small synthetic documents (unit)
# ---------------------------------------------------------------------------


class TestDetectionOnSmallDocuments:
    def test_the_doc_title_gives_the_celex_when_there_is_no_eli_line(self):
        pa = parse_bytes(oj_doc(SIMPLE))
        assert (pa.act, pa.version, pa.language, pa.doc_kind) == ("32025R0042", "2025-02-03", "en", "regulation")

    def test_the_eli_line_gives_the_celex_and_the_type_letter(self):
        pa = parse_bytes(oj_doc(SIMPLE, doc_title="DIRECTIVE (EU) 2025/7 OF THE EUROPEAN PARLIAMENT",
                                eli="http://data.europa.eu/eli/dir/2025/7/oj"))
        assert (pa.act, pa.doc_kind) == ("32025L0007", "directive")

    def test_a_decision_is_a_d(self):
        pa = parse_bytes(oj_doc(SIMPLE, doc_title="COUNCIL DECISION (EU) 2025/99"))
        assert (pa.act, pa.doc_kind) == ("32025D0099", "decision")

    def test_explicit_arguments_override_what_is_detected(self):
        pa = parse_bytes(oj_doc(SIMPLE), act="32025R0099", version="2025-03-01", language="de", binding=False)
        assert (pa.act, pa.version, pa.language, pa.binding) == ("32025R0099", "2025-03-01", "de", False)
        assert all(u.act == "32025R0099" and u.language == "de" and not u.binding for u in pa.units)

    def test_a_missing_date_names_the_version_option(self):
        with pytest.raises(ParseError, match="--version"):
            parse_bytes(oj_doc(SIMPLE, date=""))

    def test_a_missing_language_names_the_language_option(self):
        with pytest.raises(ParseError, match="--language"):
            parse_bytes(oj_doc(SIMPLE, lang=""))

    def test_an_unidentifiable_act_names_the_celex_option(self):
        with pytest.raises(ParseError, match="--celex"):
            parse_bytes(oj_doc(SIMPLE, doc_title="SOMETHING WITHOUT A NUMBER"))

    def test_an_explicit_version_that_is_not_a_date_names_the_version_option(self):
        with pytest.raises(ParseError, match="--version"):
            parse_bytes(oj_doc(SIMPLE), version="12.7.2024")

    def test_the_language_falls_back_to_the_formex_file_name_in_the_title(self):
        data = oj_doc(SIMPLE, lang="").replace(b"<title>Test</title>", b"<title>L_202500042FR.000101.fmx.xml</title>")
        assert parse_bytes(data).language == "fr"


class TestStructureOnSmallDocuments:
    def test_paragraphs_points_and_single_unit_articles_get_their_ids(self):
        pa = parse_bytes(oj_doc(SIMPLE))
        assert [u.unit for u in pa.units] == [
            "rct_1", "rct_2", "art_1", "art_1.par_1", "art_1.par_1.pnt_a", "art_1.par_1.pnt_b", "art_1.par_2",
            "art_2",
        ]

    def test_text_has_exponents_and_no_footnote_markers(self):
        par = by_id(parse_bytes(oj_doc(SIMPLE)))["art_1.par_2"]
        assert par.text == "2. It applies from 10^3 days., really."

    def test_an_indented_dash_list_is_text_of_its_paragraph(self):
        body = article("1", "Scope", '<div id="001.001"><p class="oj-normal">1.   Lists:</p>'
                       + point("—", "first,") + point("—", "second.") + "</div>")
        pa = parse_bytes(oj_doc(body))
        assert children(pa, "art_1.par_1") == []
        assert by_id(pa)["art_1.par_1"].text == "1. Lists: — first, — second."

    def test_a_quoted_paragraph_introduced_by_a_colon_hides_the_points_that_follow_it(self):
        body = article("1", "Amendment", '<p class="oj-normal">In Article 3, the following is added:</p>'
                       '<p class="oj-normal">‘4. The following shall apply:</p>'
                       + point("(a)", "quoted point;") + point("(b)", "quoted point.’"))
        pa = parse_bytes(oj_doc(body))
        assert children(pa, "art_1") == []

    def test_a_defined_term_in_quotes_is_not_a_quotation(self):
        body = article("1", "Definitions", '<p class="oj-normal">For the purposes of this Regulation:</p>'
                       '<p class="oj-normal">‘thing’ means any of the following:</p>'
                       + point("(a)", "a chair;") + point("(b)", "a table."))
        pa = parse_bytes(oj_doc(body))
        assert children(pa, "art_1") == ["art_1.pnt_a", "art_1.pnt_b"]


class TestRefusals:
    def test_a_document_without_articles_is_not_recognised(self):
        with pytest.raises(FormatNotRecognised):
            parse_bytes(b"<html><body><p class='oj-normal'>Nothing here</p></body></html>")

    def test_an_article_div_without_its_heading_is_refused_rather_than_dropped(self):
        body = SIMPLE + '<div class="eli-subdivision" id="art_3"><p class="oj-normal">Headless.</p></div>'
        with pytest.raises(ParseError, match="articles"):
            parse_bytes(oj_doc(body))

    def test_a_gap_in_the_article_numbers_is_refused(self):
        body = article("1", "One", "<p class='oj-normal'>x</p>") + article("3", "Three", "<p class='oj-normal'>y</p>")
        with pytest.raises(ParseError, match="sequence"):
            parse_bytes(oj_doc(body))

    def test_a_paragraph_div_nested_where_it_is_not_read_is_refused(self):
        body = article("1", "One", '<div><div id="001.001"><p class="oj-normal">1.   Wrapped.</p></div></div>')
        with pytest.raises(ParseError, match="paragraphs"):
            parse_bytes(oj_doc(body))

    def test_a_recital_whose_label_disagrees_with_its_div_id_is_refused(self):
        data = oj_doc(SIMPLE).replace(b'<p class="oj-normal">(2)</p>', b'<p class="oj-normal">(3)</p>')
        with pytest.raises(ParseError, match="recital"):
            parse_bytes(data)

    def test_a_heading_that_disagrees_with_its_div_id_is_refused(self):
        body = article("1", "One", "<p class='oj-normal'>x</p>").replace(">Article 1<", ">Article 7<")
        with pytest.raises(ParseError, match="disagrees"):
            parse_bytes(oj_doc(body))


class TestFlatLayout:
    def test_oj_classes_without_eli_divs_are_their_own_detected_format_read_as_the_flat_layout(self, tmp_path):
        old = (FIXTURES / "old_oj.html").read_text(encoding="utf-8")
        flat_oj = re.sub(r'class="([a-z-]+)', lambda m: f'class="oj-{m[1]}', old).encode()
        path = tmp_path / "flat.html"
        path.write_bytes(flat_oj)

        assert detect_html_format(read_html(flat_oj, path), path) == "oj_flat"
        with pytest.raises(FormatNotRecognised, match="flat layout"):
            parse_bytes(flat_oj)  # parse_oj reads ELI divs only; detection chose the flat reader once
        pa, _sha = read_document(path)
        assert pa.format == "oj"
        assert pa.act == "32009L0997"
        assert "art_3.par_1.pnt_b.pnt_ii" in by_id(pa)
        assert top(pa, "article") == ["art_1", "art_2", "art_3", "art_4", "art_5"]
