"""The twelve acts of data/acts.toml: ingest time per stage, units per second, peak memory, and a
refresh with nothing changed, against the replay Cellar (tests/replay_server.py) on loopback.

    .venv/bin/python bench/batch.py [--home DIR]

Stages of the ingest, timed per document: read + parse (`read_document`), store (`Catalog.store`:
units, facts, dates), amendments (`update_amendments`: the Omnibus applied to the AI Act and the
derived version checked against the official consolidation). Then `refresh` twice from an empty
home: the first fetches and stores everything, the second gets a 304 for each document. Indexing
is not measured here (the twelve-act e5 index is not built on the shared 2-core machine).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "raw"

# One manifestation of each act, the one `lexcite refresh` gets from the replay Cellar.
DOCUMENTS = [
    "32024R1689.oj.xhtml", "32026R1744.oj.xhtml", "32016R0679.oj.html", "32022R2065.oj.xhtml",
    "32022R1925.oj.xhtml", "32023R2854.oj.xhtml", "32022R0868.oj.xhtml", "fmx4/32019R0881",
    "fmx4/02014R0910-20241018", "fmx4/32024R1183", "02002L0058-20091219.consolidated.en.html",
    "32024R2981.oj.html", "fmx4/02024R1689-20260727",
]


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_ingest(home: Path) -> None:
    from lexcite.catalog import Catalog, Source
    from lexcite.ingest.apply_amendments import update_amendments
    from lexcite.ingest.load import read_document

    parse_s = store_s = 0.0
    units = 0
    print(f"{'document':44} {'units':>6} {'parse s':>8} {'store s':>8}")
    with Catalog(home / "catalog.sqlite") as catalog:
        results = []
        for name in DOCUMENTS:
            t0 = time.perf_counter()
            parsed, sha = read_document(CORPUS / name)
            t1 = time.perf_counter()
            results.append(catalog.store(parsed, Source(location=str(CORPUS / name), sha256=sha)))
            t2 = time.perf_counter()
            parse_s, store_s, units = parse_s + t1 - t0, store_s + t2 - t1, units + len(parsed.units)
            print(f"{name:44} {len(parsed.units):6} {t1 - t0:8.2f} {t2 - t1:8.2f}")
        t0 = time.perf_counter()
        applied = update_amendments(catalog, results)
        amend_s = time.perf_counter() - t0
    total = parse_s + store_s + amend_s
    print(f"{'total':44} {units:6} {parse_s:8.2f} {store_s:8.2f}")
    print(f"amendments (apply + consolidation check): {amend_s:.2f} s ({len(applied)} results)")
    print(f"ingest: {total:.1f} s for {units} units = {units / total:.0f} units/s "
          f"(parse alone {units / parse_s:.0f} units/s); peak RSS {_peak_mib():.0f} MiB")


def bench_refresh(home: Path) -> None:
    spec = importlib.util.spec_from_file_location("replay_server", ROOT / "tests" / "replay_server.py")
    replay = importlib.util.module_from_spec(spec)
    sys.modules["replay_server"] = replay
    spec.loader.exec_module(replay)
    from lexcite.catalog import Catalog
    from lexcite.ingest.fetch import CellarClient
    from lexcite.ingest.refresh import refresh
    from lexcite.ingest.sparql import SparqlClient

    with replay.ReplayServer(CORPUS) as server:
        server.set_sparql("consolidated", "32024R1689", [{"celex": "02024R1689-20260727", "date": "2026-07-27"}])
        os.environ.update(LEXCITE_CELLAR_URL=server.url, LEXCITE_SPARQL_URL=server.sparql_url)
        for run in ("first refresh (empty home)", "second refresh (nothing changed)"):
            t0 = time.perf_counter()
            with Catalog(home / "catalog.sqlite") as catalog:
                report = refresh(catalog, cellar=CellarClient(throttle_s=0), sparql=SparqlClient(throttle_s=0))
            seconds = time.perf_counter() - t0
            actions: dict[str, int] = {}
            for item in report.items:
                actions[item.action] = actions.get(item.action, 0) + 1
            print(f"{run}: {seconds:.1f} s, {len(report.items)} items {actions}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, help="work folder (default: a new temporary one)")
    args = ap.parse_args()
    if not CORPUS.is_dir():
        sys.exit(f"bench/batch.py: no corpus at {CORPUS}")
    with tempfile.TemporaryDirectory() as tmp:
        base = args.home or Path(tmp)
        os.environ["LEXCITE_HOME"] = str(base / "refresh-home")
        bench_ingest(base / "ingest-home")
        bench_refresh(base / "refresh-home")


if __name__ == "__main__":
    main()
