"""Measure the offline extractive generator on the golden set, with and without question-type cues.

Usage (needs an index in LEXCITE_HOME: `lexcite ingest ...` then `lexcite index`)::

    HF_HUB_OFFLINE=1 .venv/bin/python bench/answer_extractive.py [--golden data/golden/golden.jsonl] [--split dev]

Each question is searched once; the same SearchResult is then answered by `answer.ask`
(verification, numeric channel and conflicts included) with each generator variant:

- `cues`: the shipped generator (lexical score + answer-type cues + rank prior);
- `lexical`: word overlap and rank prior only (ExtractiveGenerator(use_cues=False));
- with --grid, `floor_T_C`: the shipped scoring, refusing unless the best sentence shares T content
  terms and C of their weight with the question.

Reported per variant, over answerable questions (behavior answer/conflict) unless said:
key facts (mean share of key_facts in the answer text), cites expected (an expected unit is
cited, by the branch rule, or a cited unit contains an anchor), answered (not refused),
refused on abstain questions.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lexcite.answer.ask import ask
from lexcite.answer.generate_extractive import ExtractiveGenerator
from lexcite.eval.golden import load_golden
from lexcite.index.search import Searcher


class Cached:
    def __init__(self, searcher: Searcher):
        self.s, self.catalog, self.memo = searcher, searcher.catalog, {}

    def search(self, query, perimeter, k=6):
        key = (query, perimeter, k)
        if key not in self.memo:
            self.memo[key] = self.s.search(query, perimeter, k)
        return self.memo[key]


def norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--golden", type=Path, default=Path("data/golden/golden.jsonl"))
    ap.add_argument("--split", default=None)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--grid", action="store_true", help="Also try relevance floors (min_terms, min_coverage).")
    args = ap.parse_args()
    questions = [q for q in load_golden(args.golden) if args.split in (None, q.split)]
    variants = {"cues": ExtractiveGenerator(), "lexical": ExtractiveGenerator(use_cues=False)}
    if args.grid:
        for terms in (1, 2):
            for cov in (0.1, 0.15, 0.25, 0.3):
                variants[f"floor_{terms}_{cov}"] = ExtractiveGenerator(min_terms=terms, min_coverage=cov)
    stats = {v: {"kf": [], "cite": [], "answered": [], "abstain_ok": []} for v in variants}
    rows = []
    with Searcher() as s:
        cached = Cached(s)
        for q in questions:
            row = {"id": q.id, "category": q.category, "behavior": q.behavior}
            for name, gen in variants.items():
                a = ask(q.question, q.perimeter, k=6, generator=gen, searcher=cached, trace=False)
                st = stats[name]
                if q.behavior == "abstain":
                    st["abstain_ok"].append(a.refused)
                    row[name] = {"refused": a.refused}
                    continue
                st["answered"].append(not a.refused)
                text = "" if a.refused else norm(a.text)
                kf = (sum(norm(f) in text for f in q.key_facts) / len(q.key_facts)) if q.key_facts else None
                if kf is not None:
                    st["kf"].append(kf)
                texts = {e.ref: norm(e.text) for e in a.evidence}
                cite = any(r.on_branch(e) for r in a.cited() for e in q.expected) or any(
                    norm(anchor) in texts.get(r, "") for r in a.cited() for anchor in q.anchors)
                st["cite"].append(cite)
                row[name] = {"refused": a.refused, "key_facts": kf, "cites_expected": cite,
                             "flags": list(a.flags), "reason": a.refusal_reason[:160]}
            rows.append(row)
    mean = lambda xs: round(sum(xs) / len(xs), 3) if xs else None  # noqa: E731
    summary = {name: {"questions": len(questions), "key_facts": mean(st["kf"]), "cites_expected": mean(st["cite"]),
                      "answered": mean(st["answered"]), "refused_on_abstain": mean(st["abstain_ok"])}
               for name, st in stats.items()}
    if args.json:
        json.dump({"summary": summary, "rows": rows}, sys.stdout, indent=1)
    else:
        for name, d in summary.items():
            print(name, json.dumps(d))


if __name__ == "__main__":
    main()
