"""Answerability: refuse only when the law is silent, decided in code from what the evidence states.

A retrieval score cannot tell an unanswerable question from an answerable one, so
this runs after evidence and before any generator, on the admitted units' text:

1. value: a sentence of the question asks for a value (`question.asks_for_value`;
   its kind from `question.cues`: a date, a period, an amount, a percentage, a
   threshold, or a count for "how many staff") and no admitted sentence states
   one of that kind (a unit's label, "(48)", and "points 6, 7 and 8 of Annex
   III" count nothing) about the question's subject (sharing at least
   `MIN_SUBJECT` of the subject's term weight) -> refusal naming the kind of
   value and the subject. When the question names what it measures ("how many
   staff", "the registration fee", "how much liability insurance cover"), a
   sentence stating such a value must also be about that thing (two thirds of
   its words, counting only words the admitted units use) -> else refusal; so
   must a sentence stating a time for what a question asks how long to do
   ("How many years must we keep our record ...?": a third of the words of
   "keep our record ..."), and the verb of that act ("have to countersign") must
   be spoken of by an admitted unit, itself, a verb of its family ("tell":
   inform, notify, submit) or the acts' term for the asker's words, unless it
   is a light one ("get", "make"); and a count of something a body has ("How many
   members does the advisory forum have?") is stated by a sentence naming that
   body whose number counts that thing ("two co-chairs from among its members"
   counts co-chairs; "composed of one representative per Member State" counts
   members). A question asking how long a thing itself lasts ("How long does
   our accreditation last?") is answered by a sentence stating a period for
   that thing (two thirds of its words), whatever else it says of the asker. A
   question that names an act ("under the AI Act") is answered by that act's
   admitted units, when any is admitted; one that names a provision ("What
   does Article 16 GDPR ..., and how quickly?") by that provision's units,
   whatever its other words;
2. term: the question asks about a name (a proper name or a model name: "Italy",
   "GPT-4") that appears in no admitted unit, neither written out nor as the
   initials of words a unit uses ("DPO": "data protection officer"), and is not
   a name of an act in the catalog -> refusal naming it. Only the sentence that
   asks is read: "Our shop is based in Canada. Does the GDPR apply to us?" asks
   about the GDPR, not about Canada. A Member State the question places itself
   in ("Do I have to sue in the Netherlands?") is answered by the rule for every
   Member State, unless the question asks for a value or what that State has
   decided (neither is in the acts); and one that names a country outside the
   Union ("Can we transfer personal data to the United States?") by the rules on
   third countries, when an admitted unit speaks of them. So is the thing a
   which/what question asks for ("Which programming languages does ...?") when
   no admitted unit or heading has any of its words; words people use for
   notions the acts name otherwise ("company": undertaking, enterprise) are
   never decisive;
3. decided elsewhere: the question asks what a body other than the legislator
   has decided ("Which icons has the Commission laid down ...?", "Has Germany
   decided to allow ...?") and no admitted unit comes from an act of that body
   (an act's title names who adopted it: "Commission Implementing Regulation
   ...", "... of the European Parliament and of the Council") -> refusal: the
   acts can leave a matter to the Commission or a Member State, but what that
   body then decided is not in them; so is a question that asks what a Member
   State's own law provides ("Which conditions does German law attach ...?"),
   or which countries, companies or bodies hold a decision or status now
   ("Which countries currently have an adequacy decision?"), or who holds an
   office now ("Who is the current chair of the Board?": an election names her,
   not the act), or who was the first, last or only one to undergo something
   ("Which provider was the first to be fined ...?": what happened under the
   acts is not in them), or what is the case at a time and asks no rule
   ("Which country runs the biggest sandbox so far?"), or how an act it names
   was made ("Did the Parliament adopt the AI Act unanimously?"), or which one
   particular company, product or person ("Which insurance company has to
   cover ...?": the acts name bodies and roles, never a particular one);
4. defined elsewhere: a question asks for the values that make something count
   as a defined term ("How many employees can we have and still count as a
   small mid-cap?"), the admitted definition of that term defers to an
   instrument the catalog does not hold ("as defined in point (2) of the Annex
   to Recommendation (EU) 2025/1099"), and no admitted sentence that names the
   term states a value of the kind asked -> refusal naming the instrument.

5. premise: a sentence of the question says what an act sets, with a value in
   it ("The AI Act obliges notified bodies to give a flat 50 % discount"), and
   no admitted unit states that value (a percentage, an amount, a period or a
   count) -> refusal naming the value: the question rests on a rule the
   provisions do not contain, and quoting the nearest one would seem to
   confirm it.

Otherwise the question is answerable, and the generator decides what to quote.
`MIN_SUBJECT` was set on the golden dev split (bench/answer_stage.py, bench/RESULTS.md).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, NamedTuple

from lexcite.answer.draft import split_sentences
from lexcite.answer.evidence import own_text, supporting_text
from lexcite.contract import Evidence
from lexcite.lay_terms import acts_terms, said_as
from lexcite.question import asks_for_value, content_terms, cues, in_english, stem, value_query, value_secondary
from lexcite.references import find_references, without_references
from lexcite.values import MONTH_NAMES, counts, kinds_answered, read_values

__all__ = ["Answerability", "check", "VALUE_NOT_STATED", "TERM_ABSENT", "DECIDED_ELSEWHERE", "DEFINED_ELSEWHERE",
           "PREMISE_NOT_STATED", "MIN_SUBJECT"]

VALUE_NOT_STATED = "value_not_stated"
TERM_ABSENT = "term_absent"
DECIDED_ELSEWHERE = "decided_elsewhere"
DEFINED_ELSEWHERE = "defined_elsewhere"
PREMISE_NOT_STATED = "premise_not_stated"
MIN_SUBJECT = 0.05
THING_SHARE = 2 / 3  # of the words of the thing a value question names ("how many staff")
DURATION_SHARE = 1 / 3  # dev: 2/3 refused q012 and dv08 ("hold on to the event records": "keep the logs")

_KIND_WORDS = {"date": "date", "month": "date", "period": "period of time", "amount": "amount", "percent": "percentage",
               "power": "threshold", "number": "number"}
# Words that say what kind of value is asked, not what it is about ("how long", "the maximum fine").
_ASKING = frozenset(stem(w) for w in """
how much many long soon quickly fast often when date dates deadline deadlines period periods time limit maximum
minimum amount amounts value number exact exactly percentage percent rate threshold level ceiling cap day days
week weeks month months year years hour hours euro euros eur apply applies applicable start starts begin begins
""".split())
# A capitalised word that does not start the sentence, or a name with a digit ("GPT-4", "Llama-3").
_NAME = re.compile(r"(?<![.?!:]\s)(?<!^)(?<![‘'\"“])\b([A-Z][\w’'-]*[\w]|[A-Za-z]+-?\d[\w.-]*)")
# The official languages of the Union: a question naming one asks about language, which the acts rule on by kind
# ("a language which can be easily understood by the authority"), never by name.
_LANGUAGES = frozenset("""
bulgarian croatian czech danish dutch english estonian finnish french german greek hungarian irish italian latvian
lithuanian maltese polish portuguese romanian slovak slovenian spanish swedish
""".split())
_POSSESSIVE = re.compile(r"['’]s$")
# The Member States, by name and adjective. The acts speak of "a Member State", so a question that places itself in
# one ("Do I have to sue in the Netherlands?") is answered by the rule for every Member State; what one of them has
# set or decided (a fine, an age, a designated authority) is not in the acts, so a value question keeps the name.
_MEMBER_STATES = frozenset("""
austria austrian belgium belgian bulgaria bulgarian croatia croatian cyprus cypriot czechia czech denmark danish
estonia estonian finland finnish france french germany german greece greek hungary hungarian ireland irish italy
italian latvia latvian lithuania lithuanian luxembourg luxembourgish malta maltese netherlands dutch poland polish
portugal portuguese romania romanian slovakia slovak slovenia slovenian spain spanish sweden swedish
""".split())
# Countries outside the Union, by the words of their names and adjectives. The acts speak of "a third country", so a
# question that asks whether it may send data to one ("Can we transfer personal data to the United States?") is
# answered by the rules on transfers to third countries; what one has decided or been granted is not in the acts.
_THIRD_COUNTRIES = frozenset("""
united states america american usa us kingdom britain british uk switzerland swiss
norway norwegian iceland icelandic liechtenstein canada canadian mexico mexican brazil brazilian argentina argentinian
china chinese hong kong india indian japan japanese korea korean singapore singaporean australia australian zealand
israel israeli turkey turkish russia russian ukraine ukrainian south africa african
""".split())
# A date in the question ("In May 2025", "As of New Year 2025") says when, not what: its words are no names.
_CALENDAR = frozenset([*MONTH_NAMES, "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
                       "new", "year", "years", "eve", "christmas", "easter"])


@dataclass(frozen=True)
class Answerability:
    """Whether the admitted units can answer, and if not which rule says so and why."""

    answerable: bool
    rule: str = ""  # VALUE_NOT_STATED or TERM_ABSENT when not answerable
    reason: str = ""  # for the refusal: what the provisions do not state
    detail: dict[str, Any] = field(default_factory=dict)  # for the trace

    def to_dict(self) -> dict[str, Any]:
        return {"answerable": self.answerable, "rule": self.rule, "reason": self.reason, "detail": self.detail}


def _asking_sentence(question: str) -> str:
    """The sentence that asks: the last one ending in '?', else the whole question."""
    parts = [p for p in split_sentences(question) if p.strip()]
    asking = [p for p in parts if p.rstrip().endswith("?")]
    return asking[-1] if asking else question


def _subject(question: str) -> tuple[str, list[str]]:
    """The asking sentence (to name the subject) and the content terms of the whole question (the sentences
    before it often say what it is about: "A customer asked for her data. How long do we have?")."""
    text = _asking_sentence(question).strip().rstrip("?").strip()
    terms = [t for t in content_terms(question) if t not in _ASKING]
    # "high-risk" is the subject, not "high" (which "whichever is higher" also gives)
    parts = {stem(p) for t in terms if "-" in t for p in t.split("-")}
    return text, [t for t in terms if "-" in t or t not in parts]


def _initials(words: Sequence[str], acronym: str) -> bool:
    n = len(acronym)
    return any("".join(w[0] for w in words[i:i + n]).lower() == acronym.lower() for i in range(len(words) - n + 1))


def _absent_names(question: str, texts: Sequence[str], known: Iterable[str]) -> list[str]:
    """The names the asking sentence uses that no admitted text has, written out or as initials."""
    haystack = " ".join(texts).lower()
    words = [w for w in re.findall(r"[A-Za-z][\w-]*", " ".join(texts)) if w.lower() not in ("and", "of", "the")]
    known = {k.lower() for k in known}
    out = []
    asking = without_references(_asking_sentence(question))
    # "Do I have to sue in the Netherlands?": the rule for a Member State answers it; "What is the fine in Italy?" and
    # "Which authority has Italy designated?" (what that State decided, rule 3) do not. The acts' rules hold in every
    # Member State alike, so the units need not say "Member State" ("We're a French start-up: will the French
    # regulator or the Commission supervise our model?" is answered by who supervises such models; dev ea11)
    by_rule = not asks_for_value(question) and not _DECIDED.search(question)
    in_a_third_country = "third countr" in haystack and by_rule
    for m in _NAME.finditer(asking):
        name = _POSSESSIVE.sub("", m.group(1))
        low = name.lower()
        if low in known or low in _CALENDAR or re.search(rf"\b{re.escape(low)}\b", haystack):
            continue
        if (by_rule and low in _MEMBER_STATES) or (in_a_third_country and low in _THIRD_COUNTRIES):
            continue
        if "-" in name and not any(ch.isdigit() for ch in name):
            continue  # "AI-made", "EU-wide": a compound of words, not a name ("GPT-4" is one)
        if name.isupper() and 2 <= len(name) <= 5 and _initials(words, name):
            continue
        if low in _LANGUAGES and re.search(r"\b(?:in|into)\s+$", asking[:m.start()]) and "language" in haystack:
            continue  # "can we reply in English?" is answered by the language the provision requires
        if any(re.search(rf"\b{re.escape(w.lower())}\b", haystack) for term in acts_terms(name) for w in term.split()
               if w.lower() not in ("ai", "eu")):
            continue  # a name people use for a notion the acts name otherwise ("Brussels": the Commission)
        out.append(name)
    return list(dict.fromkeys(out))


# "Which programming languages does ...": the thing a which/what question asks for, before its verb. The which/what
# opens the asking sentence or a clause of it: "is there a list ... to describe which AI systems the lab may
# certify?" is a yes/no question, and asks for no thing named.
_HEAD = re.compile(r"(?:^|[,;:—–]\s*)(?:(?:and|but|so|in|for|to|of|from|under|by|with|on|at)\s+)?"
                   r"(?:which|what)\s+((?:[\w'’-]+\s+){1,4}?)(?=(?:is|are|does|do|must|has|have|can|may|did|was|"
                   r"were|should|will|would|could|shall)\b)", re.I)
_AUXILIARIES = frozenset("is are does do must has have can may did was were should will would could shall".split())
# Words people use for notions the acts name otherwise ("company": undertaking, enterprise), and words of no
# particular thing ("what else", "which situations", "what extra information", "what share of it": the thing asked
# for is the rest of the phrase, or whatever the provision lists): never decisive.
_GENERIC = frozenset(stem(w) for w in """
company companies firm firms business businesses provision provisions rule rules law laws thing things kind kinds
type types sort sorts part parts step steps option options way ways article articles annex
else other others extra additional further more basic main general specific particular certain
situation situations circumstance circumstances case cases scenario scenarios share proportion portion
""".split())
# What a thing counts for in law ("What weight does adherence to a code carry?", "what effect has ...?"): the
# provision says it in its own words ("may be used as an element"), so the noun asked for names no thing to look for.
_STANDING = frozenset(stem(w) for w in """
weight effect effects impact consequence consequences significance relevance bearing importance implication
implications role status standing position treatment difference
""".split())


def _absent_head(question: str, texts: Sequence[str], known: Iterable[str]) -> str | None:
    """The thing a which/what question asks for ("programming languages"), when no admitted text has any of
    its words; None when it asks for nothing such, or the units speak of it."""
    m = _HEAD.search(_asking_sentence(question))
    if not m:
        return None
    known = {k.lower() for k in known}
    if m.group(1).split()[0].lower() in _AUXILIARIES:  # "what is the latest ...": no thing named
        return None
    head = [t for t in content_terms(m.group(1))
            if t not in _GENERIC and t not in _STANDING and t not in _ASKING and t not in known]
    if not head:
        return None
    # a thing named in several words is spoken by a unit that has them all: "encryption algorithm" is not named by
    # one unit on encryption and another that mentions an algorithm
    units = [set(content_terms(text)) for text in texts]
    if any(all(_spoken(t, present) for t in head) for present in units):
        return None
    # the acts' word for it ("permission": authorisation) counts as the thing named
    legal = [content_terms(term) for term in acts_terms(m.group(1))]
    return None if any(terms and all(_spoken(t, present) for t in terms) for terms in legal for present in units) \
        else m.group(1).strip()


# "one" counts only as "one X per Y": "at least one", "one or more", "one of" state no count
_NUMBER_WORD = re.compile(r"\b(?:(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?!of\b|or\b)[a-z]|"
                          r"one\s+[a-z]+\s+per\b)", re.I)


def _spoken(term: str, terms: set[str]) -> bool:
    """`term` (a stem) is among `terms`, or begins one: the light stemmer leaves 'malfunct' (malfunction) beside
    'malfunction' (malfunctioning), so a shared start of five letters or more counts. A compound is spoken when
    its parts are: the acts write "AI specific" where a question writes "AI-specific"."""
    if term in terms or any(len(term) >= 5 and t.startswith(term) for t in terms):
        return True
    parts = content_terms(term.replace("-", " ")) if "-" in term else []
    return len(parts) > 1 and all(_spoken(p, terms) for p in parts)


def _kind_phrase(wanted: Iterable[str]) -> str:
    """'an amount or a percentage': the kinds of value asked for, as a refusal names them."""
    kinds = sorted({_KIND_WORDS[k] for k in wanted if k in _KIND_WORDS})
    return " or ".join(f"an {k}" if k[0] in "aeiou" else f"a {k}" for k in kinds)


def _kinds(text: str, payment: bool = False) -> set[str]:
    # the acts write small counts in words ("one representative per Member State"): a number all the same; and
    # "without undue delay" answers "how quickly?", and "free of charge" "how much is the fee?" (`payment`)
    # a unit's label ("(48)") and the numbers of the provisions it points at count nothing (`values.counts`)
    kinds = (kinds_answered(text, payment) - {"number"}) | ({"number"} if counts(text) else set())
    return kinds | ({"number"} if _NUMBER_WORD.search(text) else set())


# What a value question measures: "how many staff", "how many hours of training", "the registration fee",
# "how much liability insurance cover". A sentence that states a value of the kind asked answers only when it
# is about that thing too: "fines of up to EUR 15 000 000" state no insurance cover.
_STOP = r"(?=\s+(?:is|are|does|do|must|has|have|can|could|may|did|was|were|should|will|would|shall|need|needs|to|" \
        r"in|for|per|under|by|on|at|that|which|a|an|the)\b|\s*[?,.;—–]|\s+-(?=\s)|\s*$)"  # "co-chairs" is one word
# "the (maximum) number of staff" counts as "how many staff"
_HOW_MANY = re.compile(rf"\b(?:how (?:many|much)|number of)\s+((?:[\w'’-]+\s+){{0,5}}?[\w'’-]+?){_STOP}", re.I)
# "how many working days": the days are the unit, not the thing measured
_UNIT_WORDS = re.compile(r"^(?:working|business|calendar|clear)\s+(?=(?:hours|days|weeks|months|years)\b)", re.I)
_PRICED_NOUNS = r"(?:fees?|salary|salaries|pay|wages?|remuneration|age|price|costs?|charges?|rates?)"
_VALUE_NOUN = re.compile(rf"\b(?:what|which)(?:'s| is| are| was| were)? (?:the )?"
                         rf"((?:[\w'’-]+ ){{0,2}}{_PRICED_NOUNS})\b", re.I)


# a rate is a percentage (interest, tax, error rates) or an amount (an hourly rate); the rest (fee, salary, price,
# cost, charge) an amount
_NOUN_KINDS = {"age": frozenset({"period", "number"}), "rate": frozenset({"percent", "amount"})}


_PRICED = re.compile(rf"{_PRICED_NOUNS}$", re.I)


def _value_noun(asking: str) -> str | None:
    """What "What is the registration fee ...?" or a query "Court fees to sue ...?" prices: "registration fee"."""
    if m := _VALUE_NOUN.search(asking):
        return m.group(1)
    phrase = value_query(asking)
    return phrase if phrase and _PRICED.search(phrase) else None


def _noun_kinds(question: str) -> frozenset[str]:
    """The kinds of value "What is the registration fee / minimum age ...?" asks for, which no cue names."""
    noun = _value_noun(_asking_sentence(question))
    if not noun:
        return frozenset()
    return _NOUN_KINDS.get(noun.split()[-1].lower().removesuffix("s"), frozenset({"amount"}))  # "rates": rate


# "How many years do we have to keep our record ...?", "Within how many days must the authority circulate its draft
# decision?": a time is asked for, and what it measures is the act done within it
_DURATION_OF = re.compile(r"\b(?:how long|(?:how many|number of) (?:working |business |calendar )?"
                          r"(?:hours|days|weeks|months|years)|within how many \w+)"
                          r"\b[^?]*?\b(?:to|must|shall|should)\s+(?P<act>[^?]+)", re.I)


# "Minimum number of years a voluntarily appointed DPO must stay in the job?": who does the act timed, named between
# the time asked for and the verb
_ACTOR = re.compile(r"\b(?:how many|number of)\s+(?:working\s+|business\s+|calendar\s+)?(?:hours|days|weeks|months|"
                    r"years)\s+(?P<actor>(?:[\w'’-]+\s+){0,4}?[\w'’-]+)\s+(?:must|shall|should|has to|have to|"
                    r"needs? to|is required to|are required to)\s", re.I)


def _actor(question: str, known: Iterable[str]) -> tuple[list[str], str]:
    """The stems of who does what a time question times, and their words as written, when named before its verb
    (([], "") else)."""
    m = _ACTOR.search(_asking_sentence(question))
    if not m or m["actor"].split()[0].lower() in _AUXILIARIES:  # "how many days do we have to": the asker
        return [], ""
    known = {k.lower() for k in known}
    return [t for t in content_terms(m["actor"]) if t not in _GENERIC and t not in known], m["actor"]


# "How long does our accreditation last?", "How long is that mandate?": how long a thing itself lasts; a sentence that
# states a period for that thing answers it, whatever else the question says about the asker's situation
_LASTS = re.compile(r"\bhow long (?:does|do|will|would|is|are)\s+(?P<thing>(?:[\w'’-]+\s+){0,4}?[\w'’-]+?)\s+"
                    r"(?:last|lasts|stay|stays|remain|remains|run|runs|be valid|valid|good for)\b|"
                    r"\bhow long (?:is|are)\s+(?P<thing2>(?:[\w'’-]+\s+){0,4}?[\w'’-]+?)\s*(?:[?,;]|$|\s+and\b)", re.I)


# "How many members does the AI Act's advisory forum have?": what is counted (members) and whose (the forum). A
# sentence answers when it names the owner and its number counts the thing: "two co-chairs from among its members"
# counts co-chairs, "a term of office of two years" years, "one representative per Member State" no members of a
# forum; "The Board shall be composed of one representative per Member State" counts the Board's members.
_OWNER = re.compile(r"\bhow many\s+[\w'’ -]+?\s+(?:does|do|did|will|can|may|must|should)\s+(?:the\s+)?"
                    r"(?P<owner>(?:[\w'’-]+\s+){0,5}?[\w'’-]+)\s+(?:have|has|include|comprise|consist of|hold)\b|"
                    # "How many members (in total) sit on the advisory forum (set up under the AI Act)?"
                    r"\bhow many\s+[\w'’-]+(?:\s+in total)?\s+(?:sit|serve|are there)\s+(?:on|in)\s+(?:the\s+)?"
                    r"(?P<seat_of>(?:[\w'’-]+\s+){0,5}?[\w'’-]+?)(?=\s+(?:set up|established|created|under|of|in)\b|"
                    r"\s*[?,;]|\s*$)", re.I)
_MEMBER_STATE = re.compile(r"\bMember States?\b")
_COUNT_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|fifty"
_COUNTED = re.compile(rf"\b(?:\d[\d ,.]*|{_COUNT_WORDS}|hundred)\s+(?P<what>(?:[\w'’-]+\s+){{0,2}}[\w'’-]+)", re.I)
_COMPOSED = re.compile(rf"\b(?:composed|made up|consist(?:s|ing)?|compris(?:e|es|ing))\s+of\s+(?:\w+\s+){{0,2}}?"
                       rf"(?:\d|{_COUNT_WORDS})\b", re.I)
_MEMBERS = frozenset(content_terms("members"))


def _owner(question: str, known: Iterable[str]) -> list[str]:
    """The stems of whose things a count question counts ("the AI Act's advisory forum": advisori, forum)."""
    m = _OWNER.search(_asking_sentence(question))
    known = {k.lower() for k in known}
    return [t for t in content_terms(m["owner"] or m["seat_of"]) if t not in _GENERIC and t not in known] if m else []


def _lasting(question: str, known: Iterable[str]) -> list[str]:
    """The stems of the thing whose own duration a question asks ("How long does our accreditation last?")."""
    m = _LASTS.search(_asking_sentence(question))
    known = {k.lower() for k in known}
    phrase = (m["thing"] or m["thing2"]) if m else ""
    return [t for t in content_terms(phrase) if t not in _ASKING and t not in _GENERIC and t not in known]


_IN_CURRENCY = re.compile(r"\b(?:in|how many)\s+(?:euros?|EUR|dollars?|pounds?)\b|€", re.I)
# people in general: the acts say "natural persons", "staff" (human resources), "members" of whatever they count
_PERSONS = frozenset(content_terms("people persons individuals humans"))
_PRONOUN = re.compile(r"(?:It|They|Its|Their|This|These|That|Those)\b")
# "How much advance notice did it have to give?": a time before an act ("inform ... at least one year before"), said
# as a thing
_TIME_GIVEN = re.compile(r"^(?:(?:advance|prior|enough)\s+)?(?:notice|time|warning)$", re.I)


class _Measured(NamedTuple):
    """What a value question measures: the stems of the thing (see above), [] when it names none; the share of
    them a sentence must have to be about it, two thirds of a thing named, a third of an act done in a time
    ("hold on to the event records it produces automatically": "keep the logs automatically generated"); its
    words as the question writes them, the thing ("registration fee") or the act ("keep the footage before it has
    to be deleted"); whether it is an act done in a time."""

    stems: list[str]
    share: float
    quoted: str
    act: bool = False


def _measured(question: str, known: Iterable[str]) -> _Measured:
    """What a value question measures (`_Measured`)."""
    asking = _asking_sentence(question)
    known = {k.lower() for k in known}

    def stems(phrase: str) -> list[str]:
        return [t for t in content_terms(phrase) if t not in _ASKING and t not in _GENERIC and t not in known]

    how_many = _HOW_MANY.search(asking)
    if found := how_many.group(1) if how_many else _value_noun(asking):
        phrase = _UNIT_WORDS.sub("", found)
        if " of " in f" {phrase} ":  # "how many hours of training": training
            phrase = re.sub(r"^(?:[\w'’-]+\s+)*?of\s+", "", phrase)
        if thing := stems(phrase):
            return _Measured(thing, THING_SHARE, phrase)
    if d := _DURATION_OF.search(asking):
        return _Measured(list(dict.fromkeys(stems(d["act"]))), DURATION_SHARE,
                         " ".join(d["act"].split()).rstrip(" ?.!,;"), act=True)
    return _Measured([], THING_SHARE, "")


# what a time is asked for is done by a verb after "to" ("How many days does the AI Office have to countersign ...?");
# a light verb says little of what is done
_TO_VERB = re.compile(r"\b(?:have|has|had|need|needs|ought|obliged|required|allowed|permitted)\s+to\s+"
                      r"(?P<verb>[a-z]+)\b", re.I)
_LIGHT = frozenset("be get make do take give go have put set let come".split())
# verbs people use for one another: "tell the Board" is what the acts call informing or notifying it
_VERB_FAMILIES = (frozenset(stem(w) for w in "tell inform notify send submit transmit communicate forward report "
                                              "circulate share provide".split()),
                  frozenset(stem(w) for w in "hold keep retain store preserve".split()),
                  frozenset(stem(w) for w in "push delay postpone extend defer".split()))


def _done(question: str) -> str | None:
    """The verb of what a time question asks to be done, after "have to", "need to" ..., when not a light one."""
    m = _TO_VERB.search(_asking_sentence(question))
    return m["verb"].lower() if m and m["verb"].lower() not in _LIGHT else None


def _verb_spoken(verb: str, used: set[str], lay: Sequence[tuple[set[str], list[str]]]) -> bool:
    """Whether an admitted unit speaks of `verb`, of a verb of its family, or of the acts' term for the question's
    words that hold it (`lay`: the stems of such words, and of the acts' term)."""
    v = stem(verb)
    if _spoken(v, used) or any(v in f and any(_spoken(w, used) for w in f) for f in _VERB_FAMILIES):
        return True
    return any(v in words and all(_spoken(t, used) for t in legal) for words, legal in lay)


# "Which icons has the Commission laid down ...?", "Has Germany decided to allow ...?": what a body has decided, in
# the perfect or past tense ("In May 2025, had Italy designated ...?"); "What must the Commission adopt?" asks what
# the act says it must do
_DECIDED = re.compile(r"\b(?i:has|have|had|did)\s+(?:the\s+)?(?P<body>(?:European\s+)?Commission|Council|"
                      r"(?:AI\s+)?Board|AI\s+Office|European\s+Data\s+Protection\s+Board|EDPB|[A-Z][a-z]+)\s+"
                      r"(?:already\s+|actually\s+|officially\s+|ever\s+)?(?i:laid\s+down|adopted|set|published|"
                      r"issued|designated|decided|recommended|approved|chosen|picked|fixed|specified|determined|"
                      r"agreed)\b")
# "Which format did the Commission's July 2026 guidelines recommend?": what a body's own document said
_SAID = re.compile(r"\b(?i:has|have|had|did|do|does)\s+(?:the\s+)?(?P<body>(?:European\s+)?Commission|Council|"
                   r"(?:AI\s+)?Board|AI\s+Office|European\s+Data\s+Protection\s+Board|EDPB)['’]s\s+"
                   r"(?:[\w-]+\s+){0,4}?(?i:guidelines|guidance|template|code\s+of\s+practice|opinion|report|"
                   r"recommendations?|FAQs?)\b[^?]{0,80}?\b(?i:recommend(?:ed)?|say|said|require[sd]?|set\s+out|"
                   r"specif(?:y|ied)|propose[sd]?|conclude[sd]?|state[sd]?|suggest(?:ed)?|list(?:ed)?)\b")
# "Which of the examples in those Commission guidelines deal with ...?": what a body's own document contains, asked
# of the document itself; "What must the Commission's guidelines include?" asks what the act requires of it
_IN_DOCUMENT = re.compile(r"\b(?i:what|which)\b[^?]{0,80}?\b(?i:in|of|from|under)\s+(?i:the|those|these|its|their)\s+"
                          r"(?:[\w-]+\s+){0,2}?(?P<body>(?:European\s+)?Commission|(?:AI\s+)?Board|AI\s+Office|"
                          r"European\s+Data\s+Protection\s+Board|EDPB)(?:['’]s)?\s+(?:[\w-]+\s+){0,2}?"
                          r"(?i:guidelines|guidance|templates?|codes?\s+of\s+practice|opinions?|reports?|"
                          r"recommendations?|FAQs?)\b")
_NOT_BODIES = frozenset({"it", "this", "that", "he", "she", "they", "we", "you", "i", "anyone", "someone", "nobody",
                         "everyone"})


# "Which conditions does German law attach ...?", "What does French law require ...?": what a Member State's own law
# provides, which no EU act states; "Can German law set a lower age?" asks what the EU act allows, and is answered
_NATIONAL = (r"(?:German|French|Italian|Spanish|Dutch|Belgian|Austrian|Polish|Swedish|Danish|Finnish|Irish|Portuguese|"
             r"Greek|Czech|Slovak|Slovenian|Hungarian|Romanian|Bulgarian|Croatian|Estonian|Latvian|Lithuanian|"
             r"Luxembourgish|Maltese|Cypriot)")
_LAW = r"(?i:law|laws|rules|legislation|statutes?)"  # "German law", "the Danish rules"
_NATIONAL_LAW = re.compile(rf"\b(?i:what|which)\b[^?]{{0,80}}?(?:\b(?i:does|do|did|has|have)\s+(?:the\s+)?"
                           rf"(?P<law>{_NATIONAL}\s+(?:national\s+)?{_LAW})\b|\b(?P<law2>{_NATIONAL}\s+(?:national\s+)?"
                           rf"{_LAW})\s+(?i:says?|requires?|provides?|attach(?:es)?|sets?|lays? down)\b)|"
                           # "under which Irish statute?", "What Danish rules apply ...?": the national law itself
                           rf"\b(?i:what|which)\s+(?:(?i:specific|particular|exact)\s+)?"
                           rf"(?P<law3>{_NATIONAL}\s+(?:national\s+)?{_LAW})\b")


# "Which countries currently have an adequacy decision?", "Which labs are already notified?": who holds a decision or
# a status now is recorded where it is decided (a Commission decision, a national list), not in the acts
_NOW_HELD = re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?P<who>countries|companies|firms|organi[sz]ations|"
                       r"bodies|providers|products|systems|states|businesses|labs|models)\b(?:(?!\b(?:has|have) to\b)"
                       r"[^?])*?\b(?:currently|already|so far|to date|at the moment|right now)\s+"
                       r"(?:have|has|hold|holds|got|received|obtained|were granted|been|are|(?!being\b)[a-z]+ing)\b",
                       re.I)  # "are already using": what they are doing now


