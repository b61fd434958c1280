"""A second reading of every passage by another embedder: a third first-stage list, and a share of the final score.

The index's embedder (e5, 4-bit) ranks and reranks; all-mpnet-base-v2 (`embed.py` "mpnet", trained on a
billion question/answer and paraphrase pairs) reads a user's own words differently. On the dev split it
alone puts an expected unit in its top 6 for 0.681 of the answerable questions against e5's 0.540 (top 20:
0.791 / 0.711; bench/RESULTS.md "Stop 40"). So its best passages join BM25's and e5's in the fused pool
(`Stages.second`), and its cosine moves the final order by `Params.second_weight` of its difference from
the pool's best (the reranker's scale, on which the abstention threshold is calibrated, is kept at the top).

The vectors are stored by the text of each chunk (a hash), as the sentence vectors are (answer/nearness.py):
a vector is right for any passage whose chunk says the same words, so the file cannot go stale, only lack
the passages indexed since (those are not read by this stage until the next `lexcite index`). A query costs
one embedding (~30 ms on 2 cores, mpnet_onnx.py) and a product with ~4,000 stored rows.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from lexcite.errors import LexciteError
from lexcite.index.chunks import Passage, chunk_texts
from lexcite.index.embed import Embedder, get_embedder
from lexcite.index.manifest import load_manifest, write_atomic
from lexcite.index.text_vectors import refresh, text_id

__all__ = ["DEFAULT_SECOND", "SECOND_CHOICES", "second_path", "update_second_vectors", "SecondReading", "load_second",
           "start_loading"]

# On unless `lexcite index --second none`: questions are read by onnxruntime (mpnet_onnx.py), ~30 ms each, its
# model loading while the rest of the index opens
DEFAULT_SECOND = "mpnet"
SECOND_CHOICES = ("mpnet", "none")  # "none" leaves the stage out of the index
_BATCH = 256  # the embedder orders each batch by length, so a large batch pads little
Progress = Callable[[int, int], None]


def second_path(home: Path) -> Path:
    return home / "index" / "second.npz"


def update_second_vectors(home: Path, items: Sequence[Passage], embedder: Embedder,
                          progress: Progress | None = None) -> dict[str, int]:
    """Bring the home's second vectors in line with `items` under `embedder`: stored chunks are kept, new ones
    embedded, chunks no passage has any more dropped. Returns counts: chunks, embedded, kept, dropped, damaged
    (1 when a file was there that could not be read whole, now rewritten)."""
    name, max_words = embedder.name, embedder.max_words
    wanted = {text_id(t): t for p in items for t in chunk_texts(p, max_words)}
    path = second_path(home)
    old = _read(path)
    damaged = int(old is None and path.exists())
    same = old is not None and old[0] == name and old[1] == max_words
    got = refresh(wanted, old[2] if same else [], old[3] if same else np.zeros((0, 0), np.float16),
                  lambda texts: embedder.embed(texts), _BATCH, progress)
    if got.changed or not same:
        _write(path, name, max_words, got.ids, got.vectors)
    return {"chunks": len(wanted), "embedded": got.embedded, "kept": len(wanted) - got.embedded,
            "dropped": got.dropped, "damaged": damaged}


def _write(path: Path, embedder: str, max_words: int, ids: Sequence[str], vectors: np.ndarray) -> None:
    buf = io.BytesIO()
    np.savez(buf, embedder=np.array(embedder), max_words=np.array(max_words), ids=np.array(ids, dtype="U24"),
             vectors=vectors.astype(np.float16))
    write_atomic(path, buf.getvalue())


def _read(path: Path) -> tuple[str, int, list[str], np.ndarray] | None:
    """(embedder, max_words, ids, vectors) of the file, or None when there is none or it cannot be read whole."""
    try:
        with np.load(path, allow_pickle=False) as f:
            got = (str(f["embedder"]), int(f["max_words"]), [str(i) for i in f["ids"]], np.asarray(f["vectors"]))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # none, or not written whole
        return None
    if got[3].ndim != 2 or len(got[2]) != len(got[3]):
        return None
    return got


class SecondReading:
    """The stored second vectors laid over the index's passages: `cosines(question)` gives each passage's best
    chunk cosine with the question (NaN for a passage with no stored vector)."""

    def __init__(self, embedder: str, max_words: int, ids: Sequence[str], vectors: np.ndarray,
                 passages: Sequence[Passage]):
        self.embedder = embedder
        row = {i: n for n, i in enumerate(ids)}
        rows, owners = [], []
        for j, p in enumerate(passages):
            for t in chunk_texts(p, max_words):
                if (r := row.get(text_id(t))) is not None:
                    rows.append(r)
                    owners.append(j)
        self._vectors = np.asarray(vectors, dtype=np.float32)[rows] if rows else np.zeros((0, 1), np.float32)
        self._owners = np.asarray(owners, dtype=np.int64)
        self._n = len(passages)
        self.covered = len(set(owners))

    def cosines(self, question_vector: np.ndarray) -> np.ndarray:
        best = np.full(self._n, np.nan, dtype=np.float32)
        if len(self._owners):
            cos = self._vectors @ np.asarray(question_vector, dtype=np.float32)
            best[:] = -np.inf
            np.maximum.at(best, self._owners, cos)
            best[np.isneginf(best)] = np.nan
        return best

    def embed(self, question: str) -> np.ndarray:
        return get_embedder(self.embedder).embed([question], query=True)[0]


def start_loading(home: Path, manifest: dict | None = None) -> None:
    """Start loading the model of the second reading of the index in `home`, when it has one: mpnet's loads in the
    background (mpnet_onnx.py), so `lexcite ask` calls this first thing and imports and opens the rest meanwhile.
    Errors are left for the search to raise, where they say what the index needs."""
    try:
        name = (manifest or load_manifest(home) or {}).get("second", "none")
        if name != "none" and second_path(home).is_file():
            get_embedder(name)
    except (LexciteError, OSError, ValueError):
        pass


def load_second(home: Path, passages: Sequence[Passage]) -> SecondReading | None:
    """The home's second reading over `passages`; None when the home has none (`lexcite index --second none`, or an
    index built before the stage)."""
    path = second_path(home)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return None
    got = _cached_read(str(path), stamp)
    if got is None:
        return None
    name, max_words, ids, vectors = got
    return SecondReading(name, max_words, ids, vectors, passages)


@lru_cache(maxsize=2)
def _cached_read(path: str, stamp: int) -> tuple[str, int, list[str], np.ndarray] | None:
    return _read(Path(path))
