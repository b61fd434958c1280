"""Invariant 4: a value asked for is rendered from a stored fact with its locator, never from model prose."""

from __future__ import annotations

import pytest
from answer_helpers import FixedSearcher

from lexcite.answer import ask
from lexcite.answer.draft import Draft
from lexcite.answer.numeric import bind_values
from lexcite.answer.trace import TraceStore
from lexcite.contract import REFUSAL, CitationRef, CitedSentence, Fact, Perimeter
from lexcite.question import cues

pytestmark = pytest.mark.unit

REF = CitationRef.parse("32024R1689@2024-07-12#art_99.par_3")
FACTS = [
    Fact("fine_amount", "35000000", "EUR", "EUR 35 000 000", "administrative fines", REF, 100, 114),
    Fact("turnover_pct", "7", "%", "7 %", "turnover", REF, 150, 153),
]


class Scripted:
    """A generator that says what it is told (a real Generator, as llm's MockModel is a real Model)."""

    name = "scripted"
    model = "scripted-1"

    def __init__(self, reply: str):
        self.reply = reply
        self.calls = 0

    def generate(self, question, evidence):
        self.calls += 1
        return Draft(self.reply, model=self.model, prompt=question)


class TestQuestionCues:
    @pytest.mark.parametrize("question, kinds", [
        ("By when must providers comply?", {"date", "month", "period"}),
        ("How much is the maximum fine?", {"amount", "percent"}),
        ("What percentage of turnover can be fined?", {"percent"}),
        ("Within how many days must an incident be reported?", {"period", "date"}),
        ("Above what compute threshold in FLOPs is a model systemic?", {"power"}),
        ("What is an AI system?", set()),
        ("Is social scoring prohibited?", set()),
    ])
    def test_a_question_that_asks_for_a_value_says_which_kind(self, question, kinds):
        assert cues(question).value_kinds() == kinds


class TestBinding:
    def test_a_value_is_rewritten_from_the_stored_fact(self):
        r = bind_values([CitedSentence("Fines reach EUR 35,000,000.", (REF,))], FACTS, frozenset({"amount"}))
        assert r.ok and r.sentences[0].text == "Fines reach EUR 35 000 000."
        assert r.bindings[0].ref == REF and (r.bindings[0].start, r.bindings[0].end) == (100, 114)

    def test_a_value_without_a_fact_is_refused_with_the_guard(self):
        r = bind_values([CitedSentence("Fines reach EUR 35 000 000 or EUR 50 000 000.", (REF,))], FACTS,
                        frozenset({"amount"}))
        assert not r.ok and r.flags == ("fabrication_guard",)
        assert "amount that matches no fact" in r.reason and "50 000 000" not in r.reason

    def test_a_fact_of_a_unit_the_sentence_does_not_cite_does_not_count(self):
        other = CitationRef.parse("32016R0679@2016-05-04#art_83.par_5")
        r = bind_values([CitedSentence("Fines reach EUR 35 000 000.", (other,))], FACTS, frozenset({"amount"}))
        assert not r.ok

    def test_an_answer_without_the_kind_of_value_asked_for_is_refused(self):
        r = bind_values([CitedSentence("Fines are high.", (REF,))], FACTS, frozenset({"amount"}))
        assert not r.ok and "asks for a value" in r.reason


class TestThroughAsk:
    Q = "What is the maximum fine for prohibited AI practices?"

    @pytest.fixture
    def fixed(self, catalog):
        return FixedSearcher(catalog, [str(REF)])

    def test_a_generator_that_adds_an_invented_second_number_is_refused(self, fixed):
        gen = Scripted("The fine reaches EUR 35 000 000, and EUR 70 000 000 for repeat offenders. [S1]")
        a = ask(self.Q, searcher=fixed, generator=gen)
        assert a.refused and a.text == REFUSAL
        assert "70 000 000" not in a.text

    def test_an_invented_number_that_appears_in_the_cited_text_as_another_kind_is_still_refused(self, fixed):
        # 35 000 000 is in the text, but as euro; a percentage of 35 000 000 is no stored fact.
        gen = Scripted("The fine reaches 7 % or 35 000 000 %. [S1]")
        a = ask(self.Q, searcher=fixed, generator=gen)
        assert a.refused

    def test_the_true_number_is_shown_as_stored_with_its_locator_in_the_trace(self, fixed):
        gen = Scripted("The fine reaches EUR 35 million. [S1]")
        a = ask(self.Q, searcher=fixed, generator=gen)
        assert not a.refused, a.refusal_reason
        assert a.text == "The fine reaches EUR 35 000 000."
        assert "numeric_path" in a.flags
        with TraceStore() as s:
            b = s.get(a.trace_id).doc["trace"]["bindings"]
        assert b[0]["ref"] == str(REF) and b[0]["rendered"] == "EUR 35 000 000"
        assert b[0]["span"][1] - b[0]["span"][0] == len("EUR 35 000 000")

    def test_no_matching_fact_refuses_and_the_trace_flags_the_guard(self, fixed):
        a = ask(self.Q, searcher=fixed, generator=Scripted("Non-compliance is fined. [S1]"))
        assert a.refused and "fabrication_guard" in a.flags
        with TraceStore() as s:
            assert "fabrication_guard" in s.get(a.trace_id).doc["trace"]["flags"]

    def test_a_question_that_asks_for_no_value_leaves_prose_to_the_verifier(self, catalog):
        fixed = FixedSearcher(catalog, ["32024R1689@2024-07-12#art_3.pnt_1"])
        a = ask("What is an AI system?", searcher=fixed,
                generator=Scripted("An AI system is a machine-based system. [S1]"))
        assert not a.refused and "numeric_path" not in a.flags

    def test_the_perimeter_is_kept_on_the_answer(self, fixed):
        p = Perimeter(acts=("32024R1689",))
        a = ask(self.Q, p, searcher=fixed, generator=Scripted("The fine reaches EUR 35 000 000. [S1]"))
        assert a.perimeter == p
