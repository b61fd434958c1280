"""run_golden: calibration happens only when asked, on the evaluated file, before the index is opened."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import lexcite.index.calibrate as calibrate_mod
import lexcite.index.search as search_mod
from lexcite.eval.golden import load_golden
from lexcite.eval.golden_run import run_golden

pytestmark = pytest.mark.unit


class Calibration:
    def to_dict(self):
        return {"threshold": 0.5, "stages": "all"}


class HeldActs:
    """The catalog side run_golden reads: every act the golden file asks about is held."""

    def __init__(self, golden_file):
        qs = load_golden(golden_file)
        self.acts = {r.act for q in qs for r in q.expected} | {a for q in qs for a in q.perimeter.acts}

    def versions(self):
        return [SimpleNamespace(act=a) for a in sorted(self.acts)]

    def outside(self, ref, perimeter):
        return None


@pytest.fixture
def events(monkeypatch, stub_searcher, golden_file):
    log = []

    class OpenSearcher:
        def __init__(self, home=None, settings=None):
            log.append("open")
            self.manifest = {"thresholds": {}}
            self.catalog = HeldActs(golden_file)
            self.embedder_name, self.reranker_spec = "minilm", "embedder:minilm"

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

        def search(self, *args, **kwargs):
            return stub_searcher.search(*args, **{k: v for k, v in kwargs.items() if k != "stages"})

    monkeypatch.setattr(search_mod, "Searcher", OpenSearcher)
    monkeypatch.setattr(search_mod, "ABLATION", {"full": None})
    monkeypatch.setattr(calibrate_mod, "calibrate",
                        lambda questions, source, home=None, settings=None, min_covered=1:
                        log.append(("calibrate", source, {q.split for q in questions}, min_covered)) or Calibration())
    return log


def test_stored_threshold_is_used_unless_calibration_is_asked_for(golden_file, events):
    r = run_golden(golden_file, with_answers=False)
    assert events == ["open"]
    assert r.meta["calibrated"] is False


def test_calibrate_runs_on_the_evaluated_file_before_the_index_opens(golden_file, events):
    r = run_golden(golden_file, split="test", calibrate=True, with_answers=False)
    # its dev questions only, calibrated on as given: the file is not the shipped golden set
    assert events == [("calibrate", str(golden_file), {"dev"}, 1), "open"]
    assert r.meta["calibration"] == {"threshold": 0.5, "stages": "all"} and r.summary["n"] == 2


def test_questions_about_acts_the_catalog_does_not_hold_are_left_out_and_named(golden_file, events, tmp_path):
    import json

    extra = {"id": "cx1", "question": "What is an online platform?", "expected": ["32022R2065#art_3.pnt_i"],
             "anchors": [], "key_facts": [], "behavior": "answer", "filters": {"language": "en"},
             "category": "act_filter", "post_cutoff": False, "split": "test"}
    path = tmp_path / "more.jsonl"
    path.write_text(golden_file.read_text(encoding="utf-8") + json.dumps(extra) + "\n", encoding="utf-8")
    # the events fixture's catalog holds the acts of golden_file only, not the DSA
    base, more = run_golden(golden_file, with_answers=False), run_golden(path, with_answers=False)

    assert more.meta["left_out"] == ["cx1"] and base.meta["left_out"] == []
    assert more.summary == base.summary
