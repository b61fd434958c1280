"""The scope check: a question asked under a law the catalog does not hold is refused, naming the law."""

from __future__ import annotations

import pytest

from lexcite.index.scope import Scope, named_laws, refusal_reason
from lexcite.references import short_forms

# the endings of the real titles (catalog `versions.title`) of the three acts the demo ingests
GDPR = ("REGULATION (EU) 2016/679 ... and repealing Directive 95/46/EC (General Data Protection Regulation)")
AI_ACT = ("REGULATION (EU) 2024/1689 ... Directives 2014/90/EU, (EU) 2016/797 and (EU) 2020/1828 "
          "(Artificial Intelligence Act)")
OMNIBUS = ("REGULATION (EU) 2026/1744 ... as regards the simplification of the implementation of harmonised rules "
           "on artificial intelligence (Digital Omnibus on AI)")
HELD = Scope([GDPR, AI_ACT, OMNIBUS])


def test_an_act_goes_by_its_short_title_and_the_usual_short_forms():
    assert {"artificial intelligence", "ai"} <= short_forms(AI_ACT)  # names without the kind of act
    assert {"general data protection", "data protection", "gdpr"} <= short_forms(GDPR)
    assert "data" not in short_forms(GDPR)  # one word of a title would match the Data Act
    assert short_forms("REGULATION (EU) No 167/2013 of the European Parliament") == set()  # "(EU)" is no title


def test_names_of_laws_are_read_with_whether_the_question_is_asked_under_them():
    assert named_laws("Under the Data Act, can owners of a connected car demand its data?") == {"Data Act": True}
    assert named_laws("What does the EU AI Act say about the Cyber Resilience Act?") == {
        "AI Act": False, "Cyber Resilience Act": False}
    assert named_laws("How much can be fined under Germany's national law implementing the AI Act?") == {
        "Germany's national law": True, "AI Act": False}
    assert named_laws("Does Colorado's AI law require impact assessments?") == {"Colorado's AI law": True}
    assert named_laws("Which practices does this Regulation prohibit?") == {}  # no name, nothing to check
    assert named_laws("What does Europe's AI law say about chatbots?") == {}  # the Union's law is the catalog's


@pytest.mark.parametrize("question, outside", [
    ("Under the Data Act, can owners of a connected car demand the data it generates?", ("Data Act",)),
    ("Does Colorado's AI law require insurers to run impact assessments?", ("Colorado's AI law",)),
    ("What is the maximum fine under the Cyber Resilience Act for ignoring vulnerability reports?",
     ("Cyber Resilience Act",)),
    ("How much can a German authority fine under Germany's national law implementing the AI Act?",
     ("Germany's national law",)),
])
def test_a_question_asked_under_a_law_the_catalog_lacks_is_outside(question, outside):
    assert HELD.outside(question) == outside


@pytest.mark.parametrize("question", [
    "Under the EU AI Act, which practices are prohibited?",
    "According to the General Data Protection Regulation, when is consent valid?",
    "What are the GDPR's fines for missing records?",
    # named beside a held law, the question is about the held one (the Omnibus answers it)
    "If our product meets the Cyber Resilience Act, must we still show it meets the AI Act's cybersecurity rules?",
    # only mentioned, not asked under: the catalog's acts speak of the acts they amend
    "Does the Machinery Regulation still list AI safety components?",
    "Which AI practices are banned?",
    # the kind of act mixed up: still the held act
    "Under the AI Regulation, who counts as a deployer?",
    "Under the Data Protection Regulation, what is a processor?",
])
def test_questions_about_held_acts_are_inside(question):
    assert HELD.outside(question) == ()


def test_the_reason_names_the_missing_laws_as_a_reader_would():
    assert refusal_reason(("Data Act",)).startswith("the question is asked under the Data Act, which the catalog")
    assert "under Colorado's AI law and the Data Act," in refusal_reason(("Colorado's AI law", "Data Act"))
    assert "ingest it" in refusal_reason(("Data Act",))
