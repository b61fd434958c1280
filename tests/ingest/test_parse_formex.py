"""Formex 4 packages: zip/folder reading (zip slip, zip bombs), metadata, unit ids, bad input."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest

from lexcite.errors import FormatNotRecognised, LexciteError, ParseError
from lexcite.ingest import parse_formex as formex_module
from lexcite.ingest.parse_formex import formex_files_from_dir, formex_files_from_zip, parse_formex

PKG = Path("L_209900042EN")

MANIFEST = """<?xml version="1.0" encoding="UTF-8"?><DOC><BIB.DOC><NO.DOC FORMAT="YN" TYPE="OJ"><YEAR>2099</YEAR>
<NO.CURRENT>42</NO.CURRENT></NO.DOC></BIB.DOC><PUBLICATION.REF FILE="L_209900042EN.toc.fmx.xml"><COLL>L</COLL>
<DATE ISO="20990315">20990315</DATE><LG.OJ>EN</LG.OJ></PUBLICATION.REF><FMX><DOC.MAIN.PUB NO.SEQ="0001">
<LG.DOC>EN</LG.DOC><LEGAL.VALUE>{legal}</LEGAL.VALUE><REF.PHYS FILE="L_209900042EN.000101.fmx.xml" TYPE="DOC.XML"/>
</DOC.MAIN.PUB>{subs}</FMX></DOC>"""
SUB = """<DOC.SUB.PUB TYPE="ANNEX"><REF.PHYS FILE="{name}" TYPE="DOC.XML"/></DOC.SUB.PUB>"""

BIB = """<BIB.INSTANCE><DOCUMENT.REF FILE="L_209900042EN.doc.fmx.xml"><COLL>L</COLL></DOCUMENT.REF>
<DATE ISO="20990301">20990301</DATE><LG.DOC>EN</LG.DOC><NO.DOC FORMAT="YN" TYPE="OJ"><YEAR>2099</YEAR>
<NO.CURRENT>42</NO.CURRENT></NO.DOC></BIB.INSTANCE>"""

ACT = """<?xml version="1.0" encoding="UTF-8"?><ACT>""" + BIB + """
<TITLE><TI><P>Regulation (EU) 2099/42 of the European Parliament and of the Council</P>
<P>on test fixtures</P></TI></TITLE>
<PREAMBLE><GR.CONSID><GR.CONSID.INIT>Whereas:</GR.CONSID.INIT>
<CONSID><NP><NO.P>(1)</NO.P><TXT>Fixtures should be small.</TXT></NP></CONSID>
<CONSID><NP><NO.P>(2)</NO.P><TXT>They should also be <QUOT.START CODE="2018"/>real<QUOT.END CODE="2019"/>.</TXT>
</NP></CONSID></GR.CONSID></PREAMBLE>
<ENACTING.TERMS><DIVISION><TITLE><TI><P>CHAPTER I</P></TI></TITLE>
<ARTICLE IDENTIFIER="001"><TI.ART>Article 1</TI.ART><STI.ART><P>Definitions</P></STI.ART>
<ALINEA><P>For the purposes of this Regulation:</P><LIST TYPE="ARAB">
<ITEM><NP><NO.P>(1)</NO.P><TXT><QUOT.START CODE="2018"/>model<QUOT.END CODE="2019"/> means a model;</TXT></NP></ITEM>
<ITEM><NP><NO.P>(14a)</NO.P><TXT><QUOT.START CODE="2018"/>flop<QUOT.END CODE="2019"/> means 10<HT TYPE="SUP">25</HT>
operations<NOTE NOTE.ID="E0001"><P>A footnote that is not text.</P></NOTE>;</TXT></NP></ITEM>
</LIST></ALINEA></ARTICLE>
<ARTICLE IDENTIFIER="002"><TI.ART>Article 2</TI.ART><STI.ART><P>Obligations</P></STI.ART>
<PARAG IDENTIFIER="002.001"><NO.PARAG>1.</NO.PARAG><ALINEA><P>Providers shall:</P><LIST TYPE="alpha">
<ITEM><NP><NO.P>(a)</NO.P><TXT>test;</TXT></NP></ITEM>
<ITEM><NP><NO.P>(b)</NO.P><TXT>document, in particular:</TXT><P><LIST TYPE="roman">
<ITEM><NP><NO.P>(i)</NO.P><TXT>inputs;</TXT></NP></ITEM><ITEM><NP><NO.P>(ii)</NO.P><TXT>outputs.</TXT></NP></ITEM>
</LIST></P></NP></ITEM></LIST></ALINEA>
<ALINEA><P>Where the first subparagraph applies, providers shall also:</P><LIST TYPE="alpha">
<ITEM><NP><NO.P>(a)</NO.P><TXT>report;</TXT></NP></ITEM><ITEM><NP><NO.P>(b)</NO.P><TXT>archive;</TXT></NP></ITEM>
<ITEM><NP><NO.P>(c)</NO.P><TXT>repeat.</TXT></NP></ITEM></LIST></ALINEA></PARAG>
<PARAG IDENTIFIER="002.002"><NO.PARAG>2.</NO.PARAG><ALINEA>Deployers shall comply.</ALINEA></PARAG>
</ARTICLE>
<ARTICLE IDENTIFIER="003"><TI.ART>Article 3</TI.ART><STI.ART><P>Amendment to Regulation (EU) 2098/1</P></STI.ART>
<ALINEA><P>In Article 5 of Regulation (EU) 2098/1, the following paragraph is added:</P><QUOT.S LEVEL="1">
<PARAG IDENTIFIER="005.004"><NO.PARAG><QUOT.START CODE="2018"/>4.</NO.PARAG><ALINEA>Quoted text.<QUOT.END CODE="2019"/>
</ALINEA></PARAG></QUOT.S></ALINEA></ARTICLE>
<ARTICLE IDENTIFIER="004"><TI.ART>Article 4</TI.ART><STI.ART><P>Entry into force</P></STI.ART>
<ALINEA>This Regulation shall enter into force on the twentieth day.</ALINEA></ARTICLE>
</DIVISION></ENACTING.TERMS></ACT>"""

ANNEX_I = """<?xml version="1.0" encoding="UTF-8"?><ANNEX>""" + BIB + """
<TITLE><TI><P>ANNEX I</P></TI><STI><P>Lists</P></STI></TITLE><CONTENTS>
<GR.SEQ LEVEL="1"><TITLE><TI><P>Section A. First list</P></TI></TITLE>
<NP><NO.P>1.</NO.P><TXT>Directive 2006/42/EC;</TXT></NP><NP><NO.P>2.</NO.P><TXT>Directive 2009/48/EC.</TXT></NP>
</GR.SEQ><GR.SEQ LEVEL="1"><TITLE><TI><P>Section B. Second list</P></TI></TITLE>
<NP><NO.P>3.</NO.P><TXT>Regulation (EC) No 300/2008.</TXT></NP></GR.SEQ></CONTENTS></ANNEX>"""

ANNEX_II = """<?xml version="1.0" encoding="UTF-8"?><ANNEX>""" + BIB + """
<TITLE><TI><P>ANNEX II</P><P>Procedure</P></TI></TITLE><CONTENTS>
<GR.SEQ LEVEL="1"><TITLE><TI><NP><NO.P>1.</NO.P><TXT>Introduction</TXT></NP></TI></TITLE><P>An introduction.</P>
</GR.SEQ><GR.SEQ LEVEL="1"><TITLE><TI><NP><NO.P>2.</NO.P><TXT>Application</TXT></NP></TI></TITLE>
<NP><NO.P>2.1.</NO.P><TXT>The application shall include:</TXT><P><LIST TYPE="alpha">
<ITEM><NP><NO.P>(a)</NO.P><TXT>a name;</TXT></NP></ITEM></LIST></P></NP>
<NP><NO.P>2.2.</NO.P><TXT>It shall be assessed.</TXT></NP></GR.SEQ>
<LIST TYPE="DASH"><ITEM><P>a dash item, text only</P></ITEM></LIST></CONTENTS></ANNEX>"""


def package(act: str = ACT, annexes: dict[str, str] | None = None, legal: str = "REG",
            manifest: bool = True) -> dict[str, bytes]:
    annexes = {"L_209900042EN.000201.fmx.xml": ANNEX_I, "L_209900042EN.000301.fmx.xml": ANNEX_II} \
        if annexes is None else annexes
    files = {"L_209900042EN.000101.fmx.xml": act.encode()}
    files.update({name: body.encode() for name, body in annexes.items()})
    if manifest:
        subs = "".join(SUB.format(name=name) for name in annexes)
        files["L_209900042EN.doc.fmx.xml"] = MANIFEST.format(legal=legal, subs=subs).encode()
    return files


def zipped(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    return buf.getvalue()


@pytest.fixture
def nothing_written(tmp_path, monkeypatch):
    """Run in an empty folder where extracting a zip member to disk fails the test."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    def refuse(*_a, **_k):
        raise AssertionError("a zip member was extracted to disk")

    monkeypatch.setattr(zipfile.ZipFile, "extract", refuse)
    monkeypatch.setattr(zipfile.ZipFile, "extractall", refuse)
    yield work
    assert [p for p in tmp_path.rglob("*") if p != work] == [], "a file was written"
    assert not (tmp_path.parent / "evil").exists() and not Path("/tmp/evil").exists()


