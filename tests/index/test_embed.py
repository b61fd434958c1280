"""Embedders remember the last question's vector (embed._LastQuery): the dense retriever and an embedder reranker
on the same model ask for it one after the other."""

import numpy as np
import pytest

from lexcite.index.embed import _LastQuery

pytestmark = pytest.mark.unit


class Counting(_LastQuery):
    name, dim, max_words = "counting", 2, 100

    def __init__(self):
        self.calls = []

    def _embed(self, texts, *, query):
        self.calls.append((tuple(texts), query))
        return np.array([[len(t), float(query)] for t in texts], dtype=np.float32)


def test_the_same_question_twice_is_embedded_once_and_each_caller_gets_its_own_copy():
    e = Counting()
    a = e.embed(["fines?"], query=True)
    a[0, 0] = -1.0  # a caller editing its vector
    b = e.embed(["fines?"], query=True)
    assert e.calls == [(("fines?",), True)] and b.tolist() == [[6.0, 1.0]]


def test_another_question_passages_and_batches_are_embedded_each_time():
    e = Counting()
    e.embed(["fines?"], query=True)
    e.embed(["logs?"], query=True)
    e.embed(["fines?"], query=False)  # a passage is not the question
    e.embed(["fines?", "logs?"], query=True)
    e.embed(["fines?"], query=True)
    assert len(e.calls) == 5
