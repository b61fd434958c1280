"""The batch-2 documents of ../shared/corpus/raw (SOURCES.md, "Batch 2"): exact counts per file, the
traps SOURCES.md lists, and the same units from two manifestations of one version.

Counts are of units built; where the raw markup count differs, the test shows both and why.
"""

from __future__ import annotations

import re

import pytest

from lexcite.errors import ParseError
from lexcite.ingest.load import Overrides, read_document

pytestmark = pytest.mark.integration

_cache: dict[tuple[str, tuple], object] = {}


@pytest.fixture(scope="module")
def parse(corpus):
    def run(name: str, **overrides):
        key = (name, tuple(sorted(overrides.items())))
        if key not in _cache:
            _cache[key] = read_document(corpus / name, Overrides(**overrides))[0]
        return _cache[key]

    return run


def units(parsed) -> dict:
    return {u.unit: u for u in parsed.units}


def ids(parsed, kind: str) -> list[str]:
    return [u.unit for u in parsed.units if u.kind == kind]


# name, (act, version, format), {kind: count}
COUNTS = [
    ("32022R2065.oj.xhtml", ("32022R2065", "2022-10-27", "oj"),
     {"recital": 156, "article": 93, "paragraph": 352, "point": 333}),
    ("fmx4/32022R2065", ("32022R2065", "2022-10-27", "formex"),
     {"recital": 156, "article": 93, "paragraph": 352, "point": 333}),
    ("fmx4/32022R2065.fmx4.zip", ("32022R2065", "2022-10-27", "formex"),
     {"recital": 156, "article": 93, "paragraph": 352, "point": 333}),
    ("32022R1925.oj.xhtml", ("32022R1925", "2022-10-12", "oj"),
     {"recital": 109, "article": 54, "paragraph": 229, "point": 201, "annex": 1, "section": 5}),
    ("fmx4/32022R1925", ("32022R1925", "2022-10-12", "formex"),
     {"recital": 109, "article": 54, "paragraph": 229, "point": 201, "annex": 1, "section": 5}),
    ("32023R2854.oj.xhtml", ("32023R2854", "2023-12-22", "oj"),
     {"recital": 119, "article": 50, "paragraph": 223, "point": 258}),
    ("fmx4/32023R2854", ("32023R2854", "2023-12-22", "formex"),
     {"recital": 119, "article": 50, "paragraph": 223, "point": 258}),
    ("32022R0868.oj.xhtml", ("32022R0868", "2022-06-03", "oj"),
     {"recital": 63, "article": 38, "paragraph": 132, "point": 163}),
    ("32022R0868.oj.html", ("32022R0868", "2022-06-03", "oj"),
     {"recital": 63, "article": 38, "paragraph": 132, "point": 163}),
    ("32016R0679.oj.xhtml", ("32016R0679", "2016-05-04", "oj"),
     {"recital": 173, "article": 99, "paragraph": 372, "point": 385}),
    ("fmx4/32016R0679", ("32016R0679", "2016-05-04", "formex"),
     {"recital": 173, "article": 99, "paragraph": 372, "point": 385}),
    ("32024R1689.oj.cellar.xhtml", ("32024R1689", "2024-07-12", "oj"),
     {"recital": 180, "article": 113, "paragraph": 500, "point": 664, "annex": 13, "section": 7}),
    ("fmx4/32019R0881", ("32019R0881", "2019-06-07", "formex"),
     {"recital": 110, "article": 69, "paragraph": 250, "point": 237, "annex": 1}),
    ("32024R2981.oj.html", ("32024R2981", "2024-12-04", "oj"),
     {"recital": 29, "article": 22, "paragraph": 56, "point": 210, "annex": 9, "section": 4}),
    ("fmx4/32024R2981", ("32024R2981", "2024-12-04", "formex"),
     {"recital": 29, "article": 22, "paragraph": 56, "point": 210, "annex": 9, "section": 4}),
    ("02016R0679-20160504.consolidated.en.xhtml", ("32016R0679", "2016-05-04", "consolidated"),
     {"article": 99, "paragraph": 372, "point": 385}),
    ("02002L0058-20091219.consolidated.en.html", ("32002L0058", "2009-12-19", "consolidated"),
     {"article": 23, "paragraph": 58, "point": 10}),
    ("fmx4/32024R1183", ("32024R1183", "2024-04-30", "formex"),
     {"recital": 78, "article": 2, "point": 104, "annex": 7}),
    ("fmx4/32026R1744", ("32026R1744", "2026-07-24", "formex"),
     {"recital": 47, "article": 4, "point": 101}),
    ("fmx4/02024R1689-20260727", ("32024R1689", "2026-07-27", "formex_consolidated"),
     {"article": 119, "paragraph": 552, "point": 726, "annex": 14, "section": 7}),
    ("fmx4/02014R0910-20241018", ("32014R0910", "2024-10-18", "formex_consolidated"),
     {"article": 82, "paragraph": 314, "point": 383, "annex": 7}),
    ("fmx4/02014R0910-20241018.fmx4.zip", ("32014R0910", "2024-10-18", "formex_consolidated"),
     {"article": 82, "paragraph": 314, "point": 383, "annex": 7}),
]


