"""Tune the answer stage on the golden set without re-running retrieval: search once, answer many times.

Usage (needs an indexed, calibrated LEXCITE_HOME)::

    HF_HUB_OFFLINE=1 .venv/bin/python bench/answer_stage.py --split dev [--cache FILE] [--no-threshold]

Every question is searched once (the SearchResults are pickled in --cache, default
$LEXCITE_HOME/../answer_stage.pkl, and reused on later runs), then answered by `answer.ask` with
the offline extractive generator, so a change to the answer stage is measured in seconds.
`--no-threshold` admits the top k ranked units whatever the calibrated threshold says, to see what
answerability alone decides. Measures are those of `lexcite eval` (`lexcite.eval.answers`), plus the
ceiling (an expected unit in the evidence) and the answer stage's latency with the search cached.
The shipped figures come from `lexcite eval`, not from this script (bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import json
import pickle
import time
from dataclasses import replace
from pathlib import Path

from lexcite import config
from lexcite.answer.ask import ask
from lexcite.catalog import Catalog
from lexcite.eval import answers as am
from lexcite.eval.golden import load_golden
from lexcite.eval.metrics import mean


class Cached:
    """A searcher that searches each (question, perimeter, k) once and keeps the result."""

    def __init__(self, catalog: Catalog, memo: dict, no_threshold: bool):
        self.catalog, self.memo, self.no_threshold, self.real = catalog, memo, no_threshold, None

    def search(self, query, perimeter, k=6):
        key = (query, perimeter, k)
        if key not in self.memo:
            if self.real is None:
                from lexcite.index.search import Searcher

                self.real = Searcher(catalog=self.catalog)
            self.memo[key] = self.real.search(query, perimeter, k)
        r = self.memo[key]
        if self.no_threshold and not r.outside:
            admitted = tuple(r.ranked[:k])
            r = replace(r, admitted=admitted, abstained=not admitted, threshold=None)
        return r


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--golden", type=Path, default=Path("data/golden/golden.jsonl"))
    ap.add_argument("--split", default="dev", help="dev, test or all")
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--no-threshold", action="store_true")
    ap.add_argument("--rows", type=Path, default=None, help="write one JSON row per question here")
    args = ap.parse_args()
    cache = args.cache or config.settings().home.parent / "answer_stage.pkl"
    memo = pickle.loads(cache.read_bytes()) if cache.exists() else {}
    questions = [q for q in load_golden(args.golden) if args.split in ("all", q.split)]
    rows = []
    with Catalog() as cat:
        searcher = Cached(cat, memo, args.no_threshold)
        for q in questions:
            searcher.search(q.question, q.perimeter)  # the search is not timed
            t = time.perf_counter()
            a = ask(q.question, q.perimeter, k=6, generator="extractive", searcher=searcher, trace=False, catalog=cat)
            ms = (time.perf_counter() - t) * 1000
            rows.append({"id": q.id, "behavior": q.behavior, "refused": a.refused, "reason": a.refusal_reason,
                         "key_facts": am.key_fact_share(a, q), "ref_exact": am.ref_exact(a, q),
                         "ref_loose": am.ref_loose(a, q), "conflict": am.conflict_both_shown(a, q),
                         "ceiling": any(e.ref.on_branch(x) for e in a.evidence for x in q.expected)
                         if q.expected else None, "ms": ms, "text": a.text, "cited": [str(r) for r in a.cited()]})
    cache.write_bytes(pickle.dumps(memo))
    refused = [r for r in rows if r["refused"]]
    abstain = [r for r in rows if r["behavior"] == "abstain"]
    ms = sorted(r["ms"] for r in rows)
    summary = {"n": len(rows), **{k: mean(r[k] for r in rows) for k in ("key_facts", "ref_exact", "ref_loose")},
               "abstain_precision": mean(float(r["behavior"] == "abstain") for r in refused),
               "abstain_recall": mean(float(r["refused"]) for r in abstain),
               "conflict_both_shown": mean(None if r["conflict"] is None else float(r["conflict"]) for r in rows),
               "ceiling": mean(None if r["ceiling"] is None else float(r["ceiling"]) for r in rows),
               "answer_stage_p95_ms": round(ms[max(0, int(0.95 * len(ms)) - 1)], 1) if ms else None}
    print(json.dumps(summary))
    if args.rows:
        args.rows.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
