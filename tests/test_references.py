"""Provision references as people write them, and acts by the names people use."""

import pytest

from lexcite.errors import CitationError
from lexcite.references import (
    ActNames,
    bare_names,
    find_references,
    parse_reference,
    resolve,
    short_title,
    suggest,
    without_references,
)

AI_ACT = ("32024R1689", "REGULATION (EU) 2024/1689 of 13 June 2024 laying down harmonised rules on artificial "
          "intelligence (Artificial Intelligence Act)")
GDPR = ("32016R0679", "REGULATION (EU) 2016/679 of 27 April 2016 on the protection of natural persons "
        "(General Data Protection Regulation)")
OMNIBUS = ("32026R1744", "REGULATION (EU) 2026/1744 amending Regulations (EU) 2024/1689 (Digital Omnibus on AI)")


@pytest.mark.parametrize("written, unit, act", [
    ("Art. 6(2)", "art_6.par_2", None),
    ("article 6", "art_6", None),
    ("Article 6(2) AI Act", "art_6.par_2", "AI Act"),
    ("article 83(5) GDPR", "art_83.par_5", "GDPR"),
    ("GDPR art 17", "art_17", "GDPR"),
    ("Art 5 of the GDPR", "art_5", "GDPR"),
    ("Article 17(1) of Regulation (EU) 2016/679", "art_17.par_1", "Regulation (EU) 2016/679"),
    ("Annex III point 4(a)", "anx_III.pnt_4.pnt_a", None),
    ("point 4(a) of Annex III", "anx_III.pnt_4.pnt_a", None),
    ("Annex I, Section A, point 11", "anx_I.sct_A.pnt_11", None),
    ("art_6.par_2", "art_6.par_2", None),
    ("point (c) of Article 5(1)", "art_5.par_1.pnt_c", None),
    ("Article 5(1)(h)(iii)", "art_5.par_1.pnt_h.pnt_iii", None),
    ("Article 5(1), point (h)", "art_5.par_1.pnt_h", None),
    ("Article 6, paragraph 2", "art_6.par_2", None),
    ("articolo 50, paragrafo 2", "art_50.par_2", None),
    ("recital 12", "rct_12", None),
    ("recital (12)", "rct_12", None),
])
def test_a_written_reference_reads_as_the_unit_it_names(written, unit, act):
    ref = parse_reference(written)
    assert (ref.unit, ref.act) == (unit, act)


def test_a_number_in_brackets_may_be_a_point_of_an_article_without_paragraphs():
    ref = parse_reference("Article 3(14)")
    assert ref.candidates == ("art_3.par_14", "art_3.pnt_14")
    held = {"art_3", "art_3.pnt_14"}
    assert resolve(ref, held.__contains__) == "art_3.pnt_14"
    assert resolve(parse_reference("Article 3(99)"), held.__contains__) is None


def test_references_are_found_inside_a_question_with_the_act_named_beside_them():
    refs = find_references("Under Article 26(1), and as per Article 14(4) of the AI Act, what does Annex IV ask?")
    assert [(r.unit, r.act) for r in refs] == [("art_26.par_1", None), ("art_14.par_4", "AI Act"), ("anx_IV", None)]
    assert refs[0].text == "Article 26(1)" and refs[0].provision == "art_26"


def test_lists_and_ranges_of_articles_give_each_article():
    assert [r.unit for r in find_references("Articles 8 and 9")] == ["art_8", "art_9"]
    assert [r.unit for r in find_references("Articles 102 to 105 apply")] == ["art_102", "art_103", "art_104",
                                                                               "art_105"]
    assert [r.unit for r in find_references("Article 6(1) and (2)")] == ["art_6.par_1", "art_6.par_2"]


def test_words_that_are_not_references_are_left_alone():
    assert find_references("Does the particle accelerator need a permit? Annexation of land is not covered.") == []
    assert [r.unit for r in find_references("the artificial intelligence article 5")] == ["art_5"]


