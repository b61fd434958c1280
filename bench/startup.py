"""Start-up time of `lexcite ask` from the shell, beside the in-process latency of one question.

    LEXCITE_HOME=/work/homes/cli python bench/startup.py [--runs 5] [--question "..."] [--answers FILE]

Run it from the checkout root: its child processes (`python -m lexcite`, `python -c`) import the
lexcite of the current directory.

Prints, for a home with a built and calibrated index (warm disk: each measurement is repeated
and the first run is reported apart):

- shell: wall time of `lexcite --help` and of `lexcite ask QUESTION --no-trace` as separate
  processes (what a user waits for), min and median over the runs after the first;
- phases: fresh processes (as many as runs) timing each step of that same ask, median per step:
  importing the CLI, starting to load the second reading's model in the background (as `lexcite ask`
  does first; the first question waits for what is left of it), importing the answering and index
  stack (numpy, the catalog), importing chromadb and opening its client, opening the Searcher
  (catalog records, passages, the saved BM25, the collection and its count, the e5 model), the
  first question (query embedding,
  Chroma query, reranker vectors, generator and verifier) and a second question (the steady
  state), and which heavy packages the process loaded (none of torch, transformers,
  sentence-transformers, scipy, grpc is expected);
- in-process: median wall time of `ask()` over the runs, the Searcher already open (what a
  long-running process or the eval pays per question).

`--answers FILE` checks that a start-up change changed no result: the first run writes, for a
dozen questions (every 27th of the shipped golden set and the one above), each stage's hits with
their scores, the final ranking and the whole `ask --json` answer to FILE; a later run compares
with it and exits 1 naming the first question that differs.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

QUESTION = "How much can a company be fined for using a prohibited AI practice?"

_PHASES = r"""
import json, os, sys, time
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")  # as lexcite.cli.main sets it
t0 = time.perf_counter(); marks = {}
import lexcite.cli  # noqa: F401
marks["import lexcite.cli"] = time.perf_counter()
from lexcite import config
from lexcite.index.second import start_loading
start_loading(config.settings().home)  # as `lexcite ask` does first: the second reading's model loads meanwhile
marks["start loading the second reading"] = time.perf_counter()
from lexcite.answer.ask import ask, choose_generator
from lexcite.index.search import Searcher
marks["import answer + index stack"] = time.perf_counter()
from lexcite.index.dense import open_client
open_client(config.settings().home, config.settings().chroma_url)
marks["import chromadb + open its client"] = time.perf_counter()
searcher = Searcher()
marks["open Searcher (catalog records, passages, BM25 load, collection, e5)"] = time.perf_counter()
from lexcite.cli._options import perimeter_from_options
p = perimeter_from_options()
gen = choose_generator(None)
ask(sys.argv[1], p, generator=gen, searcher=searcher, trace=False)
marks["first question"] = time.perf_counter()
ask(sys.argv[1], p, generator=gen, searcher=searcher, trace=False)
marks["second question"] = time.perf_counter()
prev, out = t0, {}
for k, v in marks.items():
    out[k] = (v - prev) * 1000; prev = v
