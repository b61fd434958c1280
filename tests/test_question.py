"""lexcite.question: what a question asks for, read from its cue words; its content words."""

from __future__ import annotations

import pytest

from lexcite.question import content_terms, cues, stem

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("question, kinds", [
    ("By when must providers comply?", {"date", "month", "period"}),
    ("How many days does a provider have to report a serious incident?", {"date", "period"}),
    ("How much can a company be fined?", {"amount", "percent"}),
    ("What percentage of turnover?", {"percent"}),
    ("What does 'provider' mean?", set()),
])
def test_the_values_a_question_asks_for(question, kinds):
    assert cues(question).value_kinds() == kinds


def test_how_many_days_asks_for_a_period_not_a_date():
    assert cues("How many days does a provider have?").names() == ("period",)


def test_a_definition_question_is_recognised():
    assert cues("What does 'provider' mean?").definition


def test_content_terms_drop_stop_words_and_keep_compounds_whole_and_split():
    assert content_terms("The providers of high-risk AI systems shall comply") == [
        "provid", "high-risk", "high", "risk", "ai", "system", "compli"]


def test_the_stemmer_joins_the_forms_of_a_word():
    assert stem("providers") == stem("provider") == "provid"
    assert stem("prohibited") == stem("prohibition") == "prohibit"
    assert stem("conscious") == stem("consciousness") and stem("fines") == stem("fined")
