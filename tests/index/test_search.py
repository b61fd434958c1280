"""The retrieval behaviour suite, run on both index backends: embedded Chroma and a Chroma server.

The index is built once per backend (module scope) from three toy acts; the
models are the small ones shipped as packages, loaded once per session.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexcite.catalog import Catalog
from lexcite.contract import Perimeter
from lexcite.errors import ConfigError
from lexcite.index.build import build
from lexcite.index.search import ABLATION, Params, Searcher, Stages

from .conftest import AI, DP, EMBEDDER, GUIDE, RERANKER, ai_act, dp_act, guidance, store

pytestmark = pytest.mark.slow

NO_THRESHOLD = replace(Stages(), threshold=False)


def _build_home(home: Path, url: str) -> None:
    with Catalog(home / "catalog.sqlite") as c:
        store(c, ai_act("2021-01-01", "2. Deployers shall keep the logs for three months."))
        store(c, ai_act())  # the newer version supersedes the first
        store(c, dp_act())
        store(c, guidance())
        build(c, home=home, chroma_url=url, embedder=EMBEDDER, reranker=RERANKER)


@pytest.fixture(scope="module", params=["embedded", "server"])
def index_home(request, tmp_path_factory):
    """(home, chroma url) of a built index; the server backend starts a real `chroma run`."""
    url = request.getfixturevalue("chroma_server") if request.param == "server" else ""
    home = tmp_path_factory.mktemp(f"home-{request.param}")
    _build_home(home, url)
    return home, url


@pytest.fixture(scope="module")
def searcher(index_home):
    home, url = index_home
    with Searcher(home, chroma_url=url) as s:
        yield s


def _units(result, act=None):
    return [c.ref.unit for c in result.ranked if act is None or c.ref.act == act]


class TestPerimeterBeforeRanking:
    def test_unit_outside_perimeter_never_enters_evidence(self, searcher):
        q = "Controllers shall keep logs of processing of personal data for six months"
        everywhere = searcher.search(q, Perimeter(), stages=NO_THRESHOLD)
        assert everywhere.ranked[0].ref.act == DP  # it is the best match when allowed
        inside = searcher.search(q, Perimeter(acts=(AI,)), stages=NO_THRESHOLD)
        refs = [c.ref for c in inside.ranked] + [h.ref for hits in inside.stage_hits.values() for h in hits]
        assert refs and all(r.act == AI for r in refs)
        assert inside.admitted and all(c.ref.act == AI for c in inside.admitted)
        assert not any(ref.startswith(DP) for ref, _ in inside.discarded)  # it never even competed

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(p=st.builds(Perimeter, acts=st.lists(st.sampled_from((AI, DP, GUIDE)), max_size=2, unique=True).map(tuple),
                       include_superseded=st.booleans(), binding_only=st.booleans(),
                       as_of=st.sampled_from((None, "2020-01-01", "2021-06-01", "2022-02-01")),
                       kinds=st.sampled_from(((), ("paragraph",), ("article", "point")))),
           q=st.sampled_from(("logs for six months", "AI literacy of staff", "fines of EUR 35 000 000", "shall")))
    def test_every_unit_any_stage_returns_lies_inside_a_random_perimeter(self, searcher, p, q):
        r = searcher.search(q, p, stages=NO_THRESHOLD)
        inside = {p_.record.unit.ref for p_ in searcher.passages if p.admits(p_.record)}
        returned = [c.ref for c in r.ranked] + [h.ref for hits in r.stage_hits.values() for h in hits]
        assert set(returned) <= inside

    def test_superseded_version_is_not_searched_unless_asked(self, searcher):
        q = "How long must deployers keep the logs?"
        now = searcher.search(q, Perimeter(acts=(AI,)), stages=NO_THRESHOLD)
        assert now.ranked and {c.ref.version for c in now.ranked} == {"2022-01-01"}
        then = searcher.search(q, Perimeter(acts=(AI,), as_of="2021-06-01"), stages=NO_THRESHOLD)
        assert then.ranked and all(c.ref.version == "2021-01-01" for c in then.ranked)
        assert then.ranked[0].status == "superseded"

    def test_binding_only_excludes_guidance(self, searcher):
        r = searcher.search("AI literacy training of staff", Perimeter(binding_only=True), stages=NO_THRESHOLD)
        assert r.ranked and all(c.ref.act != GUIDE for c in r.ranked)


class TestRanking:
    def test_hit_on_a_later_chunk_is_a_hit_on_its_unit(self, searcher):
        r = searcher.search("register kept in the language of the Member State where the lighthouse keeper "
                            "resides", Perimeter(acts=(AI,)), stages=ABLATION["dense"])
        assert r.ranked[0].ref.unit == "art_4.par_1"
        assert _units(r).count("art_4.par_1") == 1  # several chunks, one unit
        assert "~" not in str(r.ranked[0].ref)

    def test_binding_text_outranks_guidance_saying_the_same(self, searcher):
        q = "Must providers ensure a sufficient level of AI literacy of their staff?"
        r = searcher.search(q, Perimeter(), stages=NO_THRESHOLD)
        units = [(c.ref.act, c.ref.unit) for c in r.ranked]
        assert (AI, "art_2.par_1") in units and (GUIDE, "art_1") in units
        assert units.index((AI, "art_2.par_1")) < units.index((GUIDE, "art_1"))
        c = r.ranked[units.index((AI, "art_2.par_1"))]
        assert c.stage_scores["binding_bonus"] > 0

    def test_a_when_question_prefers_the_passage_that_states_a_date(self, searcher):
        q = "When does this Regulation on artificial intelligence start to apply?"
        # the dates stage off in both: it lifts art_5 (the act's date provision) as the unit dating the others
        plain = replace(NO_THRESHOLD, dates=False)
        off = searcher.search(q, Perimeter(acts=(AI,)), stages=replace(plain, value_priority=False))
        on = searcher.search(q, Perimeter(acts=(AI,)), stages=plain)
        dated = next(c for c in on.ranked if c.ref.unit == "art_5")
        assert dated.stage_scores["value_bonus"] > 0
        assert not any("value_bonus" in c.stage_scores for c in on.ranked if c.ref.unit == "art_1")
        assert _units(on).index("art_5") <= _units(off).index("art_5")
        before = next(c for c in off.ranked if c.ref.unit == "art_5")
        assert dated.score == pytest.approx(before.score + dated.stage_scores["value_bonus"])

    def test_a_when_question_gets_the_unit_that_dates_its_best_candidates(self, searcher):
        q = "When does this Regulation on artificial intelligence start to apply?"
        on = searcher.search(q, Perimeter(acts=(AI,)), stages=NO_THRESHOLD)
        lifted = [c for c in on.ranked if "sets_date_of" in c.stage_scores]
        assert [c.ref.unit for c in lifted] == ["art_5"]  # the toy act's entry into force and application
        assert "dates" in on.timings
        off = searcher.search(q, Perimeter(acts=(AI,)), stages=replace(NO_THRESHOLD, dates=False))
        assert not any("sets_date_of" in c.stage_scores for c in off.ranked) and "dates" not in off.timings

    def test_bm25_weighs_what_the_question_asks_above_the_situation_it_sets_out(self, searcher):
        # the situation's words are Article 3(2)'s, the asking sentence's Article 2(2)'s
        q = "Member States notify penalties to the Commission. How long must deployers keep the logs generated?"
        on = searcher.search(q, Perimeter(acts=(AI,)), stages=NO_THRESHOLD)
        off = searcher.search(q, Perimeter(acts=(AI,)), stages=replace(NO_THRESHOLD, asking=False))
        first = {name: [h.ref.unit for h in r.stage_hits["bm25"]][0] for name, r in (("on", on), ("off", off))}
        assert first == {"on": "art_2.par_2", "off": "art_3.par_2"}

    def test_a_question_asking_no_value_gets_no_value_bonus(self, searcher):
        r = searcher.search("Who must keep the logs?", Perimeter(acts=(AI,)), stages=NO_THRESHOLD)
        assert not any("value_bonus" in c.stage_scores for c in r.ranked)

    def test_siblings_of_top_hits_join_the_candidates(self, index_home):
        home, url = index_home
        with Searcher(home, chroma_url=url, params=Params(pool=1, sibling_hits=1, max_siblings=2)) as s:
            r = s.search("fines of up to EUR 35 000 000", Perimeter(acts=(AI,)), stages=ABLATION["+siblings"])
        assert r.ranked[0].ref.unit == "art_3.par_1.pnt_a"
        siblings = [c.ref.unit for c in r.ranked if c.via == "sibling"]
        # the nearest other passages of Article 3, in document order
        assert siblings == ["art_3.par_1.pnt_b", "art_3.par_2"]
        assert [h.ref.unit for h in r.stage_hits["sibling"]] == siblings

    def test_every_stage_reports_its_hits_scores_and_time(self, searcher):
        r = searcher.search("Deployers keep logs", Perimeter(acts=(AI,)), stages=NO_THRESHOLD)
        assert {"bm25", "dense", "rrf", "rerank"} <= set(r.stage_hits)
        assert {"perimeter", "bm25", "dense", "fuse", "rerank", "total"} <= set(r.timings)
        top = r.ranked[0]
        assert {"bm25", "dense", "rrf", "rerank"} <= set(top.stage_scores)
        assert r.discarded and all(reason for _, reason in r.discarded)

    def test_k_limits_the_admitted_units_and_the_rest_are_discarded_with_a_reason(self, searcher):
        r = searcher.search("shall", Perimeter(), k=2, stages=NO_THRESHOLD)
        assert len(r.admitted) == 2
        assert any("beyond k=2" in why for _, why in r.discarded)

    def test_each_ablation_row_runs(self, searcher):
        for name, stages in ABLATION.items():
            if stages.threshold:
                continue
            r = searcher.search("Deployers keep logs", Perimeter(acts=(AI,)), stages=stages)
            assert r.ranked, name
            assert ("rerank" in r.stage_hits) == stages.rerank, name

    def test_search_without_calibration_refuses_to_guess_a_threshold(self, searcher):
        with pytest.raises(ConfigError, match="lexcite calibrate"):
            searcher.search("Deployers keep logs", Perimeter(), stages=Stages())

    def test_params_change_the_pool(self, index_home):
        home, url = index_home
        with Searcher(home, chroma_url=url, params=Params(pool=2, n_bm25=2, n_dense=2)) as s:
            r = s.search("shall", Perimeter(), stages=ABLATION["hybrid"])
        assert len(r.ranked) == 2


class TestEvidenceByProvision:
    def test_the_result_carries_its_provisions_inside_the_perimeter(self, searcher):
        p = Perimeter(acts=(AI,))
        r = searcher.search("What fines apply for non-compliance with the prohibition?", p, stages=NO_THRESHOLD)
        ev = r.provisions
        assert ev is not None and ev.groups and ev.tokens <= ev.budget
        units = ev.units()
        assert all(p.admits(searcher.catalog.resolve(u.ref, "en")) for u in units)
        assert units[0].ref.unit.startswith("art_3") and ev.groups[0].provision.unit == "art_3"
        ranked = {c.ref for c in r.ranked}
        assert {u.ref for g in ev.groups for u in g.ranked} <= ranked
        smaller = searcher.evidence(r, 1)  # the best unit only, whatever the budget
        assert [u.ref for u in smaller.units()] == [r.ranked[0].ref]

    def test_nothing_admitted_hands_over_no_evidence(self, searcher):
        r = searcher.search("What fines apply?", Perimeter(acts=("32099R0404",)), stages=NO_THRESHOLD)
        assert r.abstained and r.provisions is not None and r.provisions.groups == ()
