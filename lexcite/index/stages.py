"""Which retrieval stages run and with what sizes and weights: `Stages`, `Params`, the ablation rows.

A calibrated threshold belongs to one ranking configuration (`stages_key`) and one set of `Params`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from lexcite.index.fuse import RRF_K

__all__ = ["Stages", "Params", "ABLATION", "stages_key"]


@dataclass(frozen=True)
class Stages:
    """Which stages run. The defaults are the configuration measured best on the dev split."""

    bm25: bool = True
    dense: bool = True
    siblings: bool = True
    rerank: bool = True
    binding_priority: bool = True
    value_priority: bool = True
    named: bool = True  # provisions the question cites join the candidates, with a priority (named.py)
    provenance: bool = True  # an amending instruction gives way to the text it enacted (provenance.py)
    dates: bool = True  # for "when ...?", the units that set the best candidates' dates join them (dating.py)
    definitions: bool = True  # the definition of a term the question asks about joins (named.py)
    applicability: bool = True  # "Does the GDPR apply to ...?": the act's scope provisions join (named.py)
    acts: bool = True  # the units of an act the question names ("under the AI Act", "GDPR") first (named.py)
    expansion: bool = True  # BM25 adds the acts' terms for what the question says in its own words (lay_terms.py)
    asking: bool = True  # BM25 reads the sentences that ask twice, the situation before them once (question.py)
    # a second embedder's best passages join the pool, its cosine moves the order (second.py); it runs where the
    # index has its vectors (the default; not after `lexcite index --second none`)
    second: bool = True
    threshold: bool = True
    # the reranker also reads each candidate's sentence nearest the question (nearest_sentence.py)
    sentences: bool = True
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
    # with `expansion`, the reranker also reads the question with the acts' words for what it says in its own,
    # at this weight beside the question as written (dev: hit@6 / MRR 0.757 / 0.548 at 0 -> 0.769 / 0.573;
    # 0.3 to 1.0 within 0.01 of it)
    lay_rerank: float = 0.7
    # a passage whose nearest sentence is nearer the question than the passage gains this share of the difference
    # (dev, 247 answerable: hit@6 / MRR 0.773 / 0.572 -> 0.798 / 0.579 at 0.3; 0.15 / 0.45 / 0.6 / 0.8: 0.785 / 0.798
    # / 0.802 / 0.802 hit@6, the answers' key facts best at 0.15-0.3; bench/RESULTS.md "Stop 36")
    sentence_weight: float = 0.3
    binding_bonus: float = 0.05  # binding text over guidance (set on guidance probes: dev has no guidance)
    operative_bonus: float = 0.02  # articles, points, annexes over recitals (measured on dev)
    value_bonus: float = 0.03  # a passage that states the kind of value asked for (a date for "when ...?")
    named_bonus: float = 0.05  # a unit under a provision the question cites
    definition_bonus: float = 0.05  # the definition of a term the question asks about (dev: 0.05 to 0.2 alike, 0 less)
    dates_top: int = 3  # the best operative candidates whose date-setting units join ("when ...?")
    act_bonus: float = 0.03  # a unit of an act the question names by name
    named_boosted: int = 2  # at most this many named units (the best scored) get their bonus (dev: 1-3 alike)
    # the second embedder's best passages that join the pool after fusion (second.py; dev hit@6 / MRR with the
    # weight below: 0 -> 0.837 / 0.643, 2 / 3 / 4 -> 0.856 / 0.649, 0.647, 0.648, 6 / 10 -> 0.852, 0.844; fused as
    # a third list of 40 instead: 0.810 / 0.647)
    n_second: int = 3
    # the final score gains this share of the second embedder's cosine less the pool's best (dev, 3 joining:
    # 0.15 / 0.25 / 0.35 -> hit@6 0.856 / 0.856 / 0.837; without the stage 0.810 / 0.606)
    second_weight: float = 0.25


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
    "+named": replace(_OFF, bm25=True, dense=True, siblings=True, rerank=True, binding_priority=True,
                      value_priority=True, named=True),
    "+provenance": replace(_OFF, bm25=True, dense=True, siblings=True, rerank=True, binding_priority=True,
                           value_priority=True, named=True, provenance=True),
    "+dates": replace(_OFF, bm25=True, dense=True, siblings=True, rerank=True, binding_priority=True,
                      value_priority=True, named=True, provenance=True, dates=True),
    "+definitions": replace(_OFF, bm25=True, dense=True, siblings=True, rerank=True, binding_priority=True,
                            value_priority=True, named=True, provenance=True, dates=True, definitions=True),
    "+acts": replace(_OFF, bm25=True, dense=True, siblings=True, rerank=True, binding_priority=True,
                     value_priority=True, named=True, provenance=True, dates=True, definitions=True, acts=True),
    "+expansion": replace(_OFF, bm25=True, dense=True, siblings=True, rerank=True, binding_priority=True,
                          value_priority=True, named=True, provenance=True, dates=True, definitions=True, acts=True,
                          expansion=True),
    "+sentences": replace(_OFF, bm25=True, dense=True, siblings=True, rerank=True, binding_priority=True,
                          value_priority=True, named=True, provenance=True, dates=True, definitions=True, acts=True,
                          expansion=True, sentences=True),
    "+applicability": replace(_OFF, bm25=True, dense=True, siblings=True, rerank=True, binding_priority=True,
                              value_priority=True, named=True, provenance=True, dates=True, definitions=True,
                              acts=True, expansion=True, sentences=True, applicability=True),
    "+asking": replace(_OFF, bm25=True, dense=True, siblings=True, rerank=True, binding_priority=True,
                       value_priority=True, named=True, provenance=True, dates=True, definitions=True, acts=True,
                       expansion=True, sentences=True, applicability=True, asking=True),
    "+second": replace(_OFF, bm25=True, dense=True, siblings=True, rerank=True, binding_priority=True,
                       value_priority=True, named=True, provenance=True, dates=True, definitions=True, acts=True,
                       expansion=True, sentences=True, applicability=True, asking=True, second=True),
    "full": Stages(),
}


_ADMISSION = ("threshold", "scope")  # stages that decide admission, not the order


def stages_key(stages: Stages) -> str:
    """The ranking part of a Stages value (threshold aside): what a calibrated threshold belongs to."""
    on = [f.name for f in fields(Stages) if f.name not in _ADMISSION and getattr(stages, f.name)]
    return "+".join(on) or "none"
