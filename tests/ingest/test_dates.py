"""Dates read from the acts' own final provisions (lexcite/ingest/dates.py), on the real OJ files."""

from __future__ import annotations

import pytest

from lexcite.contract import Unit
from lexcite.ingest._markup import read_html
from lexcite.ingest.dates import article_divisions, entry_into_force, read_dates, unit_dates
from lexcite.ingest.parse_oj import parse_oj


def _read(corpus, name):
    path = corpus / name
    root = read_html(path.read_bytes(), path)
    parsed = parse_oj(root, path)
    return parsed, dict(article_divisions(root))


def _dates(corpus, name):
    parsed, divisions = _read(corpus, name)
    acts = read_dates(parsed.units, parsed.version)
    return acts, unit_dates(parsed.units, acts, divisions)


def _applies(per_unit, unit):
    return [(d.date, d.set_by.unit if d.set_by else None) for d in per_unit[unit].applies_from]


@pytest.fixture(scope="module")
def ai_act(corpus):
    return _dates(corpus, "32024R1689.oj.xhtml")


@pytest.mark.unit
def test_entry_into_force_counts_days_from_the_oj_date_or_reads_a_written_date():
    assert entry_into_force(["This Regulation shall enter into force on the twentieth day following that of its "
                             "publication in the Official Journal"], "2016-05-04")[0] == "2016-05-24"
    assert entry_into_force(["It shall enter into force on 1 January 2027."], "2026-07-24")[0] == "2027-01-01"
    day, why = entry_into_force(["This Regulation applies to AI systems."], "2026-07-24")
    assert day is None and "no 'shall enter into force" in why


@pytest.mark.integration
class TestAiAct:
    def test_entry_into_force_and_general_date(self, ai_act):
        acts, _ = ai_act
        assert acts.entry_into_force.date == "2024-08-01"  # not the publication date, 2024-07-12
        assert acts.entry_into_force.set_by.unit == "art_113"
        assert acts.applies_from.date == "2026-08-02"
        assert acts.final == "art_113"

    def test_chapters_apply_from_the_date_their_point_of_article_113_sets(self, ai_act):
        _, per_unit = ai_act
        assert _applies(per_unit, "art_5.par_1.pnt_a") == [("2025-02-02", "art_113.pnt_a")]  # Chapter II
        assert _applies(per_unit, "art_4") == [("2025-02-02", "art_113.pnt_a")]  # Chapter I
        assert _applies(per_unit, "art_30") == [("2025-08-02", "art_113.pnt_b")]  # Chapter III Section 4
        assert _applies(per_unit, "art_53.par_1") == [("2025-08-02", "art_113.pnt_b")]  # Chapter V
        assert _applies(per_unit, "art_78") == [("2025-08-02", "art_113.pnt_b")]  # a single article
        assert _applies(per_unit, "art_99.par_3") == [("2025-08-02", "art_113.pnt_b")]  # Chapter XII
        assert _applies(per_unit, "art_6.par_1") == [("2027-08-02", "art_113.pnt_c")]

    def test_exceptions_and_other_provisions_take_the_general_date(self, ai_act):
        _, per_unit = ai_act
        assert _applies(per_unit, "art_101") == [("2026-08-02", "art_113")]  # "with the exception of Article 101"
        assert _applies(per_unit, "art_6.par_2") == [("2026-08-02", "art_113")]  # Chapter III Section 1
        assert _applies(per_unit, "art_26.par_1") == [("2026-08-02", "art_113")]
        assert _applies(per_unit, "art_50.par_2") == [("2026-08-02", "art_113")]

    def test_every_unit_is_in_force_from_the_entry_into_force(self, ai_act):
        _, per_unit = ai_act
        assert {d.in_force_from.date for d in per_unit.values()} == {"2024-08-01"}

    def test_the_final_article_applies_from_entry_into_force(self, ai_act):
        _, per_unit = ai_act
        assert _applies(per_unit, "art_113.pnt_c") == [("2024-08-01", "art_113")]

    def test_words_that_name_no_unit_are_kept(self, ai_act):
        acts, _ = ai_act
        rule = next(r for r in acts.rules if r.scope == ("art_6.par_1",))
        assert "corresponding obligations" in rule.unresolved


