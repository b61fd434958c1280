"""The `lexcite` command run in process through `lexcite.cli.main`, as the console script runs it."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from lexcite.cli import main


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys):
    """cli('show', 'Art. 6(2) AI Act') -> Run(code, stdout, stderr); the exit code is the one main() exits with."""

    def run(*args: str) -> Run:
        capsys.readouterr()
        with pytest.raises(SystemExit) as e:
            main(list(args))
        cap = capsys.readouterr()
        return Run(e.value.code if isinstance(e.value.code, int) else 1, cap.out, cap.err)

    return run


@pytest.fixture(scope="session")
def toy():
    """The small acts of tests/index/conftest.py (made-up CELEX numbers), stored straight into a catalog."""
    name = "cli_index_toys"
    if name not in sys.modules:  # tests/ is not a package (importlib mode): loaded by path, once
        path = Path(__file__).resolve().parents[1] / "index" / "conftest.py"
        spec = importlib.util.spec_from_file_location(name, path)
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]
