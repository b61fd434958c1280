"""`evaluate` on the three-question set of conftest.py, against numbers worked out by hand.

Ablation {"bm25", "full"} at k = 3 (targets and gains as in test_metrics.py):

full   q1 ranked rct_28, art_5.par_1.pnt_a, art_5, art_6: hit 1, recall 1, RR 1/2, nDCG 0.630930
       q2 ranked rct_179 (anchor, NBSP), art_114, art_113, OMNI art_1.pnt_40.pnt_a:
          hit 1, recall 2/2, RR 1, nDCG 0.919721
       -> hit@k 1.0, recall@k 1.0, mrr 0.75, ndcg@k 0.775325
       abstained: q1 no, q2 yes (conflict: answerable), q3 yes (abstain)
       -> abstain_correct 1/1 = 1.0, abstain_wrong 1/2 = 0.5
bm25   q1 art_7, art_8: all 0.
       q2 art_113: hit 1, recall 1/2, RR 1, nDCG 1 / (1 + 1/log2 3) = 0.613147
       -> hit 0.5, recall 0.25, mrr 0.5, ndcg 0.306574

Answers (stub_ask):
   q1 "Subliminal techniques are prohibited. The fine is 35 million."
      key facts subliminal yes, manipulative no -> 0.5; citations valid; support: sentence 1
      yes, sentence 2 ("35" not in the unit) no -> 0.5
   q2 refused (wrongly); key facts 0; its conflicts name art_113 and OMNI art_1.pnt_40 -> both
      sides (acts) shown
   q3 refused (rightly); no key facts -> not counted
   -> key_facts (0.5 + 0) / 2 = 0.25, citation_valid 1/1, citation_support 0.5,
      refusal_rate 2/3, abstain_precision 1/2 (q3 of q2, q3), abstain_recall 1/1,
      conflict_both_shown 1/1, superseded_cited 0
Retrieval-only baseline (first sentence of the top BM25 unit):
   q1 "Article 7 text." key facts 0/2, supported ("7" is in the unit)
   q2 "It shall apply from 2 August 2026." key facts 1/1, supported; cites the AI Act side only,
      so the conflict is not shown
   q3 nothing ranked -> refused
   -> key_facts 0.5, citation_valid 1.0, citation_support 1.0, refusal_rate 1/3,
      abstain_precision 1/1, abstain_recall 1/1, conflict_both_shown 0.0
"""

from __future__ import annotations

import pytest

from lexcite.eval.golden import load_golden
from lexcite.eval.run import EvalResult, evaluate

pytestmark = pytest.mark.unit

ABLATION = {"bm25": "bm25", "full": "full"}
JSON_KEYS = {"n", "hit@k", "recall@k", "mrr", "ndcg@k", "abstain_correct", "abstain_wrong", "ceiling",
             "ceiling_by_budget", "by_category",
             "by_post_cutoff", "ablation", "key_facts", "citation_valid", "citation_support", "refusal_rate",
             "abstain_precision", "abstain_recall", "conflict_both_shown", "superseded_cited", "ref_exact", "ref_loose",
             "errors"}


@pytest.fixture
def result(golden_file, stub_searcher, ask_fn, support_fn) -> EvalResult:
    return evaluate(load_golden(golden_file), stub_searcher, k=3, ablation=ABLATION, ask=ask_fn, support=support_fn)


def test_json_has_exactly_the_documented_keys(result):
    assert set(result.to_json()) == JSON_KEYS


def test_retrieval_numbers_match_the_hand_computation(result):
    s = result.to_json()
    assert s["n"] == 3
    assert (s["hit@k"], s["recall@k"], s["mrr"]) == (1.0, 1.0, 0.75)
    assert s["ndcg@k"] == pytest.approx(0.775325, abs=1e-6)
    assert (s["abstain_correct"], s["abstain_wrong"]) == (1.0, 0.5)


def test_ablation_table_holds_each_stage_in_order(result):
    ab = result.to_json()["ablation"]
    assert list(ab) == ["bm25", "full"]
    assert (ab["bm25"]["hit@k"], ab["bm25"]["recall@k"], ab["bm25"]["mrr"]) == (0.5, 0.25, 0.5)
    assert ab["bm25"]["ndcg@k"] == pytest.approx(0.306574, abs=1e-6)
    assert ab["full"]["ndcg@k"] == pytest.approx(0.775325, abs=1e-6)


def test_answer_numbers_match_the_hand_computation(result):
    s = result.to_json()
    assert s["key_facts"] == 0.25
    assert (s["citation_valid"], s["citation_support"]) == (1.0, 0.5)
    assert s["refusal_rate"] == pytest.approx(2 / 3)
    assert (s["abstain_precision"], s["abstain_recall"]) == (0.5, 1.0)
    assert (s["conflict_both_shown"], s["superseded_cited"]) == (1.0, 0)
    # q1 cites art_5.par_1.pnt_a (on the expected art_5 branch); q2, answerable, was refused
    assert (s["ref_exact"], s["ref_loose"]) == (0.5, 0.5)


def test_retrieval_only_baseline_is_measured_in_the_same_run(result):
    b = result.baselines["retrieval_only"]
    assert (b["key_facts"], b["citation_valid"], b["citation_support"]) == (0.5, 1.0, 1.0)
    assert b["refusal_rate"] == pytest.approx(1 / 3)
    assert (b["abstain_precision"], b["abstain_recall"], b["conflict_both_shown"]) == (1.0, 1.0, 0.0)
    assert result.rows[1]["baselines"]["retrieval_only"]["text"] == "It shall apply from 2 August 2026."
    assert "no_rag" not in result.baselines


