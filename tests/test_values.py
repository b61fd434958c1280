"""lexcite.values: values read from legal text and normalised, so that one value written two ways compares equal."""

from __future__ import annotations

import pytest

from lexcite.values import (
    act_label,
    act_numbers,
    counts,
    kinds_answered,
    read_values,
    resolve_relative,
    states_no_charge,
    states_time_standard,
)

pytestmark = pytest.mark.unit


def keys(text: str) -> list[tuple[str, str, str]]:
    return [(v.kind, v.value, v.unit) for v in read_values(text)]


class TestOneValueManyWritings:
    @pytest.mark.parametrize("text", ["fines of up to EUR 35 000 000", "EUR 35,000,000", "35 000 000 EUR"])
    def test_an_amount_in_euro(self, text):
        assert keys(text) == [("amount", "35000000", "EUR")]

    @pytest.mark.parametrize("text", ["7 %", "7 per cent"])
    def test_a_percentage(self, text):
        assert keys(text) == [("percent", "7", "%")]

    @pytest.mark.parametrize("text, value", [("within 15 days", ("period", "15", "day")),
                                             ("for six months", ("period", "6", "month"))])
    def test_a_period_in_digits_or_words(self, text, value):
        assert keys(text) == [value]

    def test_a_date_becomes_iso(self):
        assert keys("It shall apply from 2 August 2026.") == [("date", "2026-08-02", "")]

    def test_a_power_of_ten(self):
        assert keys("more than 10^25 FLOPs") == [("power", "10^25", "")]

    def test_different_values_differ(self):
        assert keys("EUR 35 000 000") != keys("EUR 15 000 000")


class TestReferences:
    def test_an_article_paragraph_becomes_a_unit_id(self):
        assert keys("in accordance with Article 6(2)") == [("ref", "art_6.par_2", "")]

    def test_an_act_number(self):
        assert keys("Regulation (EU) 2024/1689") == [("act", "2024/1689", "")]

    def test_a_relative_paragraph_or_point_is_read_inside_its_unit(self):
        assert resolve_relative("par_2", "art_6.par_1") == "art_6.par_2"
        assert resolve_relative("pnt_b", "art_5.par_1.pnt_a") == "art_5.par_1.pnt_b"
        assert resolve_relative("pnt_b", "art_3.pnt_a") == "art_3.pnt_b"


class TestActNames:
    def test_the_ways_an_act_number_is_written(self):
        assert act_numbers("32024R1689") == {"2024/1689", "1689/2024", "24/1689", "1689/24"}
        assert act_numbers("not a celex") == set()

    def test_a_label_only_where_it_is_safe(self):
        assert act_label("32024R1689") == "Regulation (EU) 2024/1689"
        assert act_label("32006R1234") is None  # before 2015 the number order differs
        assert act_label("52099XC0001") is None  # guidance has no such label


def test_a_standard_of_time_is_no_value_but_answers_how_quickly():
    assert states_time_standard("the controller shall communicate the breach to the data subject without undue delay")
    assert states_time_standard("shall immediately inform the distributors")
    assert not states_time_standard("within 72 hours of becoming aware of it")
    # the event by which something is due answers "by when?" as well (GDPR Article 21(4), AI Act Article 49(1))
    assert states_time_standard("At the latest at the time of the first communication with the data subject, the "
                                "right shall be explicitly brought to the attention of the data subject")
    assert states_time_standard("Before placing on the market or putting into service a high-risk AI system")
    assert not states_time_standard("before the Board adopts its opinion on the matter")
    assert not [v for v in read_values("without undue delay") if v.kind == "period"]


def test_a_service_free_of_charge_states_no_amount_but_answers_how_much():
    assert states_no_charge("shall be free of charge for the data subject and, where applicable, for the DPO")
    assert not states_no_charge("the Member State may charge a reasonable fee based on administrative costs")
    assert not [v for v in read_values("free of charge") if v.kind == "amount"]


def test_the_kinds_a_text_answers_include_those_it_answers_without_a_value():
    # "free of charge" answers what someone pays ("the fee?"), not what they are given ("how much funding?")
    assert kinds_answered("shall be free of charge for the data subject", payment=True) == {"amount"}
    assert kinds_answered("shall be free of charge for the data subject") == set()
    assert kinds_answered("shall notify the authority without undue delay") == {"period"}
    assert kinds_answered("within 72 hours, and not later than 1 January 2027") == {"period", "date"}
    assert kinds_answered("The Board shall adopt its rules of procedure.") == set()


@pytest.mark.parametrize("text, counted", [
    ("(48) ‘national competent authority’ means a notifying authority", []),
    ("for high-risk AI systems listed in points 6, 7 and 8 of Annex III", []),
    ("3. Each Member State shall designate at least 2 authorities", ["2"]),
    ("The Board shall be composed of 27 members.", ["27"]),
    ("covered by Article 75(1).", []),
])
def test_a_label_and_the_numbers_of_provisions_count_nothing(text, counted):
    assert [v.value for v in counts(text)] == counted
