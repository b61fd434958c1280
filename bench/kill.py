"""kill -9 at seeded random moments of ingest, refresh and index: is anything left torn? (issue 16)

Usage::

    .venv/bin/python bench/kill.py [--n 10] [--seed 1] [--modes ingest,refresh,index,rebuild]

Each mode starts from a home of its own and runs one `lexcite` command in a child process:

  ingest   `lexcite ingest` the AI Act and the Digital Omnibus into an empty home (the Omnibus is
           applied: the amended AI Act is derived and stored)
  refresh  `lexcite refresh 32024R1689` from an empty home, against tests/replay_server.py
  index    `lexcite index` after an edited text of a stored act (incremental: in place)
  rebuild  `lexcite index --rebuild` of a current index (beside the old collection)

A reference run (not killed) gives how long the command takes (T) and the state it ends in. Then,
n times: a fresh copy of the starting home, the command started, SIGKILL after a seeded delay in
[0, 1.1 T], and the checks:

* ingest, refresh: the catalog opens and passes `PRAGMA integrity_check`, and every version it
  holds has its units; its state is the one before, the one after, or one between them (one
  document stored whole, not the next, or an amending act stored and not yet applied). The same
  command run again ends in the reference's state (what was owed is done then).
* index, rebuild: `lexcite search` right after the kill either ranks as the index after the
  reference run does (or, for a rebuild, as the index before it) or is refused with one line
  naming `lexcite index` (exit 1, no traceback): never another ranking with exit 0. `lexcite
  index` run again ends in one of those rankings, with no collection in the store that the
  manifest does not name.

The models are minilm (embedder and reranker) and the calibration set is two questions, to keep
a run to minutes on 2 cores. Exit status 1 when any check failed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "raw"
QUERIES = ("Which person identification data must be included?",
           "Which format must the electronic attestations of attributes have?")
MODELS = ("--embedder", "minilm", "--reranker", "embedder:minilm")
GOLDEN = [
    {"id": "k1", "question": QUERIES[0], "expected": ["32024R2977#anx_1"], "anchors": [], "key_facts": [],
     "behavior": "answer", "filters": {"language": "en"}, "category": "scope", "post_cutoff": False,
     "split": "dev"},
    {"id": "k2", "question": "What is the maximum fine for a cartel under competition law?", "expected": [],
     "anchors": [], "key_facts": [], "behavior": "abstain", "filters": {"language": "en"}, "category": "abstain",
     "post_cutoff": False, "split": "dev"},
]


def _replay_server():
    spec = importlib.util.spec_from_file_location("replay_server", ROOT / "tests" / "replay_server.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["replay_server"] = module
    spec.loader.exec_module(module)
    return module


@dataclass
class Mode:
    name: str
    command: list[str]
    prepare: Callable[[Path], None]  # fills the starting home
    index: bool  # judged by searches, not by the catalog's state
    rerun: list[str] = field(default_factory=list)  # what repairs it (default: the command again)


class Bench:
    def __init__(self, work: Path, cellar_url: str):
        self.work, self.cellar_url = work, cellar_url
        self.golden = work / "golden.jsonl"
        self.golden.write_text("".join(json.dumps(q) + "\n" for q in GOLDEN))

    def env(self, home: Path) -> dict[str, str]:
        return {**os.environ, "LEXCITE_HOME": str(home), "LEXCITE_CELLAR_URL": self.cellar_url,
                "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False", "PYTHONPATH": str(ROOT)}

    def lexcite(self, home: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        r = subprocess.run([sys.executable, "-m", "lexcite", *args], env=self.env(home), capture_output=True,
                           text=True, timeout=900)
        if check and r.returncode != 0:
            raise RuntimeError(f"lexcite {' '.join(args)}: exit {r.returncode}: {r.stderr[-500:]}")
        return r

    # -- what is judged ----------------------------------------------------------------------

    @staticmethod
    def catalog(home: Path) -> tuple[str, list[str]]:
        """(state, problems) of the home's catalog, read as lexcite reads it."""
        from lexcite.catalog import Catalog
        from lexcite.errors import LexciteError

        path = home / "catalog.sqlite"
        if not path.exists():
            return "empty", []
        problems = []
        conn = sqlite3.connect(path)
        try:
            if (ok := conn.execute("PRAGMA integrity_check").fetchone()[0]) != "ok":
                problems.append(f"integrity_check: {ok}")
        finally:
            conn.close()
        try:
            with Catalog(path) as catalog:
                empty = [f"{v.act}@{v.version}" for v in catalog.versions() if not v.unit_count]
                problems += [f"version without units: {e}" for e in empty]
                return (catalog.state() if catalog.versions() else "empty"), problems
        except LexciteError as e:
            return "unreadable", problems + [f"{type(e).__name__}: {e}"]

    def ranking(self, home: Path) -> tuple[str, list[list[str]] | str]:
        """('ranked', refs per query) or ('refused', the error line); anything else is a failure."""
        out: list[list[str]] = []
        for q in QUERIES:
            r = self.lexcite(home, "search", q, "--no-threshold", "--json", "-k", "8", check=False)
            if r.returncode == 0:
                out.append([row["ref"] for row in json.loads(r.stdout)["ranked"]])
                continue
            lines = [x for x in r.stderr.splitlines() if x.strip()]
            # the one IndexMismatch line: what is wrong and the `lexcite index` that fixes it
            if r.returncode == 1 and len(lines) == 1 and lines[0].startswith("error: ") and "lexcite index" in lines[0]:
                return "refused", lines[0]
            return "failed", f"exit {r.returncode}: {r.stderr[-300:]}"
        return "ranked", out

    @staticmethod
    def leftovers(home: Path) -> list[str]:
        """Collections in the home's store that its manifest does not name."""
        import chromadb
        from chromadb.config import Settings

        manifest = json.loads((home / "index" / "manifest.json").read_text())
        client = chromadb.PersistentClient(path=str(home / "chroma"), settings=Settings(anonymized_telemetry=False))
        named = {manifest.get("collection"), manifest.get("rerank_collection")}
        return sorted(c.name for c in client.list_collections() if c.name not in named)

    # -- one kill --------------------------------------------------------------------------------

    def killed(self, home: Path, command: list[str], delay: float) -> str:
        """Run `command`, SIGKILL it after `delay` s; 'killed' or 'finished' (it ended first)."""
        proc = subprocess.Popen([sys.executable, "-m", "lexcite", *command], env=self.env(home),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            proc.wait(timeout=delay)
            return "finished"
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)  # this child only, by its id
            proc.wait()
            return "killed"


