"""`lexcite index`, `calibrate`, `search`: build the index, set the abstention line, query it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from lexcite.cli._app import app, err, out, progress, settings
from lexcite.cli._options import (
    AccessTagOpt,
    ActOpt,
    AsOfOpt,
    BindingOpt,
    KOpt,
    LanguageOpt,
    SupersededOpt,
    perimeter_from_options,
)
from lexcite.errors import ConfigError, UsageError
from lexcite.printable import printable

if TYPE_CHECKING:
    from lexcite.contract import SearchResult
    from lexcite.index.build import BuildReport
    from lexcite.index.calibrate import Calibration


@app.command()
def index(
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Drop the index and embed everything again.")] = False,
    embedder: Annotated[str | None, typer.Option("--embedder", help="minilm, use, e5 or st:<model>; default: "
                                                                      "the index's, else e5.")] = None,
    reranker: Annotated[str | None, typer.Option("--reranker", help="none, embedder:<name> or "
                                                                     "cross-encoder:<name or path>.")] = None,
    second: Annotated[str | None, typer.Option("--second", help="A second embedder, mpnet, or none; default: "
                                                                 "the index's, else mpnet.")] = None,
    golden: Annotated[Path | None, typer.Option("--golden", help="Golden set to calibrate on (dev split).")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Index the catalog for search (only changed units are re-embedded), then calibrate.

    Example: lexcite ingest ../shared/corpus/raw/32024R1689.oj.xhtml && lexcite index
    """
    _check_choices(embedder, reranker, second)
    if golden is not None and not golden.is_file():
        # Before anything is touched: a failed option never costs a working index its thresholds.
        raise ConfigError(f"--golden {golden}: no such file; nothing was changed")
    with progress() as bar:
        report, calibration, notes = index_and_calibrate(bar, rebuild=rebuild, embedder=embedder, reranker=reranker,
                                                         second=second, golden=golden)
    if as_json:
        print(json.dumps({**report.to_dict(), "notes": notes,
                          "calibration": calibration.to_dict() if calibration else None}, ensure_ascii=False))
        return
    print_index_report(report, calibration, notes, out)


def _check_choices(embedder: str | None, reranker: str | None, second: str | None) -> None:
    """A model name none of these options offers is a usage mistake (exit 2), said before anything is touched.

    Raises:
        UsageError: the option and what it offers.
    """
    from lexcite.index.build import check_choices

    try:
        check_choices(embedder, reranker, second)
    except ConfigError as e:
        raise UsageError(str(e)) from None


def index_and_calibrate(bar: Any, *, rebuild: bool = False, embedder: str | None = None,
                        reranker: str | None = None, second: str | None = None, golden: Path | None = None,
                        only_if_changed: bool = False) -> tuple[BuildReport, Calibration | None, list[str]]:
    """Build (or update) the index, embed the sentences the reranker and the offline answer read, then calibrate on
    the golden set's dev split; `only_if_changed`: embed and calibrate only when the build changed the index (a
    refresh that changed nothing stays fast)."""
    from lexcite.answer.nearness import sentences_path
    from lexcite.eval.golden import default_golden_path
    from lexcite.eval.golden_run import calibrate_on
    from lexcite.index.build import build
    from lexcite.index.second import second_path

    bar.update("indexing")
    report = build(rebuild=rebuild, embedder=embedder, reranker=reranker, second=second, settings=settings(),
                   progress=lambda what, i, n: bar.update(what, i, n))
    calibration, notes = None, list(report.notes)
    # the second vectors of an index built before them are made even when nothing else changed
    if only_if_changed and not (report.embedded or report.removed or report.metadata_updated) \
            and (report.second == "none" or (second_path(settings().home).exists()
                                             and sentences_path(settings().home, second=True).exists())):
        return report, None, notes
    # before calibrating: the reranker reads them, so the threshold is calibrated on the scores they give
    notes.append(index_sentences(report.embedder, bar))
    notes.append(index_second(report.second, bar))
    if report.second != "none":
        notes.append(index_sentences(report.second, bar, second=True))
    path = golden or default_golden_path()
    if path.exists():
        bar.update("calibrating")
        calibration = calibrate_on(path, settings=settings())
    else:
        notes.append(f"no golden set at {path}: threshold not calibrated; run `lexcite calibrate --golden FILE`")
    return report, calibration, notes


