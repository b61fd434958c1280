"""The `lexcite` command. Each stage registers its commands on the one app."""

from lexcite.cli import (
    amend,  # noqa: F401  (registers commands)
    answer,  # noqa: F401  (registers commands)
    index,  # noqa: F401  (registers commands)
    ingest,  # noqa: F401  (registers commands)
)
from lexcite.cli import eval as _eval  # noqa: F401  (registers commands)
from lexcite.cli._app import app, main

__all__ = ["app", "main"]
