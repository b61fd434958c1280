"""From a path (file, Formex folder or zip) to a ParsedAct, and into the catalog."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from lexcite.catalog import Catalog, Source, StoreResult
from lexcite.contract import EU_LANGUAGES, STATUSES, ParsedAct, is_celex
from lexcite.errors import ConfigError, FormatNotRecognised, LexciteError, ParseError
from lexcite.ingest._labels import iso_date
from lexcite.ingest._markup import read_html, read_xml
from lexcite.ingest.apply_amendments import ApplyResult, update_amendments
from lexcite.ingest.completeness import (
    check_document_end,
    check_final_provisions,
    check_not_shrinking,
    check_sequences,
)
from lexcite.ingest.coverage import check_coverage, check_list_labels
from lexcite.ingest.detect import detect_html_format, detect_xml_format
from lexcite.ingest.fetch import package_sha256
from lexcite.ingest.parse_consolidated import parse_consolidated
from lexcite.ingest.parse_formex import formex_files_from_dir, formex_files_from_zip, parse_formex
from lexcite.ingest.parse_oj import parse_oj
from lexcite.ingest.parse_oj_old import parse_oj_flat, parse_oj_old

__all__ = ["Overrides", "read_document", "ingest_paths", "ingest_document", "ingest_batch", "Outcome",
           "HTML_PARSERS", "MANIFESTATION_RULE"]

HTML_PARSERS = {"oj": parse_oj, "oj_flat": parse_oj_flat, "oj_old": parse_oj_old, "consolidated": parse_consolidated}
_SUFFIXES = {".xhtml", ".html", ".htm", ".xml", ".zip"}


@dataclass(frozen=True)
class Overrides:
    """What the command line says about a document; wins over what the document says."""

    act: str | None = None
    version: str | None = None
    language: str | None = None
    binding: bool = True
    status: str | None = None
    valid_from: str | None = None
    access_tags: tuple[str, ...] = ()
    replace: bool = False  # store a manifestation even though it lacks units of the stored one

    def __post_init__(self) -> None:
        """Checked before anything is read or stored: a bad value is one line, never a stored act."""
        if self.language is not None and self.language not in EU_LANGUAGES:
            raise ConfigError(f"language {self.language!r} is not an ISO 639-1 code of an EU language "
                              f"({', '.join(sorted(EU_LANGUAGES))})")
        for name in ("version", "valid_from"):
            value = getattr(self, name)
            if value is not None and not iso_date(value):
                raise ConfigError(f"--{name.replace('_', '-')} {value!r} is not a date YYYY-MM-DD")
        if self.act is not None and not is_celex(self.act):
            raise ConfigError(f"--celex {self.act!r} is not a CELEX number (e.g. 32024R1689)")
        if self.status is not None and self.status not in STATUSES:
            raise ConfigError(f"--status {self.status!r} is not one of {', '.join(STATUSES)}")


def _is_html(data: bytes) -> bool:
    head = data[:4096].lower()
    return b"<html" in head or b"<!doctype html" in head


def read_document(path: Path, overrides: Overrides = Overrides()) -> tuple[ParsedAct, str]:
    """Parse one document (file, Formex folder or Formex zip); returns it with its sha256."""
    meta = {"act": overrides.act, "version": overrides.version, "language": overrides.language,
            "binding": overrides.binding}
    if path.is_dir():
        files = formex_files_from_dir(path)
        return _whole(parse_formex(files, path, **meta), path), package_sha256(files)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ParseError(path, "file", f"cannot be read: {e.strerror}") from None
    if data[:2] == b"PK":
        files = formex_files_from_zip(data, path)
        # Same hash as the folder and as a fetched zip: a refresh and a local ingest agree.
        return _whole(parse_formex(files, path, **meta), path), package_sha256(files)
    if not data.strip():
        raise ParseError(path, "byte 0", "the file is empty")
    sha = hashlib.sha256(data).hexdigest()
    if b"\x00" in data[:4096]:
        at = data.index(b"\x00")
        raise ParseError(path, f"byte {at}", "NUL bytes in the text: wrong encoding (UTF-16?) or not a text file")
    if _is_html(data):
        root = read_html(data, path)
        fmt = detect_html_format(root, path)
        parsed = HTML_PARSERS[fmt](root, path, **meta)
        check_document_end(data, path)
        check_final_provisions(root, fmt, path, published=overrides.binding is not False)
        check_coverage(root, parsed, fmt, path)
        check_list_labels(root, parsed, fmt, path)
        return _whole(parsed, path), sha
    if not data.lstrip()[:1] == b"<":
        raise FormatNotRecognised(path, ["(X)HTML", "Formex XML", "Formex zip"], found="no markup at all")
    detect_xml_format(read_xml(data, path), path)
    return _whole(parse_formex({path.name: data}, path, **meta), path), sha


def _whole(parsed: ParsedAct, path: Path) -> ParsedAct:
    """The checks every format gets (a truncated Formex file is already not well-formed XML)."""
    check_sequences(parsed, path)
    return parsed


def ingest_document(
    catalog: Catalog,
    path: Path,
    overrides: Overrides = Overrides(),
    source: Source | None = None,
    progress: Callable[[int, int], None] | None = None,
    check: Callable[[ParsedAct], None] | None = None,
) -> StoreResult:
    """Parse, check (completeness, no loss against the stored version, `check` if given) and store."""
    parsed, sha = read_document(path, overrides)
    if check is not None:
        check(parsed)
    return _store(catalog, parsed, sha, path, overrides, source, progress)


def _store(catalog: Catalog, parsed: ParsedAct, sha: str, path: Path, overrides: Overrides,
           source: Source | None = None, progress: Callable[[int, int], None] | None = None) -> StoreResult:
    """Store a parsed document: the overrides applied, and never with fewer units than the stored version
    unless `overrides.replace` says so (then the action is "replaced" and the loss is listed)."""
    if not overrides.binding and parsed.binding:
        parsed = dataclasses.replace(parsed, binding=False, doc_kind="guidance")
    src = source or Source(location=str(path.resolve()), sha256=sha)
    return catalog.store(
        parsed,
        src,
        status=overrides.status,
        valid_from=overrides.valid_from,
        access_tags=overrides.access_tags,
        progress=progress,
        check_loss=lambda stored_ids: check_not_shrinking(parsed, stored_ids, path, replace=overrides.replace),
    )


def _documents(paths: Iterable[Path]) -> list[Path]:
    """Expand folders: a Formex folder is one document; otherwise every known file inside."""
    out: list[Path] = []
    for p in paths:
        if not p.exists():
            raise ParseError(p, "path", "does not exist")
        if p.is_dir():
            if any(f.name.endswith((".doc.fmx.xml", ".doc.xml")) for f in p.iterdir()):
                out.append(p)
            else:
                out.extend(_documents(sorted(f for f in p.iterdir() if f.is_dir() or f.suffix in _SUFFIXES)))
        else:
            out.append(p)
    return out


def ingest_paths(
    catalog: Catalog,
    paths: Iterable[Path],
    overrides: Overrides = Overrides(),
    on_document: Callable[[Path], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[StoreResult]:
    """Ingest each document in its own transaction; the first bad one stops the batch with its error."""
    results = []
    for doc in _documents(paths):
        if on_document:
            on_document(doc)
        results.append(ingest_document(catalog, doc, overrides, progress=progress))
    # Amending acts just stored (or whose target act was): store their links and the target
    # version that results (lexcite/ingest/apply_amendments.py); an unchanged batch writes nothing.
    results += [a.stored for a in update_amendments(catalog, results) if a.stored is not None]
    return results


# When one version of an act in one language arrives in several files (the OJ XHTML, its HTML and
# the Formex of the same publication), one is stored: the first of this order, then by path name.
# XHTML first because its paragraphs carry anchors that links can point at.
_RANK = {("oj", ".xhtml"): 0, ("oj", ".html"): 1, ("oj", ".htm"): 1, ("oj_old", ".html"): 2,
         ("consolidated", ".xhtml"): 3, ("consolidated", ".html"): 4}
MANIFESTATION_RULE = "one file per act, version and language: OJ XHTML, then OJ HTML, consolidated, Formex"


def _rank(parsed: ParsedAct, path: Path) -> tuple[int, int, str]:
    return _RANK.get((parsed.format, path.suffix.lower()), 5), len(path.name), path.name


@dataclass(frozen=True)
class Outcome:
    """What ingesting one path did: stored (result), skipped for another manifestation, or failed."""

    path: Path
    # new, updated, unchanged (as the catalog stored it); skipped (another file of that version is
    # stored); failed; applied / unapplied / consolidated (an amending act's changes to one target act;
    # consolidated: they are in a stored official consolidation, which prevails over a derived text)
    action: str
    result: StoreResult | None = None
    note: str = ""

    @property
    def failed(self) -> bool:
        return self.action == "failed"

    def to_dict(self) -> dict[str, object]:
        base = self.result.to_dict() if self.result else {}
        return {"path": str(self.path), **base, "action": self.action, "note": self.note}


def ingest_batch(
    catalog: Catalog,
    paths: Iterable[Path],
    overrides: Overrides = Overrides(),
    on_document: Callable[[Path, int, int], None] | None = None,
) -> list[Outcome]:
    """Ingest files and folders, each document on its own; one bad file does not stop the rest.

    Every document is parsed first, so the batch can be stored in publication order (an amending
    act after the acts it amends) with one manifestation per version (MANIFESTATION_RULE); each
    amending act is applied as soon as it is stored, and each application is an outcome of its own.
    """
    docs = _documents(paths)
    parsed: list[tuple[ParsedAct, str, Path]] = []
    out: list[Outcome] = []
    for i, doc in enumerate(docs):
        if on_document:
            on_document(doc, i, len(docs))
        try:
            act, sha = read_document(doc, overrides)
        except LexciteError as e:
            out.append(Outcome(doc, "failed", note=str(e)))
            continue
        parsed.append((act, sha, doc))
    chosen: dict[tuple[str, str, str], tuple[ParsedAct, str, Path]] = {}
    for act, sha, doc in sorted(parsed, key=lambda t: _rank(t[0], t[2])):
        key = (act.act, act.version, act.language)
        if key in chosen:
            out.append(Outcome(doc, "skipped", note=f"{act.act}@{act.version} [{act.language}] is stored from "
                                                    f"{chosen[key][2].name} ({MANIFESTATION_RULE})"))
        else:
            chosen[key] = (act, sha, doc)
    seen: set[tuple[str, str, str, bool, bool]] = set()
    # amending act -> where its "unapplied" line goes, its file and its unapplied results. The lines are
    # written at the end: a target settled later in the batch (the official consolidation that has the
    # changes, stored after the amending act) is then left out of them.
    unapplied: dict[str, tuple[int, Path, list[ApplyResult]]] = {}
    settled: set[tuple[str, str, str]] = set()
    for act, sha, doc in sorted(chosen.values(), key=lambda t: (t[0].version, t[0].act, t[0].language)):
        try:
            r = _store(catalog, act, sha, doc, overrides)
        except LexciteError as e:
            out.append(Outcome(doc, "failed", note=str(e)))
            continue
        out.append(Outcome(doc, r.action, r))
        # Applied at once, act by act: the acts it amends are stored already (publication order),
        # and an amending act that cannot be applied is a failure of its own file, not of the batch.
        try:
            applied = update_amendments(catalog, [r])
        except LexciteError as e:
            out.append(Outcome(doc, "unapplied", note=f"stored, but its amendments were not applied: {e}"))
            continue
        # A target's other languages re-run them; a result of another kind (the official consolidation
        # stored since, which has the changes) is news and gets its line.
        fresh = [a for a in applied if _said(a) not in seen]
        seen |= {_said(a) for a in fresh}
        out += [_applied(a, doc) for a in fresh if a.stored is not None]
        out += [_consolidated(a, doc) for a in fresh if a.stored is None and _in_official(a)]
        settled |= {(a.amending, a.target, a.language) for a in fresh if a.stored is not None or _in_official(a)}
        for a in fresh:
            if a.stored is None and not _in_official(a):
                unapplied.setdefault(a.amending, (len(out), doc, []))[2].append(a)
    # The last place first, so that the earlier places stay where they were.
    for _, (amending, (at, doc, results)) in sorted(enumerate(unapplied.items()), key=lambda t: (t[1][1][0], t[0]),
                                                    reverse=True):
        left = [a for a in results if (a.amending, a.target, a.language) not in settled]
        # Every target it names is settled: the reason that held for them (its format) is moot.
        if any(a.target for a in left) or not any(a.target for a in results):
            out.insert(at, _unapplied(doc, amending, left))
    return out


def _applied(a: ApplyResult, doc: Path) -> Outcome:
    """An amending act applied to one target: the derived version stored (or unchanged)."""
    assert a.stored is not None
    action = "unchanged" if a.stored.action == "unchanged" else "applied"
    return Outcome(doc, action, a.stored,
                   note=f"{a.amending} applied to {a.target}@{a.base_version}: {a.applied} instructions applied, "
                        f"{len(a.outcomes) - a.applied} not")


def _said(a: ApplyResult) -> tuple[str, str, str, bool, bool]:
    return a.amending, a.target, a.language, a.stored is not None, _in_official(a)


def _in_official(a: ApplyResult) -> bool:
    """The amending act's changes are in a stored official consolidation (compared, or named by it)."""
    return a.check is not None or a.consolidated_in is not None


def _consolidated(a: ApplyResult, doc: Path) -> Outcome:
    """An amending act whose changes a stored official consolidation already has: nothing to apply."""
    return Outcome(doc, "consolidated", note=f"{a.amending} → {a.target}: {a.note}")


def _unapplied(doc: Path, amending: str, results: list[ApplyResult]) -> Outcome:
    """One line for the targets an amending act could not be applied to, most often acts not stored;
    a result without a target gives the reason that holds for them all (the act's format)."""
    named = [a for a in results if a.target]
    absent = [a.target for a in named if a.note.startswith("no version of")]
    other = [f"{a.target} ({a.note})" if a.note else a.target for a in named if a.target not in absent]
    parts = ([f"{len(absent)} act(s) not in the catalog: {', '.join(absent)}"] if absent else []) + other
    reasons = list(dict.fromkeys(a.note for a in results if not a.target))
    note = f"{amending} not applied" + (" to " + "; ".join(parts) if parts else "")
    if reasons:
        note += f" ({'; '.join(reasons)})" if parts else f": {'; '.join(reasons)}"
    return Outcome(doc, "unapplied", note=note)