def index_sentences(embedder: str, bar: Any, second: bool = False) -> str:
    """Embed the sentences the offline answer may quote, which the reranker reads too (lexcite/answer/nearness.py,
    lexcite/index/nearest_sentence.py), with the index's embedder or (`second`) the second reading's, which the
    offline answer reads beside it; returns the line saying what was done."""
    from lexcite.answer.nearness import sentences_path, update_sentence_vectors
    from lexcite.catalog import Catalog
    from lexcite.index.embed import get_embedder

    bar.update("sentences")
    with Catalog(settings=settings()) as catalog:
        counts = update_sentence_vectors(settings().home, catalog.records(), get_embedder(embedder),
                                         progress=lambda i, n: bar.update(f"embedding sentences ({embedder})", i, n),
                                         second=second)
    damaged = f"; {sentences_path(settings().home, second)} could not be read whole and was rewritten" \
        if counts["damaged"] else ""
    readers = "the offline answer" if second else "the reranker and the offline answer"
    return (f"sentence vectors for {readers} ({embedder}): {counts['sentences']} texts (each sentence alone and "
            f"under its heading), {counts['embedded']} embedded, {counts['dropped']} dropped{damaged}")


def index_second(name: str, bar: Any) -> str:
    """Embed every passage with the second embedder (lexcite/index/second.py), or remove its vectors for "none";
    returns the line saying what was done."""
    from lexcite.answer.nearness import sentences_path
    from lexcite.catalog import Catalog
    from lexcite.index.chunks import DEFAULT_GRANULARITY, passages
    from lexcite.index.embed import get_embedder
    from lexcite.index.manifest import load_manifest
    from lexcite.index.second import second_path, update_second_vectors

    home = settings().home
    if name == "none":
        second_path(home).unlink(missing_ok=True)
        sentences_path(home, second=True).unlink(missing_ok=True)
        return "no second embedder (--second none): its stage is off"
    bar.update("second reading")
    with Catalog(settings=settings()) as catalog:
        items = passages(catalog.records(), (load_manifest(home) or {}).get("granularity", DEFAULT_GRANULARITY))
    counts = update_second_vectors(home, items, get_embedder(name),
                                   progress=lambda i, n: bar.update(f"embedding passages ({name})", i, n))
    damaged = f"; {second_path(home)} could not be read whole and was rewritten" if counts["damaged"] else ""
    return (f"second reading ({name}): {counts['chunks']} chunks, {counts['embedded']} embedded, "
            f"{counts['dropped']} dropped{damaged}")


def print_index_report(report: BuildReport, calibration: Calibration | None, notes: list[str], to: Any) -> None:
    to.print(f"{report.passages} passages ({report.chunks} chunks) with {report.embedder}, reranker "
             f"{report.reranker}: {report.embedded} embedded, {report.metadata_updated} re-tagged, "
             f"{report.removed} removed, {report.unchanged} unchanged in {report.seconds:.1f} s")
    if calibration is not None:
        _print_calibration(calibration, to)
    for note in notes:
        err.print(note, markup=False)


def scale_label(scale: str, value: float) -> str:
    """A score's scale as a reader can take it: final scores add ranking bonuses (binding text, stated
    values) to the reranker's score, so a 'cosine' above 1 is not a cosine."""
    if scale == "cosine" and abs(value) > 1:
        return "cosine plus ranking bonuses"
    return scale


def _print_calibration(c: object, to: Any = out) -> None:
    d = c.to_dict()  # type: ignore[attr-defined]
    scale = scale_label(d["scale"], d["threshold"])
    to.print(f"threshold {d['threshold']:.4f} ({scale}) for {d['stages']}: abstains on "
              f"{d['correct_abstentions']}/{d['abstain']} abstain and {d['wrong_abstentions']}/{d['answerable']} "
              f"answerable dev questions ({d['golden']})")