heavy = ("torch", "transformers", "sentence_transformers", "scipy", "grpc")
out["heavy packages loaded"] = sorted({m.split(".")[0] for m in sys.modules} & set(heavy))
print(json.dumps(out))
"""


def _phases(question: str, runs: int) -> None:
    """The median of each phase over `runs` fresh processes."""
    seen: list[dict] = []
    for _ in range(runs):
        r = subprocess.run([sys.executable, "-c", _PHASES, question], capture_output=True, text=True,
                           env=os.environ.copy(), check=True)
        seen.append(json.loads(r.stdout.strip().splitlines()[-1]))
    heavy = seen[0].pop("heavy packages loaded")
    for name in seen[0]:
        ms = [s[name] for s in seen]
        print(f"phase  {name}: median {statistics.median(ms):.0f} ms (min {min(ms):.0f})")
    total = [sum(v for k, v in s.items() if k not in ("second question", "heavy packages loaded")) for s in seen]
    print(f"phase  sum to the first answer: median {statistics.median(total):.0f} ms ({runs} processes); "
          f"heavy packages loaded: {', '.join(heavy) or 'none'}")


def _run(args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds user+system) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(args, capture_output=True, text=True, env=os.environ.copy())
    took = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in (0, 3):
        sys.exit(f"{' '.join(args)} failed ({r.returncode}): {r.stderr.strip()[-500:]}")
    if "Loading weights" in r.stderr or "%|" in r.stderr:
        print(f"  third-party progress noise on stderr: {r.stderr.strip()[-200:]!r}")
    return took, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _summary(runs: list[tuple[float, float]]) -> str:
    """On a shared machine wall time includes waiting for a core; CPU time is what the process itself spent."""
    first, rest = runs[0], runs[1:] or runs
    walls, cpus = [w for w, _ in rest], [c for _, c in rest]
    return (f"first {first[0]:.2f} s wall; then wall min {min(walls):.2f} s, median {statistics.median(walls):.2f} s;"
            f" CPU min {min(cpus):.2f} s, median {statistics.median(cpus):.2f} s ({len(rest)} runs)")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) + " (1, 5, 15 min)"


def _questions() -> list[str]:
    golden = Path(__file__).resolve().parent.parent / "data" / "golden" / "golden.jsonl"
    lines = golden.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines[::27]] + [QUESTION]


def _results(searcher) -> list[dict]:
    """Per question: every stage's hits, the final ranking and the answer, as exact JSON (scores as floats)."""
    from lexcite.answer.ask import ask, choose_generator
    from lexcite.cli._options import perimeter_from_options

    p, gen, out = perimeter_from_options(), choose_generator("extractive"), []
    for q in _questions():
        r = searcher.search(q, p)
        out.append({
            "question": q,
            "stage_hits": {k: [[str(h.ref), h.score] for h in v] for k, v in r.stage_hits.items()},
            "ranked": [[str(c.ref), c.score, c.via, c.stage_scores] for c in r.ranked],
            "admitted": [str(c.ref) for c in r.admitted], "threshold": r.threshold,
            "answer": ask(q, p, generator=gen, searcher=searcher, trace=False).to_dict(),
        })
    return out


def check_answers(path: Path) -> None:
    """Write the results to `path`, or compare them with what it holds; exit 1 on any difference."""
    from lexcite.index.search import Searcher

    with Searcher() as searcher:
        now = json.loads(json.dumps(_results(searcher)))
    if not path.exists():
        path.write_text(json.dumps(now, ensure_ascii=False, indent=1))
        print(f"answers: {len(now)} questions written to {path}")
        return
    before = json.loads(path.read_text())
    for a, b in zip(before, now, strict=True):
        if a != b:
            diff = [k for k in a if a[k] != b.get(k)]
            sys.exit(f"answers: differ for {a['question']!r} in {', '.join(diff)}")
    print(f"answers: the same as {path} for all {len(now)} questions (stage hits, scores, ranking, answer)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--answers", type=Path, metavar="FILE",
                    help="write the results of a dozen questions to FILE, or compare with it (no timing)")
    a = ap.parse_args()
    if a.answers:
        check_answers(a.answers)
        return
    lexcite = [sys.executable, "-m", "lexcite"]
    print(f"LEXCITE_HOME={os.environ.get('LEXCITE_HOME', './.lexcite')}  cpus={os.cpu_count()}  "
          f"load average {_load()}  {time.strftime('%Y-%m-%d %H:%M %Z')}")
    print("shell  lexcite --help:", _summary([_run([*lexcite, "--help"]) for _ in range(a.runs + 1)]))
    print("shell  lexcite ask:   ", _summary([_run([*lexcite, "ask", a.question, "--no-trace"])
                                               for _ in range(a.runs + 1)]))
    _phases(a.question, a.runs)

    from lexcite.answer.ask import ask, choose_generator
    from lexcite.cli._options import perimeter_from_options
    from lexcite.index.search import Searcher

    with Searcher() as searcher:
        p, gen = perimeter_from_options(), choose_generator(None)
        ask(a.question, p, generator=gen, searcher=searcher, trace=False)  # warm-up
        times = []
        for _ in range(a.runs):
            t = time.perf_counter()
            ask(a.question, p, generator=gen, searcher=searcher, trace=False)
            times.append(time.perf_counter() - t)
    print(f"in-process ask(): median {statistics.median(times) * 1000:.0f} ms, min {min(times) * 1000:.0f} ms "
          f"({a.runs} runs, Searcher open)")
    print(f"load average at the end {_load()}")


if __name__ == "__main__":
    main()
