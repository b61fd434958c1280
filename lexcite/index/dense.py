"""Dense retrieval on Chroma: embedded (PersistentClient) or a Chroma server (HttpClient).

The index backend is one of lexcite's two seams (STYLE.md §8): the embedded
store under LEXCITE_HOME/chroma by default, a `chroma run` server when
LEXCITE_CHROMA_URL=http://host:port is set. Either way lexcite passes its own
vectors (collections have no embedding function), and the perimeter is a
Chroma `where` clause evaluated inside the query (invariant 1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from lexcite.contract import OPEN_END
from lexcite.errors import ConfigError
from lexcite.index._chroma_import import chromadb_lightly
from lexcite.index.chunks import Passage, unit_key
from lexcite.index.perimeter import date_int, tag_key

__all__ = ["DenseStore", "metadata", "open_client", "backend_name", "same_backend"]

_BATCH = 1000
# Chroma keeps the vectors of its last writes in a log, persisted into the HNSW graph only every `sync_threshold`
# writes (default 1000), and re-inserts the logged ones into the graph at every start, in an order that varies: the
# same question then retrieved other units from one process to the next (27 of 152 dev questions differed at 64
# results; 656 of 3,728 vectors were in the log). Persisting at every write of two or more vectors makes the graph
# on disk the whole index, and the same question the same answer (0 of 152 differed); a build takes no longer.
_CONFIGURATION = {"hnsw": {"space": "cosine", "sync_threshold": 2, "batch_size": 2}}


def backend_name(url: str | None) -> str:
    """The Chroma server's URL, or "embedded": the store under the home, wherever the home is (a home
    copied or moved keeps its index)."""
    return url if url else "embedded"


def same_backend(recorded: str, backend: str) -> bool:
    """Whether a manifest's backend is `backend`; manifests before 2026-11 name the embedded store's path."""
    return recorded == backend or (backend == "embedded" and recorded.startswith("embedded:"))


def open_client(home: Path, url: str | None) -> Any:
    """A Chroma client: HttpClient for `url` (http://host:port), else a PersistentClient under `home`/chroma.

    Raises:
        ConfigError: a URL that is not http(s)://host:port.
    """
    with chromadb_lightly():  # 0.4-0.5 s less of every `lexcite ask` (_chroma_import.py)
        return _client(home, url)


def _client(home: Path, url: str | None) -> Any:
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False)
    if not url:
        return chromadb.PersistentClient(path=str(home / "chroma"), settings=settings)
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"LEXCITE_CHROMA_URL={url!r} is not a URL like http://127.0.0.1:8000")
    port = parsed.port or (443 if parsed.scheme == "https" else 8000)
    try:
        return chromadb.HttpClient(host=parsed.hostname, port=port, ssl=parsed.scheme == "https",
                                   settings=settings)
    except Exception as e:  # chromadb raises ValueError/ConnectionError variants when the server is down
        raise ConfigError(f"Chroma server at {url} did not answer ({e}); start it with "
                          f"`chroma run --path DIR --port {port}` or unset LEXCITE_CHROMA_URL") from None


def metadata(p: Passage) -> dict[str, Any]:
    """What Chroma stores beside each vector; `perimeter.where` filters on these keys."""
    rec, u = p.record, p.record.unit
    meta: dict[str, Any] = {
        "key": p.key,
        "act": u.act,
        "version": u.version,
        "unit": u.unit,
        "parent": u.parent or "",
        "kind": u.kind,
        "language": u.language,
        "binding": bool(u.binding),
        "status": rec.status,
        "valid_from": rec.valid_from,
        "valid_to": rec.valid_to or OPEN_END,
        "valid_from_n": date_int(rec.valid_from),
        "valid_to_n": date_int(rec.valid_to),
        "restricted": bool(rec.access_tags),
    }
    if rec.access_tags:
        meta["access_tags"] = sorted(rec.access_tags)
        for t in rec.access_tags:
            meta[tag_key(t)] = True
    return meta


class DenseStore:
    """One Chroma collection of chunk vectors (cosine space)."""

    def __init__(self, client: Any, name: str):
        self.client, self.name = client, name
        self.col = client.get_or_create_collection(name, embedding_function=None, configuration=_CONFIGURATION)
        # the count last read, until this store writes: a Searcher reads it once at open (build.check_store)
        # and each question reuses it instead of asking Chroma again (20 ms a question, embedded)
        self._count: int | None = None

    @staticmethod
    def drop(client: Any, name: str) -> None:
        try:
            client.delete_collection(name)
        except Exception:  # not there: nothing to drop (chromadb raises NotFoundError/ValueError by version)
            pass

    def count(self) -> int:
        self._count = self.col.count()
        return self._count

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, metas: Sequence[dict[str, Any]],
               documents: Sequence[str] | None = None) -> None:
        self._count = None
        for i in range(0, len(ids), _BATCH):
            j = i + _BATCH
            self.col.upsert(ids=list(ids[i:j]), embeddings=np.asarray(vectors[i:j], dtype=np.float32),
                            metadatas=list(metas[i:j]), documents=list(documents[i:j]) if documents else None)

    def update_metadata(self, ids: Sequence[str], metas: Sequence[dict[str, Any]]) -> None:
        for i in range(0, len(ids), _BATCH):
            self.col.update(ids=list(ids[i:i + _BATCH]), metadatas=list(metas[i:i + _BATCH]))

    def delete(self, ids: Iterable[str]) -> None:
        ids, self._count = list(ids), None
        for i in range(0, len(ids), _BATCH):
            self.col.delete(ids=ids[i:i + _BATCH])

    def query(self, vector: np.ndarray, where: dict[str, Any], n_units: int,
              chunks_per_unit: float = 1.5) -> list[tuple[str, float]]:
        """The best `n_units` passage keys by cosine inside `where`; a unit scores its best chunk."""
        total = self._count if self._count is not None else self.count()
        if total == 0 or n_units <= 0:
            return []
        n = min(total, max(n_units, int(n_units * chunks_per_unit) + 4))
        res = self.col.query(query_embeddings=np.asarray(vector, dtype=np.float32)[None, :], n_results=n,
                             where=where, include=["distances"])
        best: dict[str, float] = {}
        for cid, dist in zip(res["ids"][0], res["distances"][0], strict=True):
            key, sim = unit_key(cid), 1.0 - float(dist)
            if sim > best.get(key, -2.0):
                best[key] = sim
        return sorted(best.items(), key=lambda kv: -kv[1])[:n_units]

    def vectors(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The chunk vectors of each passage key (rows = chunks)."""
        if not keys:
            return {}
        res = self.col.get(where={"key": {"$in": list(keys)}}, include=["embeddings"])
        rows: dict[str, list[np.ndarray]] = {}
        for cid, vec in zip(res["ids"], res["embeddings"], strict=True):
            rows.setdefault(unit_key(cid), []).append(np.asarray(vec, dtype=np.float32))
        return {k: np.vstack(v) for k, v in rows.items()}
