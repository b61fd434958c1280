"""Admitted units that disagree: every value shown with its reference, and the fixed rule's outcome."""

from __future__ import annotations

from dataclasses import replace

import pytest
from answer_helpers import AI_ACT, GUIDANCE, OMNIBUS, FixedSearcher, ai_act, guidance, omnibus, store

from lexcite.answer import ask
from lexcite.answer.conflicts import RULES, Relations, find_conflicts, former_conflict, unit_label
from lexcite.answer.verify import check_values
from lexcite.contract import CitationRef, Conflict, Evidence, Fact, Perimeter

pytestmark = pytest.mark.unit

Q = "From when does Chapter III apply to high-risk AI systems listed in Annex III?"
ORIG = "32024R1689@2024-07-12#art_113"
AMEND = "32026R1744@2026-07-24#art_1.pnt_40"
GUIDE = "52026XC0720@2026-07-20#art_1"
P = CitationRef.parse


def ev(sid: str, ref: str, binding: bool = True) -> Evidence:
    return Evidence(sid, CitationRef.parse(ref), "", "", "current", binding, "")


def fact(ref: str, value: str, display: str, kind: str = "application_date") -> Fact:
    return Fact(kind, value, "date", display, "shall apply high-risk ai systems annex iii", CitationRef.parse(ref),
                0, len(display))


AMENDS = Relations(amends={OMNIBUS: frozenset({AI_ACT})}, applies_from={OMNIBUS: "2026-07-27"})


class TestRules:
    def test_a_later_amending_act_prevails_from_its_date_of_application(self):
        conflicts, sentences = find_conflicts(
            Q, [ev("S1", ORIG), ev("S2", AMEND)],
            [fact(ORIG, "2026-08-02", "2 August 2026"), fact(AMEND, "2027-12-02", "2 December 2027")],
            set(), AMENDS, "2026-11-29")
        (c,) = conflicts
        assert c.values == (("2 August 2026", P(ORIG)), ("2 December 2027", P(AMEND)))
        assert c.prevails == P(AMEND) and c.rule == RULES["amending"]
        assert [s.refs for s in sentences] == [(CitationRef.parse(ORIG),), (CitationRef.parse(AMEND),),
                                               (CitationRef.parse(AMEND),)]
        assert sentences[-1].text.endswith("Article 1, point (40) of Regulation (EU) 2026/1744 prevails.")

    def test_before_its_date_of_application_the_amended_text_still_prevails(self):
        conflicts, _ = find_conflicts(
            Q, [ev("S1", ORIG), ev("S2", AMEND)],
            [fact(ORIG, "2026-08-02", "2 August 2026"), fact(AMEND, "2027-12-02", "2 December 2027")],
            set(), AMENDS, "2026-01-01")
        assert conflicts[0].prevails == P(ORIG) and conflicts[0].rule == RULES["not_yet"]

    def test_binding_legislation_prevails_over_guidance(self):
        conflicts, _ = find_conflicts(
            Q, [ev("S1", GUIDE, binding=False), ev("S2", ORIG)],
            [fact(GUIDE, "2026-08-03", "3 August 2026"), fact(ORIG, "2026-08-02", "2 August 2026")],
            set(), Relations(), "2026-11-29")
        assert conflicts[0].prevails == P(ORIG) and conflicts[0].rule == RULES["binding"]

    def test_two_guidance_documents_that_disagree_diverge(self):
        other = "52026XC0999@2026-07-21#art_1"
        conflicts, sentences = find_conflicts(
            Q, [ev("S1", GUIDE, binding=False), ev("S2", other, binding=False)],
            [fact(GUIDE, "2026-08-03", "3 August 2026"), fact(other, "2026-08-04", "4 August 2026")],
            set(), Relations(), "2026-11-29")
        assert conflicts[0].prevails is None and conflicts[0].rule == RULES["diverge"]
        assert "diverge" in sentences[-1].text and len(sentences[-1].refs) == 2
        # every sentence shown passes the verifier's value and polarity check against the units it cites
        evidence = {GUIDE: Evidence("S1", P(GUIDE), "", "Applies from 3 August 2026.", "current", False, ""),
                    other: Evidence("S2", P(other), "", "Applies from 4 August 2026.", "current", False, "")}
        for s in sentences:
            assert check_values(s.text, [evidence[str(r)] for r in s.refs])[1] == [], s.text

    def test_two_unrelated_binding_acts_are_two_laws_not_a_conflict(self):
        gdpr = "32016R0679@2016-05-04#art_83.par_5"
        conflicts, _ = find_conflicts(
            "What is the maximum fine?", [ev("S1", "32024R1689@2024-07-12#art_99.par_3"), ev("S2", gdpr)],
            [Fact("fine_amount", "35000000", "EUR", "EUR 35 000 000", "maximum fine",
                  CitationRef.parse("32024R1689@2024-07-12#art_99.par_3"), 0, 1),
             Fact("fine_amount", "20000000", "EUR", "20 000 000 EUR", "maximum fine", CitationRef.parse(gdpr), 0, 1)],
            set(), Relations(), "2026-11-29")
        assert conflicts == ()

    def test_equal_values_are_no_conflict(self):
        conflicts, _ = find_conflicts(
            Q, [ev("S1", ORIG), ev("S2", AMEND)],
            [fact(ORIG, "2026-08-02", "2 August 2026"), fact(AMEND, "2026-08-02", "2 August 2026")],
            set(), AMENDS, "2026-11-29")
        assert conflicts == ()

    def test_a_question_that_asks_for_no_value_looks_for_no_conflict(self):
        conflicts, _ = find_conflicts(
            "What is an AI system?", [ev("S1", ORIG), ev("S2", AMEND)],
            [fact(ORIG, "2026-08-02", "2 August 2026"), fact(AMEND, "2027-12-02", "2 December 2027")],
            set(), AMENDS, "2026-11-29")
        assert conflicts == ()


