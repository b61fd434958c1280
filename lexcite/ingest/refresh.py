"""`lexcite refresh`: keep a set of acts current from Cellar.

For each act: fetch it (conditionally, so an unchanged document costs a 304),
discover its consolidated versions and the acts that amend it by SPARQL, and
ingest what changed. Each document is stored in its own transaction, so a
fault halfway leaves every earlier document stored and nothing half-written.
"""

from __future__ import annotations

import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from lexcite import config
from lexcite.catalog import Catalog, Source, StoreResult
from lexcite.config import Settings
from lexcite.contract import ParsedAct
from lexcite.errors import ConfigError, FetchError, LexciteError
from lexcite.ingest.apply_amendments import update_amendments
from lexcite.ingest.fetch import CellarClient
from lexcite.ingest.load import Overrides, ingest_document
from lexcite.ingest.sparql import SparqlClient

__all__ = ["RefreshItem", "RefreshReport", "TrackedAct", "load_acts", "refresh", "ACTS_FILE", "FORMATS"]

ACTS_FILE = Path(__file__).resolve().parent.parent.parent / "data" / "acts.toml"
# In this order: the XHTML first (the amendment reader needs it), Formex where Cellar has nothing else
# (the Cybersecurity Act, the consolidated eIDAS and AI Act texts).
FORMATS = ("xhtml", "html", "fmx4")


@dataclass(frozen=True)
class RefreshItem:
    celex: str
    language: str
    role: str  # "act", "consolidated", "amending"
    action: str  # new, updated, unchanged, not_modified, failed
    url: str = ""
    result: StoreResult | None = None
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = {"celex": self.celex, "language": self.language, "role": self.role, "action": self.action,
             "url": self.url}
        if self.result:
            d.update(act=self.result.act, version=self.result.version, units=self.result.counts,
                     changed_units=list(self.result.changed_units))
        if self.error:
            d["error"] = self.error
        return d


@dataclass
class RefreshReport:
    items: list[RefreshItem] = field(default_factory=list)

    @property
    def failed(self) -> list[RefreshItem]:
        return [i for i in self.items if i.action == "failed"]

    @property
    def changed(self) -> list[RefreshItem]:
        return [i for i in self.items if i.action in ("new", "updated")]


class TrackedAct(NamedTuple):
    """One `[[act]]` of data/acts.toml."""

    celex: str
    languages: tuple[str, ...]
    consolidated_only: bool = False  # fetch its consolidated versions and amending acts, not the OJ text


