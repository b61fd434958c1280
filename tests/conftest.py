from __future__ import annotations

import os
from pathlib import Path

import pytest

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
    return home


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus/raw is not beside the checkout")
    return CORPUS
