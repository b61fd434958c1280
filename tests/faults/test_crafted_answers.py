"""Crafted answers through the real anthropic SDK and the fake Messages API: nothing unverified is shown
(issue 16, items 12 and 13)."""

from __future__ import annotations

import json

import pytest
from answer_helpers import FixedSearcher
from fake_anthropic import raw, text

from lexcite.answer import ask
from lexcite.answer.generate_claude import PROVIDER_FAILED
from lexcite.answer.verify import MAX_CHARS
from lexcite.contract import Perimeter

pytestmark = pytest.mark.integration

FINE_Q = "What is the maximum fine for using a prohibited AI practice?"
FINE = "32024R1689@2024-07-12#art_99.par_3"


@pytest.fixture
def fixed(answer_catalog):
    return FixedSearcher(answer_catalog, [FINE])


def run(fixed):
    return ask(FINE_Q, Perimeter(), searcher=fixed, generator="claude")


class TestTheVerifier:
    def test_an_amount_in_words_is_checked_like_digits(self, claude_env, fixed):
        claude_env.queue(text("Non-compliance can cost up to forty-five million euros. [S1]"))
        wrong = run(fixed)
        assert wrong.refused and "forty-five" not in wrong.text
        claude_env.queue(text("Non-compliance can cost up to thirty-five million euros. [S1]"))
        right = run(fixed)
        assert not right.refused, right.refusal_reason

    @pytest.mark.parametrize("reply", [
        "Non-compliance with the prohibition of the AI practices is not subject to administrative fines. [S1]",
        "Administrative fines are never imposed for the prohibited AI practices. [S1]",
        "An undertaking can't be fined for the prohibited AI practices referred to in Article 5. [S1]",
    ])
    def test_a_sentence_denying_its_cited_unit_is_refused(self, claude_env, fixed, reply):
        claude_env.queue(text(reply))
        a = run(fixed)
        assert a.refused and "negation" in a.refusal_reason

    def test_terminal_escapes_never_reach_the_answer(self, claude_env, fixed):
        claude_env.queue(text("Fines reach EUR 35 000 000\x1b[2J\x1b]0;owned\x07 or 7 % of turnover.\x07 [S1]"))
        a = run(fixed)
        assert not a.refused, a.refusal_reason
        assert "\x1b" not in a.text and "\x07" not in a.text and "EUR 35 000 000" in a.text

    def test_a_huge_repeated_answer_is_refused(self, claude_env, fixed):
        claude_env.queue(text("Fines reach EUR 35 000 000. [S1]\n" * 400))
        a = run(fixed)
        assert a.refused and str(MAX_CHARS) in a.refusal_reason


class TestMalformedResponses:
    @pytest.mark.parametrize("item", [
        raw(b"<html><body><h1>Welcome to the proxy</h1></body></html>", 200, "text/html"),
        raw(json.dumps({"unexpected": "shape"}).encode()),
        raw(json.dumps({"type": "message", "content": "Fines reach EUR 35 000 000. [S1]"}).encode()),
        raw(json.dumps({"type": "message", "content": [{"type": "text", "text": 42}]}).encode()),
        raw(json.dumps({"type": "message", "content": [{"type": "image"}], "stop_reason": "end_turn"}).encode()),
        raw(json.dumps({"type": "message", "content": None}).encode()),
        raw(b'{"id": "msg_1", "type": "message", "content": [{"type": "text", "text": "Fines reach EUR'),
        raw(b"[]"),
    ])
    def test_any_malformed_response_becomes_the_degraded_refusal(self, claude_env, fixed, item):
        claude_env.queue(item)
        a = run(fixed)
        assert a.refused and PROVIDER_FAILED in a.refusal_reason
        assert "generator_error" in a.flags
