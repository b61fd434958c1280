"""`lexcite amendments`, `apply-amendments`, `consolidation-check`: what amending acts change, the
versions that result, and how a derived version compares with the official consolidation.

Amendments are applied automatically when `lexcite ingest` stores an amending act or its
target; `apply-amendments` runs the same step again for one stored amending act.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from lexcite.catalog import Catalog
from lexcite.cli._app import app, out, settings

if TYPE_CHECKING:
    from lexcite.ingest.apply_amendments import ApplyResult


@app.command()
def amendments(
    act: Annotated[str, typer.Argument(help="The amended act: CELEX (32024R1689) or a name (AI Act).")],
    given: Annotated[bool, typer.Option("--given", help="List the instructions ACT gives to other acts.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object: counts and links.")] = False,
) -> None:
    """List the amendment instructions that target an act, parsed and unparsed, and whether each applied.

    Example: lexcite amendments 32024R1689      (what 2026/1744 and others change in the AI Act)
             lexcite amendments 32026R1744 --given
    """
    from lexcite.cli._options import act_option
    from lexcite.ingest.amendments import link_counts

    with Catalog(settings=settings()) as catalog:
        act = act_option(catalog, act, option="ACT")
        rows = catalog.links(amending_act=act) if given else catalog.links(target_act=act)
    counts = link_counts(link for link, _ in rows)
    if not rows and not as_json:
        # Not an error: most acts are never amended, or not by an act this catalog holds.
        out.print(f"{act}: no stored act gives amendment instructions to it" if not given else
                  f"{act}: it gives no amendment instructions to other acts (not an amending act)")
        return
    if as_json:
        print(json.dumps({"act": act, "given": given, "counts": counts,
                          "links": [{**link.to_dict(), "outcome": outcome} for link, outcome in rows]},
                         ensure_ascii=False, indent=1))
        return
    for link, outcome in rows:
        target = f"{link.target_act}#{link.target_unit}" if link.target_unit else f"{link.target_act} (?)"
        out.print(f"[bold]{link.amending}[/bold] {link.action} {target}", highlight=False)
        out.print(f"    {link.instruction}", markup=False, highlight=False)
        if link.reason:
            out.print(f"    {'reason' if link.action == 'unparsed' else 'note'}: {link.reason}", markup=False)
        out.print(f"    {outcome or 'not applied yet'}", markup=False, highlight=False)
    extra = ", ".join(f"{n} {k}" for k, n in counts.items() if k not in ("parsed", "unparsed"))
    out.print(f"{len(rows)} instructions: {counts['parsed']} parsed ({extra}), {counts['unparsed']} unparsed")


def _result_dict(r: ApplyResult) -> dict[str, object]:
    return {"amending": r.amending, "target": r.target, "language": r.language, "base_version": r.base_version,
            "version": r.version, "action": r.stored.action if r.stored else None, "applied": r.applied,
            "not_applied": {str(k): v for k, v in r.not_applied.items()}, "note": r.note}


@app.command("apply-amendments")
def apply_amendments(
    celex: Annotated[str, typer.Argument(help="CELEX of a stored amending act, e.g. 32026R1744.")],
    version: Annotated[str | None, typer.Option("--version", help="Its version date, if several are stored.")] = None,
    language: Annotated[str | None, typer.Option("--language")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Apply a stored amending act: store its links and the version of each target act that results.

    Ingesting does this already; run it after ingesting a target act on its own, or to check.
    Example: lexcite apply-amendments 32026R1744
    """
    from lexcite.ingest.apply_amendments import apply_stored

    with Catalog(settings=settings()) as catalog:
        results = apply_stored(catalog, celex, version, language)
    for r in results:
        if as_json:
            print(json.dumps(_result_dict(r), ensure_ascii=False))
            continue
        if r.stored is None:
            out.print(f"{r.amending} → {r.target}: nothing built ({r.note})")
            continue
        out.print(f"{r.stored.action:9} {r.target}@{r.version} [{r.language}, amended] from {r.target}@"
                  f"{r.base_version}: {r.applied} instructions applied, {len(r.not_applied)} not")
        for seq, why in r.not_applied.items():
            out.print(f"          link {seq}: {why}", markup=False)


@app.command("consolidation-check")
def consolidation_check(
    act: Annotated[str, typer.Argument(help="The consolidated act: CELEX (32024R1689) or a name (AI Act).")],
    as_json: Annotated[bool, typer.Option("--json", help="A JSON array, one object per checked version "
                                                         "([] when none).")] = False,
) -> None:
    """Compare the official consolidated text with the version lexcite derived for the same date.

    Stored when both exist (ingest the act, its amending act and the official consolidation, in any
    order): units equal after whitespace normalisation, units that differ (word diff: [-derived-]
    {+official+}), units only in one of them.
    Example: lexcite consolidation-check 32024R1689 --json
    """
    from lexcite.cli._options import act_option
    from lexcite.contract import is_celex
    from lexcite.errors import LexciteError
    from lexcite.ingest.consolidation import ConsolidationCheck

    with Catalog(settings=settings()) as catalog:
        act = act if is_celex(act) else act_option(catalog, act, option="ACT")  # a CELEX is checked as given
        checks = catalog.consolidation_checks(act)
    if as_json:
        print(json.dumps(checks, ensure_ascii=False, indent=1))
        return
    if not checks:
        raise LexciteError(f"{act}: no official consolidation checked against a derived version; ingest the act, "
                           "its amending act and the consolidated text (e.g. fmx4/02024R1689-20260727)")
    for d in checks:
        c = ConsolidationCheck.from_dict(d)
        total = len(c.units_equal) + len(c.units_differ) + len(c.only_official)
        out.print(f"[bold]{c.act}@{c.version}[/bold] [{c.language}] official {c.official}", highlight=False)
        out.print(f"  against the derived {c.derived} (checked {d['checked_at']})", markup=False, highlight=False)
        out.print(f"  units equal: {len(c.units_equal)} of {total} official units ({c.share_equal:.1%})")
        out.print(f"  units differ: {len(c.units_differ)}")
        for diff in c.units_differ:
            out.print(f"    {diff.unit}: {diff.diff()}", markup=False, highlight=False)
        for what, ids in (("only official", c.only_official), ("only derived", c.only_derived)):
            out.print(f"  {what}: {len(ids)}" + (f" — {', '.join(ids)}" if ids else ""), markup=False)
        out.print(f"  a unit's derived text: lexcite show {c.act}@{c.version}#UNIT --derived", markup=False,
                  highlight=False)
