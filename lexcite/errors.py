"""The one exception tree of lexcite.

    LexciteError
     ├── ConfigError          a setting or option that cannot be used
     │    └── UsageError      a value typed on the command line that cannot be used (exit 2)
     ├── FetchError           Cellar / SPARQL could not deliver (url, status, attempts)
     ├── FormatNotRecognised  no known EUR-Lex markup (invariant 6)
     ├── ParseError           known markup, but a unit cannot be built (path, where)
     ├── CitationError        a reference that does not parse or resolve
     │    └── UnreadableReference  one that names no provision, or no act the catalog holds
     ├── CatalogError         the SQLite catalog refuses a change
     └── IndexMismatch        the index was built from another catalog state or model

Abstentions and refusals are *not* errors: they are `Answer` values.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "LexciteError",
    "ConfigError",
    "UsageError",
    "FetchError",
    "FormatNotRecognised",
    "ParseError",
    "CitationError",
    "UnreadableReference",
    "CatalogError",
    "IndexMismatch",
]


class LexciteError(Exception):
    """Base of every error lexcite raises on purpose."""


class ConfigError(LexciteError):
    """A setting, option or argument that cannot be used; the message names it and what to do."""


class UsageError(ConfigError):
    """A value given on the command line that cannot be used (a date that is no date, an empty question, a choice
    not offered): a usage mistake, so `lexcite` exits 2, as for an unknown option."""


class FetchError(LexciteError):
    """Cellar or SPARQL could not deliver: the URL, the HTTP status and how many tries were made."""

    def __init__(self, url: str, reason: str, status: int | None = None, attempts: int = 1):
        self.url, self.status, self.attempts = url, status, attempts
        where = f"HTTP {status} " if status else ""
        tries = f" after {attempts} tries with backoff" if attempts > 1 else ""
        super().__init__(f"{url}: {where}{reason}{tries}; nothing was stored")


class FormatNotRecognised(LexciteError):
    """No known EUR-Lex markup in a document (invariant 6): the path and the markers looked for."""

    def __init__(self, path: str | Path, looked_for: list[str], found: str = ""):
        self.path, self.looked_for = str(path), looked_for
        seen = f"; found {found}" if found else ""
        super().__init__(
            f"{path}: no known EUR-Lex markup (looked for {', '.join(looked_for)}){seen}; "
            "nothing was stored"
        )


class ParseError(LexciteError):
    """Known markup, but a unit cannot be built from it: the path and where (unit id or XPath)."""

    def __init__(self, path: str | Path, where: str, reason: str):
        self.path, self.where = str(path), where
        super().__init__(f"{path}: {reason} (at {where}); nothing was stored")


class CitationError(LexciteError):
    """A citation reference that does not parse, or names no stored unit."""


class UnreadableReference(CitationError):
    """A reference that names no provision (no reference in it, or several) or no act the catalog holds: a value
    that cannot be used, where a reference that names a unit the act lacks is a lookup that found nothing."""


class CatalogError(LexciteError):
    """The SQLite catalog refuses a change, or was made by a newer lexcite."""


class IndexMismatch(LexciteError):
    """The index was built from another catalog state or with other parameters: both values."""