@pytest.mark.parametrize(("name", "meta", "counts"), COUNTS, ids=[c[0] for c in COUNTS])
def test_each_document_parses_with_its_counts(parse, name, meta, counts):
    parsed = parse(name)

    assert (parsed.act, parsed.version, parsed.format) == meta
    assert parsed.counts() == counts


def test_change_marker_glyphs_reach_no_title_and_no_text(parse):
    # consolidated texts mark changes "►M2 Security of processing ◄", in headings too
    for name, _meta, _counts in COUNTS:
        marked = [u.unit for u in parse(name).units if any(ch in u.title + u.text for ch in "►▼◄")]
        assert marked == [], name


def test_articles_and_recitals_run_in_sequence_in_every_original(parse):
    for name, _meta, counts in COUNTS:
        parsed = parse(name)
        if "recital" in counts:
            assert ids(parsed, "recital") == [f"rct_{n}" for n in range(1, counts["recital"] + 1)], name


# -- two manifestations of one version ------------------------------------------------------------

PAIRS = [
    ("32022R2065.oj.xhtml", "fmx4/32022R2065", {}),
    ("32022R1925.oj.xhtml", "fmx4/32022R1925", {}),
    ("32023R2854.oj.xhtml", "fmx4/32023R2854", {}),
    ("32022R0868.oj.xhtml", "fmx4/32022R0868/L_2022152EN.01000101.xml", {"version": "2022-06-03"}),
    ("32022R0868.oj.xhtml", "32022R0868.oj.html", {}),
    ("32016R0679.oj.xhtml", "fmx4/32016R0679", {}),
    ("32016R0679.oj.xhtml", "32016R0679.oj.html", {}),
    ("32024R2981.oj.html", "fmx4/32024R2981", {}),
    ("32026R1744.oj.xhtml", "fmx4/32026R1744", {}),
    ("32024R1689.oj.cellar.xhtml", "32024R1689.oj.xhtml", {}),
]


@pytest.mark.parametrize(("html", "other", "overrides"), PAIRS, ids=[f"{a}~{b}" for a, b, _ in PAIRS])
def test_two_manifestations_of_one_version_give_the_same_units(parse, html, other, overrides):
    a, b = parse(html), parse(other, **overrides)

    assert (a.act, a.version, a.language) == (b.act, b.version, b.language)
    assert [(u.unit, u.kind, u.parent, u.title, u.text) for u in a.units] == [
        (u.unit, u.kind, u.parent, u.title, u.text) for u in b.units]


def test_the_consolidated_gdpr_of_4_may_2016_has_the_oj_texts_of_every_article_unit(parse):
    oj, cons = units(parse("32016R0679.oj.xhtml")), units(parse("02016R0679-20160504.consolidated.en.xhtml"))

    assert [k for k in oj if not k.startswith("rct_")] == list(cons)
    # Every unit whose own text differs carries a corrigendum marker (►C1: 32016R0679R(02)); its
    # ancestors differ only by containing it.
    differ = [k for k in cons if cons[k].text != oj[k].text]
    leaves = [k for k in differ if not any(d.startswith(k + ".") for d in differ)]
    changed = dict(parse("02016R0679-20160504.consolidated.en.xhtml").changed_units)
    assert len(leaves) == 16 and all(k in changed for k in leaves)


# -- the traps SOURCES.md lists -------------------------------------------------------------------