@app.command()
def calibrate(
    golden: Annotated[Path | None, typer.Option("--golden", help="Golden set (JSON Lines); dev split only.")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Recalibrate the abstention threshold on the dev questions of a golden set."""
    from lexcite.eval.golden_run import calibrate_on

    c = calibrate_on(golden, settings=settings())
    if as_json:
        print(json.dumps(c.to_dict(), ensure_ascii=False))
    else:
        _print_calibration(c)


@app.command()
def search(
    question: Annotated[str, typer.Argument(help="The question, in words.")],
    k: KOpt = 6,
    act: ActOpt = None,
    language: LanguageOpt = "en",
    as_of: AsOfOpt = None,
    include_superseded: SupersededOpt = False,
    binding_only: BindingOpt = False,
    access_tag: AccessTagOpt = None,
    no_threshold: Annotated[bool, typer.Option("--no-threshold", help="Rank only; never abstain.")] = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    explain: Annotated[bool, typer.Option("--explain", help="Also list the evidence by provision, and the "
                                                             "discarded candidates and why.")] = False,
) -> None:
    """Rank the units that answer a question, with the score each stage gave them.

    Example: lexcite search "Which AI practices are prohibited?" --act 32024R1689 --explain
    """
    from lexcite.index.search import Searcher, Stages, stage_table

    perimeter = perimeter_from_options(act, language, as_of, include_superseded, binding_only, access_tag)
    with Searcher(settings=settings()) as searcher:
        result = searcher.search(question, perimeter, k=k, stages=replace(Stages(), threshold=not no_threshold,
                                                                       scope=not no_threshold))
    rows = stage_table(result)
    if as_json:
        print(json.dumps({"query": question, "perimeter": perimeter.to_dict(), "threshold": result.threshold,
                          "abstained": result.abstained, "outside": list(result.outside),
                          "absent": list(result.absent),
                          "expanded": list(result.expanded),
                          "ranked": rows[:k] if not explain else rows,
                          "discarded": [{"ref": r, "reason": why} for r, why in result.discarded] if explain else [],
                          "provisions": _provision_rows(result) if explain else [],
                          "timings_ms": {s: round(v * 1000, 2) for s, v in result.timings.items()}},
                         ensure_ascii=False))
        return
    _print_result(result, rows, k, explain)


def _provision_rows(result: SearchResult) -> list[dict]:
    if result.provisions is None:
        return []
    return [{"rank": g.rank, "provision": str(g.provision), "title": g.title, "score": g.score, "tokens": g.tokens,
             "whole": g.whole, "units": [{"ref": str(u.ref), "ranked": u.via != "context"} for u in g.units]}
            for g in result.provisions.groups]


def _print_result(result: SearchResult, rows: list[dict], k: int, explain: bool) -> None:
    from lexcite.index.admission import refused_before_ranking

    refused = refused_before_ranking(result.outside, result.absent)
    if refused:
        out.print(f"[yellow]nothing admitted[/yellow]: {refused}")
    elif result.abstained:
        line = f"threshold {result.threshold:.4f}" if result.threshold is not None else "no candidate"
        out.print(f"[yellow]nothing admitted[/yellow] ({line}): the documents in this perimeter do not answer it")
    not_admitted = " [dim](not admitted)[/dim]" if refused else " [dim](below threshold)[/dim]"
    table = Table("#", "reference", "title", "score", "stages")
    table.add_column("link", overflow="fold")  # folded onto more lines in a narrow terminal, never cut
    for row in rows[:k]:
        stages = " ".join(f"{s}={v:.3g}" for s, v in row["stages"].items() if s != "sibling_of")
        mark = "" if row["admitted"] else not_admitted
        via = " [dim]sibling[/dim]" if row["via"] == "sibling" else ""
        table.add_row(str(row["rank"]), row["ref"] + via, escape(printable(row["title"] or "")[:50]),
                      f"{row['score']:.4f}{mark}",
                      stages, row["link"])
    out.print(table)
    if result.threshold is not None:
        out.print(f"threshold {result.threshold:.4f}; {len(result.admitted)} admitted")
    if explain:
        if result.expanded:
            out.print(f"BM25 also read the acts' terms: {'; '.join(result.expanded)}",
                      markup=False, highlight=False)
        evidence = result.provisions
        if evidence is not None and evidence.groups:
            out.print(f"[bold]evidence by provision[/bold] ({evidence.tokens} of {evidence.budget} tokens)")
            for g in _provision_rows(result):
                whole = "whole" if g["whole"] else "ranked parts and neighbours"
                out.print(f"  {g['rank']}. {g['provision']} {g['title']} ({whole}, {g['tokens']} tokens)",
                          markup=False, highlight=False)
                for u in g["units"]:
                    out.print(f"       {u['ref']}{'' if u['ranked'] else ' (context)'}", markup=False,
                              highlight=False)
        out.print("[bold]discarded[/bold]")
        for ref, why in result.discarded:
            out.print(f"  {ref}: {why}", markup=False, highlight=False)
        times = ", ".join(f"{s} {v * 1000:.1f} ms" for s, v in result.timings.items())
        out.print(f"[dim]{times}[/dim]")
