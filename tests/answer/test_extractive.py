"""The offline extractive generator on real AI Act and GDPR units: what it quotes, and what each sentence cites."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lexcite.answer.draft import parse_draft
from lexcite.answer.generate_extractive import (
    ExtractiveGenerator,
    _retrieval_ranks,
    score_sentence,
    shape_of,
)
from lexcite.answer.verify import MAX_SENTENCES
from lexcite.contract import CitationRef, Evidence
from lexcite.eval.metrics import normalise
from lexcite.question import content_terms, cues

pytestmark = pytest.mark.integration

GDPR = "32016R0679"


def ev(sid: str, unit: str, text: str) -> Evidence:
    """One evidence unit of the AI Act as first published."""
    return Evidence(sid, CitationRef("32024R1689", "2024-07-12", unit), f"Article {unit}", text, "current", True, "")


def answer(units, question, *names):
    evidence = units.evidence(*names)
    draft = ExtractiveGenerator().generate(question, evidence)
    by_sid = {e.sid: e for e in evidence}
    sentences = parse_draft(draft.text)
    for s in sentences:  # verbatim: every quoted sentence is in the one unit it cites
        assert len(s.sids) == 1 and normalise(s.text) in normalise(by_sid[s.sids[0]].text), s.raw
    return draft, [(s.text, by_sid[s.sids[0]].ref.unit) for s in sentences]


def test_a_list_question_gets_every_point_of_the_list_each_citing_its_point(units):
    draft, quoted = answer(units, "Which kinds of AI malfunction are bad enough to be treated as a 'serious incident'?",
                           "art_3.pnt_49.pnt_b", "art_3.pnt_49.pnt_d", "art_3.pnt_49.pnt_a", "art_3.pnt_49.pnt_c",
                           "art_73.par_1")
    assert [u for _, u in quoted] == [f"art_3.pnt_49.pnt_{p}" for p in "abcd"]
    assert "critical infrastructure" in draft.text and draft.params["list"] == "art_3.pnt_49"


def test_a_list_question_whose_best_sentence_is_a_point_gets_that_whole_list(units):
    # Article 33(3)'s points (a) and (d) share the question's words; (b) and (c) belong to the answer all the same
    q = "We are filing a report about a personal data breach tomorrow. What does that report have to include?"
    names = [f"{GDPR}#art_33.par_{p}" for p in "15"] + [f"{GDPR}#art_33.par_3.pnt_{p}" for p in "da"] + \
        [f"{GDPR}#art_33.par_3", f"{GDPR}#art_33.par_3.pnt_b", f"{GDPR}#art_33.par_3.pnt_c"]
    assert shape_of(q).listing
    draft, quoted = answer(units, q, *names)
    units_quoted = [u for _, u in quoted]
    assert draft.params["list"] == "art_33.par_3", draft.params
    assert [u for u in units_quoted if u.startswith("art_33.par_3")] == \
        ["art_33.par_3", *(f"art_33.par_3.pnt_{p}" for p in "abcd")]


def test_a_quoted_sentence_that_opens_a_list_is_followed_by_its_points(units):
    # the definition of 'serious incident' ends "... any of the following:"; quoted alone it states nothing
    draft, quoted = answer(units, "What is a 'serious incident'?", "art_3.pnt_49", "art_3.pnt_49.pnt_c",
                           "art_3.pnt_49.pnt_a", "art_3.pnt_49.pnt_d", "art_3.pnt_49.pnt_b")
    assert [u for _, u in quoted] == ["art_3.pnt_49", *(f"art_3.pnt_49.pnt_{p}" for p in "abcd")]
    assert quoted[0][0].endswith("any of the following:") and "critical infrastructure" in draft.text


def test_a_point_that_opens_a_list_of_its_own_is_followed_by_its_points(units):
    # Article 53(1)(b) ends "... the information and documentation shall:"; its points (i) and (ii) say what
    draft, quoted = answer(units, "What does a general-purpose AI model provider owe the companies that build its "
                           "model into their products?", "art_53.par_1", "art_53.par_1.pnt_a", "art_53.par_1.pnt_b",
                           "art_53.par_1.pnt_b.pnt_i", "art_53.par_1.pnt_b.pnt_ii", "art_53.par_1.pnt_c")
    units_quoted = [u for _, u in quoted]
    at = len(units_quoted) - 1 - units_quoted[::-1].index("art_53.par_1.pnt_b")  # its last sentence
    assert units_quoted[at + 1:at + 3] == ["art_53.par_1.pnt_b.pnt_i", "art_53.par_1.pnt_b.pnt_ii"], units_quoted
    assert "Annex XII" in draft.text


def test_the_maximum_fine_is_the_highest_amount_of_the_evidence(units):
    # GDPR Article 83: paragraph 4 (EUR 10 000 000 / 2 %) ranks first, paragraph 5 (EUR 20 000 000 / 4 %) is the maximum
    _, quoted = answer(units, "What are the maximum fines?", f"{GDPR}#art_83.par_4", f"{GDPR}#art_83.par_5")
    assert quoted[0][1] == "art_83.par_5" and "20 000 000 EUR" in quoted[0][0]
    _, lowest = answer(units, "What is the lowest fine tier?", f"{GDPR}#art_83.par_5", f"{GDPR}#art_83.par_4")
    assert lowest[0][1] == "art_83.par_4"


def test_the_provision_a_question_names_is_quoted_though_it_shares_no_word(units):
    # the AI Act's definition quotes "Regulation (EU) 2016/679"; the unit asked for is the GDPR's Article 17(1)
    _, quoted = answer(units, "What is in Article 17(1) of Regulation (EU) 2016/679?", "art_3.pnt_37",
                       f"{GDPR}#art_17.par_1")
    assert quoted[0][1] == "art_17.par_1" and "erasure of personal data" in quoted[0][0]


def test_does_it_apply_gets_the_does_not_apply_clause(units):
    _, quoted = answer(units, "If I use an AI image generator just for my own hobby at home, do I have any "
                              "obligations under the AI Act?", "art_26.par_1", "art_50.par_2", "art_2.par_10")
    assert quoted[0][1] == "art_2.par_10" and "purely personal non-professional activity" in quoted[0][0]


def test_the_binding_definition_beats_the_recital_that_paraphrases_it(units):
    _, quoted = answer(units, "What does a piece of software need to do to count as an 'AI system'?",
                       "rct_12", "art_3.pnt_1")
    assert quoted[0][1] == "art_3.pnt_1" and "infers" in quoted[0][0]


def test_a_definition_comes_with_the_recital_sentence_that_says_what_the_notion_leaves_out(units):
    _, quoted = answer(units, "Is software that spots when a pilot is getting tired emotion recognition?",
                       "art_3.pnt_39", "rct_18", "art_50.par_3")
    # "It does not include ..." comes after the sentence whose notion "it" is
    assert [u for _, u in quoted] == ["art_3.pnt_39", "rct_18", "rct_18"]
    assert quoted[1][0].startswith("The notion refers to emotions")
    assert "physical states, such as pain or fatigue" in quoted[2][0]


def test_a_recital_that_only_restates_the_definition_is_not_added(units):
    from dataclasses import replace

    definition, recital = units.evidence("art_3.pnt_39", "rct_18")
    restating = replace(recital, text=recital.text.split(". ")[0] + ".")  # "... should be defined as an AI system ..."
    assert "should be defined as" in restating.text
    draft = ExtractiveGenerator().generate("Is software that spots when a pilot is getting tired emotion recognition?",
                                           (definition, restating))
    assert [s.sids for s in parse_draft(draft.text)] == [("S1",)]


def test_a_yes_no_question_gets_the_prohibition_not_the_recital(units):
    _, quoted = answer(units, "Can I use an AI tool to read my employees' emotions at work?",
                       "rct_44", "art_5.par_1.pnt_f")
    assert quoted[0][1] == "art_5.par_1.pnt_f" and "medical or safety reasons" in quoted[0][0]


def test_whether_something_applies_is_read_from_the_sentence_that_asks():
    assert shape_of("We sell toys in France. Does the AI Act apply to us?").applies
    assert not shape_of("Both the AI Act and toy law apply to us. Will the Commission ask for standards?").applies


def test_a_why_question_may_take_the_recital(units):
    assert shape_of("Why is emotion recognition at work banned?").why
    _, quoted = answer(units, "Why is emotion recognition at the workplace considered so risky?",
                       "art_5.par_1.pnt_f", "rct_44")
    assert quoted[0][1] == "rct_44"


def test_a_point_of_a_long_paragraph_comes_with_the_list_opening_words(units):
    _, quoted = answer(units, "Is it prohibited to fill a face-search database by scraping pictures from CCTV "
                              "footage?", "art_5.par_1")
    assert [u for _, u in quoted] == ["art_5.par_1", "art_5.par_1"]
    assert quoted[0][0].startswith("The following AI practices shall be prohibited")
    assert quoted[1][0].startswith("(e)") and "untargeted scraping" in quoted[1][0]


def test_a_short_unit_is_quoted_whole(units):
    _, quoted = answer(units, "From what age can a teenager consent on their own to an online service?",
                       f"{GDPR}#art_8.par_1")
    assert len(quoted) >= 2 and {u for _, u in quoted} == {"art_8.par_1"}
    assert any("16 years" in t for t, _ in quoted) and any("13 years" in t for t, _ in quoted)


def test_a_question_not_in_english_quotes_the_top_ranked_unit(units):
    draft, quoted = answer(units, "Quali pratiche di IA sono vietate?", "art_5.par_1.pnt_a", "rct_28")
    assert quoted[0][1] == "art_5.par_1.pnt_a" and draft.params["fallback"]


def test_a_question_sharing_no_word_with_the_evidence_is_refused(units):
    draft = ExtractiveGenerator().generate("Where is the nearest bakery?", units.evidence("art_5.par_1.pnt_a"))
    assert draft.refused and not draft.text


def test_who_has_to_do_it_gets_the_one_who_shall_do_it(units):
    # both name an actor and the EU database; only Article 49(1) says who "shall register"
    _, quoted = answer(units, "Who has to register a high-risk hiring tool in the EU database before it goes on sale?",
                       "art_71.par_1", "art_49.par_1")
    assert quoted[0][1] == "art_49.par_1" and "the provider" in quoted[0][0]
    assert shape_of("Who is required to register the system?").duty == "regist"
    assert shape_of("Which authority supervises the AI Office?").duty == ""


def test_who_has_to_do_a_thing_gets_the_one_who_shall_do_that_thing():
    """A verb that only says something is done ("do", "carry out") names no duty: the thing done does."""
    assert shape_of("Who is required to carry out an impact assessment?").duty == "assess"
    assert shape_of("Who has to do a fundamental rights impact assessment before deployment?").duty == "assess"
    # AI Act Article 27: retrieval ranked paragraph 5 first; its template "shall ... give deployers" a possibility,
    # while paragraph 1 says which deployers "shall perform an assessment"
    evidence = [replace(ev("S1", "art_27.par_5", "5. The AI Office shall develop a template for a questionnaire. This "
                                                 "template shall, where relevant, give deployers the possibility to "
                                                 "include parts of the data protection impact assessment in the "
                                                 "fundamental rights impact assessment."), rank=1),
                replace(ev("S2", "art_27.par_1", "1. Prior to deploying a high-risk AI system, deployers that are "
                                                 "bodies governed by public law shall perform an assessment of the "
                                                 "impact on fundamental rights that the use of such system may "
                                                 "produce."), rank=4)]
    draft = ExtractiveGenerator().generate("Who has to do a fundamental rights impact assessment?", evidence)
    assert parse_draft(draft.text)[0].sids == ("S2",)


def test_a_quoted_term_finds_the_definition_of_the_act_s_longer_term(units):
    _, quoted = answer(units, "The AI Act talks about 'special categories' of personal data. Which GDPR provision "
                              "does that point to?", "art_10.par_5", "art_3.pnt_37")
    assert quoted[0][1] == "art_3.pnt_37" and "Article 9(1)" in quoted[0][0]


def test_a_point_of_the_prohibitions_prohibits_and_comes_after_its_opening_words(units):
    # Article 50(3) "shall not apply" limits a duty, it prohibits nothing; point (f) is prohibited by its chapeau
    _, quoted = answer(units, "Can I use an AI tool to read my employees' emotions at work?",
                       "art_50.par_3", "art_5.par_1", "art_5.par_1.pnt_f")
    assert [u for _, u in quoted[:2]] == ["art_5.par_1", "art_5.par_1.pnt_f"]
    assert quoted[0][0] == "The following AI practices shall be prohibited:"


def test_the_date_in_an_act_s_citation_is_no_date_of_application(units):
    # Annex I cites "Regulation (EU) 2019/2144 ... of 27 November 2019": that date is when that act was adopted
    _, quoted = answer(units, "From what date do the rules on AI in motor vehicle type-approval apply?",
                       "anx_I.sct_B.pnt_19", "art_113.pnt_c")
    assert quoted[0][1] == "art_113.pnt_c"


def test_a_question_in_the_asker_s_words_is_matched_by_the_acts_words(units):
    # "police", "live", "face matching": the act says "law enforcement", "real-time", "biometric identification"
    _, quoted = answer(units, "Can the police run live face matching on crowds at a train station?",
                       "art_5.par_1", "art_5.par_1.pnt_h")
    assert "art_5.par_1.pnt_h" in [u for _, u in quoted]


def test_a_sentence_using_an_abbreviation_answers_a_question_that_writes_it_out(units):
    # Recital 8 introduces "small and medium-sized enterprises (SMEs)"; Article 58(3) says only "SMEs"
    question = "Does the sandbox give small and medium-sized enterprises anything extra?"
    _, quoted = answer(units, question, "art_57.par_1", "rct_8", "art_58.par_3")
    assert quoted[0][1] == "art_58.par_3", quoted


def test_a_question_asking_two_things_gets_both_sentences_of_the_long_unit_that_states_them(units):
    # Article 36(3), longer than a unit quoted whole: the year's notice in its first sentence, the nine months a
    # certificate stays valid in its second
    question = ("Our notified body is closing down its AI certification business. How much advance notice did it "
                "have to give, and what happens to the certificate it gave our system?")
    _, quoted = answer(units, question, "art_36.par_3", "art_36.par_9")
    text = " ".join(t for t, u in quoted if u == "art_36.par_3")
    assert "at least one year before" in text and "nine months" in text
    assert text.index("one year") < text.index("nine months")  # in the unit's order


def test_each_question_a_question_asks_gets_the_sentence_that_answers_it(units):
    # "what if it is too urgent?" is answered by Article 5(3)'s second sentence, which the first part's words miss
    question = ("Our police force wants to run live facial recognition at a football stadium to find a missing "
                "child. What permission do we need first, and what if the situation is too urgent to wait for it?")
    _, quoted = answer(units, question, "art_5.par_2", "art_5.par_3")
    assert any("within 24 hours" in t and u == "art_5.par_3" for t, u in quoted), quoted


def test_the_heading_of_a_sentence_s_provision_says_what_it_is_about(units):
    # "The Board shall be composed of one representative per Member State": Article 65 is on the European
    # Artificial Intelligence Board; the GDPR's Article 68(3) composes the European Data Protection Board
    ai_board = ("art_65.par_1", "art_65.par_2", "art_65.par_3", "art_65.par_5", "art_65.par_8")
    data_board = tuple(f"{GDPR}#art_68.par_{n}" for n in (1, 2, 3, 4))
    _, quoted = answer(units, "How many members does the European AI Board have — one per country?",
                       *ai_board, *data_board)
    assert quoted[0][1] == "art_65.par_2", quoted


def test_a_question_that_mentions_values_but_asks_which_rule_applies_gets_the_rule(units):
    # it names "the fixed amount" and "the percentage" and asks which of the two caps a start-up's fine: Article
    # 99(6) answers ("whichever thereof is lower"), though it states no amount of its own
    question = ("We're a start-up. Is our AI Act fine capped at the higher or the lower of the fixed amount and the "
                "percentage?")
    _, quoted = answer(units, question, "art_99.par_3", "art_99.par_4", "art_99.par_6")
    assert quoted[0][1] == "art_99.par_6", quoted


def test_the_verb_of_a_definition_is_no_word_of_its_content(units):
    # "enough means": Article 70(3)'s adequate resources, not point (48) of Article 3 because it "means"
    _, quoted = answer(units, "Do national competent authorities get enough means to do their job?",
                       "art_3.pnt_48", "art_70.par_3")
    assert quoted[0][1] == "art_70.par_3", quoted


def test_the_numbers_of_an_act_s_citation_count_nothing():
    # "(OJ L 325, 16.12.2019, p. 1)" numbers a journal page, no members: no count bonus for "how many?"
    question = "How many members are there?"
    q_terms = {t: 1.0 for t in content_terms(question)}
    cited = "The rules apply to members (OJ L 325, 16.12.2019, p. 1)."
    plain = "The rules apply to members."
    assert score_sentence(cited, frozenset(content_terms(cited)), q_terms, cues(question), 1) == \
        score_sentence(plain, frozenset(content_terms(plain)), q_terms, cues(question), 1)


def _score(question: str, text: str, shape=None, chapeau: str = "") -> float:
    """One sentence's score for `question`, every question word weighing 1, read with the question's shape."""
    return score_sentence(text, frozenset(content_terms(text)), {t: 1.0 for t in content_terms(question)},
                          cues(question), 1, shape=shape or shape_of(question), chapeau=chapeau)


def test_a_question_about_a_duty_prefers_the_sentence_that_obliges():
    question = "When is a company obliged to have a data protection officer?"
    assert shape_of(question).obliged and not shape_of("When may a company have a data protection officer?").obliged
    obliges = "The controller shall designate a data protection officer where its core activities so require."
    permits = "A group of undertakings may have a single data protection officer where it is easily accessible."
    assert _score(question, obliges) > _score(question, permits)


def test_a_duty_question_about_an_operator_prefers_the_duty_that_falls_on_it():
    question = "Does a company that deploys a high-risk AI system have to put a person in charge of it?"
    shape = shape_of(question)
    assert shape.actors == ("deployer",) and shape.obliged
    on_deployer = "Deployers shall assign a person to the high-risk AI system."
    on_provider = "The high-risk AI system shall be provided to the deployer with a person in mind."
    assert _score(question, on_deployer) > _score(question, on_provider)
    # the acts' word for what the question says ("the tool we built": its provider) names the operator too
    assert "provider" in shape_of("The tool we built fails the requirements. What are we required to do?").actors
    # a question about a status, not a duty, gets no such preference
    assert not shape_of("If a client rebrands our AI system, are we still treated as its provider?").obliged


def test_a_question_where_to_send_something_prefers_the_sentence_naming_where_it_goes():
    question = "We run a testing lab. Where do we send our application for designation?"
    assert shape_of(question).recipient and shape_of("To whom must a personal data breach be reported?").recipient
    assert not shape_of("Where is the AI Office established?").recipient
    goes_to = "The body shall submit its application for designation to the notifying authority of its Member State."
    describes = "The application for designation shall describe the activities for which the body claims competence."
    assert _score(question, goes_to) > _score(question, describes)
    # a question about the application's content asks for no recipient
    assert not shape_of("What must the application for designation describe?").recipient


def test_whether_an_act_applies_is_decided_by_its_scope_as_much_as_by_its_exclusions():
    question = "Our results are used by clients in the Union. Does the AI Act apply to us?"
    point = "(c) providers of AI systems located in a third country, where the output is used in the Union;"
    plain = "Providers of AI systems located in a third country, where the output is used in the Union."
    in_scope = _score(question, point, chapeau="This Regulation applies to:")
    assert in_scope > _score(question, point, chapeau="The following information:")
    assert in_scope > _score(question, plain)


def test_a_power_the_act_gives_answers_whether_a_body_could_act():
    question = "Could the Commission add our use to the list later on?"
    power = "The Commission is empowered to adopt delegated acts to add uses to the list."
    fact = "The Commission adopted delegated acts to add uses to the list."
    assert _score(question, power) > _score(question, fact)


def test_the_longest_time_allowed_is_a_period_set_in_numbers_before_a_standard_of_time():
    question = "The authority told us to withdraw the system. What's the longest period it can give us?"
    assert shape_of(question).bound
    numbers = "The authority shall require the operator to withdraw the system within 15 working days."
    standard = "The authority shall require the operator to withdraw the system without undue delay."
    assert _score(question, numbers) > _score(question, standard)
    # "how quickly?" is answered by the standard as well as by a period
    quickly = shape_of("How quickly must the operator withdraw the system?")
    assert _score(question, standard, quickly) == _score(question, numbers, quickly)
    # "how long ...?" asks for a duration: "within four weeks" before "without delay"
    asked = "How long do the other authorities have to object to the draft decision?"
    assert shape_of(asked).duration and not shape_of("How quickly must we notify?").duration
    assert _score(asked, numbers, shape_of(asked)) > _score(asked, standard, shape_of(asked))


def test_a_definition_that_names_whose_term_it_is_is_a_definition():
    # GDPR Article 4(11) "'consent' of the data subject means ...": a definition, like "'profiling' means ..."
    question = "What counts as consent of the data subject?"
    definition = "(11) 'consent' of the data subject means any freely given indication of the data subject's wishes."
    other = "The data subject shall have the right to withdraw his or her consent at any time."
    assert _score(question, definition) > _score(question, other) + 0.3


def test_by_when_is_answered_by_the_event_that_sets_the_time():
    # GDPR Article 21(4) sets no date: the right to object is pointed out "at the latest at the time of the first
    # communication"; that sentence answers "by when?" before one that says nothing of time
    question = "By when must we point out the right to object to our customers?"
    event = "At the latest at the time of the first communication, the right to object shall be brought to the " \
            "attention of the data subject."
    other = "The data subject shall have the right to object to processing of personal data concerning him."
    assert _score(question, event) > _score(question, other)


def test_from_when_a_rule_applies_is_answered_by_a_date_not_by_a_deadline_it_sets():
    # "Before putting into service ..., deployers shall register" (AI Act Article 49(3)) says by when to act once the
    # rule applies, not from when it applies: a question about application wants the date
    question = "From when do the obligations for high-risk AI systems listed in Annex III apply?"
    assert shape_of(question).application and not shape_of("By when must we register the system?").application
    deadline = "Before putting into service or using a high-risk AI system listed in Annex III, deployers shall " \
               "register themselves and register its use in the EU database."
    date = "(i) 2 December 2027 as regards AI systems classified as high-risk pursuant to Annex III; and"
    assert _score(question, date, shape_of(question)) > _score(question, deadline, shape_of(question)) + 0.3
    # "by when must we register?" is answered by the event
    asked = "By when must we register the high-risk AI system listed in Annex III?"
    assert _score(asked, deadline, shape_of(asked)) > _score(asked, date, shape_of(asked))


def test_a_date_question_in_another_language_gets_the_sentence_that_sets_the_date(units):
    # no word of an Italian question is in the English text: the top-ranked unit would be quoted, but the question
    # asks since when, and the best-ranked sentence that says from when something applies answers it
    draft, quoted = answer(units, "Da quando valgono gli obblighi per i modelli di IA per finalità generali?",
                           "art_53.par_1.pnt_a", "art_113")
    assert quoted[0][1] == "art_113" and "apply from 2 August" in draft.text
    assert draft.params["fallback"]


def test_a_list_quoted_instead_of_the_best_sentence_takes_no_further_sentence_of_its_unit():
    # the best single sentence is S1's first, but the list of S2 and S3 answers better; S1's second sentence
    # scores nearly as well and adds a word, yet joins no quote of S1, since S1 is not quoted
    evidence = [ev("S1", "art_10.par_2", "Records on training are kept. Each record names its sources."),
                ev("S2", "art_11.par_1.pnt_a", "(a) the categories of training;"),
                ev("S3", "art_11.par_1.pnt_b", "(b) the categories of validation;")]
    draft = ExtractiveGenerator().generate("Which categories of records on training and validation are kept, and "
                                           "from what sources?", evidence)
    assert draft.params.get("list") == "art_11.par_1"
    assert [tuple(s.sids) for s in parse_draft(draft.text)][:2] == [("S2",), ("S3",)]


def test_a_sentence_that_speaks_of_what_the_one_before_named_is_quoted_after_it():
    from lexcite.answer.generate_extractive import _Candidate

    def cand(index: int, text: str) -> _Candidate:
        return _Candidate("S1", 1, text, frozenset(), False, "32016R0679", "art_36.par_2", index)

    # GDPR Article 36(2) (dev ee04): "That period may be extended by six weeks" was quoted alone, without the eight
    # weeks it extends
    unit = [cand(0, "Where the supervisory authority is of the opinion that the processing would infringe this "
                    "Regulation, it shall, within a period of up to eight weeks, provide written advice."),
            cand(1, "That period may be extended by six weeks."),
            cand(2, "The supervisory authority shall inform the controller of any such extension.")]
    gen = ExtractiveGenerator()
    assert gen._with_antecedents([unit[1]], {"S1": unit}) == [unit[0], unit[1]]
    assert gen._with_antecedents([unit[2]], {"S1": unit}) == [unit[2]]  # a sentence of its own stays alone
    assert gen._with_antecedents([unit[0], unit[1]], {"S1": unit}) == [unit[0], unit[1]]  # quoted once


def test_the_sentences_that_speak_of_what_a_quoted_one_named_follow_it_past_the_answer_s_length():
    from lexcite.answer.generate_extractive import SEQUEL_CHARS, _Candidate

    def cand(index: int, text: str) -> _Candidate:
        return _Candidate("S1", 1, text, frozenset(), False, "32024R1689", "art_31.par_5", index)

    # AI Act Article 31(5) (dev dz05): its first sentence was quoted, without "This shall, in particular, apply to
    # consultancy services", which answers whether a notified body may coach its client
    unit = [cand(0, "Neither a conformity assessment body nor its personnel shall be directly involved in the "
                    "design of high-risk AI systems."),
            cand(1, "They shall not engage in any activity that might conflict with their independence."),
            cand(2, "This shall, in particular, apply to consultancy services."),
            cand(3, "Notified bodies shall document their procedures.")]
    full = ExtractiveGenerator(max_chars=len(unit[0].text))  # the answer's own length is spent
    assert full._with_sequels([unit[0]], {"S1": unit}) == unit[:3]  # both, in order; not the sentence of its own
    assert full._with_sequels([unit[1]], {"S1": unit}) == unit[1:3]
    assert full._with_sequels([unit[3]], {"S1": unit}) == [unit[3]]
    assert full._with_sequels([unit[0], unit[1]], {"S1": unit}) == unit[:3]  # quoted once
    long = [unit[0], cand(1, "They shall " + "not " * SEQUEL_CHARS + "engage.")]
    assert full._with_sequels([long[0]], {"S1": long}) == [long[0]]  # a sequel has a length of its own, bounded


def test_a_sentence_that_speaks_of_what_the_one_before_named_has_its_words():
    from lexcite.contract import CitationRef, Evidence

    # AI Act Article 11(1): "It shall contain, at a minimum, ..." is about the technical documentation
    text = "1. The technical documentation shall be drawn up before the system is placed on the market. It shall " \
           "contain, at a minimum, the elements set out in Annex IV."
    evidence = [Evidence("S1", CitationRef("32024R1689", "2024-07-12", "art_11.par_1"), "Article 11(1)", text,
                         "current", True, "")]
    it = next(c for c in ExtractiveGenerator()._candidates(evidence) if c.text.startswith("It shall"))
    assert {"technic", "document"} <= it.terms


def test_a_list_is_known_by_its_opening_words():
    # AI Act Article 5(1): its points never say "prohibited", their opening words do; Article 1(2) only mentions
    # "prohibitions of certain AI practices" as one point of what the Regulation lays down
    evidence = [ev("S1", "art_5.par_1", "1. The following AI practices shall be prohibited:"),
                ev("S2", "art_5.par_1.pnt_a", "(a) the use of an AI system that deploys subliminal techniques;"),
                ev("S3", "art_5.par_1.pnt_b", "(b) the use of an AI system that exploits vulnerabilities;"),
                ev("S4", "art_1.par_2", "2. This Regulation lays down:"),
                ev("S5", "art_1.par_2.pnt_a", "(a) harmonised rules for AI systems;"),
                ev("S6", "art_1.par_2.pnt_b", "(b) prohibitions of certain AI practices;")]
    draft = ExtractiveGenerator().generate("Which practices does the AI Act ban?", evidence)
    assert [s.sids[0] for s in parse_draft(draft.text)] == ["S1", "S2", "S3"]


def test_a_list_is_quoted_in_its_own_order_after_its_opening_words():
    from lexcite.answer.generate_extractive import _Candidate, _in_list_order

    def cand(unit: str, text: str, index: int = 0) -> _Candidate:
        return _Candidate(unit, 1, text, frozenset(), False, "32016R0679", unit, index)

    # GDPR Article 18(1) (dev dy20): point (b) answered best and was quoted first, the opening words came with the
    # paragraph quoted next, the other points completed the list; the reader gets them as the Regulation writes them
    head = cand("art_18.par_1", "The data subject shall have the right to restriction where one of the following "
                                "applies:")
    a, b, c = (cand(f"art_18.par_1.pnt_{x}", f"({x}) ...;") for x in "abc")
    other = cand("art_17.par_3", "Paragraphs 1 and 2 shall not apply.")
    assert _in_list_order([b, other, head, a, c]) == [head, a, b, c, other]
    # points quoted without their list's opening words keep the order of their scores (two definitions)
    d44, d39 = cand("art_4.pnt_11", "(11) 'consent' means ..."), cand("art_4.pnt_2", "(2) 'processing' means ...")
    assert _in_list_order([d44, d39]) == [d44, d39]


def test_an_amending_acts_instructions_are_no_list_that_answers():
    from lexcite.contract import CitationRef, Evidence

    def ev(sid: str, act: str, unit: str, text: str) -> Evidence:
        return Evidence(sid, CitationRef(act, "2026-07-27", unit), f"Article {unit}", text, "current", True, "")

    # the Omnibus's points, each changing another article, share more of the question's words together than the
    # paragraph that answers it (dev ee21 quoted points (3) and (4) of the Omnibus's Article 1 for Article 4(3))
    evidence = [ev("S1", "32026R1744", "art_1.pnt_3", "(3) in Article 2, the following paragraph is added: '13. The "
                                                      "Commission shall adopt delegated acts on staff.'"),
                ev("S2", "32026R1744", "art_1.pnt_4", "(4) Article 3 is amended as follows: '(14) a common safety "
                                                      "component draws on goals.'"),
                ev("S3", "32024R1689", "art_4.par_3", "3. The Board shall adopt recommendations on AI literacy, "
                                                      "taking into account European competence frameworks.")]
    draft = ExtractiveGenerator().generate("Which body sets common goals for AI literacy, and what must it draw on?",
                                           evidence)
    assert "list" not in draft.params
    assert parse_draft(draft.text)[0].sids == ("S3",)


def test_an_instruction_whose_new_words_the_evidence_holds_as_the_law_is_not_quoted_again():
    from lexcite.contract import CitationRef, Evidence

    def ev(sid: str, act: str, unit: str, text: str, rank: int | None) -> Evidence:
        return Evidence(sid, CitationRef(act, "2026-07-27", unit), f"Article {unit}", text, "current", True, "",
                        rank=rank)

    # the Omnibus replaced Article 27(5); retrieval ranked the instruction first: the paragraph as it stands is
    # quoted once, in the instruction's place (dev ef17 quoted both, the same words twice)
    new = "The AI Office shall develop a template for a questionnaire to help deployers comply in a simplified manner."
    evidence = [ev("S1", "32026R1744", "art_1.pnt_13.pnt_b", f"(b) paragraph 5 is replaced by the following: "
                                                             f"‘5. {new}’;", 1),
                ev("S2", "32024R1689", "art_27.par_5", f"5. {new}", 3),
                ev("S3", "32024R1689", "art_27.par_4", "4. The deployer shall notify the market surveillance "
                                                       "authority of the results of the assessment.", 2)]
    draft = ExtractiveGenerator().generate("Will the AI Office give deployers a questionnaire template?", evidence)
    quoted = [sid for s in parse_draft(draft.text) for sid in s.sids]
    assert quoted[0] == "S2" and "S1" not in quoted and draft.text.count("questionnaire") == 1


def test_a_list_too_long_to_quote_whole_keeps_the_points_that_answer_with_their_own_points():
    from lexcite.contract import CitationRef, Evidence

    def ev(sid: str, unit: str, text: str) -> Evidence:
        return Evidence(sid, CitationRef("32024R1689", "2024-07-12", unit), f"Annex {unit}", text, "current", True,
                        "")

    filler = "the description of the elements of the model and of the process of its development in general terms"
    evidence = [ev("S1", "anx_11.pnt_2", "The technical documentation of the model shall contain the following:"),
                ev("S2", "anx_11.pnt_2.pnt_a", f"(a) {filler};"), ev("S3", "anx_11.pnt_2.pnt_b", f"(b) {filler}:"),
                ev("S4", "anx_11.pnt_2.pnt_b.pnt_i", f"(i) {filler};"),
                ev("S5", "anx_11.pnt_2.pnt_c", f"(c) {filler};"),
                ev("S6", "anx_11.pnt_2.pnt_d", "(d) the known or estimated energy consumption of the model.")]
    question = "Does the technical documentation of our model have to state its energy consumption?"
    quoted = [s.sids[0] for s in parse_draft(ExtractiveGenerator(max_chars=320).generate(question, evidence).text)]
    assert quoted[0] == "S1" and "S6" in quoted and len(quoted) < 6  # the point on energy, not the first ones
    whole = [s.sids[0] for s in parse_draft(ExtractiveGenerator().generate(question, evidence).text)]
    assert whole == ["S1", "S2", "S3", "S4", "S5", "S6"]  # in document order, each point after its list's head


def test_a_term_quoted_in_the_plural_gets_the_definition_of_the_singular(units):
    # GDPR Article 4: 'recipient' (9) mentions "a third party"; 'third party' (10) is the notion asked about
    _, quoted = answer(units, "The GDPR keeps talking about 'third parties'. Is our payroll provider one of them?",
                       f"{GDPR}#art_4.pnt_9", f"{GDPR}#art_4.pnt_10")
    assert quoted[0][1] == "art_4.pnt_10" and "‘third party’ means" in quoted[0][0]



def test_the_sentence_that_asks_outweighs_the_situation_described_before_it():
    # the bank's own situation shares four words with the logging duty, the question asked three with the guidelines
    from lexcite.contract import CitationRef, Evidence

    def unit(sid: str, unit: str, text: str) -> Evidence:
        return Evidence(sid=sid, ref=CitationRef.parse(f"32024R1689@2024-07-12#{unit}"), title=unit, text=text,
                        status="current", binding=True, source_url="")

    evidence = (unit("S1", "art_96.par_1", "1. The Commission shall publish guidelines on the practical "
                                           "implementation of this Regulation."),
                unit("S2", "art_26.par_9", "9. Banks shall keep the logs of credit scoring systems."))
    draft = ExtractiveGenerator(max_units=1).generate(
        "We're a bank using a credit scoring system to decide on loans. Will the Commission publish guidelines on it?",
        evidence)
    assert draft.text.startswith("The Commission shall publish guidelines") and "[S1]" in draft.text


def test_the_apostrophes_of_contractions_quote_no_term():
    shape = shape_of("We're a small firm and can't tell: what counts as a 'serious incident'?")
    assert shape.quoted == ("serious incident",)
    assert shape_of("We're a bank and can't check it ourselves. Is that allowed?").quoted == ()


def test_a_yes_no_question_stating_a_value_is_decided_by_the_limit_of_that_kind():
    from lexcite.contract import CitationRef, Evidence

    def unit(sid: str, unit: str, text: str) -> Evidence:
        return Evidence(sid=sid, ref=CitationRef.parse(f"32016R0679@2016-05-04#{unit}"), title=unit, text=text,
                        status="current", binding=True, source_url="")

    evidence = (unit("S1", "art_53.par_1", "1. Member States shall provide for each member of their supervisory "
                                           "authorities to be appointed by means of a transparent procedure."),
                unit("S2", "art_54.par_1.pnt_d", "(d) the duration of the term of the members of each supervisory "
                                                 "authority of no less than four years;"))
    asked = ("Our government will appoint the members of its supervisory authority for three-year terms. "
             "Is that allowed?")
    assert shape_of(asked).stated == frozenset({"period"})
    draft = ExtractiveGenerator(max_units=1).generate(asked, evidence)
    assert "no less than four years" in draft.text and "[S2]" in draft.text


def test_a_change_question_naming_a_provision_is_about_that_provision_not_about_amending(units):
    # "change" and "Omnibus" say what kind of answer is wanted; Article 7(1), on amending Annex III by "adding or
    # modifying use-cases", shares those words but not the provision asked about (the note on what changed it, and
    # the former text, are added by answer/amended.py to the provision quoted)
    _, quoted = answer(units, "What did the Digital Omnibus change or amend in Article 60 of the AI Act?",
                       "art_7.par_1", "art_60.par_1")
    assert quoted and all(u.startswith("art_60") for _, u in quoted), quoted


def test_of_two_near_alike_paragraphs_the_one_retrieval_ranked_is_quoted_not_the_first_in_document_order(units):
    # evidence comes grouped by provision in document order: Article 28(2) before 28(4), although only 28(4) was
    # ranked; the prior of the sentence choice follows retrieval's rank, not the position in the evidence
    first, ranked = units.evidence("32016R0679#art_28.par_2", "32016R0679#art_28.par_4")
    question = "What are the rules when a processor works with another processor?"
    unranked = ExtractiveGenerator().generate(question, (replace(first, rank=None), replace(ranked, rank=None)))
    assert unranked.text.startswith("The processor shall not engage another processor")
    draft = ExtractiveGenerator().generate(question, (replace(first, rank=None), replace(ranked, rank=1)))
    assert draft.text.startswith("Where a processor engages another processor") and "[S1]" not in draft.text


def test_a_point_not_ranked_itself_shares_the_rank_of_a_ranked_point_of_its_list(units):
    # the list's opening words and its points read as one: a point given as context is not pushed after every
    # ranked unit when another point of the same paragraph was ranked
    evidence = [replace(e, rank=r) for e, r in zip(units.evidence(
        "32016R0679#art_39.par_1", "32016R0679#art_39.par_1.pnt_a", "32016R0679#art_39.par_1.pnt_b",
        "32016R0679#art_37.par_5"), (None, None, 1, 2), strict=True)]
    ranks, retrieved = _retrieval_ranks(evidence)
    assert ranks == {"S1": 1, "S2": 1, "S3": 1, "S4": 2} and retrieved == {"S1", "S2", "S3", "S4"}
    ranks, retrieved = _retrieval_ranks([replace(e, rank=None) for e in evidence])
    assert ranks == {"S1": 1, "S2": 2, "S3": 3, "S4": 4} and retrieved == set()  # none ranked: evidence order


def test_up_to_three_units_are_quoted_each_adding_what_the_others_lack(units):
    # a question in a user's words matches the law loosely: the paragraph that answers is often the second or
    # third best, so a third unit is quoted when it adds question terms and scores at least half as well
    question = "Can we charge for copies, must we answer within a month, and can we refuse excessive requests?"
    _, quoted = answer(units, question, "32016R0679#art_15.par_3", "32016R0679#art_12.par_3",
                       "32016R0679#art_12.par_5")
    assert {u for _, u in quoted} == {"art_15.par_3", "art_12.par_3", "art_12.par_5"}, quoted
    # the month comes with its extension, a sentence past those quoted for their own sake (MAX_QUOTED)
    month = next(n for n, (text, _) in enumerate(quoted) if "within one month" in text)
    assert quoted[month + 1][0].startswith("That period may be extended")
    assert len(quoted) <= MAX_SENTENCES


def _evidence(sid: str, unit: str, text: str, rank: int | None) -> Evidence:
    return Evidence(sid=sid, ref=CitationRef.parse(f"32016R0679@2016-05-04#{unit}"), title=unit, text=text,
                    status="current", binding=True, source_url="", rank=rank)


def test_a_unit_retrieval_ranked_near_the_top_is_quoted_though_it_adds_no_word_of_the_question():
    # "come after us" shares no word with "remain fully liable": the paragraph that answers is the one retrieval
    # (by meaning) put near the top, though its words add nothing to what the best sentence already covers
    best = "The processor shall not engage another processor without prior written authorisation of the controller."
    liable = ("Where that other processor fails to fulfil its obligations, the initial processor shall remain fully "
              "liable to the controller.")
    question = "Our processor engaged another processor. Can the controller come after the first one?"
    for rank, quoted in ((2, True), (None, False)):
        draft = ExtractiveGenerator().generate(question, (_evidence("S1", "art_28.par_2", best, 1),
                                                          _evidence("S2", "art_28.par_4", liable, rank)))
        assert draft.text.startswith("The processor shall not engage") and ("[S2]" in draft.text) is quoted


def test_an_answer_verify_would_find_too_long_is_rebuilt_with_a_unit_less():
    # three lists the evidence holds whole, each quoted with its points: fifteen sentences, more than verify admits
    evidence = []
    for n in (1, 2, 3):
        evidence.append(_evidence(f"S{len(evidence) + 1}", f"art_{n}.par_1",
                                  f"The controller shall keep the records of register {n}:", n))
        evidence += [_evidence(f"S{len(evidence) + 1}", f"art_{n}.par_1.pnt_{p}",
                               f"({p}) the entries of register {n} on {p};", None) for p in "abcd"]
    draft = ExtractiveGenerator().generate("Does the controller keep registers of its vendors?", tuple(evidence))
    sentences = parse_draft(draft.text)
    assert sentences[0].text.startswith("The controller shall keep the records of register 1")
    assert len(sentences) <= MAX_SENTENCES and "register 2" in draft.text and "register 3" not in draft.text


def test_what_are_the_principles_of_processing_is_not_answered_by_the_definition_of_processing():
    """A definition answers "What is X?" when it defines X's head, not a word that qualifies it."""
    assert shape_of("What are the principles of data processing under the GDPR?").asked == frozenset({"principl"})
    assert shape_of("What is the role of the AI Office?").asked == frozenset(content_terms("AI Office"))
    assert {"deep", "fake"} <= shape_of("What is a deepfake?").asked  # with the acts' word for it
    assert shape_of("Who enforces the AI Act?").asked == frozenset()

    def gdpr(sid: str, unit: str, title: str, text: str) -> Evidence:
        return Evidence(sid, CitationRef("32016R0679", "2016-05-04", unit), title, text, "current", True, "",
                        rank=int(sid[1:]))

    evidence = [gdpr("S1", "art_4.pnt_2", "Article 4, point (2) — Definitions",
                     "(2) ‘processing’ means any operation which is performed on personal data;"),
                gdpr("S2", "art_5.par_1.pnt_a", "Article 5(1), point (a) — Principles relating to processing of "
                                                "personal data", "(a) processed lawfully, fairly and in a transparent "
                                                                 "manner in relation to the data subject;")]
    draft = ExtractiveGenerator().generate("What are the principles of data processing?", evidence)
    assert parse_draft(draft.text)[0].sids == ("S2",)
    draft = ExtractiveGenerator().generate("What is data processing?", evidence)
    assert parse_draft(draft.text)[0].sids == ("S1",)


