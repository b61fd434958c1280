"""The typer app, consoles and the one place errors are turned into an exit code.

Commands are thin shells over library functions: parse options, call one
function, render. Exit codes (documented in `lexcite --help` and the README):

    0  answered / done        2  usage error (unknown command or option, bad value)
    1  error (one line)       3  refused: the documents in the perimeter do not answer it

A LexciteError becomes one line on stderr and exit 1; any other exception is a
bug and keeps its traceback.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.console import Console

from lexcite import __version__
from lexcite.config import Settings
from lexcite.errors import LexciteError, UsageError

__all__ = ["app", "out", "err", "progress", "settings", "main", "EXIT_OK", "EXIT_ERROR", "EXIT_USAGE",
           "EXIT_REFUSED"]

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_REFUSED = 0, 1, 2, 3

# typer ships its own copy of click (typer._click); the exceptions it raises are that copy's, not the
# installed click's. BadParameter is typer's public re-export, so its module is the click typer really uses.
_click = sys.modules[typer.BadParameter.__module__]

EPILOG = ("Exit codes: 0 answered or done, 1 error, 2 usage error, 3 refused (the documents in the perimeter "
          "do not answer). Citations: 32024R1689#art_6.par_2, 'Art. 6(2) AI Act', 'Annex III point 4(a)'. "
          "Data lives in $LEXCITE_HOME (default ./.lexcite).")

app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, epilog=EPILOG,
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="Answers about EU law with checkable evidence.")


def _silence_stdout() -> None:
    """Point stdout at /dev/null: the reader of a pipe has gone, and Python's own flush at exit would fail again."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


# Piped output is never wrapped: a reference or a link stays whole on its line.
out = Console(soft_wrap=not sys.stdout.isatty(), width=None if sys.stdout.isatty() else 100_000, highlight=False)
err = Console(stderr=True, soft_wrap=True, highlight=False)
_state: dict[str, Any] = {"debug": False, "settings": None}


def _version(value: bool) -> None:
    if value:
        print(f"lexcite {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks for errors.")] = False,
    version: Annotated[bool, typer.Option("--version", "-V", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    _state["debug"] = debug
    _state["settings"] = Settings.from_env()  # read once per command, handed to everything it opens


def settings() -> Settings:
    """The settings this command read when it started."""
    if _state["settings"] is None:  # a command run without the app's callback (a test calling it directly)
        _state["settings"] = Settings.from_env()
    return _state["settings"]


class _Ticker:
    """A progress display: a rich bar on a terminal, else a plain line on stderr every `every` seconds."""

    def __init__(self, every: float = 10.0) -> None:
        import time

        self._bar: Any = None
        # the first plain line comes after `every` seconds: a short run prints none
        self._every, self._last, self._what, self._i, self._n = every, time.monotonic(), "", 0, None
        if err.is_terminal:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                 TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                                 console=err, transient=True)
            self._task = self._bar.add_task("", total=None)

    def update(self, what: str | None = None, done: int | None = None, total: int | None = None) -> None:
        self._what = self._what if what is None else what
        self._i = self._i if done is None else done
        self._n = self._n if total is None else total
        if self._bar is not None:
            self._bar.update(self._task, description=self._what, completed=self._i, total=self._n)
            return
        import time

        now = time.monotonic()
        if now - self._last >= self._every:
            self._last = now
            of = f"/{self._n}" if self._n else ""
            print(f"{self._what} {self._i}{of}", file=sys.stderr, flush=True)


@contextmanager
def progress(every: float = 10.0) -> Iterator[_Ticker]:
    """Progress on stderr: a bar on a terminal, a plain periodic line when piped or logged."""
    t = _Ticker(every)
    if t._bar is None:
        yield t
        return
    with t._bar:
        yield t


def _flags_as_flags(cmd: Any) -> None:
    """Help shows `--json`, not `--json <bool>`: a flag takes no value, so it shows none."""
    for p in getattr(cmd, "params", ()):
        if getattr(p, "is_flag", False) and p.metavar is None:
            p.metavar = ""
    for sub in getattr(cmd, "commands", {}).values():
        _flags_as_flags(sub)


def command() -> Any:
    """The click command behind `app`, as `main` runs it (tests and the README check read it)."""
    cmd = typer.main.get_command(app)
    _flags_as_flags(cmd)
    return cmd


def _usage_error(e: Any) -> None:
    ctx = getattr(e, "ctx", None)
    usage = ctx.get_usage().strip().removeprefix("Usage: ") if ctx is not None else "lexcite [OPTIONS] COMMAND"
    see = f"; see {ctx.command_path} --help" if ctx is not None else ""
    print(f"error: {e.format_message()} (usage: {usage}{see})", file=sys.stderr)


def main(args: list[str] | None = None) -> None:
    # Models print "Loading weights: 100%" bars on every call; lexcite's own progress is on stderr.
    # Read by huggingface_hub (and transformers through it) when first imported, so set before that.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    # pydantic (under typer and chromadb) looks for plugins in every installed package's entry points
    # the first time it builds a validator: 15-30 ms of every start (bench/RESULTS.md, "Start-up"), for
    # plugins lexcite never uses. Set to "" to let them load.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    _state["settings"] = None
    try:
        rv = command().main(args=args, prog_name="lexcite", standalone_mode=False)
        sys.stdout.flush()  # here, where a reader gone from the pipe is caught below, not in Python's exit
    except UsageError as e:  # a value typed that cannot be used: a usage mistake, like an unknown option
        if _state["debug"]:
            raise
        words = [a for a in (sys.argv[1:] if args is None else args) if not a.startswith("-")]
        print(f"error: {e} (see lexcite {words[0] + ' ' if words else ''}--help)", file=sys.stderr)
        sys.exit(EXIT_USAGE)
    except LexciteError as e:
        if _state["debug"]:
            raise
        # One plain line, never wrapped, so it can be grepped and logged.
        print(f"error: {e}", file=sys.stderr)
        sys.exit(EXIT_ERROR)
    except sqlite3.DatabaseError as e:  # a store damaged after it was opened (a bad page met mid-query)
        if _state["debug"]:
            raise
        print(f"error: a lexcite database under {settings().home} is damaged ({e}); restore it from a copy, "
              "or move it away and ingest again", file=sys.stderr)
        sys.exit(EXIT_ERROR)
    except _click.NoArgsIsHelpError as e:
        print(e.format_message())  # asking for nothing is asking for help
        sys.exit(EXIT_OK)
    except _click.UsageError as e:
        _usage_error(e)
        sys.exit(EXIT_USAGE)
    except _click.ClickException as e:
        print(f"error: {e.format_message()}", file=sys.stderr)
        sys.exit(e.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        print("aborted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        _silence_stdout()
        sys.exit(EXIT_OK)
    except SystemExit as e:
        # typer and rich exit 1 when the reader of a pipe has gone (`lexcite show ... | head`); it took what it
        # wanted, as with a print, so that is no error
        if isinstance(e.__context__, BrokenPipeError):
            _silence_stdout()
            sys.exit(EXIT_OK)
        raise
    sys.exit(rv if isinstance(rv, int) else EXIT_OK)
