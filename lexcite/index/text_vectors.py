"""Vectors stored by the text they embed (a hash of it), brought up to date without embedding twice.

The sentence vectors of the offline answer (answer/nearness.py) and the second reading's passage vectors
(index/second.py) are both kept this way: a vector is right for any unit that says the same words, so a
stored file cannot go stale, only lack texts indexed since.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["text_id", "Refreshed", "refresh"]

Progress = Callable[[int, int], None]


def text_id(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class Refreshed:
    ids: list[str]
    vectors: np.ndarray  # float16, one row per id
    embedded: int
    dropped: int

    @property
    def changed(self) -> bool:
        return bool(self.embedded or self.dropped)


def refresh(wanted: Mapping[str, str], old_ids: Sequence[str], old_vectors: np.ndarray,
            embed: Callable[[list[str]], np.ndarray], batch: int, progress: Progress | None = None) -> Refreshed:
    """The vectors of `wanted` (id -> text): those among `old_ids` kept, the others embedded `batch` at a time;
    old ones no text wants any more are dropped."""
    kept = {i: v for i, v in zip(old_ids, old_vectors, strict=True) if i in wanted}
    todo = [i for i in wanted if i not in kept]
    for start in range(0, len(todo), batch):
        part = todo[start:start + batch]
        kept.update(zip(part, np.asarray(embed([wanted[i] for i in part]), dtype=np.float16), strict=True))
        if progress:
            progress(min(start + batch, len(todo)), len(todo))
    ids = list(kept)
    dim = old_vectors.shape[1] if old_vectors.ndim == 2 and len(old_vectors) else 0
    vectors = np.vstack([kept[i] for i in ids]) if ids else np.zeros((0, dim), dtype=np.float16)
    return Refreshed(ids, vectors, len(todo), sum(1 for i in old_ids if i not in wanted))