def test_a_point_is_read_under_its_lists_opening_words(units):
    """GDPR Article 17(1)(b) says "the data subject withdraws consent"; what follows from it, its opening words say
    ("the controller shall have the obligation to erase personal data without undue delay where ..."): the point is
    scored with their words too, at the heading's weight, and only when they are in the evidence."""
    question = "Must the controller erase the data without undue delay once consent is withdrawn?"
    c, shape = cues(question), shape_of(question)
    q_terms = {t: 1.0 for t in content_terms(question)}

    def point(*names):
        evidence = units.evidence(*names, act=GDPR)
        cand = next(x for x in ExtractiveGenerator()._candidates(evidence) if x.unit == "art_17.par_1.pnt_b")
        return cand, score_sentence(cand.text, cand.terms, q_terms, c, 1, shape=shape, chapeau=cand.chapeau,
                                    heading=cand.heading)

    read, with_opening = point("art_17.par_1", "art_17.par_1.pnt_b")
    alone, without = point("art_17.par_1.pnt_b")
    assert {"control", "delay"} <= read.heading - alone.heading and not {"control", "delay"} & read.terms
    assert with_opening > without


def test_an_annex_point_that_opens_a_list_of_its_own_is_quoted_as_one_block(units):
    """Annex III point 3 ("Education and vocational training:") heads its points (b) and (d), point 1 its (c): each
    list reads as the law writes it, whichever of its points was chosen first, though the annex itself is not
    quoted."""
    from lexcite.answer.generate_extractive import _in_list_order

    evidence = units.evidence("anx_III.pnt_3.pnt_d", "anx_III.pnt_3", "anx_III.pnt_1", "anx_III.pnt_1.pnt_c",
                              "anx_III.pnt_3.pnt_b")
    candidates = ExtractiveGenerator()._candidates(evidence)
    ordered = [x.unit for x in _in_list_order(candidates)]
    assert ordered == ["anx_III.pnt_3", "anx_III.pnt_3.pnt_b", "anx_III.pnt_3.pnt_d", "anx_III.pnt_1",
                       "anx_III.pnt_1.pnt_c"]
    # a point added later (the sentences nearest the question) goes right after the one before it in the law's order
    from lexcite.answer.generate_extractive import _placed

    b = next(x for x in candidates if x.unit == "anx_III.pnt_3.pnt_b")
    placed = _placed([x for x in _in_list_order(candidates) if x is not b], [b])
    assert [x.unit for x in placed] == ordered