# "Who is the current chair of the Board?", "Who heads the AI Office now?": the acts create offices and say how they
# are filled; who holds one is decided by an appointment or an election, and no act names the person
_OFFICE = r"(?:chair(?:person|man|woman)?|deputy chairs?|head|president|director|executive director|secretary|leader)"
_NOW_OFFICE = re.compile(rf"\bwho\s+(?:is|are)\s+(?:the\s+)?(?:[\w-]+['’]s\s+)?(?:current|present|sitting|incumbent)\s+"
                         rf"(?:[\w-]+\s+){{0,3}}?(?P<office>{_OFFICE})\b|"
                         rf"\bwho\s+(?:currently|now)\s+(?P<verb>(?:co-)?(?:chairs|heads|leads|runs))\b|"
                         rf"\bwho\s+(?P<verb2>(?:co-)?(?:chairs|heads|leads|runs))\b[^?]{{0,60}}\b(?:now|currently|"
                         rf"at the moment|right now|today|these days)\b", re.I)


# "Which provider was the first to be fined ...?", "Who was the last company sanctioned ...?": who was first, last or
# only to undergo something is a fact of what happened under the acts, which they do not record
_EVENT = re.compile(r"\b(?:which|who|what)\b[^?]{0,80}?\b(?:was|were)\s+the\s+(?:first|last|latest|most recent|only)"
                    r"\b(?:\s+[\w-]+){0,2}?\s+(?:to|ever)\b", re.I)


