"""The perimeter options every question-taking command shares (`search`, `ask`, `eval`).

Declare the parameters with these annotated types, then build the Perimeter with
`perimeter_from_options(...)`::

    @app.command()
    def ask(question: str, act: ActOpt = None, language: LanguageOpt = "en", as_of: AsOfOpt = None,
            include_superseded: SupersededOpt = False, binding_only: BindingOpt = False,
            access_tag: AccessTagOpt = None) -> None:
        perimeter = perimeter_from_options(act, language, as_of, include_superseded, binding_only, access_tag)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from lexcite.contract import EU_LANGUAGES, Perimeter, is_celex
from lexcite.errors import CitationError, UsageError

if TYPE_CHECKING:
    from lexcite.catalog import Catalog
    from lexcite.references import ActNames

__all__ = ["ActOpt", "LanguageOpt", "AsOfOpt", "SupersededOpt", "BindingOpt", "AccessTagOpt", "KOpt", "act_option",
           "check_date", "perimeter_from_options"]

ActOpt = Annotated[list[str] | None, typer.Option("--act", help="Only this act: CELEX or a name from `lexcite "
                                                                  "acts` (AI Act, GDPR); repeat for several.")]
LanguageOpt = Annotated[str, typer.Option("--language", help="ISO 639-1 language of the texts; 'any' for all.")]
AsOfOpt = Annotated[str | None, typer.Option("--as-of", help="The law as in force on this date (YYYY-MM-DD); "
                                                               "default today.")]
SupersededOpt = Annotated[bool, typer.Option("--include-superseded", help="Also search superseded versions.")]
BindingOpt = Annotated[bool, typer.Option("--binding-only", help="Legislation only, no guidance.")]
AccessTagOpt = Annotated[list[str] | None, typer.Option("--access-tag", help="An access tag you hold; repeatable.")]
# One spelling everywhere: `-k 3` and `--k 3` both work in ask, search and eval.
KOpt = Annotated[int, typer.Option("-k", "--k", min=1, help="How many units of evidence (hit@k is cut here).")]


def check_date(value: str | None, option: str) -> None:
    """UsageError naming the option when `value` is not a YYYY-MM-DD date."""
    if value is None:
        return
    try:
        Perimeter(as_of=value)
    except ValueError as e:
        raise UsageError(f"{option}: {e}") from None


def perimeter_from_options(act: list[str] | None = None, language: str = "en", as_of: str | None = None,
                           include_superseded: bool = False, binding_only: bool = False,
                           access_tag: list[str] | None = None) -> Perimeter:
    """The Perimeter the shared options describe.

    Raises:
        UsageError: a date that does not parse, a language that is no EU language code.
        CitationError: an act name the catalog does not know.
    """
    check_date(as_of, "--as-of")
    if language not in ("any", "") and language not in EU_LANGUAGES:  # "xx" would search nothing and say so
        raise UsageError(f"--language {language!r}: give an official EU language as its ISO 639-1 code "
                         f"({', '.join(sorted(EU_LANGUAGES))}), or 'any'")
    acts = tuple(act or ())
    if acts:  # a name ('AI Act', 'GDPR') or a CELEX: the catalog knows which act it is, and whether it holds it
        from lexcite.catalog import Catalog, catalog_path
        from lexcite.catalog.locate import act_names
        from lexcite.cli._app import settings

        if catalog_path(settings().home).exists() or not all(is_celex(a) for a in acts):
            with Catalog(settings=settings()) as catalog:
                names = act_names(catalog)
                acts = tuple(act_option(catalog, a, names) for a in acts)
    return Perimeter(acts=acts, language=None if language in ("any", "") else language,
                     include_superseded=include_superseded, binding_only=binding_only, as_of=as_of,
                     access_tags=tuple(access_tag or ()))


def act_option(catalog: Catalog, name: str, names: ActNames | None = None, option: str = "--act") -> str:
    """The CELEX an --act value (or the argument `option`) names; UsageError when the catalog holds no such act (a
    choice not offered)."""
    from lexcite.catalog.locate import require_act

    try:
        return require_act(catalog, name, names)
    except CitationError as e:
        raise UsageError(f"{option}: {e}") from None
