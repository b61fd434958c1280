"""Real units of the AI Act and the GDPR (the shared corpus, parsed by the real parsers), as evidence.

Loaded by path as `real_units` (tests/ is not a package; see tests/answer/conftest.py)."""

from __future__ import annotations

from pathlib import Path

from lexcite.catalog import Catalog
from lexcite.contract import Evidence
from lexcite.ingest.load import ingest_paths

FILES = ("32024R1689.oj.xhtml", "32016R0679.oj.html")


class Units:
    """Unit texts by (act, unit id), read once from a catalog built from the real files."""

    def __init__(self, corpus: Path, folder: Path):
        with Catalog(folder / "catalog.sqlite") as cat:
            ingest_paths(cat, [corpus / f for f in FILES])
            self.records = {(r.unit.act, r.unit.unit): r for r in cat.records()}

    def evidence(self, *units: str, act: str = "32024R1689") -> tuple[Evidence, ...]:
        """Evidence S1, S2, ... of the named units in this order ('32016R0679#art_37.par_1' names another act)."""
        out = []
        for i, name in enumerate(units, start=1):
            a, _, u = name.rpartition("#")
            r = self.records[(a or act, u)]
            out.append(Evidence(sid=f"S{i}", ref=r.unit.ref, title=r.unit.title, text=r.unit.text, status=r.status,
                                binding=r.unit.binding, source_url=r.unit.source_url, score=1.0 / i))
        return tuple(out)
