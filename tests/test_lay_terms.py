"""Query expansion: the acts' words for what a question says in its own, added for BM25 and the reranker."""

from __future__ import annotations

import pytest

from lexcite.lay_terms import abbreviations, acts_terms, expand_query, written_out

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("question", "term"), [
    ("We're based in India. Do we need someone in the EU to act for us?", "authorised representative"),
    ("Must countries give their AI authorities enough money?", "Member States"),
    ("Must countries give their AI authorities enough money?", "financial resources"),
    ("Can the police run live face matching at a station?", "law enforcement"),
    ("What counts as sensitive personal data?", "special categories of personal data"),
    ("Can a website store cookies on my device without asking me?", "storing of information terminal equipment"),
    ("Do we need consent before sending marketing emails?", "unsolicited communications direct marketing"),
    ("Is cold calling small businesses allowed?", "unsolicited communications direct marketing"),
    ("What paperwork must we keep for a high-risk system?", "documentation"),
    ("Can we keep sensitive information about our patients?", "special categories of personal data"),
    ("What is the legal basis for processing personal data?", "lawfulness of processing lawful"),
    ("Which lawful grounds can a shop rely on?", "lawfulness of processing lawful"),
    ("Can the police run live face matching at a station?", "biometric identification"),
    ("Do we have to keep an inventory of what we do with people's personal data?", "record of processing activities"),
    ("Can our DPO be an outside consultant?", "service contract"),
    ("Our notified body is closing down. What happens to our certificate?", "cease its activities"),
    ("Is AI that decides who gets into a university high-risk?", "access or admission"),
    ("We want to pass part of the work to a subcontractor. Do we need the client's consent?", "another processor"),
    ("What qualifications does our compliance lead need?", "professional qualities expert knowledge"),
    ("When must a company appoint a data protection officer?", "designate"),
    ("How quickly must we report a breach to the authority?", "personal data breach"),
    ("Can the regulator stack a separate fine for each breach?", "infringement infringes"),
    ("Our app rejects applicants automatically. Is that allowed?", "automated individual decision-making"),
    ("Can we refuse loans without a human ever looking at the file?", "automated individual decision-making"),
    ("We run a testing lab in a country outside the EU. Can we certify AI systems?", "third country"),
    ("We run a testing lab in a country outside the EU. Can we certify AI systems?", "conformity assessment body"),
    ("Can we send customer data to the US without a permit?", "transfer of personal data to a third country"),
    ("No adequacy finding covers the vendor. What now?", "adequacy decision"),
    ("We and a partner decide together which data to collect. Do we need a contract?", "joint controllers"),
    ("We bought a list of contacts from a data broker. Must we tell them?", "not been obtained from the data subject"),
    ("While they check the figure, can I make them stop using that data?", "restriction of processing"),
    ("In a public-health emergency, can a hospital use the system before certification?",
     "situation of urgency exceptional reasons"),
    ("Users agree with one tap. Can we make it harder to take that back?", "withdraw consent"),
    ("Could the Commission put our use on the list of high-risk uses later?", "Annex III use-cases"),
    ("We sell it only as a web service. Where does the CE mark go?", "provided digitally"),
    ("Can we check it ourselves, without an outside certifier?", "internal control"),
    ("Who has a standing seat on the advisory forum?", "permanent members"),
    ("Do we get a chance to fix it before they act?", "put an end to the non-compliance"),
    ("Is our model supervised nationally or at EU level?", "Commission AI Office"),
    ("Who actually sits on the Board?", "composed"),
    ("How long is that mandate, and could she be picked again?", "term of office"),
    ("It wants to appoint its commissioners for three-year terms. Is that allowed?", "term of office"),
    ("Must we tell Brussels about the lab we approved?", "Commission AI Office"),
    ("What does the staff AI skills duty mean for a small firm?", "AI literacy"),
    ("Must we train our people in skills for using AI?", "AI literacy"),
    ("Must we file separate applications under each law?", "single application"),
    ("May our notified body also coach us for a fee?", "consultancy services"),
    ("We had passed the data on to two partner companies. Must we tell them?",
     "recipients to whom the personal data have been disclosed"),
    ("We run a news website. Does the whole GDPR apply to our stories?",
     "journalistic purposes freedom of expression and information"),
    ("Are paper folders in a cabinet covered?", "filing system other than by automated means"),
    ("Can I sue in my home country?", "habitual residence"),
    ("Is emotion recognition at work allowed?", "workplace"),
    ("What must a privacy notice contain?", "information to be provided to the data subject"),
    ("What are the penalties for breaching the GDPR?", "infringement infringes"),
    ("Does the GDPR apply to a US company with EU customers?", "not established in the Union"),
    ("What should a data processing agreement include?", "processing by a processor governed by a contract"),
    ("Do children need parental consent to use social media?", "information society services"),
    ("Must we label AI-generated images?", "artificially generated or manipulated"),
    ("Who enforces the AI Act in each country?", "supervisory authority market surveillance authority"),
    ("Is a DPO mandatory for a small online shop?", "data protection officer"),
    ("Do we need a DPIA for CCTV in a shopping centre?", "data protection impact assessment"),
    ("Do we need a DPIA for CCTV in a shopping centre?", "systematic monitoring of a publicly accessible area"),
    ("Who has to do a FRIA?", "fundamental rights impact assessment"),
    ("What information must I give when I collect data from a third party?", "not been obtained from the data subject"),
    ("How long do I have to answer a subject access request?", "right of access by the data subject"),
    ("How long do we have to let those people know we hold their details?", "personal data"),
    ("After how long can we take the regulator to court?", "effective judicial remedy"),
    ("May national law set rules for employers handling their staff's personal data?",
     "employees' personal data in the employment context"),
    ("Can the authority stop us from using the data, even permanently?", "ban on processing limitation"),
    ("Can the authority stop us from using the data, even permanently?", "definitive"),
    ("We deleted a customer's details at her request. What about our partners?", "erasure"),
    ("Our app spots users who are struggling financially and pushes loans on them. Is that banned?",
     "economic situation"),
    ("Can a chatbot target low-income households with high-interest offers?", "economic situation"),
    ("Can I insist on being told what protections cover that transfer?", "right to be informed"),
    ("Is the authority obliged to keep me posted on where my complaint stands?", "right to be informed"),
])
def test_a_thing_said_in_the_asker_s_words_gets_the_acts_term(question, term):
    assert term in acts_terms(question)


