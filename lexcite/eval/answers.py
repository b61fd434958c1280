"""Answer-quality measures for one answer against its golden question (pure functions).

Each returns None where the measure does not apply (no key facts, a refusal,
a question that is not a conflict), so that means are taken only over the
questions a measure is about.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date

from lexcite.answer.draft import strip_markers
from lexcite.contract import Answer, CitationRef, Evidence, Perimeter
from lexcite.eval.golden import GoldenQuestion
from lexcite.eval.metrics import contains
from lexcite.eval.number_judge import foreign_numbers
from lexcite.question import content_terms
from lexcite.references import provision_of

__all__ = [
    "SupportCheck",
    "key_fact_share",
    "citations_valid",
    "independent_support",
    "MIN_TERM_COVERAGE",
    "citation_support",
    "conflict_both_shown",
    "cites_superseded_as_current",
    "ref_exact",
    "ref_loose",
]

# (sentence text, the evidence it cites) -> whether its values appear in those units
SupportCheck = Callable[[str, Sequence[Evidence]], bool]


# Share of a sentence's content words that its cited units must contain, literally (after stemming):
# most of what it says is in what it cites. Fixed by that reading, not tuned on any split.
MIN_TERM_COVERAGE = 0.5


def independent_support(record_date: Callable[[CitationRef], str | None] | None = None) -> SupportCheck:
    """A sentence check independent of the verifier, so that `citation_support` can fall below 1.

    Supported when every number of the sentence is in a cited unit, by the separate number judge
    (eval/number_judge.py, not the verifier's `lexcite.values` reading), and at least
    MIN_TERM_COVERAGE of its content words (question.content_terms) occur in the cited titles and texts.
    With `record_date`, a sentence rendered from catalog records may also state the numbers of the
    date the catalog records a cited unit in force from.
    """

    def check(sentence: str, cited: Sequence[Evidence]) -> bool:
        numbers: set[str] = set()
        found = {t for e in cited for t in content_terms(f"{e.title} {e.text}")}
        for e in cited:
            day = record_date(e.ref) if record_date else None
            if day:  # "2026-07-27" may be written "27 July 2026"
                numbers |= {str(int(part)) for part in day.split("-")}
                found |= set(content_terms(date.fromisoformat(day).strftime("%B")))
        if foreign_numbers(sentence, cited) - numbers:
            return False
        terms = set(content_terms(strip_markers(sentence)))
        return not terms or len(terms & found) / len(terms) >= MIN_TERM_COVERAGE

    return check


def key_fact_share(answer: Answer, q: GoldenQuestion) -> float | None:
    """Share of the key facts found in the answer text (whitespace-normalised, case-folded)."""
    if not q.key_facts:
        return None
    text = "" if answer.refused else answer.text
    return sum(contains(text, f, casefold=True) for f in q.key_facts) / len(q.key_facts)


def citations_valid(answer: Answer, outside: Callable[[CitationRef], str | None] | None) -> bool | None:
    """Every sentence cites, every cited ref is in the evidence, and every cited unit is inside the perimeter.

    `outside` is the catalog's word on a unit (`Catalog.outside` for the question's perimeter);
    None where no catalog is at hand, and then only the first two are checked.
    """
    if answer.refused:
        return None
    if not answer.sentences or any(not s.refs for s in answer.sentences):
        return False
    evidence = {e.ref: e for e in answer.evidence}
    for r in answer.cited():
        if r not in evidence or (outside is not None and outside(r) is not None):
            return False
    return True


def citation_support(answer: Answer, check: SupportCheck, records: SupportCheck | None = None) -> float | None:
    """ALCE-style precision: share of sentences whose numbers and words appear in the units they cite.

    `check` is an `independent_support`, never the verifier that decided to show the answer;
    `records` checks the sentences rendered from catalog records (default: `check`, which knows no record).
    """
    if answer.refused or not answer.sentences:
        return None
    evidence = {e.ref: e for e in answer.evidence}
    ok = 0
    for s in answer.sentences:
        cited = [evidence[r] for r in s.refs if r in evidence]
        ok += bool(cited) and (records if s.from_records and records else check)(s.text, cited)
    return ok / len(answer.sentences)


def _shown(answer: Answer) -> list[CitationRef]:
    return [*answer.cited(), *(ref for c in answer.conflicts for _, ref in c.values)]


def conflict_both_shown(answer: Answer, q: GoldenQuestion) -> bool | None:
    """On a conflict question: each side is shown, cited or named in Answer.conflicts.

    A side is an act: the golden set lists, per diverging act (the AI Act and the
    Omnibus that amends it, say), the units where it speaks; one of them shown
    suffices for that side.
    """
    if q.behavior != "conflict":
        return None
    shown = _shown(answer)
    sides: dict[str, list[CitationRef]] = {}
    for e in q.expected:
        sides.setdefault(e.act, []).append(e)
    return bool(sides) and all(any(s.on_branch(e) for s in shown for e in refs) for refs in sides.values())


def cites_superseded_as_current(answer: Answer, perimeter: Perimeter) -> bool:
    """A cited unit of a superseded version, in a perimeter that asked for the current law."""
    if answer.refused or perimeter.include_superseded or perimeter.as_of:
        return False
    status = {e.ref: e.status for e in answer.evidence}
    return any(status.get(r) == "superseded" for r in answer.cited())


def ref_exact(answer: Answer, q: GoldenQuestion) -> bool | None:
    """On an answerable question: the answer cites a unit on the branch of an expected one (a refusal: False).

    A question that names no expected unit (anchors only) is not measured.
    """
    if not q.answerable or not q.expected:
        return None
    cited = () if answer.refused else answer.cited()
    return any(c.on_branch(e) for c in cited for e in q.expected)


def ref_loose(answer: Answer, q: GoldenQuestion) -> bool | None:
    """On an answerable question: the answer cites a unit in an expected article, annex or recital (a refusal:
    False)."""
    if not q.answerable or not q.expected:
        return None
    cited = () if answer.refused else answer.cited()
    wanted = {(e.act, provision_of(e.unit)) for e in q.expected}
    return any((c.act, provision_of(c.unit)) in wanted for c in cited)