class TestRelations:
    def test_an_amending_title_names_the_acts_it_amends(self, catalog):
        store(catalog, omnibus())
        rel = Relations.from_catalog(catalog)
        assert AI_ACT in rel.amends[OMNIBUS]
        assert "32018R1139" in rel.amends[OMNIBUS]
        assert rel.applies_from[OMNIBUS] == "2026-07-24"

    def test_the_acts_a_derived_version_is_amended_by_are_not_acts_it_amends(self, catalog):
        derived = ai_act(version="2026-07-27")
        store(catalog, replace(derived, title="Regulation (EU) 2024/1689 amending Regulation (EU) 2018/1139 — "
                                              "as amended by Regulation (EU) 2026/1744 (from 2026-07-27)"))
        rel = Relations.from_catalog(catalog)
        assert rel.amends[AI_ACT] == {"32018R1139"}


class TestThroughAsk:
    class OneSide:
        """A generator that reports only the original date: the conflict must still be shown."""

        name, model = "one-side", "one-side-1"

        def generate(self, question, evidence):
            from lexcite.answer.draft import Draft

            sid = next(e.sid for e in evidence if e.ref.act == AI_ACT)
            return Draft(f"It shall apply from 2 August 2026. [{sid}]")

    def test_an_answer_that_names_one_value_is_completed_with_the_other_and_the_rule(self, catalog):
        store(catalog, omnibus())
        store(catalog, guidance())
        a = ask(Q, searcher=FixedSearcher(catalog, [ORIG, AMEND, GUIDE]), generator=self.OneSide())
        assert not a.refused, a.refusal_reason
        (c,) = a.conflicts
        assert {str(r) for _, r in c.values} == {ORIG, AMEND, GUIDE}
        assert c.prevails == P(AMEND)
        assert RULES["amending"] in c.rule and RULES["binding"] in c.rule
        assert "2 December 2027" in a.text and "2 August 2026" in a.text
        assert CitationRef.parse(AMEND) in a.cited() and CitationRef.parse(ORIG) in a.cited()
        assert "conflict" in a.flags

    def test_a_unit_outside_the_perimeter_never_enters_a_conflict(self, catalog):
        # As of 2026-07-01 the amending act is not yet in force; were it handed over anyway, it stays out.
        store(catalog, omnibus())
        a = ask(Q, Perimeter(as_of="2026-07-01"), searcher=FixedSearcher(catalog, [ORIG, AMEND]),
                generator=self.OneSide())
        assert not a.refused, a.refusal_reason
        assert a.conflicts == () and CitationRef.parse(AMEND) not in a.cited()


