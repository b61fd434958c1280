"""Amended provisions on the real AI Act and Digital Omnibus: the answer says which act changed a cited unit and
from when (a sentence rendered in code, citing both units, verified), and keeps the former text as former.

The two OJ texts are ingested once for the module (a few seconds; ingesting the Omnibus derives the amended AI Act
of 2026-07-27). Retrieval is pinned to named provisions, in whatever version the perimeter admits, so that these
tests are about answering, not ranking.
"""

from __future__ import annotations

import re

import pytest
from answer_helpers import Pinned

from lexcite.answer import ask
from lexcite.answer.amended import find_amendments, render
from lexcite.answer.conflicts import RULES
from lexcite.answer.trace import TraceStore
from lexcite.answer.verify import verify
from lexcite.catalog import Catalog
from lexcite.contract import CitationRef, Perimeter
from lexcite.ingest.load import ingest_paths

pytestmark = pytest.mark.integration

AI, OMNI = "32024R1689", "32026R1744"
ORIG, AMENDED = "2024-07-12", "2026-07-27"
NOW = Perimeter(as_of="2026-11-29")  # after the Omnibus applies, whatever today is
Q_LITERACY = ("Do we have to guarantee that every staff member reaches a certain level of AI know-how, or just help "
              "them build it?")
Q_SANDBOX = "By when must each EU country have at least one national AI regulatory sandbox up and running?"
Q_ANNEX_III = ("When do the obligations for high-risk systems in areas like hiring, credit scoring or education "
               "(Annex III) start to apply?")
LITERACY_NOTE = ("Article 4 of Regulation (EU) 2024/1689 was replaced by Regulation (EU) 2026/1744, Article 1, "
                 "point (5), applicable from 27 July 2026.")


def ref(text: str) -> CitationRef:
    return CitationRef.parse(text)


@pytest.fixture(scope="module")
def catalog(corpus, tmp_path_factory):
    with Catalog(tmp_path_factory.mktemp("amended") / "catalog.sqlite") as c:
        ingest_paths(c, [corpus / "32024R1689.oj.xhtml", corpus / "32026R1744.oj.xhtml"])
        yield c


def answer(catalog: Catalog, question: str, *units: tuple[str, str], perimeter: Perimeter = NOW, **kw):
    return ask(question, perimeter, generator="extractive", searcher=Pinned(catalog, *units), catalog=catalog,
               trace=kw.pop("trace", False), **kw)


def note(a) -> list:
    return [s for s in a.sentences if " by Regulation (EU) 2026/1744, " in s.text]


