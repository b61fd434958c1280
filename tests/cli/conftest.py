"""The `lexcite` command run in process through `lexcite.cli.main`, as the console script runs it."""

from __future__ import annotations

from dataclasses import dataclass

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