def test_nothing_is_added_that_the_question_already_says_or_that_only_looks_alike():
    assert acts_terms("Which Member States must designate a market surveillance authority?") == ()
    assert "real-time" not in acts_terms("Where must we register the system before it goes live?")
    assert "human oversight" not in acts_terms("Which supervisory authority is competent?")
    assert "third country" not in acts_terms("We are based in Europe. Does the GDPR apply?")
    assert "cease its activities" not in acts_terms("Can we roll the windows up?")
    assert "real-time" not in acts_terms("I live in Portugal. Can I sue at home?")
    assert "human resources" not in acts_terms("May national law set rules on our staff's personal data?")
    assert "human resources" in acts_terms("Must the authority have enough staff?")
    assert "purely personal non-professional activity" not in acts_terms("Can I bring the case at home?")
    assert "journalistic purposes freedom of expression and information" not in acts_terms(
        "Must we report serious incidents?")
    # a breach of the rules is an infringement, not a personal data breach
    assert "personal data breach" not in acts_terms("Can the regulator stack a separate fine for each breach?")
    assert "personal data breach" not in acts_terms("What is the fine for a breach of the AI Act?")
    # a workforce's AI skills are AI literacy, not a data protection officer's qualifications
    assert "professional qualities expert knowledge" not in acts_terms("What does the staff AI skills duty mean?")
    assert "professional qualities expert knowledge" in acts_terms("What skills must our DPO have?")
    assert "term of office" not in acts_terms("In terms of the GDPR, can I mandate a consumer group in the long term?")
    # a place, not the institutions the city stands for
    assert "Commission AI Office" not in acts_terms("Inspectors visit our Brussels office. Who pays for damage?")
    # "who decides whether the code suffices" asks about no controller
    assert acts_terms("Who decides whether that code covers our obligations?") == ()
    assert "controller determines the purposes and means" in acts_terms("Who decides how the data is used?")
    # "us" the pronoun names no country
    assert "not established in the Union" not in acts_terms("Can you help us shop for a compliant tool?")
    assert "third country" not in acts_terms("Which rules apply when a partner gives us business contacts?")
    # a notified body's decision is challenged by an appeal procedure (AI Act Article 44(3)), no court said
    assert "effective judicial remedy" not in acts_terms("Can we challenge the notified body's decision?")
    # the GDPR's own words: "the contact details of the data protection officer" (Article 37(7))
    assert "personal data" not in acts_terms("When must we send the regulator our DPO's contact details?")
    assert {"third country", "not established in the Union"} <= set(acts_terms("We are a Swiss shop. Which rules?"))
    assert "personal data breach" not in acts_terms("What are the penalties for breaching the GDPR?")
    # initials are read in capitals only; "law enforcement" is no regulator
    assert acts_terms("Is there a sar or a dpo in the text?") == ()
    # CCTV footage is material, not the monitoring of a place
    assert acts_terms("Can we scrape faces from CCTV footage?") == ()
    assert acts_terms("Can police use it for law enforcement?") == ()
    # who supervises a system is an authority, not a person overseeing its output
    assert "human oversight" not in acts_terms("Who supervises AI systems built on general-purpose AI models?")
    assert "human oversight" in acts_terms("Must a human supervise the system?")
    # a dataset an AI system is trained or tested on is training data; a research or a public body's dataset is not
    assert "training, validation and testing data sets" in acts_terms("Must the datasets we train the model on be "
                                                                        "free of errors?")
    assert "training, validation and testing data sets" not in acts_terms(
        "A patient objects to us keeping her records in a statistical research dataset. Must we stop?")
    assert "training, validation and testing data sets" not in acts_terms("May a city sell its datasets?")
    # being short of money, not a poor design or a struggle to comply
    assert acts_terms("Is a poor design a defect? We are struggling to comply.") == ()


