"""The Perimeter rule (contract.Perimeter.rejects) translated for the two retrievers: a BM25 mask and a Chroma `where`.

Invariant 1: filters are applied before ranking. Both retrievers take the
perimeter inside the search (BM25 as a mask before top-k, Chroma as `where`);
these translations must agree with `Perimeter.admits`, and a property test checks
that they do. The rule itself is written once, on `Perimeter`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from lexcite.contract import OPEN_END, Perimeter, UnitRecord

__all__ = ["where", "date_int", "tag_key", "RecordMask", "empty_reason"]


def date_int(iso: str | None) -> int:
    """'2024-07-12' -> 20240712; None (open end) -> 99991231. Chroma compares numbers only."""
    return int((iso or OPEN_END).replace("-", ""))


def tag_key(tag: str) -> str:
    return "tag_" + re.sub(r"[^0-9A-Za-z_]", "_", tag)


def where(p: Perimeter) -> dict[str, Any]:
    """`Perimeter.admits` as a Chroma metadata filter (see dense.metadata for the keys)."""
    clauses: list[dict[str, Any]] = []
    if p.language is not None:
        clauses.append({"language": p.language})
    if p.acts:
        clauses.append({"act": {"$in": list(p.acts)}})
    st = p.statuses()
    clauses.append({"status": st[0]} if len(st) == 1 else {"status": {"$in": list(st)}})
    day = p.check_date()
    if day is not None:
        n = date_int(day)
        clauses.append({"valid_from_n": {"$lte": n}})
        clauses.append({"valid_to_n": {"$gt": n}})
    if p.binding_only:
        clauses.append({"binding": True})
    tags = [{"restricted": False}] + [{tag_key(t): True} for t in sorted(set(p.access_tags))]
    clauses.append(tags[0] if len(tags) == 1 else {"$or": tags})
    if p.kinds:
        clauses.append({"kind": {"$in": list(p.kinds)}})
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


class RecordMask:
    """`Perimeter.admits` vectorised over a fixed list of records (the BM25 corpus), cached per perimeter."""

    def __init__(self, records: list[UnitRecord]):
        self._n = len(records)
        self._lang = np.array([r.unit.language for r in records], dtype=object)
        self._act = np.array([r.unit.act for r in records], dtype=object)
        self._status = np.array([r.status for r in records], dtype=object)
        self._from = np.array([r.valid_from for r in records], dtype=object)
        self._to = np.array([r.valid_to or OPEN_END for r in records], dtype=object)
        self._binding = np.array([bool(r.unit.binding) for r in records], dtype=bool)
        self._kind = np.array([r.unit.kind for r in records], dtype=object)
        self._tags = [frozenset(r.access_tags) for r in records]
        self._restricted = np.array([bool(t) for t in self._tags], dtype=bool)
        self._cache: dict[tuple[Perimeter, str | None], np.ndarray] = {}

    def __call__(self, p: Perimeter) -> np.ndarray:
        key = (p, p.check_date())  # "today" moves: the cache is per day
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._compute(p)
        return hit

    def _compute(self, p: Perimeter) -> np.ndarray:
        m = np.ones(self._n, dtype=bool)
        if self._n == 0:
            return m
        if p.language is not None:
            m &= self._lang == p.language
        if p.acts:
            m &= np.isin(self._act, list(p.acts))
        m &= np.isin(self._status, list(p.statuses()))
        day = p.check_date()
        if day is not None:
            m &= (self._from <= day) & (day < self._to)
        if p.binding_only:
            m &= self._binding
        if p.kinds:
            m &= np.isin(self._kind, list(p.kinds))
        held = frozenset(p.access_tags)
        m &= ~self._restricted | np.array([bool(t & held) for t in self._tags], dtype=bool)
        return m


def empty_reason(p: Perimeter, versions: Iterable[Any]) -> str | None:
    """Why no stored version can be in the perimeter at all, naming the real cause; None if some can.

    `versions` are the catalog's version rows (act, language, status, valid_from, valid_to).
    The checks narrow in the order a reader would: the act, then the language, then the date.
    """
    rows = [v for v in versions if v.status != "draft"]
    if p.acts:
        missing = [a for a in p.acts if not any(v.act == a for v in rows)]
        if len(missing) == len(p.acts):
            verb = "is" if len(missing) == 1 else "are"
            return f"{' and '.join(missing)} {verb} not in the catalog (see `lexcite acts`)"
        rows = [v for v in rows if v.act in p.acts]
    if p.language is not None:
        held = sorted({v.language for v in rows})
        if p.language not in held:
            return f"no text in {p.language!r} is held; the catalog holds {', '.join(held) or 'none'}"
        rows = [v for v in rows if v.language == p.language]
    if p.include_superseded and not p.as_of:
        return None
    day = p.effective_date()
    if not any(v.valid_from <= day < (v.valid_to or OPEN_END) for v in rows):
        earliest = min((v.valid_from for v in rows), default=None)
        later = f"; the earliest text held is in force from {earliest}" if earliest and earliest > day else ""
        return f"nothing in the perimeter is in force on {day}{later}"
    return None