# "Which EU country runs the biggest sandbox so far?", "Which Member State's representative is chairing the Board this
# year?": what is the case in the world, or has happened, at a time; the acts set rules and do not record it. A question
# that asks what the rules require at that time ("Right now, do deployers have to comply ...?") is answered by them.
_AT_A_TIME = re.compile(r"\b(?:so far|to date|thus far|up to now|until now|this year|last year|this month|these days|"
                        r"at the moment|right now|nowadays|recently|lately|in practice)\b", re.I)
_NORMATIVE = re.compile(r"\b(?:must|shall|should|ought|may|might|can|could|need|needs|have to|has to|had to|required|"
                        r"obliged|allowed|permitted|entitled|forbidden|prohibited|banned|apply|applies|compl(?:y|ies))\b",
                        re.I)
# "Did the European Parliament adopt the AI Act unanimously?", "Who was the rapporteur for the GDPR?": how an act was
# made; an act states its rules, not its own passage ("does the Commission get a vote there?" asks about the Board's
# rules, and names no vote on an act)
_MAKING = re.compile(r"\b(?:unanimous(?:ly)?|rapporteurs?|trilogues?|lobby(?:ing|ists?)?|(?:voted|votes?|voting)\s+"
                     r"(?:for|against|in favour of)\b)", re.I)

