"""`lexcite eval`: a golden set through every pipeline stage, as numbers, JSON and a report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from lexcite.cli._app import EXIT_ERROR, app, err, out, progress, settings
from lexcite.cli._options import KOpt, check_date
from lexcite.errors import UsageError
from lexcite.eval.golden import SPLITS


def _fmt(v: Any) -> str:
    return "–" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


@app.command("eval")
def eval_(
    golden: Annotated[Path | None, typer.Option("--golden", help="Golden set, JSON Lines (DESIGN.md format).")] = None,
    split: Annotated[str | None, typer.Option("--split", help=f"Only this split: {' or '.join(SPLITS)}.")] = None,
    k: KOpt = 6,
    as_of: Annotated[str | None, typer.Option("--as-of", help="As-of date YYYY-MM-DD for questions without one.")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object with the summary.")] = False,
    report: Annotated[Path | None, typer.Option("--report", help="Folder for per-question JSONL, Markdown, PNGs.")]
    = None,
    calibrate: Annotated[bool, typer.Option("--calibrate", help="Recalibrate on this file's dev split first.")]
    = False,
    no_answers: Annotated[bool, typer.Option("--no-answers", help="Retrieval only: skip answering.")] = False,
) -> None:
    """Evaluate retrieval, abstention and answers on a golden set, with the stage ablation.

    Example: lexcite eval --golden data/golden/golden.jsonl --split test --report eval-out --json
    """
    if split is not None and split not in SPLITS:
        raise UsageError(f"--split {split!r}: choose {' or '.join(SPLITS)}")
    check_date(as_of, "--as-of")
    from lexcite.eval.golden import default_golden_path
    from lexcite.eval.golden_run import run_golden

    api_key = settings().anthropic_api_key
    if not no_answers and not api_key:
        err.print("no-RAG baseline skipped: ANTHROPIC_API_KEY not set", style="dim")
    with progress() as bar:
        bar.update("questions")
        result = run_golden(golden or default_golden_path(), split=split, k=k, as_of=as_of, calibrate=calibrate,
                            with_answers=not no_answers, report_dir=report, api_key=api_key, settings=settings(),
                            on_question=lambda i, n: bar.update(done=i, total=n))
    if as_json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        _render(result.to_json(), result.latency, k)
    if report is not None:
        err.print(f"report: {report / 'report.md'}")
    errors = result.summary.get("errors") or []
    if errors:
        where = "their rows in the report keep the error" if report else "rerun with --report to see each error"
        err.print(f"error: {len(errors)} question(s) raised while answering ({', '.join(errors)}); counted as "
                  f"wrong answers; {where}")
        raise typer.Exit(EXIT_ERROR)


def _render(s: dict[str, Any], latency: dict[str, dict[str, Any]], k: int) -> None:
    from lexcite.eval.aggregate import ANSWER_KEYS, RETRIEVAL_KEYS

    out.print(f"{s['n']} questions, k = {k}")
    overall = Table("metric", "value")
    for key in (*RETRIEVAL_KEYS, "abstain_correct", "abstain_wrong", *ANSWER_KEYS):
        if key in s:
            overall.add_row(key, _fmt(s[key]))
    out.print(overall)
    ablation = Table("stage", *RETRIEVAL_KEYS, "p50 ms", "p95 ms")
    for stage, row in s["ablation"].items():
        lat = latency.get(stage, {})
        ablation.add_row(stage, *(_fmt(row[key]) for key in RETRIEVAL_KEYS), _fmt(lat.get("p50_ms")),
                         _fmt(lat.get("p95_ms")))
    out.print(ablation)
