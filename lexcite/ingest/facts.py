"""Extract checkable facts from units at ingest time: the structured numeric channel (invariant 4).

A fact is a value as the unit writes it (a date of application, a period such
as "15 days", a fine of "EUR 35 000 000", "7 %" of turnover, a threshold like
"10^25" FLOPs), normalised by `lexcite.values`. Each fact keeps its citation
reference, its exact character span and the words around it. Answers that ask
for such a value render the number from the stored fact, never from model prose.

Kinds (Fact.kind) and units (Fact.unit):

    application_date  date   a date after "apply/applicable from", "enter into force"
    date              date   any other date ("2026-08-02"; a month alone as "2026-08")
    deadline          days | weeks | months | years | hours
    fine_amount       EUR    an amount near "fine", "penalty", "sanction"
    amount            EUR    any other amount in euro
    turnover_pct      %      a percentage of turnover
    percentage        %      any other percentage
    threshold         FLOP | power   a power of ten ("10^25"), FLOP when computation is near
"""

from __future__ import annotations

import re

from lexcite.contract import Fact, Unit
from lexcite.values import CHECKED_KINDS, Value, read_values

__all__ = ["extract_facts", "value_key", "fact_key"]

_APPLY = re.compile(r"(?:appl(?:y|ies|icable)|enter(?:s)? into force|entry into force|in force)\W+(?:\w+\W+){0,3}$",
                    re.I)
_FINE = re.compile(r"\b(?:fines?|penalt(?:y|ies)|sanctions?)\b", re.I)
_TURNOVER = re.compile(r"^\W*(?:\w+\W+){0,5}turnover\b", re.I)
_FLOP = re.compile(r"\b(?:floating[- ]point|FLOPs?|computation|compute)\b", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z-]+")
# Short on purpose (not lexcite._words): a fact's subject keeps "before", "after", "during", "until",
# the words that tell one date of a provision from another; stored subjects depend on this list.
_STOP = frozenset("""a an and any are as at be by for from has have in is it its of on or shall that the their
this those to which with where whichever within not no than up down such other""".split())


def value_key(v: Value) -> tuple[str, str]:
    """(unit class, normalised value) of a value read from a sentence; equal keys = the same fact value."""
    if v.kind in ("date", "month"):
        return ("date", v.value)
    if v.kind == "amount":
        return ("EUR", v.value)
    if v.kind == "percent":
        return ("%", v.value)
    if v.kind == "period":
        return (v.unit + "s", v.value)
    if v.kind == "power":
        return ("power", v.value)
    return (v.kind, v.value)


def fact_key(f: Fact) -> tuple[str, str]:
    return ("power" if f.unit in ("FLOP", "power") else f.unit, f.value)


def _subject(text: str, start: int, end: int) -> str:
    """Content words of the sentence around a value: up to 12 before and 10 after."""
    left = max(text.rfind(". ", 0, start), text.rfind("; ", 0, start))
    right_candidates = [i for i in (text.find(". ", end), text.find("; ", end)) if i != -1]
    right = min(right_candidates) if right_candidates else len(text)
    before = [w.lower() for w in _WORD.findall(text[left + 1:start]) if w.lower() not in _STOP][-12:]
    after = [w.lower() for w in _WORD.findall(text[end:right]) if w.lower() not in _STOP][:10]
    return " ".join(before + after)


def _classify(v: Value, text: str) -> tuple[str, str]:
    """(fact kind, fact unit) of a value in context."""
    before, after = text[max(0, v.start - 80):v.start], text[v.end:v.end + 80]
    if v.kind in ("date", "month"):
        return ("application_date" if _APPLY.search(before) else "date"), "date"
    if v.kind == "period":
        return "deadline", v.unit + "s"
    if v.kind == "amount":
        near = text[max(0, v.start - 200):v.end + 60]
        return ("fine_amount" if _FINE.search(near) else "amount"), "EUR"
    if v.kind == "percent":
        return ("turnover_pct" if _TURNOVER.search(after) else "percentage"), "%"
    if v.kind == "power":
        return "threshold", ("FLOP" if _FLOP.search(before + " " + after) else "power")
    raise ValueError(f"not a fact kind: {v.kind}")


def extract_facts(unit: Unit) -> list[Fact]:
    """Every checked value in the unit's text as a Fact, in text order."""
    out = []
    for v in read_values(unit.text):
        if v.kind not in CHECKED_KINDS:
            continue
        kind, fact_unit = _classify(v, unit.text)
        out.append(Fact(kind=kind, value=v.value, unit=fact_unit, display=unit.text[v.start:v.end],
                        subject=_subject(unit.text, v.start, v.end), ref=unit.ref, start=v.start, end=v.end))
    return out
