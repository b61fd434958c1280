"""Parse speed on the real documents of ../shared/corpus/raw: units per second, per file.

    .venv/bin/python bench/parse.py [--repeat N]

Each case is a (name, callable) pair; the callable parses one document from bytes
already in memory (HTML/XML parsing included) and returns a ParsedAct. Add the
other formats by appending to CASES. For HTML, "checks ms" is what `lexcite ingest`
adds after parsing to see damage that leaves the numbering whole (lexcite/ingest/coverage.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from lexcite.contract import ParsedAct
from lexcite.ingest._markup import read_html
from lexcite.ingest.coverage import check_coverage, check_list_labels
from lexcite.ingest.parse_consolidated import parse_consolidated
from lexcite.ingest.parse_formex import formex_files_from_dir, formex_files_from_zip, parse_formex
from lexcite.ingest.parse_oj import parse_oj

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "raw"


CHECKS: dict[Callable[[], ParsedAct], Callable[[ParsedAct], object]] = {}  # by case: the checks after parsing


def html_case(parser: Callable[..., ParsedAct], name: str) -> Callable[[], ParsedAct]:
    path = CORPUS / name
    data = path.read_bytes()
    fmt = "consolidated" if parser is parse_consolidated else "oj"
    root = read_html(data, path)

    def parse() -> ParsedAct:
        return parser(read_html(data, path), path)

    CHECKS[parse] = lambda parsed: (check_coverage(root, parsed, fmt, path), check_list_labels(root, parsed, fmt, path))
    return parse


def formex_dir_case(name: str) -> Callable[[], ParsedAct]:
    path = CORPUS / name
    files = formex_files_from_dir(path)
    return lambda: parse_formex(files, path)


def formex_zip_case(name: str) -> Callable[[], ParsedAct]:
    """Zip extraction (in memory, with the zip-bomb checks) included."""
    path = CORPUS / name
    data = path.read_bytes()
    return lambda: parse_formex(formex_files_from_zip(data, path), path)


CASES: list[tuple[str, Callable[[], ParsedAct]]] = []
if CORPUS.is_dir():
    CASES += [
        ("oj  32024R1689 AI Act EN", html_case(parse_oj, "32024R1689.oj.xhtml")),
        ("oj  32024R1689 AI Act NL", html_case(parse_oj, "32024R1689.oj.nl.html")),
        ("oj  32016R0679 GDPR EN", html_case(parse_oj, "32016R0679.oj.html")),
        ("oj  32026R1744 Omnibus EN", html_case(parse_oj, "32026R1744.oj.xhtml")),
        ("oj  32024R2977 EUDI PID EN", html_case(parse_oj, "32024R2977.oj.html")),
        ("cons 02024R1689-20240712 NL", html_case(parse_consolidated, "02024R1689-20240712.consolidated.nl.html")),
        ("fmx 32024R1689 AI Act EN dir", formex_dir_case("fmx4/32024R1689")),
        ("fmx 32024R1689 AI Act EN zip", formex_zip_case("fmx4/32024R1689.fmx4.zip")),
        ("fmx 32022L2555 NIS2 EN dir", formex_dir_case("fmx4/32022L2555")),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per case; the best is reported")
    args = ap.parse_args(argv)
    if not CASES:
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 1
    print(f"{'case':30} {'units':>6} {'best ms':>9} {'units/s':>10} {'checks ms':>10}   kinds")
    for name, fn in CASES:
        best = float("inf")
        parsed = None
        for _ in range(max(1, args.repeat)):
            start = time.perf_counter()
            parsed = fn()
            best = min(best, time.perf_counter() - start)
        assert parsed is not None
        n = len(parsed.units)
        kinds = " ".join(f"{k}={v}" for k, v in sorted(parsed.counts().items()))
        checks = ""
        if fn in CHECKS:
            took = []
            for _ in range(max(1, args.repeat)):
                start = time.perf_counter()
                CHECKS[fn](parsed)
                took.append(time.perf_counter() - start)
            checks = f"{min(took) * 1000:.1f}"
        print(f"{name:30} {n:6d} {best * 1000:9.1f} {n / best:10.0f} {checks:>10}   {kinds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