def units(parsed) -> dict:
    return {u.unit: u for u in parsed.units}


# ------------------------------------------------------------------------------------------------


class TestUnitIds:
    def test_recitals_articles_paragraphs_and_points_get_eli_path_ids(self):
        got = [u.unit for u in parse_formex(package(), PKG).units]

        assert got[:2] == ["rct_1", "rct_2"]
        assert "art_2.par_1.pnt_b.pnt_ii" in got
        assert got.index("art_2") < got.index("art_2.par_1") < got.index("art_2.par_1.pnt_a")

    def test_points_of_an_article_without_paragraphs_hang_from_the_article(self):
        u = units(parse_formex(package(), PKG))

        assert u["art_1.pnt_14a"].parent == "art_1"
        assert u["art_1.pnt_1"].kind == "point"

    def test_an_article_with_neither_paragraphs_nor_points_is_one_unit(self):
        got = [u.unit for u in parse_formex(package(), PKG).units if u.unit.startswith("art_4")]

        assert got == ["art_4"]

    def test_a_paragraph_text_includes_its_points_and_unnumbered_subparagraphs(self):
        par = units(parse_formex(package(), PKG))["art_2.par_1"]

        assert par.text.startswith("1. Providers shall: (a) test; (b) document, in particular: (i) inputs;")
        assert "Where the first subparagraph applies" in par.text
        assert par.kind == "paragraph" and par.parent == "art_2" and par.title == "Article 2(1) — Obligations"

    def test_a_restarted_list_in_a_second_subparagraph_stays_text_of_the_paragraph(self):
        # Like Article 43(1) of the AI Act: (a)-(b), then (a)-(c) in the next subparagraph. Ids have no
        # subparagraph level; the first list keeps the ids, the second is text (no pnt_c appears).
        u = units(parse_formex(package(), PKG))

        assert u["art_2.par_1.pnt_a"].text == "(a) test;"
        assert "art_2.par_1.pnt_c" not in u
        assert "(c) repeat." in u["art_2.par_1"].text

    def test_paragraphs_quoted_from_another_act_stay_text_of_the_quoting_article(self):
        u = units(parse_formex(package(), PKG))

        assert [k for k in u if k.startswith("art_3")] == ["art_3"]
        assert "‘4. Quoted text.’" in u["art_3"].text

    def test_annex_sections_numbered_groups_and_dotted_points_nest(self):
        u = units(parse_formex(package(), PKG))

        assert u["anx_I.sct_B.pnt_3"].parent == "anx_I.sct_B"
        assert u["anx_I.sct_A"].kind == "section"
        assert u["anx_II.pnt_2.pnt_1.pnt_a"].parent == "anx_II.pnt_2.pnt_1"
        assert u["anx_II.pnt_2.pnt_2"].text == "2.2. It shall be assessed."
        assert u["anx_II.pnt_1"].text == "1. Introduction An introduction."
        assert u["anx_II"].title == "Annex II — Procedure"
        assert u["anx_II.pnt_2.pnt_1.pnt_a"].title == "Annex II, point 2.1(a) — Procedure"
        assert u["anx_I.sct_B"].text == "Section B. Second list 3. Regulation (EC) No 300/2008."

    def test_every_parent_is_emitted_before_its_children_in_document_order(self):
        parsed = parse_formex(package(), PKG)
        seen: set[str] = set()
        for i, unit in enumerate(parsed.units):
            assert unit.position == i
            assert unit.parent is None or unit.parent in seen
            seen.add(unit.unit)


