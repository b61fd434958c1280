"""`lexcite ask` and the `lexcite trace` group (list, show, replay): thin shells over lexcite.answer."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from lexcite import __version__
from lexcite.cli._app import EXIT_REFUSED, app, err, out, settings
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
from lexcite.contract import Answer, Evidence
from lexcite.errors import UsageError

if TYPE_CHECKING:
    from lexcite.answer.ask import ReplayReport
    from lexcite.answer.trace import StoredTrace

GeneratorOpt = Annotated[str | None, typer.Option(
    # the names are lexcite.answer.ask.GENERATORS (a test checks they agree), written out so that
    # building the command line does not import the answering stack
    "--generator", help="claude, extractive or local; default claude when ANTHROPIC_API_KEY is set, else extractive "
                        "(local needs `pip install lexcite[local]`).")]


@app.command(name="ask")
def ask_command(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    act: ActOpt = None,
    language: LanguageOpt = "en",
    as_of: AsOfOpt = None,
    include_superseded: SupersededOpt = False,
    binding_only: BindingOpt = False,
    access_tag: AccessTagOpt = None,
    generator: GeneratorOpt = None,
    k: KOpt = 6,
    as_json: Annotated[bool, typer.Option("--json", help="The whole answer as one JSON object (question, answer, "
                                                         "refused, refusal_reason, sentences, evidence, conflicts, "
                                                         "verdicts, generator, flags, trace_id, perimeter); the "
                                                         "same as --format json.")] = False,
    fmt: Annotated[str, typer.Option("--format", help="text (default), json, or markdown: a memo to paste "
                                                      "(question, answer, each cited paragraph quoted with its "
                                                      "version and link, conflicts, trace id).")] = "text",
    no_trace: Annotated[bool, typer.Option("--no-trace", help="Do not record this question.")] = False,
    no_text: Annotated[bool, typer.Option("--no-text", help="Trace ids, hashes and flags only, no text.")] = False,
) -> None:
    """Answer a question from the catalog, every sentence cited, or refuse.

    Example: lexcite ask "By when must providers of high-risk AI systems comply?" --act 32024R1689
    """
    from lexcite.index.second import start_loading

    start_loading(settings().home)  # first: its model loads while the rest is imported (0.3 s of start-up)
    from lexcite.answer.ask import GENERATORS, ask, choose_generator

    if not question.strip():
        raise UsageError('the question is empty: put it in quotes, e.g. lexcite ask "Who must register a high-risk '
                         'AI system?"')
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: choose from {', '.join(FORMATS)}")
    fmt = "json" if as_json else fmt
    if generator is not None and generator not in GENERATORS:
        raise UsageError(f"--generator {generator!r}: choose from {', '.join(GENERATORS)}")
    perimeter = perimeter_from_options(act, language, as_of, include_superseded, binding_only, access_tag)
    choice = choose_generator(generator, settings())
    if fmt == "text":
        err.print(f"generator: {choice.why}", markup=False, highlight=False)
    answer = ask(question, perimeter, k=k, generator=choice, trace=not no_trace, store_text=not no_text,
                 settings=settings())
    if fmt == "json":
        print(json.dumps(answer.to_dict(), ensure_ascii=False, indent=1))
    elif fmt == "markdown":
        print(memo(answer), end="")
    else:
        render(answer)
    if answer.refused:
        raise typer.Exit(EXIT_REFUSED)


FORMATS = ("text", "json", "markdown")


def _kind(e: Evidence) -> str:
    """What a source is, as a reader weighs it: a recital explains a binding act but binds no one."""
    if e.ref.unit.startswith("rct_"):
        return "recital (not binding)"
    return "binding" if e.binding else "guidance"


def memo(a: Answer) -> str:
    """The answer as a Markdown memo: question, answer, each cited paragraph quoted with version and link,
    conflicts, trace id. Quoted text is the stored text, whole."""
    lines = [f"# {a.question}", ""]
    sid = {e.ref: e.sid for e in a.evidence}
    if a.refused:
        lines += [f"**{a.text}**", "", a.refusal_reason.removeprefix(a.text).strip(), ""]
    else:
        lines += ["## Answer", ""]
        lines += [f"{s.text} [{', '.join(sid.get(r, '?') for r in s.refs)}]" for s in a.sentences]
        lines.append("")
    cited = set(a.cited())
    shown = [e for e in a.evidence if e.ref in cited] if not a.refused else []
    if shown:
        lines += ["## Cited provisions", ""]
    for e in shown:
        lines += [f"### [{e.sid}] {e.title}", "",
                  f"`{e.ref}` — version {e.ref.version}, {e.status}, {_kind(e)} — <{e.source_url}>", ""]
        lines += [f"> {para}" if para else ">" for para in e.text.splitlines()] + [""]
    if a.conflicts:
        lines += ["## Where the texts disagree", ""]
        for c in a.conflicts:
            lines.append(f"- **{c.fact_kind}**: " + ("; ".join(f"{v} (`{r}`)" for v, r in c.values))
                         + (f" — prevails: `{c.prevails}`" if c.prevails else "") + f" ({c.rule})")
        lines.append("")
    p = a.perimeter
    lines += ["---", "", f"Asked of lexcite {__version__} ({a.generator or 'no generator'}), as of "
              f"{p.effective_date()}, language {p.language or 'any'}"
              + (f", acts {', '.join(p.acts)}" if p.acts else "") + "."]
    if a.trace_id:
        lines.append(f"Trace `{a.trace_id}` (`lexcite trace show {a.trace_id}`).")
    return "\n".join(lines) + "\n"


def render(a: Answer) -> None:
    """The answer, each sentence followed by its references; then the sources. A refusal says why."""
    if a.refused:
        out.print(f"[bold]{escape(a.text)}[/bold]")
        reason = a.refusal_reason.removeprefix(a.text).strip()
        if reason:
            out.print(escape(reason))
        if a.evidence:
            # the units retrieval ranked, best first: the provisions' other paragraphs, given for context, would
            # bury them (a refusal read 36 units)
            ranked = sorted((e for e in a.evidence if e.score > 0), key=lambda e: -e.score) or list(a.evidence)
            shown = ranked[:REFUSAL_SOURCES]
            out.print("\n[dim]The best-ranked of the admitted units, which did not yield a verified answer:[/dim]")
            _sources(a, only=shown)
            if len(a.evidence) > len(shown):
                out.print(f"[dim]  and {len(a.evidence) - len(shown)} more units of the evidence "
                          "(--json lists them all)[/dim]")
        if a.trace_id:
            out.print(f"\n[dim]trace {a.trace_id}[/dim]")
        return
    sid = {e.ref: e.sid for e in a.evidence}
    for s in a.sentences:
        refs = ", ".join(f"{sid.get(r, '?')} {r}" for r in s.refs)
        out.print(f"{escape(s.text)} [cyan]\\[{escape(refs)}][/cyan]")
    if a.conflicts:
        _conflicts(a)
    out.print("\n[bold]Sources[/bold]")
    _sources(a, cited_only=True)
    if a.trace_id:
        out.print(f"\n[dim]trace {a.trace_id}[/dim]")


_QUOTE = 300  # characters of a text value shown; --json has the whole text
_LEAD = 80  # characters shown before the first place where long texts differ


def excerpts(values: Sequence[str]) -> list[str]:
    """Each value as shown: whole when short; else from a little before the first character where the values
    differ, so that two versions of a long paragraph do not show the same opening words (Article 5(1) before and
    after a point was inserted near its end)."""
    if all(len(v) <= _QUOTE for v in values):
        return list(values)
    same = len(os.path.commonprefix(list(values))) if len(values) > 1 else 0
    start = 0
    if same > _LEAD:
        start = values[0].rfind(" ", 0, same - _LEAD) + 1  # at a word
    out = []
    for v in values:
        cut = v[start:start + _QUOTE]
        out.append(("…" if start else "") + (cut.rstrip() + "…" if start + _QUOTE < len(v) else cut))
    return out


def _conflicts(a: Answer) -> None:
    """Each disagreement: every value with its reference and role, then the fixed rule's outcome."""
    from lexcite.answer.conflicts import RULES

    out.print("\n[bold]Where the texts disagree[/bold] (each side with its reference):")
    for c in a.conflicts:
        outcome = c.rule if c.prevails is None else f"the text marked 'prevails' applies, under the rule that {c.rule}"
        out.print(f"  [bold]{escape(c.fact_kind)}[/bold]: {escape(outcome)}")
        win = c.prevails
        for (_, r), shown in zip(c.values, excerpts([v for v, _ in c.values]), strict=True):
            if win is not None and r == win:
                role = "prevails"
            elif win is not None and (r.version or "") < (win.version or "") and (
                    r.act == win.act or RULES["amending"] in c.rule):
                role = "former"  # the earlier text of the act, or the text an amending act changed or deleted
            else:
                role = "other"
            out.print(f"    {role:<8} {escape(shown)}  [cyan]{escape(str(r))}[/cyan]")


