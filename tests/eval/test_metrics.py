"""Metrics against values worked out by hand on a three-question set.

The set (act A = 32024R1689):

q1 answer, expected A#art_5, no anchors.
   ranked: rct_28 (no), art_5.par_1.pnt_a (below art_5: relevant),
           art_5 (equal, but art_5 is already found: gain 0), art_6 (no)
   gains [0, 1, 0, 0]; first relevant rank 2.
q2 answer, expected A#art_113 and A#art_6.par_1, anchor "2 August 2026".
   ranked: rct_179 whose text has "2<NBSP>August<newline>2026" (relevant by anchor only:
           stands in for one of the two targets, gain 1), art_114 (no),
           art_113 (equal: a second target, gain 1), art_6.par_1.pnt_a (below
           art_6.par_1, but two of two targets are already found: gain 0)
   gains [1, 0, 1, 0]; first relevant rank 1.
q3 abstain: no targets; left out of every ranking metric.

At k = 3:
   hit@3     q1 1, q2 1                           -> mean 1.0
   recall@3  q1 1/1, q2 2/2                       -> mean 1.0
   MRR@10    q1 1/2, q2 1/1                       -> mean 0.75
   nDCG@3    q1 (1/log2 3) / 1          = 0.630930
             q2 (1 + 1/log2 4) / (1 + 1/log2 3) = 1.5 / 1.630930 = 0.919721
                                                  -> mean 0.775325
At k = 1:
   hit@1     q1 0, q2 1                           -> mean 0.5
   recall@1  q1 0/1, q2 1/2                       -> mean 0.25
   nDCG@1    q1 0, q2 1/1                         -> mean 0.5
Abstention with q1 answered, q2 abstained (wrongly), q3 abstained (rightly):
   abstain_correct 1/1 = 1.0, abstain_wrong 1/2 = 0.5
"""

from __future__ import annotations

import pytest

from lexcite.contract import CitationRef
from lexcite.eval import metrics as m
from lexcite.eval.golden import GoldenQuestion

pytestmark = pytest.mark.unit

A = "32024R1689"


def question(qid, behavior="answer", expected=(), anchors=(), **kw):
    return GoldenQuestion(id=qid, question=f"question {qid}", expected=tuple(CitationRef.parse(e) for e in expected),
                          anchors=tuple(anchors), key_facts=(), behavior=behavior, filters={}, category="c",
                          post_cutoff=False, split="test", **kw)


def unit(uid, text="", act=A, version="2024-07-12"):
    return m.Ranked(CitationRef(act, version, uid), text)


Q1 = question("q1", expected=[f"{A}#art_5"])
Q2 = question("q2", expected=[f"{A}#art_113", f"{A}#art_6.par_1"], anchors=["2 August 2026"])
Q3 = question("q3", behavior="abstain")
R1 = [unit("rct_28"), unit("art_5.par_1.pnt_a"), unit("art_5"), unit("art_6")]
R2 = [unit("rct_179", "It shall apply from 2\u00a0August\n2026."), unit("art_114"), unit("art_113"),
      unit("art_6.par_1.pnt_a")]
ANSWERABLE = [(Q1, R1), (Q2, R2)]


def avg(fn, k=None):
    values = [fn(r, q, k) if k else fn(r, q) for q, r in ANSWERABLE]
    return sum(values) / len(values)


class TestHandWorkedSet:
    def test_gains_credit_each_expected_unit_once(self):
        assert m.gains(R1, Q1) == [0, 1, 0, 0]
        assert m.gains(R2, Q2) == [1, 0, 1, 0]

    def test_first_relevant_rank(self):
        assert m.first_relevant_rank(R1, Q1) == 2
        assert m.first_relevant_rank(R2, Q2) == 1

    def test_at_k3(self):
        assert avg(m.hit_at_k, 3) == 1.0
        assert avg(m.recall_at_k, 3) == 1.0
        assert avg(m.mrr) == 0.75
        assert m.ndcg_at_k(R1, Q1, 3) == pytest.approx(0.630930, abs=1e-6)
        assert m.ndcg_at_k(R2, Q2, 3) == pytest.approx(0.919721, abs=1e-6)
        assert avg(m.ndcg_at_k, 3) == pytest.approx(0.775325, abs=1e-6)

    def test_at_k1(self):
        assert avg(m.hit_at_k, 1) == 0.5
        assert avg(m.recall_at_k, 1) == 0.25
        assert avg(m.ndcg_at_k, 1) == 0.5

    def test_abstention_rates(self):
        rates = m.abstention_rates([(Q1, False), (Q2, True), (Q3, True)])
        assert rates == {"abstain_correct": 1.0, "abstain_wrong": 0.5}