class TestTheAmendedBySentence:
    def test_it_names_act_point_and_date_cites_both_units_and_passes_the_verifier(self, catalog):
        a = answer(catalog, Q_LITERACY, (AI, "art_4.par_1"))
        assert not a.refused, a.refusal_reason
        (s,) = note(a)
        assert s.text == LITERACY_NOTE
        assert s.refs == (ref(f"{AI}@{AMENDED}#art_4.par_1"), ref(f"{OMNI}@2026-07-24#art_1.pnt_5"))
        # the amending unit joined the evidence as a further S-id; every verdict, the note's included, passed
        assert [(e.sid, str(e.ref)) for e in a.evidence] == [("S1", f"{AI}@{AMENDED}#art_4.par_1"),
                                                            ("S2", f"{OMNI}@2026-07-24#art_1.pnt_5")]
        assert len(a.verdicts) == len(a.sentences) and all(v.ok for v in a.verdicts)
        assert "amended" in a.flags
        assert "support the development of AI literacy" in a.text

    def test_a_different_date_in_that_sentence_is_refused(self, catalog):
        a = answer(catalog, Q_LITERACY, (AI, "art_4.par_1"))
        dates = {e.ref: catalog.resolve(e.ref).valid_from for e in a.evidence}  # 2026-07-27, 2026-07-24
        good = f"{LITERACY_NOTE} [S1, S2]"
        outside = lambda ref: catalog.outside(ref, NOW)  # noqa: E731
        assert verify(good, a.evidence, outside, record_dates=dates).ok
        wrong = verify(good.replace("27 July 2026", "28 July 2026"), a.evidence, outside, record_dates=dates)
        assert not wrong.ok and "a date that does not appear" in wrong.reason
        # The recorded date is accepted only where code asks for it: a generator's draft is checked without it.
        generated = verify(good, a.evidence, outside)
        assert not generated.ok and "a date" in generated.reason

    def test_the_right_action_and_label_from_the_amendment_links(self, catalog):
        def said(unit: str) -> str:
            (a,) = find_amendments(catalog, [ref(f"{AI}@{AMENDED}#{unit}")], "en")
            return render(a)

        # a point inside a replaced point is named through it
        assert said("art_113.pnt_c.pnt_i") == ("Article 113, point (c) of Regulation (EU) 2024/1689 was replaced by "
                                               "Regulation (EU) 2026/1744, Article 1, point (40)(b), applicable from "
                                               "27 July 2026.")
        # an article whose points were replaced and added: amended by the point holding those instructions
        assert said("art_113").startswith("Article 113 of Regulation (EU) 2024/1689 was amended by Regulation (EU) "
                                          "2026/1744, Article 1, point (40),")
        # "the following subparagraph is added" to a paragraph that existed: the paragraph was amended
        assert said("art_40.par_2").startswith("Article 40(2) of Regulation (EU) 2024/1689 was amended by ")
        assert said("art_4a").startswith("Article 4a of Regulation (EU) 2024/1689 was inserted by ")
        assert said("art_113.pnt_d").startswith("Article 113, point (d) of Regulation (EU) 2024/1689 was added by ")
        # a new provision has no former text
        (new,) = find_amendments(catalog, [ref(f"{AI}@{AMENDED}#art_75a")], "en")
        assert new.action == "inserted" and new.former is None and not new.moved

    def test_an_inserted_provision_that_took_over_a_deleted_ones_text_has_it_as_former(self, catalog):
        # The Omnibus deletes Article 10(5) (point (9)(b)) and inserts Article 4a (point (6)), which repeats it
        (moved,) = find_amendments(catalog, [ref(f"{AI}@{AMENDED}#art_4a.par_1")], "en")
        assert moved.action == "inserted" and moved.moved
        assert moved.former == ref(f"{AI}@{ORIG}#art_10.par_5")
        assert moved.target == ref(f"{AI}@{AMENDED}#art_4a")

    def test_a_cited_amending_instruction_points_at_the_provision_now_in_force(self, catalog):
        # Retrieval admitted only the Omnibus instruction; the answer also cites the text it enacted.
        a = answer(catalog, Q_SANDBOX, (OMNI, "art_1.pnt_22.pnt_a"))
        assert not a.refused, a.refusal_reason
        (s,) = note(a)
        assert s.refs == (ref(f"{AI}@{AMENDED}#art_57.par_1"), ref(f"{OMNI}@2026-07-24#art_1.pnt_22.pnt_a"))
        assert ref(f"{AI}@{AMENDED}#art_57.par_1") in {e.ref for e in a.evidence}
        assert a.conflicts[0].values[0] == ("2 August 2026", CitationRef.parse(f"{AI}@{ORIG}#art_57.par_1"))
        # an instruction that inserts two paragraphs would need two sentences: none is written
        assert find_amendments(catalog, [ref(f"{OMNI}@2026-07-24#art_1.pnt_14")], "en") == []

    def test_as_of_before_the_amendment_applies_the_original_is_cited_and_nothing_is_said(self, catalog):
        a = answer(catalog, Q_LITERACY, (AI, "art_4"), (AI, "art_4.par_1"), perimeter=Perimeter(as_of="2026-01-01"))
        assert not a.refused, a.refusal_reason
        assert a.cited() == (ref(f"{AI}@{ORIG}#art_4"),)
        assert note(a) == [] and a.conflicts == () and "amended" not in a.flags
        assert [str(e.ref) for e in a.evidence] == [f"{AI}@{ORIG}#art_4"]

    def test_no_sentence_names_an_amending_act_outside_the_perimeter(self, catalog):
        a = answer(catalog, Q_LITERACY, (AI, "art_4.par_1"), perimeter=Perimeter(acts=(AI,), as_of="2026-11-29"))
        assert not a.refused, a.refusal_reason
        assert note(a) == [] and all(e.ref.act == AI for e in a.evidence)


