"""The evaluation report: Markdown tables and PNG plots, generated from the result files alone.

`write_report(folder)` reads `summary.json` and `questions.jsonl` (written by
`EvalResult.write`) and writes `report.md`, `hit_at_k.png` and `scores.png`
beside them, so a report can be rebuilt, or diffed, without rerunning.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only; never a window, also on machines without a display
import matplotlib.pyplot as plt  # noqa: E402

from lexcite.eval.aggregate import ANSWER_KEYS, FULL, RETRIEVAL_KEYS, hit_curve  # noqa: E402
from lexcite.eval.run import BM25, DEPTH, EvalResult  # noqa: E402

__all__ = ["write_report", "REPORT_FILE", "HIT_PLOT", "SCORE_PLOT", "CEILING_PLOT"]

REPORT_FILE = "report.md"
HIT_PLOT = "hit_at_k.png"
SCORE_PLOT = "scores.png"
CEILING_PLOT = "ceiling.png"
_SYSTEM = "lexcite"


def _ms(v: float | None) -> str:
    return "–" if v is None else f"{v:.1f}"


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]
    return lines + [""]


# Each metric in one line, as the report's readers need it (lexcite/eval/metrics.py computes them).
METRICS = {
    "hit@k": "share of answerable questions with a relevant unit among the top k",
    "recall@k": "share of a question's expected units (or anchors) found in the top k, averaged",
    "mrr": "mean of 1 / rank of the first relevant unit within the top 10 (0 when none)",
    "ndcg@k": "ranking quality in the top k: relevant units discounted by log2 of their rank, 1 = ideal",
    "abstain_correct": "share of abstain questions on which retrieval admitted nothing (higher is better)",
    "abstain_wrong": "share of answerable questions on which retrieval admitted nothing (lower is better)",
    "key_facts": "share of a question's key facts found in the answer text (a refusal finds none), averaged",
    "citation_valid": "share of answers where every sentence cites and every cited unit is evidence in the perimeter",
    "citation_support": "share of an answer's sentences the cited units support, judged apart from the verifier",
    "refusal_rate": "share of questions (answerable or not) whose answer is a refusal",
    "abstain_precision": "share of refusals that were on abstain questions",
    "abstain_recall": "share of abstain questions that were refused",
    "conflict_both_shown": "share of conflict questions whose answer shows each diverging act",
    "superseded_cited": "number of answers citing a superseded version (lower is better)",
    "ref_exact": "share of answerable questions whose answer cites a unit on an expected unit's branch (refusal: miss)",
    "ref_loose": "share of answerable questions whose answer cites inside an expected article, annex or recital",
    "ceiling": "share of answerable questions with a relevant unit inside the evidence the generator receives",
}


def _definitions(keys: Sequence[str]) -> list[str]:
    return [f"- **{k}**: {METRICS[k]}" for k in keys if k in METRICS] + [""]


def _threshold(r: EvalResult) -> float | None:
    values = [row["stages"][FULL]["threshold"] for row in r.rows if FULL in row["stages"]]
    return next((v for v in values if v is not None), None)


def stage_style(i: int) -> dict[str, Any]:
    """The i-th stage line's colour, dash and marker. Stages that rank alike overlap, so each line
    differs from every other in all three (and plot_hits offsets each a little), up to 10 stages."""
    dashes = ["-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (1, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (8, 2)),
              (0, (2, 3)), (0, (6, 1, 2, 1))]
    markers = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]
    return {"color": plt.get_cmap("tab10").colors[i % 10], "linestyle": dashes[i % 10], "marker": markers[i % 10]}


def plot_hits(r: EvalResult, path: Path) -> None:
    """hit@k for k = 1..20, one line per pipeline stage."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ks = list(range(1, DEPTH + 1))
    for i, stage in enumerate(r.meta["stages"]):
        curve = hit_curve(r.rows, stage, DEPTH)
        if curve:
            ax.plot(ks, [v + 0.004 * i for v in curve], markersize=4, label=stage, **stage_style(i),
                    linewidth=2.5 if stage == FULL else 1.4)
    ax.axvline(r.k, color="grey", linestyle=":", label=f"k = {r.k} (to the generator)")
    ax.set(xlabel="k", ylabel="hit@k (answerable questions; lines offset by 0.004 apart)", ylim=(0, 1.05), xticks=ks,
           title="hit@k per pipeline stage")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_ceiling(r: EvalResult, path: Path) -> None:
    """The ceiling per evidence budget, overall and per split, beside hit@k."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    blocks = {"all": r.summary, **r.by_split}
    for name, b in blocks.items():
        by_budget = b.get("ceiling_by_budget") or {}
        budgets = sorted(by_budget, key=int)
        if budgets:
            ax.plot([int(x) for x in budgets], [by_budget[x] for x in budgets], marker="o",
                    label=f"ceiling ({name})", linewidth=2.5 if name == "all" else 1.4)
        if b.get("hit@k") is not None:
            ax.axhline(b["hit@k"], linestyle=":", linewidth=1, color="grey" if name == "all" else None,
                       label=f"hit@{r.k} ({name})")
    ax.set(xlabel="evidence budget (estimated tokens)", ylabel="share of answerable questions", ylim=(0, 1.02),
           title="ceiling: a relevant unit inside the evidence, per budget")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_scores(r: EvalResult, path: Path) -> None:
    """Top score of the full pipeline, answerable vs abstain questions, with the threshold marked."""
    groups: dict[str, list[float]] = {"answerable": [], "abstain": []}
    for row in r.rows:
        score = row["stages"].get(FULL, {}).get("top_score")
        if score is not None:
            groups["abstain" if row["behavior"] == "abstain" else "answerable"].append(score)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    values = groups["answerable"] + groups["abstain"]
    bins = 20 if values else 1
    span = (min(values), max(values)) if values and min(values) < max(values) else None
    for name, color in (("answerable", "tab:blue"), ("abstain", "tab:red")):
        if groups[name]:
            ax.hist(groups[name], bins=bins, range=span, alpha=0.55, color=color,
                    label=f"{name} (n={len(groups[name])})")
    threshold = _threshold(r)
    if threshold is not None:
        ax.axvline(threshold, color="black", linestyle="--", label=f"calibrated threshold {threshold:.3g}")
    ax.set(xlabel="top score (full pipeline)", ylabel="questions", title="Score distributions")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _breakdown(title: str, blocks: dict[str, dict[str, Any]], keys: Sequence[str]) -> list[str]:
    rows = [[name, b["n"], *(b.get(k) for k in keys)] for name, b in blocks.items()]
    return [f"### {title}", "", *_table([title.split()[-1], "n", *keys], rows)]


def _calibration(meta: dict[str, Any]) -> str:
    done = "recalibrated on this file's dev split in this run" if meta.get("calibrated") else "as stored"
    c = meta.get("calibration") or {}
    where = f"; calibrated on {c['golden']}" if c.get("golden") else ""
    when = f" at {c['calibrated_at']}" if c.get("calibrated_at") else ""
    return done + where + when


def _markdown(r: EvalResult) -> str:
    s, meta = r.summary, r.meta
    answers = bool(meta.get("with_answers"))
    lines = ["# lexcite evaluation", ""]
    lines += [f"- golden set: `{meta.get('golden', '?')}`, split: {meta.get('split') or 'all'}, "
              f"questions: {s['n']}, k = {r.k}",
              f"- threshold: {_fmt(_threshold(r))} ({_calibration(meta)})"]
    if meta.get("as_of"):
        lines.append(f"- as-of date: {meta['as_of']} (unless a question sets its own)")
    if meta.get("embedder"):
        lines.append(f"- embedder: {meta['embedder']}, reranker: {meta.get('reranker') or 'none'}")
    if meta.get("generator"):
        lines.append(f"- generator: {meta['generator']}")
    if s.get("errors"):
        errors = {row["id"]: row["answer"]["error"] for row in r.rows if row.get("answer", {}).get("error")}
        lines.append(f"- **{len(errors)} question(s) raised while answering**, counted as wrong answers: "
                     + "; ".join(f"{qid} ({e})" for qid, e in errors.items()))
    lines += ["", "## Overall", ""]
    keys = [*RETRIEVAL_KEYS, "ceiling", "abstain_correct", "abstain_wrong", *(ANSWER_KEYS if answers else ())]
    lines += _table(["metric", "value"], [[key, s.get(key)] for key in keys])
    lines += _definitions([key for key in keys if key in s])
    if s.get("ceiling_by_budget"):
        lines += ["## Ceiling by evidence budget", "",
                  "Share of answerable questions with a relevant unit inside the evidence by provision the "
                  "generator receives (DESIGN.md), per budget of estimated tokens.", ""]
        blocks = {"all": s, **r.by_split}
        budgets = sorted(s["ceiling_by_budget"], key=int)
        lines += _table(["questions", *budgets],
                        [[n, *(b.get("ceiling_by_budget", {}).get(x) for x in budgets)] for n, b in blocks.items()])
        lines += [f"![ceiling per budget]({CEILING_PLOT})", ""]

    lines += ["## Retrieval by pipeline stage (ablation)", ""]
    lat = r.latency
    rows = [[stage, *(v.get(key) for key in RETRIEVAL_KEYS), _ms(lat.get(stage, {}).get("p50_ms")),
             _ms(lat.get(stage, {}).get("p95_ms"))] for stage, v in s["ablation"].items()]
    lines += _table(["stage", *RETRIEVAL_KEYS, "p50 ms", "p95 ms"], rows)
    lines += [f"![hit@k per stage]({HIT_PLOT})", ""]
    if answers and BM25 in s["ablation"]:
        lines += [f"The retrieval-only baseline below answers with the first sentence of the `{BM25}` row's top "
                  "unit, so its ranking is that row.", ""]
    if answers:
        lines += ["## Answers beside the baselines", ""]
        systems = {_SYSTEM: s, **r.baselines}
        lines += _table(["system", *ANSWER_KEYS], [[n, *(b.get(k) for k in ANSWER_KEYS)] for n, b in systems.items()])
        if "no_rag" not in r.baselines:
            lines += ["No-RAG baseline not run: ANTHROPIC_API_KEY not set.", ""]
    lines += [f"![score distributions]({SCORE_PLOT})", ""]
    lines += ["## Breakdowns", ""]
    cols = ["hit@k", "ceiling", "mrr", "ndcg@k", "recall@k", "abstain_correct", "abstain_wrong",
            *(("key_facts", "ref_exact", "ref_loose", "citation_valid", "citation_support", "refusal_rate")
              if answers else ())]
    lines += _breakdown("By category", s["by_category"], cols)
    lines += _breakdown("By post_cutoff", s["by_post_cutoff"], cols)
    lines += _breakdown("By split", r.by_split, cols)
    lines += ["## Latency", ""]
    lines += _table(["stage", "p50 ms", "p95 ms", "n"],
                    [[n, _ms(v["p50_ms"]), _ms(v["p95_ms"]), v["n"]] for n, v in lat.items()])
    lines += ["## Misses", "", f"Answerable questions with nothing relevant in the full pipeline's top {r.k}:", ""]
    misses = [row for row in r.rows if row["behavior"] != "abstain" and row["stages"].get(FULL, {}).get("hit@k") == 0]
    lines += [f"- `{row['id']}` ({row['category']}): {row['question']}" for row in misses] or ["- none"]
    return "\n".join(lines) + "\n"


def write_report(folder: Path) -> list[Path]:
    """Build report.md and the two PNGs from the result files in `folder`.

    Raises:
        ConfigError: `folder` holds no result files.
    """
    r = EvalResult.read(folder)
    paths = [folder / REPORT_FILE, folder / HIT_PLOT, folder / SCORE_PLOT, folder / CEILING_PLOT]
    plot_hits(r, paths[1])
    plot_scores(r, paths[2])
    plot_ceiling(r, paths[3])
    paths[0].write_text(_markdown(r), encoding="utf-8")
    return paths
