"""The stored build state: which abstention threshold `ask` applies, and where it comes from."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lexcite.index.manifest import threshold_in_use
from lexcite.index.stages import Stages, stages_key

pytestmark = pytest.mark.unit


def _manifest(golden: str) -> dict:
    return {"embedder": "e5", "reranker": "embedder:e5",  # no "second": built without the second reading
            "thresholds": {stages_key(replace(Stages(), second=False)): {"value": 0.964, "scale": "cosine",
                                                                           "golden": golden},
                           stages_key(Stages()): {"value": 0.904, "scale": "cosine", "golden": golden},
                           "other-stages": {"value": 0.1, "golden": golden}}}


def test_the_threshold_in_use_is_the_default_stages_one_and_says_whose_questions_set_it():
    own = threshold_in_use(_manifest("data/golden/golden.jsonl"))
    assert (own.value, own.scale, own.shipped) == (0.964, "cosine", False)
    assert own.source == "calibrated on data/golden/golden.jsonl"
    assert threshold_in_use({**_manifest("g.jsonl"), "second": "mpnet"}).value == 0.904  # the stage runs
    shipped = threshold_in_use(_manifest("shipped:e5/embedder:e5"))
    assert shipped.shipped and shipped.source == "calibrated on the shipped golden set:e5/embedder:e5"


def test_an_index_never_calibrated_has_no_threshold():
    assert threshold_in_use({"embedder": "e5", "reranker": "none"}) is None
    assert threshold_in_use({"thresholds": {"other-stages": {"value": 0.1}}}) is None
