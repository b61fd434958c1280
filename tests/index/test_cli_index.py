"""`lexcite index`, `calibrate` and `search` from the command line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lexcite.catalog import Catalog
from lexcite.cli import app
from lexcite.cli._options import perimeter_from_options
from lexcite.errors import ConfigError, UsageError

from .conftest import AI, DP, EMBEDDER, RERANKER, ai_act, dp_act, store
from .test_calibrate import DEV, _golden

runner = CliRunner()


def test_perimeter_options_build_the_perimeter():
    p = perimeter_from_options(["32024R1689"], "en", "2025-01-01", True, True, ["eu-staff"])
    assert p.acts == ("32024R1689",) and p.as_of == "2025-01-01" and p.include_superseded and p.binding_only
    assert p.access_tags == ("eu-staff",)
    assert perimeter_from_options(language="any").language is None


@pytest.mark.parametrize("kw,error,msg", [({"act": ["AI Act"]}, UsageError, "--act: unknown act 'AI Act'"),
                                          ({"as_of": "2025-13-01"}, ConfigError, "--as-of")])
def test_bad_perimeter_options_are_errors(kw, error, msg):
    with pytest.raises(error, match=msg):  # an empty catalog knows no act by that name
        perimeter_from_options(**kw)


@pytest.mark.slow
def test_index_then_search_from_the_command_line(lexcite_home, tmp_path):
    with Catalog(lexcite_home / "catalog.sqlite") as c:
        store(c, ai_act())
        store(c, dp_act())
    golden = _golden(tmp_path / "g.jsonl", DEV)
    r = runner.invoke(app, ["index", "--embedder", EMBEDDER, "--reranker", RERANKER, "--golden", str(golden),
                            "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["embedded"] == report["passages"] > 0 and report["calibration"]["stages"]

    r = runner.invoke(app, ["search", "How long must deployers keep the logs?", "--act", AI, "--json",
                            "--explain"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["ranked"][0]["ref"] == f"{AI}@2022-01-01#art_2.par_2"
    assert {"bm25", "dense", "rerank"} <= set(out["ranked"][0]["stages"])
    assert out["ranked"][0]["link"].startswith("https://")
    assert all(not row["ref"].startswith(DP) for row in out["ranked"])
    assert out["discarded"] and all(d["reason"] for d in out["discarded"])

    r = runner.invoke(app, ["search", "How long must deployers keep the logs?", "--k", "2", "--explain"])
    assert r.exit_code == 0, r.output
    assert "art_2.par_2" in r.stdout and "discarded" in r.stdout

    # a question in everyday words: the acts' term BM25 also read is shown
    r = runner.invoke(app, ["search", "How long must the makers keep the logs?", "--json", "--explain"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["expanded"] == ["provider"]
    r = runner.invoke(app, ["search", "How long must the makers keep the logs?", "--explain"])
    assert "BM25 also read the acts' terms: provider" in " ".join(r.stdout.split())

    r = runner.invoke(app, ["calibrate", "--golden", str(golden), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["answerable"] == 3

    # a question asked under a law the catalog lacks: nothing admitted, the law named; --no-threshold ranks it
    q = "Under the Data Act, how long must deployers keep the logs?"
    r = runner.invoke(app, ["search", q, "--k", "2"])
    assert r.exit_code == 0, r.output
    assert "asked under the Data Act, which the catalog does not hold" in " ".join(r.stdout.split())
    r = runner.invoke(app, ["search", q, "--json"])
    assert json.loads(r.stdout)["outside"] == ["Data Act"] and json.loads(r.stdout)["abstained"]
    r = runner.invoke(app, ["search", q, "--json", "--no-threshold"])
    assert json.loads(r.stdout)["outside"] == [] and not json.loads(r.stdout)["abstained"]
