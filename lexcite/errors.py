"""The one exception tree of lexcite.

    LexciteError
     ├── ConfigError          a setting or option that cannot be used
     ├── FetchError           Cellar / SPARQL could not deliver (url, status, attempts)
     ├── FormatNotRecognised  no known EUR-Lex markup (invariant 6)
     ├── ParseError           known markup, but a unit cannot be built (path, where)
     ├── CitationError        a reference that does not parse or resolve
     ├── CatalogError         the SQLite catalog refuses a change
     └── IndexMismatch        the index was built from another catalog state or model

Abstentions and refusals are *not* errors: they are `Answer` values.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "LexciteError",
    "ConfigError",
    "FetchError",
    "FormatNotRecognised",
    "ParseError",
    "CitationError",
    "CatalogError",
    "IndexMismatch",
]


class LexciteError(Exception):
    """Base of every error lexcite raises on purpose."""


class ConfigError(LexciteError):
    pass


class FetchError(LexciteError):
    def __init__(self, url: str, reason: str, status: int | None = None, attempts: int = 1):
        self.url, self.status, self.attempts = url, status, attempts
        where = f"HTTP {status} " if status else ""
        tries = f" after {attempts} tries with backoff" if attempts > 1 else ""
        super().__init__(f"{url}: {where}{reason}{tries}; nothing was stored")


class FormatNotRecognised(LexciteError):
    def __init__(self, path: str | Path, looked_for: list[str], found: str = ""):
        self.path, self.looked_for = str(path), looked_for
        seen = f"; found {found}" if found else ""
        super().__init__(
            f"{path}: no known EUR-Lex markup (looked for {', '.join(looked_for)}){seen}; "
            "nothing was stored"
        )


class ParseError(LexciteError):
    def __init__(self, path: str | Path, where: str, reason: str):
        self.path, self.where = str(path), where
        super().__init__(f"{path}: {reason} (at {where}); nothing was stored")


class CitationError(LexciteError):
    pass


class CatalogError(LexciteError):
    pass


class IndexMismatch(LexciteError):
    pass

