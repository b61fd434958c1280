"""The retrieval pipeline: perimeter -> BM25 + dense -> pool -> siblings -> rerank -> priorities -> dates ->
provenance -> admission.

Each stage is a module with a typed output (pool.py, siblings.py, rerank.py,
priorities.py, dating.py, provenance.py, admission.py); `Searcher.search` runs them in order and records
what each did. Invariant 1 holds by construction: the perimeter is a mask
inside BM25 and a `where` inside Chroma, siblings are drawn through the same
mask, and a dense hit that the catalog places outside the perimeter (an index
out of step) is discarded with its reason rather than ranked.

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
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from lexcite import config
from lexcite.answer.nearness import load_nearness
from lexcite.catalog import Catalog, catalog_path
from lexcite.catalog.locate import act_titles
from lexcite.config import Settings
from lexcite.contract import Candidate, CitationRef, Hit, Perimeter, ProvisionEvidence, SearchResult
from lexcite.errors import CitationError, ConfigError, IndexMismatch
from lexcite.index.admission import Admission, admit, bonus_unit, score_scale, threshold_for
from lexcite.index.bm25 import BM25Index, fingerprint
from lexcite.index.build import bm25_path, check_store
from lexcite.index.chunks import Passage, candidate, passages
from lexcite.index.dating import date_setters
from lexcite.index.dense import DenseStore, backend_name, open_client
from lexcite.index.embed import get_embedder
from lexcite.index.manifest import FIX, NO_INDEX, check, load_manifest
from lexcite.index.named import Named, terms_path, unit_changes
from lexcite.index.nearest_sentence import NearestSentences
from lexcite.index.perimeter import RecordMask, where
from lexcite.index.pool import join
from lexcite.index.priorities import ValueKinds, act_bonuses, binding_bonuses, named_bonuses, value_bonuses
from lexcite.index.provenance import Provenance, asks_about_a_change
from lexcite.index.provisions import DEFAULT_BUDGET, Seed, group_provisions
from lexcite.index.rerank import Reranker, load_reranker, rerank
from lexcite.index.scope import Scope
from lexcite.index.second import SecondReading, load_second, start_loading
from lexcite.index.siblings import Siblings, expand
from lexcite.index.stages import ABLATION, Params, Stages, stages_key
from lexcite.ingest.dates import UnitDates
from lexcite.lay_terms import acts_terms, expand_query
from lexcite.question import asked_twice, cues

__all__ = ["Searcher", "Stages", "Params", "ABLATION", "search", "stages_key", "stage_table"]


class Searcher:
    """An open index: catalog units, BM25, the Chroma collections and the models, loaded once.

    Raises:
        IndexMismatch: no index, or an index built from another catalog state or embedder.
        ConfigError: a model that cannot be loaded.
    """

    def __init__(self, home: Path | None = None, *, chroma_url: str | None = None, embedder: str | None = None,
                 reranker: str | None = None, params: Params = Params(), catalog: Catalog | None = None,
                 budget: int = DEFAULT_BUDGET, settings: Settings | None = None):
        settings = config.settings(settings)
        self.home = home or settings.home
        url = chroma_url if chroma_url is not None else settings.chroma_url
        manifest = load_manifest(self.home)
        if manifest is None:  # said before opening the catalog, which would leave an empty one in a mistyped home
            raise IndexMismatch(NO_INDEX)
        self._own_catalog = catalog is None
        self.catalog = catalog or Catalog(catalog_path(self.home))
        self.params = params
        self.budget = budget  # evidence tokens (provisions.py)
        try:
            self.manifest = check(manifest, self.catalog.state(), embedder, backend_name(url))
            self.embedder_name = self.manifest["embedder"]
            start_loading(self.home, self.manifest)  # the second reading's model, while the rest opens
            self.reranker_spec = reranker or self.manifest["reranker"]
            records = list(self.catalog.records())
            self.passages: list[Passage] = passages(records, self.manifest["granularity"])
            self._pos = {p.key: i for i, p in enumerate(self.passages)}
            self._mask = RecordMask([p.record for p in self.passages])
            texts = [p.text for p in self.passages]
            # saved by `lexcite index`; an index built before BM25 was saved gets one in memory
            tag = fingerprint(texts)
            self._bm25 = BM25Index.load(bm25_path(self.home), tag) or BM25Index(texts)
            self.value_kinds = ValueKinds(self.passages)
            self._siblings = Siblings(self.passages)
            self._provenance = Provenance(self.passages)
            self._by_ref: dict[str, list[int]] = {}  # a reference's passages, one per language
            for i, p in enumerate(self.passages):
                self._by_ref.setdefault(str(p.record.unit.ref), []).append(i)
            self._titles = {str(r.unit.ref): r.unit.title for r in records if "." not in r.unit.unit}
            try:
                client = open_client(self.home, url)
                self._dense = DenseStore(client, self.manifest["collection"])
                check_store(self.manifest, self._dense)
            except IndexMismatch:
                raise
            except Exception as e:  # noqa: BLE001 - chromadb raises many types for a damaged store
                raise IndexMismatch(f"the vector store cannot be read ({type(e).__name__}: {e}); {FIX}") from None
            self._embedder = get_embedder(self.embedder_name)
            self._reranker: Reranker | None = None
            self._reranker_loaded = False
            self._nearest: NearestSentences | None = None  # read on the first search that uses them
            self._nearest_loaded = False
            self._second: SecondReading | None = None
            self._second_loaded = False
            self._client = client
            versions = list(self.catalog.versions())
            self._scope = Scope(v.title for v in versions)
            changes = unit_changes(link for link, outcome in self.catalog.links() if outcome == "applied")
            self._named = Named(self.passages, act_titles(self.catalog).items(), terms_path(self.home), tag, changes)
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

    def nearest_sentences(self) -> NearestSentences | None:
        """The passages' stored sentence vectors (nearest_sentence.py); None when the home has none of the index's
        embedder (an index built before them, or `lexcite index` interrupted before it embedded them), or when the
        reranker is not that embedder: a sentence's cosine is compared with the reranker's score of its passage."""
        if not self._nearest_loaded:
            same = self.reranker_spec == f"embedder:{self.embedder_name}"
            stored = load_nearness(self.home, self.embedder_name) if same else None
            self._nearest = None if stored is None else NearestSentences(self.passages, stored)
            self._nearest_loaded = True
        return self._nearest

    def second_reading(self) -> SecondReading | None:
        """The second embedder's stored vectors over the passages (second.py); None when the home has none."""
        if not self._second_loaded:
            self._second = load_second(self.home, self.passages)
            self._second_loaded = True
        return self._second

    def active(self, stages: Stages) -> Stages:
        """`stages` as this index can run them: without the second reading when the home has none (`lexcite index
        --second none`), so that the threshold looked up is the one calibrated on what ran."""
        if stages.second and self.second_reading() is None:
            return replace(stages, second=False)
        return stages

    def threshold_for(self, stages: Stages) -> float:
        """The calibrated threshold of this ranking configuration (admission.threshold_for).

        Raises:
            ConfigError: none calibrated for it.
        """
        return threshold_for(self.manifest, stages, self.params, self.reranker_spec)

    # -- the pipeline ----------------------------------------------------------

    def search(self, query: str, perimeter: Perimeter = Perimeter(), k: int = 6,
               stages: Stages = Stages()) -> SearchResult:
        """Rank the passages inside `perimeter` for `query`; admit the top `k` above the threshold."""
        if k < 1:
            raise ConfigError(f"k must be at least 1, got {k}")
        if not (stages.bm25 or stages.dense):
            raise ConfigError("at least one retriever (bm25 or dense) must be on")
        P = self.params
        stages = self.active(stages)
        t_all = time.perf_counter()
        timings: dict[str, float] = {}
        stage_hits: dict[str, tuple[Hit, ...]] = {}
        discarded: list[tuple[str, str]] = []
        scores: dict[int, dict[str, float]] = {}

        t = time.perf_counter()
        mask = self._mask(perimeter)
        timings["perimeter"] = time.perf_counter() - t

        # BM25 reads the question with the acts' words for what it says in its own (lay_terms.py); the embedder
        # reads it as written (dev: expanding the dense query ranks worse), and the reranker both ways
        # (`Params.lay_rerank`: "a US company" is far from "a controller not established in the Union")
        # What it asks weighs above the situation it sets out (`Stages.asking`), for BM25 and the reranker's reading
        # in the acts' words; the lay terms are those of the question as written
        lay = acts_terms(query) if stages.expansion else ()
        wording = expand_query(asked_twice(query) if stages.asking else query, lay)
        lists: dict[str, list[tuple[int, float]]] = {}
        # the second reading embeds the question (onnxruntime, the GIL released) while e5 embeds it and Chroma is
        # asked: its 30-60 ms are spent beside theirs rather than after them
        reading = self.second_reading() if stages.second else None
        second_vector = _BESIDE.submit(reading.embed, query) if reading is not None else None
        if stages.bm25:
            t = time.perf_counter()
            lists["bm25"] = self._bm25.top(wording, mask, P.n_bm25)
            timings["bm25"] = time.perf_counter() - t
        if stages.dense:
            t = time.perf_counter()
            # the embedder reads the question as written; a reranker on the same model reads it in the acts' words
            # as well (below), asked for here so that both are embedded in one call
            also = [wording] if lay and P.lay_rerank and stages.rerank and \
                getattr(self.reranker, "embedder", None) is self._embedder else []
            qv = self._embedder.embed([query, *also], query=True)[0]
            timings["embed"] = time.perf_counter() - t
            t = time.perf_counter()
            lists["dense"] = []
            for key, s in self._dense.query(qv, where(perimeter), P.n_dense):
                i = self._pos.get(key)
                if i is None or not mask[i]:  # only an index out of step with the catalog gets here
                    discarded.append((key.split(":", 1)[1], "dense hit outside the perimeter or unknown to "
                                      "the catalog (index out of step); dropped"))
                    continue
                lists["dense"].append((i, s))
            timings["dense"] = time.perf_counter() - t
        for name, top in lists.items():
            for i, s in top:
                scores.setdefault(i, {})[name] = s
            stage_hits[name] = self._hits(top, name)

        t = time.perf_counter()
        joined = join(lists, P.pool, P.rrf_k)
        if joined.scale == "rrf":
            for i, s in joined.fused:
                scores[i]["rrf"] = s
            stage_hits["rrf"] = self._hits(joined.fused, "rrf")
        for i, _ in joined.beyond:
            discarded.append((str(self.passages[i].record.unit.ref), f"fused rank beyond the pool of {P.pool}"))
        pool = joined.members
        via: dict[int, str] = {i: "retrieved" for i in pool}
        timings["fuse"] = time.perf_counter() - t

        if stages.siblings:
            t = time.perf_counter()
            expansion = expand(pool, joined.fused[:P.sibling_hits], self._siblings, mask, P.max_siblings,
                               P.sibling_decay)
            for j, s, i in expansion.added:
                pool[j] = s
                via[j] = "sibling"
                scores.setdefault(j, {})["sibling_of"] = float(i)
            stage_hits["sibling"] = self._hits([(j, s) for j, s, _ in expansion.added], "sibling")
            timings["siblings"] = time.perf_counter() - t

        second = None
        if reading is not None and second_vector is not None:
            # its best passages join the pool after fusion rather than in it: a third list in the fusion pushed
            # some of BM25's and e5's best out of the pool (dev hit@6 0.837 -> 0.810 at 40, 0.814 at 20)
            t = time.perf_counter()
            second = reading.cosines(second_vector.result())  # read as written, like the dense retriever
            inside = np.flatnonzero(mask & ~np.isnan(second))
            best = inside[np.argsort(-second[inside], kind="stable")[:P.n_second]]
            floor = min(pool.values(), default=0.0)
            added = [(int(i), floor) for i in best if int(i) not in pool]
            for i, s in added:
                pool[i] = s
                via[i] = "second"
            stage_hits["second"] = self._hits([(int(i), float(second[i])) for i in best], "second")
            timings["second"] = time.perf_counter() - t

        named = None
        if stages.named:
            t = time.perf_counter()
            named = self._named.find(query, mask, perimeter.acts, stages.definitions, stages.applicability)
            floor = min(pool.values(), default=0.0)  # a named unit the retrievers missed enters at the bottom
            added = []
            for j, why in [*((j, "named") for j in named.references), *((j, "definition") for j in named.definitions),
                           *((j, "scope") for j in named.scope)]:
                if j not in pool:
                    pool[j] = floor
                    via[j] = why
                    added.append((j, floor))
            stage_hits["named"] = self._hits(added, "named")
            timings["named"] = time.perf_counter() - t

        final = dict(pool)
        if stages.rerank and self.reranker is not None and pool:
            t = time.perf_counter()
            reranked = rerank(self.reranker, query, pool, self.passages, P.rerank_blend,
                              also=wording if lay else None, weight=P.lay_rerank)
            for i, s in reranked.scores.items():
                scores.setdefault(i, {})["rerank"] = s
            final = reranked.final
            timings["rerank"] = time.perf_counter() - t
            if stages.sentences and (nearest := self.nearest_sentences()) is not None:
                t_sentences = time.perf_counter()
                qv = self._embedder.embed([query], query=True)[0]  # embedded once: the embedder keeps it
                for i, c in nearest.best(qv, list(final)).items():
                    scores.setdefault(i, {})["sentence"] = c
                    final[i] += P.sentence_weight * max(0.0, c - reranked.scores.get(i, c))
                timings["sentences"] = time.perf_counter() - t_sentences
            if second is not None:
                # kept at the reranker's scale for the pool's best second-reading passage: the threshold reads it
                known = [float(second[i]) for i in final if not np.isnan(second[i])]
                top, low = max(known, default=0.0), min(known, default=0.0)
                for i in final:
                    c = low if np.isnan(second[i]) else float(second[i])
                    scores.setdefault(i, {})["second"] = c
                    final[i] += P.second_weight * (c - top)
            stage_hits["rerank"] = self._hits(sorted(final.items(), key=lambda kv: -kv[1]), "rerank")
        scale = score_scale(stages, self.reranker_spec)
        if stages.binding_priority and final:
            bonuses = binding_bonuses(final, self.passages, bonus_unit(scale, P.rrf_k, final), P.binding_bonus,
                                      P.operative_bonus)
            for i, bonus in bonuses.items():
                final[i] += bonus
                scores.setdefault(i, {})["binding_bonus"] = bonus
        asks = cues(query)
        asked = asks.value_kinds() if stages.value_priority else frozenset()
        if asked and final:
            bonuses = value_bonuses(final, asked, self.value_kinds, bonus_unit(scale, P.rrf_k, final),
                                    P.value_bonus)
            for i, bonus in bonuses.items():
                final[i] += bonus
                scores.setdefault(i, {})["value_bonus"] = bonus
        if named is not None and final:
            unit = bonus_unit(scale, P.rrf_k, final)
            for key, positions, weight in (("named_bonus", named.references, P.named_bonus),
                                           ("definition_bonus", named.definitions, P.definition_bonus)):
                for i, bonus in named_bonuses(final, positions, unit, weight, P.named_boosted).items():
                    final[i] += bonus
                    scores.setdefault(i, {})[key] = bonus
        if stages.acts and final and (acts := self._named.acts_in(query)):  # "under the GDPR": that act first
            for i, bonus in act_bonuses(final, self.passages, acts, bonus_unit(scale, P.rrf_k, final),
                                        P.act_bonus).items():
                final[i] += bonus
                scores.setdefault(i, {})["act_bonus"] = bonus
        if stages.dates and final and asks.date:
            t = time.perf_counter()
            lifted = date_setters(query, self._best_first(final, final), final, self.passages, self._unit_dates,
                                  lambda ref: [j for j in self._by_ref.get(str(ref), []) if mask[j]], P.dates_top)
            for j, score in lifted.scores.items():
                final[j] = score
                via.setdefault(j, "dates")
                scores.setdefault(j, {})["sets_date_of"] = float(lifted.set_for[j])
            timings["dates"] = time.perf_counter() - t
        ranked_idx = self._best_first(final, final)
        if stages.provenance and not asks_about_a_change(query):
            t = time.perf_counter()
            moved = self._provenance.attach(ranked_idx, final, mask)
            for i, target in moved.attached:
                discarded.append((str(self.passages[i].record.unit.ref), "amending instruction attached to "
                                  f"{self.passages[target].record.unit.ref}, the text it enacted"))
                via.setdefault(target, "enacted")
            for j, score in moved.scores.items():
                scores.setdefault(j, {})["from_instruction"] = score
                final[j] = score
            ranked_idx = self._best_first(moved.ranked, final)
            timings["provenance"] = time.perf_counter() - t
        ranked = tuple(candidate(self.passages[i], final[i], scores.get(i, {}), via[i]) for i in ranked_idx)
        threshold = self.threshold_for(stages) if stages.threshold else None
        outside = self._scope.outside(query) if stages.scope else ()
        absent = named.absent if named is not None else ()
        admission = admit(ranked, k, threshold, outside, absent)
        discarded.extend(admission.discarded)
        t = time.perf_counter()
        provisions = self._provisions(ranked_idx, ranked, admission, mask, self.budget)
        timings["provisions"] = time.perf_counter() - t
        timings["total"] = time.perf_counter() - t_all
        return SearchResult(query=query, perimeter=perimeter, ranked=ranked, admitted=admission.admitted,
                            threshold=threshold, abstained=not admission.admitted, stage_hits=stage_hits,
                            discarded=tuple(discarded), timings=timings, outside=outside, absent=absent,
                            provisions=provisions,
                            expanded=lay)

    def evidence(self, result: SearchResult, budget: int) -> ProvisionEvidence:
        """The evidence by provision of `result` under another token budget (provisions.py)."""
        mask = self._mask(result.perimeter)
        idx = [next(j for j in self._by_ref[str(c.ref)] if mask[j]) for c in result.ranked]
        return self._provisions(idx, result.ranked, Admission(result.admitted, ()), mask, budget)

    def _provisions(self, idx: Sequence[int], ranked: Sequence[Candidate], admission: Admission,
                    mask: np.ndarray, budget: int) -> ProvisionEvidence:
        """Seeds: every ranked candidate, best first, when the question is admitted (the token budget decides how
        many provisions they give); none when nothing is admitted."""
        seeds, rest = [], []
        for i, c in zip(idx, ranked, strict=True):
            (seeds if admission.admitted else rest).append(Seed(i, c))
        return group_provisions(seeds, self.passages, self._siblings.group, mask, self._title, budget, rest)

    # -- helpers ---------------------------------------------------------------

    def _best_first(self, positions: Iterable[int], final: Mapping[int, float]) -> list[int]:
        """Passage positions by final score, ties in catalog order."""
        return sorted(positions, key=lambda i: (-final[i], self._pos[self.passages[i].key]))

    def _unit_dates(self, ref: CitationRef) -> UnitDates | None:
        try:
            return self.catalog.unit_dates(ref)
        except CitationError:  # an index out of step with the catalog: the unit has no dates to give
            return None

    def _title(self, provision: CitationRef) -> str:
        return self._titles.get(str(provision), provision.unit)

    def _hits(self, items: Sequence[tuple[int, float]], retriever: str) -> tuple[Hit, ...]:
        return tuple(Hit(self.passages[i].record.unit.ref, float(s), retriever, rank)
                     for rank, (i, s) in enumerate(items, start=1))


