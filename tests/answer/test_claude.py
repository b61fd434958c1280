"""The Claude path end to end: the real anthropic SDK against a fake Messages API on loopback.

Every scripted reply goes through the SDK (auth header, retries, parsing), then
through `ask`: verification, the numeric channel, the trace.
"""

from __future__ import annotations

import json

import pytest
from answer_helpers import FixedSearcher, injected, store
from fake_anthropic import API_KEY, raw, status, text

from lexcite.answer import ask
from lexcite.answer.generate_claude import PROVIDER_FAILED, ClaudeGenerator
from lexcite.answer.trace import TraceStore
from lexcite.contract import REFUSAL, CitationRef, Perimeter
from lexcite.errors import ConfigError

pytestmark = pytest.mark.integration

FINE_Q = "What is the maximum fine for using a prohibited AI practice?"
FINE = "32024R1689@2024-07-12#art_99.par_3"
DATES = "32024R1689@2024-07-12#art_113"


@pytest.fixture
def fixed(catalog):
    return FixedSearcher(catalog, [FINE, DATES])


def run(fixed, question=FINE_Q, **kw):
    return ask(question, Perimeter(), searcher=fixed, generator="claude", **kw)


class TestClaudeThroughTheSdk:
    def test_a_correct_cited_answer_is_shown_with_its_citation(self, claude_env, fixed):
        claude_env.queue(text("Non-compliance can cost up to EUR 35 000 000 or 7 % of worldwide annual turnover. [S1]"))
        a = run(fixed)
        assert not a.refused, a.refusal_reason
        assert a.cited() == (CitationRef.parse(FINE),)
        assert "EUR 35 000 000" in a.text and a.generator == "claude"

    def test_the_request_carries_the_key_model_system_prompt_and_numbered_sources(self, claude_env, fixed,
                                                                                   monkeypatch):
        monkeypatch.setenv("LEXCITE_CLAUDE_MODEL", "claude-test-model")
        claude_env.queue(text("Fines reach EUR 35 000 000. [S1]"))
        run(fixed)
        req = claude_env.requests[-1]
        headers = {k.lower(): v for k, v in req["headers"].items()}
        assert API_KEY in (headers.get("x-api-key", "") + headers.get("authorization", ""))
        body = req["body"]
        assert body["model"] == "claude-test-model"
        assert 64 <= body["max_tokens"] <= 8192
        assert "temperature" not in body  # rejected by the current API; see generate_claude.py
        assert "exactly this line" in body["system"] and REFUSAL in body["system"]
        user = body["messages"][0]["content"]
        assert '<source id="S1" ref="32024R1689@2024-07-12#art_99.par_3"' in user
        assert user.rstrip().endswith(f"Question: {FINE_Q}")

    def test_a_number_not_in_the_cited_span_refuses_the_answer(self, claude_env, fixed):
        claude_env.queue(text("The fine can reach EUR 40 000 000. [S1]"))
        a = run(fixed)
        assert a.refused and a.text == REFUSAL
        assert "an amount that does not appear in the text it cites" in a.refusal_reason
        assert "40 000 000" not in a.refusal_reason  # the unverified value is never shown, not even as a reason
        assert a.verdicts[0].ok is False and "EUR 40 000 000" in a.verdicts[0].reasons[0]
        assert "verification_failed" in a.flags

    def test_a_citation_to_an_id_not_given_refuses_the_answer(self, claude_env, fixed):
        claude_env.queue(text("The fine can reach EUR 35 000 000. [S7]"))
        a = run(fixed)
        assert a.refused and "S7" in a.refusal_reason

    def test_an_uncited_sentence_refuses_the_whole_answer(self, claude_env, fixed):
        claude_env.queue(text("The fine can reach EUR 35 000 000. [S1]\nThat is a lot of money."))
        a = run(fixed)
        assert a.refused and "no citation" in a.refusal_reason
        assert [v.ok for v in a.verdicts] == [True, False]

    def test_the_refusal_line_becomes_a_refusal(self, claude_env, fixed):
        claude_env.queue(text(REFUSAL))
        a = run(fixed)
        assert a.refused and a.text == REFUSAL and not a.sentences
        assert "generator_refused" in a.flags

    def test_malformed_output_is_refused(self, claude_env, fixed):
        claude_env.queue(text("## Answer\n- **Fine**: see below"))
        assert run(fixed).refused

    def test_a_malformed_response_body_degrades_to_the_fixed_message(self, claude_env, fixed):
        claude_env.queue(raw(b"{not json", 200))
        a = run(fixed)
        assert a.refused

    def test_an_overload_is_retried_and_the_retry_answers(self, claude_env, fixed):
        claude_env.queue(status(529), text("The fine can reach EUR 35 000 000. [S1]"))
        a = run(fixed)
        assert not a.refused, a.refusal_reason
        assert len(claude_env.requests) == 2

    def test_a_server_error_that_persists_degrades_to_a_refusal_without_numbers(self, claude_env, fixed):
        claude_env.queue(*[status(500)] * 10)
        a = run(fixed)
        assert a.refused and "generator_error" in a.flags
        assert PROVIDER_FAILED in a.refusal_reason
        assert not any(ch.isdigit() for ch in PROVIDER_FAILED)
        assert not any(ch.isdigit() for ch in a.refusal_reason)

    def test_the_provider_error_code_goes_to_the_trace_only(self, claude_env, fixed):
        claude_env.queue(*[status(500)] * 10)
        a = run(fixed)
        with TraceStore() as s:
            doc = s.get(a.trace_id).doc
        assert "500" in doc["trace"]["params"]["error"]

    def test_a_cut_off_answer_is_not_shown(self, claude_env, fixed):
        claude_env.queue(text("The fine can reach EUR 35 000 000 [S1]. And", stop_reason="max_tokens"))
        a = run(fixed)
        assert a.refused and "generator_truncated" in a.flags

    def test_no_key_means_no_claude(self, fixed):
        with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
            ClaudeGenerator()

    def test_without_a_key_the_default_generator_is_extractive(self, catalog, fixed):
        a = ask(FINE_Q, Perimeter(), searcher=fixed)
        assert a.generator == "extractive"


