"""The offline generator: quotes the evidence sentences that answer the question, each with its citation.

Deterministic and model-free, the default when ANTHROPIC_API_KEY is not set.
It never writes a word of its own: every sentence it returns is a sentence (or
one clause of a list) of an evidence unit, quoted verbatim and followed by that
unit's id, so it is verified like any other generator's output.

Choosing a sentence is more than word overlap. Each candidate scores:

- lexical: the share of the question's content terms it contains, weighted by
  inverse frequency among all candidate sentences (rare words matter most);
- answer type: what the question asks for (`question.cues`) must be there:
  "when / by when" prefers a sentence with a date (more so "shall apply from"),
  "how long / within how many days" a period, "how much / fine" an amount,
  "percentage / turnover" a percentage, "FLOPs" a power of ten, "what is X /
  definition" a definitional sentence ("'X' means ..."), "can I / is it
  allowed" a prohibition or obligation ("shall not", "prohibited", "shall");
- references: a sentence naming a provision the question names ("Article 6(1)",
  "Annex I") is preferred;
- rank: a small prior for the evidence retrieval ranked higher.

At most two sentences are quoted: the best, and a second from another unit
when it scores nearly as well and adds question terms the first lacks.

A sentence that shares no content term with the question answers nothing,
however it ranks: then the generator says the evidence does not answer (a
refusal, decided in code). Stricter floors (`min_terms`, `min_coverage`) were
measured on the golden dev split (bench/answer_extractive.py --grid) and cost
far more answers than they saved abstentions, so the default floor is one term.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from lexcite.answer.draft import MARKER, Draft, split_sentences
from lexcite.answer.evidence import instruction_like
from lexcite.contract import Evidence
from lexcite.question import Cues, content_terms, cues
from lexcite.values import read_values

__all__ = ["ExtractiveGenerator", "candidate_sentences", "score_sentence"]

NAME = "extractive"
MODEL = "extractive-v1"
_NO_ANSWER = "no sentence of the admitted evidence answers the question"
MIN_TERMS = 1
MIN_COVERAGE = 0.0

_DEFINES = re.compile(r"[‘'\"“](?P<term>[^’'\"”]{2,80})[’'\"”]\s+(?:means|shall mean|refers to|is defined as)\b", re.I)
_APPLY = re.compile(r"\b(?:shall apply|shall be applicable|applies|apply|enter into force|shall enter into force)\b"
                    r"[^.;]{0,40}\b(?:from|on|by)\b", re.I)
_PROHIBIT = re.compile(r"\b(?:shall be prohibited|prohibited|shall not|may not|is not allowed|are not allowed)\b", re.I)
_OBLIGE = re.compile(r"\b(?:shall|must|are required to|is required to|shall ensure)\b", re.I)
_PERMIT = re.compile(r"\b(?:may|is allowed|are allowed|is permitted|are permitted|shall be lawful)\b", re.I)
_CLAUSE = re.compile(r"(?<=;)\s+(?=(?:and\s+|or\s+)?\((?:[a-z]{1,3}|[ivx]{1,5}|\d{1,3})\)\s)")


@dataclass(frozen=True)
class _Candidate:
    sid: str
    rank: int
    text: str
    terms: frozenset[str]


def candidate_sentences(text: str) -> list[str]:
    """Sentences of a unit, and the clauses of a long list ("; (b) ..."), marker-like text removed."""
    out: list[str] = []
    for sentence in split_sentences(MARKER.sub(" ", text)):
        sentence = " ".join(sentence.split())
        if instruction_like(sentence):  # text addressed to a model is never quoted as law
            continue
        clauses = _CLAUSE.split(sentence) if len(sentence) > 250 else [sentence]
        out.extend(c.strip() for c in clauses if len(c.strip()) >= 12)
    return out


def score_sentence(text: str, terms: frozenset[str], q_terms: dict[str, float], c: Cues, rank: int,
                   q_refs: frozenset[str] = frozenset()) -> float:
    """The answer score of one candidate (see the module docstring)."""
    total = sum(q_terms.values()) or 1.0
    lexical = sum(w for t, w in q_terms.items() if t in terms) / total
    values = {v.kind for v in read_values(text)}
    bonus = 0.0
    asks_value = c.date or c.period or c.amount or c.percent or c.power
    if c.date and ("date" in values or "month" in values):
        bonus += 0.35 + (0.15 if _APPLY.search(text) else 0.0)
    if c.period and "period" in values:
        bonus += 0.35
    if c.amount and "amount" in values:
        bonus += 0.4
    if c.percent and "percent" in values:
        bonus += 0.25
    if c.power and "power" in values:
        bonus += 0.4
    if asks_value and not values & {"date", "month", "period", "amount", "percent", "power"}:
        bonus -= 0.25
    if c.definition and not asks_value:
        m = _DEFINES.search(text)
        if m and set(content_terms(m["term"])) & set(q_terms):
            bonus += 0.5
        elif m:
            bonus += 0.05
    if c.permission and not asks_value:
        if _PROHIBIT.search(text):
            bonus += 0.25
        elif _OBLIGE.search(text) or _PERMIT.search(text):
            bonus += 0.15
    if q_refs:  # the provisions the question names ("Annex I" is not "Annex III")
        refs = {v.value for v in read_values(text) if v.kind == "ref" and v.unit != "rel"}
        bonus += 0.2 * len(q_refs & refs)
    if len(text) > 700:
        bonus -= 0.1
    prior = 0.1 / rank
    return lexical + bonus + prior if lexical > 0 else 0.0


class ExtractiveGenerator:
    """Quote-the-evidence generator. `max_sentences` bounds the answer (default 2); `use_cues=False`
    scores by word overlap and rank only (the ablation baseline in bench/answer_extractive.py)."""

    name = NAME
    model = MODEL

    def __init__(self, max_sentences: int = 2, use_cues: bool = True, min_terms: int = MIN_TERMS,
                 min_coverage: float = MIN_COVERAGE):
        self.max_sentences = max_sentences
        self.use_cues = use_cues
        self.min_terms = min_terms
        self.min_coverage = min_coverage

    def _candidates(self, evidence: Sequence[Evidence]) -> list[_Candidate]:
        out = []
        for rank, e in enumerate(evidence, start=1):
            for s in candidate_sentences(e.text):
                out.append(_Candidate(e.sid, rank, s, frozenset(content_terms(s))))
        return out

    def generate(self, question: str, evidence: Sequence[Evidence]) -> Draft:
        c = cues(question) if self.use_cues else Cues()
        params = {"max_sentences": self.max_sentences, "cues": list(c.names())}
        candidates = self._candidates(evidence)
        if not candidates:
            return Draft("", refused=True, reason=_NO_ANSWER, model=MODEL, params=params)
        df = Counter(t for cand in candidates for t in cand.terms)
        n = len(candidates)
        q_terms = {t: math.log(1 + n / (1 + df[t])) + 0.1 for t in dict.fromkeys(content_terms(question))}
        q_refs = frozenset(v.value for v in read_values(question) if v.kind == "ref" and v.unit != "rel") \
            if self.use_cues else frozenset()
        scored = sorted(
            ((score_sentence(cand.text, cand.terms, q_terms, c, cand.rank, q_refs), -cand.rank, i, cand)
             for i, cand in enumerate(candidates)),
            key=lambda x: (-x[0], -x[1], x[2]),
        )
        best_score, _, _, best = scored[0]
        shared = set(q_terms) & best.terms
        coverage = sum(q_terms[t] for t in shared) / (sum(q_terms.values()) or 1.0)
        params["best"] = {"terms": len(shared), "coverage": round(coverage, 4)}
        need = min(self.min_terms, max(1, len(q_terms) - 1))
        if best_score <= 0 or len(shared) < need or coverage < self.min_coverage:
            return Draft("", refused=True, reason=_NO_ANSWER, model=MODEL, params=params)
        chosen = [best]
        covered = set(best.terms)
        for score, _, _, cand in scored[1:]:
            if len(chosen) >= self.max_sentences or score < 0.85 * best_score:
                break
            if cand.sid != best.sid and (set(q_terms) & cand.terms) - covered:
                chosen.append(cand)
                covered |= cand.terms
        text = "\n".join(f"{cand.text} [{cand.sid}]" for cand in chosen)
        score_of = {id(cand): s for s, _, _, cand in scored}
        params["scores"] = [round(score_of[id(cand)], 4) for cand in chosen]
        return Draft(text, model=MODEL, params=params, prompt=f"question: {question}")
