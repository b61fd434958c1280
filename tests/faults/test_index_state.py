"""The index: a rebuild that fails leaves the old one working, a bad option changes nothing, a damaged
store is named, never ranked on (issue 16, items 6 and 7)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from lexcite.catalog import Catalog
from lexcite.contract import Perimeter
from lexcite.errors import ConfigError, IndexMismatch
from lexcite.index.build import build
from lexcite.index.dense import DenseStore
from lexcite.index.manifest import load_manifest, manifest_path
from lexcite.index.search import Searcher, Stages
from lexcite.ingest.load import ingest_paths

pytestmark = pytest.mark.integration

Q = "Which person identification data must be included?"
MODELS = {"embedder": "minilm", "reranker": "embedder:minilm"}


@pytest.fixture
def indexed(corpus, lexcite_home):
    with Catalog() as catalog:
        ingest_paths(catalog, [corpus / "32024R2977.oj.html"])
        build(catalog, **MODELS)
        manifest = load_manifest(lexcite_home)
        manifest["thresholds"] = {"calibrated": 0.1}  # stands for a calibration that must survive
        manifest_path(lexcite_home).write_text(json.dumps(manifest))
    return lexcite_home


def _ranking(home: Path) -> list[str]:
    with Searcher(home) as s:  # ranked without the threshold: the order itself is what must not change
        result = s.search(Q, Perimeter(), k=5, stages=replace(Stages(), threshold=False, scope=False))
        return [str(c.ref) for c in result.ranked][:5]


def test_a_rebuild_that_fails_halfway_leaves_the_old_index_working(indexed, monkeypatch):
    before, manifest = _ranking(indexed), load_manifest(indexed)
    real = DenseStore.upsert

    def interrupted(self, *a, **kw):
        raise KeyboardInterrupt  # the rebuild stops at its first write of vectors

    monkeypatch.setattr(DenseStore, "upsert", interrupted)
    with pytest.raises(KeyboardInterrupt), Catalog() as catalog:
        build(catalog, rebuild=True, **MODELS)
    monkeypatch.setattr(DenseStore, "upsert", real)
    assert load_manifest(indexed) == manifest
    assert _ranking(indexed) == before


def test_a_rebuild_that_completes_switches_and_drops_the_old_collection(indexed):
    before, old = _ranking(indexed), load_manifest(indexed)["collection"]
    with Catalog() as catalog:
        build(catalog, rebuild=True, **MODELS)
    assert load_manifest(indexed)["collection"] != old
    assert _ranking(indexed) == before


def test_a_reranker_that_cannot_load_changes_nothing(indexed):
    manifest = load_manifest(indexed)
    with pytest.raises(ConfigError), Catalog() as catalog:
        build(catalog, embedder="minilm", reranker="cross-encoder:/missing/model")
    assert load_manifest(indexed) == manifest


def test_a_missing_golden_file_changes_nothing(indexed):
    manifest = load_manifest(indexed)
    r = subprocess.run([sys.executable, "-m", "lexcite", "index", "--golden", "/missing/golden.jsonl"],
                       capture_output=True, text=True, env=os.environ.copy(), timeout=300)
    assert r.returncode == 1 and "no such file; nothing was changed" in r.stderr, r.stderr
    assert load_manifest(indexed) == manifest


def _delete_the_store(home):
    shutil.rmtree(home / "chroma")


def _rename_the_collection(home):
    m = load_manifest(home)
    m["collection"] = m["collection"] + "-x"
    manifest_path(home).write_text(json.dumps(m))


def _switch_the_embedder(home):
    m = load_manifest(home)
    m["embedder"] = "e5"
    manifest_path(home).write_text(json.dumps(m))


def _garble_the_manifest(home):
    manifest_path(home).write_text('{"format": ')


@pytest.mark.parametrize("damage", [_delete_the_store, _rename_the_collection, _switch_the_embedder,
                                    _garble_the_manifest])
def test_damaged_index_state_is_named_not_ranked_on(indexed, damage):
    damage(indexed)
    # A new process: chromadb keeps an opened store in memory, so only a fresh one sees the damage.
    r = subprocess.run([sys.executable, "-m", "lexcite", "search", Q, "--no-threshold"], capture_output=True,
                       text=True, env=os.environ.copy(), timeout=300)
    assert r.returncode == 1, r.stdout
    assert r.stderr.startswith("error: ") and "lexcite index --rebuild" in r.stderr and "Traceback" not in r.stderr


def _edit_and_reingest(corpus, tmp_path):
    """The stored act again, one provision's words changed: an incremental index re-embeds that passage."""
    data = (corpus / "32024R2977.oj.html").read_bytes().replace(b"person identification data made available",
                                                                 b"person identification data published", 1)
    edited = tmp_path / "32024R2977.oj.html"
    edited.write_bytes(data)
    with Catalog() as catalog:
        assert ingest_paths(catalog, [edited])[0].action == "updated"