def _modes(bench: Bench) -> list[Mode]:
    acts = [str(CORPUS / "32024R1689.oj.xhtml"), str(CORPUS / "32026R1744.oj.xhtml")]
    small = [str(CORPUS / "32024R2977.oj.html"), str(CORPUS / "32024R2981.oj.html")]

    def nothing(home: Path) -> None:
        pass

    def indexed(home: Path) -> None:
        bench.lexcite(home, "ingest", *small)
        bench.lexcite(home, "index", *MODELS, "--golden", str(bench.golden))

    def edited(home: Path) -> None:
        indexed(home)
        data = (CORPUS / "32024R2977.oj.html").read_bytes()
        text = home.parent / f"{home.name}-edited" / "32024R2977.oj.html"
        text.parent.mkdir(exist_ok=True)
        text.write_bytes(data.replace(b"made available by the Commission", b"published by the Commission", 1))
        bench.lexcite(home, "ingest", str(text))

    golden = ["--golden", str(bench.golden)]
    return [
        Mode("ingest", ["ingest", *acts], nothing, index=False),
        Mode("refresh", ["refresh", "32024R1689", "--no-index"], nothing, index=False),
        Mode("index", ["index", *golden], edited, index=True),
        Mode("rebuild", ["index", "--rebuild", *golden], indexed, index=True, rerun=["index", *golden]),
    ]


