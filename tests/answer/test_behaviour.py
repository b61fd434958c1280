"""One behaviour suite, run against both generators (extractive, and Claude through the SDK and the fake API).

The Claude side is a scripted model: for each question it writes one sentence and cites
the source whose reference ends with the expected unit, whatever S-number the search gave it.
"""

from __future__ import annotations

import re

import pytest
from answer_helpers import AI_ACT, GDPR, GUIDANCE, OMNIBUS, TermSearcher, ai_act, guidance, omnibus, store
from fake_anthropic import question_of, text

from lexcite.answer import ask
from lexcite.contract import REFUSAL, Perimeter

pytestmark = pytest.mark.integration

# (words of the question, unit the model cites, the sentence it writes)
SCRIPT = [
    ("maximum fine", "art_99.par_3", "Prohibited AI practices can be fined up to EUR 35 000 000 or 7 % of "
                                     "worldwide annual turnover."),
    ("administrative fine", "art_99.par_3", "Administrative fines reach up to EUR 35 000 000."),
    ("administrative fine", "art_83.par_5", "Administrative fines reach up to 20 000 000 EUR."),
    ("is an AI system", "art_3.pnt_1", "An ‘AI system’ means a machine-based system designed to operate with varying "
                                 "levels of autonomy that infers how to generate outputs."),
    ("Chapter III", "art_1.pnt_40", "Chapter III, Sections 1, 2 and 3, apply to high-risk AI systems listed in "
                                    "Annex III from 2 December 2027."),
    ("pizza", "art_99.par_3", "Pizza is not regulated."),
]


def scripted_model(body):
    q, user = question_of(body), body["messages"][0]["content"]
    for needle, unit, sentence in SCRIPT:
        if needle.lower() in q.lower():
            m = re.search(rf'<source id="(S\d+)" ref="[^"]*#{re.escape(unit)}"', user)
            if m:
                return text(f"{sentence} [{m[1]}]")
    return text(REFUSAL)


@pytest.fixture(params=["extractive", "claude"])
def generator(request):
    if request.param == "claude":
        env = request.getfixturevalue("claude_env")
        env.respond_with(scripted_model)
    return request.param


def cited_units(a):
    return {(r.act, r.unit) for r in a.cited()}


class TestBehaviour:
    def test_an_answer_present_in_the_documents_cites_the_unit_that_holds_it(self, generator, searcher):
        a = ask("What is the maximum fine for prohibited AI practices?", searcher=searcher, generator=generator)
        assert not a.refused, a.refusal_reason
        assert (AI_ACT, "art_99.par_3") in cited_units(a)
        assert "EUR 35 000 000" in a.text
        assert a.generator == generator

    def test_a_definition_question_cites_the_definition(self, generator, searcher):
        a = ask("What is an AI system?", searcher=searcher, generator=generator)
        assert not a.refused, a.refusal_reason
        assert cited_units(a) == {(AI_ACT, "art_3.pnt_1")}
        assert "machine-based system" in a.text

    def test_an_answer_absent_from_the_documents_is_refused_without_citation(self, generator, searcher,
                                                                             fake_api):
        before = len(fake_api.requests)
        a = ask("What is the best recipe for pizza dough?", searcher=searcher, generator=generator)
        assert a.refused and a.text == REFUSAL
        assert a.cited() == () and a.sentences == ()
        assert "no_evidence" in a.flags
        assert "all acts in the catalog" in a.refusal_reason  # says what was searched
        assert len(fake_api.requests) == before  # no generator was called

    def test_conflicting_sources_are_both_shown_with_the_rule_that_decides(self, generator, catalog):
        store(catalog, omnibus())
        store(catalog, guidance())
        a = ask("When does Chapter III apply to high-risk AI systems?", searcher=TermSearcher(catalog),
                generator=generator)
        assert not a.refused, a.refusal_reason
        assert a.conflicts, a.text
        c = a.conflicts[0]
        shown = {r.act for _, r in c.values}
        assert {OMNIBUS, GUIDANCE} <= shown
        assert len({v for v, _ in c.values}) >= 2
        assert c.prevails is not None and c.prevails.act == OMNIBUS
        assert "2 December 2027" in a.text and "2 August 2026" in a.text
        assert "prevails" in a.text

    def test_a_question_restricted_to_one_act_never_cites_another(self, generator, searcher):
        p = Perimeter(acts=(AI_ACT,))
        a = ask("What is the maximum administrative fine for infringements?", p, searcher=searcher,
                generator=generator)
        assert not a.refused, a.refusal_reason
        assert a.cited() and all(r.act == AI_ACT for r in a.cited())
        assert all(e.ref.act == AI_ACT for e in a.evidence)
        assert GDPR not in a.text

    def test_after_a_newer_version_is_ingested_the_answer_uses_it_and_stops_citing_the_old(self, generator,
                                                                                           catalog, searcher):
        first = ask("What is the maximum fine for prohibited AI practices?", searcher=searcher,
                    generator=generator)
        assert {r.version for r in first.cited()} == {"2024-07-12"}
        store(catalog, ai_act(version="2026-07-27"))
        second = ask("What is the maximum fine for prohibited AI practices?", searcher=searcher,
                     generator=generator)
        assert not second.refused, second.refusal_reason
        assert {r.version for r in second.cited()} == {"2026-07-27"}
        ai_evidence = [e for e in second.evidence if e.ref.act == AI_ACT]
        assert ai_evidence and all(e.ref.version == "2026-07-27" for e in ai_evidence)

    def test_the_old_version_is_still_answerable_when_asked_as_of_its_time(self, generator, catalog, searcher):
        store(catalog, ai_act(version="2026-07-27"))
        a = ask("What is the maximum fine for prohibited AI practices?", Perimeter(as_of="2025-06-01"),
                searcher=searcher, generator=generator)
        assert not a.refused, a.refusal_reason
        assert {r.version for r in a.cited()} == {"2024-07-12"}
