from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from lexcite.config import Settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "raw"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(autouse=True)
def lexcite_home(tmp_path, monkeypatch):
    """Every test gets its own LEXCITE_HOME; nothing leaks between tests."""
    home = tmp_path / "lexcite-home"
    monkeypatch.setenv("LEXCITE_HOME", str(home))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("LEXCITE_CHROMA_URL", raising=False)
    # the CLI reads its settings once per command; a test that calls a CLI helper directly must not see the
    # settings (and the home) of the command an earlier test ran
    from lexcite.cli import _app

    monkeypatch.setitem(_app._state, "settings", None)
    return home


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus/raw is not beside the checkout")
    return CORPUS


# -- the replay Cellar server (tests/replay_server.py) ------------------------------------

_PATH = Path(__file__).resolve().parent / "replay_server.py"


def _load_replay_server():
    """tests/ is not a package (importlib mode), so load the module by path, once."""
    name = "replay_server"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, _PATH)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


replay_server = _load_replay_server()


@pytest.fixture(scope="session")
def _cellar_session():
    with replay_server.ReplayServer(Settings.from_env().corpus_dir()) as server:
        yield server


@pytest.fixture
def cellar(_cellar_session, monkeypatch):
    """The replay Cellar, clean for this test (no scripts, no SPARQL overrides, empty request log)."""
    _cellar_session.reset()
    monkeypatch.setenv("LEXCITE_CELLAR_URL", _cellar_session.url)
    monkeypatch.setenv("LEXCITE_SPARQL_URL", _cellar_session.sparql_url)
    yield _cellar_session
    _cellar_session.reset()


@pytest.fixture
def cellar_url(cellar) -> str:
    return cellar.url
