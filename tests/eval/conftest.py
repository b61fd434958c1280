"""A three-question golden set and a searcher/ask pair that return fixed results for it.

The stub searcher is the outermost edge of the metric tests: it stands where
`index.search.Searcher` stands, and returns hand-made SearchResults, so the
numbers the harness computes can be checked against hand computations (see
test_run.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexcite.contract import Answer, Candidate, CitationRef, CitedSentence, Conflict, Evidence, SearchResult

A = "32024R1689"
OMNI = "32026R1744"
V = "2024-07-12"

QUESTIONS = [
    {"id": "q1", "question": "What is prohibited?", "expected": [f"{A}#art_5"], "anchors": [],
     "key_facts": ["subliminal", "manipulative"], "behavior": "answer", "filters": {"language": "en"},
     "category": "prohibition", "post_cutoff": False, "split": "dev", "note": "kept in output"},
    {"id": "q2", "question": "When does it apply?", "expected": [f"{A}#art_113", f"{OMNI}#art_1.pnt_40"],
     "anchors": ["2 August 2026"], "key_facts": ["2 August 2026"], "behavior": "conflict",
     "filters": {"language": "en", "as_of": "2025-01-01"}, "category": "deadline", "post_cutoff": True,
     "split": "test"},
    {"id": "q3", "question": "What does the act say about pizza?", "expected": [], "anchors": [], "key_facts": [],
     "behavior": "abstain", "filters": {"language": "en"}, "category": "abstain", "post_cutoff": False,
     "split": "test"},
]


def cand(uid: str, text: str = "", score: float = 1.0, status: str = "current", act: str = A) -> Candidate:
    ref = CitationRef(act, V if act == A else "2026-07-24", uid)
    return Candidate(ref=ref, title=uid, text=text or f"text of {uid}", status=status, binding=True, source_url="",
                     score=score)


# Full pipeline: q1 finds art_5.par_1.pnt_a at rank 2, q2 finds an anchor at rank 1 but abstains,
# q3 abstains. BM25 stage: q1 misses entirely, q2 finds art_113 at rank 1.
RANKED = {
    ("q1", "full"): ([cand("rct_28", score=0.9), cand("art_5.par_1.pnt_a", "(a) subliminal techniques", 0.8),
                      cand("art_5", score=0.7), cand("art_6", score=0.6)], False),
    ("q2", "full"): ([cand("rct_179", "apply from 2\u00a0August\n2026", 0.3), cand("art_114", score=0.2),
                      cand("art_113", "It shall apply from 2 August 2026.", 0.1),
                      cand("art_1.pnt_40.pnt_a", score=0.05, act=OMNI)], True),
    ("q3", "full"): ([cand("art_1", score=0.1)], True),
    ("q1", "bm25"): ([cand("art_7", "Article 7 text. More."), cand("art_8")], False),
    ("q2", "bm25"): ([cand("art_113", "It shall apply from 2 August 2026. Exceptions follow.")], False),
    ("q3", "bm25"): ([], False),
}


class StubSearcher:
    def __init__(self):
        self.calls = []

    def search(self, query, perimeter, k=6, stages=None):
        qid = next(q["id"] for q in QUESTIONS if q["question"] == query)
        self.calls.append((qid, stages, perimeter, k))
        ranked, abstained = RANKED[(qid, stages or "full")]
        return SearchResult(query=query, perimeter=perimeter, ranked=tuple(ranked),
                            admitted=() if abstained else tuple(ranked[:k]), threshold=0.25, abstained=abstained,
                            timings={"bm25": 0.001, "dense": 0.002})


def _ev(c: Candidate, i: int) -> Evidence:
    return Evidence(sid=f"S{i}", ref=c.ref, title=c.title, text=c.text, status=c.status, binding=True,
                    source_url="")


def stub_ask(question, perimeter, k=6, generator=None, searcher=None, trace=True):
    """q1: answered, one supported sentence with 'subliminal' and one unsupported with a number.
    q2: refused (wrongly), but names both sides (AI Act, Omnibus) in a conflict. q3: refused (rightly)."""
    if question == QUESTIONS[0]["question"]:
        c = RANKED[("q1", "full")][0][1]
        return Answer(question=question, evidence=(_ev(c, 1),), perimeter=perimeter, generator="stub", sentences=(
            CitedSentence("Subliminal techniques are prohibited.", (c.ref,)),
            CitedSentence("The fine is 35 million.", (c.ref,))))
    if question == QUESTIONS[1]["question"]:
        return Answer(question=question, refused=True, refusal_reason="below threshold", perimeter=perimeter,
                      conflicts=(Conflict("date", (("2 August 2026", CitationRef.parse(f"{A}@{V}#art_113")),
                                                   ("2 December 2027",
                                                    CitationRef.parse(f"{OMNI}@2026-07-24#art_1.pnt_40"))),
                                          None, "diverge"),))
    return Answer(question=question, refused=True, refusal_reason="below threshold", perimeter=perimeter)


def stub_support(sentence: str, cited) -> bool:
    """Every digit-bearing word of the sentence, and 'subliminal', must be in the cited text (case-folded)."""
    text = " ".join(e.text for e in cited).casefold()
    words = [w.strip(".,").casefold() for w in sentence.split()]
    return all(w in text for w in words if any(ch.isdigit() for ch in w) or w in ("subliminal",))


@pytest.fixture
def golden_file(tmp_path) -> Path:
    path = tmp_path / "golden.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def stub_searcher() -> StubSearcher:
    return StubSearcher()


@pytest.fixture
def ask_fn():
    return stub_ask


@pytest.fixture
def support_fn():
    return stub_support
