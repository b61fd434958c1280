"""The stage ablation: each row runs exactly the stages it names, and "full" is the default configuration."""

from __future__ import annotations

from dataclasses import fields

import pytest

from lexcite.index.stages import ABLATION, Stages

pytestmark = pytest.mark.unit

# The stages each row adds, in the order the rows build on each other.
NAMED = {
    "bm25": {"bm25"},
    "dense": {"dense"},
    "hybrid": {"bm25", "dense"},
    "+siblings": {"bm25", "dense", "siblings"},
    "+rerank": {"bm25", "dense", "siblings", "rerank"},
    "+binding": {"bm25", "dense", "siblings", "rerank", "binding_priority"},
    "+value": {"bm25", "dense", "siblings", "rerank", "binding_priority", "value_priority"},
    "+named": {"bm25", "dense", "siblings", "rerank", "binding_priority", "value_priority", "named"},
    "+provenance": {"bm25", "dense", "siblings", "rerank", "binding_priority", "value_priority", "named",
                    "provenance"},
    "+dates": {"bm25", "dense", "siblings", "rerank", "binding_priority", "value_priority", "named",
               "provenance", "dates"},
    "+definitions": {"bm25", "dense", "siblings", "rerank", "binding_priority", "value_priority", "named",
                     "provenance", "dates", "definitions"},
    "+sentences": {"bm25", "dense", "siblings", "rerank", "binding_priority", "value_priority", "named",
                   "provenance", "dates", "definitions", "acts", "expansion", "sentences"},
    "+applicability": {"bm25", "dense", "siblings", "rerank", "binding_priority", "value_priority", "named",
                       "provenance", "dates", "definitions", "acts", "expansion", "sentences", "applicability"},
    "+asking": {"bm25", "dense", "siblings", "rerank", "binding_priority", "value_priority", "named", "provenance",
                "dates", "definitions", "acts", "expansion", "sentences", "applicability", "asking"},
    "+second": {"bm25", "dense", "siblings", "rerank", "binding_priority", "value_priority", "named", "provenance",
                "dates", "definitions", "acts", "expansion", "sentences", "applicability", "asking", "second"},
}


@pytest.mark.parametrize("row", sorted(NAMED))
def test_an_ablation_row_runs_only_the_stages_it_names(row):
    on = {f.name for f in fields(Stages) if getattr(ABLATION[row], f.name)}
    assert on == NAMED[row]  # the scope check and the threshold are off too: no stage is left on by omission


@pytest.mark.parametrize("row", [r for r in ABLATION if r != "full"])
def test_no_ablation_row_decides_admission(row):
    assert not ABLATION[row].threshold and not ABLATION[row].scope


def test_the_full_row_is_the_default_configuration():
    assert ABLATION["full"] == Stages()
