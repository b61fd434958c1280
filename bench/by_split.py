"""The figures of one `lexcite eval --report DIR` run, per split (dev / test), from DIR/questions.jsonl.

    .venv/bin/python bench/by_split.py DIR [--only PREFIX[,PREFIX...]]

`lexcite eval --json` summarises all questions together; the issues' targets are stated on the test
split and tuning is done on dev, so this prints both from the same run. `--only cx` keeps the questions
whose id starts with the prefix (the twelve-act `cx` questions); `--only el,em,en` those that start with any of
them (batches written blind). Answerable means a non-abstain question with expected units; abstention precision is
over refused answers, recall over abstain questions.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _mean(xs: list[float | None]) -> float | None:
    known = [x for x in xs if x is not None]
    return round(sum(known) / len(known), 3) if known else None


def _p95(xs: list[float]) -> float | None:
    xs = sorted(xs)
    return round(xs[max(0, int(0.95 * len(xs)) - 1)], 1) if xs else None


def figures(rows: list[dict], split: str, only: str = "") -> dict[str, float | int | None]:
    rs = [r for r in rows if r["split"] == split and r["id"].startswith(tuple(only.split(",")))]
    answerable = [r for r in rs if r["behavior"] != "abstain" and r["expected"]]
    full = [r["stages"]["full"] for r in answerable]
    answers = [r["answer"] for r in rs]
    refused = [r for r in rs if r["answer"]["refused"]]
    abstain = [r for r in rs if r["behavior"] == "abstain"]

    def flag(a: dict, key: str) -> float | None:
        return None if a[key] is None else float(a[key])

    return {
        "questions": len(rs), "answerable": len(answerable),
        "hit@6": _mean([x["hit@k"] for x in full]), "mrr": _mean([x["mrr"] for x in full]),
        "ceiling": _mean([r["ceiling"]["default"] if r.get("ceiling") else None for r in answerable]),
        "key_facts": _mean([a["key_facts"] for a in answers]),
        "ref_exact": _mean([flag(a, "ref_exact") for a in answers]),
        "ref_loose": _mean([flag(a, "ref_loose") for a in answers]),
        "abstain_precision": _mean([float(r["behavior"] == "abstain") for r in refused]),
        "abstain_recall": _mean([float(r["answer"]["refused"]) for r in abstain]),
        "conflict_both_shown": _mean([flag(a, "conflict_both_shown") for a in answers]),
        "citation_support": _mean([a["citation_support"] for a in answers]),
        "citation_valid": _mean([a["citation_valid"] for a in answers]),
        "ask_p95_ms": _p95([a["ms"] for a in answers]),
        "search_p95_ms": _p95([r["stages"]["full"]["ms"] for r in rs]),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", type=Path, help="the --report folder of a `lexcite eval` run")
    ap.add_argument("--only", default="", help="only questions whose id starts with this (or with one of these, "
                                               "comma-separated)")
    args = ap.parse_args()
    path = args.report / "questions.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for split in ("dev", "test"):
        print(split, json.dumps(figures(rows, split, args.only)))


if __name__ == "__main__":
    main()
