"""The structured numeric channel: values in an answer are rendered from stored facts (invariant 4).

When the question asks for a value (a date, a period, an amount, a percentage,
a threshold; `question.cues`), every such value in the verified answer must
match a fact that ingest stored for a unit the sentence cites
(`ingest/facts.py`). The fact must have the same normalised value and the
same kind of unit. The value is then rewritten from the fact's literal text,
and the fact's locator (reference and character span) is kept. So the number
a reader sees comes from the catalog, not from the model's prose. A value with
no such fact is refused (flag `fabrication_guard`). So is an answer that gives
none of the values the question asks for. A generator that adds an invented
second number beside the true one is therefore refused, even when the verifier
found that number somewhere in the cited text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lexcite.contract import CitationRef, CitedSentence, Fact
from lexcite.ingest.facts import fact_key, value_key
from lexcite.values import CHECKED_KINDS, digits_for_words, read_values

__all__ = ["Binding", "NumericResult", "bind_values", "FLAG"]

FLAG = "fabrication_guard"


@dataclass(frozen=True)
class Binding:
    sentence: int
    written: str  # the value as the generator wrote it
    rendered: str  # the value as the stored fact writes it
    kind: str  # values.Value kind
    fact_kind: str
    ref: CitationRef
    start: int
    end: int

    def to_dict(self) -> dict[str, Any]:
        return {"sentence": self.sentence, "written": self.written, "rendered": self.rendered, "kind": self.kind,
                "fact_kind": self.fact_kind, "ref": str(self.ref), "span": [self.start, self.end]}


@dataclass(frozen=True)
class NumericResult:
    sentences: tuple[CitedSentence, ...]
    bindings: tuple[Binding, ...]
    ok: bool
    reason: str = ""
    flags: tuple[str, ...] = field(default_factory=tuple)


def bind_values(sentences: Sequence[CitedSentence], facts: Sequence[Fact], wanted: frozenset[str]) -> NumericResult:
    """Re-render every checked value of `sentences` from `facts` of the units each sentence cites.

    `wanted` is the set of value kinds the question asks for (empty: the question asks for no value,
    and nothing is required, though any checked value present is still bound).
    """
    by_ref: dict[CitationRef, list[Fact]] = {}
    for f in facts:
        by_ref.setdefault(f.ref, []).append(f)
    out: list[CitedSentence] = []
    bindings: list[Binding] = []
    for i, s in enumerate(sentences):
        text = digits_for_words(s.text)  # "thirty-five million euros" is bound (and shown) like its digits
        pending: list[tuple[int, int, str]] = []
        for v in read_values(text):
            if v.kind not in CHECKED_KINDS:
                continue
            key = value_key(v)
            match = next((f for r in s.refs for f in by_ref.get(r, ()) if fact_key(f) == key), None)
            if match is None:
                reason = (f"sentence {i + 1} gives a {v.kind} that matches no fact stored for the units it cites; "
                          "a value is shown only when it is rendered from a stored fact")
                return NumericResult(tuple(sentences), tuple(bindings), False, reason, (FLAG,))
            bindings.append(Binding(i, v.text, match.display, v.kind, match.kind, match.ref, match.start, match.end))
            pending.append((v.start, v.end, match.display))
        for start, end, display in sorted(pending, reverse=True):
            text = text[:start] + display + text[end:]
        out.append(CitedSentence(text, s.refs))
    if wanted and not any(b.kind in wanted for b in bindings):
        asked = ", ".join(sorted(wanted))
        reason = (f"the question asks for a value ({asked}) and the answer gives none that a stored fact of the "
                  "admitted units supports")
        return NumericResult(tuple(out), tuple(bindings), False, reason, (FLAG,))
    return NumericResult(tuple(out), tuple(bindings), True)