@pytest.mark.integration
def test_gdpr_applies_from_25_may_2018(corpus):
    acts, per_unit = _dates(corpus, "32016R0679.oj.html")
    assert (acts.entry_into_force.date, acts.entry_into_force.set_by.unit) == ("2016-05-24", "art_99.par_1")
    assert _applies(per_unit, "art_33.par_1") == [("2018-05-25", "art_99.par_2")]
    assert not acts.rules


@pytest.mark.integration
def test_dsa_sections_of_a_chapter_and_paragraph_ranges(corpus):
    acts, per_unit = _dates(corpus, "32022R2065.oj.xhtml")
    assert acts.applies_from.date == "2024-02-17"
    for unit in ("art_24.par_2", "art_33.par_5", "art_40.par_13", "art_43"):
        assert _applies(per_unit, unit) == [("2022-11-16", "art_93.par_2")], unit
    assert _applies(per_unit, "art_24.par_1") == [("2024-02-17", "art_93.par_2")]
    assert _applies(per_unit, "art_33.par_1") == [("2024-02-17", "art_93.par_2")]
    # Chapter IV Section 4 (Articles 64 ff., the Commission's supervision) from entry into force
    assert _applies(per_unit, "art_65.par_1") == [("2022-11-16", "art_93.par_2")]
    # "shall apply … from four months after the notification …": no date to read, said so
    assert any("four months after the notification" in s for _, s in acts.unread)


@pytest.mark.integration
def test_dma_two_staged_rules_in_one_sentence(corpus):
    acts, per_unit = _dates(corpus, "32022R1925.oj.xhtml")
    assert _applies(per_unit, "art_3.par_6") == [("2022-11-01", "art_54")]
    assert _applies(per_unit, "art_46") == [("2022-11-01", "art_54")]
    assert _applies(per_unit, "art_42") == [("2023-06-25", "art_54")]
    assert _applies(per_unit, "art_5") == [("2023-05-02", "art_54")]
    assert any(s.startswith("Nevertheless") for _, s in acts.unread)


@pytest.mark.integration
def test_an_act_without_a_date_of_application_applies_from_entry_into_force(corpus):
    acts, per_unit = _dates(corpus, "32026R1744.oj.xhtml")
    assert acts.entry_into_force.date == "2026-07-27"
    assert acts.applies_from.date == "2026-07-27" and "no date of application is set" in acts.applies_from.said


def _unit(uid, text, parent=None, kind="article", title=""):
    return Unit("32099R0001", "2030-01-10", uid, kind, title or f"Article {uid[4:]}", text, parent, 0, "en")


