"""Time in answers, on the real GDPR, AI Act and Digital Omnibus: a provision in force but not yet applicable says
so, citing the unit that sets its date; "when" questions get the date the law sets; every such sentence is verified.

Retrieval is pinned to named provisions (in the version the perimeter admits), so these tests are about answering.
"""

from __future__ import annotations

import pytest
from answer_helpers import Pinned

from lexcite.answer import ask
from lexcite.answer.verify import verify
from lexcite.catalog import Catalog
from lexcite.contract import CitationRef, Perimeter
from lexcite.ingest.load import ingest_paths

pytestmark = pytest.mark.integration

AI, OMNI, GDPR = "32024R1689", "32026R1744", "32016R0679"
ORIG, AMENDED = "2024-07-12", "2026-07-27"


@pytest.fixture(scope="module")
def catalog(corpus, tmp_path_factory):
    with Catalog(tmp_path_factory.mktemp("timing") / "catalog.sqlite") as c:
        ingest_paths(c, [corpus / "32024R1689.oj.xhtml", corpus / "32026R1744.oj.xhtml", corpus / "32016R0679.oj.html"])
        yield c


def answer(catalog, question, *units, as_of=None, acts=()):
    return ask(question, Perimeter(as_of=as_of, acts=acts), generator="extractive", searcher=Pinned(catalog, *units),
               catalog=catalog, trace=False)


def timing(a) -> list:
    # sentences rendered from the catalog, the amended-by notes ("… was inserted by …") aside
    return [s for s in a.sentences if s.from_records and " was " not in s.text]


def refs(s) -> list[str]:
    return [str(r) for r in s.refs]


def test_a_duty_before_its_date_of_application_is_said_not_to_apply_yet(catalog):
    a = answer(catalog, "How quickly must we report a personal data breach?", (GDPR, "art_33.par_1"),
               as_of="2017-06-01")
    assert not a.refused, a.refusal_reason
    (s,) = timing(a)
    assert s.text == ("Article 33(1) of Regulation (EU) 2016/679 is in force but applies only from "
                      "25 May 2018 (Article 99(2)).")
    assert refs(s) == [f"{GDPR}@2016-05-04#art_33.par_1", f"{GDPR}@2016-05-04#art_99.par_2"]
    assert CitationRef.parse(f"{GDPR}@2016-05-04#art_99.par_2") in {e.ref for e in a.evidence}
    assert "timing" in a.flags and all(v.ok for v in a.verdicts)


def test_nothing_is_added_once_the_duty_applies(catalog):
    a = answer(catalog, "How quickly must we report a personal data breach?", (GDPR, "art_33.par_1"),
               as_of="2019-01-01")
    assert not a.refused and timing(a) == [] and "timing" not in a.flags


def test_the_omnibus_prohibition_applies_from_the_date_amended_article_113_sets(catalog):
    a = answer(catalog, "Is an app that makes fake nude images of real people banned?", (AI, "art_5.par_1.pnt_ba"),
               as_of="2026-09-01")
    assert not a.refused, a.refusal_reason
    (s,) = timing(a)
    assert "is in force but applies only from 2 December 2026 (Article 113, point (a))" in s.text
    assert refs(s) == [f"{AI}@{AMENDED}#art_5.par_1.pnt_ba", f"{AI}@{AMENDED}#art_113.pnt_a"]
    assert "27 July 2026" not in s.text


def test_when_must_we_comply_gives_each_case_cited_to_article_113(catalog):
    a = answer(catalog, "When must deployers of high-risk AI systems comply with their obligations?",
               (AI, "art_26.par_1"), as_of="2026-12-01")
    assert not a.refused, a.refusal_reason
    (s,) = timing(a)
    assert ("applies only from 2 December 2027 as regards AI systems classified as high-risk pursuant to Article 6(2) "
            "and Annex III, and from 2 August 2028 as regards AI systems classified as high-risk pursuant to "
            "Article 6(1) and Annex I") in s.text
    assert refs(s)[1:] == [f"{AI}@{AMENDED}#art_113.pnt_c.pnt_i", f"{AI}@{AMENDED}#art_113.pnt_c.pnt_ii"]


def test_before_the_omnibus_the_original_date_is_given(catalog):
    a = answer(catalog, "From when do deployers of high-risk AI systems have to comply?", (AI, "art_26.par_1"),
               as_of="2026-03-01")
    (s,) = timing(a)
    assert "is in force but applies only from 2 August 2026 (Article 113)" in s.text
    assert refs(s) == [f"{AI}@{ORIG}#art_26.par_1", f"{AI}@{ORIG}#art_113"]


def test_an_entry_into_force_computed_from_the_oj_date_is_verified_by_the_catalog_record(catalog):
    a = answer(catalog, "When did the GDPR enter into force?", (GDPR, "art_99.par_1"), as_of="2020-01-01")
    assert not a.refused, a.refusal_reason
    (s,) = timing(a)
    assert s.text == ("Regulation (EU) 2016/679 entered into force on 24 May 2016 (Article 99(1)) and applies from "
                      "25 May 2018 (Article 99(2)).")
    # the same sentence with another date is refused: only the recorded date passes
    sid = {e.ref: e.sid for e in a.evidence}
    draft = f"{s.text} [{', '.join(sid[r] for r in s.refs)}]"
    records = {CitationRef.parse(f"{GDPR}@2016-05-04#art_99.par_1"): "2016-05-24"}
    def outside(r):
        return catalog.outside(r, a.perimeter)

    assert verify(draft, a.evidence, outside, record_dates=records).ok
    assert not verify(draft.replace("24 May 2016", "4 May 2016"), a.evidence, outside, record_dates=records).ok


def test_no_sentence_cites_a_setting_unit_outside_the_perimeter(catalog):
    # Article 4 as replaced applies from the Omnibus's entry into force (its Article 4): outside acts=(AI Act,)
    a = answer(catalog, "From when does the AI literacy duty apply?", (AI, "art_4.par_1"), as_of="2026-12-01",
               acts=(AI,))
    # the date asked cannot be cited inside the perimeter: refused, rather than answered without it
    assert a.refused and "date" in a.refusal_reason
    assert all(e.ref.act == AI for e in a.evidence)


def test_a_further_case_with_its_own_date_is_said_beside_the_general_one(corpus):
    from lexcite.answer.timing import Timing, timing_sentence
    from lexcite.ingest.dates import dates_of
    from lexcite.ingest.load import read_document

    parsed, _ = read_document(corpus / "32023R2854.oj.xhtml")  # the Data Act, Article 50
    per_unit = dates_of(parsed.units, parsed.version, dict(parsed.divisions))
    ref = CitationRef("32023R2854", parsed.version, "art_13.par_1")
    text, cited = timing_sentence(Timing(ref, per_unit["art_13.par_1"]), "2025-01-01", "")
    assert text == ("Article 13(1) of Regulation (EU) 2023/2854 is in force but applies only from "
                    "12 September 2025, and from 12 September 2027 to contracts concluded on or before 12 September "
                    "2025 provided that they are (Article 50).")
    assert [r.unit for r in cited] == ["art_13.par_1", "art_50"]