def load_acts(path: Path = ACTS_FILE) -> list[TrackedAct]:
    """The acts to keep current, from data/acts.toml."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the list of acts ({e})") from None
    acts = []
    for n, entry in enumerate(data.get("act", []), start=1):
        if "celex" not in entry:
            raise ConfigError(f"{path}: [[act]] number {n} has no celex")
        only = entry.get("consolidated_only", False)
        if not isinstance(only, bool):
            raise ConfigError(f"{path}: [[act]] {entry['celex']}: consolidated_only must be true or false")
        acts.append(TrackedAct(entry["celex"], tuple(entry.get("languages", ["en"])), only))
    return acts


def _expected(celex: str) -> tuple[str, str | None]:
    """The act and version a CELEX names: a consolidated '02024R1689-20240712' is 32024R1689@2024-07-12."""
    base, _, day = celex.partition("-")
    if base.startswith("0") and len(day) == 8:
        return "3" + base[1:], f"{day[:4]}-{day[4:6]}-{day[6:]}"
    return celex, None


def _is_the_one_asked_for(celex: str, language: str, url: str) -> Callable[[ParsedAct], None]:
    """A fetched document is stored only if it is the act, version and language asked for (invariant 6)."""
    act, version = _expected(celex)

    def check(parsed: ParsedAct) -> None:
        got, want = (parsed.act, parsed.language), (act, language)
        if got != want or (version and parsed.version != version):
            raise FetchError(url, f"asked for {celex} [{language}], the document is {parsed.act}@{parsed.version} "
                             f"[{parsed.language}]")

    return check


def _fetch_and_store(catalog: Catalog, cellar: CellarClient, celex: str, language: str, role: str,
                     valid_from: str | None = None) -> RefreshItem:
    key = f"{celex}/{language}"
    last = catalog.last_fetch(key)
    fetched = cellar.fetch(
        celex, language, FORMATS,
        etag=last.etag if last else None,
        last_modified=last.last_modified if last else None,
    )
    if fetched.not_modified or fetched.path is None:
        return RefreshItem(celex, language, role, "not_modified", fetched.final_url)
    source = Source(location=fetched.final_url, sha256=fetched.sha256, raw_path=str(fetched.path),
                    etag=fetched.etag, last_modified=fetched.last_modified, headers=fetched.headers,
                    fetched_at=fetched.fetched_at)
    try:
        result = ingest_document(catalog, fetched.path, Overrides(valid_from=valid_from), source=source,
                                 check=_is_the_one_asked_for(celex, language, fetched.final_url))
    except LexciteError:
        # "Nothing was stored" holds for the raw cache too, unless a stored version is these very bytes.
        if not any(v.sha256 == fetched.sha256 for v in catalog.versions()):
            fetched.path.unlink(missing_ok=True)
        raise
    # Only a stored document counts as fetched: a failed parse is retried next time.
    catalog.record_fetch(key, fetched.final_url, fetched.etag, fetched.last_modified, fetched.sha256,
                         fetched.fetched_at)
    return RefreshItem(celex, language, role, result.action, fetched.final_url, result)


def _guarded(report: RefreshReport, celex: str, language: str, role: str, run: Any) -> None:
    try:
        report.items.append(run())
    except LexciteError as e:
        report.items.append(RefreshItem(celex, language, role, "failed", error=str(e)))


def refresh(
    catalog: Catalog,
    celexes: list[str] | None = None,
    languages: tuple[str, ...] | None = None,
    cellar: CellarClient | None = None,
    sparql: SparqlClient | None = None,
    deadline_s: float | None = None,
    progress: Callable[[str, int], None] | None = None,
    settings: Settings | None = None,
) -> RefreshReport:
    """Fetch each act, its consolidated versions and its amending acts; ingest what changed.

    Everything is fetched within `deadline_s` (default LEXCITE_REFRESH_DEADLINE); what is left when it
    passes is reported failed, to be fetched by the next refresh. `progress(what, n)` is told each
    document before it is fetched, with how many have been begun.
    """
    settings = config.settings(settings)
    cellar = cellar or CellarClient(settings=settings)
    sparql = sparql or SparqlClient(settings=settings)
    cellar.deadline = sparql.deadline = time.monotonic() + (deadline_s or settings.refresh_deadline_s())
    targets = [TrackedAct(c, languages or ("en",)) for c in celexes] if celexes else load_acts()
    if languages and not celexes:
        targets = [t._replace(languages=languages) for t in targets]
    report = RefreshReport()
    seen: set[tuple[str, str]] = set()

    def once(celex: str, lang: str, role: str, valid_from: str | None = None) -> None:
        if (celex, lang) in seen:
            return
        seen.add((celex, lang))
        if progress:
            progress(f"{role} {celex} [{lang}]", len(seen))
        _guarded(report, celex, lang, role,
                 lambda: _fetch_and_store(catalog, cellar, celex, lang, role, valid_from))

    for celex, langs, consolidated_only in targets:
        for lang in langs:
            if not consolidated_only:
                once(celex, lang, "act")
        try:
            consolidated = sparql.consolidated_versions(celex)
            amending = sparql.amending_acts(celex)
        except LexciteError as e:
            report.items.append(RefreshItem(celex, "", "discovery", "failed", error=str(e)))
            continue
        for lang in langs:
            for cons in consolidated:
                once(cons.celex, lang, "consolidated", cons.valid_from)
            for act in amending:
                once(act.celex, lang, "amending")
    # Amending acts just stored (or whose target was): the target version that results.
    stored = [i.result for i in report.items if i.result is not None]
    for applied in update_amendments(catalog, stored):
        if applied.stored is not None:
            r = applied.stored
            report.items.append(RefreshItem(r.act, r.language, "amended", r.action, "", r))
    return report
