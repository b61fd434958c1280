"""Run a golden set through every ablation stage and the answer pipeline; collect rows and latencies.

Each question is searched once per stage configuration in `index.search.ABLATION`
(the last, "full", is the pipeline as shipped) and, unless answers are
skipped, answered once by `answer.ask` and by the baselines. Ranking metrics
are taken on `SearchResult.ranked`, the whole ranked pool before the threshold
and the cut at k, so the same ranking gives hit@1..20 for the report; the
headline hit@k is cut at k, the number of units handed to the generator, and
the ranking's measure. The ceiling (DESIGN.md) is read from the evidence by
provision the full pipeline hands the generator (`SearchResult.provisions`),
at the default budget and at each of `index.provisions.BUDGETS` when the
searcher can regroup (`Searcher.evidence`). Abstention is
`SearchResult.abstained` of the full pipeline.

Calibration is never done here: `evaluate` uses whatever threshold the
searcher holds. `lexcite.eval.golden_run.run_golden(calibrate=True)`
recalibrates on the dev split first, and only when asked.

A question whose answer raises something other than a LexciteError (a bug on
that question's path) does not end the run: its row keeps the error, its
answer counts as given and wrong (nothing stated, nothing refused), and the
summary lists it under `errors`, so one bad question costs one row, not the
run, and still cannot pass unseen.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lexcite.contract import Answer, CitationRef, Perimeter, Retriever, SearchResult
from lexcite.errors import ConfigError, LexciteError
from lexcite.eval import answers as am
from lexcite.eval import metrics as m
from lexcite.eval.aggregate import FULL, answer_block, by_split, percentiles, summarise
from lexcite.eval.baselines import no_rag_answer, retrieval_only
from lexcite.eval.golden import GoldenQuestion

__all__ = ["EvalResult", "evaluate", "perimeter_for", "DEPTH", "SUMMARY_FILE", "ROWS_FILE"]

DEPTH = 20  # ranks kept per stage: hit@1..20 for the report's curve, and MRR@10
SUMMARY_FILE = "summary.json"
ERRORED = "error"  # the generator name of an answer that raised
ROWS_FILE = "questions.jsonl"
BM25 = "bm25"  # the ablation stage the retrieval-only baseline reads

AskFn = Callable[..., Answer]
# Why a cited unit is outside a perimeter, None when inside (`Catalog.outside`).
Outside = Callable[[CitationRef, Perimeter], str | None]


@dataclass
class EvalResult:
    """The summary `--json` prints, and what the result files and report are made of."""

    k: int
    summary: dict[str, Any]  # exactly the `--json` keys
    rows: list[dict[str, Any]]  # one per question, written to questions.jsonl
    by_split: dict[str, Any] = field(default_factory=dict)
    latency: dict[str, dict[str, Any]] = field(default_factory=dict)
    baselines: dict[str, dict[str, Any]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return self.summary

    def write(self, folder: Path) -> list[Path]:
        """Write summary.json and questions.jsonl into `folder`; the report is built from these."""
        folder.mkdir(parents=True, exist_ok=True)
        summary = {"k": self.k, "metrics": self.summary, "by_split": self.by_split, "latency": self.latency,
                   "baselines": self.baselines, "meta": self.meta}
        paths = [folder / SUMMARY_FILE, folder / ROWS_FILE]
        paths[0].write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        with paths[1].open("w", encoding="utf-8") as f:
            for row in self.rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        return paths

    @classmethod
    def read(cls, folder: Path) -> EvalResult:
        """Load what `write` wrote. Raises ConfigError when the files are missing or not JSON."""
        try:
            s = json.loads((folder / SUMMARY_FILE).read_text(encoding="utf-8"))
            lines = (folder / ROWS_FILE).read_text(encoding="utf-8").splitlines()
            rows = [json.loads(line) for line in lines if line.strip()]
        except (OSError, json.JSONDecodeError) as e:
            raise ConfigError(f"{folder}: not an eval result folder ({e}); run `lexcite eval --report DIR`") from None
        return cls(k=s["k"], summary=s["metrics"], rows=rows, by_split=s["by_split"], latency=s["latency"],
                   baselines=s["baselines"], meta=s["meta"])


def perimeter_for(q: GoldenQuestion, as_of: str | None) -> Perimeter:
    """The question's perimeter; `as_of` applies unless the question's filters carry their own."""
    p = q.perimeter
    return replace(p, as_of=as_of) if as_of and "as_of" not in q.filters else p


def _stage_row(res: SearchResult, q: GoldenQuestion, k: int, seconds: float) -> dict[str, Any]:
    ranked = [m.Ranked(c.ref, c.text, c.changed_by) for c in res.ranked]
    answerable = q.answerable
    return {
        "rank": m.first_relevant_rank(ranked[:DEPTH], q) if answerable else None,
        "hit@k": m.hit_at_k(ranked, q, k) if answerable else None,
        "recall@k": m.recall_at_k(ranked, q, k) if answerable else None,
        "mrr": m.mrr(ranked, q) if answerable else None,
        "ndcg@k": m.ndcg_at_k(ranked, q, k) if answerable else None,
        "abstained": res.abstained,
        "outside": list(res.outside),
        "absent": list(res.absent),
        "top_score": res.ranked[0].score if res.ranked else None,
        "threshold": res.threshold,
        "top": [str(c.ref) for c in res.ranked[:k]],
        "ms": round(seconds * 1000, 2),
    }


def _ceiling_row(searcher: Any, res: SearchResult, q: GoldenQuestion) -> dict[str, Any] | None:
    """Whether a relevant unit is in the evidence: at the default budget, and per budget."""
    if not q.answerable or res.provisions is None:
        return None

    def inside(evidence: Any) -> float:
        return m.in_evidence([m.Ranked(c.ref, c.text, c.changed_by) for c in evidence.units()], q)

    by_budget = {}
    if hasattr(searcher, "evidence"):
        from lexcite.index.provisions import BUDGETS

        by_budget = {str(b): inside(searcher.evidence(res, b)) for b in BUDGETS}
    return {"default": inside(res.provisions), "budget": res.provisions.budget, "by_budget": by_budget,
            "provisions": [str(g.provision) for g in res.provisions.groups]}


def _answer_row(a: Answer, q: GoldenQuestion, p: Perimeter, support: am.SupportCheck,
                outside: Outside | None, records: am.SupportCheck | None = None) -> dict[str, Any]:
    check = (lambda ref: outside(ref, p)) if outside else None
    return {
        "text": a.text,
        "refused": a.refused,
        "refusal_reason": a.refusal_reason,
        "cited": [str(r) for r in a.cited()],
        "conflicts": [c.to_dict() for c in a.conflicts],
        "generator": a.generator,
        "key_facts": am.key_fact_share(a, q),
        "citation_valid": am.citations_valid(a, check),
        "citation_support": am.citation_support(a, support, records),
        "conflict_both_shown": am.conflict_both_shown(a, q),
        "superseded_cited": am.cites_superseded_as_current(a, p),
        "ref_exact": am.ref_exact(a, q),
        "ref_loose": am.ref_loose(a, q),
    }


def _question_row(q: GoldenQuestion, p: Perimeter) -> dict[str, Any]:
    return {"id": q.id, "question": q.question, "behavior": q.behavior, "category": q.category,
            "post_cutoff": q.post_cutoff, "split": q.split, "expected": [str(e) for e in q.expected],
            "anchors": list(q.anchors), "key_facts": list(q.key_facts), "perimeter": p.to_dict(),
            "extra": q.extra, "stages": {}}


def _timed(fn: Callable[[], Any], bucket: list[float]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    value = fn()
    seconds = time.perf_counter() - t0
    bucket.append(seconds)
    return value, seconds


def evaluate(
    questions: Iterable[GoldenQuestion],
    searcher: Retriever,
    k: int = 6,
    with_answers: bool = True,
    *,
    ablation: Mapping[str, Any] | None = None,
    ask: AskFn | None = None,
    support: am.SupportCheck | None = None,
    outside: Outside | None = None,
    records: am.SupportCheck | None = None,
    no_rag: Callable[[str], str] | None = None,
    as_of: str | None = None,
    on_question: Callable[[int, int], None] | None = None,
) -> EvalResult:
    """Search every question under each stage configuration (and answer it); summarise.

    `searcher` is anything with `search(query, perimeter, k, stages) -> SearchResult`
    (an open `index.search.Searcher`) whose `ranked` is not cut at k.
    `ablation` maps stage names to `Stages` values (default `index.search.ABLATION`);
    a "full" entry is added, searched with the searcher's defaults, when absent.
    `ask` defaults to `answer.ask.ask`, `support` to `eval.answers.independent_support()` (not the
    verifier); `records` checks sentences rendered from catalog records, default `support`.
    `no_rag` is a prompt -> text function for the no-RAG baseline (None: skipped).

    Raises:
        ConfigError: k below 1, or an empty question list.
    """
    if k < 1:
        raise ConfigError(f"k must be at least 1, got {k}")
    questions = list(questions)
    if not questions:
        raise ConfigError("no questions to evaluate (check --split and the golden file)")
    stages = dict(_default_ablation() if ablation is None else ablation)
    stages.setdefault(FULL, None)
    if with_answers:
        ask = ask or _default_ask()
        support = support or _default_support()
    waits: dict[str, list[float]] = {}
    rows = []
    for i, q in enumerate(questions, start=1):
        p = perimeter_for(q, as_of)
        row = _question_row(q, p)
        results: dict[str, SearchResult] = {}
        for name, st in stages.items():
            kwargs = {} if st is None else {"stages": st}
            res, seconds = _timed(lambda: searcher.search(q.question, p, k=k, **kwargs),  # noqa: B023
                                  waits.setdefault(name, []))
            results[name] = res
            row["stages"][name] = _stage_row(res, q, k, seconds)
        row["ceiling"] = _ceiling_row(searcher, results[FULL], q)
        for part, seconds in results[FULL].timings.items():
            waits.setdefault(f"{FULL}/{part}", []).append(seconds)
        if with_answers:
            row.update(_answers(q, p, k, searcher, results, ask, support, outside, records, no_rag, waits))
        rows.append(row)
        if on_question:
            on_question(i, len(questions))
    return _result(rows, list(stages), k, with_answers, waits)


def _answers(q: GoldenQuestion, p: Perimeter, k: int, searcher: Any, results: dict[str, SearchResult], ask: AskFn,
             support: am.SupportCheck, outside: Outside | None, records: am.SupportCheck | None,
             no_rag: Callable[[str], str] | None, waits: dict[str, list[float]]) -> dict[str, Any]:
    """The system's answer and the baselines' for one question, measured alike."""
    error = None

    def answer() -> Answer:
        nonlocal error
        try:
            return ask(q.question, p, k=k, searcher=searcher, trace=False)
        except LexciteError:
            raise  # a setting or an index out of step: every question would fail alike
        except Exception as e:  # noqa: BLE001 - a bug on this question's path; the row says which
            error = f"{type(e).__name__}: {e}"
            return Answer(question=q.question, perimeter=p, generator=ERRORED)

    a, seconds = _timed(answer, waits.setdefault("answer", []))
    baselines = {}
    if BM25 in results:
        baselines["retrieval_only"] = _answer_row(retrieval_only(q.question, results[BM25]), q, p, support, outside)
    if no_rag is not None:
        baselines["no_rag"] = _answer_row(no_rag_answer(q.question, p, no_rag), q, p, support, outside)
    row = {**_answer_row(a, q, p, support, outside, records), "ms": round(seconds * 1000, 2)}
    if error is not None:
        row["error"] = error
    return {"answer": row, "baselines": baselines}


def _result(rows: list[dict[str, Any]], stages: list[str], k: int, with_answers: bool,
            waits: dict[str, list[float]]) -> EvalResult:
    names = sorted({b for r in rows for b in r.get("baselines", {})})
    return EvalResult(
        k=k,
        summary=summarise(rows, stages, with_answers),
        rows=rows,
        by_split=by_split(rows, with_answers),
        latency={name: percentiles(s) for name, s in waits.items()},
        baselines={b: answer_block(rows, b) for b in names},
        meta={"stages": stages, "depth": DEPTH, "with_answers": with_answers},
    )


def _default_ablation() -> Mapping[str, Any]:
    from lexcite.index.search import ABLATION

    return ABLATION


def _default_ask() -> AskFn:
    from lexcite.answer.ask import ask

    return ask


def _default_support() -> am.SupportCheck:
    return am.independent_support()
