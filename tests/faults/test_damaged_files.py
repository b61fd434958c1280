"""Seeded byte mutations of real files: none is accepted with law missing (issue 16, item 2).

The full run (200 variants of six files) is bench/mutations.py; this is a fast sample of it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_BENCH = Path(__file__).resolve().parent.parent.parent / "bench" / "mutations.py"
_spec = importlib.util.spec_from_file_location("bench_mutations", _BENCH)
mutations = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mutations)


@pytest.mark.parametrize(("name", "n"), [("32024R2977.oj.html", 200), ("fmx4/32022L2555", 20)])
def test_no_mutated_variant_is_accepted_short(corpus, name, n):
    outcomes, bad = mutations.run(corpus / name, n, seed=1)
    assert bad == []
    assert outcomes["refused"] > 0 and sum(outcomes.values()) == n
