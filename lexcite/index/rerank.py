"""Re-scoring the fused candidates: a cross-encoder, a second embedder, or nothing.

Specs (the `--reranker` option and the index manifest):

    none                          keep the fused order
    cross-encoder:<name|path>     sentence-transformers CrossEncoder on (question, passage) pairs;
                                  its score scale is whatever the model's activation gives
                                  (logits for ms-marco models, a probability with a sigmoid head)
    embedder:<name>               a second embedder (see embed.py); passage vectors are computed at
                                  index time (build.py), so a query costs one embedding and a dot
                                  product per candidate chunk; the score is a cosine in [-1, 1]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from lexcite.errors import ConfigError
from lexcite.index.chunks import Passage
from lexcite.index.embed import Embedder, get_embedder

__all__ = ["Reranker", "CrossEncoderReranker", "EmbedderReranker", "parse_spec", "load_reranker", "Reranked",
           "rerank"]

KINDS = ("none", "cross-encoder", "embedder")


class Reranker(Protocol):
    spec: str
    scale: str  # "cosine", "logit" or "probability": what the threshold is calibrated on

    def score(self, query: str, passages: Sequence[Passage]) -> np.ndarray: ...

    def score_each(self, queries: Sequence[str], passages: Sequence[Passage]) -> list[np.ndarray]: ...


def parse_spec(spec: str) -> tuple[str, str]:
    """'embedder:e5' -> ('embedder', 'e5'); 'none' -> ('none', '').

    Raises:
        ConfigError: a spec that is not one of the forms above.
    """
    kind, _, arg = spec.partition(":")
    if kind == "none" and not arg:
        return kind, ""
    if kind in KINDS and kind != "none" and arg:
        return kind, arg
    raise ConfigError(f"reranker {spec!r} is not one of: none, cross-encoder:<name or path>, embedder:<name>")


class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder, loaded offline."""

    def __init__(self, name: str, max_length: int = 512):
        os.environ["HF_HUB_OFFLINE"] = "1"
        try:
            from sentence_transformers import CrossEncoder
        except ImportError:
            raise ConfigError("reranker cross-encoder needs the package sentence-transformers: "
                              "pip install sentence-transformers") from None
        try:
            self._model = CrossEncoder(name, device="cpu", max_length=max_length)
        except Exception as e:  # OSError/ValueError from transformers: not on disk, not a cross-encoder
            raise ConfigError(f"reranker cross-encoder:{name}: cannot load it offline ({type(e).__name__}: {e}); "
                              "give a local model folder (lexcite never downloads at run time)") from None
        self.spec = f"cross-encoder:{name}"
        # sentence-transformers applies the model's saved activation, or a sigmoid for a one-label head
        act = getattr(self._model, "activation_fn", None)
        self.scale = "probability" if type(act).__name__ == "Sigmoid" else "logit"

    def score(self, query: str, passages: Sequence[Passage]) -> np.ndarray:
        if not passages:
            return np.zeros(0, dtype=np.float32)
        pairs = [(query, p.text) for p in passages]
        return np.asarray(self._model.predict(pairs, batch_size=16, show_progress_bar=False), dtype=np.float32)

    def score_each(self, queries: Sequence[str], passages: Sequence[Passage]) -> list[np.ndarray]:
        """`score` for each query in turn: every (query, passage) pair is a forward pass of its own."""
        return [self.score(q, passages) for q in queries]


@dataclass
class EmbedderReranker:
    """Cosine of the query with the best chunk of each passage, under a second embedder."""

    embedder: Embedder
    vectors: Callable[[Sequence[str]], dict[str, np.ndarray]]  # passage key -> chunk vectors (precomputed)
    spec: str = ""
    scale: str = "cosine"

    def __post_init__(self) -> None:
        self.spec = self.spec or f"embedder:{self.embedder.name}"

    def score(self, query: str, passages: Sequence[Passage]) -> np.ndarray:
        return self.score_each([query], passages)[0]

    def score_each(self, queries: Sequence[str], passages: Sequence[Passage]) -> list[np.ndarray]:
        """The scores of `passages` for each query, their stored vectors read once for all."""
        if not passages:
            return [np.zeros(0, dtype=np.float32) for _ in queries]
        stored = self.vectors([p.key for p in passages])
        missing = [p for p in passages if p.key not in stored]
        if missing:  # should not happen after `lexcite index`; embed on the fly rather than rank them last
            fresh = self.embedder.embed([p.text for p in missing])
            stored.update({p.key: fresh[i:i + 1] for i, p in enumerate(missing)})
        out = []
        for query in queries:  # one at a time: the embedder keeps the last question it embedded (embed.py)
            q = self.embedder.embed([query], query=True)[0]
            out.append(np.asarray([float(np.max(stored[p.key] @ q)) for p in passages], dtype=np.float32))
        return out


def load_reranker(spec: str, vectors: Callable[[Sequence[str]], dict[str, np.ndarray]] | None = None
                  ) -> Reranker | None:
    """The reranker a spec names (None for 'none').

    Raises:
        ConfigError: bad spec, missing package or model.
    """
    kind, arg = parse_spec(spec)
    if kind == "none":
        return None
    if kind == "cross-encoder":
        return CrossEncoderReranker(arg)
    if vectors is None:
        raise ConfigError(f"reranker {spec}: its vectors are computed at index time; run `lexcite index "
                          f"--reranker {spec}`")
    return EmbedderReranker(get_embedder(arg), vectors, spec)


@dataclass(frozen=True)
class Reranked:
    scores: dict[int, float]  # the reranker's own score per passage position
    final: dict[int, float]  # rerank score + blend x (fused score / best fused score)


def rerank(reranker: Reranker, query: str, pool: Mapping[int, float], passages: Sequence[Passage],
           blend: float, also: str | None = None, weight: float = 0.0) -> Reranked:
    """Re-score the pool; a little of the fused score is kept to break the reranker's near-ties. With `also`
    (the question in other words), a passage's score is the weighted mean of its scores for both, `weight`
    for `also`, whose scores are first shifted so that their best is the question's best: the other reading
    moves the order, not the scale the abstention threshold is calibrated on (the acts' words raise every
    cosine, so questions with lay words would otherwise score higher than those without)."""
    order = list(pool)
    texts = [passages[i] for i in order]
    if also and weight and texts:
        rr, other = reranker.score_each([query, also], texts)
        rr = (1.0 - weight) * rr + weight * (other - other.max() + rr.max())
    else:
        rr = reranker.score(query, texts)
    top_fused = max(pool.values(), default=0.0) or 1.0
    scores = {i: float(s) for i, s in zip(order, rr, strict=True)}
    return Reranked(scores, {i: scores[i] + blend * (pool[i] / top_fused) for i in order})