class TestTraps:
    def test_the_data_acts_whereas_div_is_not_a_recital_and_ids_follow_the_printed_numbers(self, parse, corpus):
        raw = (corpus / "32023R2854.oj.xhtml").read_text(encoding="utf-8")
        assert len(set(re.findall(r'id="rct_(\d+)"', raw))) == 120  # "Whereas:" sits in div#rct_1

        for name in ("32023R2854.oj.xhtml", "fmx4/32023R2854"):
            u = units(parse(name))
            assert u["rct_1"].text.startswith("In recent years, data-driven technologies"), name
            assert u["rct_119"].title == "Recital 119" and "rct_120" not in u, name
            assert not any(x.text.startswith("Whereas") for x in u.values()), name
        # The OJ link still opens the div that holds recital (1).
        assert units(parse("32023R2854.oj.xhtml"))["rct_1"].source_url.endswith("#rct_2")

    def test_annex_files_only_included_not_listed_in_the_manifest_are_read(self, parse, corpus):
        manifest = (corpus / "fmx4/32024R1183/L_202401183EN.doc.fmx.xml").read_text(encoding="utf-8")
        assert "005402" not in manifest and "005502" not in manifest and "005602" not in manifest

        u = units(parse("fmx4/32024R1183"))
        assert u["anx_V"].title == "Annex V"
        assert u["anx_V"].text.startswith("‘ANNEX V REQUIREMENTS FOR QUALIFIED ELECTRONIC ATTESTATION OF ATTRIBUTES")
        assert "anx_V.pnt_a" not in u  # the quoted annex of 910/2014 is text, not points of 2024/1183

    def test_a_package_file_nothing_lists_or_includes_is_refused(self, corpus, tmp_path):
        # Take out Annex V's heading file (the one that includes .005402) and its manifest entry:
        # .005402 is then in the package but nothing reads it, so the parse stops instead of dropping it.
        for f in (corpus / "fmx4/32024R1183").iterdir():
            if f.name != "L_202401183EN.005401.fmx.xml":
                (tmp_path / f.name).write_bytes(f.read_bytes())
        manifest = tmp_path / "L_202401183EN.doc.fmx.xml"
        text = manifest.read_text(encoding="utf-8")
        entry = '<REF.PHYS FILE="L_202401183EN.005401.fmx.xml" TYPE="DOC.XML"/>'
        assert entry in text
        manifest.write_text(text.replace(entry, ""), encoding="utf-8")

        unread = r"in the package but neither listed .* \(at L_202401183EN\.005402\.fmx\.xml\)"
        with pytest.raises(ParseError, match=unread):
            read_document(tmp_path)

    def test_the_omnibus_includes_its_new_annex_xiv_as_text_of_article_1_point_43(self, parse):
        u = units(parse("fmx4/32026R1744"))

        assert "anx_XIV" not in u and ids(parse("fmx4/32026R1744"), "annex") == []
        assert u["art_1.pnt_43"].text.startswith("(43) the following Annex is added: ‘Annex XIV The list of codes")

    def test_2024_1183_keeps_its_41_quoted_articles_out_of_its_own_units(self, parse, corpus):
        main = (corpus / "fmx4/32024R1183/L_202401183EN.000101.fmx.xml").read_text(encoding="utf-8")
        assert main.count("<ARTICLE ") == 43

        parsed = parse("fmx4/32024R1183")
        assert ids(parsed, "article") == ["art_1", "art_2"]
        art_1 = units(parsed)["art_1"].text
        assert "Article 5a European Digital Identity Wallets 1. For the purpose of ensuring" in art_1
        assert not any(u.unit.startswith("art_5a") for u in parsed.units)

    def test_headings_with_no_break_spaces_number_like_plain_ones(self, parse, corpus):
        raw = (corpus / "02002L0058-20091219.consolidated.en.html").read_text(encoding="utf-8")
        assert "Article\xa03" in raw and "Article 4" in raw

        eprivacy = ids(parse("02002L0058-20091219.consolidated.en.html"), "article")
        assert eprivacy == [f"art_{n}" for n in (*range(1, 15), "14a", 15, "15a", *range(16, 22))]
        eidas_raw = (corpus / "fmx4/02014R0910-20241018/CL2014R0910EN0020030.0001.xml").read_text(encoding="utf-8")
        assert "ANNEX\xa0V" in eidas_raw and "ANNEX I<" in eidas_raw
        assert ids(parse("fmx4/02014R0910-20241018"), "annex") == [f"anx_{n}" for n in
                                                                   ("I", "II", "III", "IV", "V", "VI", "VII")]

    def test_the_txt_html_wrapper_with_rewritten_links_gives_the_raw_cellar_units(self, parse, corpus):
        wrapper = (corpus / "32022R0868.oj.html").read_text(encoding="utf-8")
        assert "legal-content/EN/AUTO/?uri=OJ:C:2021:286:TOC" in wrapper

        a, b = parse("32022R0868.oj.xhtml"), parse("32022R0868.oj.html")
        assert a.units == b.units
        assert not any("AUTO/?uri" in u.source_url or "AUTO/?uri" in " ".join(u.footnotes) for u in b.units)

    def test_the_dga_formex_without_its_manifest_needs_the_version_and_says_so(self, corpus):
        with pytest.raises(ParseError, match="no OJ publication date"):
            read_document(corpus / "fmx4/32022R0868/L_2022152EN.01000101.xml")

    def test_numbered_cells_of_a_formex_table_are_text_as_in_the_oj(self, parse):
        u = units(parse("fmx4/32024R2981"))

        assert "Theft" in u["anx_I"].text and not any(k.startswith("anx_I.pnt_") for k in u)


