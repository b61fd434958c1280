"""What a generator returns, and how its text is read back into cited sentences.

Every generator (Claude, extractive, and any later local model) writes the same plain-text format:
one sentence after another, each ending with the ids of the evidence that
supports it in square brackets (`[S1]`, `[S1][S3]`, `[S1, S3]`), or exactly the
refusal line `REFUSAL`. One format means one reader and one verifier for all
of them (invariant 3); nothing here trusts the generator, it only parses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from lexcite.contract import REFUSAL, Evidence
from lexcite.values import read_values

__all__ = ["Draft", "DraftSentence", "Generator", "split_sentences", "parse_draft", "strip_markers", "is_refusal",
           "refusal_reason", "SAID_NO"]

SAID_NO = "the generator found no answer in the admitted evidence"

# "[S1]", "[S1, S3]", "[S1; S3]", "[S1,3]"; case-insensitive, spaces tolerated.
MARKER = re.compile(r"\[\s*S\s*\d+(?:\s*[,;]\s*S?\s*\d+)*\s*\]", re.I)
_SID = re.compile(r"\d+")
# Abbreviations that end with a full stop inside a sentence (legal and general English).
_ABBREV = re.compile(
    r"(?:^|[\s(])(?:Art|Arts|No|Nos|Nr|e\.g|i\.e|cf|p|pp|para|paras|subpara|etc|vs|viz|Mr|Ms|Dr|OJ|seq|approx|"
    r"incl|Reg|Dir|Dec|Sec|Ch|Vol|fig|ed|resp|St)\.$",
    re.I,
)
_BOUNDARY = re.compile(
    r"(?P<stop>[.!?][\"'’”)]*)?(?P<marks>(?:\s*" + MARKER.pattern + r")+)?[.!?]?(?P<gap>\s+)(?=[A-Z0-9“\"‘'(\[])"
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")


@dataclass(frozen=True)
class Draft:
    """A generator's output before verification, with what the trace must record."""

    text: str  # the raw output, exactly as produced
    refused: bool = False  # the generator said the evidence does not answer, or it failed
    reason: str = ""  # why, in fixed words (no numbers, no guesses)
    prompt: str = ""  # the exact prompt sent
    model: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    error: str = ""  # provider error detail, for the trace only (never shown as an answer)
    usage: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DraftSentence:
    text: str  # the sentence without its markers
    sids: tuple[str, ...]  # "S1", "S3", in the order written, without repeats
    raw: str  # as written, markers included


@runtime_checkable
class Generator(Protocol):
    """Turns a question and its evidence into a Draft. Implementations: claude, extractive."""

    name: str
    model: str

    def generate(self, question: str, evidence: Sequence[Evidence]) -> Draft: ...


def strip_markers(text: str) -> str:
    """The sentence as a reader sees it: markers out, spaces tidied, no space before final punctuation."""
    out = MARKER.sub(" ", text)
    out = re.sub(r"\s+", " ", out).strip()
    return re.sub(r"\s+([.!?;:,])$", r"\1", out)


def _sids(text: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for m in MARKER.finditer(text):
        for n in _SID.findall(m.group()):
            seen[f"S{int(n)}"] = None
    return tuple(seen)


def split_sentences(text: str) -> list[str]:
    """Split generator output (or a unit's text) into sentences, markers kept with their sentence.

    A sentence ends at a line break, or at `.`/`!`/`?` (not after an abbreviation like "Art." or
    "No.") or a marker group, followed by a space and a capital, digit, quote or bracket.
    """
    pieces: list[str] = []
    for line in re.split(r"\s*\n\s*", text):
        line = _BULLET.sub("", line).strip()
        if not line:
            continue
        start = 0
        for m in _BOUNDARY.finditer(line):
            if not m["stop"] and not m["marks"]:
                continue
            if not m["marks"] and _ABBREV.search(line[start:m.start("stop") + 1]):
                continue
            piece = line[start:m.start("gap")].strip()
            if piece:
                pieces.append(piece)
            start = m.end("gap")
        rest = line[start:].strip()
        if rest:
            pieces.append(rest)
    # A piece that is only markers ("[S1]" on its own line) belongs to the sentence before it.
    merged: list[str] = []
    for p in pieces:
        if merged and not MARKER.sub("", p).strip(" .;,"):
            merged[-1] = f"{merged[-1]} {p}"
        else:
            merged.append(p)
    return merged


def parse_draft(text: str) -> list[DraftSentence]:
    return [DraftSentence(strip_markers(p), _sids(p), p) for p in split_sentences(text)]


def is_refusal(text: str) -> bool:
    """True when the whole output is the refusal line (case and a final full stop aside)."""
    norm = re.sub(r"\s+", " ", text).strip().rstrip(".").casefold()
    return norm == REFUSAL.rstrip(".").casefold()


# A model that declines in its own words: "The provisions do not say how much a notified body charges."
_SILENT = re.compile(r"\b(?:do(?:es)?\s+not|don[’']t|doesn[’']t|never)\s+(?:say|state|specify|set|address|answer|"
                     r"mention|contain|cover|provide|lay down|fix|regulate|name|define)\b"
                     r"|\bno (?:provision|source|passage)\b|\bnot (?:stated|specified|addressed|found) in\b", re.I)
_MAX_REASON = 300


def refusal_reason(text: str) -> str | None:
    """None when `text` is an answer; else the generator's reason for refusing ("" when it gave none).

    A refusal is the refusal line alone, the refusal line followed by a reason, or an uncited reply that
    says the sources are silent ("The provisions do not say ..."). The reason is kept only when it is short
    and states no value of its own (a date, an amount, a reference: a model's unverified words must not
    carry one into the refusal shown); otherwise it is "". The reason is returned as a clause, without its
    initial capital or final full stop.
    """
    body = text.strip()
    first, _, rest = body.partition("\n")
    head = REFUSAL.rstrip(".").casefold()
    if re.sub(r"\s+", " ", first).strip().rstrip(".").casefold() == head:
        reason = rest
    elif re.sub(r"\s+", " ", body).casefold().startswith(head + "."):
        reason = body[len(REFUSAL):]
    elif not MARKER.search(body) and _SILENT.search(body):
        reason = body
    else:
        return None
    reason = " ".join(reason.split()).strip()
    reason = re.sub(r"^(?:reason|why)\s*:\s*", "", reason, flags=re.I)
    if len(reason) > _MAX_REASON or MARKER.search(reason) or read_values(reason):
        return ""
    reason = reason.rstrip(".")
    # a clause to follow "...: " (an acronym such as "AI" keeps its capital)
    return reason[:1].lower() + reason[1:] if reason[1:2].islower() else reason
