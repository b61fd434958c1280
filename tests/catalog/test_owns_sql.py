"""The catalog package owns the catalog's SQL: no other module of lexcite talks SQLite, traces aside."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

PACKAGE = Path(__file__).resolve().parents[2] / "lexcite"
# the catalog, the traces database (its own file and schema), and the one helper both open SQLite with
OWNERS = ("catalog/", "answer/trace.py", "_sqlite.py")
SQL = re.compile(r"\bimport sqlite3\b|\.execute(?:many)?\(|\bSELECT\b .* \bFROM\b|\bINSERT INTO\b|\bUPDATE \w+ SET\b")


def test_no_module_outside_the_catalog_runs_sql():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(OWNERS):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if SQL.search(line):
                offenders.append(f"lexcite/{rel}:{n}: {line.strip()}")
    assert offenders == []


def test_the_check_sees_raw_sql():
    assert SQL.search('rows = catalog.conn.execute("SELECT doc_kind FROM acts WHERE celex=?", (a,))')
    assert not SQL.search("records = catalog.records(act)")
