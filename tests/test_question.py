"""lexcite.question: what a question asks for, read from its cue words; its content words."""

from __future__ import annotations

import pytest

from lexcite.question import (
    asked_twice,
    asking_sentences,
    asks_for_value,
    content_terms,
    cues,
    in_english,
    question_parts,
    singular,
    stem,
    value_query,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("question, kinds", [
    ("By when must providers comply?", {"date", "month", "period"}),
    ("How many days does a provider have to report a serious incident?", {"date", "period"}),
    ("How much can a company be fined?", {"amount", "percent"}),
    ("What percentage of turnover?", {"percent"}),
    ("What does 'provider' mean?", set()),
])
def test_the_values_a_question_asks_for(question, kinds):
    assert cues(question).value_kinds() == kinds


def test_how_many_days_asks_for_a_period_not_a_date():
    assert cues("How many days does a provider have?").names() == ("period",)


def test_how_many_working_days_asks_for_a_period_not_a_count():
    assert cues("How many working days does the authority have to reply?").names() == ("period",)
    assert cues("How many business days do we get?").names() == ("period",)
    # a count asked beside it stays a count
    assert cues("How many experts sit on the panel, and how many days do they have?").count


def test_the_number_of_months_asks_for_a_period_as_how_many_months_does():
    months = cues("What is the maximum number of months a start-up may stay in a sandbox?")
    assert months.period and not months.count and not months.date
    assert cues("What is the minimum number of staff a body needs?").count  # a count of what is not time


def test_an_italian_since_when_asks_for_a_date():
    assert cues("Da quando valgono gli obblighi per chi fornisce modelli di IA?").date
    assert not cues("Quali obblighi valgono per chi fornisce modelli di IA?").date


def test_the_longest_time_allowed_asks_for_a_period():
    from lexcite.question import asks_for_value
    q = "They told us to fix it. What's the longest they can give us to do that?"
    assert cues(q).period and asks_for_value(q)


def test_a_definition_question_is_recognised():
    assert cues("What does 'provider' mean?").definition
    assert cues("Explain what profiling means under the GDPR").definition
    # "Who is a deployer?" asks what the act calls one; "Who is the chair?" asks who holds an office
    assert cues("Who is a deployer under the AI Act?").definition
    assert not cues("Who is the chair of the Board?").definition
    # the act's names for roles are defined terms ("distributor", "deployer")
    assert cues("We resell a vendor's AI tool. What is our role under the AI Act?").definition
    assert cues("Which role does that give us?").definition
    assert not cues("What does our role as a deployer oblige us to do?").definition


def test_means_as_resources_or_as_a_way_asks_no_definition():
    assert not cues("Does the AI Office have enough means to enforce the rules?").definition
    assert not cues("Can consent be given by means of a tick box?").definition
    assert not cues("What does the AI literacy duty mean in practice for us?").definition  # how to comply
    assert not cues("We can't work out what the staff AI skills duty means in practice.").definition


def test_content_terms_drop_stop_words_and_keep_compounds_whole_and_split():
    assert content_terms("The providers of high-risk AI systems shall comply") == [
        "provid", "high-risk", "high", "risk", "ai", "system", "compli"]
    # words that join one thing to another, as "of" does, are no content
    assert content_terms("a serious incident involving an AI system, concerning health") == [
        "serious", "incid", "ai", "system", "health"]


def test_the_stemmer_joins_the_forms_of_a_word():
    assert stem("providers") == stem("provider") == "provid"
    assert stem("prohibited") == stem("prohibition") == "prohibit"
    assert stem("conscious") == stem("consciousness") and stem("fines") == stem("fined")


def test_the_c_stemmer_gives_the_pure_python_snowball_stems_on_the_acts_words(corpus):
    """PyStemmer (the fast path snowballstemmer takes when it is installed) stems as the Snowball algorithm does."""
    import re

    Stemmer = pytest.importorskip("Stemmer")
    from snowballstemmer.english_stemmer import EnglishStemmer

    words = set()
    for name in ("32024R1689.oj.xhtml", "32016R0679.oj.html", "32022R2065.oj.xhtml"):
        text = (corpus / name).read_text(encoding="utf-8", errors="ignore")
        words |= {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]", text)}
    fast, slow = Stemmer.Stemmer("english"), EnglishStemmer()
    assert len(words) > 5000
    assert [w for w in sorted(words) if fast.stemWord(w) != slow.stemWord(w)] == []


def test_when_were_rules_due_to_apply_asks_a_date_and_counting_as_a_term_asks_its_definition():
    assert cues("Before the Omnibus, when were the high-risk rules due to apply?").date
    assert not cues("When is a company obliged to appoint a representative?").date
    assert cues("What does software need to do to count as an 'AI system'?").definition
    assert cues("Is a lost laptop a data breach in GDPR terms?").definition
    assert not cues("How are fines set in terms of turnover?").definition


def test_a_when_clause_before_the_question_asks_no_date():
    assert not cues("When codes of conduct are drawn up, whose needs must the AI Office keep in mind?").date
    assert cues("When must providers register, and where?").date


def test_when_a_company_needs_a_thing_asks_for_the_cases_not_a_date():
    """"When does a company need a representative in the EU?" was refused: no admitted provision states a date."""
    assert not cues("When does a company need a representative in the EU under the GDPR?").date
    assert not asks_for_value("When do we need a data protection officer?")
    assert cues("When does the AI Act apply?").date and asks_for_value("When does the AI Act apply?")
    assert cues("When do we need to notify the authority?").date


def test_a_question_for_the_name_of_a_thing_described_asks_for_its_definition():
    assert cues("What does the AI Act call that kind of predictable use outside what we designed it for?").definition
    assert cues("Our lab tests saliva for ancestry. What type of personal data is that?").definition
    assert not cues("What does the provider have to do next?").definition


def test_how_much_notice_asks_for_a_period_not_an_amount():
    c = cues("How much advance notice must the notified body give?")
    assert c.period and not c.amount
    assert cues("How much is the fine?").amount


@pytest.mark.parametrize(("a", "b"), [("notify", "notification"), ("urgent", "urgency"), ("compliant", "compliance"),
                                      ("liable", "liability"), ("certify", "certification")])
def test_derived_forms_a_reader_takes_for_one_word_have_one_stem(a, b):
    assert stem(a) == stem(b)


def test_provider_and_provision_stay_apart():
    assert stem("provider") != stem("provision")


def test_marketing_is_no_market():
    """Direct marketing (GDPR Article 21) is no placing on the market: "Do I need consent to send marketing emails?"
    was answered with "market size" from the AI Act's fees for SMEs."""
    assert stem("marketing") != stem("market") == stem("markets")
    assert "marketing" in content_terms("Can we send marketing emails?")


@pytest.mark.parametrize(("question", "parts"), [
    ("We run a stadium. What permission do we need first, and what if it is too urgent to wait?",
     ["We run a stadium. What permission do we need first", "what if it is too urgent to wait?"]),
    ("Can an authority fine a public hospital, or does that depend on the country?",
     ["Can an authority fine a public hospital", "does that depend on the country?"]),
    ("I complained months ago and have heard nothing back. After how long can I go to court?",
     ["I complained months ago and have heard nothing back. After how long can I go to court?"]),
    ("Is it banned, and since when?", ["Is it banned, and since when?"]),
])
def test_a_second_question_joined_to_the_first_is_a_part_of_its_own(question, parts):
    assert question_parts(question) == parts


@pytest.mark.parametrize(("phrase", "one"), [
    ("third parties", "third party"), ("Operators", "operator"), ("businesses", "business"),
    ("supervisory authorities", "supervisory authority"), ("status", "status"), ("analysis", "analysis"),
    ("personal data", "personal data"), ("", "")])
def test_singular_puts_the_last_word_of_a_term_in_the_singular(phrase, one):
    assert singular(phrase) == one


def test_contractions_are_no_content_words():
    # "We're" is no word of the law: as a term it would weigh as the rarest word of every question
    assert content_terms("We're sure it's fine, but don't we need the controller’s consent? I've asked.") == \
        ["sure", "fine", "control", "consent", "ask"]


@pytest.mark.parametrize("question", [
    "articolo 50, paragrafo 2: cosa devono fare i fornitori che generano contenuti sintetici?",
    "Welche Pflichten muss ein Anbieter erfüllen?",
    "Quelles obligations doit respecter un fournisseur?",
    "¿Qué debe hacer un proveedor?",
])
def test_a_question_in_another_language_is_recognised(question):
    assert not in_english(question)


def test_an_english_question_is_english():
    assert in_english("Can a provider in Italy use the system for the police?")


def test_a_question_whether_an_act_applies_is_told_from_one_about_which_rule_or_when():
    from lexcite.question import asks_if_act_applies

    for q in ("Does the GDPR apply to a company based outside the EU?",
              "We are a US firm. Does the AI Act apply to us?",
              "Are we covered by the AI Act?", "Can that cabinet fall under the GDPR even though it is on paper?",
              "Is our research lab within the scope of the AI Act?", "Does this Regulation apply to hobby projects?",
              # fresh dev en17: a clause before the asking words, and the act's scope asked from outside it
              "We have no EU office. Because the app is free, are we outside the GDPR?",
              "Are we exempt from the AI Act?", "Is a hospital bound by the GDPR?"):
        assert asks_if_act_applies(q), q
    for q in ("What conformity check applies to a high-risk AI system?",
              "When do the obligations for high-risk systems start to apply?",
              "Does the AI Act apply to us in full? When do its rules start to apply?",  # the asking sentence
              "Is a CV screening tool high-risk?",
              "Do the rules on high-risk systems apply to my chatbot?",  # which rules, not the act's scope
              "When the fine is paid, is the money outside the EU budget?"):
        assert not asks_if_act_applies(q), q


def test_the_sentences_that_ask_are_read_twice_and_the_situation_once():
    q = "We're a cloud vendor. We handle data for a client.  Do we need its permission? And in writing?"
    assert asking_sentences(q) == ["Do we need its permission?", "And in writing?"]
    assert asked_twice(q) == ("We're a cloud vendor. We handle data for a client. Do we need its permission? And in "
                              "writing? Do we need its permission? And in writing?")


def test_a_question_that_only_asks_or_never_asks_is_read_as_it_is():
    assert asked_twice("Who must keep the logs?") == "Who must keep the logs?"
    assert asked_twice("List the prohibited practices.") == "List the prohibited practices."
    assert asking_sentences("List the prohibited practices.") == []


def test_an_adverb_before_the_asking_words_still_asks_for_the_value():
    # fresh dev el21: "Exactly how many days ...?" was read as asking for no value, so no admitted provision had to
    # state one and the question was answered with other periods
    assert asks_for_value("We run a shop with CCTV. Exactly how many days may we keep the footage?")
    assert asks_for_value("Roughly how much is the fine?")
    # fresh dev en21: what is paid for work is a value asked for, like a fee or a salary
    assert asks_for_value("What minimum hourly pay does the AI Act set for annotation work?")
    assert not asks_for_value("We are exactly how the Regulation describes a provider. Must we register?")


def test_a_query_typed_as_a_noun_phrase_asks_for_the_value_it_names():
    # fresh dev eq19, eq21: one-line queries name the value they want and ask nothing else
    assert value_query("Court fees to sue a company over my data in Spain?") == "Court fees"
    assert value_query("Minimum number of years a voluntarily appointed DPO must stay in the job?") == \
        "Minimum number of years"
    assert asks_for_value("Our shop is small. Deadline for reporting a breach?")
    # a sentence that asks with its own words, or states a value, is not such a query
    assert value_query("Does the fine apply to us?") is None
    assert value_query("The fine was EUR 5 million. Can we appeal?") is None
    assert value_query("Pay-or-consent models: allowed?") is None
