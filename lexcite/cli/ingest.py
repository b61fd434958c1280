"""`lexcite ingest`, `acts`, `show`: local documents into the catalog, and reading it back."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from lexcite.answer.conflicts import unit_head
from lexcite.catalog import Catalog
from lexcite.cli._app import app, out, progress
from lexcite.contract import CitationRef, UnitRecord
from lexcite.errors import LexciteError
from lexcite.ingest.completeness import describe_units
from lexcite.ingest.dates import Dated, UnitDates
from lexcite.ingest.load import Overrides, ingest_paths
from lexcite.ingest.refresh import refresh as refresh_acts
from lexcite.printable import printable


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="XHTML/HTML files, Formex zips or folders.")],
    celex: Annotated[str | None, typer.Option("--celex", help="CELEX number, overriding the document's.")] = None,
    version: Annotated[str | None, typer.Option("--version", help="Version date YYYY-MM-DD.")] = None,
    language: Annotated[str | None, typer.Option("--language", help="ISO 639-1 code, e.g. en.")] = None,
    status: Annotated[str | None, typer.Option("--status", help="current, superseded or draft.")] = None,
    guidance: Annotated[bool, typer.Option("--guidance", help="Mark as guidance (not binding).")] = False,
    valid_from: Annotated[str | None, typer.Option("--valid-from", help="Start of validity YYYY-MM-DD.")] = None,
    replace: Annotated[bool, typer.Option(
        "--replace", help="Store a text that lacks units of the stored version (the loss is listed).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per document.")] = False,
) -> None:
    """Ingest local EUR-Lex documents into the catalog.

    Example: lexcite ingest ../shared/corpus/raw/32024R1689.oj.xhtml --json
    """
    overrides = Overrides(act=celex, version=version, language=language, binding=not guidance,
                          status=status, valid_from=valid_from, replace=replace)
    with Catalog() as catalog, progress() as bar:
        task = bar.add_task("storing", total=None)
        results = ingest_paths(
            catalog, paths, overrides,
            on_document=lambda p: bar.update(task, description=p.name, completed=0),
            progress=lambda i, n: bar.update(task, completed=i, total=n),
        )
    for r in results:
        if as_json:
            print(json.dumps(r.to_dict(), ensure_ascii=False))
        else:
            counts = ", ".join(f"{n} {k}" for k, n in r.counts.items())
            out.print(f"{r.action:9} {r.act}@{r.version} [{r.language}, {r.format}] {counts}", markup=False)
            if r.lost:
                out.print(f"          lost {len(r.lost)} stored units: {describe_units(r.lost)}", markup=False)


@app.command()
def acts(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List the catalog: acts, versions, status, validity and unit counts."""
    with Catalog() as catalog:
        rows = [(v, catalog.unit_counts(v.id)) for v in catalog.versions()]
        dates = {v.id: catalog.version_dates(v.id) for v, _ in rows}
    if as_json:
        print(json.dumps([{
            "act": v.act, "version": v.version, "language": v.language, "format": v.format, "status": v.status,
            "valid_from": v.valid_from, "valid_to": v.valid_to, "binding": v.binding, "title": v.title,
            "sha256": v.sha256, "source": v.source, "units": counts,
            **_dates_dict(dates[v.id]),
        } for v, counts in rows], ensure_ascii=False, indent=1))
        return
    table = Table(box=None, pad_edge=False)
    for name in ("act", "version", "lang", "format", "status", "valid from", "valid to", "entry into force",
                 "applies from", "binding", "units"):
        table.add_column(name, no_wrap=True)
    table.add_column("title", overflow="ellipsis", no_wrap=True, max_width=48)
    for v, counts in rows:
        eif, applies = dates[v.id] or (None, None)
        table.add_row(v.act, v.version, v.language, v.format, v.status, v.valid_from, v.valid_to or "",
                      _day(eif), _day(applies), "yes" if v.binding else "guidance", str(sum(counts.values())),
                      _short_title(v.title))
    out.print(table)


def _day(d: Dated | None) -> str:
    return (d.date or "unknown") if d is not None else ""


def _dates_dict(dates: tuple[Dated, Dated] | None) -> dict[str, object]:
    eif, applies = dates or (None, None)
    return {"entry_into_force": eif.date if eif else None, "entry_into_force_by": str(eif.set_by) if eif and
            eif.set_by else None, "applies_from": applies.date if applies else None,
            "applies_from_by": str(applies.set_by) if applies and applies.set_by else None}


def _short_title(title: str) -> str:
    """'REGULATION (EU) 2024/1689 OF THE EUROPEAN PARLIAMENT ...' -> 'Regulation (EU) 2024/1689'."""
    head = re.split(r"\s+(?:OF THE|of the|VAN HET|van het|of \d)", title, maxsplit=1)[0]
    return head[:1] + head[1:].lower().replace("(eu)", "(EU)") if head.isupper() else head


