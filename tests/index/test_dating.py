"""For a "when ...?" question, the units that set the best candidates' dates join them (real AI Act)."""

from __future__ import annotations

import pytest

from lexcite.catalog import Catalog
from lexcite.index.chunks import passages
from lexcite.index.dating import date_setters
from lexcite.ingest.load import ingest_paths
from lexcite.question import asks_entry_into_force

pytestmark = pytest.mark.integration

V = "32024R1689@2024-07-12"


@pytest.fixture(scope="module")
def ai_act(corpus, tmp_path_factory):
    with Catalog(tmp_path_factory.mktemp("dating") / "catalog.sqlite") as c:
        ingest_paths(c, [corpus / "32024R1689.oj.xhtml"])
        ps = passages(list(c.records()))
        pos = {str(p.record.unit.ref): i for i, p in enumerate(ps)}
        yield c, ps, pos


def _setters(ai_act, question, ranked, scores):
    c, ps, pos = ai_act
    idx = [pos[f"{V}#{u}"] for u in ranked]
    final = {i: s for i, s in zip(idx, scores, strict=True)}
    got = date_setters(question, idx, final, ps, c.unit_dates, lambda ref: [pos[str(ref)]] if str(ref) in pos else [],
                       top=3)
    names = {i: ps[i].record.unit.unit for i in range(len(ps))}
    return {names[j]: (round(s, 4), names[got.set_for[j]]) for j, s in got.scores.items()}


def test_the_ban_gets_the_final_provision_that_dates_it_just_below_it(ai_act):
    # Article 5 applies from 2 February 2025 by Article 113(a); the recital has no date and brings none
    got = _setters(ai_act, "Since when is AI manipulation banned?", ["rct_31", "art_5.par_1.pnt_a"], [0.9, 0.8])
    assert got == {"art_113.pnt_a": (0.7999, "art_5.par_1.pnt_a")}


def test_entry_into_force_questions_get_the_unit_that_sets_entry_into_force(ai_act):
    assert asks_entry_into_force("When did the AI Act enter into force?")
    assert not asks_entry_into_force("From when do the rules on notified bodies apply?")
    got = _setters(ai_act, "When did the AI Act enter into force?", ["art_1.par_1"], [0.9])
    assert set(got) == {"art_113"}


def test_a_unit_ranked_higher_keeps_its_score(ai_act):
    got = _setters(ai_act, "Since when is AI manipulation banned?", ["art_113.pnt_a", "art_5.par_1.pnt_a"],
                   [0.95, 0.8])
    assert "art_113.pnt_a" not in got
