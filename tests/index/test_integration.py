"""Retrieval on the real acts (../shared/corpus/raw), parsed by the real parsers.

To keep the suite inside its time budget the index holds a slice of each act
(the provisions the questions below need, as the parser emitted them) plus the
guidance note in data/guidance, ingested the way `lexcite ingest --guidance
--celex` does it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from pathlib import Path

import pytest

from lexcite.catalog import Catalog, Source
from lexcite.contract import Perimeter
from lexcite.index.build import build
from lexcite.index.search import Searcher, Stages
from lexcite.ingest.load import Overrides, ingest_paths, read_document

from .conftest import EMBEDDER, RERANKER

pytestmark = [pytest.mark.slow, pytest.mark.integration]

GUIDANCE = Path(__file__).resolve().parents[2] / "data" / "guidance" / "ai-literacy-guidance.xhtml"
GUIDANCE_CELEX = "52025XC0042"
AI_ACT, OMNIBUS, GDPR = "32024R1689", "32026R1744", "32016R0679"
KEEP = {
    AI_ACT: {"art_4", "art_5", "art_50", "art_99", "art_113", "rct_20"},
    OMNIBUS: {"art_1", "rct_40"},
    GDPR: {"art_37", "art_83"},
}
NO_THRESHOLD = replace(Stages(), threshold=False)


def _top(uid: str) -> str:
    return uid.split(".")[0]


@pytest.fixture(scope="module")
def real_index(corpus, tmp_path_factory):
    home = tmp_path_factory.mktemp("real") / "home"
    files = {AI_ACT: "32024R1689.oj.xhtml", OMNIBUS: "32026R1744.oj.xhtml", GDPR: "32016R0679.oj.html"}
    with Catalog(home / "catalog.sqlite") as c:
        # the guidance first: an ingest applies amending acts stored but not applied, and this fixture keeps
        # the Omnibus as a stored act of its own (only the two instructions it asks about), never applied
        [guide] = ingest_paths(c, [GUIDANCE], Overrides(act=GUIDANCE_CELEX, binding=False))
        assert guide.counts.get("article") == 3
        for act, name in files.items():
            parsed, sha = read_document(corpus / name)
            keep = tuple(u for u in parsed.units if _top(u.unit) in KEEP[act]
                         and not (act == OMNIBUS and u.unit.startswith("art_1.") and
                                  _top(u.unit.split(".", 1)[1]) not in {"pnt_5", "pnt_40"}))
            c.store(dataclasses.replace(parsed, units=keep), Source(location=str(corpus / name), sha256=sha))
        build(c, home=home, chroma_url="", embedder=EMBEDDER, reranker=RERANKER)
    with Searcher(home, chroma_url="") as s:
        yield s


def test_prohibited_practices_are_found_in_article_5(real_index):
    r = real_index.search("Which AI practices are prohibited?", Perimeter(acts=(AI_ACT,)), stages=NO_THRESHOLD)
    assert any(c.ref.unit.startswith("art_5.") for c in r.ranked[:6])


def test_act_filter_keeps_the_gdpr_out_of_an_ai_act_question(real_index):
    r = real_index.search("What are the maximum fines?", Perimeter(acts=(GDPR,)), stages=NO_THRESHOLD)
    assert r.ranked and all(c.ref.act == GDPR for c in r.ranked)
    assert any(c.ref.unit.startswith("art_83.") for c in r.ranked[:6])


def test_binding_ai_literacy_duty_outranks_the_guidance_restating_it(real_index):
    q = "Do providers and deployers have to ensure a sufficient level of AI literacy of their staff?"
    r = real_index.search(q, Perimeter(), stages=NO_THRESHOLD)
    refs = [(c.ref.act, c.ref.unit) for c in r.ranked]
    assert (GUIDANCE_CELEX, "art_1.par_1") in refs  # the guidance matches too ...
    binding = [i for i, (act, unit) in enumerate(refs) if act == AI_ACT and unit == "art_4"]
    assert binding and binding[0] < refs.index((GUIDANCE_CELEX, "art_1.par_1"))  # ... but ranks below the law


def test_guidance_is_out_with_binding_only(real_index):
    r = real_index.search("AI literacy training for staff", Perimeter(binding_only=True), stages=NO_THRESHOLD)
    assert r.ranked and all(c.binding for c in r.ranked)


def test_omnibus_amendment_is_retrieved_for_the_new_annex_iii_date(real_index):
    r = real_index.search("When do the obligations for high-risk AI systems listed in Annex III start to apply?",
                          Perimeter(acts=(OMNIBUS,)), stages=NO_THRESHOLD)
    assert r.ranked and all(c.ref.act == OMNIBUS for c in r.ranked)
    assert any(c.ref.unit.startswith("art_1.pnt_40") for c in r.ranked[:6])


def test_a_question_asked_under_a_law_the_catalog_lacks_admits_nothing_and_says_which(real_index):
    q = "Under the Data Act, can owners of a connected car demand the data the car generates?"
    r = real_index.search(q, Perimeter(), stages=NO_THRESHOLD)
    assert r.outside == ("Data Act",) and r.abstained and r.admitted == ()
    assert r.ranked, "the ranking is still computed, for --explain"
    assert {why for _, why in r.discarded} >= {
        "the question is asked under the Data Act, which the catalog does not hold (ingest it to ask about it)"}
    unchecked = real_index.search(q, Perimeter(), stages=replace(NO_THRESHOLD, scope=False))
    assert unchecked.outside == () and unchecked.admitted  # the switch the ablation and --no-threshold use


def test_a_question_citing_a_provision_no_act_has_admits_nothing_and_names_it(real_index):
    r = real_index.search("What does Article 120 of the GDPR say about penalties?", Perimeter(), stages=NO_THRESHOLD)
    nowhere = ", which no act it may mean has in any version the catalog holds"
    assert r.absent == ("Article 120 of the GDPR" + nowhere,) and r.abstained and r.admitted == ()
    assert r.ranked, "the ranking is still computed, for --explain"
    assert sum("cites Article 120 of the GDPR" in why for _, why in r.discarded) == len(r.ranked)
    for q in ("What does Article 83(5) of the GDPR say?", "Under Article 99(4), how high can the fine be?",
              "articolo 50, paragrafo 2: cosa devono fare i fornitori?"):  # provisions the acts have: not absent
        assert real_index.search(q, Perimeter(), stages=NO_THRESHOLD).absent == (), q
    paragraph = real_index.search("What does Article 50(9) of the AI Act require?", Perimeter(), stages=NO_THRESHOLD)
    assert paragraph.absent == ("Article 50(9) of the AI Act" + nowhere,) and paragraph.admitted == ()  # it has 7


def test_an_annex_of_an_act_that_has_none_is_absent(real_index):
    # the GDPR has no annex (nor has this fixture's cut of the AI Act)
    r = real_index.search("The GDPR's annex has a template for impact assessments. Which sections does it list?",
                          Perimeter(), stages=NO_THRESHOLD)
    assert r.absent == ("an annex of Regulation (EU) 2016/679, which has none in any version the catalog holds",)
    assert r.abstained and r.admitted == ()
    for q in ("Do the annexes of the AI Act or the GDPR say anything about templates?",  # two acts: not read
              "What must the GDPR's records of processing contain?"):  # no annex named
        assert real_index.search(q, Perimeter(), stages=NO_THRESHOLD).absent == (), q


def test_a_question_under_a_held_act_is_not_refused_by_the_scope_check(real_index):
    for q in ("Under the EU AI Act, which practices are prohibited?",
              "If our AI product meets the Cyber Resilience Act, must we still show it meets the AI Act's "
              "cybersecurity requirement?"):
        r = real_index.search(q, Perimeter(), stages=NO_THRESHOLD)
        assert r.outside == () and r.admitted, q
