"""The abstention threshold, calibrated on dev questions (never a hand-picked constant).

Invariant 2 (no evidence, no answer) needs a line under which nothing is
admitted. It is measured, not chosen:

1. For every question given (the caller passes the golden set's `split: dev`
   questions), run the search without a threshold and take the final score of
   the top-ranked unit (no unit at all counts as -inf). The score is on the
   scale of the last stage that ran (admission.score_scale).
2. Answerable questions are those with behavior `answer` or `conflict` whose
   expected acts are in the catalog; `abstain` questions should abstain. A question
   asked under a law the catalog lacks abstains whatever its score (index/scope.py)
   and is left out.
3. Candidate thresholds are the midpoints between consecutive distinct top
   scores. A question abstains when its top score is below the threshold.
4. Keep the thresholds that wrongly abstain on none of the answerable questions
   (`MAX_WRONG_ABSTAIN`); among them take the one with the most correct
   abstentions and, on a tie, the lowest. The score is a safety net for a
   question nothing in the catalog is about, not the judge of answerability: a
   retrieval score barely tells an answerable question from an unanswerable one
   (AUC 0.49-0.66), so the decision is taken after evidence (answer/answerable.py).
   On the dev split the earlier 10% allowance bought 2 correct abstentions for 2
   wrong ones, and refused 13% of the answerable questions of a larger set.

`test` questions are never given here. One threshold is stored per ranking
configuration (`stages_key`) in the index manifest: by default only the one `search` and `ask` run
(the pipeline as shipped), others on request (`configurations=`). Each costs a search of every
question, and the ablation rows of `lexcite eval` rank without a threshold: calibrating all seventeen
took 6 minutes on 2 cores where the default's takes 1 (bench/RESULTS.md, "Stop 45").

5. A catalog the shipped golden set does not cover (the user's own acts: fewer than
   `MIN_COVERED` answerable dev questions here) gets the threshold calibrated on the shipped
   golden set over its own acts for the same embedder and reranker (data/golden/thresholds.json, written by
   `python bench/shipped_thresholds.py HOME`): the same score scale, stated as such
   (`golden` says "shipped"). `lexcite calibrate --golden FILE` with the user's own
   questions replaces it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from lexcite import config
from lexcite.catalog import Catalog
from lexcite.config import Settings
from lexcite.contract import CitationRef, Perimeter
from lexcite.errors import ConfigError, IndexMismatch
from lexcite.index.admission import SCALES, refused_before_ranking, score_scale
from lexcite.index.interrupted import build_lock
from lexcite.index.manifest import load_manifest, save_manifest
from lexcite.index.search import Searcher
from lexcite.index.stages import Params, Stages, stages_key

__all__ = ["Calibration", "CalibrationQuestion", "choose_threshold", "calibrate", "MAX_WRONG_ABSTAIN", "MIN_COVERED",
           "RULE", "SHIPPED", "shipped_key"]

MAX_WRONG_ABSTAIN = 0.0
# A line drawn under a few answerable questions refuses every other question that scores below the lowest of them
# (about 1 in k+1 for k questions): an ePrivacy Directive home had 1 answerable dev question, was given 1.002, and
# refused the user's next question at 0.927. Under this many, the shipped golden set's line is used when recorded.
# A golden file of the user's own is calibrated on as given.
MIN_COVERED = 20
RULE = ("max correct abstentions on dev, subject to wrongly abstaining on no answerable dev question; "
        "ties -> lowest threshold; thresholds are midpoints between observed top-1 scores")


SHIPPED = Path(__file__).resolve().parents[2] / "data" / "golden" / "thresholds.json"


def shipped_key(embedder: str, reranker: str) -> str:
    return f"{embedder} | {reranker}"


def _shipped(embedder: str, reranker: str, key: str, params: Params, covered: int = 0) -> Calibration | None:
    """The threshold the shipped golden set gave this embedder, reranker, stages and parameters, if recorded;
    `covered`: how many dev questions were answerable from this catalog (too few to draw the line on)."""
    try:
        entry = json.loads(SHIPPED.read_text(encoding="utf-8"))["thresholds"][shipped_key(embedder, reranker)][key]
    except (OSError, KeyError, ValueError):
        return None
    if entry.get("params") != asdict(params):
        return None  # calibrated under other search parameters: another score scale
    fields = {k: entry[k] for k in ("stages", "threshold", "scale", "answerable", "abstain", "correct_abstentions",
                                    "wrong_abstentions", "skipped")}
    few = f"only {covered} of its dev questions {'is' if covered == 1 else 'are'} about your acts; " if covered else ""
    return Calibration(**fields, golden=f"shipped: {entry['golden']} over its own acts ({SHIPPED.name}); {few}"
                                        "not your questions - run `lexcite calibrate --golden FILE`")


@dataclass(frozen=True)
class Calibration:
    stages: str
    threshold: float
    scale: str
    answerable: int
    abstain: int
    correct_abstentions: int
    wrong_abstentions: int
    skipped: int
    golden: str  # where the questions came from (a golden file's path)
    rule: str = RULE

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def choose_threshold(answerable: Sequence[float], abstain: Sequence[float],
                     max_wrong: float = MAX_WRONG_ABSTAIN) -> tuple[float, int, int]:
    """(threshold, correct abstentions, wrong abstentions) under the rule in the module docstring.

    Raises:
        ConfigError: no answerable question to calibrate on.
    """
    if not answerable:
        raise ConfigError("calibration needs at least one answerable dev question")
    allowed = math.floor(max_wrong * len(answerable) + 1e-9)
    values = sorted({s for s in (*answerable, *abstain) if math.isfinite(s)})
    if not values:
        return 0.0, sum(1 for s in abstain if not math.isfinite(s)), 0
    # below everything (abstain only on -inf), between each pair, above everything
    cands = [values[0] - 1e-6] + [(a + b) / 2 for a, b in zip(values, values[1:], strict=False)] + [values[-1] + 1e-6]
    best: tuple[int, float, int] | None = None  # (correct, -threshold, wrong)
    unranked = sum(1 for s in answerable if not math.isfinite(s))  # refused by no threshold: nothing was ranked
    for t in cands:
        wrong = sum(1 for s in answerable if s < t)
        if wrong - unranked > allowed:  # the limit is on what the threshold refuses
            continue
        correct = sum(1 for s in abstain if s < t)
        if best is None or (correct, -t) > (best[0], best[1]):
            best = (correct, -t, wrong)
    assert best is not None  # the lowest candidate abstains on no finite score, so it is always allowed
    return -best[1], best[0], best[2]


class CalibrationQuestion(Protocol):
    """What calibration reads of a question (eval.golden.GoldenQuestion is one)."""

    @property
    def question(self) -> str: ...
    @property
    def behavior(self) -> str: ...  # "answer", "conflict" or "abstain"
    @property
    def expected(self) -> Sequence[CitationRef]: ...
    @property
    def perimeter(self) -> Perimeter: ...
    def asks_about(self, acts: set[str]) -> bool: ...  # whether the acts held could answer it


def calibrate(dev: Sequence[CalibrationQuestion], source: str, *, home: Path | None = None,
              catalog: Catalog | None = None, chroma_url: str | None = None,
              configurations: Sequence[Stages] | None = None, params: Params = Params(),
              settings: Settings | None = None, min_covered: int = 1) -> Calibration:
    """Calibrate thresholds on the questions `dev` (from `source`) and store them in the index manifest.

    Calibrates the default configuration (and `configurations`, e.g. `ABLATION.values()`); returns the default's.
    With fewer than `min_covered` answerable questions, the shipped threshold is used where one is recorded (rule 5).

    Raises:
        ConfigError: no question, or no usable one.
        IndexMismatch: no index, or an index out of step with the catalog.
    """
    settings = config.settings(settings)
    home = home or settings.home
    if not dev:
        raise ConfigError(f"{source}: no `split: dev` question to calibrate on")
    configs = list(configurations or ())
    if Stages() not in configs:
        configs.append(Stages())
    with Searcher(home, chroma_url=chroma_url, catalog=catalog, params=params, settings=settings) as searcher:
        acts = {p.record.unit.act for p in searcher.passages}
        results: dict[str, Calibration] = {}
        default_key = stages_key(searcher.active(Stages()))
        for stages in configs:
            stages = searcher.active(stages)  # what this index can run, as `search` does
            key = stages_key(stages)
            if key in results:
                continue
            ok, no, skipped = [], [], 0
            for q in dev:
                if q.behavior != "abstain" and not q.asks_about(acts):
                    skipped += 1
                    continue
                # the scope check is on whatever the row: thresholds are keyed by the ranking stages only, and a
                # question it refuses says nothing about where the threshold lies
                r = searcher.search(q.question, q.perimeter, k=6, stages=replace(stages, threshold=False, scope=True))
                if refused_before_ranking(r.outside, r.absent):  # refused whatever the threshold: nothing to learn
                    skipped += 1
                    continue
                top = r.ranked[0].score if r.ranked else -math.inf
                (no if q.behavior == "abstain" else ok).append(top)
            shipped = None if len(ok) >= max(1, min_covered) else \
                _shipped(searcher.embedder_name, searcher.reranker_spec, key, searcher.params, len(ok))
            if shipped is not None:  # (almost) nothing answerable in this catalog: the shipped set's line (rule 5)
                results[key] = shipped
                continue
            if not ok:
                raise ConfigError(f"{source}: no dev question is answerable from this catalog, and no threshold "
                                  f"is shipped for {shipped_key(searcher.embedder_name, searcher.reranker_spec)}; "
                                  "write a few questions about your acts and run `lexcite calibrate --golden FILE`")
            t, correct, wrong = choose_threshold(ok, no)
            results[key] = Calibration(key, t, SCALES[score_scale(stages, searcher.reranker_spec)], len(ok),
                                       len(no), correct, wrong, skipped, source)
        reranker, params = searcher.reranker_spec, asdict(searcher.params)
        calibrated = searcher.manifest
    with build_lock(home):  # no build rewrites the manifest between this read and this write
        manifest = load_manifest(home)
        if manifest is None or any(manifest.get(k) != calibrated.get(k) for k in ("collection", "built_at")) \
                or manifest.get("building"):
            raise IndexMismatch("the index was rebuilt while it was being calibrated; run `lexcite calibrate` again")
        manifest["thresholds"] = {
            key: {"value": c.threshold, **c.to_dict(), "reranker": reranker, "params": params,
                  "calibrated_at": datetime.now(UTC).isoformat(timespec="seconds")}
            for key, c in results.items()
        }
        save_manifest(home, manifest)
    return results[default_key]