class TestRelevance:
    def test_paragraph_hits_expected_article_and_article_hits_expected_point(self):
        assert m.is_relevant(unit("art_5.par_1"), question("x", expected=[f"{A}#art_5"]))
        assert m.is_relevant(unit("art_5"), question("x", expected=[f"{A}#art_5.par_1.pnt_a"]))

    def test_sibling_and_prefix_lookalike_do_not_hit(self):
        q = question("x", expected=[f"{A}#art_5.par_1"])
        assert not m.is_relevant(unit("art_5.par_2"), q)
        assert not m.is_relevant(unit("art_50"), question("x", expected=[f"{A}#art_5"]))

    def test_same_id_in_another_act_does_not_hit(self):
        assert not m.is_relevant(unit("art_5", act="32016R0679"), question("x", expected=[f"{A}#art_5"]))

    def test_versioned_expectation_hits_only_that_version(self):
        q = question("x", expected=[f"{A}@2024-07-12#art_5"])
        assert m.is_relevant(unit("art_5", version="2024-07-12"), q)
        assert not m.is_relevant(unit("art_5", version="2026-07-27"), q)

    def test_derived_unit_hits_the_amending_unit_that_enacted_it(self):
        q = question("x", expected=["32026R1744#art_1.pnt_5"])
        derived = m.Ranked(CitationRef(A, "2026-07-27", "art_4.par_1"), "",
                           changed_by=CitationRef.parse("32026R1744@2026-07-24#art_1.pnt_5"))
        assert m.is_relevant(derived, q)
        assert m.gains([derived], q) == [1]
        other = m.Ranked(derived.ref, "", changed_by=CitationRef.parse("32026R1744@2026-07-24#art_1.pnt_6"))
        assert not m.is_relevant(other, q)
        assert not m.is_relevant(unit("art_4.par_1", version="2026-07-27"), q)

    def test_anchor_matches_across_unicode_spaces(self):
        q = question("x", anchors=["shall apply  from 2 August"])
        assert m.is_relevant(unit("art_1", "It\u2009shall apply\u202ffrom\r\n2\u00a0August 2026"), q)
        assert not m.is_relevant(unit("art_1", "It shall apply from 2 September"), q)

    def test_anchor_only_question_counts_anchors_as_targets(self):
        q = question("x", anchors=["alpha", "beta"])
        ranked = [unit("art_1", "alpha and beta"), unit("art_2", "beta")]
        assert m.gains(ranked, q) == [1, 0]
        assert m.recall_at_k(ranked, q, 1) == 1.0

    def test_the_same_anchor_found_twice_stands_in_once(self):
        q = question("x", expected=[f"{A}#art_1", f"{A}#art_2"], anchors=["alpha"])
        ranked = [unit("rct_1", "alpha"), unit("rct_2", "alpha")]
        assert m.gains(ranked, q) == [1, 0]
        assert m.recall_at_k(ranked, q, 2) == 0.5

    def test_nothing_ranked_scores_zero(self):
        assert (m.hit_at_k([], Q1, 6), m.recall_at_k([], Q1, 6), m.mrr([], Q1), m.ndcg_at_k([], Q1, 6)) == (0, 0, 0, 0)

    def test_mrr_ignores_hits_below_rank_10(self):
        ranked = [unit(f"rct_{i}") for i in range(10)] + [unit("art_5")]
        assert m.mrr(ranked, Q1) == 0.0


def test_normalise_collapses_all_unicode_spaces():
    assert m.normalise(" a\u00a0\u00a0b\tc\u3000d\u2028e\u200bf ") == "a b c d ef"


def test_mean_skips_none():
    assert m.mean([1.0, None, 0.0]) == 0.5
    assert m.mean([None]) is None