class TestTheFormerText:
    def test_a_changed_value_is_listed_former_and_current_with_the_rule(self, catalog):
        a = answer(catalog, Q_SANDBOX, (AI, "art_57.par_1"))
        assert not a.refused, a.refusal_reason
        # the former value only as former: the answer's own sentences give the current one (the note's
        # "applicable from 2 August 2026" is when the amended Article 57 applies: Article 113, general date)
        assert "2 August 2027" in a.text
        assert all("2 August 2026" not in s.text for s in a.sentences if not s.from_records)
        (c,) = a.conflicts
        assert c.fact_kind == "date"
        assert [(v, str(r)) for v, r in c.values] == [("2 August 2026", f"{AI}@{ORIG}#art_57.par_1"),
                                                     ("2 August 2027", f"{AI}@{AMENDED}#art_57.par_1")]
        assert str(c.prevails) == f"{AI}@{AMENDED}#art_57.par_1" and c.rule == RULES["amending"]
        assert note(a)[0].text.startswith("Article 57(1) of Regulation (EU) 2024/1689 was amended by Regulation (EU) "
                                          "2026/1744, Article 1, point (22)(a),")

    def test_a_replaced_text_is_listed_as_former_text(self, catalog):
        a = answer(catalog, Q_LITERACY, (AI, "art_4.par_1"))
        (c,) = a.conflicts
        (old, old_ref), (new, new_ref) = c.values
        # the whole replaced Article 4 against the whole former Article 4
        assert c.fact_kind == "text"
        assert (old_ref, new_ref) == (ref(f"{AI}@{ORIG}#art_4"), ref(f"{AI}@{AMENDED}#art_4"))
        assert "to ensure, to their best extent, a sufficient level of AI literacy" in old
        assert "does not require providers or deployers to guarantee any specific level" in new
        assert c.prevails == new_ref and c.rule == RULES["amending"]
        assert old_ref not in a.cited() and old_ref not in {e.ref for e in a.evidence}  # named, never cited

    def test_a_former_value_of_another_subject_is_not_offered_as_the_former_value(self, catalog):
        # Point (c) used to date Article 6(1) (2 August 2027); its replacement dates Annex III (2 December 2027).
        # 2 August 2027 was never the Annex III date, so the two texts are shown, not two values.
        a = answer(catalog, Q_ANNEX_III, (AI, "art_113.pnt_c.pnt_i"))
        assert not a.refused, a.refusal_reason
        assert "2 December 2027" in a.text
        (c,) = a.conflicts
        assert c.fact_kind == "text" and str(c.values[0][1]) == f"{AI}@{ORIG}#art_113.pnt_c"
        assert "Article 6(1) and the corresponding obligations" in c.values[0][0]

    def test_a_moved_provision_is_shown_beside_the_deleted_text_it_took_over(self, catalog):
        q = "May deployers of a high-risk AI system process sensitive data to check it for discrimination?"
        a = answer(catalog, q, (AI, "art_4a.par_2"))
        assert not a.refused, a.refusal_reason
        (c,) = a.conflicts
        assert [str(r) for _, r in c.values] == [f"{AI}@{ORIG}#art_10.par_5", f"{AI}@{AMENDED}#art_4a"]
        assert "the providers of such systems may exceptionally process special categories" in c.values[0][0]
        assert c.prevails == ref(f"{AI}@{AMENDED}#art_4a") and c.rule == RULES["amending"]
        assert ref(f"{AI}@{ORIG}#art_10.par_5") not in a.cited()  # named as former, never cited

    def test_a_cited_deletion_shows_the_text_deleted_beside_the_instruction(self, catalog):
        from lexcite.cli._app import out
        from lexcite.cli.answer import render as show

        a = answer(catalog, "What did the Digital Omnibus delete from Section B of Annex VIII?", (OMNI, "art_1.pnt_42"))
        assert not a.refused, a.refusal_reason
        instruction = ref(f"{OMNI}@2026-07-24#art_1.pnt_42")
        deleted = {str(c.values[0][1]): c for c in a.conflicts if c.prevails == instruction}
        assert set(deleted) == {f"{AI}@{ORIG}#anx_VIII.sct_B.pnt_7", f"{AI}@{ORIG}#anx_VIII.sct_B.pnt_9"}
        assert deleted[f"{AI}@{ORIG}#anx_VIII.sct_B.pnt_7"].values[0][0].startswith("7. A short summary of the grounds")
        assert all(c.rule == RULES["amending"] for c in deleted.values())
        assert note(a) == []  # no sentence: the instruction's wording of its targets is not read as references
        with out.capture() as captured:
            show(a)
        assert re.search(rf"former\s+7\. A short summary.*{AI}@{ORIG}#anx_VIII\.sct_B\.pnt_7", captured.get())
        # an instruction whose part deletes (point (9), "(b) paragraph 5 is deleted") names that part's deletion
        parts = find_amendments(catalog, [ref(f"{OMNI}@2026-07-24#art_1.pnt_9")], "en")
        assert [(x.action, str(x.former), str(x.amending)) for x in parts] == [
            ("deleted", f"{AI}@{ORIG}#art_10.par_5", f"{OMNI}@2026-07-24#art_1.pnt_9.pnt_b")]

    def test_the_trace_keeps_the_amending_unit_and_the_former_text(self, catalog, tmp_path):
        with TraceStore(tmp_path / "traces.sqlite") as store:
            a = answer(catalog, Q_LITERACY, (AI, "art_4.par_1"), trace=True, traces=store)
            doc = store.get(a.trace_id).doc
        assert [e["ref"] for e in doc["evidence"]] == [f"{AI}@{AMENDED}#art_4.par_1", f"{OMNI}@2026-07-24#art_1.pnt_5"]
        assert [v["ref"] for v in doc["trace"]["conflicts"][0]["values"]] == [f"{AI}@{ORIG}#art_4",
                                                                              f"{AI}@{AMENDED}#art_4"]
        assert [v["idx"] for v in doc["verdicts"]] == list(range(len(a.sentences)))
        assert re.search(r"27 July 2026", doc["trace"]["answer"]["answer"])

    def test_the_cli_shows_the_former_value_as_former_and_the_current_one_as_prevailing(self, catalog):
        from lexcite.cli._app import out
        from lexcite.cli.answer import render

        a = answer(catalog, Q_SANDBOX, (AI, "art_57.par_1"))
        with out.capture() as captured:
            render(a)
        text = captured.get()
        assert re.search(rf"former\s+2 August 2026\s+{AI}@{ORIG}#art_57\.par_1", text), text
        assert re.search(rf"prevails\s+2 August 2027\s+{AI}@{AMENDED}#art_57\.par_1", text), text
        assert "applicable from 2 August 2026" in text  # Chapter VI applies from Article 113's general date