# "According to recent surveys, what share of employers have done a DPIA?", "How many companies have ...?" said of a
# population: what is the case in the world, measured by surveys and statistics; the acts set rules
_SURVEYED = re.compile(r"\b(?:according to|based on|judging by)\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:surveys?|statistics|"
                       r"studies|polls?|figures|estimates|research)\b|\b(?:what|which)\s+(?:share|percentage|proportion|"
                       r"fraction|number)\s+of\s+(?:[\w-]+\s+){0,3}?(?:companies|firms|businesses|employers|providers|"
                       r"deployers|controllers|processors|organi[sz]ations|people|citizens|users|consumers|SMEs|"
                       r"start-?ups)\b", re.I)

# "Which insurance company has to cover ...?", "Which software does the AI Office use ...?", "which judge will hear our
# case?": one particular company, product or person. The acts name public bodies and roles, never a particular
# company, insurer, judge or piece of software; "Which companies may ...?" asks for a class, and "Which company counts
# as the provider?" for a role, and both are answered by them
_PARTICULAR = re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+)?(?P<one>company|firm|vendor|supplier|insurer|"
                         r"insurance company|bank|judge|software|tool|product|brand|app|cloud provider)\s+"
                         r"(?!(?:\w+\s+){0,3}?(?:counts?|qualif|considered|regarded|deemed|treated|acts? as)\b)"
                         r"(?:is|does|do|has|will|would|runs|uses|hosts|must|should|can|may|gets?|built|made|"
                         r"developed|designed|supplied|sold|created|provided|builds|makes|develops|supplies|sells)\b",
                         re.I)