def run_mode(bench: Bench, mode: Mode, n: int, rng: random.Random) -> tuple[Counter[str], list[str]]:
    start = bench.work / f"{mode.name}-start"
    mode.prepare(start)
    ref = bench.work / f"{mode.name}-ref"
    shutil.copytree(start, ref) if start.exists() else ref.mkdir()
    before = bench.catalog(ref)[0]
    t0 = time.perf_counter()
    ref_rc = bench.lexcite(ref, *mode.command, check=False).returncode
    took = time.perf_counter() - t0
    after = bench.catalog(ref)[0]
    expected = bench.ranking(ref) if mode.index else None
    if expected is not None and expected[0] != "ranked":
        raise RuntimeError(f"{mode.name}: the reference run does not search: {expected[1]}")
    # What a search may rank as: the index after the run, or (a rebuild not yet switched) the one before it.
    accepted = [expected, *([old] if mode.index and (old := bench.ranking(start))[0] == "ranked" else [])]
    counts: Counter[str] = Counter()
    bad: list[str] = []
    print(f"{mode.name}: reference run {took:.1f} s", flush=True)
    for i in range(n):
        home = bench.work / f"{mode.name}-{i}"
        shutil.copytree(start, home) if start.exists() else home.mkdir()
        delay = rng.uniform(0, 1.1 * took)
        counts[bench.killed(home, mode.command, delay)] += 1
        state, problems = bench.catalog(home)
        bad += [f"{mode.name} #{i} at {delay:.1f} s: {p}" for p in problems]
        if mode.index:
            got = bench.ranking(home)
            if got[0] == "refused":
                counts["search refused (IndexMismatch)"] += 1
            elif got in accepted:
                counts["search ranks as the old or the new index" if len(accepted) > 1 else
                       "search ranks as the new index"] += 1
            else:
                bad.append(f"{mode.name} #{i} at {delay:.1f} s: search after the kill: {got[0]} {str(got[1])[:300]}")
        else:
            counts["state: " + ("before" if state == before else "after" if state == after else "between")] += 1
        again = bench.lexcite(home, *(mode.rerun or mode.command), check=False)
        if "Traceback" in again.stderr or again.returncode != (0 if mode.rerun else ref_rc):
            bad.append(f"{mode.name} #{i} at {delay:.1f} s: the next run: exit {again.returncode}: "
                       f"{again.stderr[-300:]}")
        if mode.index:
            if bench.ranking(home) not in accepted:
                bad.append(f"{mode.name} #{i} at {delay:.1f} s: after `lexcite index` again: {bench.ranking(home)}")
            elif left := bench.leftovers(home):
                bad.append(f"{mode.name} #{i} at {delay:.1f} s: collections left behind: {left}")
            else:
                counts["repaired by the next run"] += 1
        elif bench.catalog(home)[0] == after:
            counts["repaired by the next run"] += 1
        else:
            bad.append(f"{mode.name} #{i} at {delay:.1f} s: the next run ends in state {bench.catalog(home)[0]}, "
                       f"not {after}")
        shutil.rmtree(home, ignore_errors=True)
        print(f"  #{i} kill at {delay:.1f} s: {dict(counts)}", flush=True)
    return counts, bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--modes", default="ingest,refresh,index,rebuild")
    args = ap.parse_args()
    rs = _replay_server()
    with rs.ReplayServer(CORPUS) as cellar, tempfile.TemporaryDirectory(prefix="lexcite-kill-") as tmp:
        # One AI Act text to fetch, no consolidated one: the refresh stores the act and the Omnibus
        # and derives the amended version (the consolidated 2024-07-12 text is not served in English).
        cellar.set_sparql("consolidated", "32024R1689", [])
        bench = Bench(Path(tmp), cellar.url)
        modes = {m.name: m for m in _modes(bench)}
        rng = random.Random(args.seed)
        results = {name: run_mode(bench, modes[name], args.n, rng) for name in args.modes.split(",")}
    # The table bench/RESULTS.md records, then every failed check.
    print("\n| mode | kills | outcomes | failed checks |\n|---|---:|---|---:|")
    for name, (counts, bad) in results.items():
        print(f"| {name} | {args.n} | {', '.join(f'{k} {v}' for k, v in sorted(counts.items()))} | {len(bad)} |")
    problems = [line for _, bad in results.values() for line in bad]
    print("\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
