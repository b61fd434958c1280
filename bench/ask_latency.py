"""`ask` latency without an LLM: search and the offline answer, per question of one split, after a warm-up.

    LEXCITE_HOME=HOME HF_HUB_OFFLINE=1 .venv/bin/python bench/ask_latency.py [--split test]

Prints p50 and p95 in milliseconds over the split's questions (all of them, `cx` included), and the
machine's load average before and after, since the figure moves with it.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from lexcite.answer.ask import ask
from lexcite.catalog import Catalog
from lexcite.eval.golden import load_golden
from lexcite.index.search import Searcher


def _pct(xs: list[float], p: float) -> float:
    return round(xs[max(0, int(p * len(xs)) - 1)], 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--golden", type=Path, default=Path("data/golden/golden.jsonl"))
    ap.add_argument("--split", default="test", help="dev, test or all")
    args = ap.parse_args()
    questions = [q for q in load_golden(args.golden) if args.split in ("all", q.split)]
    load_before = os.getloadavg()[0]
    ms: list[float] = []
    with Catalog() as catalog, Searcher(catalog=catalog) as searcher:
        q = questions[0]
        ask(q.question, q.perimeter, k=6, generator="extractive", searcher=searcher, trace=False, catalog=catalog)
        for q in questions:
            t = time.perf_counter()
            ask(q.question, q.perimeter, k=6, generator="extractive", searcher=searcher, trace=False, catalog=catalog)
            ms.append((time.perf_counter() - t) * 1000)
    ms.sort()
    print(json.dumps({"split": args.split, "questions": len(ms), "p50_ms": _pct(ms, 0.5), "p95_ms": _pct(ms, 0.95),
                      "load": [round(load_before, 2), round(os.getloadavg()[0], 2)]}))


if __name__ == "__main__":
    main()