# "Which consultancy firms are accredited to audit ...?", "Which cloud providers are approved ...?": which companies
# hold a status, at any time (`_NOW_HELD` reads a time); the acts say how the status is granted, and whom it was
# granted to is recorded where it was decided. "Which companies are allowed ...?" asks for a class, answered by them
_HOLDERS = re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:companies|firms|vendors|suppliers|insurers|"
                      r"consultancies|consultants|labs|laboratories|banks|cloud providers)\s+(?:are|have been|were)\s+"
                      r"(?:\w+\s+)?(?:accredited|approved|certified|designated|notified|registered|listed|"
                      r"authori[sz]ed|licensed|recogni[sz]ed)\b", re.I)


def _about_the_world(question: str, acts_named: bool) -> tuple[str, str] | None:
    """What makes a question one of facts rather than of the rules (`_NOW_HELD`, `_NOW_OFFICE`, `_EVENT`,
    `_AT_A_TIME`, `_SURVEYED`, `_MAKING`, `_HOLDERS`, `_PARTICULAR`): the words of the question that say so and
    the refusal's reason, or None. `acts_named`: the question names an act, whose passage `_MAKING` may ask about."""
    asking = _asking_sentence(question)
    if held := _NOW_HELD.search(asking):
        return held["who"], f"the question asks which {held['who'].lower()} have or are something now: the acts set " \
                            "the rules, and whom a decision was granted to is recorded where it was taken, not in them"
    if office := _NOW_OFFICE.search(asking):
        return office.group(0), "the question asks who holds an office now: the acts set up the office and how it " \
                                "is filled, but do not name who holds it"
    if event := _EVENT.search(asking):
        return event.group(0), "the question asks who was the first, last or only one to undergo something: the " \
                               "acts set the rules and do not record what happened under them"
    at = _AT_A_TIME.search(asking.replace("up to date", " "))
    if at and not _NORMATIVE.search(asking):
        why = "the question asks what is the case or has happened at a time: the acts set the rules and do not " \
              "record what happened under them"
        return at.group(0), f"{why} (\u201c{at.group(0)}\u201d)"
    surveyed = _SURVEYED.search(asking)
    if surveyed and not _NORMATIVE.search(asking):
        why = "the question asks what surveys or statistics show of a population: the acts set the rules and do " \
              "not record how they are followed"
        return surveyed.group(0), f"{why} (\u201c{surveyed.group(0)}\u201d)"
    made = _MAKING.search(asking)
    if made and acts_named:
        why = "the question asks how an act was made: an act states its rules, not how it was negotiated or voted"
        return made.group(0), f"{why} (\u201c{made.group(0)}\u201d)"
    if held := _HOLDERS.search(asking):
        why = "the question asks which companies hold a status: the acts say how it is granted, and whom it was " \
              "granted to is recorded where that was decided, not in them"
        return held.group(0), f"{why} (\u201c{held.group(0)}\u201d)"
    if one := _PARTICULAR.search(asking):
        words = asking[one.start():one.end("one")]
        why = "the question asks for one particular company, product or person: the acts name bodies and roles, " \
              "never a particular one"
        return words, f"{why} (\u201c{words}\u201d)"
    return None


