"""Golden sets: the DESIGN.md JSON Lines format, read strictly and explained when wrong."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexcite.contract import CitationRef, Perimeter
from lexcite.errors import CitationError, ConfigError

__all__ = ["GoldenQuestion", "load_golden", "BEHAVIORS", "SPLITS", "default_golden_path"]

BEHAVIORS = ("answer", "abstain", "conflict")
SPLITS = ("dev", "test")


@dataclass(frozen=True)
class GoldenQuestion:
    id: str
    question: str
    expected: tuple[CitationRef, ...]
    anchors: tuple[str, ...]
    key_facts: tuple[str, ...]
    behavior: str
    filters: dict[str, Any]
    category: str
    post_cutoff: bool
    split: str
    extra: dict[str, Any] = field(default_factory=dict)  # unknown keys, kept for per-question output

    @property
    def perimeter(self) -> Perimeter:
        return Perimeter.from_dict(self.filters)

    @property
    def answerable(self) -> bool:
        return self.behavior != "abstain"

    def asks_about(self, acts: set[str]) -> bool:
        """Whether a catalog holding `acts` can be graded on this question: it names no act (expected
        or filter), or one of them is held. The twelve-act questions (cx…) say nothing about a
        three-act catalog, and calibration and evaluation leave them out there."""
        wanted = {r.act for r in self.expected} | set(self.perimeter.acts)
        return not wanted or bool(wanted & acts)


_KNOWN = {"id", "question", "expected", "anchors", "key_facts", "behavior", "filters", "category",
          "post_cutoff", "split"}


def _question(d: dict[str, Any], where: str) -> GoldenQuestion:
    for key in ("id", "question", "behavior"):
        if not isinstance(d.get(key), str) or not d[key].strip():
            raise ConfigError(f"{where}: '{key}' is missing or not a string")
    if d["behavior"] not in BEHAVIORS:
        raise ConfigError(f"{where}: behavior {d['behavior']!r} is not one of {', '.join(BEHAVIORS)}")
    split = d.get("split", "test")
    if split not in SPLITS:
        raise ConfigError(f"{where}: split {split!r} is not one of {', '.join(SPLITS)}")
    try:
        expected = tuple(CitationRef.parse(e) for e in d.get("expected") or ())
    except CitationError as e:
        raise ConfigError(f"{where}: expected: {e}") from None
    anchors = tuple(d.get("anchors") or ())
    if d["behavior"] == "answer" and not expected and not anchors:
        raise ConfigError(f"{where}: an answerable question needs 'expected' units or 'anchors'")
    filters = d.get("filters") or {}
    try:
        Perimeter.from_dict(filters)
    except (ValueError, TypeError) as e:
        raise ConfigError(f"{where}: filters: {e}") from None
    return GoldenQuestion(
        id=d["id"],
        question=d["question"],
        expected=expected,
        anchors=anchors,
        key_facts=tuple(d.get("key_facts") or ()),
        behavior=d["behavior"],
        filters=filters,
        category=d.get("category", "uncategorised"),
        post_cutoff=bool(d.get("post_cutoff", False)),
        split=split,
        extra={k: v for k, v in d.items() if k not in _KNOWN},
    )


def load_golden(path: Path, split: str | None = None) -> list[GoldenQuestion]:
    """Read a golden set; `split` keeps only 'dev' or 'test' questions."""
    if not path.is_file():
        raise ConfigError(f"{path}: golden set not found")
    questions: list[GoldenQuestion] = []
    seen: set[str] = set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            raise ConfigError(f"{where}: not JSON ({e.msg})") from None
        if not isinstance(d, dict):
            raise ConfigError(f"{where}: each line must be a JSON object")
        q = _question(d, where)
        if q.id in seen:
            raise ConfigError(f"{where}: duplicate id {q.id!r}")
        seen.add(q.id)
        if split is None or q.split == split:
            questions.append(q)
    return questions


def default_golden_path() -> Path:
    return Path(__file__).resolve().parent.parent.parent / "data" / "golden" / "golden.jsonl"