def test_unit_labels_name_the_act_and_the_provision():
    assert unit_label(CitationRef.parse(ORIG)) == "Article 113 of Regulation (EU) 2024/1689"
    assert unit_label(CitationRef.parse("32024R1689@2024-07-12#art_6.par_2")) == \
        "Article 6(2) of Regulation (EU) 2024/1689"
    assert unit_label(CitationRef.parse(GUIDE), binding=False) == "Article 1 of this guidance"
    nested = CitationRef.parse("32026R1744@2026-07-24#art_1.pnt_40.pnt_b")
    assert unit_label(nested) == "Article 1, point (40)(b) of Regulation (EU) 2026/1744"
    from lexcite.answer.verify import check_values

    assert not check_values(f"{unit_label(nested)} gives 2 August 2028.",
                            [Evidence("S1", nested, "", "(b) ... 2 August 2028 ...", "current", True, "")])[1]
    assert ai_act().act == AI_ACT and guidance().act == GUIDANCE


def test_an_amending_unit_applies_from_its_own_link_date_before_its_acts():
    rel = Relations(amends={OMNIBUS: frozenset({AI_ACT})}, applies_from={OMNIBUS: "2026-07-27"},
                    unit_applies_from={"32026R1744@2026-07-24#art_1.pnt_7": "2026-12-02"})
    assert rel.start_of(CitationRef.parse("32026R1744@2026-07-24#art_1.pnt_7.pnt_a")) == "2026-12-02"
    assert rel.start_of(CitationRef.parse(AMEND)) == "2026-07-27"
    ban = "32026R1744@2026-07-24#art_1.pnt_7"
    conflicts, _ = find_conflicts(
        Q, [ev("S1", ORIG), ev("S2", ban)],
        [fact(ORIG, "2026-08-02", "2 August 2026"), fact(ban, "2026-12-02", "2 December 2026")],
        set(), rel, "2026-11-29")
    assert conflicts[0].prevails == P(ORIG) and conflicts[0].rule == RULES["not_yet"]


def test_relations_read_the_amendment_links_when_the_catalog_has_them(catalog):
    catalog.conn.execute(
        "INSERT INTO amendments (amending_act, amending_version, seq, amending, target_act, target_unit, action, "
        "applies_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (OMNIBUS, "2026-07-24", 1, "32026R1744@2026-07-24#art_1.pnt_7", AI_ACT, "art_5.par_1", "inserted",
         "2026-12-02"))
    rel = Relations.from_catalog(catalog)
    assert AI_ACT in rel.amends[OMNIBUS]
    assert rel.unit_applies_from["32026R1744@2026-07-24#art_1.pnt_7"] == "2026-12-02"