# "Which processing operations are on the Dutch data protection authority's list ...?": what a national body has
# itself listed, decided or published (GDPR Article 35(4) has each authority publish its list); the acts say that it
# does so, not what it wrote
_NATIONAL_BODY = re.compile(rf"\b(?i:what|which)\b[^?]{{0,80}}?\b(?P<doc>(?i:the\s+)?{_NATIONAL}\s+"
                            r"(?:[\w-]+\s+){0,4}?(?i:authority|authorities|regulator|watchdog|government|ministry|"
                            r"parliament|court|DPA)['’]s\s+(?:[\w-]+\s+){0,2}?(?i:list|lists|guidelines|guidance|"
                            r"decisions?|rules|opinions?|template|register|FAQs?|policy|practice)\b)")


def _national_law(question: str) -> str | None:
    """The Member State's law ("German law") or a national body's own document ("the Dutch data protection
    authority's list") whose content a what/which question asks for, if any."""
    asking = _asking_sentence(question)
    if m := _NATIONAL_LAW.search(asking):
        return " ".join((m["law"] or m["law2"] or m["law3"]).split())
    m = _NATIONAL_BODY.search(asking)
    return " ".join(m["doc"].split()) if m else None


# "The AI Act says ...", "Article 14 requires ...", "the GDPR obliges ...": the question states what an act sets
_ATTRIBUTES = re.compile(r"\b(?:AI Act|GDPR|Regulation|Directive|Omnibus|Act|law|Article\s+\d+\w*(?:\(\d+\))?)\s+"
                         r"(?:says|requires|obliges|states|sets|provides|mandates|demands|caps|limits|imposes|gives)\b",
                         re.I)
_PREMISE_KINDS = frozenset({"percent", "amount", "period", "number"})


def _unstated_premise(question: str, texts: Sequence[str]) -> list[str]:
    """The values a sentence of the question says an act sets ("a flat 50 % discount") that no admitted unit
    states, as the question writes them."""
    claimed = [v for s in split_sentences(question) if _ATTRIBUTES.search(s)
               for v in read_values(s) if v.kind in _PREMISE_KINDS]
    if not claimed:
        return []
    stated = {v.key() for t in texts for v in read_values(t)}
    return [v.text for v in claimed if v.key() not in stated]