# -- consolidated Formex ---------------------------------------------------------------------------

class TestConsolidatedFormex:
    def test_the_ai_act_of_27_july_2026_names_the_omnibus_and_its_changed_units(self, parse):
        parsed = parse("fmx4/02024R1689-20260727")
        changed = dict(parsed.changed_units)

        assert parsed.modified_by == ("32026R1744",)
        assert parsed.source_url.endswith("CELEX:02024R1689-20260727")
        assert [i for i in ids(parsed, "article") if not i[4:].isdigit()] == [
            "art_4a", "art_60a", "art_75a", "art_75b", "art_75c", "art_75d"]
        assert ids(parsed, "annex")[-1] == "anx_XIV"
        # A whole replaced point, an inserted article, and a marker inside one point's text.
        assert changed["art_1.par_2.pnt_g"] == changed["art_4a"] == "32026R1744"
        assert changed["anx_VIII.sct_B.pnt_8"] == "32026R1744"
        assert "art_6.par_1" not in changed

    def test_deleted_provisions_between_markers_are_neither_units_nor_text(self, parse, corpus):
        raw = (corpus / "fmx4/02024R1689-20260727/CL2024R1689EN0010010.0001.xml").read_text(encoding="utf-8")
        assert '<PARAG IDENTIFIER="010.005">' in raw and raw.count('ACTION="DELETED"') == 4

        u = units(parse("fmx4/02024R1689-20260727"))
        assert "art_10.par_5" not in u and "art_10.par_6" in u
        assert "anx_VIII.sct_B.pnt_7" not in u and "anx_VIII.sct_B.pnt_9" not in u
        assert "Directive 2006/42/EC" not in u["anx_I.sct_A"].text

    def test_eidas_keeps_85_article_elements_of_which_3_are_deleted(self, parse, corpus):
        raw = (corpus / "fmx4/02014R0910-20241018/CL2014R0910EN0020030.0001.xml").read_text(encoding="utf-8")
        assert raw.count("<ARTICLE ") == 85

        parsed = parse("fmx4/02014R0910-20241018")
        arts = ids(parsed, "article")
        # Articles 17 and 18 deleted by 2024/1183, Article 19 by NIS2 (Directive 2022/2555, Article 42).
        assert len(arts) == 82 and {"art_17", "art_18", "art_19"}.isdisjoint(arts) and "art_19a" in arts
        assert parsed.modified_by == ("32022L2555", "32024R1183")
        assert dict(parsed.changed_units)["art_5a"] == "32024R1183"

    def test_a_consolidated_file_without_a_start_date_says_what_is_missing(self, tmp_path):
        f = tmp_path / "CL.xml"
        f.write_text('<?xml version="1.0"?><CONS.ACT><INFO.CONSLEG CONSLEG.REF="2099R0001"/><CONS.DOC>'
                     "<BIB.INSTANCE><LG.DOC>EN</LG.DOC></BIB.INSTANCE></CONS.DOC></CONS.ACT>", encoding="utf-8")

        with pytest.raises(ParseError, match="START.DATE"):
            read_document(f)
