"""run_golden: calibration happens only when asked, on the evaluated file, before the index is opened."""

from __future__ import annotations

import pytest

import lexcite.index.calibrate as calibrate_mod
import lexcite.index.search as search_mod
from lexcite.eval.golden_run import run_golden

pytestmark = pytest.mark.unit


class Calibration:
    def to_dict(self):
        return {"threshold": 0.5, "stages": "all"}


@pytest.fixture
def events(monkeypatch, stub_searcher):
    log = []

    class OpenSearcher:
        def __init__(self, home=None):
            log.append("open")
            self.manifest = {"thresholds": {}}
            self.catalog = None

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

        def search(self, *args, **kwargs):
            return stub_searcher.search(*args, **{k: v for k, v in kwargs.items() if k != "stages"})

    monkeypatch.setattr(search_mod, "Searcher", OpenSearcher)
    monkeypatch.setattr(search_mod, "ABLATION", {"full": None})
    monkeypatch.setattr(calibrate_mod, "calibrate", lambda questions, source, home=None:
                        log.append(("calibrate", source, {q.split for q in questions})) or Calibration())
    return log


def test_stored_threshold_is_used_unless_calibration_is_asked_for(golden_file, events):
    r = run_golden(golden_file, with_answers=False)
    assert events == ["open"]
    assert r.meta["calibrated"] is False


def test_calibrate_runs_on_the_evaluated_file_before_the_index_opens(golden_file, events):
    r = run_golden(golden_file, split="test", calibrate=True, with_answers=False)
    assert events == [("calibrate", str(golden_file), {"dev"}), "open"]  # its dev questions only
    assert r.meta["calibration"] == {"threshold": 0.5, "stages": "all"} and r.summary["n"] == 2
