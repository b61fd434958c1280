"""Ranking figures on one split with some stages or parameters changed: how the stage defaults were chosen.

    LEXCITE_HOME=HOME HF_HUB_OFFLINE=1 .venv/bin/python bench/ranking_sweep.py --split dev \
        [--stages '{"expansion": false}'] [--params '{"act_bonus": 0.05}'] [--bm25-stems replace|add] \
        [--budget TOKENS] [--cache FILE]

Prints paragraph hit@6 and MRR over the split's answerable questions (the `cx` questions, which need the
twelve-act catalog, are left out unless --with-cx). The abstention threshold is the one the home calibrated for
its default configuration, so a changed parameter does not need a recalibration first. --cache writes the
searches for `bench/answer_stage.py --cache FILE`, so the answer stage can be measured on the same ranking.
--bm25-stems tokenises BM25 with Snowball stems (replacing the tokens, or added beside them) in memory.
"""

from __future__ import annotations

import argparse
import json
import pickle
from dataclasses import replace
from pathlib import Path

from lexcite.catalog import Catalog
from lexcite.eval import metrics as m
from lexcite.eval.golden import load_golden
from lexcite.index.search import Searcher
from lexcite.index.stages import Stages, stages_key


def _stem_bm25(mode: str) -> None:
    import lexcite.index.bm25 as bm25
    from lexcite.question import stem

    plain = bm25.tokenize

    def tokenize(text: str) -> list[str]:
        out = plain(text)
        if mode == "replace":
            return [stem(t) if t.isalpha() else t for t in out]
        return out + [stem(t) for t in out if t.isalpha() and stem(t) != t]

    bm25.tokenize = tokenize
    bm25.TOKENIZER = f"legal-v1+stems-{mode}"  # not the saved index's: it is rebuilt in memory


def _tokens(text: str) -> int:
    """An evidence budget as given on the command line: a whole number of tokens, at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"the evidence budget is a whole number of tokens, at least 1: got {text!r}")
    return int(text)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--golden", type=Path, default=Path("data/golden/golden.jsonl"))
    ap.add_argument("--split", default="dev", help="dev, test or all")
    ap.add_argument("--stages", default="{}", help="JSON: Stages fields to change")
    ap.add_argument("--params", default="{}", help="JSON: Params fields to change")
    ap.add_argument("--bm25-stems", choices=("replace", "add"), default=None)
    ap.add_argument("--with-cx", action="store_true")
    ap.add_argument("--budget", type=_tokens, default=None, help="evidence tokens (default: the Searcher's)")
    ap.add_argument("--cache", type=Path, default=None)
    args = ap.parse_args()
    if args.bm25_stems:
        _stem_bm25(args.bm25_stems)
    stages = replace(Stages(), **json.loads(args.stages))
    questions = [q for q in load_golden(args.golden) if args.split in ("all", q.split)
                 and (args.with_cx or not q.id.startswith("cx"))]
    memo, hits, mrrs = {}, [], []
    with Catalog() as catalog, Searcher(catalog=catalog) as searcher:
        # the default configuration's threshold as calibrated, whatever the parameters it was calibrated with
        threshold = float(searcher.manifest["thresholds"][stages_key(searcher.active(Stages()))]["value"])
        searcher.params = replace(searcher.params, **json.loads(args.params))
        searcher.threshold_for = lambda _stages: threshold  # type: ignore[method-assign]
        if args.budget is not None:
            searcher.budget = args.budget
        for q in questions:
            result = searcher.search(q.question, q.perimeter, 6, stages)
            memo[(q.question, q.perimeter, 6)] = result
            if q.answerable:
                ranked = [m.Ranked(c.ref, c.text, c.changed_by) for c in result.ranked]
                hits.append(m.hit_at_k(ranked, q, 6))
                mrrs.append(m.mrr(ranked, q))
    hit, mrr = m.mean(hits), m.mean(mrrs)
    print(json.dumps({"split": args.split, "answerable": len(hits), "hit@6": None if hit is None else round(hit, 3),
                      "mrr": None if mrr is None else round(mrr, 3)}))
    if args.cache:
        args.cache.write_bytes(pickle.dumps(memo))


if __name__ == "__main__":
    main()