# one worker: the second reading's question, embedded beside the first (`Searcher.search`)
_BESIDE = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lexcite-second")
_open: dict[tuple[str, str | None], Searcher] = {}


def search(query: str, perimeter: Perimeter = Perimeter(), k: int = 6, stages: Stages = Stages(),
           *, home: Path | None = None, settings: Settings | None = None) -> SearchResult:
    """One search without managing a Searcher: opens (and keeps) one per LEXCITE_HOME and Chroma URL.

    Raises:
        IndexMismatch: the index is missing or out of step with the catalog (checked on every call).
    """
    settings = config.settings(settings)
    home = home or settings.home
    key = (str(Path(home).resolve()), settings.chroma_url)
    s = _open.get(key)
    if s is not None and s.manifest["catalog_state"] != s.catalog.state():
        s.close()
        s = None
    if s is None:
        s = _open[key] = Searcher(home, settings=settings)
    return s.search(query, perimeter, k, stages)


def stage_table(result: SearchResult) -> list[dict[str, Any]]:
    """Ranked candidates as rows: reference, title, score per stage, link (for the CLI and traces)."""
    return [{"rank": n, "ref": str(c.ref), "title": c.title, "score": c.score, "via": c.via,
             "stages": c.stage_scores, "binding": c.binding, "status": c.status, "link": c.source_url,
             "admitted": c in result.admitted}
            for n, c in enumerate(result.ranked, start=1)]
