"""The fault suite uses the answer stage's fixtures (a catalog of small acts, the fake Messages API)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_ANSWER_CONFTEST = Path(__file__).resolve().parent.parent / "answer" / "conftest.py"


def _answer_fixtures():
    name = "answer_conftest"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, _ANSWER_CONFTEST)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


_answer = _answer_fixtures()
answer_catalog = _answer.catalog
fake_api = _answer.fake_api
claude_env = _answer.claude_env
