"""Reciprocal-rank fusion, checked against sums worked out by hand."""

import pytest

from lexcite.index.fuse import rrf


def test_rrf_matches_a_hand_worked_example():
    # k = 60. bm25: a, b, c   dense: b, d, a
    # a: 1/61 + 1/63 = 0.0163934 + 0.0158730 = 0.0322664
    # b: 1/62 + 1/61 = 0.0161290 + 0.0163934 = 0.0325224
    # c: 1/63        = 0.0158730
    # d: 1/62        = 0.0161290
    fused = rrf({"bm25": ["a", "b", "c"], "dense": ["b", "d", "a"]}, k=60)
    assert [key for key, _ in fused] == ["b", "a", "d", "c"]
    scores = dict(fused)
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["c"] == pytest.approx(1 / 63)
    assert scores["d"] == pytest.approx(1 / 62)


def test_rrf_breaks_ties_by_first_appearance():
    fused = rrf({"x": ["a", "b"], "y": ["b", "a"]}, k=0)  # both 1/1 + 1/2
    assert [key for key, _ in fused] == ["a", "b"]


def test_rrf_with_one_list_keeps_its_order():
    assert [key for key, _ in rrf({"only": ["c", "a", "b"]})] == ["c", "a", "b"]


def test_rrf_rejects_negative_k():
    with pytest.raises(ValueError, match="k must be >= 0"):
        rrf({"x": ["a"]}, k=-1)