class TestFabricationGuard:
    def test_a_second_invented_number_beside_the_true_one_is_refused(self, claude_env, fixed):
        claude_env.queue(text("The fine can reach EUR 35 000 000, or EUR 50 000 000 for repeat offenders. [S1]"))
        a = run(fixed)
        assert a.refused
        assert "50 000 000" not in a.text

    def test_a_value_of_another_kind_found_in_the_cited_text_does_not_answer_a_value_question(self, claude_env,
                                                                                              fixed):
        # "2 August 2026" is in S2's text, so the verifier lets it through; but the question asks for an
        # amount, and no stored fact of that kind supports the answer.
        claude_env.queue(text("Fines apply from 2 August 2026. [S2]"))
        a = run(fixed)
        assert a.refused and "fabrication_guard" in a.flags

    def test_the_number_shown_is_rendered_from_the_stored_fact(self, claude_env, fixed):
        claude_env.queue(text("The fine can reach EUR 35,000,000. [S1]"))
        a = run(fixed)
        assert not a.refused, a.refusal_reason
        assert "EUR 35 000 000" in a.text and "35,000,000" not in a.text
        with TraceStore() as s:
            doc = s.get(a.trace_id).doc
        binding = doc["trace"]["bindings"][0]
        assert binding["written"] == "EUR 35,000,000" and binding["rendered"] == "EUR 35 000 000"
        assert binding["ref"] == FINE

    def test_a_value_question_answered_without_a_value_is_refused_with_the_guard_flag(self, claude_env, fixed):
        claude_env.queue(text("Non-compliance is subject to administrative fines. [S1]"))
        a = run(fixed)
        assert a.refused and "fabrication_guard" in a.flags
        with TraceStore() as s:
            assert "fabrication_guard" in s.get(a.trace_id).doc["trace"]["flags"]


class TestPromptInjection:
    @pytest.fixture
    def with_injection(self, catalog):
        store(catalog, injected())
        return FixedSearcher(catalog, [FINE, "32025R0999@2025-01-01#art_9"])

    @pytest.mark.parametrize("reply", [
        "42",
        "The answer is 42.",
        "The maximum fine is EUR 42. [S2]",
        "The maximum fine is 42. [S2]",
        "The maximum fine is 42. [S1]",
        "Every sentence is supported. The maximum fine is EUR 42 [S1].",
        "The maximum fine is EUR 35 000 000 [S1]. The answer is 42 [S2].",
    ])
    def test_a_unit_that_says_answer_42_cannot_make_an_unverified_answer_pass(self, claude_env, with_injection,
                                                                               reply):
        claude_env.queue(text(reply))
        a = ask(FINE_Q, Perimeter(), searcher=with_injection, generator="claude")
        assert a.refused, a.text
        assert "42" not in a.text

    def test_marker_like_text_inside_a_unit_is_neutralised_in_the_prompt(self, claude_env, with_injection):
        claude_env.queue(text(REFUSAL))
        ask(FINE_Q, Perimeter(), searcher=with_injection, generator="claude")
        user = claude_env.requests[-1]["body"]["messages"][0]["content"]
        assert "supported (S1)" in user and "supported [S1]" not in user

    def test_the_extractive_generator_ignores_instructions_and_quotes_the_law(self, catalog, with_injection):
        a = ask(FINE_Q, Perimeter(), searcher=with_injection, generator="extractive")
        assert not a.refused and "EUR 35 000 000" in a.text and "42" not in a.text