def test_the_question_comes_first_and_is_kept_whole():
    q = "Can the police use live face matching?"
    assert expand_query(q).startswith(q + " ") and expand_query("What is an AI system?") == "What is an AI system?"


def test_the_abbreviations_a_text_introduces_are_read_by_their_initials():
    found = abbreviations([
        "(g) measures to support innovation, with a particular focus on small mid-cap enterprises (SMCs) and",
        "(14a) “micro, small and medium-sized enterprise” or “SME” means a micro, small or medium-sized enterprise",
        "the Commission shall consult the European Telecommunications Standards Institute (ETSI) and",
        "as referred to in Regulation (EU) 2019/1020, the European Union in accordance with Regulation (EU)",
    ])
    assert found["SMC"] == "small mid-cap enterprises"
    assert found["SME"] == "micro, small and medium-sized enterprise"
    assert found["ETSI"] == "European Telecommunications Standards Institute"
    assert "EU" not in found  # after "Regulation" or "the European Union in accordance with Regulation"


def test_a_sentence_using_an_abbreviation_has_the_words_of_its_long_form():
    terms = written_out(["support for small mid-cap enterprises (SMCs) and"])
    assert {"small", "mid-cap", "enterpris"} <= set(terms["smcs"]) and terms["smc"] == terms["smcs"]
    assert written_out(["Regulation (EU) 2024/1689"]) == {}