@pytest.mark.unit
def test_the_amended_article_113_exceptions_cases_and_ranges():
    """The Omnibus's Article 113 as lexcite derives it (text as in 32026R1744 Article 1, point (40))."""
    a = ("(a) Chapters I and II shall apply from 2 February 2025, with the exception of Article 5(1), first "
         "subparagraph, points (ba) and (bb), and Article 5(1a) and (1b) which shall apply from 2 December 2026;")
    c = ("(c) Chapter III, Sections 1, 2, and 3, with the exception of Article 6(5), shall apply from: "
         "(i) 2 December 2027 as regards AI systems classified as high-risk pursuant to Article 6(2) and Annex III; "
         "and (ii) 2 August 2028 as regards AI systems classified as high-risk pursuant to Article 6(1) and Annex I;")
    d = "(d) Articles 102 to 110 shall apply from 27 July 2026."
    final = _unit("art_113", "This Regulation shall enter into force on the twentieth day following that of its "
                  "publication in the Official Journal of the European Union. It shall apply from 2 August 2026. "
                  f"However: {a} {c} {d}", title="Article 113 — Entry into force and application")
    units = [
        _unit("art_5", "…"), _unit("art_5.par_1", "…", "art_5", "paragraph"),
        _unit("art_5.par_1.pnt_a", "…", "art_5.par_1", "point"),
        _unit("art_5.par_1.pnt_ba", "…", "art_5.par_1", "point"),
        _unit("art_5.par_1a", "…", "art_5", "paragraph"), _unit("art_6", "…"),
        _unit("art_6.par_2", "…", "art_6", "paragraph"), _unit("art_6.par_5", "…", "art_6", "paragraph"),
        _unit("art_102", "…"), _unit("art_104a", "…"), _unit("art_110", "…"), _unit("art_111", "…"), final,
        _unit("art_113.pnt_a", a, "art_113", "point"), _unit("art_113.pnt_c", c, "art_113", "point"),
        _unit("art_113.pnt_d", d, "art_113", "point"),
    ]
    divisions = {"art_5": "cpt_II", "art_6": "cpt_III.sct_1", "art_102": "cpt_XIII", "art_104": "cpt_XIII",
                 "art_110": "cpt_XIII", "art_111": "cpt_XIII", "art_113": "cpt_XIII"}
    acts = read_dates(units, "2030-01-10")
    per_unit = unit_dates(units, acts, divisions)
    assert _applies(per_unit, "art_5.par_1.pnt_a") == [("2025-02-02", "art_113.pnt_a")]
    assert _applies(per_unit, "art_5.par_1.pnt_ba") == [("2026-12-02", "art_113.pnt_a")]
    assert _applies(per_unit, "art_5.par_1a") == [("2026-12-02", "art_113.pnt_a")]
    cases = per_unit["art_6.par_2"].applies_from
    assert [(x.date, x.condition) for x in cases] == [
        ("2027-12-02", "as regards AI systems classified as high-risk pursuant to Article 6(2) and Annex III"),
        ("2028-08-02", "as regards AI systems classified as high-risk pursuant to Article 6(1) and Annex I")]
    assert per_unit["art_6.par_2"].earliest == "2027-12-02"
    assert _applies(per_unit, "art_6.par_5") == [("2026-08-02", "art_113")]  # excepted: the general date
    # a range covers the articles the act holds between its ends, an inserted one (104a) included
    for unit in ("art_102", "art_104a", "art_110"):
        assert _applies(per_unit, unit) == [("2026-07-27", "art_113.pnt_d")], unit
    assert _applies(per_unit, "art_111") == [("2026-08-02", "art_113")]


@pytest.mark.unit
def test_a_unit_whose_chapter_is_unknown_gets_no_date_and_says_why():
    final = _unit("art_9", "This Regulation shall enter into force on the day following that of its publication. "
                  "It shall apply from 1 March 2031. However, Chapter II shall apply from 1 March 2030.",
                  title="Article 9 — Entry into force and application")
    units = [_unit("art_1", "…"), _unit("art_2", "…"), final]
    per_unit = unit_dates(units, read_dates(units, "2030-01-10"), {"art_1": "cpt_I"})
    assert _applies(per_unit, "art_1") == [("2031-03-01", "art_9")]
    assert per_unit["art_2"].applies_from[0].date is None
    assert "no chapter or section" in per_unit["art_2"].applies_from[0].said
    assert per_unit["art_2"].in_force_from.date == "2030-01-11"


@pytest.mark.unit
def test_an_end_of_application_is_read():
    final = _unit("art_9", "This Regulation shall enter into force on the day following that of its publication. "
                  "It shall apply from 1 March 2031. Article 2 shall apply until 31 December 2032.",
                  title="Article 9 — Entry into force and application")
    units = [_unit("art_1", "…"), _unit("art_2", "…"), final]
    per_unit = unit_dates(units, read_dates(units, "2030-01-10"), {})
    assert per_unit["art_2"].applies_until.date == "2032-12-31"
    assert per_unit["art_2"].applies_until.set_by.unit == "art_9"
    assert per_unit["art_1"].applies_until is None