def authors(title: str) -> frozenset[str]:
    """Who adopted an act, from its title: "Commission Implementing Regulation (EU) 2024/2977 ..." -> commission;
    "Regulation (EU) 2024/1689 of the European Parliament and of the Council ..." -> parliament, council."""
    low = title.lower()
    out = {b for b in ("commission", "council") if low.startswith(b) or low.startswith(f"{b} ")}
    if "of the european parliament" in low:
        out.add("parliament")
    if "of the council" in low:
        out.add("council")
    return frozenset(out)


def _the(body: str) -> str:
    return body if body[0].isupper() and " " not in body and body not in ("Commission", "Council", "Board") \
        else f"the {body}"


def _decided_elsewhere(question: str, titles: Mapping[str, str], evidence: Sequence[Evidence],
                       known: Iterable[str]) -> str | None:
    """The body whose decision the question asks about, when no admitted unit comes from an act of it; an act's
    name ("Which deadline has the Omnibus set?") is no body."""
    asking = _asking_sentence(question)
    m = _DECIDED.search(asking) or _SAID.search(asking) or \
        (None if _NORMATIVE.search(asking) else _IN_DOCUMENT.search(asking))
    if not m or m["body"].lower() in _NOT_BODIES or m["body"].lower() in {k.lower() for k in known}:
        return None
    body = " ".join(m["body"].split())
    key = body.lower().removeprefix("european ").split()[-1]  # "European Commission" -> commission
    if any(key in authors(titles.get(e.ref.act, "")) for e in evidence):
        return None
    return body


# "(14b) 'small mid-cap enterprise' or 'SMC' means a small mid-cap enterprise as defined in point (2) of the Annex to
# Recommendation (EU) 2025/1099": a definition that defers to another instrument, whose number it gives
_DEFERS = re.compile(r"[‘'\"“](?P<term>[^’'\"”]{2,80})[’'\"”](?:\s+or\s+[‘'\"“](?P<alias>[^’'\"”]{2,40})[’'\"”])?"
                     r"\s+means\b[^;]{0,160}?\bas defined in\b[^;]{0,80}?\b(?P<instrument>(?:Commission\s+)?"
                     r"(?:Recommendation|Directive|Regulation|Decision)\s+(?:\((?:EU|EC|EEC)\)\s+)?(?:No\s+)?"
                     r"(?P<number>\d{2,4}/\d{1,4})(?:/(?:EC|EU|EEC))?)")


def _defined_elsewhere(question: str, texts: Sequence[str], wanted: frozenset[str], titles: Mapping[str, str],
                       payment: bool) -> tuple[str, str] | None:
    """(term, instrument) when the question asks what makes something count as a term whose admitted definition
    defers to an instrument the catalog does not hold, and no admitted sentence naming the term states such a value."""
    asked = question.casefold()
    held = " ".join(titles.values())
    for text in texts:
        for m in _DEFERS.finditer(text):
            names = [n for n in (m["term"], m["alias"]) if n]
            if not any(_names(asked, n) for n in names) or m["number"] in held:
                continue
            stating = [x for t in texts for x in split_sentences(t) if x != m.group(0)
                       and any(_names(x.casefold(), n) for n in names) and not _DEFERS.search(x)]
            if not any(_kinds(x, payment) & wanted for x in stating):
                return m["term"], m["instrument"]
    return None


def _names(text: str, term: str) -> bool:
    """`text` (case-folded) names `term`: whole, or its first words ("small mid-cap" for "small mid-cap
    enterprise"), or its short form ("SMC", as a word)."""
    term = term.casefold()
    if len(term) <= 5:
        return bool(re.search(rf"\b{re.escape(term)}s?\b", text))
    words = term.split()
    return term in text or (len(words) > 1 and " ".join(words[:-1]) in text)