@pytest.fixture(scope="module")
def consolidated(corpus, tmp_path_factory):
    with Catalog(tmp_path_factory.mktemp("official") / "catalog.sqlite") as c:
        ingest_paths(c, [corpus / "32024R1689.oj.xhtml", corpus / "32026R1744.oj.xhtml",
                         corpus / "fmx4/02024R1689-20260727"])
        yield c


class TestUnderTheOfficialConsolidation:
    """The official consolidated text is current; its markers name only the amending act ("32026R1744")."""

    def test_the_change_is_read_from_the_amending_acts_links(self, consolidated):
        rec = consolidated.resolve(ref(f"{AI}@{AMENDED}#art_57.par_1"))
        assert rec.unit.version == AMENDED and rec.changed_by == OMNI  # the official text, its marker
        (a,) = find_amendments(consolidated, [rec.unit.ref], "en")
        assert str(a.amending) == f"{OMNI}@2026-07-24#art_1.pnt_22.pnt_a"
        assert a.former == ref(f"{AI}@{ORIG}#art_57.par_1")

    def test_the_former_value_is_shown_beside_the_current_one(self, consolidated):
        a = answer(consolidated, Q_SANDBOX, (AI, "art_57.par_1"))
        assert not a.refused, a.refusal_reason
        assert {v for c in a.conflicts for v, _ in c.values} >= {"2 August 2026", "2 August 2027"}
