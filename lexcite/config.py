"""Where things live at run time, from the environment (DESIGN: 'Where things live').

`Settings.from_env` is the one place lexcite reads its environment variables; it returns a frozen
value. Each entry point reads it once (the CLI when a command starts, a library object such as
`Catalog` or `Searcher` when it is made without one) and hands that object to what it builds, so
one command never mixes two readings. Nothing is cached between entry points: a test or a user
may change the environment between two calls.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lexcite.errors import ConfigError

__all__ = ["Settings", "settings", "USER_AGENT", "DEFAULT_CLAUDE_MODEL", "DEFAULT_HOME", "DEFAULT_CELLAR_URL"]

USER_AGENT = "lexcite/0.1 (EU legislation Q&A with verifiable citations; +https://github.com/lexcite)"
DEFAULT_HOME = ".lexcite"
DEFAULT_CELLAR_URL = "https://publications.europa.eu"
# A current Sonnet-class model; override with LEXCITE_CLAUDE_MODEL.
DEFAULT_CLAUDE_MODEL = "claude-sonnet-5-5"
# The shared real-document corpus beside the checkout (tests, demo); LEXCITE_CORPUS overrides it.
_BESIDE_CHECKOUT = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "raw"


@dataclass(frozen=True)
class Settings:
    """Everything lexcite takes from its environment, read once by `from_env`."""

    home: Path  # LEXCITE_HOME: raw cache, catalog, index, traces; created by the first write
    cellar_url: str  # LEXCITE_CELLAR_URL: Publications Office REST (a mirror, the replay server)
    sparql_url: str  # LEXCITE_SPARQL_URL, default the Cellar's SPARQL endpoint
    chroma_url: str | None  # LEXCITE_CHROMA_URL: a Chroma server instead of the embedded store
    corpus: Path  # LEXCITE_CORPUS: a folder of real EUR-Lex files
    anthropic_api_key: str | None  # ANTHROPIC_API_KEY: its presence turns the Claude generator on
    claude_model: str  # LEXCITE_CLAUDE_MODEL
    cellar_origins: tuple[str, ...] = ()  # LEXCITE_CELLAR_ORIGINS: other origins a Cellar redirect may reach
    refresh_deadline: str = "900"  # LEXCITE_REFRESH_DEADLINE, seconds; checked where it is used

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        cellar = env.get("LEXCITE_CELLAR_URL", DEFAULT_CELLAR_URL).rstrip("/")
        return cls(
            home=Path(env.get("LEXCITE_HOME", DEFAULT_HOME)),
            cellar_url=cellar,
            sparql_url=env.get("LEXCITE_SPARQL_URL", f"{cellar}/webapi/rdf/sparql"),
            chroma_url=env.get("LEXCITE_CHROMA_URL") or None,
            corpus=Path(env.get("LEXCITE_CORPUS", _BESIDE_CHECKOUT)),
            anthropic_api_key=env.get("ANTHROPIC_API_KEY") or None,
            claude_model=env.get("LEXCITE_CLAUDE_MODEL") or DEFAULT_CLAUDE_MODEL,
            cellar_origins=tuple(o.strip() for o in env.get("LEXCITE_CELLAR_ORIGINS", "").split(",") if o.strip()),
            refresh_deadline=env.get("LEXCITE_REFRESH_DEADLINE", "900"),
        )

    def refresh_deadline_s(self) -> float:
        """LEXCITE_REFRESH_DEADLINE: seconds one `lexcite refresh` may spend on the network (default 900).

        Raises:
            ConfigError: not a positive number (checked where it is used, so other commands still run).
        """
        try:
            seconds = float(self.refresh_deadline)
        except ValueError:
            seconds = -1.0
        if seconds <= 0:
            raise ConfigError(f"LEXCITE_REFRESH_DEADLINE={self.refresh_deadline!r} is not a positive number of "
                              "seconds")
        return seconds

    def corpus_dir(self) -> Path | None:
        """The real-document corpus, when that folder exists."""
        return self.corpus if self.corpus.is_dir() else None


def settings(given: Settings | None = None) -> Settings:
    """`given` when a caller already holds the settings, else the environment read now, once."""
    return given if given is not None else Settings.from_env()
