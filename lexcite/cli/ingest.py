"""`lexcite ingest`, `acts`, `show`: local documents into the catalog, and reading it back."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from lexcite.cli._app import app, err, out, progress, settings
from lexcite.cli._options import AsOfOpt, act_option, check_date
from lexcite.errors import ConfigError, LexciteError, UnreadableReference, UsageError
from lexcite.printable import printable

if TYPE_CHECKING:
    from lexcite.catalog import UnitRecord
    from lexcite.ingest.consolidation import DerivedText
    from lexcite.ingest.dates import Dated, UnitDates


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
    """Ingest local EUR-Lex documents into the catalog, one line per file with its outcome.

    Folders are read whole. Acts are stored in publication order, so an amending act is applied
    after the acts it amends; when one version arrives in several files (OJ XHTML, HTML, Formex),
    one is stored: OJ XHTML, then OJ HTML, consolidated, Formex. A file that fails is reported and
    the rest are still stored; the exit code is then 1.
    --json: JSON Lines, one object per file (path, act, version, language, format, action, units, note).

    Example: lexcite ingest ../shared/corpus/raw/32024R1689.oj.xhtml --json
    """
    from lexcite.catalog import Catalog
    from lexcite.ingest.completeness import describe_units
    from lexcite.ingest.load import Overrides, ingest_batch

    try:
        overrides = Overrides(act=celex, version=version, language=language, binding=not guidance,
                              status=status, valid_from=valid_from, replace=replace)
    except ConfigError as e:  # a value typed that cannot be used ("--language 'xx' is not ..."): exit 2
        raise UsageError(str(e)) from None
    with Catalog(settings=settings()) as catalog, progress() as bar:
        outcomes = ingest_batch(catalog, paths, overrides,
                                on_document=lambda p, i, n: bar.update(f"reading {p.name}", i, n))
    for o in outcomes:
        if as_json:
            print(json.dumps(o.to_dict(), ensure_ascii=False))
            continue
        r = o.result
        what = f"{r.act}@{r.version} [{r.language}, {r.format}] " if r else ""
        counts = ", ".join(f"{n} {k}" for k, n in r.counts.items()) if r and o.action != "applied" else ""
        line = f"{o.action:9} {o.path}  {what}{counts}".rstrip()
        (err if o.failed else out).print(f"{line}  {o.note}".rstrip() if o.note else line, markup=False)
        if r is not None and r.lost:
            out.print(f"          lost {len(r.lost)} stored units: {describe_units(r.lost)}", markup=False)
    failed = sum(o.failed for o in outcomes)
    if failed:
        raise LexciteError(f"{failed} of {len(outcomes)} document(s) not ingested (listed above); "
                           "everything else was stored")


@app.command()
def acts(as_json: Annotated[bool, typer.Option("--json", help="A JSON array, one object per version (act, name, "
                                                            "version, language, format, status, valid_from, "
                                                            "valid_to, binding, title, sha256, source, "
                                                            "units).")] = False,
         ) -> None:
    """List the catalog: acts and the names they go by, versions, status, validity and unit counts.

    The names (AI Act, GDPR, Digital Omnibus on AI) are accepted wherever an act is asked for
    (--act, show, amendments). The last line says which abstention threshold `ask` uses.
    """
    from lexcite.catalog import Catalog
    from lexcite.catalog.locate import act_names
    from lexcite.cli.index import scale_label
    from lexcite.index.manifest import load_manifest, threshold_in_use
    from lexcite.references import short_title

    with Catalog(settings=settings()) as catalog:
        rows = [(v, catalog.unit_counts(v.id)) for v in catalog.versions()]
        names = act_names(catalog)
        dates = {v.id: catalog.version_dates(v.id) for v, _ in rows}
    # a name is shown only if it leads back to its act ("Text with EEA relevance" names none)
    known = {v.act: n for v, _ in rows if (n := short_title(v.title)) and names.resolve(n) == v.act}
    manifest = load_manifest(settings().home) or {}
    if as_json:
        print(json.dumps([{
            "act": v.act, "name": known.get(v.act), "version": v.version, "language": v.language,
            "format": v.format, "status": v.status, "valid_from": v.valid_from, "valid_to": v.valid_to,
            "binding": v.binding, "title": v.title, "sha256": v.sha256, "source": v.source, "units": counts,
            **_dates_dict(dates[v.id]),
        } for v, counts in rows], ensure_ascii=False, indent=1))
        return
    table = Table(box=None, pad_edge=False)
    for name in ("act", "name", "version", "lang", "format", "status", "valid from", "valid to", "entry into force",
                 "applies from", "binding", "units"):
        table.add_column(name, no_wrap=True)
    table.add_column("title", overflow="ellipsis", no_wrap=True, max_width=48)
    for v, counts in rows:
        eif, applies = dates[v.id] or (None, None)
        table.add_row(v.act, known.get(v.act, ""), v.version, v.language, v.format, v.status, v.valid_from,
                      v.valid_to or "", _day(eif), _day(applies), "yes" if v.binding else "guidance",
                      str(sum(counts.values())),
                      _short_title(v.title))
    out.print(table)
    if not rows:
        out.print("the catalog is empty: lexcite ingest FILE... or lexcite refresh")
    t = threshold_in_use(manifest) if manifest else None
    if not manifest:
        out.print("not indexed yet: lexcite index" if rows else "", markup=False)
    elif t is None:
        out.print(f"index: {manifest.get('embedder')}, reranker {manifest.get('reranker')}; no abstention threshold "
                  "yet: lexcite calibrate [--golden FILE]", markup=False)
    else:
        out.print(f"index: {t.embedder}, reranker {t.reranker}; abstention threshold {t.value:.4f} "
                  f"({scale_label(t.scale or '', t.value)}), {t.source}", markup=False)


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
    from lexcite.references import unit_head

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
    period = d.period(rec.valid_from, rec.valid_to)
    if period is None:
        return "period of application unknown"
    start, end = period
    if end is not None and end <= start:
        return f"this text never applied: replaced on {end}, before its date of application"
    return f"this text applies {start} → {end or 'open'}"


@app.command()
def show(
    ref: Annotated[str, typer.Argument(help="A citation (32024R1689#art_6.par_2, 32024R1689@2025-01-01#art_6) or a "
                                            "reference as written ('Art. 6(2) AI Act', 'article 83(5) GDPR', "
                                            "'Annex III point 4(a)', 'art_6.par_2').")],
    act: Annotated[str | None, typer.Option("--act", help="The act, when REF does not name it: CELEX or a name "
                                                          "from `lexcite acts` (AI Act, GDPR).")] = None,
    as_of: AsOfOpt = None,
    language: Annotated[str | None, typer.Option("--language", help="ISO 639-1 code; default: English "
                                                                    "when held.")] = None,
    history: Annotated[bool, typer.Option("--history", help="Every version of the unit.")] = False,
    derived: Annotated[bool, typer.Option("--derived", help="The text lexcite derived for that version (its base "
                                                            "version with the amending acts applied), kept when an "
                                                            "official consolidation of the same date is the "
                                                            "version's text.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object (with --history: a JSON array), the "
                                                         "unit's fields plus ref, status, valid_from, valid_to, "
                                                         "changed_by.")] = False,
) -> None:
    """Print one provision: its text (each paragraph on its own line), version, validity and link.

    No date: the current version. A date (in REF or --as-of) that is no version's date means the
    version in force on that date. --derived: the derived text instead, with how it was built and
    how it compares with the official one; search and answers keep using the official text.
    Example: lexcite show 'Art. 6(2) AI Act' --as-of 2025-01-01
             lexcite show 'Art. 5 AI Act' --derived
    """
    from lexcite.catalog import Catalog
    from lexcite.catalog.locate import locate

    if derived and history:
        raise UsageError("--derived shows the derived text of one version; leave out --history")
    if not ref.strip():
        raise UsageError("the reference is empty: put it in quotes, e.g. lexcite show 'Art. 6(2) AI Act'")
    check_date(as_of, "--as-of")
    with Catalog(settings=settings()) as catalog:
        try:
            found = locate(catalog, ref, act=act and act_option(catalog, act), as_of=as_of, language=language)
        except UnreadableReference as e:  # the reference typed is the value that cannot be used
            raise UsageError(str(e)) from e
        if derived:
            from lexcite.ingest.consolidation import derived_text

            unit = catalog.resolve(found.ref, language).unit
            _show_derived(derived_text(catalog, unit.ref, unit.language), as_json)
            return
        records = catalog.history(found.ref.act, found.ref.unit, language) if history else [
            catalog.resolve(found.ref, language)]
        parts = {id(rec): [c.unit.text for c in catalog.children(rec)] for rec in records}
        dates = {id(rec): catalog.unit_dates(rec.unit.ref, rec.unit.language) for rec in records}
    if as_json:
        docs = [{**rec.unit.to_dict(), "ref": str(rec.unit.ref), "status": rec.status, "valid_from": rec.valid_from,
                 "valid_to": rec.valid_to, "changed_by": rec.changed_by,
                 "dates": json.loads(d.to_json()) if (d := dates[id(rec)]) else None} for rec in records]
        print(json.dumps(docs if history else docs[0], ensure_ascii=False, indent=1))
        return
    for rec in records:
        u = rec.unit
        d = dates[id(rec)]
        out.print(f"[bold]{escape(str(u.ref))}[/bold]  {escape(printable(u.title))}")
        # the period this text was the law: from when its version is in force to when the next one is
        out.print(f"version {u.version} ({u.language}), {rec.status}, text in force {rec.valid_from} → "
                  f"{rec.valid_to or 'open'}" + (f", changed by {rec.changed_by}" if rec.changed_by else ""),
                  markup=False)
        if d is not None:
            out.print(printable(_when(d, u.act)), markup=False)
            out.print(_period(d, rec), markup=False)
        for text in parts[id(rec)] or [u.text]:
            out.print(printable(text), markup=False)
        out.print(f"[link={u.source_url}]{escape(u.source_url)}[/link]\n")


def _show_derived(d: DerivedText, as_json: bool) -> None:
    if as_json:
        print(json.dumps(d.to_dict(), ensure_ascii=False, indent=1))
        return
    u = d.unit
    out.print(f"[bold]{escape(str(u.ref))}[/bold]  {escape(printable(u.title))}")
    out.print(f"derived by lexcite from {d.derived} ({u.language})"
              + (f", changed by {d.changed_by}" if d.changed_by else ""), markup=False)
    if d.official is not None:
        said = {"equal": "the same text", "differs": "a different text", "only derived": "no such unit",
                "not compared": "not compared (it has no recitals)"}[d.comparison or "not compared"]
        out.print(f"the official consolidation {d.official} is this version's text: {said}", markup=False)
        if d.diff:
            out.print(f"  {printable(d.diff)}", markup=False)
    for part in d.parts or (u,):
        out.print(printable(part.text), markup=False)
    out.print("")


@app.command()
def refresh(
    celex: Annotated[list[str] | None, typer.Argument(help="CELEX numbers; default: data/acts.toml.")] = None,
    language: Annotated[list[str] | None, typer.Option("--language", help="ISO 639-1 code; repeatable.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print what changed as JSON.")] = False,
    no_index: Annotated[bool, typer.Option("--no-index", help="Only fetch and ingest; leave the index as it is.")
                        ] = False,
    golden: Annotated[Path | None, typer.Option("--golden", help="Golden set to recalibrate on (dev split) when "
                                                                   "the index changed.")] = None,
) -> None:
    """Fetch acts from Cellar, discover consolidated versions and amending acts, ingest what changed, and
    bring the index up to date (only changed units are embedded; nothing when nothing changed).

    Example: lexcite refresh 32024R1689 --json
    """
    from lexcite.catalog import Catalog
    from lexcite.cli.index import index_and_calibrate, print_index_report
    from lexcite.index.manifest import load_manifest
    from lexcite.ingest.refresh import refresh as refresh_acts

    if golden is not None and not golden.is_file():
        raise ConfigError(f"--golden {golden}: no such file; nothing was fetched")
    with Catalog(settings=settings()) as catalog, progress() as bar:
        report = refresh_acts(catalog, celex or None, tuple(language) if language else None,
                              progress=lambda what, n: bar.update(f"fetching {what}", n), settings=settings())
        wanted = not no_index and bool(catalog.versions())  # an empty catalog (every fetch failed): nothing to index
        manifest = load_manifest(settings().home) if wanted else None
        up_to_date = manifest is not None and manifest.get("catalog_state") == catalog.state()
    # what was fetched is said before the index step, which may take minutes or fail on its own
    if as_json:
        print(json.dumps([i.to_dict() for i in report.items], ensure_ascii=False, indent=1))
    else:
        for i in report.items:
            what = f"{i.result.act}@{i.result.version}, {len(i.result.changed_units)} units changed" if i.result else ""
            out.print(f"{i.action:12} {i.role:12} {i.celex} [{i.language}] {what} {i.error}", markup=False)
    if up_to_date:
        err.print("index: up to date (nothing to embed)", markup=False)
    elif wanted:
        with progress() as bar:
            indexed = index_and_calibrate(bar, golden=golden, only_if_changed=manifest is not None)
        print_index_report(*indexed, err if as_json else out)
    if report.failed:
        raise LexciteError(f"{len(report.failed)} document(s) could not be refreshed: "
                           + "; ".join(f"{i.celex}: {i.error}" for i in report.failed)
                           + ". Everything else was stored; run `lexcite refresh` again later.")