class TestVersions:
    NEW = "32024R1689@2026-07-27#art_113"

    def test_a_later_version_of_the_same_provision_prevails(self):
        conflicts, _ = find_conflicts(
            Q, [ev("S1", ORIG), ev("S2", self.NEW)],
            [fact(ORIG, "2026-08-02", "2 August 2026"), fact(self.NEW, "2027-12-02", "2 December 2027")],
            set(), Relations(version_from={(AI_ACT, "2026-07-27"): "2026-07-27"}), "2026-11-29")
        assert conflicts[0].prevails == P(self.NEW) and conflicts[0].rule == RULES["version"]

    def test_different_provisions_of_two_versions_are_not_a_conflict(self):
        other = "32024R1689@2026-07-27#art_111.par_2"
        conflicts, _ = find_conflicts(
            Q, [ev("S1", ORIG), ev("S2", other)],
            [fact(ORIG, "2026-08-02", "2 August 2026"), fact(other, "2030-08-02", "2 August 2030")],
            set(), Relations(), "2026-11-29")
        assert conflicts == ()

    def test_an_amending_unit_is_compared_only_with_the_provisions_its_links_target(self):
        rel = Relations(amends={OMNIBUS: frozenset({AI_ACT})}, applies_from={OMNIBUS: "2026-07-27"},
                        unit_targets={AMEND: frozenset({(AI_ACT, "art_113.pnt_c")})})
        untouched = "32024R1689@2024-07-12#art_111.par_2"
        facts = [fact(untouched, "2026-08-02", "2 August 2026"), fact(AMEND, "2027-12-02", "2 December 2027")]
        assert find_conflicts(Q, [ev("S1", untouched), ev("S2", AMEND)], facts, set(), rel, "2026-11-29")[0] == ()
        facts[0] = fact(ORIG, "2026-08-02", "2 August 2026")
        conflicts, _ = find_conflicts(Q, [ev("S1", ORIG), ev("S2", AMEND)], facts, set(), rel, "2026-11-29")
        assert conflicts and conflicts[0].prevails == P(AMEND)

    def test_a_unit_of_the_amending_act_that_no_link_names_changes_nothing(self):
        # Recital 40 of the Omnibus explains the new dates; it amends nothing, so it is not the other side of
        # the amended Article 113, whatever its dates.
        point_c = {"32026R1744@2026-07-24#art_1.pnt_40.pnt_b": frozenset({(AI_ACT, "art_113.pnt_c")})}
        rel = Relations(amends={OMNIBUS: frozenset({AI_ACT})}, applies_from={OMNIBUS: "2026-07-27"},
                        unit_targets=point_c)
        recital = "32026R1744@2026-07-24#rct_40"
        assert rel.targets_of(CitationRef.parse(recital)) == frozenset()
        conflicts, _ = find_conflicts(
            Q, [ev("S1", recital), ev("S2", ORIG)],
            [fact(recital, "2027-12-02", "2 December 2027"), fact(ORIG, "2026-08-02", "2 August 2026")],
            set(), rel, "2026-11-29")
        assert conflicts == ()

    def test_an_amending_unit_and_a_version_that_already_contains_it_are_one_text(self):
        rel = Relations(amends={OMNIBUS: frozenset({AI_ACT})}, applies_from={OMNIBUS: "2026-07-27"},
                        incorporates={(AI_ACT, "2026-07-27"): frozenset({OMNIBUS})})
        derived = "32024R1689@2026-07-27#art_113.pnt_c.pnt_ii"
        conflicts, _ = find_conflicts(
            Q, [ev("S1", AMEND), ev("S2", derived)],
            [fact(AMEND, "2027-12-02", "2 December 2027"), fact(derived, "2028-08-02", "2 August 2028")],
            set(), rel, "2026-11-29")
        assert conflicts == ()


class TestFormer:
    OLD, NEW = "32024R1689@2024-07-12#art_57.par_1", "32024R1689@2026-07-27#art_57.par_1"
    OLD_TEXT = "1. Each Member State shall establish a sandbox, which shall be operational by 2 August 2026."
    NEW_TEXT = "1. Each Member State shall establish a sandbox, which shall be operational by 2 August 2027."
    Q = "By when must each Member State have a sandbox operational?"

    def facts(self, old_subject: str = "sandbox operational") -> list[Fact]:
        at = self.OLD_TEXT.index("2 August")
        return [Fact("date", "2026-08-02", "date", "2 August 2026", old_subject, CitationRef.parse(self.OLD), at,
                     at + 13),
                Fact("date", "2027-08-02", "date", "2 August 2027", "sandbox operational", CitationRef.parse(self.NEW),
                     at, at + 13)]

    def test_a_changed_value_of_the_same_subject_gives_former_and_current_values(self):
        c = former_conflict(self.Q, (CitationRef.parse(self.OLD), self.OLD_TEXT),
                            (CitationRef.parse(self.NEW), self.NEW_TEXT), self.facts(), set())
        assert c == Conflict("date", (("2 August 2026", P(self.OLD)), ("2 August 2027", P(self.NEW))), P(self.NEW),
                             RULES["amending"])

    def test_a_value_of_another_subject_gives_the_two_texts(self):
        c = former_conflict(self.Q, (CitationRef.parse(self.OLD), self.OLD_TEXT),
                            (CitationRef.parse(self.NEW), self.NEW_TEXT), self.facts("annual report commission"), set())
        assert c.fact_kind == "text" and c.values == ((self.OLD_TEXT, P(self.OLD)), (self.NEW_TEXT, P(self.NEW)))
        assert c.prevails == P(self.NEW)

    def test_the_same_text_is_no_conflict(self):
        assert former_conflict("What is a sandbox?", (CitationRef.parse(self.OLD), self.OLD_TEXT),
                               (CitationRef.parse(self.NEW), self.OLD_TEXT), [], set()) is None