def test_breakdowns_by_category_and_post_cutoff(result):
    s = result.to_json()
    assert set(s["by_category"]) == {"prohibition", "deadline", "abstain"}
    assert s["by_category"]["prohibition"]["mrr"] == 0.5
    assert s["by_category"]["abstain"]["hit@k"] is None  # no answerable question there
    cut = s["by_post_cutoff"]
    assert set(cut) == {"false", "true"}
    assert (cut["false"]["n"], cut["false"]["abstain_wrong"], cut["true"]["abstain_wrong"]) == (2, 0.0, 1.0)
    assert set(result.by_split) == {"dev", "test"}


def test_unknown_keys_are_kept_in_per_question_rows(result):
    assert result.rows[0]["extra"] == {"note": "kept in output"}
    assert result.rows[0]["stages"]["full"]["rank"] == 2


def test_each_question_is_searched_once_per_stage(golden_file, stub_searcher, ask_fn, support_fn):
    evaluate(load_golden(golden_file), stub_searcher, k=3, ablation=ABLATION, ask=ask_fn, support=support_fn)
    assert [(qid, st) for qid, st, _, _ in stub_searcher.calls] == [
        ("q1", "bm25"), ("q1", "full"), ("q2", "bm25"), ("q2", "full"), ("q3", "bm25"), ("q3", "full")]


def test_as_of_applies_unless_the_question_sets_its_own(golden_file, stub_searcher):
    evaluate(load_golden(golden_file), stub_searcher, k=3, ablation=ABLATION, with_answers=False, as_of="2026-01-01")
    as_of = {qid: p.as_of for qid, _, p, _ in stub_searcher.calls}
    assert as_of == {"q1": "2026-01-01", "q2": "2025-01-01", "q3": "2026-01-01"}


def test_without_answers_json_has_only_retrieval_keys(golden_file, stub_searcher):
    r = evaluate(load_golden(golden_file), stub_searcher, k=3, ablation=ABLATION, with_answers=False)
    assert set(r.to_json()) == {"n", "hit@k", "recall@k", "mrr", "ndcg@k", "abstain_correct", "abstain_wrong",
                                "ceiling", "ceiling_by_budget", "by_category", "by_post_cutoff", "ablation"}
    assert "answer" not in r.rows[0]


def test_no_rag_baseline_runs_when_given_a_model(golden_file, stub_searcher, ask_fn, support_fn):
    prompts = []

    def model(prompt):
        prompts.append(prompt)
        return "I don't know." if "pizza" in prompt else "It applies from 2 August 2026."

    r = evaluate(load_golden(golden_file), stub_searcher, k=3, ablation=ABLATION, ask=ask_fn, support=support_fn,
                 no_rag=model)
    b = r.baselines["no_rag"]
    assert len(prompts) == 3
    # q1 0/2, q2 1/1 key facts; no citations, so never valid; q3 refused (rightly)
    assert (b["key_facts"], b["citation_valid"], b["abstain_recall"]) == (0.5, 0.0, 1.0)


def test_latency_has_p50_and_p95_per_stage(result):
    assert {"bm25", "full", "answer", "full/bm25", "full/dense"} <= set(result.latency)
    assert result.latency["full/dense"]["p50_ms"] == 2.0


def test_result_files_round_trip(result, tmp_path):
    result.write(tmp_path / "out")
    back = EvalResult.read(tmp_path / "out")
    assert back.summary == result.summary and back.rows == result.rows


def test_a_question_whose_answer_raises_costs_its_row_not_the_run(golden_file, stub_searcher, ask_fn, support_fn):
    first = load_golden(golden_file)[0].question

    def ask(question, perimeter, **kw):
        if question == first:
            raise IndexError("list index out of range")
        return ask_fn(question, perimeter, **kw)

    r = evaluate(load_golden(golden_file), stub_searcher, k=3, ablation=ABLATION, ask=ask, support=support_fn)
    rows = {row["id"]: row for row in r.rows}
    assert rows["q1"]["answer"]["error"] == "IndexError: list index out of range"
    assert "error" not in rows["q2"]["answer"] and len(r.rows) == 3
    assert r.summary["errors"] == ["q1"]
    # counted as given and wrong: q1's half key fact is gone, and it is not a refusal
    assert r.summary["key_facts"] == 0.0 and r.summary["refusal_rate"] == pytest.approx(2 / 3)


def test_a_lexcite_error_while_answering_still_ends_the_run(golden_file, stub_searcher, support_fn):
    from lexcite.errors import IndexMismatch

    def ask(question, perimeter, **kw):
        raise IndexMismatch("the index was built from another catalog state")

    with pytest.raises(IndexMismatch):
        evaluate(load_golden(golden_file), stub_searcher, k=3, ablation=ABLATION, ask=ask, support=support_fn)



def test_the_report_names_the_questions_that_raised(golden_file, stub_searcher, ask_fn, support_fn, tmp_path):
    from lexcite.eval.report import write_report

    first = load_golden(golden_file)[0].question

    def ask(question, perimeter, **kw):
        if question == first:
            raise KeyError("art_99")
        return ask_fn(question, perimeter, **kw)

    evaluate(load_golden(golden_file), stub_searcher, k=3, ablation=ABLATION, ask=ask,
             support=support_fn).write(tmp_path / "out")
    write_report(tmp_path / "out")
    assert "1 question(s) raised while answering**, counted as wrong answers: q1 (KeyError: 'art_99')" in (
        tmp_path / "out" / "report.md").read_text(encoding="utf-8")
