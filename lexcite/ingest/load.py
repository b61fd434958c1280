"""From a path (file, Formex folder or zip) to a ParsedAct, and into the catalog."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from lexcite.catalog import Catalog, Source, StoreResult
from lexcite.contract import EU_LANGUAGES, STATUSES, ParsedAct, is_celex
from lexcite.errors import ConfigError, FormatNotRecognised, ParseError
from lexcite.ingest._labels import iso_date
from lexcite.ingest._markup import read_html, read_xml
from lexcite.ingest.apply_amendments import update_amendments
from lexcite.ingest.completeness import (
    check_document_end,
    check_final_provisions,
    check_not_shrinking,
    check_sequences,
)
from lexcite.ingest.detect import detect_html_format, detect_xml_format
from lexcite.ingest.fetch import package_sha256
from lexcite.ingest.parse_consolidated import parse_consolidated
from lexcite.ingest.parse_formex import formex_files_from_dir, formex_files_from_zip, parse_formex
from lexcite.ingest.parse_oj import parse_oj
from lexcite.ingest.parse_oj_old import parse_oj_flat, parse_oj_old

__all__ = ["Overrides", "read_document", "ingest_paths", "ingest_document", "HTML_PARSERS"]

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
    if not overrides.binding and parsed.binding:
        parsed = dataclasses.replace(parsed, binding=False, doc_kind="guidance")
    src = source or Source(location=str(path.resolve()), sha256=sha)
    lost: set[str] = set()
    stored = [v for v in catalog.versions(parsed.act) if (v.version, v.language) == (parsed.version, parsed.language)]
    if stored and stored[0].sha256 != sha:
        ids = {r.unit.unit for r in catalog.records(parsed.act, parsed.language) if r.unit.version == parsed.version}
        lost = check_not_shrinking(parsed, ids, path, replace=overrides.replace)
    result = catalog.store(
        parsed,
        src,
        status=overrides.status,
        valid_from=overrides.valid_from,
        access_tags=overrides.access_tags,
        progress=progress,
    )
    return dataclasses.replace(result, action="replaced", lost=tuple(sorted(lost))) if lost else result


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
