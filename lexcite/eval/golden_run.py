"""`lexcite eval` as one library call: load a golden file, (re)calibrate if asked, evaluate, write files.

The threshold is the one stored by calibration (`lexcite index` / `lexcite
calibrate`) unless `calibrate=True`, which recalibrates on the dev split of
the evaluated file first. The evaluated file is never calibrated on otherwise.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lexcite import config
from lexcite.catalog import Catalog
from lexcite.config import Settings
from lexcite.contract import CitationRef
from lexcite.errors import CitationError, ConfigError
from lexcite.eval import answers as am
from lexcite.eval.baselines import claude_no_rag
from lexcite.eval.golden import default_golden_path, load_golden
from lexcite.eval.run import EvalResult, evaluate

__all__ = ["run_golden", "calibrate_on", "catalog_record_date"]


def calibrate_on(golden: Path | None = None, **kw: Any) -> Any:
    """Calibrate the index on the dev split of a golden file (default: data/golden/golden.jsonl);
    `kw` go to index.calibrate.calibrate. Returns its Calibration.

    Raises:
        ConfigError: no such golden file, or no dev question in it.
    """
    from lexcite.index.calibrate import MIN_COVERED, calibrate

    path = golden or default_golden_path()
    if not path.exists():
        raise ConfigError(f"no golden set at {path}; give one with --golden FILE")
    # the shipped set covers its own acts: over a catalog it barely covers, its recorded line is used instead
    shipped_set = path.resolve() == default_golden_path().resolve()
    kw.setdefault("min_covered", MIN_COVERED if shipped_set else 1)
    return calibrate(load_golden(path, split="dev"), str(path), **kw)


def catalog_record_date(catalog: Catalog) -> Callable[[CitationRef], str | None]:
    """The date the catalog records a unit in force from (what a note on an amended unit may state)."""

    def record_date(ref: CitationRef) -> str | None:
        try:
            return catalog.resolve(ref).valid_from
        except CitationError:
            return None

    return record_date


def run_golden(
    golden: Path,
    *,
    split: str | None = None,
    k: int = 6,
    as_of: str | None = None,
    calibrate: bool = False,
    with_answers: bool = True,
    report_dir: Path | None = None,
    api_key: str | None = None,
    home: Path | None = None,
    on_question: Callable[[int, int], None] | None = None,
    settings: Settings | None = None,
) -> EvalResult:
    """Evaluate `golden` (optionally one split) on the index in `home`; write files and report to `report_dir`.

    `api_key` (the caller reads it from the settings) enables the no-RAG baseline, on the settings'
    Claude model, the generator's model.

    Raises:
        ConfigError: a bad golden file or option, or no calibrated threshold.
        IndexMismatch: no index, or an index out of step with the catalog.
    """
    from lexcite.index.manifest import default_stages
    from lexcite.index.search import Searcher, stages_key

    settings = config.settings(settings)
    questions = load_golden(golden, split)
    calibration: dict[str, Any] | None = None
    if calibrate:
        calibration = calibrate_on(golden, home=home, settings=settings).to_dict()
    model = settings.claude_model
    no_rag = claude_no_rag(api_key, model) if api_key and with_answers else None
    with Searcher(home, settings=settings) as searcher:
        stored = searcher.manifest.get("thresholds", {}).get(stages_key(default_stages(searcher.manifest)))
        records = am.independent_support(catalog_record_date(searcher.catalog))
        # As in calibration: a question about acts the catalog does not hold grades nothing here.
        held = {v.act for v in searcher.catalog.versions()}
        left_out = [q.id for q in questions if q.answerable and not q.asks_about(held)]
        questions = [q for q in questions if q.id not in left_out]
        result = evaluate(questions, searcher, k, with_answers, outside=lambda ref, p: searcher.catalog.outside(ref, p),
                          records=records, no_rag=no_rag, as_of=as_of, on_question=on_question)
        embedder, reranker = searcher.embedder_name, searcher.reranker_spec
    generators = Counter(r["answer"]["generator"] for r in result.rows if r.get("answer") and r["answer"]["generator"])
    result.meta.update(golden=str(golden), split=split, as_of=as_of, calibrated=calibrate, embedder=embedder,
                       reranker=reranker,
                       calibration=calibration or stored, generator=", ".join(generators) or None,
                       no_rag_model=model if no_rag else None, left_out=left_out)
    if report_dir is not None:
        from lexcite.eval.report import write_report

        result.write(report_dir)
        write_report(report_dir)
    return result
