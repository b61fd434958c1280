"""From per-question result rows to the summary object `lexcite eval --json` prints.

Rows are the JSON shapes written to `questions.jsonl` (see run.question_row);
everything here reads only them, so a report can be rebuilt from the files.
Retrieval metrics are means over answerable questions (behavior answer or
conflict); abstention and answer measures say in their names what they count.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from lexcite.eval.metrics import mean

__all__ = ["FULL", "RETRIEVAL_KEYS", "ANSWER_KEYS", "summarise", "block", "answer_block",
           "retrieval_block", "ceiling_block", "errored", "by_split", "hit_curve", "percentiles"]

FULL = "full"
RETRIEVAL_KEYS = ("hit@k", "recall@k", "mrr", "ndcg@k")
ANSWER_KEYS = ("key_facts", "ref_exact", "ref_loose", "citation_valid", "citation_support", "refusal_rate",
               "abstain_precision", "abstain_recall", "conflict_both_shown", "superseded_cited")


def _answerable(row: dict[str, Any]) -> bool:
    return row["behavior"] != "abstain"


def retrieval_block(rows: Sequence[dict[str, Any]], stage: str = FULL) -> dict[str, float | None]:
    """Means of the four ranking metrics of one stage over the answerable rows."""
    runs = [r["stages"][stage] for r in rows if _answerable(r) and stage in r["stages"]]
    return {key: mean(run[key] for run in runs) for key in RETRIEVAL_KEYS}


def answer_block(rows: Sequence[dict[str, Any]], field: str = "answer") -> dict[str, float | int | None]:
    """Answer measures over the rows that carry `field` (the system's answer, or a baseline's)."""
    pairs = [(r, a) for r in rows if (a := _answer(r, field)) is not None]
    refused = [r for r, a in pairs if a["refused"]]
    abstain = [r for r, _ in pairs if r["behavior"] == "abstain"]
    return {
        "key_facts": mean(a["key_facts"] for _, a in pairs),
        "citation_valid": mean(_num(a["citation_valid"]) for _, a in pairs),
        "citation_support": mean(a["citation_support"] for _, a in pairs),
        "refusal_rate": mean(1.0 if a["refused"] else 0.0 for _, a in pairs),
        "abstain_precision": mean(1.0 if r["behavior"] == "abstain" else 0.0 for r in refused),
        "abstain_recall": mean(1.0 if _answer(r, field)["refused"] else 0.0 for r in abstain),
        "conflict_both_shown": mean(_num(a["conflict_both_shown"]) for _, a in pairs),
        "superseded_cited": sum(1 for _, a in pairs if a["superseded_cited"]),
        # rows written before these measures existed carry no key: not measured
        "ref_exact": mean(_num(a.get("ref_exact")) for _, a in pairs),
        "ref_loose": mean(_num(a.get("ref_loose")) for _, a in pairs),
    }


def ceiling_block(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """`ceiling` (default evidence budget) and `ceiling_by_budget` over the answerable rows that carry one."""
    cs = [r["ceiling"] for r in rows if _answerable(r) and r.get("ceiling")]
    budgets = sorted({b for c in cs for b in c["by_budget"]}, key=int)
    return {"ceiling": mean(c["default"] for c in cs),
            "ceiling_by_budget": {b: mean(c["by_budget"].get(b) for c in cs) for b in budgets}}


def _answer(row: dict[str, Any], field: str) -> dict[str, Any] | None:
    if field == "answer":
        return row.get("answer")
    return row.get("baselines", {}).get(field)


def _num(value: bool | None) -> float | None:
    return None if value is None else float(value)


def block(rows: Sequence[dict[str, Any]], with_answers: bool) -> dict[str, Any]:
    """n, the full pipeline's ranking metrics, abstention rates and (optionally) answer measures."""
    full = [(r, r["stages"][FULL]) for r in rows if FULL in r["stages"]]
    out: dict[str, Any] = {"n": len(rows), **retrieval_block(rows)}
    out["abstain_correct"] = mean(1.0 if s["abstained"] else 0.0 for r, s in full if not _answerable(r))
    out["abstain_wrong"] = mean(1.0 if s["abstained"] else 0.0 for r, s in full if _answerable(r))
    out.update(ceiling_block(rows))
    if with_answers:
        out.update(answer_block(rows))
    return out


def _groups(rows: Iterable[dict[str, Any]], key: str) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        value = r[key]
        groups.setdefault(str(value).lower() if isinstance(value, bool) else str(value), []).append(r)
    return dict(sorted(groups.items()))


def summarise(rows: Sequence[dict[str, Any]], stages: Sequence[str], with_answers: bool) -> dict[str, Any]:
    """The `--json` object: overall, by category, by post_cutoff, and the ablation table."""
    out = block(rows, with_answers)
    out["by_category"] = {c: block(g, with_answers) for c, g in _groups(rows, "category").items()}
    out["by_post_cutoff"] = {c: block(g, with_answers) for c, g in _groups(rows, "post_cutoff").items()}
    out["ablation"] = {s: retrieval_block(rows, s) for s in stages}
    if with_answers:
        out["errors"] = errored(rows)
    return out


def errored(rows: Iterable[dict[str, Any]]) -> list[str]:
    """The ids of the questions whose answer raised (the row keeps the error)."""
    return [r["id"] for r in rows if (r.get("answer") or {}).get("error")]


def by_split(rows: Sequence[dict[str, Any]], with_answers: bool) -> dict[str, Any]:
    return {s: block(g, with_answers) for s, g in _groups(rows, "split").items()}


def hit_curve(rows: Sequence[dict[str, Any]], stage: str, depth: int = 20) -> list[float]:
    """hit@j for j = 1..depth from the first relevant rank stored per row."""
    ranks = [r["stages"][stage]["rank"] for r in rows if _answerable(r) and stage in r["stages"]]
    if not ranks:
        return []
    return [sum(1 for x in ranks if x is not None and x <= j) / len(ranks) for j in range(1, depth + 1)]


def percentiles(seconds: Sequence[float]) -> dict[str, float | None]:
    """p50 and p95 in milliseconds (linear interpolation)."""
    if not seconds:
        return {"p50_ms": None, "p95_ms": None, "n": 0}
    p50, p95 = np.percentile(np.asarray(seconds, dtype=float) * 1000, [50, 95])
    return {"p50_ms": round(float(p50), 2), "p95_ms": round(float(p95), 2), "n": len(seconds)}