class TestText:
    def test_exponents_are_kept_as_caret_and_footnotes_leave_the_text(self):
        point = units(parse_formex(package(), PKG))["art_1.pnt_14a"]

        assert point.text == "(14a) ‘flop’ means 10^25 operations;"
        assert point.footnotes == ("A footnote that is not text.",)

    def test_titles_join_heading_and_subject_and_anchors_use_the_formex_identifier(self):
        u = units(parse_formex(package(), PKG))

        assert u["art_2"].title == "Article 2 — Obligations"
        assert u["rct_2"].text == "They should also be ‘real’."  # the number is in the title, as in the OJ
        assert u["rct_2"].title == "Recital 2"
        assert u["art_2.par_1.pnt_b.pnt_ii"].title == "Article 2(1), point (b)(ii) — Obligations"
        assert u["art_2.par_1"].source_url.endswith("CELEX:32099R0042#002.001")
        assert u["art_2.par_1.pnt_a"].source_url.endswith("#002.001")
        assert u["anx_I.sct_A.pnt_1"].source_url.endswith("#anx_I")


class TestMetadata:
    def test_act_version_and_language_come_from_the_manifest(self):
        parsed = parse_formex(package(), PKG)

        assert (parsed.act, parsed.version, parsed.language, parsed.format) == (
            "32099R0042", "2099-03-15", "en", "formex")
        assert parsed.doc_kind == "regulation"
        assert parsed.title.startswith("Regulation (EU) 2099/42")

    def test_a_directive_gets_an_L_celex(self):
        parsed = parse_formex(package(legal="DIR"), PKG)

        assert (parsed.act, parsed.doc_kind) == ("32099L0042", "directive")

    def test_explicit_act_version_and_language_win_over_detection(self):
        parsed = parse_formex(package(), PKG, act="32099R0043", version="2099-04-01", language="NL",
                              binding=False)

        assert {(u.act, u.version, u.language, u.binding) for u in parsed.units} == {
            ("32099R0043", "2099-04-01", "nl", False)}

    def test_a_lone_act_file_without_manifest_needs_an_explicit_version(self):
        files = package(annexes={}, manifest=False)
        with pytest.raises(ParseError, match="version="):
            parse_formex(files, PKG)

        parsed = parse_formex(files, PKG, version="2099-03-15")
        assert parsed.act == "32099R0042" and parsed.counts()["article"] == 4


