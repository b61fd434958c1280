"""A damaged or shortened text is refused, from the document itself and against what is stored."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexcite.catalog import Catalog
from lexcite.errors import CatalogError, ParseError
from lexcite.ingest.completeness import _gaps, describe_units
from lexcite.ingest.load import Overrides, ingest_document, read_document

GUIDANCE = Path(__file__).resolve().parents[2] / "data" / "guidance" / "ai-literacy-guidance.xhtml"

SMALL = "32024R2977.oj.html"


def _without_annex(data: bytes) -> bytes:
    """The act well framed (signatures, end rule, </html>) but its annex gone: only the stored text tells."""
    start = data.index(b'<hr class="oj-doc-sep"/>')
    end = data.index(b'<hr class="oj-separator"/>', start)
    return data[:start] + data[end:]


@pytest.fixture
def small(corpus):
    return corpus / SMALL


class TestFromTheDocument:
    @pytest.mark.parametrize("name", ["32024R1689.oj.xhtml", SMALL, "02024R1689-20240712.consolidated.nl.html"])
    @pytest.mark.parametrize("cut", [0.5, 0.9])
    def test_a_cut_file_is_refused(self, corpus, tmp_path, name, cut):
        data = (corpus / name).read_bytes()
        damaged = tmp_path / name
        damaged.write_bytes(data[: int(len(data) * cut)])
        with pytest.raises(ParseError, match="truncated"):
            read_document(damaged)

    @pytest.mark.parametrize("cut", [0.5, 0.9])
    def test_a_cut_oj_file_closed_again_is_refused(self, corpus, tmp_path, cut):
        data = (corpus / "32024R1689.oj.xhtml").read_bytes()
        damaged = tmp_path / "cut.xhtml"
        damaged.write_bytes(data[: int(len(data) * cut)] + b"</div></body></html>")
        with pytest.raises(ParseError, match="signature block|end-of-document"):
            read_document(damaged)

    def test_every_real_file_passes(self, corpus):
        for name in ("32024R1689.oj.xhtml", "32016R0679.oj.html", "02002L0058-20091219.consolidated.en.html",
                     "02024R1689-20240712.consolidated.nl.html", "32022R1925.oj.xhtml", "fmx4/32024R1689",
                     "fmx4/32022L2555", "fmx4/32022R1925", "fmx4/02014R0910-20241018"):
            read_document(corpus / name)

    def test_a_damaged_formex_manifest_entry_is_refused(self, corpus, tmp_path):
        import shutil

        pkg = tmp_path / "nis2"
        shutil.copytree(corpus / "fmx4/32022L2555", pkg)
        manifest = pkg / "L_2022333EN.01008001.doc.xml"
        manifest.write_bytes(manifest.read_bytes().replace(b'FILE="L_2022333EN.01014301.xml"',
                                                           b'FILE="L_2022333EN.01014301.x~ml"'))
        with pytest.raises(ParseError, match="not an XML file"):
            read_document(pkg)


def _delete_after(data: bytes, anchor: bytes, target: bytes) -> bytes:
    """`data` with the first `target` after `anchor` deleted (one mutation of the seeded bench, made readable)."""
    at = data.index(target, data.index(anchor))
    return data[:at] + data[at + len(target):]


class TestNoGapToSee:
    """Damage that leaves every numbering whole: seen by text outside every unit, or a list item without its label.

    Each case is one seeded mutation bench/mutations.py found accepted short (issue 16, item 2).
    """

    def _refused(self, corpus, tmp_path, name, damaged, match):
        read_document(corpus / name)  # the real file passes
        path = tmp_path / name
        path.write_bytes(damaged)
        with pytest.raises(ParseError, match=match):
            read_document(path)

    def test_the_last_points_label_deleted(self, corpus, tmp_path):
        data = (corpus / "32024R1689.oj.xhtml").read_bytes()
        damaged = _delete_after(data, b'id="068.003"', b'<p class="oj-normal">(d)</p>')
        self._refused(corpus, tmp_path, "32024R1689.oj.xhtml", damaged,
                      r"list item without its label.*art_68, the list item after '\(c\)'")

    def test_the_last_points_label_cell_deleted(self, corpus, tmp_path):
        data = (corpus / "32024R1689.oj.xhtml").read_bytes()
        at = data.index(b'<p class="oj-normal">(d)</p>', data.index(b'id="068.003"'))
        start, end = data.rindex(b"<td", 0, at), data.index(b"</td>", at) + len(b"</td>")
        self._refused(corpus, tmp_path, "32024R1689.oj.xhtml", data[:start] + data[end:],
                      "list item without its label")

    def test_a_paragraph_div_opening_deleted(self, corpus, tmp_path):
        data = (corpus / "32016R0679.oj.html").read_bytes()
        damaged = _delete_after(data, b'id="art_32"', b'<div id="032.002">')
        self._refused(corpus, tmp_path, "32016R0679.oj.html", damaged,
                      r"2 block\(s\) of the act's text .* outside every unit, the first '3\. Adherence.*"
                      r"the text after art_32")

    def test_a_points_table_opening_deleted(self, corpus, tmp_path):
        data = (corpus / "32024R1689.oj.xhtml").read_bytes()
        at = data.rindex(b"<table", 0, data.index(b">(f)</p>", data.index(b'id="art_66"')))
        damaged = data[:at] + data[data.index(b">", at) + 1:]
        self._refused(corpus, tmp_path, "32024R1689.oj.xhtml", damaged,
                      r"table markup \(<col>\) outside its table or row")

    @pytest.mark.parametrize("deleted", [b'<div id="078.004">', b'</div>\n                  <div id="078.004">'])
    def test_a_last_paragraphs_div_opening_deleted(self, corpus, tmp_path, deleted):
        data = (corpus / "32016R0679.oj.html").read_bytes()
        self._refused(corpus, tmp_path, "32016R0679.oj.html", _delete_after(data, b'id="art_78"', deleted),
                      r"paragraph 4 \('4\. Where proceedings.*outside its own div")

    def test_consolidated_annexes_pushed_out_of_the_act(self, corpus, tmp_path):
        name = "02024R1689-20240712.consolidated.nl.html"
        data = (corpus / name).read_bytes()
        damaged = _delete_after(data, b"Aan artikel\xc2\xa08 van Richtlijn 2014/90/EU",
                                b'<div class="norm">\n                  <span class="no-parag">\xe2\x80\x9c5.')
        self._refused(corpus, tmp_path, name, damaged, "outside every unit, the first '1. Richtlijn 2006/42/EG")

    def test_consolidated_point_label_deleted(self, corpus, tmp_path):
        name = "02024R1689-20240712.consolidated.nl.html"
        data = (corpus / name).read_bytes()
        damaged = _delete_after(data, b'id="art_56"', b"<span>d)\xc2\xa0</span>")
        self._refused(corpus, tmp_path, name, damaged, r"list item without its label.*at art_56")

    def test_consolidated_paragraph_number_deleted(self, corpus, tmp_path):
        name = "02024R1689-20240712.consolidated.nl.html"
        data = (corpus / name).read_bytes()
        damaged = _delete_after(data, b'id="art_29"', b'<span class="no-parag">4.\xc2\xa0\xc2\xa0</span>')
        self._refused(corpus, tmp_path, name, damaged, r"numbered paragraph without its number.*at art_29")

    def test_the_last_points_label_garbled(self, corpus, tmp_path):
        data = (corpus / "32024R1689.oj.xhtml").read_bytes()
        at = data.index(b'<p class="oj-normal">(d)</p>', data.index(b'id="068.003"')) + len(b'<p class="oj-normal">')
        self._refused(corpus, tmp_path, "32024R1689.oj.xhtml", data[:at] + b"(#)" + data[at + 3:],
                      "labelled '\\(#\\)', not a point number")

    def test_a_tables_closing_tag_cut_takes_the_later_annexes(self, corpus, tmp_path):
        # 2024/2981: "</table>" cut to "</ta" in Annex I, so Annexes II-IX are read as text of Annex I.
        data = (corpus / "32024R2981.oj.html").read_bytes()
        at = data.index(b"</table>", data.index(b'id="anx_I"')) + len(b"</ta")
        self._refused(corpus, tmp_path, "32024R2981.oj.html", data[:at] + data[at + len(b"ble>"):],
                      "the element of anx_II lies inside the element of anx_I.*at anx_I")

    def test_consolidated_paragraph_number_span_damaged(self, corpus, tmp_path):
        # GDPR consolidated, Article 71(2): '">2.  </span>\n   <d' cut from the number's span, which then takes the
        # paragraph's text without its number; the parser would read it as more text of paragraph 1.
        name = "02016R0679-20160504.consolidated.en.xhtml"
        data = (corpus / name).read_bytes()
        at = data.index(b'<span class="no-parag">2.', data.index(b'id="art_71"')) + len(b'<span class="no-parag')
        cut = data.index(b"<div", at) + len(b"<d")
        self._refused(corpus, tmp_path, name, data[:at] + data[cut:],
                      r"a paragraph without its number after numbered ones \('The annual report.*at art_71")

    def test_a_paragraphs_opening_tags_cut_leave_its_text_bare_in_the_article(self, corpus, tmp_path):
        # DSA Article 29(2): '<div id="029.002">\n   <p cla' cut, so "2. By derogation ..." stands as bare text
        data = (corpus / "32022R2065.oj.xhtml").read_bytes()
        at = data.index(b'<div id="029.002">')
        cut = data.index(b"<p cla", at) + len(b"<p cla")
        self._refused(corpus, tmp_path, "32022R2065.oj.xhtml", data[:at] + data[cut:],
                      r"text outside any paragraph's or point's markup \('ss=\"oj-normal\">2\..*at art_29")

    @pytest.mark.parametrize("guidance", [False, True])
    def test_a_recitals_div_opening_deleted_leaves_its_text_in_the_preamble(self, corpus, tmp_path, guidance):
        # the preamble's text is no unit's, so only its layout shows the loss: a recital table outside any recital
        source = GUIDANCE if guidance else corpus / "32024R1689.oj.xhtml"
        data = source.read_bytes()
        opening = b'<div class="eli-subdivision" id="rct_1">'
        at = data.index(opening)
        path = tmp_path / source.name
        path.write_bytes(data[:at] + data[at + len(opening):])
        read_document(source, Overrides(binding=not guidance))
        # the AI Act's numbering shows it first (recital 1 missing); the note's only recital is seen by its layout
        match = r"a recital's text outside any recital's element \('\(1\)" if guidance else "recitals do not run"
        with pytest.raises(ParseError, match=match):
            read_document(path, Overrides(binding=not guidance))

    def test_a_rows_opening_tag_deleted_leaves_its_cells_in_the_table_section(self, corpus, tmp_path):
        # DSA Article 10(2)(a): the <tr> of point (vi) cut; its cells stand in the tbody, outside any row
        data = (corpus / "32022R2065.oj.xhtml").read_bytes()
        label = data.index(b'<p class="oj-normal">(vi)</p>', data.index(b'id="010.002"'))
        at = data.rindex(b"<tr>", 0, label)
        self._refused(corpus, tmp_path, "32022R2065.oj.xhtml", data[:at] + data[at + len(b"<tr>"):],
                      r"table markup \(<td>\) outside its table or row")

    def test_a_list_row_with_more_cells_than_its_table_has_columns(self, corpus, tmp_path):
        # GDPR Article 6(1): point (b)'s row given a second label cell, as when two rows' cells run together
        data = (corpus / "32016R0679.oj.xhtml").read_bytes()
        label = data.index(b'<p class="oj-normal">(b)</p>', data.index(b'id="006.001"'))
        start, end = data.rindex(b"<td", 0, label), data.index(b"</td>", label) + len(b"</td>")
        self._refused(corpus, tmp_path, "32016R0679.oj.xhtml", data[:end] + data[start:end] + data[end:],
                      r"a list row of 3 cells in a table of 2 columns.*art_6, the list item after '\(a\)'")

    def test_a_nested_tables_opening_tag_deleted_leaves_its_parts_in_the_outer_cell(self, corpus, tmp_path):
        # Omnibus Article 1, point (39): "Article 111 is amended as follows:" then its list's <table …> cut
        data = (corpus / "32026R1744.oj.xhtml").read_bytes()
        at = data.index(b"<table", data.index(b"111 is amended as follows:"))
        self._refused(corpus, tmp_path, "32026R1744.oj.xhtml", data[:at] + data[data.index(b">", at) + 1:],
                      r"table markup \(<col>\) outside its table or row")

    def test_a_consolidated_paragraphs_div_that_lost_its_class(self, corpus, tmp_path):
        # GDPR consolidated Article 20(2): '<div class="norm">' cut to '<div cl': the HTML parser takes the
        # number's span as attributes, so paragraph 2 would be text of paragraph 1
        name = "02016R0679-20160504.consolidated.en.xhtml"
        data = (corpus / name).read_bytes()
        number = data.index(b'<span class="no-parag">2.', data.index(b'id="art_20"'))
        at = data.rindex(b'<div class="norm">', 0, number)
        damaged = data[:at] + b"<div cl" + data[at + len(b'<div class="norm">'):]
        self._refused(corpus, tmp_path, name, damaged, "a paragraph number that is not one|"
                      "a paragraph without its number")


class TestConsolidatedFormex:
    """Consolidated Formex marks what amending acts deleted, so its numbering may miss only that (issue 16)."""

    EIDAS = "fmx4/02014R0910-20241018"
    MAIN = "CL2014R0910EN0020030.0001.xml"

    def _damaged(self, corpus, tmp_path, damage):
        folder = tmp_path / "02014R0910-20241018"
        shutil.copytree(corpus / self.EIDAS, folder)
        data = (folder / self.MAIN).read_bytes()
        (folder / self.MAIN).write_bytes(damage(data))
        return folder

    def test_the_deleted_articles_are_the_only_gaps_allowed(self, corpus):
        parsed, _ = read_document(corpus / self.EIDAS)
        assert {"art_17", "art_18", "art_19"} <= set(parsed.deleted)  # deleted by 2024/1183 and NIS2
        assert not {"art_17", "art_18", "art_19"} & {u.unit for u in parsed.units}

    def test_a_point_merged_into_the_one_before_is_a_gap(self, corpus, tmp_path):
        # "…of an object;</TXT></NP></ITEM><ITEM><NP><NO.P>(44)</NO.P><TXT>" cut: point 44's text joins point 43
        def merge(data):
            at = data.index(b"<NO.P>(44)</NO.P>", data.index(b'IDENTIFIER="003"'))
            start = data.rindex(b"</TXT></NP></ITEM>", 0, at)
            return data[:start] + data[at + len(b"<NO.P>(44)</NO.P><TXT>"):]
        with pytest.raises(ParseError, match="the numbering jumps: point 44 missing.*at points of art_3"):
            read_document(self._damaged(corpus, tmp_path, merge))

    def test_a_marker_that_lost_its_end_takes_an_article_with_it(self, corpus, tmp_path):
        # '" MOD.LEVEL="1"?><ARTICLE IDENTIFIER="' cut: the inserted Article 32a is read as the marker's text
        def cut(data):
            at = data.index(b'<ARTICLE IDENTIFIER="032A"')
            start = data.rindex(b'" MOD.LEVEL="1"?>', 0, at)
            return data[:start] + data[at + len(b'<ARTICLE IDENTIFIER="'):]
        with pytest.raises(ParseError, match="a processing instruction holds markup.*closing '\\?>' is lost"):
            read_document(self._damaged(corpus, tmp_path, cut))

    def test_a_zip_whose_member_header_is_damaged_is_refused(self, corpus, tmp_path):
        # 3 bytes cut inside the second member: every later offset is wrong (zipfile: "negative seek value")
        data = (corpus / "fmx4/02014R0910-20241018.fmx4.zip").read_bytes()
        path = tmp_path / "02014R0910-20241018.fmx4.zip"
        path.write_bytes(data[:5622] + data[5625:])
        with pytest.raises(ParseError, match="cannot be read|not a readable zip"):
            read_document(path)


class TestGaps:
    def test_numbers_letters_and_romans(self):
        assert _gaps({"1", "2", "4"}, continued=False) == ["3"]
        assert _gaps({"a", "b", "d"}, continued=False) == ["c"]
        assert _gaps({"i", "ii", "iv"}, continued=False) == ["iii"]
        assert _gaps({"h", "i", "j"}, continued=False) == ["a", "b", "c", "d", "e", "f", "g"]
        assert _gaps({"A", "B", "C", "D"}, continued=False) == []
        assert _gaps({"I", "II", "III", "V"}, continued=False) == ["IV"]
        assert _gaps({"4", "4a", "5"}, continued=True) == []
        assert _gaps({"2", "3"}, continued=False) == ["1"]

    def test_describe_units_names_the_top_level_ones(self):
        assert describe_units({"art_3", "art_3.par_1", "anx_II", "anx_I"}) == "annexes I, II; article 3"


class TestAgainstTheStored:
    def test_a_text_that_lacks_stored_units_is_refused_and_the_stored_stays(self, small, tmp_path):
        damaged = tmp_path / SMALL
        damaged.write_bytes(_without_annex(small.read_bytes()))
        read_document(damaged)  # whole as far as the document can tell
        with Catalog() as catalog:
            ingest_document(catalog, small)
            before = catalog.state()
            with pytest.raises(CatalogError, match=r"lacks 8 of its 64 stored units \(annex 1\).*--replace"):
                ingest_document(catalog, damaged)
            assert catalog.state() == before
            assert catalog.resolve("32024R2977#anx_1.pnt_5").status == "current"

    def test_the_loss_is_judged_inside_the_write_transaction(self, small, tmp_path):
        """The stored ids the check judges are the ones the write replaces: no second writer comes between."""
        from lexcite.catalog import Source

        damaged = tmp_path / SMALL
        damaged.write_bytes(_without_annex(small.read_bytes()))
        parsed, sha = read_document(damaged)
        with Catalog() as catalog:
            ingest_document(catalog, small)
            seen = []

            def refuse(stored_ids):
                seen.append((catalog.conn.in_transaction, len(stored_ids)))
                raise CatalogError("refused")

            before = catalog.state()
            with pytest.raises(CatalogError, match="refused"):
                catalog.store(parsed, Source(location=str(damaged), sha256=sha), check_loss=refuse)
            assert seen == [(True, 64)]
            assert catalog.state() == before and not catalog.conn.in_transaction

    def test_replace_stores_it_and_states_the_loss(self, small, tmp_path):
        damaged = tmp_path / SMALL
        damaged.write_bytes(_without_annex(small.read_bytes()))
        with Catalog() as catalog:
            ingest_document(catalog, small)
            result = ingest_document(catalog, damaged, Overrides(replace=True))
            assert result.action == "replaced"
            assert "anx_1" in result.lost and len(result.lost) == 8
            assert sum(catalog.unit_counts(catalog.versions("32024R2977")[0].id).values()) == 56

    def test_cli_refuses_then_replace_says_what_was_lost(self, small, tmp_path):
        damaged = tmp_path / SMALL
        damaged.write_bytes(_without_annex(small.read_bytes()))

        def lexcite(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([sys.executable, "-m", "lexcite", *args], capture_output=True, text=True,
                                  env=os.environ.copy(), timeout=300)

        assert lexcite("ingest", str(small)).returncode == 0
        refused = lexcite("ingest", str(damaged))
        assert refused.returncode != 0 and "Traceback" not in refused.stderr
        assert "annex 1" in refused.stderr + refused.stdout
        replaced = lexcite("ingest", str(damaged), "--replace", "--json")
        assert replaced.returncode == 0, replaced.stderr
        assert json.loads(replaced.stdout)["action"] == "replaced"
        assert len(json.loads(replaced.stdout)["lost_units"]) == 8


def test_guidance_in_oj_markup_is_not_held_to_the_journals_end_rule(tmp_path):
    from pathlib import Path

    shipped = Path(__file__).resolve().parents[2] / "data" / "guidance" / "ai-literacy-guidance.xhtml"
    assert b"oj-doc-end" not in shipped.read_bytes()  # the shipped guidance note has no Journal end rule
    parsed, _ = read_document(shipped, Overrides(binding=False))
    assert not parsed.binding and parsed.units
    with pytest.raises(ParseError, match="end-of-document rule"):  # the same file as law: cut short
        read_document(shipped, Overrides())