def test_a_string_without_one_reference_is_a_citation_error():
    with pytest.raises(CitationError, match="not a provision reference"):
        parse_reference("the fines")
    with pytest.raises(CitationError, match="holds 2 references"):
        parse_reference("Article 5 and Annex III")


def test_acts_go_by_their_celex_number_short_title_and_short_forms():
    names = ActNames([AI_ACT, GDPR, OMNIBUS])
    for name, celex in [("AI Act", "32024R1689"), ("the AI Act", "32024R1689"), ("EU AI Act", "32024R1689"),
                        ("Artificial Intelligence Act", "32024R1689"), ("AI Regulation", "32024R1689"),
                        ("GDPR", "32016R0679"), ("gdpr", "32016R0679"), ("Regulation (EU) 2016/679", "32016R0679"),
                        ("2016/679", "32016R0679"), ("Digital Omnibus on AI", "32026R1744"),
                        ("32026R1744", "32026R1744")]:
        assert names.resolve(name) == celex, name
    assert names.resolve("Data Act") is None
    assert names.resolve("Omnibus") is None  # one word of a title names nothing
    with pytest.raises(CitationError, match="unknown act 'Data Act'.*32016R0679"):
        names.require("Data Act")


def test_short_title_is_the_name_in_brackets_a_title_ends_with():
    assert short_title(GDPR[1]) == "General Data Protection Regulation"
    assert short_title("REGULATION (EU) No 167/2013 of the European Parliament") is None
    # the Cybersecurity Act's Formex title ends with the EEA note, which is no name
    assert short_title("Regulation (EU) 2019/881 ... repealing Regulation (EU) No 526/2013 (Cybersecurity Act) "
                       "(Text with EEA relevance)") == "Cybersecurity Act"
    assert short_title("Regulation (EU) 2024/2981 (Text with EEA relevance)") is None


def test_a_wrong_reference_gets_the_nearest_held_units_of_its_provision():
    held = ["art_6", "art_6.par_1", "art_6.par_2", "art_6.par_3", "art_60.par_1", "anx_III"]
    assert suggest("art_6.par_9", held)[0].startswith("art_6.par_")
    assert suggest("art_6.par_9", held) and all(s.startswith("art_6") for s in suggest("art_6.par_9", held))


def test_without_references_blanks_each_reference_and_keeps_the_offsets():
    q = "Which cases listed in Art 35(3) GDPR make an assessment mandatory?"
    blank = without_references(q)
    assert len(blank) == len(q) and "35" not in blank and "GDPR" not in blank
    assert blank.startswith("Which cases listed in ") and blank.endswith(" make an assessment mandatory?")


def test_the_acts_a_text_names_by_name():
    from lexcite.references import ActNames

    names = ActNames([("32024R1689", "Regulation (EU) 2024/1689 … (Artificial Intelligence Act)"),
                      ("32016R0679", "Regulation (EU) 2016/679 … (General Data Protection Regulation)")])
    assert names.named_in("Is it banned under the AI Act or the GDPR?") == {"32024R1689", "32016R0679"}
    assert names.named_in("Is AI in hiring high-risk?") == frozenset()


def test_a_short_title_without_a_kind_of_act_names_the_act_as_it_stands():
    names = ActNames([AI_ACT, GDPR, OMNIBUS])
    assert bare_names(OMNIBUS[1]) == {"digital omnibus", "digital omnibus on ai"}
    assert bare_names(AI_ACT[1]) == set()  # "artificial intelligence" alone names the subject, not the act
    assert names.named_in("After the Digital Omnibus, who supervises the system?") == {"32026R1744"}
    assert names.named_in("What did the digital omnibus on AI change?") == {"32026R1744"}
    assert names.named_in("Are artificial intelligence systems in hiring high-risk?") == frozenset()
    assert names.named_in("Which rules does the Omnibus change?") == frozenset()  # one word of a title
    assert names.named_in("AI rules on AI literacy") == frozenset()  # "on ai" is a run of the title, no name
