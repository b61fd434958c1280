"""`lexcite ingest`, `acts`, `show` as a user runs them: real files, a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration


def lexcite(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lexcite", *args], capture_output=True, text=True, env=os.environ.copy(), timeout=300
    )


@pytest.fixture
def ai_act(corpus):
    return corpus / "32024R1689.oj.xhtml"


class TestIngest:
    def test_ingest_json_prints_one_object_per_document_with_counts(self, ai_act, corpus):
        r = lexcite("ingest", str(ai_act), str(corpus / "32024R2977.oj.html"), "--json")
        assert r.returncode == 0, r.stderr
        docs = [d for line in r.stdout.splitlines() if (d := json.loads(line))["action"] in ("new", "unchanged")]
        assert [(d["act"], d["version"], d["format"], d["language"]) for d in docs] == [
            ("32024R1689", "2024-07-12", "oj", "en"),
            ("32024R2977", "2024-12-04", "oj", "en"),
        ]
        assert docs[0]["units"]["recital"] == 180
        assert docs[0]["units"]["article"] == 113
        assert docs[0]["units"]["annex"] == 13

    def test_reingesting_the_same_file_reports_unchanged(self, ai_act):
        lexcite("ingest", str(ai_act))
        r = lexcite("ingest", str(ai_act), "--json")
        assert json.loads(r.stdout.splitlines()[0])["action"] == "unchanged"

    def test_command_line_flags_override_what_the_document_says(self, corpus):
        r = lexcite("ingest", str(corpus / "32024R2977.oj.html"), "--version", "2025-01-01", "--guidance", "--json")
        assert json.loads(r.stdout)["version"] == "2025-01-01"
        shown = json.loads(lexcite("show", "32024R2977#art_1", "--json").stdout)
        assert shown["binding"] is False


class TestBadInput:
    def test_unknown_markup_stops_with_one_clear_line_and_keeps_the_catalog(self, ai_act, tmp_path):
        lexcite("ingest", str(ai_act))
        before = lexcite("acts", "--json").stdout
        page = tmp_path / "blog.html"
        page.write_text("<html><body><p class='post'>Hello</p><p class='post'>AI Act news</p></body></html>")
        r = lexcite("ingest", str(page))
        assert r.returncode == 1
        assert "no known EUR-Lex markup" in r.stderr and "blog.html" in r.stderr and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) <= 3  # one logical line, wrapped at most by the terminal
        assert lexcite("acts", "--json").stdout == before

    @pytest.mark.parametrize(
        "name, content, message",
        [
            ("empty.xhtml", b"", "file is empty"),
            ("latin1.html", "<html><body><p class='oj-ti-art'>Artikel 1 \u00e9</p></body></html>".encode("utf-16"),
             "wrong encoding"),
            ("notes.txt", b"just some words", "no markup"),
        ],
    )
    def test_bad_files_give_a_clear_error_naming_the_file(self, tmp_path, name, content, message):
        path = tmp_path / name
        path.write_bytes(content)
        r = lexcite("ingest", str(path))
        assert r.returncode == 1
        assert name in r.stderr and message in r.stderr and "Traceback" not in r.stderr

    def test_truncated_xhtml_is_refused_not_stored_short(self, ai_act, tmp_path):
        cut = tmp_path / "cut.xhtml"
        cut.write_bytes(ai_act.read_bytes()[: 700_000])
        r = lexcite("ingest", str(cut))
        assert r.returncode == 1, r.stdout
        assert "cut.xhtml" in r.stderr
        assert json.loads(lexcite("acts", "--json").stdout) == []

    def test_debug_shows_the_traceback(self, tmp_path):
        path = tmp_path / "empty.xhtml"
        path.write_bytes(b"")
        r = lexcite("--debug", "ingest", str(path))
        assert r.returncode != 0 and "Traceback" in r.stderr


class TestShow:
    def test_show_prints_title_text_version_status_and_link(self, ai_act):
        lexcite("ingest", str(ai_act))
        r = lexcite("show", "32024R1689#art_51.par_2")
        assert r.returncode == 0, r.stderr
        assert "10^25" in r.stdout
        assert "2024-07-12" in r.stdout and "current" in r.stdout
        assert "eur-lex.europa.eu" in r.stdout

    def test_show_an_unknown_reference_is_one_clear_error(self, ai_act):
        lexcite("ingest", str(ai_act))
        r = lexcite("show", "32024R1689#art_999")
        assert r.returncode == 1 and "32024R1689 (current version) has no art_999; nearest: art_99" in r.stderr

    def test_acts_lists_versions_with_status_and_unit_counts(self, ai_act):
        lexcite("ingest", str(ai_act))
        rows = json.loads(lexcite("acts", "--json").stdout)
        assert rows[0]["act"] == "32024R1689" and rows[0]["status"] == "current"
        assert rows[0]["units"]["article"] == 113