def _when(d: UnitDates, act: str) -> str:
    """'entered into force 2024-08-01 (Article 113), applies from 2027-12-02 as regards … (Article 113,
    point (c)(i)), …'; a date another act sets names that act."""
    def by(x: Dated) -> str:
        if x.set_by is None:
            return f" ({x.said})"
        return f" ({unit_head(x.set_by.unit)}{'' if x.set_by.act == act else ' of ' + x.set_by.act})"

    eif = d.in_force_from
    parts = [f"entered into force {eif.date or 'unknown'}{by(eif)}"]
    parts += [f"applies from {x.date or 'unknown'}{' ' + x.condition if x.condition else ''}{by(x)}"
              for x in d.applies_from]
    if d.applies_until is not None:
        parts.append(f"applies until {d.applies_until.date or 'unknown'}{by(d.applies_until)}")
    parts += [f"{x.condition}{by(x)}" for x in d.notes]
    return ", ".join(parts)


def _period(d: UnitDates, rec: UnitRecord) -> str:
    """The period this text applied: from its date of application (not before its version is in force) to
    when the next text took its place or its end of application."""
    start = d.earliest
    if start is None:
        return "period of application unknown"
    start = max(start, rec.valid_from)
    ends = [x for x in (rec.valid_to, d.applies_until.date if d.applies_until else None) if x]
    end = min(ends) if ends else None
    if end is not None and end <= start:
        return f"this text never applied: replaced on {end}, before its date of application"
    return f"this text applies {start} → {end or 'open'}"


@app.command()
def show(
    ref: Annotated[str, typer.Argument(help="e.g. 32024R1689#art_6.par_2 or 32024R1689@2024-07-12#art_6")],
    language: Annotated[str | None, typer.Option("--language")] = None,
    history: Annotated[bool, typer.Option("--history", help="Every version of the unit.")] = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Print one unit by citation reference (no version = the current one)."""
    parsed = CitationRef.parse(ref)
    with Catalog() as catalog:
        records = catalog.history(parsed.act, parsed.unit, language) if history else [
            catalog.resolve(parsed, language)]
        dates = {rec.unit.ref: catalog.unit_dates(rec.unit.ref, rec.unit.language) for rec in records}
    if not records:
        raise LexciteError(f"{ref}: no such unit in the catalog; see `lexcite acts`")
    for rec in records:
        u = rec.unit
        d = dates[u.ref]
        if as_json:
            print(json.dumps({**u.to_dict(), "ref": str(u.ref), "status": rec.status,
                              "valid_from": rec.valid_from, "valid_to": rec.valid_to,
                              "changed_by": rec.changed_by,
                              "dates": json.loads(d.to_json()) if d else None}, ensure_ascii=False))
            continue
        out.print(f"[bold]{u.ref}[/bold]  {escape(printable(u.title))}")
        # the period this text was the law: from when its version is in force to when the next one is
        out.print(f"version {u.version} ({u.language}), {rec.status}, text in force {rec.valid_from} → "
                  f"{rec.valid_to or 'open'}" + (f", changed by {rec.changed_by}" if rec.changed_by else ""),
                  markup=False)
        if d is not None:
            out.print(printable(_when(d, u.act)), markup=False)
            out.print(_period(d, rec), markup=False)
        out.print(printable(u.text), markup=False)
        out.print(f"[link={u.source_url}]{u.source_url}[/link]\n")


@app.command()
def refresh(
    celex: Annotated[list[str] | None, typer.Argument(help="CELEX numbers; default: data/acts.toml.")] = None,
    language: Annotated[list[str] | None, typer.Option("--language", help="ISO 639-1 code; repeatable.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print what changed as JSON.")] = False,
) -> None:
    """Fetch acts from Cellar, discover consolidated versions and amending acts, ingest what changed.

    Example: lexcite refresh 32024R1689 --json
    """
    with Catalog() as catalog:
        report = refresh_acts(catalog, celex or None, tuple(language) if language else None)
    if as_json:
        print(json.dumps([i.to_dict() for i in report.items], ensure_ascii=False, indent=1))
    else:
        for i in report.items:
            what = f"{i.result.act}@{i.result.version}, {len(i.result.changed_units)} units changed" if i.result else ""
            out.print(f"{i.action:12} {i.role:12} {i.celex} [{i.language}] {what} {i.error}", markup=False)
    if report.failed:
        raise LexciteError(f"{len(report.failed)} document(s) could not be refreshed: "
                           + "; ".join(f"{i.celex}: {i.error}" for i in report.failed)
                           + ". Everything else was stored; run `lexcite refresh` again later.")
