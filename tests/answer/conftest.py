"""Fixtures for the answer stage: a real catalog with small hand-made acts, searchers, the fake Messages API."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    """tests/ is not a package (importlib mode): load a helper module by path, once."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


fake_anthropic = _load("fake_anthropic", _HERE.parent / "fake_anthropic.py")
helpers = _load("answer_helpers", _HERE / "helpers.py")
real_units = _load("real_units", _HERE / "real_units.py")


@pytest.fixture(scope="session")
def units(corpus, tmp_path_factory):
    """Real AI Act and GDPR units (tests/answer/real_units.py), parsed once per session."""
    return real_units.Units(corpus, tmp_path_factory.mktemp("real-units"))


@pytest.fixture
def catalog(tmp_path: Path):
    with helpers.Catalog(tmp_path / "catalog.sqlite") as c:
        helpers.store(c, helpers.ai_act())
        helpers.store(c, helpers.gdpr())
        yield c


@pytest.fixture
def searcher(catalog):
    return helpers.TermSearcher(catalog)


@pytest.fixture(scope="session")
def fake_api():
    server = fake_anthropic.FakeAnthropic()
    yield server
    server.close()


@pytest.fixture
def claude_env(fake_api, monkeypatch):
    """ANTHROPIC_API_KEY set and the SDK pointed at the fake server (both through the environment)."""
    fake_api.reset()
    monkeypatch.setenv("ANTHROPIC_API_KEY", fake_anthropic.API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    return fake_api
