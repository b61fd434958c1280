"""The retrieval pipeline: perimeter -> BM25 + dense -> RRF -> siblings -> rerank -> binding -> threshold.

Invariant 1 holds by construction: the perimeter is a mask inside BM25 and a
`where` inside Chroma, siblings are drawn through the same mask, and a dense
hit that the catalog places outside the perimeter (an index out of step) is
discarded with its reason rather than ranked.

Usage::

    from lexcite.index.search import Searcher, Stages
    with Searcher() as s:                                   # opens the index once
        result = s.search("Which AI practices are prohibited?", k=6)
        for c in result.admitted:
            print(c.ref, c.score)
    s.search(q, stages=ABLATION["hybrid"])                  # a stage switched off
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from lexcite import config
from lexcite.catalog import Catalog
from lexcite.contract import Candidate, CitationRef, Hit, Perimeter, SearchResult
from lexcite.errors import ConfigError, IndexMismatch
from lexcite.index.bm25 import BM25Index
from lexcite.index.build import NO_INDEX, check, load_manifest
from lexcite.index.chunks import Passage, passages
from lexcite.index.dense import DenseStore, backend_name, open_client
from lexcite.index.embed import get_embedder
from lexcite.index.fuse import RRF_K, rrf
from lexcite.index.perimeter import RecordMask, where
from lexcite.index.rerank import Reranker, load_reranker
from lexcite.index.scope import Scope, refusal_reason
from lexcite.question import cues
from lexcite.values import read_values

__all__ = ["Searcher", "Stages", "Params", "ABLATION", "search", "stages_key", "stage_table"]


@dataclass(frozen=True)
class Stages:
    """Which stages run. The defaults are the configuration measured best on the dev split."""

    bm25: bool = True
    dense: bool = True
    siblings: bool = True
    rerank: bool = True
    binding_priority: bool = True
    value_priority: bool = True
    threshold: bool = True
    scope: bool = True  # abstain on a question asked under a law the catalog lacks (scope.py)


@dataclass(frozen=True)
class Params:
    """Sizes and weights of the stages; defaults chosen on the dev split (bench/RESULTS.md, "Retrieval")."""

    n_bm25: int = 40  # top-N from BM25 that enter fusion
    n_dense: int = 40  # top-N from the dense index
    rrf_k: int = RRF_K
    pool: int = 20  # fused candidates that go on to siblings and rerank
    sibling_hits: int = 1  # the top fused hits whose siblings join
    max_siblings: int = 4  # per hit, nearest in document order first
    sibling_decay: float = 0.9  # without rerank, a sibling ranks just below the hit that brought it
    rerank_blend: float = 0.05  # final = rerank + blend * (fused score / best fused score)
    binding_bonus: float = 0.05  # binding text over guidance (set on guidance probes: dev has no guidance)
    operative_bonus: float = 0.02  # articles, points, annexes over recitals (measured on dev)
    value_bonus: float = 0.03  # a passage that states the kind of value asked for (a date for "when ...?")


_OFF = Stages(**{f.name: False for f in fields(Stages)})

# The ablation, each row adding one stage to the one before; "full" is the default configuration.
ABLATION: dict[str, Stages] = {
    "bm25": replace(_OFF, bm25=True),
    "dense": replace(_OFF, dense=True),
    "hybrid": replace(_OFF, bm25=True, dense=True),
    "+siblings": replace(_OFF, bm25=True, dense=True, siblings=True),
    "+rerank": replace(_OFF, bm25=True, dense=True, siblings=True, rerank=True),
    "+binding": replace(_OFF, bm25=True, dense=True, siblings=True, rerank=True, binding_priority=True),
    "+value": replace(_OFF, bm25=True, dense=True, siblings=True, rerank=True, binding_priority=True,
                      value_priority=True),
    "full": Stages(),
}


_ADMISSION = ("threshold", "scope")  # stages that decide admission, not the order


def stages_key(stages: Stages) -> str:
    """The ranking part of a Stages value (threshold aside): what a calibrated threshold belongs to."""
    on = [f.name for f in fields(Stages) if f.name not in _ADMISSION and getattr(stages, f.name)]
    return "+".join(on) or "none"


class Searcher:
    """An open index: catalog units, BM25, the Chroma collections and the models, loaded once.

    Raises:
        IndexMismatch: no index, or an index built from another catalog state or embedder.
        ConfigError: a model that cannot be loaded.
    """

    def __init__(self, home: Path | None = None, *, chroma_url: str | None = None, embedder: str | None = None,
                 reranker: str | None = None, params: Params = Params(), catalog: Catalog | None = None):
        self.home = home or config.home()
        url = chroma_url if chroma_url is not None else config.chroma_url()
        manifest = load_manifest(self.home)
        if manifest is None:  # said before opening the catalog, which would leave an empty one in a mistyped home
            raise IndexMismatch(NO_INDEX)
        self._own_catalog = catalog is None
        self.catalog = catalog or Catalog(self.home / "catalog.sqlite")
        self.params = params
        try:
            self.manifest = check(manifest, self.catalog.state(), embedder, backend_name(url))
            self.embedder_name = self.manifest["embedder"]
            self.reranker_spec = reranker or self.manifest["reranker"]
            records = list(self.catalog.records())
            self.passages: list[Passage] = passages(records, self.manifest["granularity"])
            self._pos = {p.key: i for i, p in enumerate(self.passages)}
            self._mask = RecordMask([p.record for p in self.passages])
            self._bm25 = BM25Index([p.text for p in self.passages])
            self._value_kinds: dict[int, frozenset[str]] = {}  # filled on demand (see `value_kinds`)
            self._groups: dict[tuple[str, str, str, str], list[int]] = {}
            for i, p in enumerate(self.passages):
                u = p.record.unit
                self._groups.setdefault((u.act, u.version, u.language, p.article), []).append(i)
            client = open_client(self.home, url)
            self._dense = DenseStore(client, self.manifest["collection"])
            self._embedder = get_embedder(self.embedder_name)
            self._reranker: Reranker | None = None
            self._reranker_loaded = False
            self._client = client
            self._scope = Scope(v.title for v in self.catalog.versions())
        except BaseException:
            self.close()
            raise

    # -- lifecycle -------------------------------------------------------------

    def close(self) -> None:
        if self._own_catalog:
            self.catalog.close()
            self._own_catalog = False

    def __enter__(self) -> Searcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def reranker(self) -> Reranker | None:
        if not self._reranker_loaded:
            rr_collection = self.manifest.get("rerank_collection")
            vectors = None
            if rr_collection and self.reranker_spec == self.manifest["reranker"]:
                vectors = DenseStore(self._client, rr_collection).vectors
            elif self.reranker_spec == f"embedder:{self.embedder_name}":
                vectors = self._dense.vectors  # the dense vectors are that embedder's
            self._reranker = load_reranker(self.reranker_spec, vectors)
            self._reranker_loaded = True
        return self._reranker

    def threshold_for(self, stages: Stages) -> float:
        """The calibrated threshold of this ranking configuration.

        Raises:
            ConfigError: none calibrated for it.
        """
        entry = self.manifest.get("thresholds", {}).get(stages_key(stages))
        if entry is None:
            raise ConfigError(f"no abstention threshold calibrated for stages {stages_key(stages)!r}; "
                              "run `lexcite calibrate` (it needs dev questions in the golden set)")
        # a threshold is a point on one score scale: other weights or another reranker move the scale
        if entry.get("params") != asdict(self.params) or entry.get("reranker") != self.reranker_spec:
            raise ConfigError(f"the threshold for {stages_key(stages)!r} was calibrated with other search "
                              "parameters or another reranker; run `lexcite calibrate`")
        return float(entry["value"])

    # -- the pipeline ----------------------------------------------------------

    def search(self, query: str, perimeter: Perimeter = Perimeter(), k: int = 6,
               stages: Stages = Stages()) -> SearchResult:
        """Rank the passages inside `perimeter` for `query`; admit the top `k` above the threshold."""
        if k < 1:
            raise ConfigError(f"k must be at least 1, got {k}")
        if not (stages.bm25 or stages.dense):
            raise ConfigError("at least one retriever (bm25 or dense) must be on")
        P = self.params
        t_all = time.perf_counter()
        timings: dict[str, float] = {}
        stage_hits: dict[str, tuple[Hit, ...]] = {}
        discarded: list[tuple[str, str]] = []
        scores: dict[int, dict[str, float]] = {}

        t = time.perf_counter()
        mask = self._mask(perimeter)
        timings["perimeter"] = time.perf_counter() - t

        lists: dict[str, list[int]] = {}
        if stages.bm25:
            t = time.perf_counter()
            top = self._bm25.top(query, mask, P.n_bm25)
            lists["bm25"] = [i for i, _ in top]
            for i, s in top:
                scores.setdefault(i, {})["bm25"] = s
            stage_hits["bm25"] = self._hits(top, "bm25")
            timings["bm25"] = time.perf_counter() - t
        if stages.dense:
            t = time.perf_counter()
            qv = self._embedder.embed([query], query=True)[0]
            timings["embed"] = time.perf_counter() - t
            t = time.perf_counter()
            found = self._dense.query(qv, where(perimeter), P.n_dense)
            top = []
            for key, s in found:
                i = self._pos.get(key)
                if i is None or not mask[i]:  # only an index out of step with the catalog gets here
                    discarded.append((key.split(":", 1)[1], "dense hit outside the perimeter or unknown to "
                                      "the catalog (index out of step); dropped"))
                    continue
                top.append((i, s))
                scores.setdefault(i, {})["dense"] = s
            lists["dense"] = [i for i, _ in top]
            stage_hits["dense"] = self._hits(top, "dense")
            timings["dense"] = time.perf_counter() - t

        t = time.perf_counter()
        if len(lists) == 2:
            fused = rrf(lists, P.rrf_k)
            for i, s in fused:
                scores[i]["rrf"] = s
            stage_hits["rrf"] = self._hits(fused, "rrf")
            base = "rrf"
        else:
            base = next(iter(lists))
            fused = [(i, scores[i][base]) for i in lists[base]]
        for i, _ in fused[P.pool:]:
            discarded.append((str(self.passages[i].record.unit.ref), f"fused rank beyond the pool of {P.pool}"))
        pool: dict[int, float] = dict(fused[:P.pool])
        via: dict[int, str] = {i: "retrieved" for i in pool}
        asked = cues(query).value_kinds() if stages.value_priority else frozenset()
        timings["fuse"] = time.perf_counter() - t

        if stages.siblings:
            t = time.perf_counter()
            added = []
            for i, s in fused[:P.sibling_hits]:
                for j in self._siblings(i, mask):
                    if j not in pool:
                        pool[j] = s * P.sibling_decay
                        via[j] = "sibling"
                        scores.setdefault(j, {})["sibling_of"] = float(i)
                        added.append((j, pool[j]))
            stage_hits["sibling"] = self._hits(added, "sibling")
            timings["siblings"] = time.perf_counter() - t

        final = dict(pool)
        scale = base
        if stages.rerank and self.reranker is not None and pool:
            scale = "rerank"
            t = time.perf_counter()
            order = list(pool)
            rr = self.reranker.score(query, [self.passages[i] for i in order])
            top_fused = max(pool.values()) or 1.0
            for i, s in zip(order, rr, strict=True):
                scores.setdefault(i, {})["rerank"] = float(s)
                final[i] = float(s) + P.rerank_blend * (pool[i] / top_fused)
            stage_hits["rerank"] = self._hits(sorted(final.items(), key=lambda kv: -kv[1]), "rerank")
            timings["rerank"] = time.perf_counter() - t
        if stages.binding_priority and final:
            # Binding text first, and in it the operative provisions: guidance is not law, and recitals give
            # reasons without binding force (they cannot derogate from the articles). Bonuses are in units of
            # the final scale (`_bonus_unit`).
            unit = self._bonus_unit(scale, final)
            for i in final:
                u = self.passages[i].record.unit
                bonus = (P.binding_bonus + (P.operative_bonus if u.kind != "recital" else 0.0)) * unit \
                    if u.binding else 0.0
                if bonus:
                    final[i] += bonus
                    scores.setdefault(i, {})["binding_bonus"] = bonus
        if asked and final:
            # "When ...?" is answered by a passage that states a date, "how much ...?" by one with an amount.
            unit = self._bonus_unit(scale, final)
            for i in final:
                if asked & self.value_kinds(i):
                    final[i] += P.value_bonus * unit
                    scores.setdefault(i, {})["value_bonus"] = P.value_bonus * unit
        ranked_idx = sorted(final, key=lambda i: (-final[i], self._pos[self.passages[i].key]))
        ranked = tuple(self._candidate(i, final[i], scores.get(i, {}), via[i]) for i in ranked_idx)
        threshold = self.threshold_for(stages) if stages.threshold else None
        outside = self._scope.outside(query) if stages.scope else ()
        admitted = []
        for n, c in enumerate(ranked, start=1):
            if outside:
                discarded.append((str(c.ref), refusal_reason(outside)))
            elif n > k:
                discarded.append((str(c.ref), f"rank {n} beyond k={k}"))
            elif threshold is not None and c.score < threshold:
                discarded.append((str(c.ref), f"score {c.score:.4f} below the threshold {threshold:.4f}"))
            else:
                admitted.append(c)
        timings["total"] = time.perf_counter() - t_all
        return SearchResult(query=query, perimeter=perimeter, ranked=ranked, admitted=tuple(admitted),
                            threshold=threshold, abstained=not admitted, stage_hits=stage_hits,
                            discarded=tuple(discarded), timings=timings, outside=outside)

    # -- helpers ---------------------------------------------------------------

    def _bonus_unit(self, scale: str, final: dict[int, float]) -> float:
        """One unit of the final score scale, that bonuses are multiples of: 1 for a cosine or a probability,
        the rank-1 share 1/(k+1) for RRF, the best score of this query for BM25 (whose scale varies per query)."""
        return {"rrf": 1.0 / (self.params.rrf_k + 1), "bm25": max(final.values())}.get(scale, 1.0)

    def value_kinds(self, i: int) -> frozenset[str]:
        """The kinds of value passage `i` states (dates, amounts, ...), read once, when a question first asks
        for a value and the passage is a candidate: reading all passages would slow every start-up."""
        kinds = self._value_kinds.get(i)
        if kinds is None:
            kinds = self._value_kinds[i] = frozenset(v.kind for v in read_values(self.passages[i].body))
        return kinds

    def _siblings(self, i: int, mask: np.ndarray) -> list[int]:
        """Other passages of the same article (or annex, recital group), nearest first, inside the mask."""
        p = self.passages[i]
        u = p.record.unit
        if u.kind == "recital":
            return []
        group = self._groups.get((u.act, u.version, u.language, p.article), [])
        if len(group) <= 1:
            return []
        at = group.index(i)
        others = sorted((j for j in group if j != i and mask[j]), key=lambda j: abs(group.index(j) - at))
        return others[:self.params.max_siblings]

    def _hits(self, items: Sequence[tuple[int, float]], retriever: str) -> tuple[Hit, ...]:
        return tuple(Hit(self.passages[i].record.unit.ref, float(s), retriever, rank)
                     for rank, (i, s) in enumerate(items, start=1))

    def _candidate(self, i: int, score: float, stage_scores: dict[str, float], via: str) -> Candidate:
        rec = self.passages[i].record
        u = rec.unit
        return Candidate(ref=u.ref, title=u.title, text=u.text, status=rec.status, binding=u.binding,
                         source_url=u.source_url, score=float(score),
                         stage_scores={k: float(v) for k, v in stage_scores.items()}, via=via,
                         changed_by=CitationRef.parse(rec.changed_by) if rec.changed_by else None)

    def passage(self, ref: CitationRef | str, language: str = "en") -> Passage | None:
        key = f"{language}:{ref}"
        i = self._pos.get(key)
        return self.passages[i] if i is not None else None


_open: dict[tuple[str, str | None], Searcher] = {}


def search(query: str, perimeter: Perimeter = Perimeter(), k: int = 6, stages: Stages = Stages(),
           *, home: Path | None = None) -> SearchResult:
    """One search without managing a Searcher: opens (and keeps) one per LEXCITE_HOME and Chroma URL.

    Raises:
        IndexMismatch: the index is missing or out of step with the catalog (checked on every call).
    """
    home = home or config.home()
    key = (str(Path(home).resolve()), config.chroma_url())
    s = _open.get(key)
    if s is not None and s.manifest["catalog_state"] != s.catalog.state():
        s.close()
        s = None
    if s is None:
        s = _open[key] = Searcher(home)
    return s.search(query, perimeter, k, stages)


def stage_table(result: SearchResult) -> list[dict[str, Any]]:
    """Ranked candidates as rows: reference, title, score per stage, link (for the CLI and traces)."""
    return [{"rank": n, "ref": str(c.ref), "title": c.title, "score": c.score, "via": c.via,
             "stages": c.stage_scores, "binding": c.binding, "status": c.status, "link": c.source_url,
             "admitted": c in result.admitted}
            for n, c in enumerate(result.ranked, start=1)]
