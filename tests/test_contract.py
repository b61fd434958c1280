"""The contract: citation references, the Perimeter rule in words, validation at construction."""

from __future__ import annotations

import pytest

from lexcite.contract import CitationRef, Perimeter, Unit, UnitRecord, VersionRow
from lexcite.errors import CitationError

pytestmark = pytest.mark.unit


class TestCitationRef:
    def test_parse_and_format_round_trip(self):
        text = "32024R1689@2024-07-12#art_6.par_2"
        ref = CitationRef.parse(text)
        assert (ref.act, ref.version, ref.unit) == ("32024R1689", "2024-07-12", "art_6.par_2")
        assert str(ref) == text

    def test_a_reference_without_version_means_any_version(self):
        ref = CitationRef.parse("32024R1689#anx_III.pnt_4")
        assert ref.version is None and str(ref) == "32024R1689#anx_III.pnt_4"

    @pytest.mark.parametrize("text", ["Article 6(2)", "32024R1689@2024-13-40#art_6", "32024R1689#article_6",
                                      "32024R1689@2024-07-12"])
    def test_what_is_not_a_reference_is_a_citation_error_with_the_expected_form(self, text):
        with pytest.raises(CitationError, match="32024R1689"):
            CitationRef.parse(text)

    def test_a_unit_id_is_checked_at_construction(self):
        with pytest.raises(CitationError, match="not an ELI-style path"):
            CitationRef("32024R1689", None, "art 6")

    def test_branches_hit_above_and_below_never_across(self):
        point = CitationRef.parse("32024R1689#art_5.par_1.pnt_a")
        assert point.on_branch(CitationRef.parse("32024R1689#art_5"))
        assert CitationRef.parse("32024R1689#art_5.par_1").on_branch(point)
        assert not point.on_branch(CitationRef.parse("32024R1689#art_5.par_2"))
        assert not point.on_branch(CitationRef.parse("32016R0679#art_5.par_1.pnt_a"))
        assert not CitationRef.parse("32024R1689#art_5").on_branch(CitationRef.parse("32024R1689#art_50"))

    def test_two_versions_are_different_branches(self):
        assert not CitationRef.parse("32024R1689@2024-07-12#art_4").on_branch(
            CitationRef.parse("32024R1689@2026-07-27#art_4"))


def record(status="current", valid_from="2024-07-12", valid_to=None, language="en", binding=True, tags=(),
           kind="paragraph", act="32024R1689"):
    u = Unit(act=act, version=valid_from, unit="art_1.par_1", kind=kind, title="t", text="x", parent="art_1",
             position=1, language=language, binding=binding)
    return UnitRecord(unit=u, status=status, valid_from=valid_from, valid_to=valid_to, access_tags=tags)


class TestPerimeterRule:
    """`Perimeter.rejects` says which rule a unit fails; the retrievers' translations are tested in index/."""

    @pytest.mark.parametrize("perimeter, rec, reason", [
        (Perimeter(language="it"), record(), "language en, not it"),
        (Perimeter(acts=("32016R0679",)), record(), "act 32024R1689 is not among 32016R0679"),
        (Perimeter(), record(status="superseded", valid_to="2026-07-27"), "a superseded version"),
        (Perimeter(include_superseded=True), record(status="draft"), "a draft version"),
        (Perimeter(as_of="2020-01-01"), record(), "not in force on 2020-01-01"),
        (Perimeter(binding_only=True), record(binding=False), "guidance in a binding-only perimeter"),
        (Perimeter(), record(tags=("eu-staff",)), "restricted to access tags eu-staff"),
        (Perimeter(kinds=("article",)), record(), "a paragraph, not one of article"),
    ])
    def test_each_rule_names_itself(self, perimeter, rec, reason):
        assert perimeter.rejects(rec) == reason and not perimeter.admits(rec)

    def test_inside_is_none(self):
        assert Perimeter(as_of="2025-01-01").rejects(record()) is None

    def test_a_date_admits_the_version_then_in_force_even_if_superseded_now(self):
        old = record(status="superseded", valid_from="2024-07-12", valid_to="2026-07-27")
        assert Perimeter(as_of="2025-01-01").admits(old)
        assert not Perimeter(as_of="2026-07-27").admits(old)  # valid_to is exclusive

    def test_a_version_is_judged_by_the_same_rule_without_a_unit_kind(self):
        v = VersionRow(id=1, act="32024R1689", version="2024-07-12", language="en", format="oj", status="current",
                       valid_from="2024-07-12", valid_to=None, binding=True, title="t", source="s", source_url="u",
                       sha256="0" * 64, etag=None, last_modified=None, fetched_at=None, ingested_at="now",
                       modified_by=(), access_tags=())
        assert Perimeter(kinds=("article",)).admits_version(v)
        assert not Perimeter(language="it").admits_version(v)

    def test_the_description_says_every_filter(self):
        p = Perimeter(acts=("32024R1689",), as_of="2025-01-01", binding_only=True, access_tags=("eu-staff",))
        assert p.describe() == ("acts 32024R1689; language en; current versions only; in force on 2025-01-01; "
                                "binding texts only; access tags eu-staff")
        assert "any date" in Perimeter(include_superseded=True).describe()

    def test_a_bad_as_of_date_is_refused_at_construction(self):
        with pytest.raises(ValueError, match="as_of"):
            Perimeter(as_of="2025-02-30")

    def test_golden_filters_round_trip(self):
        p = Perimeter.from_dict({"act": "32024R1689", "as_of": "2025-01-01", "include_superseded": True})
        assert p.acts == ("32024R1689",) and Perimeter.from_dict(p.to_dict()) == p
