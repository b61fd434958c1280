"""Candidates a question names: provision references resolved inside the perimeter, and defined terms."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from lexcite.catalog import Catalog
from lexcite.contract import AmendmentLink, CitationRef
from lexcite.index import named as named_module
from lexcite.index.chunks import passages
from lexcite.index.named import Named, defined_term, defined_terms, load_terms, save_terms, unit_changes

from .conftest import AI, DP, TERMS, ai_act, dp_act, parsed, store, terms_act

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    with Catalog(tmp_path_factory.mktemp("named") / "catalog.sqlite") as c:
        for act in (ai_act(), dp_act(), terms_act()):
            store(c, act)
        ps = passages(list(c.records()))
        acts = {(v.act, v.title) for v in c.versions()}
    return ps, Named(ps, acts)


def _refs(index, positions):
    ps, _ = index
    return [str(ps[i].record.unit.ref).split("@")[0] + "#" + ps[i].record.unit.unit for i in positions]


def _all(index):
    return np.ones(len(index[0]), dtype=bool)


def test_a_cited_paragraph_brings_its_points_in_every_act_in_scope_that_has_it(index):
    found = index[1].find("What does Article 3(1) require?", _all(index), ())
    assert _refs(index, found.references) == [f"{AI}#art_3.par_1.pnt_a", f"{AI}#art_3.par_1.pnt_b"]
    assert found.definitions == () and found.terms == ()


def test_the_act_named_beside_the_reference_is_the_only_one_searched(index):
    found = index[1].find("What does Article 1 of Regulation (EU) 2099/2 say?", _all(index), ())
    assert _refs(index, found.references) == [f"{DP}#art_1"]
    both = index[1].find("What does Article 1 say?", _all(index), ())
    assert {r.split("#")[0] for r in _refs(index, both.references)} == {AI, DP, TERMS}
    scoped = index[1].find("What does Article 1 say?", _all(index), (DP,))  # the perimeter's acts
    assert _refs(index, scoped.references) == [f"{DP}#art_1"]


def test_a_unit_outside_the_perimeter_is_never_named(index):
    ps, named = index
    mask = np.array([p.record.unit.act != AI for p in ps])
    assert named.find("What does Article 3(1) require?", mask, ()).references == ()


def test_a_definition_question_gets_the_definition_of_the_term_the_acts_define(index):
    ps, named = index
    assert {"register keeper", "entry"} <= named.terms
    found = named.find("What is meant by register keepers?", _all(index), ())
    assert found.terms == ("register keeper",) and _refs(index, found.definitions) == [f"{TERMS}#art_1.pnt_1"]
    assert named.find("What is meant by register keepers?", _all(index), (), definitions=False).definitions == ()
    assert named.find("Must the register keeper store notes?", _all(index), ()).definitions == ()
    # opens like a definition question but asks for a value
    assert named.find("What is the maximum number of register keepers?", _all(index), ()).definitions == ()
    assert named.find("What is the register keeper?", _all(index), ()).terms == ("register keeper",)


def test_a_role_asked_in_the_asker_s_words_gets_the_definition_of_the_acts_term(tmp_path):
    # fresh dev el05: "We're an IT reseller ... What is our role under the AI Act?" names no defined term; the
    # acts' word for a reseller (lay_terms.py) is "distributor", a term the act defines
    roles = parsed(TERMS, "2023-01-01", [
        ("art_3", "article", "For the purposes of this Regulation: (7) ‘distributor’ means a person in the supply "
         "chain that makes a system available.", None, "Article 3 — Definitions"),
        ("art_3.pnt_7", "point", "(7) ‘distributor’ means a person in the supply chain that makes a system "
         "available;", "art_3", "Article 3, point (7)"),
        ("art_9", "article", "Distributors shall keep the documentation.", None, "Article 9"),
    ], title="Toy roles act")
    with Catalog(tmp_path / "catalog.sqlite") as c:
        store(c, roles)
        ps = passages(list(c.records()))
    named, mask = Named(ps, {(TERMS, "Toy roles act")}), np.ones(len(ps), dtype=bool)
    found = named.find("We are a reseller of a tool from another firm. What is our role under the act?", mask, ())
    assert found.terms == ("distributor",) and [ps[i].record.unit.unit for i in found.definitions] == ["art_3.pnt_7"]
    # a question that does not ask what something is gets no definition, whatever its words
    assert named.find("We are a reseller of a tool. What must we keep?", mask, ()).definitions == ()


def test_defined_term_reads_definition_points_only():
    assert defined_term("(49) ‘serious incident’ means an incident or malfunctioning") == "serious incident"
    assert defined_term("(4) 'profiling' means any form of automated processing") == "profiling"
    # GDPR Article 4(11): the term, then whose it is, then "means"
    assert defined_term("(11) ‘consent’ of the data subject means any freely given, specific ...") == "consent"
    assert defined_term("(1) in Article 3, point (14) is replaced by the following: ‘(14) ‘x’ means y’") is None
    assert defined_term("Providers shall keep logs.") is None


class TestTheSavedTermList:
    """`lexcite index` saves the term list (named.save_terms); an index opens it instead of reading passages."""

    def test_saved_and_loaded_it_is_what_the_passages_give(self, index, tmp_path):
        ps, _ = index
        save_terms(tmp_path / "terms.json", ps, "fp")
        assert load_terms(tmp_path / "terms.json", "fp") == defined_terms(ps)
        assert defined_terms(ps)["register keeper"] == [f"en:{TERMS}@2023-01-01#art_1.pnt_1"]

    def test_a_named_index_uses_the_saved_list_without_reading_the_passages(self, index, tmp_path, monkeypatch):
        ps, acts = index[0], {(p.record.unit.act, "") for p in index[0]}
        save_terms(tmp_path / "terms.json", ps, "fp")
        monkeypatch.setattr(named_module, "defined_terms", lambda _: pytest.fail("the passages were read"))
        named = Named(ps, acts, tmp_path / "terms.json", "fp")
        found = named.find("What is meant by register keepers?", _all(index), ())
        assert _refs(index, found.definitions) == [f"{TERMS}#art_1.pnt_1"]

    @pytest.mark.parametrize("content", [None, '{"fingerprint": "fp", "terms": {"regis', '[]',
                                         '{"fingerprint": "other", "terms": {}}',
                                         # read by an older rule: stale, though built from these passages
                                         '{"fingerprint": "fp", "terms": {}}'])
    def test_a_missing_cut_or_foreign_file_falls_back_to_the_passages(self, index, tmp_path, content):
        ps, acts = index[0], {(p.record.unit.act, "") for p in index[0]}
        path = tmp_path / "terms.json"
        if content is not None:
            path.write_text(content)
        assert load_terms(path, "fp") is None
        named = Named(ps, acts, path, "fp")
        assert named.terms == index[1].terms and {"register keeper", "entry"} <= named.terms


def test_a_defined_term_is_found_by_its_last_words_when_no_other_term_ends_so():
    from lexcite.index.named import _short_forms

    terms = {"personal data breach": [1], "remote biometric identification system": [2],
             "real-time remote biometric identification system": [3], "ai system": [4], "emotion ai system": [5]}
    short = _short_forms(terms)
    assert short["data breach"] == [1]
    assert "biometric identification system" not in short  # two terms end so
    assert "ai system" not in short  # a term of its own


def test_the_acts_a_question_names_by_name_not_by_a_bare_word():
    from lexcite.index.named import Named

    named = Named([], [("32024R1689", "Regulation (EU) 2024/1689 … (Artificial Intelligence Act)"),
                       ("32016R0679", "Regulation (EU) 2016/679 … (General Data Protection Regulation)")])
    assert named.acts_in("Does gait count as biometric data under the AI Act?") == {"32024R1689"}
    assert named.acts_in("Under the GDPR, on what grounds can I process data?") == {"32016R0679"}
    assert named.acts_in("What does the data protection regulation say about the AI Act?") == {"32016R0679",
                                                                                               "32024R1689"}
    assert named.acts_in("Is AI in hiring high-risk?") == frozenset()  # "AI" alone names no act
    assert named.acts_in("Do gdpr rules apply?") == frozenset()  # an acronym is written in capitals


class TestAbsentProvisions:
    """A cited provision no act the question may mean has inside the perimeter is reported, so that the question is
    refused naming it rather than answered from another provision."""

    NOWHERE = ", which no act it may mean has in any version the catalog holds"

    def test_a_provision_the_named_act_lacks_is_absent(self, index):
        found = index[1].find("What does Article 9 of Regulation (EU) 2099/2 say?", _all(index), ())
        assert found.absent == ("Article 9 of Regulation (EU) 2099/2" + self.NOWHERE,) and found.references == ()

    def test_a_paragraph_an_existing_article_lacks_is_absent_in_every_act_in_scope(self, index):
        found = index[1].find("What does Article 3(7) require?", _all(index), ())
        assert found.absent == ("Article 3(7)" + self.NOWHERE,)
        assert index[1].find("What does Article 3(1) require?", _all(index), ()).absent == ()

    def test_a_provision_present_only_outside_the_perimeter_is_named_as_such(self, index):
        ps, named = index
        mask = np.array([p.record.unit.act != AI for p in ps])
        found = named.find("What does Article 3(1) require?", mask, ())
        assert found.references == ()
        assert found.absent == ("Article 3(1), which is not in the versions searched: only the version of 2022-01-01 "
                                "(current) has it",)

    def test_a_provision_of_an_act_the_catalog_lacks_is_left_to_the_scope_check(self, index):
        assert index[1].find("Does Article 17 of Directive (EU) 2019/790 apply?", _all(index), ()).absent == ()


def test_a_provision_only_another_version_has_is_absent_naming_that_version(tmp_path):
    # the same act in two versions: Article 3(2) deleted in the later one
    with Catalog(tmp_path / "catalog.sqlite") as c:
        old, later = ai_act(), ai_act("2099-01-01")
        store(c, old)
        store(c, dataclasses.replace(later, units=tuple(u for u in later.units if u.unit != "art_3.par_2")))
        ps = passages(list(c.records()))
        acts = {(v.act, v.title) for v in c.versions()}
    named = Named(ps, acts)
    latest = np.array([p.record.unit.version == "2099-01-01" for p in ps])
    found = named.find("What does Article 3(2) require?", latest, ())
    assert found.absent == ("Article 3(2), which is not in the versions searched: only the version of "
                            f"{old.version} ({ps[0].record.status}) has it",)
    # what deleted it, when the catalog has the amending act's instruction
    deletion = AmendmentLink(amending=CitationRef("32099R0009", "2098-12-01", "art_1.pnt_4.pnt_b"), target_act=AI,
                             target_unit="art_3.par_2", action="deleted", applies_from="2099-01-01", new_text="",
                             instruction="paragraph 2 is deleted;")
    noted = Named(ps, acts, changes=unit_changes([deletion]))
    assert noted.find("What does Article 3(2) require?", latest, ()).absent == (
        "Article 3(2), which is not in the versions searched (it was deleted by Regulation (EU) 2099/9, Article 1, "
        f"point (4)(b), applicable from 2099-01-01): only the version of {old.version} ({ps[0].record.status}) has it",)
    # what the amendment did is still asked: its instruction answers, so the question is not refused
    assert named.find("What did the amendment change in Article 3(2)?", latest, ()).absent == ()
    assert named.find("What does Article 3(1) require?", latest, ()).absent == ()
