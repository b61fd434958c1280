"""One act, four manifestations: the AI Act as OJ XHTML (EN), OJ HTML (NL), consolidated HTML (NL,
12.07.2024) and Formex 4 (EN). They must yield the same unit ids; any difference is a bug in one parser.

Raw counts differ, and the differences are explained by the markup, not by the parsers:

* paragraphs: 509 `div#NNN.MMM` in the OJ (503 distinct ids), 509 `<PARAG>` in Formex, 509
  `span.no-parag` in the consolidated text, but 500 numbered paragraphs of the AI Act in each. The 9
  others are paragraphs that Articles 105-109 insert into other regulations ("‘4. When adopting …");
  in the OJ 6 of them even reuse the div id of a real AI Act paragraph (`005.004`, `011.003`,
  `017.003`, `043.004`, `047.003`, `058.003`), hence 503 distinct ids for 509 divs;
* annexes: 13, although the consolidated text has 14 `p.title-annex-1` (Annex X's subtitle is marked
  as a second annex heading; Formex makes the same slip, ANNEX X and its subtitle both in `<TI>`);
* recitals: 180 in the OJ and Formex, none in a consolidated text (it carries no preamble).
"""

from __future__ import annotations

import pytest

from lexcite.ingest._markup import read_html
from lexcite.ingest.parse_consolidated import parse_consolidated
from lexcite.ingest.parse_formex import formex_files_from_dir, parse_formex
from lexcite.ingest.parse_oj import parse_oj

pytestmark = pytest.mark.integration

OJ_EN = "32024R1689.oj.xhtml"
OJ_NL = "32024R1689.oj.nl.html"
CONS_NL = "02024R1689-20240712.consolidated.nl.html"
FORMEX = "fmx4/32024R1689"


@pytest.fixture(scope="module")
def parsed(corpus):
    def html(name, parser):
        return parser(read_html((corpus / name).read_bytes(), corpus / name), corpus / name)

    return {
        OJ_EN: html(OJ_EN, parse_oj),
        OJ_NL: html(OJ_NL, parse_oj),
        CONS_NL: html(CONS_NL, parse_consolidated),
        FORMEX: parse_formex(formex_files_from_dir(corpus / FORMEX), corpus / FORMEX),
    }


def ids(parsed_act, *kinds: str) -> list[str]:
    return [u.unit for u in parsed_act.units if u.kind in kinds]


def by_id(parsed_act) -> dict:
    return {u.unit: u for u in parsed_act.units}


class TestSameIds:
    def test_every_format_has_the_same_113_articles_in_the_same_order(self, parsed):
        want = ids(parsed[FORMEX], "article")

        assert len(want) == 113
        for name, act in parsed.items():
            assert ids(act, "article") == want, name

    def test_every_format_has_the_same_500_numbered_paragraphs_in_the_same_order(self, parsed):
        want = ids(parsed[FORMEX], "paragraph")

        assert len(want) == 500
        for name, act in parsed.items():
            assert ids(act, "paragraph") == want, name

    def test_points_annexes_and_sections_are_the_same_in_every_format(self, parsed):
        want = ids(parsed[FORMEX], "point", "annex", "section")

        assert len(want) == 664 + 13 + 7
        for name, act in parsed.items():
            assert ids(act, "point", "annex", "section") == want, name

    def test_the_oj_and_formex_have_the_same_180_recitals_and_the_consolidated_text_none(self, parsed):
        want = [f"rct_{n}" for n in range(1, 181)]

        for name in (OJ_EN, OJ_NL, FORMEX):
            assert ids(parsed[name], "recital") == want, name
        assert ids(parsed[CONS_NL], "recital") == []

    def test_a_restarted_list_keeps_only_its_first_run_of_ids_in_every_format(self, parsed):
        # Article 43(1): (a)-(b) in the first subparagraph, (a)-(d) in the second. Ids have no
        # subparagraph level, so every parser keeps (a)-(b) and leaves the second list as text.
        for name, act in parsed.items():
            assert [i for i in ids(act, "point") if i.startswith("art_43.par_1.")] == [
                "art_43.par_1.pnt_a", "art_43.par_1.pnt_b"], name

    def test_units_agree_on_act_version_and_parents(self, parsed):
        for name, act in parsed.items():
            assert (act.act, act.version) == ("32024R1689", "2024-07-12"), name
        want = {u.unit: u.parent for u in parsed[FORMEX].units}
        for name, act in parsed.items():
            assert {u.unit: u.parent for u in act.units} == {
                k: v for k, v in want.items() if name != CONS_NL or not k.startswith("rct_")}, name


class TestSameText:
    def test_oj_english_and_formex_give_identical_titles_and_texts(self, parsed):
        oj, fmx = by_id(parsed[OJ_EN]), by_id(parsed[FORMEX])

        assert [k for k in fmx if (oj[k].title, oj[k].text) != (fmx[k].title, fmx[k].text)] == []

    def test_oj_dutch_and_the_consolidated_text_differ_only_where_the_markup_does(self, parsed):
        oj, cons = by_id(parsed[OJ_NL]), by_id(parsed[CONS_NL])
        differ = sorted(k for k in cons if (oj[k].title, oj[k].text) != (cons[k].title, cons[k].text))

        # Article 73: the Dutch OJ prints "11." twice (div ids 073.010 and 073.011); corrigendum C2,
        # 32024R1689R(04), renumbers the first one "10." in the consolidated text. The OJ parser takes
        # the id from the div (par_10), so both give art_73.par_10, with the label as each prints it.
        assert oj["art_73.par_10"].text.startswith("11. ") and cons["art_73.par_10"].text.startswith("10. ")
        assert dict(parsed[CONS_NL].changed_units)["art_73.par_10"] == "32024R1689R(04)"
        # Annex XI, Section 1, point 2: the consolidated HTML puts "Met betrekking tot punt e) …" inside
        # point e)'s cell; the OJ (and Formex) put it after the list, in point 2.
        assert cons["anx_XI.sct_1.pnt_2.pnt_e"].text.endswith("gebruikte rekenhulpmiddelen.")
        assert differ == ["anx_XI.sct_1.pnt_2.pnt_e", "art_73", "art_73.par_10"]
