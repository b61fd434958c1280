"""Settings: read from the environment in one place, into a frozen value."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from lexcite import config
from lexcite.config import Settings

pytestmark = pytest.mark.unit


def test_defaults_when_nothing_is_set():
    s = Settings.from_env({})
    assert s.home == Path(".lexcite") and s.cellar_url == "https://publications.europa.eu"
    assert s.sparql_url == "https://publications.europa.eu/webapi/rdf/sparql"
    assert s.chroma_url is None and s.anthropic_api_key is None and s.claude_model == config.DEFAULT_CLAUDE_MODEL


def test_the_sparql_endpoint_follows_a_cellar_mirror_unless_set_itself():
    mirror = Settings.from_env({"LEXCITE_CELLAR_URL": "http://127.0.0.1:9/"})
    assert (mirror.cellar_url, mirror.sparql_url) == ("http://127.0.0.1:9", "http://127.0.0.1:9/webapi/rdf/sparql")
    own = Settings.from_env({"LEXCITE_CELLAR_URL": "http://a", "LEXCITE_SPARQL_URL": "http://b/sparql"})
    assert own.sparql_url == "http://b/sparql"


def test_an_empty_key_is_no_key():
    assert Settings.from_env({"ANTHROPIC_API_KEY": "", "LEXCITE_CHROMA_URL": ""}).anthropic_api_key is None


def test_settings_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Settings.from_env({}).home = Path("/elsewhere")  # type: ignore[misc]


def test_settings_are_read_when_asked_unless_given(monkeypatch, tmp_path):
    monkeypatch.setenv("LEXCITE_HOME", str(tmp_path))
    assert config.settings().home == tmp_path
    held = Settings.from_env({"LEXCITE_HOME": "/elsewhere"})
    assert config.settings(held) is held


def test_a_refresh_deadline_that_is_no_number_is_named(monkeypatch):
    from lexcite.errors import ConfigError

    assert Settings.from_env({"LEXCITE_REFRESH_DEADLINE": "30"}).refresh_deadline_s() == 30.0
    with pytest.raises(ConfigError, match="LEXCITE_REFRESH_DEADLINE='soon'"):
        Settings.from_env({"LEXCITE_REFRESH_DEADLINE": "soon"}).refresh_deadline_s()


def test_one_command_reads_the_environment_once(monkeypatch, tmp_path):
    """Everything one CLI command opens uses the settings read when it started (issue 10: read once)."""
    from lexcite.cli import _app

    reads = []
    real = Settings.from_env.__func__

    def counting(cls, env=None):
        reads.append(1)
        return real(cls) if env is None else real(cls, env)

    monkeypatch.setenv("LEXCITE_HOME", str(tmp_path))
    monkeypatch.setattr(Settings, "from_env", classmethod(counting))
    with pytest.raises(SystemExit) as e:
        _app.main(["acts"])
    assert e.value.code == 0 and len(reads) == 1
