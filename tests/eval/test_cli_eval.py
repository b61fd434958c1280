"""`lexcite eval` as a user runs it.

The fast tests check option handling through typer's CliRunner. The slow one is
the whole chain on a real act: ingest, index (calibrated on a small golden
file's dev split), then `lexcite eval --json --report` in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from lexcite.cli import app
from lexcite.errors import ConfigError

ACT = "32024R2977"  # the small implementing regulation of the shared corpus (6 articles)
JSON_KEYS = {"n", "hit@k", "recall@k", "mrr", "ndcg@k", "abstain_correct", "abstain_wrong", "by_category",
             "by_post_cutoff", "ablation", "key_facts", "citation_valid", "citation_support", "refusal_rate",
             "abstain_precision", "abstain_recall", "conflict_both_shown", "superseded_cited", "ref_exact",
             "ref_loose", "ceiling", "ceiling_by_budget", "errors"}


def q(qid, question, split, expected=(), anchors=(), key_facts=(), behavior="answer", category="wallet"):
    return {"id": qid, "question": question, "expected": [f"{ACT}#{e}" for e in expected], "anchors": list(anchors),
            "key_facts": list(key_facts), "behavior": behavior, "filters": {"language": "en", "acts": [ACT]},
            "category": category, "post_cutoff": False, "split": split}


SMALL_SET = [
    q("t1", "Who can revoke person identification data issued to a wallet unit?", "dev", ["art_5.par_2"],
      ["can revoke the person identification data"], ["Only providers"]),
    q("t2", "When does the regulation on wallet integrity enter into force?", "dev", ["art_6"], (), ["twentieth day"]),
    q("t3", "What is the maximum fine for a wallet provider that leaks data?", "dev", behavior="abstain",
      category="abstain"),
    q("t4", "Can a revocation of person identification data be reverted?", "test", ["art_5.par_5"], (),
      ["cannot be reverted"]),
    q("t5", "At which assurance level must Member States enrol wallet users?", "test", ["art_3.par_7"], (),
      ["assurance level high"]),
    q("t6", "How many days does a bank have to answer a mortgage complaint?", "test", behavior="abstain",
      category="abstain"),
]


@pytest.fixture
def small_golden(tmp_path):
    path = tmp_path / "small.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in SMALL_SET) + "\n", encoding="utf-8")
    return path


class TestOptions:
    @pytest.mark.unit
    def test_unknown_split_is_refused_with_the_choices(self, small_golden):
        r = CliRunner().invoke(app, ["eval", "--golden", str(small_golden), "--split", "train"])
        assert isinstance(r.exception, ConfigError) and "dev or test" in str(r.exception)

    @pytest.mark.unit
    def test_bad_as_of_is_refused(self, small_golden):
        r = CliRunner().invoke(app, ["eval", "--golden", str(small_golden), "--as-of", "2026-13-01"])
        assert isinstance(r.exception, ConfigError) and "--as-of" in str(r.exception)

    @pytest.mark.unit
    def test_bad_golden_line_names_file_and_line(self, tmp_path):
        bad = tmp_path / "bad.jsonl"
        bad.write_text(json.dumps(SMALL_SET[0]) + "\n{not json\n", encoding="utf-8")
        r = CliRunner().invoke(app, ["eval", "--golden", str(bad)])
        assert isinstance(r.exception, ConfigError) and f"{bad}:2:" in str(r.exception)


def lexcite(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lexcite", *args], capture_output=True, text=True,
                          env=os.environ.copy(), timeout=900)


@pytest.mark.integration
@pytest.mark.slow
def test_eval_json_on_a_real_index_prints_one_object_and_writes_the_report(corpus, small_golden, tmp_path):
    assert lexcite("ingest", str(corpus / f"{ACT}.oj.html")).returncode == 0
    built = lexcite("index", "--embedder", "minilm", "--reranker", "none", "--golden", str(small_golden))
    assert built.returncode == 0, built.stderr
    report = tmp_path / "report"
    r = lexcite("eval", "--golden", str(small_golden), "--k", "3", "--json", "--report", str(report))
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)  # the whole of stdout is one JSON object
    assert set(summary) == JSON_KEYS
    assert summary["n"] == 6
    assert list(summary["ablation"]) == ["bm25", "dense", "hybrid", "+siblings", "+rerank", "+binding", "+value",
                                         "+named", "+provenance", "+dates", "+definitions", "+acts",
                                         "+expansion", "+sentences", "+applicability", "+asking", "+second",
                                         "full"]
    assert summary["hit@k"] is not None and 0 <= summary["hit@k"] <= 1
    assert summary["superseded_cited"] == 0
    assert set(summary["by_category"]) == {"wallet", "abstain"}
    rows = [json.loads(line) for line in (report / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [row["id"] for row in rows] == ["t1", "t2", "t3", "t4", "t5", "t6"]
    assert {"retrieval_only"} <= set(rows[0]["baselines"])
    assert (report / "report.md").is_file() and (report / "hit_at_k.png").is_file()
    assert (report / "scores.png").is_file()

    test_only = lexcite("eval", "--golden", str(small_golden), "--split", "test", "--no-answers", "--json")
    only = json.loads(test_only.stdout)
    assert only["n"] == 3 and "key_facts" not in only
