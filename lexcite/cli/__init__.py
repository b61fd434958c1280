"""The `lexcite` command. Each stage registers its commands on the one app."""

from lexcite.cli import eval as _eval  # noqa: F401  (registers commands)
from lexcite.cli import ingest  # noqa: F401  (registers commands)
from lexcite.cli import index  # noqa: F401  (registers commands)
from lexcite.cli._app import app, main

__all__ = ["app", "main"]