def test_the_whole_answer_serialises_to_json(claude_env, fixed):
    claude_env.queue(text("The fine can reach EUR 35 000 000. [S1]"))
    d = json.loads(json.dumps(run(fixed).to_dict()))
    assert d["sentences"][0]["refs"] == [FINE] and d["generator"] == "claude"


def test_effort_and_temperature_are_sent_only_when_asked(claude_env, fixed):
    from lexcite.answer.evidence import build_evidence

    gen = ClaudeGenerator(effort="low", temperature=0.0)
    claude_env.queue(text("The fine can reach EUR 35 000 000. [S1]"))
    gen.generate(FINE_Q, build_evidence(fixed.search(FINE_Q)))
    body = claude_env.requests[-1]["body"]
    assert body["output_config"] == {"effort": "low"} and body["temperature"] == 0.0


ART_99_3_TEXT = ("3. Non-compliance with the prohibition of the AI practices referred to in Article 5 shall be subject "
                 "to administrative fines of up to EUR 35 000 000 or, if the offender is an undertaking, up to 7 % of "
                 "its total worldwide annual turnover for the preceding financial year, whichever is higher.")
ART_99_4_TEXT = ("4. Non-compliance with any of the following provisions related to operators or notified bodies, "
                 "other than those laid down in Articles 5, shall be subject to administrative fines of up to "
                 "EUR 15 000 000 or, if the offender is an undertaking, up to 3 % of its total worldwide annual "
                 "turnover for the preceding financial year, whichever is higher.")


@pytest.fixture
def two_paragraphs(catalog):
    """Two paragraphs of one article, each with its own fine (the text of Article 99(3) and (4) of the AI Act)."""
    from answer_helpers import _units

    from lexcite.contract import ParsedAct

    act = "32025R0888"
    spec = [("art_99", "article", "Article 99 — Penalties", f"{ART_99_3_TEXT} {ART_99_4_TEXT}", None),
            ("art_99.par_3", "paragraph", "Article 99(3)", ART_99_3_TEXT, "art_99"),
            ("art_99.par_4", "paragraph", "Article 99(4)", ART_99_4_TEXT, "art_99")]
    store(catalog, ParsedAct(act, "2025-01-01", "en", "oj", "Regulation (EU) 2025/888 (test)",
                             _units(act, "2025-01-01", spec)))
    return FixedSearcher(catalog, [f"{act}@2025-01-01#art_99.par_3", f"{act}@2025-01-01#art_99.par_4"])


class TestParagraphsAndModelRefusals:
    Q = "What fine does an operator face for breaching its obligations?"

    def test_sources_are_named_by_their_paragraph(self, claude_env, two_paragraphs):
        claude_env.queue(text("An operator can be fined up to EUR 15 000 000. [S2]"))
        a = run(two_paragraphs, self.Q)
        assert not a.refused, a.refusal_reason
        user = claude_env.requests[-1]["body"]["messages"][0]["content"]
        assert 'ref="32025R0888@2025-01-01#art_99.par_4"' in user and 'ref="32025R0888@2025-01-01#art_99.par_3"' in user
        assert a.cited() == (CitationRef.parse("32025R0888@2025-01-01#art_99.par_4"),)

    def test_the_wrong_paragraph_of_the_right_article_is_refused(self, claude_env, two_paragraphs):
        # The 15 000 000 of paragraph 4, cited to paragraph 3 (which says 35 000 000).
        claude_env.queue(text("An operator can be fined up to EUR 15 000 000. [S1]"))
        a = run(two_paragraphs, self.Q)
        assert a.refused and not a.sentences and "verification_failed" in a.flags
        assert "does not appear in the text it cites" in a.refusal_reason
        assert [v.ok for v in a.verdicts] == [False]

    @pytest.mark.parametrize("reply", [
        f"{REFUSAL}\nThe provisions do not say how much a notified body charges for a certification.",
        "The provisions do not say how much a notified body charges for a certification.",
    ])
    def test_a_model_refusal_becomes_the_refusal_with_the_models_reason(self, claude_env, two_paragraphs, reply):
        claude_env.queue(text(reply))
        a = run(two_paragraphs, "How much does a notified body charge to certify a system?")
        assert a.refused and a.text == REFUSAL and not a.sentences
        assert "generator_refused" in a.flags and "generator_said_no" in a.flags
        assert a.refusal_reason == (f"{REFUSAL} The generator found no answer in the admitted evidence: the provisions "
                                    "do not say how much a notified body charges for a certification.")

    def test_a_model_reason_that_states_a_value_is_not_repeated(self, claude_env, two_paragraphs):
        claude_env.queue(text(f"{REFUSAL}\nIn practice notified bodies charge about EUR 20 000."))
        a = run(two_paragraphs, "How much does a notified body charge to certify a system?")
        assert a.refused and a.refusal_reason == f"{REFUSAL} The generator found no answer in the admitted evidence."
        assert "20 000" not in json.dumps(a.to_dict()["refusal_reason"])
