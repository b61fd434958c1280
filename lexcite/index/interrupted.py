"""An index build that stops halfway (kill -9, power loss, Ctrl-C) is seen, cleaned up and completed.

Three things make that so (issue 16, items 3 and 4):

* one build at a time per home: `build_lock` holds an advisory lock on `index/build.lock` (the
  kernel releases it when the process dies, however it dies); a second build is told the index is busy;
* a build that writes into the collections the manifest names (an incremental `lexcite index`)
  first marks the manifest "building" (`mark_building`); `manifest.check` refuses a search on a
  marked index, naming `lexcite index` as the fix, and the next build, seeing the mark, reads what
  the collections really hold (`observed`) instead of trusting the manifest's list of passages;
* collections no manifest names (a rebuild's half-built one, a switched embedder's old one) are
  dropped by the next build (`drop_leftovers`), on the embedded store the home owns.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lexcite.errors import IndexMismatch
from lexcite.index.chunks import Passage, chunk_index, chunk_texts, unit_key
from lexcite.index.dense import DenseStore
from lexcite.index.manifest import save_manifest

__all__ = ["build_lock", "mark_building", "drop_leftovers", "observed", "meta_hash", "PREFIX"]

PREFIX = "lexcite-"  # every collection lexcite makes (build.collection_name)
_READ_BATCH = 1000
_UNKNOWN = "?"  # the text hash of chunks read back from a store: re-embedded unless their text is the passage's


@contextmanager
def build_lock(home: Path) -> Iterator[None]:
    """Hold the home's index lock for the duration, or fail at once if another build holds it.

    Raises:
        IndexMismatch: another `lexcite index` (or calibration) is writing this home's index.
    """
    path = home / "index" / "build.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise IndexMismatch(f"the index in {home} is being written by another lexcite process "
                                f"({path} is locked); run this again when it has finished") from None
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def mark_building(home: Path, manifest: dict[str, Any]) -> None:
    """Mark the manifest: its collections are about to change in place; a search must not rank on them."""
    started = datetime.now(UTC).isoformat(timespec="seconds")
    save_manifest(home, {**manifest, "building": {"started_at": started, "pid": os.getpid()}})


def drop_leftovers(client: Any, named: set[str]) -> list[str]:
    """Drop lexcite's collections that `named` (the manifest's) does not hold; returns their names."""
    names = [c if isinstance(c, str) else c.name for c in client.list_collections()]
    left = sorted(n for n in names if n.startswith(PREFIX) and n not in named)
    for name in left:
        DenseStore.drop(client, name)
    return left


def meta_hash(meta: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(meta, sort_keys=True).encode()).hexdigest()[:20]


def observed(store: DenseStore, items: Sequence[Passage], max_words: int,
             metadata: Callable[[Passage], dict[str, Any]]) -> dict[str, list[Any]]:
    """What the collection really holds, as a manifest's {key: [text_hash, meta_hash, chunks]}.

    A passage whose stored chunks are exactly its chunk texts keeps its vectors (its text hash is
    the passage's); any other stored key gets an unknown hash, so it is embedded again or removed,
    and its chunk count covers every chunk id stored for it, so none is left behind.
    """
    docs: dict[str, dict[int, str]] = {}
    metas: dict[str, dict[str, Any]] = {}
    total = store.count()
    for offset in range(0, total, _READ_BATCH):
        got = store.col.get(include=["documents", "metadatas"], limit=_READ_BATCH, offset=offset)
        for cid, doc, meta in zip(got["ids"], got["documents"], got["metadatas"], strict=True):
            key, i = unit_key(cid), chunk_index(cid)
            docs.setdefault(key, {})[i] = doc
            if i == 0:
                metas[key] = dict(meta or {})
    by_key = {p.key: p for p in items}
    out: dict[str, list[Any]] = {}
    for key, chunks in docs.items():
        n = max(chunks) + 1
        p = by_key.get(key)
        whole = p is not None and [chunks.get(i) for i in range(n)] == chunk_texts(p, max_words)
        out[key] = [p.text_hash() if whole else _UNKNOWN, meta_hash(metas.get(key, {})), n]
    return out
