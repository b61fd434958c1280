"""The typer app, consoles and the one place errors are turned into an exit code.

Commands are thin shells over library functions: parse options, call one
function, render. A LexciteError becomes one line on stderr and exit 1; any
other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import sqlite3
import sys
from typing import Annotated

import click
import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn

from lexcite import config
from lexcite.errors import LexciteError

__all__ = ["app", "out", "err", "progress", "main"]

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Answers about EU law with checkable evidence.")
# Piped output is not wrapped at 80 columns: tables and long references stay whole.
out = Console(width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True)
_state = {"debug": False}


@app.callback()
def _root(debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks for errors.")] = False) -> None:
    _state["debug"] = debug


def progress() -> Progress:
    """A progress bar on stderr, silent when stderr is not a terminal."""
    return Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                    console=err, transient=True, disable=not err.is_terminal)


def main() -> None:
    try:
        app(standalone_mode=False)
    except LexciteError as e:
        if _state["debug"]:
            raise
        # One plain line, never wrapped, so it can be grepped and logged.
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
    except sqlite3.DatabaseError as e:  # a store damaged after it was opened (a bad page met mid-query)
        if _state["debug"]:
            raise
        print(f"error: a lexcite database under {config.home()} is damaged ({e}); restore it from a copy, "
              "or move it away and ingest again", file=sys.stderr)
        sys.exit(1)
    except click.exceptions.Abort:
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
