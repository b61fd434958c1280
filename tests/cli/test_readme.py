"""The README's command list is the CLI: the same commands, and each with the options it really has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lexcite.cli._app import command

README = Path(__file__).resolve().parents[2] / "README.md"
_HELP_ONLY = {"-h", "--help"}


def _leaves(cmd, prefix=()):
    for name, sub in cmd.commands.items():
        if hasattr(sub, "commands"):
            yield from _leaves(sub, (*prefix, name))
        else:
            yield " ".join((*prefix, name)), sub


def _readme_lines() -> dict[str, str]:
    block = README.read_text().split("## Commands", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines: dict[str, str] = {}
    for line in block.strip().splitlines():
        words = line.split("#", 1)[0].split()
        assert words[0] == "lexcite", line
        name = " ".join(w for w in words[1:3] if re.fullmatch(r"[a-z][a-z-]*", w))
        name = name if name in CLI or not name else name.split()[0]
        lines[name] = line.split("#", 1)[0]
    return lines


CLI = dict(_leaves(command()))


def test_the_readme_lists_every_command_and_no_other():
    assert set(_readme_lines()) - {""} == set(CLI)


@pytest.mark.parametrize("name", sorted(CLI))
def test_each_readme_line_names_exactly_the_options_of_its_command(name):
    written = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", _readme_lines()[name]))
    opts = {o for p in CLI[name].params for o in p.opts if o.startswith("-")} - _HELP_ONLY
    # a short alias (-k for --k, -n for --limit) may stand for its long form, and vice versa
    aliases = {o for p in CLI[name].params for o in p.opts if len(p.opts) > 1 and o.startswith("-")}
    assert written - _HELP_ONLY <= opts, f"README names options {name} does not have"
    missing = {o for o in opts - written if not (o in aliases and any(a in written for p in CLI[name].params
                                                                       if o in p.opts for a in p.opts))}
    assert not missing, f"README leaves out {sorted(missing)} of `lexcite {name}`"


def test_the_global_options_are_in_the_readme():
    top = _readme_lines()[""]
    for opt in ("--version", "--help", "--install-completion", "--show-completion"):
        assert opt in top


def test_every_command_with_json_output_is_in_the_readme_json_table():
    table = README.read_text().split("JSON output (`--json`), per command:", 1)[1].split("\n\n", 2)[1]
    documented = set(re.findall(r"^\| `([a-z -]+)` \|", table, re.M))
    with_json = {name for name, cmd in CLI.items() if any("--json" in p.opts for p in cmd.params)}
    assert documented == with_json
