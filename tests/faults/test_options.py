"""Option values are checked before anything is stored (issue 16, item 10)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from lexcite.catalog import Catalog
from lexcite.errors import ConfigError
from lexcite.ingest.load import Overrides

pytestmark = pytest.mark.integration


def lexcite(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lexcite", *args], capture_output=True, text=True,
                          env=os.environ.copy(), timeout=300)


@pytest.mark.parametrize(("option", "value", "said"), [
    ("--language", "xx", "'xx' is not an ISO 639-1 code"),
    ("--language", "english", "'english' is not an ISO 639-1 code"),
    ("--valid-from", "x", "--valid-from 'x' is not a date"),
    ("--valid-from", "2024-02-30", "--valid-from '2024-02-30' is not a date"),
    ("--version", "12.7.2024", "--version '12.7.2024' is not a date"),
    ("--celex", "AI-ACT", "--celex 'AI-ACT' is not a CELEX number"),
])
def test_a_bad_option_value_is_one_line_and_stores_nothing(corpus, lexcite_home, option, value, said):
    r = lexcite("ingest", str(corpus / "32024R2977.oj.html"), option, value)
    assert r.returncode == 2  # a usage mistake
    assert said in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    with Catalog() as catalog:
        assert catalog.versions() == []


def test_the_checks_hold_for_callers_of_the_library_too():
    with pytest.raises(ConfigError, match="language"):
        Overrides(language="xx")
    Overrides(language="ga", valid_from="2024-08-01", version="2024-07-12", act="32024R1689")
