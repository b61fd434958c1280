"""Seeded byte mutations of real EUR-Lex files: is any variant accepted with fewer units? (issue 16)

Usage::

    .venv/bin/python bench/mutations.py [--n 200] [--seed 1] [--all | FILE_OR_FOLDER ...]

Each variant is one mutation of the original bytes (a byte replaced, up to 63 bytes deleted, or up to
7 random bytes inserted, at a random place; for a Formex folder in one of its files) and is read as
`lexcite ingest` reads it (`read_document`, the completeness checks included). A variant is
*refused* (a LexciteError), *whole* (every unit id of the original is there) or *short* (some are
missing: the failure this run exists to find). Any other exception is a *crash*. Paths are relative
to ../shared/corpus/raw; `--all` runs every real file: the corpus's HTML and XHTML files, its Formex
folders and zips, and the shipped guidance notes (data/guidance). A short variant whose lost units'
text is all still inside a unit it kept (a point's label cell damaged, so the point stays text of its
paragraph) is counted apart, as *unsplit*: no law is gone, only an id. Exit status 1 when any variant
was short or crashed.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from lexcite.errors import LexciteError
from lexcite.ingest.load import Overrides, read_document

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "raw"
# What `lexcite ingest` must be told of a file that does not say it: the DGA's Formex act file has no OJ
# publication date (`lexcite ingest --version 2022-06-03`); a guidance note is ingested as not binding.
OVERRIDES = {"fmx4/32022R0868": Overrides(version="2022-06-03"),
             "data/guidance/ai-literacy-guidance.xhtml": Overrides(binding=False)}
DEFAULT = ["32024R2977.oj.html", "fmx4/32022L2555", "32024R1689.oj.xhtml", "32016R0679.oj.html",
           "02024R1689-20240712.consolidated.nl.html", "fmx4/32024R1689"]


def variants(src: Path, n: int, seed: int) -> Iterator[tuple[str, bytes, str]]:
    """(member file name, mutated bytes, what was done) for n seeded mutations of `src`."""
    rng = random.Random(seed)
    files = sorted(f for f in src.iterdir() if f.is_file()) if src.is_dir() else [src]
    for _ in range(n):
        f = rng.choice(files)
        data = bytearray(f.read_bytes())
        pos, op = rng.randrange(len(data)), rng.choice("rdi")
        if op == "r":
            data[pos] = rng.randrange(256)
        elif op == "d":
            del data[pos:pos + rng.randrange(1, 64)]
        else:
            data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
        yield f.name, bytes(data), f"{op}@{pos} in {f.name}"


def run(src: Path, n: int, seed: int, overrides: Overrides = Overrides()) -> tuple[Counter[str], list[str]]:
    """Outcome counts and a line for each short or crashing variant."""
    original = {u.unit: u.text for u in read_document(src, overrides)[0].units}
    outcomes: Counter[str] = Counter()
    bad: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, data, what in variants(src, n, seed):
            target = Path(tmp) / src.name
            if src.is_dir():
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(src, target)
                (target / name).write_bytes(data)
            else:
                target.write_bytes(data)
            try:
                got = {u.unit: u.text for u in read_document(target, overrides)[0].units}
            except LexciteError:
                outcomes["refused"] += 1
                continue
            except Exception as e:  # noqa: BLE001 - a crash is what this run reports
                outcomes["crash"] += 1
                bad.append(f"crash {what}: {type(e).__name__}: {e}")
                continue
            lost = original.keys() - got.keys()
            kept = all(any(original[i] in t for k, t in got.items() if i.startswith(k + ".")) for i in lost)
            outcomes["whole" if not lost else "unsplit" if kept else "short"] += 1
            if lost and not kept:
                bad.append(f"short {what}: lost {len(lost)} ({', '.join(sorted(lost)[:5])})")
    return outcomes, bad


def every_real_file() -> list[Path]:
    """The corpus's documents (HTML, XHTML, Formex folders and zips) and the shipped guidance notes."""
    html = [p for p in CORPUS.iterdir() if p.suffix in (".html", ".xhtml")]
    return sorted(html) + sorted((CORPUS / "fmx4").iterdir()) + sorted((ROOT / "data" / "guidance").iterdir())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", default=DEFAULT)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--all", action="store_true", help="every real file (the paths are then ignored)")
    args = ap.parse_args()
    failed = False
    for path in every_real_file() if args.all else [CORPUS / rel for rel in args.paths]:
        rel = path.relative_to(CORPUS) if path.is_relative_to(CORPUS) else path.relative_to(ROOT)
        outcomes, bad = run(path, args.n, args.seed, OVERRIDES.get(str(rel), Overrides()))
        print(f"{rel}: {args.n} variants, " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
        for line in bad:
            print("   ", line)
        failed |= bool(bad)
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