def check(question: str, evidence: Sequence[Evidence], known_names: Iterable[str] = (),
          acts: frozenset[str] = frozenset(), titles: Mapping[str, str] | None = None) -> Answerability:
    """Whether `evidence` can answer `question` (module docstring); `known_names`: words of the catalog's
    act titles and short forms ("GDPR", "Omnibus"), never refused as absent; `acts`: the acts the question
    names ("under the AI Act"), whose admitted units alone may state the value it asks for; `titles`: CELEX ->
    act title, who adopted each act (None: rule 3 is not applied)."""
    # a paragraph whose points are admitted too speaks by its opening words: its points are read on their own
    texts = [supporting_text(own_text(e, evidence)) for e in evidence]
    named = [*texts, *(e.title for e in evidence)]  # a provision's heading names what it is about
    # names are read in English questions only ("IA" is Italian for "AI")
    absent = _absent_names(question, named, known_names) if in_english(question) else []
    if absent:
        names = ", ".join(f"'{n}'" for n in absent)
        return Answerability(False, TERM_ABSENT, f"no admitted provision mentions {names}, which the question asks "
                                                 "about", {"absent": absent})
    body = _decided_elsewhere(question, titles, evidence, known_names) \
        if titles is not None and in_english(question) else None
    if body:
        return Answerability(False, DECIDED_ELSEWHERE, f"the question asks what {_the(body)} has decided, and no "
                                                       f"admitted provision comes from an act of {_the(body)}: the "
                                                       "acts in the catalog do not say what it decided",
                             {"body": body})
    premise = _unstated_premise(question, texts) if in_english(question) else []
    if premise:
        values = ", ".join(f"\u2018{v}\u2019" for v in premise)
        return Answerability(False, PREMISE_NOT_STATED, f"the question says an act sets {values}, but no admitted "
                                                        "provision states it: the provisions do not contain that rule",
                             {"premise": premise})
    world = _about_the_world(question, bool(acts)) if in_english(question) else None
    if world:
        words, reason = world
        return Answerability(False, DECIDED_ELSEWHERE, reason, {"body": words})
    law = _national_law(question)
    if law:
        return Answerability(False, DECIDED_ELSEWHERE, f"the question asks for the content of {law}: the acts in "
                                                       "the catalog are EU law and do not say what a Member State's "
                                                       "own law or a national body provides", {"body": law})
    c = cues(question)
    head = _absent_head(question, named, known_names) if in_english(question) else None
    if head:
        return Answerability(False, TERM_ABSENT, f"no admitted provision speaks of {head}, which the question asks "
                                                 "for", {"absent": [head]})
    wanted = frozenset() if value_secondary(question) or not asks_for_value(question) else \
        c.value_kinds() | ({"number"} if c.count else set()) | _noun_kinds(question)
    if not wanted:
        return Answerability(True)
    # "free of charge" answers what is paid, but not "the maximum amount in euros": a figure in a currency
    payment = c.payment and not _IN_CURRENCY.search(_asking_sentence(question))
    deferred = _defined_elsewhere(question, texts, wanted, titles, payment) \
        if titles is not None and c.definition else None
    if deferred:
        term, instrument = deferred
        return Answerability(False, DEFINED_ELSEWHERE, f"the acts define \u2018{term}\u2019 by reference to "
                                                       f"{instrument}, which the catalog does not hold: the values the "
                                                       "question asks for are set there",
                             {"term": term, "instrument": instrument})
    # "What does Article 16 GDPR let me do ..., and how quickly?": the provision it names is its subject
    named = [u for r in find_references(question) for u in r.candidates]
    if any(e.ref.unit == u or e.ref.unit.startswith(u + ".") for t, e in zip(texts, evidence, strict=True)
           for u in named if any(_kinds(s, payment) & wanted for s in split_sentences(t))):
        return Answerability(True, detail={"wanted": sorted(wanted), "named": named})
    subject_text, subject = _subject(question)
    known = {k.lower() for k in known_names}
    subject = [t for t in subject if t not in known]  # "AI" of "AI Act" says nothing of the subject
    # the acts' words for what the question says in its own ("hackers": personal data breach) name it too
    subject += [t for t in content_terms(" ".join(acts_terms(question))) if t not in subject and t not in known]
    # "the minimum age under the AI Act" is not stated by the GDPR's age of consent
    stating = [t for t, e in zip(texts, evidence, strict=True) if e.ref.act in acts] or texts
    by_unit = [split_sentences(t) for t in stating]
    sentences = [s for unit in by_unit for s in unit]
    # the sentence before one that opens with a pronoun, within one unit ("The members of the advisory forum ...
    # It shall elect two co-chairs"): what "It" names
    before = {s: prev for unit in by_unit for prev, s in pairwise(unit) if _PRONOUN.match(s)}
    df = Counter(t for s in sentences for t in set(content_terms(s)))
    weight = {t: math.log(1 + len(sentences) / (1 + df[t])) + 0.1 for t in dict.fromkeys(subject)}
    total = sum(weight.values()) or 1.0
    best = 0.0
    for s in sentences:
        if not _kinds(s, payment) & wanted:
            continue
        terms = set(content_terms(s))
        best = max(best, sum(w for t, w in weight.items() if t in terms) / total)
    detail = {"wanted": sorted(wanted), "subject": subject_text, "best_subject_share": round(best, 4)}
    # only words the admitted units use: the question's own word may be a lay one for a notion the acts name
    # otherwise ("customers" for "recipients of the service"), and says nothing of what they leave unstated
    used = {t for text in texts for t in content_terms(text)}
    lasting = [t for t in _lasting(question, known_names) if _spoken(t, used)]
    if lasting and any(_kinds(s, payment) & wanted and
                       sum(_spoken(t, set(content_terms(s))) for t in lasting) >= THING_SHARE * len(lasting) - 1e-9
                       for s in sentences):
        return Answerability(True, detail={**detail, "lasting": lasting})
    measured, share, quoted, act_in_time = _measured(question, known_names)
    thing = "" if act_in_time else quoted
    # an act done in a time, "hold on to the event records it produces", is about a sentence on "the logs": the
    # acts' term speaks the asker's words. A thing counted is not: "how many staff" is not asked of a sentence on
    # "human resources" that states a period (dev an07)
    lay = [(set(content_terms(words)), content_terms(legal)) for words, legal in said_as(question)] \
        if act_in_time else []
    # the verb of an act done in a time that no admitted unit speaks of, nor of a verb of its family, nor in the
    # acts' term for the asker's words: nothing admitted states a time for it ("countersign the declaration")
    if act_in_time and (verb := _done(question)) and not _verb_spoken(verb, used, lay):
        return Answerability(False, VALUE_NOT_STATED, f"no admitted provision speaks of \u201c{verb}\u201d, so none "
                                                      f"states {_kind_phrase(wanted)} for \u201c{quoted}\u201d",
                             {**detail, "verb": verb})
    # the thing a value question counts or prices ("how many years of professional experience"), spoken by no
    # admitted unit, not even in the acts' word for it: nothing admitted states a value of it (an act done in a
    # time is often said in the asker's own verb, "push back" for "extend": that is left to the share below)
    said = (*measured, *content_terms(thing), *content_terms(" ".join(acts_terms(thing))))
    if thing and not _TIME_GIVEN.match(thing) and not _PERSONS & set(measured) and \
            not any(_spoken(t, used) for t in said):
        return Answerability(False, VALUE_NOT_STATED, f"no admitted provision speaks of “{thing}”, "
                                                      f"so none states {_kind_phrase(wanted)} for it",
                             {**detail, "measured": measured})
    used |= {t for words, legal in lay if all(_spoken(t, used) for t in legal) for t in words}
    measured = [t for t in measured if _spoken(t, used)]
    owner = [t for t in _owner(question, known_names) if _spoken(t, used)]
    if measured:
        def about(s: str) -> bool:
            terms = set(content_terms(s))
            terms |= {t for words, legal in lay if all(_spoken(t, terms) for t in legal) for t in words}
            if wanted == {"number"} and owner:  # "How many members does the advisory forum have?"
                counted = {t for m in _COUNTED.finditer(_MEMBER_STATE.sub(" ", s)) for t in content_terms(m["what"])}
                if _COMPOSED.search(s):  # "The Board shall be composed of one representative per Member State"
                    counted |= _MEMBERS
                named = terms | set(content_terms(before.get(s, "")))
                return 2 * sum(_spoken(t, named) for t in owner) >= len(owner) and \
                    sum(_spoken(t, counted) for t in measured) >= share * len(measured) - 1e-9
            return sum(_spoken(t, terms) for t in measured) >= share * len(measured) - 1e-9
        detail["measured"] = measured
        if not any(_kinds(s, payment) & wanted and about(s) for s in sentences):
            return Answerability(False, VALUE_NOT_STATED, f"no admitted provision states {_kind_phrase(wanted)} "
                                                          f"{'for' if act_in_time else 'of'} \u201c{quoted}\u201d",
                                 detail)
    elif act_in_time and (actor := _actor(question, known_names))[0]:
        # the act is said in the asker's words, which no admitted unit speaks; who does it is named, and a time stated
        # for someone else does not answer ("Minimum number of years a voluntarily appointed DPO must stay in the
        # job?" is not answered by the term of office of the Board's Chair)
        stems, words = actor
        legal = [content_terms(term) for term in acts_terms(words)]

        def names_actor(s: str) -> bool:
            terms = set(content_terms(s))
            return sum(_spoken(t, terms) for t in stems) >= THING_SHARE * len(stems) - 1e-9 or \
                any(said and all(_spoken(t, terms) for t in said) for said in legal)
        detail["actor"] = stems
        if not any(_kinds(s, payment) & wanted and names_actor(s) for s in sentences):
            return Answerability(False, VALUE_NOT_STATED, f"no admitted provision states {_kind_phrase(wanted)} "
                                                          f"for \u201c{words}\u201d", detail)
    if subject and best < MIN_SUBJECT:
        return Answerability(False, VALUE_NOT_STATED, f"no admitted provision states {_kind_phrase(wanted)} for what "
                                                      f"the question asks about (\u201c{subject_text}\u201d)", detail)
    return Answerability(True, detail=detail)
