"""The reranker's second reading of a passage: its sentence nearest the question.

A passage vector reads a whole paragraph or point; a question in a user's words may match one sentence of
a long paragraph well and the paragraph as a whole less (the sentence's subject diluted by the rest).
`lexcite index` stores a vector for every sentence the offline answer
may quote (`answer/nearness.py`), so the reranker can read each candidate's sentences for a dot product
each: where a passage's nearest sentence is nearer the question than the passage, the passage gains a share
of the difference (`Params.sentence_weight`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lexcite.answer.nearness import Nearness, stored_texts
from lexcite.index.chunks import Passage

__all__ = ["NearestSentences"]


class NearestSentences:
    """Each passage's stored sentences (`best`: the cosine of the one nearest a question)."""

    def __init__(self, passages: Sequence[Passage], stored: Nearness):
        self._stored = stored
        self._passages = passages
        self._rows: dict[int, list[int]] = {}

    def _rows_of(self, position: int) -> list[int]:
        rows = self._rows.get(position)
        if rows is None:  # read on first use: a question reads some 25 passages, the index thousands
            unit = self._passages[position].record.unit
            rows = self._rows[position] = self._stored.rows(stored_texts(unit.title, unit.text))
        return rows

    def best(self, question_vector: np.ndarray, positions: Sequence[int]) -> dict[int, float]:
        """The cosine of each passage's stored sentence nearest the question (passages with none are left out)."""
        out = {}
        for pos in positions:
            if rows := self._rows_of(pos):
                out[pos] = float(self._stored.cosines(question_vector, rows).max())
        return out
