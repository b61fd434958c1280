"""Embedders remember the last few questions' vectors (embed._LastQuery): the dense retriever, an embedder reranker
on the same model (the question as written and in the acts' words) and the offline answer's sentence nearness ask
for them one after the other."""

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


def test_passages_are_embedded_each_time():
    e = Counting()
    e.embed(["fines?"], query=True)
    e.embed(["fines?"], query=False)  # a passage is not the question
    e.embed(["fines?"], query=False)
    assert len(e.calls) == 3


def test_questions_asked_together_are_embedded_in_one_call_and_kept_each():
    e = Counting()
    e.embed(["fines?"], query=True)
    both = e.embed(["fines?", "fines? penalties"], query=True)  # only the new one is embedded
    assert both.tolist() == [[6.0, 1.0], [16.0, 1.0]] and e.calls[-1] == (("fines? penalties",), True)
    e.embed(["fines? penalties"], query=True)
    e.embed(["a", "b", "c", "d", "e"], query=True)  # more than are kept: embedded, not kept
    assert len(e.calls) == 3
    e.embed(["a"], query=True)
    assert len(e.calls) == 4


def test_the_last_four_questions_are_kept_and_an_older_one_is_embedded_again():
    e = Counting()
    for q in ("fines?", "logs?", "fines? penalties", "logs? records"):
        e.embed([q], query=True)
    e.embed(["fines?"], query=True)  # the reranker's and the answer's turn: still kept
    assert len(e.calls) == 4
    e.embed(["who?"], query=True)  # a fifth: the first embedded, "fines?", goes
    e.embed(["logs?"], query=True)
    assert len(e.calls) == 5
    e.embed(["fines?"], query=True)
    assert len(e.calls) == 6 and e.calls[-1] == (("fines?",), True)
