"""DenseStore on real embedded Chroma: the same query gives the same units in every process.

Chroma keeps the vectors of its last writes in a log and re-inserts them into the HNSW graph at each start,
in an order that varies; DenseStore makes every write persist the graph (dense.py), so a fresh process reads
the graph as written. Each query below runs in two fresh interpreters, as two `lexcite ask` runs would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import chromadb
import numpy as np
import pytest
from chromadb.config import Settings

from lexcite.index.dense import DenseStore

pytestmark = pytest.mark.integration

_QUERY = """
import json, sys
import chromadb, numpy as np
from chromadb.config import Settings
from lexcite.index.dense import DenseStore
client = chromadb.PersistentClient(path=sys.argv[1], settings=Settings(anonymized_telemetry=False))
store = DenseStore(client, "dense-store-test")
queries = np.load(sys.argv[2])
print(json.dumps([store.query(q, {"lang": "en"}, 50) for q in queries]))
"""


def _in_a_fresh_process(path: Path, queries: Path) -> list[list[list[object]]]:
    done = subprocess.run([sys.executable, "-c", _QUERY, str(path), str(queries)], capture_output=True, text=True,
                          check=True, timeout=300)
    return json.loads(done.stdout)


def test_a_query_retrieves_the_same_units_in_every_process(tmp_path):
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(2900, 32)).astype(np.float32)
    client = chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=Settings(anonymized_telemetry=False))
    store = DenseStore(client, "dense-store-test")
    # written as an index build writes: batches, the last one short of Chroma's default sync threshold (1000)
    ids = [f"en:X@1#u_{i}" for i in range(len(vectors))]
    store.upsert(ids, vectors, [{"lang": "en", "key": f"en:X@1#u_{i}"} for i in range(len(vectors))])
    del store, client
    np.save(tmp_path / "queries.npy", rng.normal(size=(100, 32)).astype(np.float32))
    first = _in_a_fresh_process(tmp_path / "chroma", tmp_path / "queries.npy")
    second = _in_a_fresh_process(tmp_path / "chroma", tmp_path / "queries.npy")
    assert len(first) == 100 and all(len(r) == 50 for r in first)
    assert first == second
