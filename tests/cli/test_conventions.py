"""Command-line conventions: usage errors, help, --version, completion, exit codes, option spellings."""

from __future__ import annotations

import pytest

from lexcite.cli._app import EXIT_REFUSED, EXIT_USAGE, command


def test_bare_lexcite_prints_the_help_and_exits_0(cli):
    r = cli()
    assert r.code == 0
    assert "Usage: lexcite" in r.out and "ask" in r.out and "Traceback" not in r.out + r.err


@pytest.mark.parametrize("args, says", [
    (["asks", "What is an AI system?"], "No such command 'asks'. Did you mean 'ask'?"),
    (["ingest"], "Missing argument"),
    (["search", "What is an AI system?", "--k", "abc"], "'--k'"),
    (["ask", "--bogus", "What is an AI system?"], "No such option: --bogus"),
    (["show"], "Missing argument"),
    (["trace", "show"], "Missing argument"),
])
def test_a_usage_mistake_is_one_line_on_stderr_and_exit_2(cli, args, says):
    r = cli(*args)
    assert r.code == EXIT_USAGE == 2
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0]
    assert "usage: lexcite" in lines[0] and "--help" in lines[0]
    assert r.out == "" and "Traceback" not in r.err


@pytest.mark.parametrize("args, says", [
    (["ask", ""], "the question is empty"),
    (["ask", "   "], "the question is empty"),
    (["show", ""], "the reference is empty"),
    (["ask", "What is an AI system?", "--as-of", "2026-13-45"], "--as-of: as_of must be an ISO date YYYY-MM-DD"),
    # Python reads "20260101" as a date too, but it sorts after every "2026-..." date the catalog compares it with
    (["search", "What is an AI system?", "--as-of", "20260101"], "got '20260101'"),
    (["ask", "What is an AI system?", "--format", "pdf"], "--format 'pdf': choose from"),
    (["search", "What is an AI system?", "--language", "xx"], "--language 'xx': give an official EU language"),
    (["eval", "--split", "train"], "--split 'train': choose dev or test"),
    (["index", "--embedder", "bert"], "--embedder: unknown embedder 'bert'; choose from minilm"),
    (["index", "--reranker", "cross"], "--reranker: reranker 'cross' is not one of"),
    (["index", "--reranker", "embedder:bert"], "--reranker: unknown embedder 'bert'"),
    (["index", "--second", "e5"], "--second: 'e5' is not one of: mpnet, none"),
])
def test_a_value_that_cannot_be_used_is_a_usage_mistake_exit_2(cli, args, says, tmp_path, monkeypatch):
    monkeypatch.setenv("LEXCITE_HOME", str(tmp_path / "home"))
    r = cli(*args)
    assert r.code == EXIT_USAGE == 2, r.err
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0]
    assert f"see lexcite {args[0]} --help" in lines[0] and "Traceback" not in r.err
    assert not (tmp_path / "home" / "catalog.sqlite").exists()  # refused before anything was opened or made


def test_version(cli):
    from lexcite import __version__

    r = cli("--version")
    assert (r.code, r.out.strip()) == (0, f"lexcite {__version__}")


def test_shell_completion_is_offered(cli):
    r = cli("--help")
    assert "--install-completion" in r.out and "--show-completion" in r.out


def test_help_shows_flags_as_flags_and_names_the_exit_codes(cli):
    r = cli("ask", "--help")
    assert r.code == 0
    assert "<bool>" not in r.out and "--guidance" not in r.out  # one flag, not a --x/--y pair with a default
    assert "--json " in r.out and "--binding-only " in r.out
    top = cli("--help").out
    assert "Exit codes: 0 answered" in top and "1 error" in top and "2 usage error" in top
    assert f"{EXIT_REFUSED} refused" in top


def _option(cmd, name: str):
    return next(p for p in cmd.params if p.name == name)


@pytest.mark.parametrize("path", [("ask",), ("search",), ("eval",)])
def test_k_is_spelled_the_same_in_every_command(path):
    cmd = command()
    for part in path:
        cmd = cmd.commands[part]
    assert sorted(_option(cmd, "k").opts) == ["--k", "-k"]


def test_every_json_option_is_spelled_json():
    def walk(cmd):
        for p in getattr(cmd, "params", ()):
            if p.name == "as_json":
                yield p
        for sub in getattr(cmd, "commands", {}).values():
            yield from walk(sub)

    options = list(walk(command()))
    assert len(options) >= 10 and all(p.opts == ["--json"] for p in options)


def test_the_generators_named_in_help_are_the_ones_that_exist():
    from lexcite.answer.ask import GENERATORS

    help_text = _option(command().commands["ask"], "generator").help
    assert help_text.startswith(", ".join(GENERATORS[:-1]) + f" or {GENERATORS[-1]};")


def test_an_error_is_one_human_line_without_a_class_name(cli, tmp_path):
    page = tmp_path / "blog.html"
    page.write_text("<html><body><p class='post'>Hello</p></body></html>")
    r = cli("ingest", str(page))
    assert r.code == 1
    assert "no known EUR-Lex markup" in r.err and "blog.html" in r.err
    assert "FormatNotRecognised" not in r.err and "Error:" not in r.err and "Traceback" not in r.err


def test_index_on_an_empty_catalog_says_there_is_nothing_to_index(cli):
    r = cli("index", "--embedder", "minilm", "--reranker", "embedder:minilm")
    assert r.code == 1
    assert r.err.strip() == ("error: the catalog is empty: nothing to index; store acts first "
                             "(lexcite ingest FILE... or lexcite refresh)")


def test_progress_when_piped_is_a_plain_line_every_interval(capsys, monkeypatch):
    import time

    from lexcite.cli._app import progress

    clock = iter([0.0, 1.0, 2.5, 2.6, 5.1])
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    with progress(every=2.0) as bar:  # stderr is captured, so not a terminal: plain lines
        for i in range(1, 5):
            bar.update("embedding (minilm)", i * 10, 40)
    assert capsys.readouterr().err.splitlines() == ["embedding (minilm) 20/40", "embedding (minilm) 40/40"]
