"""Where things live at run time, from the environment (DESIGN: 'Where things live')."""

from __future__ import annotations

import os
from pathlib import Path

from lexcite.errors import ConfigError

__all__ = ["home", "cellar_url", "cellar_origins", "refresh_deadline_s",
           "sparql_url", "chroma_url", "corpus_dir", "anthropic_api_key", "claude_model",
           "USER_AGENT", "DEFAULT_CLAUDE_MODEL"]

USER_AGENT = "lexcite/0.1 (EU legislation Q&A with verifiable citations; +https://github.com/lexcite)"
_DEFAULT_CELLAR = "https://publications.europa.eu"
# A current Sonnet-class model; override with LEXCITE_CLAUDE_MODEL.
DEFAULT_CLAUDE_MODEL = "claude-sonnet-5-5"


def home() -> Path:
    """LEXCITE_HOME (default .lexcite); created by the first write, so reading a mistyped one adds nothing."""
    return Path(os.environ.get("LEXCITE_HOME", ".lexcite"))


def cellar_url() -> str:
    return os.environ.get("LEXCITE_CELLAR_URL", _DEFAULT_CELLAR).rstrip("/")


def sparql_url() -> str:
    return os.environ.get("LEXCITE_SPARQL_URL", f"{cellar_url()}/webapi/rdf/sparql")


def cellar_origins() -> list[str]:
    """LEXCITE_CELLAR_ORIGINS: comma-separated origins (https://mirror.example) a Cellar redirect may lead to."""
    return [o.strip() for o in os.environ.get("LEXCITE_CELLAR_ORIGINS", "").split(",") if o.strip()]


def refresh_deadline_s() -> float:
    """LEXCITE_REFRESH_DEADLINE: seconds one `lexcite refresh` may spend on the network (default 900)."""
    value = os.environ.get("LEXCITE_REFRESH_DEADLINE", "900")
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if seconds <= 0:
        raise ConfigError(f"LEXCITE_REFRESH_DEADLINE={value!r} is not a positive number of seconds")
    return seconds


def chroma_url() -> str | None:
    return os.environ.get("LEXCITE_CHROMA_URL") or None


def corpus_dir() -> Path | None:
    """The shared real-document corpus beside the checkout, when present (tests, demo)."""
    here = Path(__file__).resolve().parent.parent
    path = Path(os.environ.get("LEXCITE_CORPUS", here.parent / "shared" / "corpus" / "raw"))
    return path if path.is_dir() else None


def anthropic_api_key() -> str | None:
    """ANTHROPIC_API_KEY; its presence turns the Claude generator on (DESIGN: 'Where things live')."""
    return os.environ.get("ANTHROPIC_API_KEY") or None


def claude_model() -> str:
    return os.environ.get("LEXCITE_CLAUDE_MODEL") or DEFAULT_CLAUDE_MODEL
