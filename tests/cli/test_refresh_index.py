"""`lexcite refresh` brings the index up to date: nothing to embed when nothing changed, only the changed units
when an act changed (issue 14, item 4), against the replay Cellar and a real minilm index."""

from __future__ import annotations

import json

import pytest

from lexcite.catalog import Catalog

pytestmark = pytest.mark.integration

ACT = "32024R2977"  # a small implementing act: the index builds in seconds


def _no_discovery(cellar):
    cellar.set_sparql("consolidated", ACT, [])
    cellar.set_sparql("amending", ACT, [])


def _golden(path):
    """Two dev questions on the act, so that calibrating (at index and after a change) takes seconds."""
    rows = [{"id": "w1", "question": "What must a wallet provider certify?", "expected": [f"{ACT}#art_1"],
             "anchors": [], "key_facts": [], "behavior": "answer", "filters": {"language": "en"}, "category": "x",
             "post_cutoff": False, "split": "dev"},
            {"id": "w2", "question": "What is the corporate tax rate in Ireland?", "expected": [], "anchors": [],
             "key_facts": [], "behavior": "abstain", "filters": {"language": "en"}, "category": "x",
             "post_cutoff": False, "split": "dev"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return str(path)


def test_refresh_indexes_only_what_changed(cli, cellar, corpus, tmp_path):
    _no_discovery(cellar)
    golden = _golden(tmp_path / "golden.jsonl")
    r = cli("refresh", ACT, "--no-index")
    assert r.code == 0, r.err
    r = cli("index", "--embedder", "minilm", "--reranker", "embedder:minilm", "--golden", golden)
    assert r.code == 0, r.err

    r = cli("refresh", ACT, "--golden", golden)  # 304 for the document: the catalog is as the index knows it
    assert r.code == 0, r.err
    assert "not_modified" in r.out and "index: up to date (nothing to embed)" in r.err

    # Cellar now serves a corrected text: one word of one article changed
    data = (corpus / "32024R2977.oj.html").read_bytes()
    changed = data.replace(b"wallet units", b"wallet unit", 1)
    assert changed != data
    cellar.add_document(ACT, "eng", "html", changed, last_modified="2025-01-15")
    r = cli("refresh", ACT, "--golden", golden)
    assert r.code == 0, r.err
    assert "updated" in r.out and r.out.index("updated") < r.out.index(" embedded, ")  # what was fetched, first
    line = next(x for x in r.out.splitlines() if " embedded, " in x)
    embedded = int(line.split(": ", 1)[1].split(" embedded")[0])
    with Catalog() as c:
        passages = sum(1 for _ in c.records())
    assert 1 <= embedded <= 3 < passages, line  # the changed passage (and its chunks), not the act
    assert "minilm" in line  # the index's own embedder, not the default
    assert "threshold" in r.out  # recalibrated, since the index changed


def test_a_refresh_golden_that_does_not_exist_fetches_nothing(cli, cellar, tmp_path):
    r = cli("refresh", ACT, "--golden", str(tmp_path / "missing.jsonl"))
    assert r.code == 1 and "no such file; nothing was fetched" in r.err  # a configuration error (README)
    assert not cellar.requests