class TestBadInput:
    def test_a_file_truncated_mid_element_is_a_parse_error(self):
        files = package()
        main = "L_209900042EN.000101.fmx.xml"
        files[main] = files[main][: len(files[main]) // 2]

        with pytest.raises(ParseError, match="not well-formed"):
            parse_formex(files, PKG)

    def test_an_entity_expansion_bomb_is_refused(self, nothing_written):
        bomb = """<?xml version="1.0"?><!DOCTYPE ACT [<!ENTITY a "aaaaaaaaaa">
        <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
        <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]><ACT><TITLE><TI><P>&d;</P></TI></TITLE></ACT>"""
        with pytest.raises(ParseError, match="entities"):
            parse_formex(package(act=bomb), PKG)

    def test_a_declared_dtd_is_refused_even_when_unused(self):
        act = ACT.replace("<ACT>", '<!DOCTYPE ACT [<!ENTITY x "y">]><ACT>', 1)
        with pytest.raises(ParseError, match="DTD"):
            parse_formex(package(act=act), PKG)

    def test_an_act_without_articles_is_not_recognised(self):
        act = ACT.split("<ENACTING.TERMS>")[0] + "</ACT>"
        with pytest.raises(FormatNotRecognised, match="without <ARTICLE>"):
            parse_formex(package(act=act), PKG)

    def test_a_consolidated_act_followed_by_separate_annex_files_is_not_recognised(self):
        # A consolidated text carries its annexes inside (<CONS.ANNEX>); a CONS.ACT with <ANNEX>
        # files beside it is no package Cellar serves (tests/ingest/test_parse_batch2.py reads real ones).
        act = "<CONS.ACT><INFO.CONSLEG/></CONS.ACT>"
        with pytest.raises(FormatNotRecognised, match="CONS.ACT"):
            parse_formex(package(act=act), PKG)

    def test_a_consolidated_act_without_articles_is_not_recognised(self):
        act = ('<CONS.ACT><INFO.CONSLEG START.DATE="20990101"/><CONS.DOC><BIB.INSTANCE><LG.DOC>EN</LG.DOC>'
               "</BIB.INSTANCE><FAM.COMP><BIB.DATA><NO.CELEX>32099R0042</NO.CELEX></BIB.DATA></FAM.COMP>"
               "</CONS.DOC></CONS.ACT>")
        with pytest.raises(FormatNotRecognised, match="a <CONS.ACT> without <ARTICLE>"):
            parse_formex(package(act=act, annexes={}), PKG)

    def test_a_manifest_naming_a_missing_file_is_a_parse_error(self):
        files = package()
        del files["L_209900042EN.000301.fmx.xml"]
        with pytest.raises(ParseError, match="000301.*not in the package"):
            parse_formex(files, PKG)

    def test_an_unknown_point_label_is_reported_not_dropped(self):
        act = ACT.replace("<NO.P>(a)</NO.P><TXT>test;", "<NO.P>[a]*</NO.P><TXT>test;")
        with pytest.raises(ParseError, match=r"\[a\]\*"):
            parse_formex(package(act=act), PKG)

    def test_points_the_builder_misses_make_the_cross_check_fail(self, monkeypatch):
        # Invariant 6: the independent NO.P count catches a walker that skips a list.
        original = formex_module._Builder.walk

        def lazy(self, children, parent):
            if parent.startswith("art_2"):
                return
            original(self, children, parent)

        monkeypatch.setattr(formex_module._Builder, "walk", lazy)
        with pytest.raises(ParseError, match="points"):
            parse_formex(package(), PKG)

    def test_no_xml_at_all_is_not_recognised(self):
        with pytest.raises(FormatNotRecognised):
            parse_formex({"readme.txt": b"hello"}, PKG)

    def test_a_package_with_only_a_table_of_contents_is_not_recognised(self):
        with pytest.raises(FormatNotRecognised):
            parse_formex({"L_1.toc.fmx.xml": b"<PUBLICATION/>"}, PKG)

    def test_an_explicit_version_that_is_not_an_iso_date_is_refused(self):
        with pytest.raises(ParseError, match="ISO date"):
            parse_formex(package(), PKG, version="15.03.2099")


class TestZipPackages:
    def test_a_zip_gives_the_same_units_as_its_files(self, nothing_written):
        files = package()
        from_zip = formex_files_from_zip(zipped(files), Path("pkg.zip"))

        assert from_zip == files
        assert parse_formex(from_zip, PKG).units == parse_formex(files, PKG).units

    def test_a_member_named_with_dot_dot_is_refused(self, nothing_written):
        data = zipped({**package(), "../evil.xml": b"<ACT/>"})

        with pytest.raises(ParseError, match=r"unsafe.*'\.\./evil\.xml'"):
            formex_files_from_zip(data, Path("pkg.zip"))

    @pytest.mark.parametrize("name", ["/tmp/evil.xml", "C:/evil.xml", "a/../../evil.xml", "..\\evil.xml"])
    def test_absolute_or_escaping_member_paths_are_refused(self, name, nothing_written):
        with pytest.raises(ParseError, match="unsafe"):
            formex_files_from_zip(zipped({name: b"<ACT/>"}), Path("pkg.zip"))

    def test_a_highly_compressible_member_is_refused_as_a_zip_bomb(self, nothing_written):
        data = zipped({"L_1.doc.fmx.xml": b"<DOC/>", "bomb.xml": b"\0" * (24 * 1024 * 1024)})
        assert len(data) < 100_000

        with pytest.raises(ParseError, match=r"zip bomb.*'bomb\.xml'"):
            formex_files_from_zip(data, Path("pkg.zip"))

    def test_members_over_the_total_size_cap_are_refused(self, monkeypatch, nothing_written):
        monkeypatch.setattr(formex_module, "ZIP_MAX_TOTAL_BYTES", 5000)
        data = zipped({"a.xml": os.urandom(3000), "b.xml": os.urandom(3000)}, zipfile.ZIP_STORED)

        with pytest.raises(ParseError, match=r"over the cap.*'b\.xml'"):
            formex_files_from_zip(data, Path("pkg.zip"))

    def test_a_header_that_understates_a_size_is_refused(self, nothing_written):
        data = bytearray(zipped({"a.xml": b"<ACT>" + b"x" * 500 + b"</ACT>"}, zipfile.ZIP_STORED))
        central = data.index(b"PK\x01\x02")
        data[central + 24 : central + 28] = (10).to_bytes(4, "little")  # uncompressed size: 10

        with pytest.raises(ParseError, match="a.xml"):
            formex_files_from_zip(bytes(data), Path("pkg.zip"))

    def test_bytes_that_are_not_a_zip_are_refused(self, nothing_written):
        with pytest.raises(ParseError, match="not a zip"):
            formex_files_from_zip(b"<html>a WAF challenge page</html>", Path("pkg.zip"))

    def test_a_zip_cut_short_is_refused(self, nothing_written):
        data = zipped(package())
        with pytest.raises(LexciteError):
            formex_files_from_zip(data[: len(data) // 2], Path("pkg.zip"))


class TestFolders:
    def test_a_folder_gives_its_xml_files_by_name(self, tmp_path):
        for name, data in package().items():
            (tmp_path / name).write_bytes(data)
        (tmp_path / "notes.txt").write_text("not Formex")

        assert formex_files_from_dir(tmp_path) == package()

    def test_a_folder_without_xml_is_not_recognised(self, tmp_path):
        with pytest.raises(FormatNotRecognised):
            formex_files_from_dir(tmp_path)

    def test_a_symbolic_link_in_the_folder_is_refused(self, tmp_path):
        (tmp_path / "real.xml").write_text("<ACT/>")
        (tmp_path / "link.xml").symlink_to(tmp_path / "real.xml")
        with pytest.raises(ParseError, match="symbolic link"):
            formex_files_from_dir(tmp_path)


# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ai_act(corpus):
    folder = corpus / "fmx4" / "32024R1689"
    return parse_formex(formex_files_from_dir(folder), folder)


class TestRealPackages:
    @pytest.mark.integration
    def test_the_ai_act_package_has_180_recitals_113_articles_500_paragraphs_13_annexes(self, ai_act, corpus):
        # The package holds 509 <PARAG>: 9 are paragraphs that Articles 105-109 insert into other
        # regulations, inside <QUOT.S> with a quoted NO.PARAG ("‘4."); they are text of the quoting
        # article, not paragraphs of the AI Act. 500 = the AI Act's own numbered paragraphs.
        main = (corpus / "fmx4" / "32024R1689" / "L_202401689EN.000101.fmx.xml").read_bytes()
        assert main.count(b"<PARAG ") == 509 and main.count(b"<ARTICLE ") == 113

        assert (ai_act.act, ai_act.version, ai_act.language) == ("32024R1689", "2024-07-12", "en")
        assert ai_act.counts() == {"recital": 180, "article": 113, "paragraph": 500, "point": 664,
                                   "annex": 13, "section": 7}

    @pytest.mark.integration
    def test_the_zip_and_the_folder_of_the_ai_act_give_the_same_units(self, ai_act, corpus, nothing_written):
        path = corpus / "fmx4" / "32024R1689.fmx4.zip"
        from_zip = parse_formex(formex_files_from_zip(path.read_bytes(), path), path)

        assert from_zip.units == ai_act.units

    @pytest.mark.integration
    def test_ai_act_texts_keep_exponents_and_the_deepest_points(self, ai_act):
        u = units(ai_act)

        assert u["art_51.par_2"].text.endswith("is greater than 10^25.")
        assert u["art_5.par_1.pnt_h.pnt_iii"].text.startswith("(iii) the localisation or identification")
        assert u["art_6"].title == "Article 6 — Classification rules for high-risk AI systems"
        assert u["anx_VII.pnt_3.pnt_1.pnt_a"].parent == "anx_VII.pnt_3.pnt_1"
        # Annex X puts its subtitle in TI (a second <P>) instead of STI: still anx_X, not a 14th annex.
        assert u["anx_X"].title.startswith("Annex X — Union legislative acts on large-scale IT systems")
        assert u["art_99.par_3"].text.count("EUR 35 000 000") == 1  # <FT TYPE="NUMBER">35000000</FT>
        assert u["anx_II"].text.endswith("— participation in a criminal organisation involved in one or more of "
                                         "the offences listed above.")

    @pytest.mark.integration
    def test_article_43_1_keeps_its_first_list_and_its_second_list_as_text(self, ai_act):
        ids = [u.unit for u in ai_act.units if u.unit.startswith("art_43.par_1.")]

        assert ids == ["art_43.par_1.pnt_a", "art_43.par_1.pnt_b"]

    @pytest.mark.integration
    def test_nis2_has_46_articles_144_recitals_and_is_a_directive(self, corpus):
        folder = corpus / "fmx4" / "32022L2555"
        parsed = parse_formex(formex_files_from_dir(folder), folder)

        assert (parsed.act, parsed.version, parsed.doc_kind) == ("32022L2555", "2022-12-27", "directive")
        counts = parsed.counts()
        assert (counts["article"], counts["recital"], counts["paragraph"], counts["annex"]) == (46, 144, 189, 3)
