"""The report is generated from the result files: Markdown tables and two PNGs."""

from __future__ import annotations

import pytest

from lexcite.errors import ConfigError
from lexcite.eval.golden import load_golden
from lexcite.eval.report import write_report
from lexcite.eval.run import evaluate

pytestmark = pytest.mark.unit

PNG = b"\x89PNG\r\n\x1a\n"


def test_report_writes_markdown_and_pngs_from_result_files(golden_file, stub_searcher, ask_fn, support_fn, tmp_path):
    r = evaluate(load_golden(golden_file), stub_searcher, k=3, ablation={"bm25": "bm25", "full": "full"},
                 ask=ask_fn, support=support_fn)
    out = tmp_path / "report"
    r.write(out)
    md, hits, scores, ceiling = write_report(out)
    assert hits.read_bytes()[:8] == PNG and scores.read_bytes()[:8] == PNG
    text = md.read_text(encoding="utf-8")
    assert "| bm25 | 0.500 | 0.250 | 0.500 | 0.307 |" in text  # the ablation row, from summary.json
    assert "| lexcite | 0.250 | 0.500 | 0.500 | 1.000 | 0.500 |" in text and "| retrieval_only | 0.500 |" in text
    assert "ANTHROPIC_API_KEY not set" in text
    assert "![hit@k per stage](hit_at_k.png)" in text and "(scores.png)" in text
    assert "### By category" in text and "| prohibition | 1 |" in text


def test_report_is_rebuilt_from_edited_files_alone(golden_file, stub_searcher, tmp_path):
    r = evaluate(load_golden(golden_file), stub_searcher, k=3, ablation={"full": "full"}, with_answers=False)
    r.summary["ablation"]["full"]["mrr"] = 0.123
    r.write(tmp_path)
    text = write_report(tmp_path)[0].read_text(encoding="utf-8")
    assert "| full | 1.000 | 1.000 | 0.123 |" in text
    assert "Answers beside the baselines" not in text


def test_report_without_result_files_says_what_to_run(tmp_path):
    with pytest.raises(ConfigError, match="lexcite eval --report"):
        write_report(tmp_path)


def test_report_names_the_models_and_defines_each_metric(golden_file, stub_searcher, ask_fn, support_fn, tmp_path):
    from lexcite.eval.aggregate import ANSWER_KEYS, RETRIEVAL_KEYS
    from lexcite.eval.report import METRICS

    r = evaluate(load_golden(golden_file), stub_searcher, k=3, ablation={"full": "full"}, ask=ask_fn,
                 support=support_fn)
    r.meta.update(embedder="e5", reranker="embedder:e5")
    r.write(tmp_path)
    text = write_report(tmp_path)[0].read_text(encoding="utf-8")
    assert "- embedder: e5, reranker: embedder:e5" in text
    for key in (*RETRIEVAL_KEYS, "ceiling", "abstain_correct", "abstain_wrong", *ANSWER_KEYS):
        assert f"- **{key}**: {METRICS[key]}" in text  # one line each, beside the table
        assert "\n" not in METRICS[key]


def test_every_stage_line_differs_from_every_other_in_colour_dash_and_marker():
    from lexcite.eval.report import stage_style

    styles = [stage_style(i) for i in range(10)]
    for field in ("color", "linestyle", "marker"):
        assert len({repr(s[field]) for s in styles}) == 10