def test_a_lists_opening_words_that_speak_of_the_sentence_before_come_after_it(units):
    """GDPR Article 30(1): "Each controller ... shall maintain a record of processing activities ... That record shall
    contain all of the following information: (a) ...". A point quoted with its opening words comes with the
    sentence they continue: "That record" says nothing without the record it is."""
    evidence = units.evidence("art_30.par_1", "art_30.par_1.pnt_c", "art_9.par_1", act=GDPR)
    text = ExtractiveGenerator().generate("Must we describe which categories of data subjects and of personal data we "
                                          "handle?", evidence).text
    opening = text.index("That record shall contain all of the following information:")
    assert 0 <= text.index("shall maintain a record of processing activities under its responsibility") < opening
    assert opening < text.index("(c) a description of the categories of data subjects")


def test_a_list_whose_opening_words_name_what_is_asked_for_is_quoted_after_the_best_sentence():
    # AI Act Article 49(3) and Annex VIII, Section C (dev ee16): the article says who registers; the information
    # the registration holds is the annex's list, whose opening words name it ("The following information ...")
    register = ("3. Before putting into service a high-risk AI system, deployers that are public authorities shall "
                "register themselves, select the system and register its use in the EU database.")
    evidence = [ev("S1", "art_49.par_3", register),
                ev("S2", "anx_VIII.sct_C", "Section C The following information shall be provided with regard to "
                                           "high-risk AI systems to be registered:"),
                ev("S3", "anx_VIII.sct_C.pnt_1", "1. The name, address and contact details of the deployer;"),
                ev("S4", "anx_VIII.sct_C.pnt_2", "2. The URL of the entry of the AI system in the EU database;"),
                ev("S5", "anx_IX", "Annex IX The following records shall be kept on testing:"),
                ev("S6", "anx_IX.pnt_1", "1. A summary of the testing plan;"),
                ev("S7", "anx_IX.pnt_2", "2. The period of the testing;")]
    q = ("We're public authorities and deployers putting into service a high-risk AI system: we must register "
         "ourselves, select the system and register its use in the EU database. What information goes into it?")
    draft = ExtractiveGenerator().generate(q, evidence)
    assert [s.sids[0] for s in parse_draft(draft.text)] == ["S1", "S2", "S3", "S4"]
    # asked for something no list's opening words name, the answer is the best sentence alone
    other = ExtractiveGenerator().generate(q.replace("What information goes into it?", "Which rules apply?"), evidence)
    assert [s.sids[0] for s in parse_draft(other.text)] == ["S1"]


def test_a_question_asking_for_the_full_list_gets_every_point_of_a_long_list(units):
    # GDPR Article 40(2) has eleven points (a)-(k), more than a list question is quoted whole for; the user who asks
    # for "the full list" gets all of them (dev ep07), the user who does not the points that answer
    names = [f"{GDPR}#art_40.par_2", *(f"{GDPR}#art_40.par_2.pnt_{p}" for p in "eikabcdfghj"), f"{GDPR}#art_40.par_1"]
    full = "Our trade association wants to draft a GDPR code of conduct. Which subjects may it deal with? Give me " \
           "the full list."
    assert shape_of(full).complete and not shape_of(full.removesuffix(" Give me the full list.")).complete
    _, quoted = answer(units, full, *names)
    assert [u for _, u in quoted] == ["art_40.par_2", *(f"art_40.par_2.pnt_{p}" for p in "abcdefghijk")]
    assert len(quoted) <= MAX_SENTENCES
