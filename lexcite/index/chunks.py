"""What is ranked: passages at paragraph level or finer, and the chunks an embedder sees.

DESIGN.md: "what is embedded and ranked is the paragraph level or finer, never a
whole multi-paragraph article, and a unit too long for the embedder is split
into chunks that keep its id". This module decides which catalog units become
passages (the same set for BM25 and the dense index) and how a passage is cut
into chunks. A hit on a chunk is a hit on its unit: chunk ids carry the unit's
key and `unit_key()` maps them back.

Granularity (measured in bench/RESULTS.md, "Retrieval"):

    paragraph  recitals, numbered paragraphs (text includes their points), points
               that hang directly from an article or annex, and articles, annexes or
               sections with no children (e.g. art_4)
    point      every leaf unit: points and sub-points instead of their paragraph
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from lexcite.catalog import UnitRecord
from lexcite.contract import Candidate, CitationRef

__all__ = ["Passage", "candidate", "GRANULARITIES", "DEFAULT_GRANULARITY", "passages", "chunk_texts", "chunk_id",
           "chunk_index", "unit_key", "passage_key"]

GRANULARITIES = ("paragraph", "point")
DEFAULT_GRANULARITY = "point"  # measured on the dev split: beats paragraph for every embedder
_CONTAINERS = ("article", "annex", "section")
_CONTEXT_WORDS = 40  # at most this many words of heading/lead-in ahead of each chunk
_CHUNK_SEP = "~"
_OWN_MIN_WORDS = 8


@dataclass(frozen=True)
class Passage:
    """One rankable unit with the heading context it is read in."""

    key: str  # "en:32024R1689@2024-07-12#art_6.par_2": unique across languages
    record: UnitRecord
    context: str  # article/annex heading, and a point's lead-in words
    own: str | None = None  # for a container ranked by its own words only (see `passages`)

    @property
    def body(self) -> str:
        return self.own if self.own is not None else self.record.unit.text

    @property
    def text(self) -> str:
        """What BM25 scores and what is embedded (before chunking)."""
        return f"{self.context}\n{self.body}" if self.context else self.body

    @property
    def article(self) -> str:
        """The id of the container the passage belongs to (for sibling expansion)."""
        unit = self.record.unit.unit
        parts = unit.split(".")
        return parts[0] if len(parts) > 1 else unit

    def text_hash(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:20]


def candidate(p: Passage, score: float, stage_scores: dict[str, float] | None = None, via: str = "retrieved",
              text: str | None = None) -> Candidate:
    """A passage as a ranked candidate (`text`: what to show of it, default the unit's full text)."""
    rec = p.record
    u = rec.unit
    return Candidate(ref=u.ref, title=u.title, text=u.text if text is None else text, status=rec.status,
                     binding=u.binding, source_url=u.source_url, score=float(score),
                     stage_scores={k: float(v) for k, v in (stage_scores or {}).items()}, via=via,
                     changed_by=_enacting_unit(rec.changed_by))


def _enacting_unit(changed_by: str | None) -> CitationRef | None:
    """The amending unit that enacted a text; None when none, or when an official consolidation's marker
    names only the amending act ("32026R1744"): there is no unit to cite."""
    if not changed_by or "#" not in changed_by:
        return None
    return CitationRef.parse(changed_by)


def passage_key(record: UnitRecord) -> str:
    return f"{record.unit.language}:{record.unit.ref}"


def chunk_id(key: str, i: int) -> str:
    return f"{key}{_CHUNK_SEP}{i}"


def unit_key(chunk: str) -> str:
    """The passage key a chunk id belongs to: a hit on a chunk is a hit on its unit."""
    return chunk.rsplit(_CHUNK_SEP, 1)[0]


def chunk_index(chunk: str) -> int:
    """Which chunk of its passage a chunk id is: 0, 1, …"""
    return int(chunk.rsplit(_CHUNK_SEP, 1)[1])


def _lead_in(parent: UnitRecord, first_child: UnitRecord | None) -> str:
    """The words of `parent` before its first child: the 'shall ... the following:' a point completes."""
    text = parent.unit.text
    if first_child is not None:
        probe = first_child.unit.text[:40]
        at = text.find(probe) if probe else -1
        if at > 0:
            text = text[:at]
    words = text.split()
    return " ".join(words[:_CONTEXT_WORDS])


def _selected(rec: UnitRecord, children: dict[str, list[UnitRecord]], by_id: dict[str, UnitRecord],
              granularity: str) -> bool:
    u = rec.unit
    kids = children.get(u.unit, [])
    if granularity == "point":
        return not kids
    if u.kind == "recital" or u.kind == "paragraph":
        return True
    if u.kind in _CONTAINERS:
        return not kids
    if u.kind == "point":
        parent = by_id.get(u.parent or "")
        return parent is None or parent.unit.kind in _CONTAINERS
    return not kids


def passages(records: Iterable[UnitRecord], granularity: str = DEFAULT_GRANULARITY) -> list[Passage]:
    """The passages of `records` at `granularity`, in catalog order.

    Articles with paragraphs are never passages themselves; only their paragraphs (or points) are.
    """
    if granularity not in GRANULARITIES:
        raise ValueError(f"granularity {granularity!r} is not one of {', '.join(GRANULARITIES)}")
    groups: dict[tuple[str, str, str], list[UnitRecord]] = {}
    for rec in records:
        u = rec.unit
        groups.setdefault((u.act, u.version, u.language), []).append(rec)
    out: list[Passage] = []
    for recs in groups.values():
        by_id = {r.unit.unit: r for r in recs}
        children: dict[str, list[UnitRecord]] = {}
        for r in recs:
            if r.unit.parent:
                children.setdefault(r.unit.parent, []).append(r)
        for rec in recs:
            if _selected(rec, children, by_id, granularity):
                out.append(Passage(passage_key(rec), rec, _context(rec, by_id, children)))
            elif rec.unit.kind in _CONTAINERS and not any(k.unit.kind == "paragraph"
                                                          for k in children.get(rec.unit.unit, [])):
                # An article whose points hang from it (or an annex) can say something outside its points:
                # AI Act art_113 "It shall apply from 2 August 2026" is in no point. Rank those words as the
                # container itself, so they are found; a container that only introduces its points is not.
                own = _own_text(rec, children.get(rec.unit.unit, []))
                if _says_something(own):
                    out.append(Passage(passage_key(rec), rec, _context(rec, by_id, children), own))
    return out


def _says_something(own: str) -> bool:
    """False for a bare lead-in: one sentence that ends in ':' ("the following definitions apply:")."""
    lead_in = own.rstrip().endswith(":") and not re.search(r"[.;]\s", own)
    return len(own.split()) >= _OWN_MIN_WORDS and not lead_in


def _own_text(rec: UnitRecord, kids: list[UnitRecord]) -> str:
    """The container's text without its children's text."""
    text = rec.unit.text
    for k in kids:
        if k.unit.text:
            text = text.replace(k.unit.text, " ", 1)
    return " ".join(text.split())


def _context(rec: UnitRecord, by_id: dict[str, UnitRecord], children: dict[str, list[UnitRecord]]) -> str:
    """Heading of the enclosing article/annex, plus the lead-in of a point's parent."""
    u = rec.unit
    chain = []
    parent = by_id.get(u.parent or "")
    while parent is not None:
        chain.append(parent)
        parent = by_id.get(parent.unit.parent or "")
    # Parser titles are complete ("Article 5(1), point (a) — Prohibited AI practices"); fall back to the
    # enclosing article's or annex's heading when a unit has none.
    head = u.title or next((p.unit.title for p in chain if p.unit.kind in _CONTAINERS and p.unit.title), "")
    lead = ""
    if u.kind == "point" and chain and chain[0].unit.kind != "recital":
        sibs = children.get(chain[0].unit.unit, [])
        lead = _lead_in(chain[0], sibs[0] if sibs else None)
    words = f"{head} {lead}".split()
    return " ".join(words[:_CONTEXT_WORDS + 20])


def chunk_texts(passage: Passage, max_words: int) -> list[str]:
    """The texts to embed for `passage`: one, or overlapping windows that each repeat the context."""
    ctx = passage.context.split()
    body = passage.body.split()
    room = max(16, max_words - len(ctx))
    if len(body) <= room:
        return [passage.text]
    step = max(8, room - room // 5)  # 20% overlap, so a sentence cut at one edge is whole in the next window
    out = []
    for start in range(0, len(body), step):
        window = body[start:start + room]
        out.append(" ".join(ctx + window) if ctx else " ".join(window))
        if start + room >= len(body):
            break
    return out
