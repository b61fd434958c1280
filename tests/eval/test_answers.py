"""Answer measures on hand-made answers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lexcite.answer.draft import strip_markers
from lexcite.answer.verify import verify
from lexcite.contract import Answer, CitationRef, CitedSentence, Conflict, Evidence, Perimeter
from lexcite.eval import answers as am
from lexcite.eval.baselines import first_sentence
from lexcite.eval.golden import GoldenQuestion

pytestmark = pytest.mark.unit

AI, OMNI = "32024R1689", "32026R1744"


def question(behavior="answer", expected=(), key_facts=()):
    return GoldenQuestion(id="q", question="Q?", expected=tuple(CitationRef.parse(e) for e in expected), anchors=(),
                          key_facts=tuple(key_facts), behavior=behavior, filters={}, category="c", post_cutoff=False,
                          split="test")


def ev(ref, status="current", binding=True, text="It shall apply from 2 August 2026."):
    return Evidence(sid="S1", ref=CitationRef.parse(ref), title="", text=text, status=status, binding=binding,
                    source_url="")


def answer(*sentences, evidence=(), conflicts=()):
    return Answer(question="Q?", sentences=tuple(CitedSentence(t, tuple(CitationRef.parse(r) for r in refs))
                                                  for t, refs in sentences),
                  evidence=tuple(evidence), conflicts=tuple(conflicts))


R = f"{AI}@2024-07-12#art_113"
INSIDE = lambda ref: None  # noqa: E731  (the catalog's word: every unit inside)


class TestKeyFacts:
    def test_share_found_across_spaces_and_case(self):
        a = answer(("It applies from 2\u00a0August 2026 to Providers.", [R]))
        assert am.key_fact_share(a, question(key_facts=["2 August  2026", "providers", "deployers"])) == 2 / 3

    def test_refusal_finds_no_fact_and_no_facts_is_not_measured(self):
        refused = Answer(question="Q?", refused=True)
        assert am.key_fact_share(refused, question(key_facts=["x"])) == 0.0
        assert am.key_fact_share(refused, question()) is None


class TestCitationValidity:
    def test_cited_refs_in_evidence_and_perimeter_are_valid(self):
        assert am.citations_valid(answer(("S.", [R])), INSIDE) is False  # not in evidence
        assert am.citations_valid(answer(("S.", [R]), evidence=[ev(R)]), INSIDE) is True

    def test_sentence_without_citation_is_invalid(self):
        assert am.citations_valid(answer(("S.", [R]), ("T.", []), evidence=[ev(R)]), INSIDE) is False

    def test_a_unit_the_catalog_puts_outside_the_perimeter_is_invalid(self):
        a = answer(("S.", [R]), evidence=[ev(R)])
        assert am.citations_valid(a, lambda ref: "a superseded version") is False

    def test_without_a_catalog_only_evidence_membership_is_checked(self):
        assert am.citations_valid(answer(("S.", [R]), evidence=[ev(R, status="superseded")]), None) is True


CHECK = am.independent_support()


class TestCitationSupport:
    def test_it_is_the_share_of_supported_sentences(self):
        a = answer(("Applies from 2 August 2026.", [R]), ("Fine of 35 million.", [R]), evidence=[ev(R)])
        assert am.citation_support(a, CHECK) == 0.5  # 35 is not in the unit

    def test_a_sentence_the_verifier_passes_can_still_be_unsupported(self):
        # Every value ("2 August 2026") is in the cited unit, so the verifier shows this answer; but what the
        # sentence says about it (deployers, registration, database) is not in that unit at all.
        sentence = "Deployers must register every system in the public database from 2 August 2026. [S1]"
        e = replace(ev(R), sid="S1")
        assert verify(sentence, [e], INSIDE).ok
        a = answer((strip_markers(sentence), [R]), evidence=[e])
        assert am.citation_support(a, CHECK) == 0.0

    def test_a_sentence_in_the_words_of_its_unit_is_supported(self):
        a = answer(("It applies from 2 August 2026.", [R]), evidence=[ev(R)])
        assert am.citation_support(a, CHECK) == 1.0

    def test_a_sentence_rendered_from_records_may_state_the_recorded_date_and_no_other(self):
        note = CitedSentence("It shall apply from 27 July 2026.", (CitationRef.parse(R),), from_records=True)
        wrong = replace(note, text="It shall apply from 28 July 2026.")
        records = am.independent_support(lambda ref: "2026-07-27")
        a = Answer(question="Q?", sentences=(note,), evidence=(ev(R),))
        assert am.citation_support(a, CHECK, records) == 1.0
        assert am.citation_support(a, CHECK) == 0.0  # without the record, 27 is in no cited text
        assert am.citation_support(replace(a, sentences=(wrong,)), CHECK, records) == 0.0
        # a generator's sentence never gets the record date
        prose = CitedSentence(note.text, note.refs)
        assert am.citation_support(replace(a, sentences=(prose,)), CHECK, records) == 0.0


class TestConflict:
    Q = question("conflict", expected=[f"{AI}#art_113", f"{OMNI}#art_1.pnt_40", f"{OMNI}#art_1.pnt_7"])

    def test_one_unit_of_each_act_shown_is_both_sides(self):
        a = answer(("A.", [R]), ("B.", [f"{OMNI}@2026-07-24#art_1.pnt_40"]))
        assert am.conflict_both_shown(a, self.Q) is True

    def test_one_side_only_is_not_enough(self):
        assert am.conflict_both_shown(answer(("A.", [R])), self.Q) is False

    def test_a_side_named_in_answer_conflicts_counts(self):
        c = Conflict("date", (("2 August 2026", CitationRef.parse(R)),
                             ("2 December 2027", CitationRef.parse(f"{OMNI}@2026-07-24#art_1.pnt_40"))), None, "")
        assert am.conflict_both_shown(Answer(question="Q?", refused=True, conflicts=(c,)), self.Q) is True

    def test_not_measured_outside_conflict_questions(self):
        assert am.conflict_both_shown(answer(("A.", [R])), question(expected=[R])) is None


def test_superseded_unit_cited_as_current_is_counted_unless_asked_for():
    a = answer(("A.", [R]), evidence=[ev(R, status="superseded")])
    assert am.cites_superseded_as_current(a, Perimeter()) is True
    assert am.cites_superseded_as_current(a, Perimeter(as_of="2025-01-01")) is False
    assert am.cites_superseded_as_current(a, Perimeter(include_superseded=True)) is False


@pytest.mark.parametrize("text, first", [
    ("1.   This Regulation shall apply from 2 August 2026. However, Article 5 applies.",
     "This Regulation shall apply from 2 August 2026."),
    ("(a) placing on the market; (b) putting into service", "placing on the market;"),
    ("No full stop here", "No full stop here"),
])
def test_first_sentence_of_a_unit(text, first):
    assert first_sentence(text) == first


class TestReferenceCorrectness:
    """ref_exact: a cited unit on an expected branch; ref_loose: in an expected article/annex."""

    P2 = f"{AI}@2024-07-12#art_6.par_2"

    @pytest.mark.parametrize("cited, exact, loose", [
        (f"{AI}@2024-07-12#art_6.par_2", True, True),
        (f"{AI}@2024-07-12#art_6.par_2.pnt_a", True, True),  # below the expected paragraph
        (f"{AI}@2024-07-12#art_6", True, True),  # above it: its text holds the paragraph
        (f"{AI}@2024-07-12#art_6.par_3", False, True),  # a neighbour: right article, wrong paragraph
        (f"{AI}@2024-07-12#art_7.par_2", False, False),
        (f"{OMNI}@2026-07-27#art_6.par_2", False, False),  # same ids, another act
    ])
    def test_branch_and_article(self, cited, exact, loose):
        q = question(expected=[f"{AI}#art_6.par_2"])
        a = answer(("S.", [cited]))
        assert (am.ref_exact(a, q), am.ref_loose(a, q)) == (exact, loose)

    def test_any_cited_unit_on_any_expected_one_counts(self):
        q = question(behavior="conflict", expected=[f"{AI}#art_113", f"{OMNI}#art_1.pnt_40"])
        a = answer(("S.", [f"{AI}@2024-07-12#art_5.par_1"]), ("T.", [f"{OMNI}@2026-07-27#art_1.pnt_40"]))
        assert am.ref_exact(a, q) is True

    def test_a_refusal_of_an_answerable_question_scores_false_and_abstain_questions_are_not_measured(self):
        refused = Answer(question="Q?", refused=True)
        assert am.ref_exact(refused, question(expected=[f"{AI}#art_6"])) is False
        assert am.ref_loose(refused, question(expected=[f"{AI}#art_6"])) is False
        assert am.ref_exact(answer(("S.", [R])), question(behavior="abstain")) is None
        assert am.ref_loose(answer(("S.", [R])), question()) is None  # no expected unit: anchors only