def test_an_interrupted_incremental_index_is_refused_then_completed(indexed, corpus, tmp_path, monkeypatch):
    _edit_and_reingest(corpus, tmp_path)
    real = DenseStore.upsert

    def interrupted(self, *a, **kw):
        raise KeyboardInterrupt  # stale chunks deleted, the new ones not yet written: the live collection is torn

    monkeypatch.setattr(DenseStore, "upsert", interrupted)
    with pytest.raises(KeyboardInterrupt), Catalog() as catalog:
        build(catalog, **MODELS)
    monkeypatch.setattr(DenseStore, "upsert", real)
    assert load_manifest(indexed)["building"]["started_at"]
    with pytest.raises(IndexMismatch, match=r"has not finished .* run `lexcite index` \(once no build is running\)"):
        Searcher(indexed)

    with Catalog() as catalog:
        report = build(catalog, **MODELS)
    assert report.embedded >= 1 and any("completed the index build that was interrupted" in n for n in report.notes)
    manifest = load_manifest(indexed)
    assert "building" not in manifest
    with Searcher(indexed) as s:
        assert s._dense.count() == sum(v[2] for v in manifest["passages"].values())
    after = _ranking(indexed)
    with Catalog() as catalog:
        build(catalog, rebuild=True, **MODELS)  # what a build from nothing ranks
    assert _ranking(indexed) == after


def test_a_no_op_index_leaves_no_mark(indexed):
    with Catalog() as catalog:
        report = build(catalog, **MODELS)
    assert report.embedded == 0 and report.notes == ()
    assert "building" not in load_manifest(indexed)


def test_the_collection_an_interrupted_rebuild_left_is_dropped_by_the_next_index(indexed, monkeypatch):
    real = DenseStore.upsert

    def interrupted(self, *a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(DenseStore, "upsert", interrupted)
    with pytest.raises(KeyboardInterrupt), Catalog() as catalog:
        build(catalog, rebuild=True, **MODELS)
    monkeypatch.setattr(DenseStore, "upsert", real)
    live = load_manifest(indexed)["collection"]
    with Searcher(indexed) as s:
        names = sorted(c.name for c in s._client.list_collections())
    left = [n for n in names if n != live]
    assert len(left) == 1 and left[0].startswith(live + "-")  # the half-built generation
    with Catalog() as catalog:
        report = build(catalog, **MODELS)
    assert report.notes == (f"dropped 1 collection(s) that an interrupted index build left behind: {left[0]}",)
    with Searcher(indexed) as s:
        assert [c.name for c in s._client.list_collections()] == [live]


def test_a_second_build_at_once_is_told_the_index_is_busy(indexed):
    from lexcite.index.interrupted import build_lock

    manifest = load_manifest(indexed)
    with build_lock(indexed), Catalog() as catalog, pytest.raises(IndexMismatch, match="being written by another"):
        build(catalog, rebuild=True, **MODELS)
    assert load_manifest(indexed) == manifest


def test_the_rebuild_an_unreadable_manifest_names_repairs_it(indexed):
    before = _ranking(indexed)
    _garble_the_manifest(indexed)
    with pytest.raises(IndexMismatch, match="lexcite index --rebuild"), Catalog() as catalog:
        build(catalog, **MODELS)
    with Catalog() as catalog:
        build(catalog, rebuild=True, **MODELS)
    assert _ranking(indexed) == before


def test_a_rebuild_keeps_the_models_the_index_uses(indexed):
    with Catalog() as catalog:
        report = build(catalog, rebuild=True)
    assert (report.embedder, report.reranker) == ("minilm", "embedder:minilm")
    assert load_manifest(indexed)["embedder"] == "minilm"
