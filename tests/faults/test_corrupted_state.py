"""A damaged catalog is named with its fix, never a traceback (issue 16, item 7)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from lexcite.catalog import Catalog
from lexcite.errors import CatalogError
from lexcite.ingest.load import ingest_paths

pytestmark = pytest.mark.integration


def lexcite(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lexcite", *args], capture_output=True, text=True,
                          env=os.environ.copy(), timeout=300)


def _truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garbage_pages(path):
    data = bytearray(path.read_bytes())
    page = 4096
    for n in range(2, len(data) // page, 3):
        data[n * page:(n + 1) * page] = bytes((n * 7 + i) % 256 for i in range(page))
    path.write_bytes(bytes(data))


def _drop_units(path):
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE units")
    conn.commit()
    conn.close()


def _not_sqlite(path):
    path.write_bytes(b"this is not a database\n" * 200)


@pytest.mark.parametrize("damage", [_truncate, _garbage_pages, _drop_units, _not_sqlite])
def test_a_damaged_catalog_is_one_line_naming_the_fix(corpus, lexcite_home, damage):
    with Catalog() as catalog:
        ingest_paths(catalog, [corpus / "32024R2977.oj.html"])
        catalog.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    damage(lexcite_home / "catalog.sqlite")
    for args in (("acts",), ("show", "32024R2977#art_1"), ("ingest", str(corpus / "32024R2977.oj.html"))):
        r = lexcite(*args)
        assert r.returncode == 1, (args, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr
        assert "damaged" in r.stderr and "restore it from a copy" in r.stderr.lower(), r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_damaged_page_is_found_before_anything_is_written(corpus, lexcite_home):
    """A bad leaf page the next write would not touch: without the check, the write would go on top of it."""
    with Catalog() as catalog:
        ingest_paths(catalog, [corpus / "32024R2977.oj.html"])
        catalog.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        leaf = catalog.conn.execute("SELECT pageno FROM dbstat WHERE name='units' AND pagetype='leaf' "
                                    "ORDER BY pageno LIMIT 1").fetchone()[0]
    path = lexcite_home / "catalog.sqlite"
    data = bytearray(path.read_bytes())
    data[(leaf - 1) * 4096:leaf * 4096] = bytes(range(256)) * 16
    path.write_bytes(bytes(data))
    with Catalog() as catalog:  # opens: the schema and the tables are whole
        with pytest.raises(CatalogError, match=r"the catalog is damaged \(quick_check: .*nothing was changed"):
            ingest_paths(catalog, [corpus / "32024R2981.oj.html"])
        assert [v.act for v in catalog.versions()] == ["32024R2977"]  # nothing was written