REFUSAL_SOURCES = 8  # units a refusal lists


def _sources(a: Answer, cited_only: bool = False, only: Sequence[Evidence] | None = None) -> None:
    cited = set(a.cited())
    for e in (a.evidence if only is None else only):
        if cited_only and e.ref not in cited:
            continue
        kind = _kind(e)
        out.print(f"  {e.sid}  [bold]{escape(str(e.ref))}[/bold]  {escape(e.title)}")
        out.print(f"      version {e.ref.version}, {e.status}, {kind}  "
                  f"[link={e.source_url}]{escape(e.source_url)}[/link]")


trace_app = typer.Typer(help="Recorded answers: list, show, replay.", no_args_is_help=True)
app.add_typer(trace_app, name="trace")


@trace_app.command("list")
def trace_list(
    limit: Annotated[int, typer.Option("--limit", "-n", help="How many, newest first.")] = 20,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """The most recent traces."""
    from lexcite.answer.trace import TraceStore

    with TraceStore(settings=settings()) as store:
        rows = store.list(limit)
    if as_json:
        print(json.dumps([r.to_dict() for r in rows], ensure_ascii=False, indent=1))
        return
    for r in rows:
        outcome = "refused " if r.refused else "answered"
        q = r.question if r.question is not None else f"(no text, sha256 {r.question_sha256[:12]}…)"
        out.print(f"{r.id}  {r.created_at[:19]}  {outcome}  {r.generator:<10}  {escape(q)}")


@trace_app.command("show")
def trace_show(
    trace_id: Annotated[str, typer.Argument(help="A trace id (or a unique prefix).")],
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Everything recorded for one answer, and whether it still verifies against the catalog."""
    from lexcite.answer.trace import TraceStore, catalog_problems
    from lexcite.catalog import Catalog

    with TraceStore(settings=settings()) as store:
        trace = store.get(trace_id)
    with Catalog(settings=settings()) as catalog:
        problems = catalog_problems(trace, catalog)
    if as_json:
        print(json.dumps({**trace.doc, "content_ok": trace.content_ok, "catalog_problems": problems},
                         ensure_ascii=False, indent=1))
        return
    _show(trace, problems)


def _show(t: StoredTrace, problems: list[str]) -> None:
    out.print(f"[bold]trace {t.id}[/bold]  {t.created_at}  lexcite {t.lexcite_version}")
    q = t.question if t.question is not None else f"(not stored; sha256 {t.question_sha256})"
    out.print(f"question: {escape(q)}")
    out.print(f"perimeter: {escape(json.dumps(t.perimeter.to_dict()))}  as of {t.as_of}  k={t.k}")
    out.print(f"generator: {t.generator} {t.model}  threshold: {t.threshold}")
    out.print("versions in scope: " + escape(", ".join(f"{v.act}@{v.version} [{v.language}, {v.status}, "
                                                        f"sha256 {v.sha256[:12]}…]" for v in t.versions)))
    for stage in dict.fromkeys(h.stage for h in t.hits):
        hits = [h for h in t.hits if h.stage == stage][:10]
        out.print(escape(f"{stage}: " + ", ".join(f"{h.rank}. {h.ref} ({h.score:.3f})" for h in hits)))
    for e in t.evidence:
        out.print(f"  {e.sid} {e.ref}  score {e.score:.3f}  text sha256 {e.text_sha256[:12]}…")
    for ref, why in t.discarded[:10]:
        out.print(f"  [dim]discarded {ref}: {escape(why)}[/dim]")
    for v in t.verdicts:
        mark = "[green]ok[/green]" if v.ok else "[red]FAILED[/red]"
        out.print(f"  sentence {v.index + 1} {mark} {escape(', '.join(v.sids))} {escape('; '.join(v.reasons))}")
    out.print(f"answer: {escape(t.answer_text or '(not stored)')}")
    if t.refused:
        out.print(f"refusal: {escape(t.refusal_reason)}")
    out.print(f"flags: {', '.join(t.flags) or '-'}   timings: "
              + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in t.timings.items() if "." not in k))
    if not t.content_ok:
        out.print("[red]This trace was edited after it was logged: its content hash does not match.[/red]")
    if problems:
        out.print("[yellow]This trace no longer verifies against the catalog:[/yellow]")
        for p in problems:
            out.print(f"  - {escape(p)}")
    else:
        out.print("[green]The cited texts and versions are unchanged in the catalog.[/green]")


@trace_app.command("replay")
def trace_replay(
    trace_id: Annotated[str, typer.Argument(help="A trace id (or a unique prefix).")],
    generator: GeneratorOpt = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Ask the traced question again with its recorded inputs and report what differs."""
    from lexcite.answer.ask import replay

    report: ReplayReport = replay(trace_id, generator=generator, settings=settings())
    if as_json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=1))
        return
    for p in report.catalog_problems:
        out.print(f"[yellow]catalog changed:[/yellow] {escape(p)}")
    if not report.differences:
        out.print(f"[green]replay of {report.trace_id}: same answer, same evidence, same citations.[/green]")
        return
    out.print(f"[yellow]replay of {report.trace_id} differs:[/yellow]")
    for d in report.differences:
        out.print(f"  - {escape(d)}")
