"""What a question asks for: a date, a period, an amount, a percentage, a threshold, a definition, a permission.

Read from cue words, deterministically. The extractive generator prefers
sentences that give what is asked; the numeric channel decides from the same
cues whether an answer must carry a value rendered from a stored fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

from lexcite._words import ENGLISH_STOPWORDS

__all__ = ["Cues", "cues", "content_terms", "stem", "STOPWORDS", "in_english", "value_secondary",
           "asks_for_value", "value_query", "asks_entry_into_force", "question_parts", "singular",
           "asks_if_act_applies"]

# The question reader also drops modal verbs and the words every question about an act contains.
# "involving", "concerning", "regarding", "relating": words that join a thing to another, as "of" does; rare in the
# acts, they would weigh as much as what a question is about ("How do I report a serious incident involving an AI
# system?" quoted "an investigation which involves altering the AI system")
# "need" asks as "must" does ("Do I need consent ...?"): as a content word it matched "the need for amendments"
STOPWORDS = ENGLISH_STOPWORDS | frozenset("""
aren cannot shall may must per whether eu union regulation article articles paragraph point annex according
involving concerning regarding relating need
""".split())

# "When" that asks for a date ("When does it apply?"), not for the cases in which something holds: "When is a
# company obliged to ...?", "When is a change a 'substantial modification'?" (a quoted term: when it counts as
# one), "When can ...?", nor a condition ("when assessing ...").
_WHEN_DATE = (r"when\b(?!\s+\w+ing\b)(?!\s+(?:is|are)\b[^?]*(?:\b(?:obliged|required|allowed|permitted|necessary|"
              r"needed|lawful|considered|deemed|prohibited|exempt)\b|[‘'\"“]))(?!\s+(?:can|could|should|may)\b)"
              # "When does a company need a representative?": the cases in which it needs one
              r"(?!\s+(?:does|do)\b[^?]*\bneeds?\s+(?:an?|the|its|our|their|any)\b)"
              # "When codes are drawn up, whose needs ...?": a when-clause before the question asks no date
              r"(?![^?,]*,\s*(?:who|whose|whom|what|which|how|where|why|is|are|do|does|did|can|could|must|should|"
              r"may|will|would|shall)\b)")

_CUES = {
    # "when" asks for a date at the start or as "by/since/and when", not inside a condition ("does X apply when Y?")
    "date": rf"^{_WHEN_DATE}|"
            r"\bwhen (?:does|do|will|did|must|shall|should|is|are|was|were)\b[^?]*"
            r"\b(?:apply|start|begin|enter|take effect)|"
            r"\b(?:by when|from when|until when|since when|and when|what date|which date|dates?\b|deadline|"
            r"apply from|applicable from|applies from|enters? into force|entry into force|start(?:s)? to apply|"
            r"in force|time ?line|timeline|begin(?:s)? to apply|from what (?:date|day|time|year|month)|as of when)\b|"
            # Italian, as the acts are asked in it too: "Da quando valgono ...?", "Entro quando ...?"
            r"\b(?:da|entro|fino a|a partire da) quando\b|\bda che data\b",
    "period": r"\b(?:how long|how much time|the (?:longest|shortest)|how many (?:days|weeks|months|years|hours)|"
              r"within how|time limit|period|how soon|"
              r"how quickly|how fast|deadline|notify|notification|report(?:ing)? (?:within|deadline))\b",
    "amount": r"\b(?:how much|fines?|penalt(?:y|ies)|amount|sanctions?|eur|euros?)\b|€",
    "percent": r"\b(?:percent|per cent|percentage|share of|turnover)\b|%",
    "power": r"\b(?:flops?|floating[- ]point|compute|computation|training compute)\b",
    # "Who is a deployer?" asks what the act calls a deployer ("Who is the chair?" asks who holds an office)
    "definition": r"^(?:what (?:is|are) (?:an? |the )?|who is an? |what does .* mean\b(?! in practice)|define|"
                  r"definition|meaning of|what counts as|what is meant by)|\bdefin(?:e|ed|ition)\b|"
                  # "what 'provider' means", not "enough means to enforce", "by means of" or "what the duty
                  # means in practice" (how to comply, not what the term covers)
                  r"\bwhat\b[^?]{0,60}\bmeans?\b(?!\s+(?:of|to|for|in practice)\b)|"
                  r"\b(?:counts?|qualif(?:y|ies)) as\b|\bin (?:\w+ |the act's )?terms\b(?! of)|"
                  # "What does the AI Act call that?", "What type of personal data is that?": the defined term
                  r"\bwhat (?:does|do) (?:the |this |that )?(?:[\w-]+ ){0,3}call\b|\bwhat is (?:that|this|it) called\b|"
                  r"\bwhat (?:type|kind|sort) of (?:[\w-]+ ){1,3}(?:is|are) (?:that|this|it|they|those)\b|"
                  # "What is our role under the AI Act?": the act's names for roles are defined terms
                  r"\b(?:what|which) (?:is |are )?(?:our|my|their|its|his|her) (?:role|status)\b|"
                  r"\b(?:what|which) role\b",
    "permission": r"^(?:can|may|is it|am i|are (?:we|they|providers|deployers)|is (?:an?|the)|must|"
                  r"do(?:es)? .* (?:have|need) to|is .* (?:allowed|permitted|prohibited|banned|lawful|legal|required))|"
                  r"\b(?:allowed|permitted|prohibited|banned|forbidden|lawful|obliged|required|obligations?)\b",
    # a count that is not a period ("how many staff", "the maximum number of sandboxes"); not a checked value kind,
    # so it guides answerability and sentence choice but the numeric channel binds nothing for it
    "count": r"\bhow many (?!days|weeks|months|years|hours|business days)\w+|\b(?:maximum|minimum) number of\b",
    "who": r"^who\b|\bwhich (?:authority|authorities|body|bodies|entity|entities)\b|\bwho (?:is|are|must)\b",
    # what someone pays ("the fee", "what does it cost"): "free of charge" answers it, not "how much money do
    # start-ups get?"
    "payment": r"\b(?:fees?|charges?|charged|costs?|pay|pays|paid|paying|payable|prices?)\b",
}
_COMPILED = {k: re.compile(v, re.I) for k, v in _CUES.items()}
# "how many (working) days", "the maximum number of months" ask for a period: neither a count nor a date
_HOW_MANY_UNITS = re.compile(r"\b(?:how many|(?:maximum |minimum )?number of) (?:working |business |calendar |clear )?"
                             r"(?:days|weeks|months|years|hours)\b",
                             re.I)


@dataclass(frozen=True)
class Cues:
    date: bool = False
    period: bool = False
    amount: bool = False
    percent: bool = False
    power: bool = False
    definition: bool = False
    permission: bool = False
    count: bool = False
    who: bool = False
    payment: bool = False

    def value_kinds(self) -> frozenset[str]:
        """The kinds of `lexcite.values.Value` an answer to this question must give (empty: no value asked)."""
        kinds: set[str] = set()
        if self.date:
            kinds |= {"date", "month", "period"}
        if self.period:
            kinds |= {"period", "date"}
        if self.amount:
            kinds |= {"amount", "percent"}
        if self.percent:
            kinds.add("percent")
        if self.power:
            kinds.add("power")
        return frozenset(kinds)

    def names(self) -> tuple[str, ...]:
        return tuple(k for k in _CUES if getattr(self, k))


_HOW_MUCH_TIME = re.compile(r"\bhow much (?:\w+ )?(?:notice|time|warning)\b", re.I)


def cues(question: str) -> Cues:
    q = " ".join(question.split())
    found = {k: bool(p.search(q)) for k, p in _COMPILED.items()}
    # "How many (working) days/months" asks for a period, not for a date nor a count.
    if _HOW_MANY_UNITS.search(q):
        found["date"], found["period"] = False, True
        found["count"] = bool(_COMPILED["count"].search(_HOW_MANY_UNITS.sub(" ", q)))
    # "How much (advance) notice / time" asks for a period; an amount only if the rest of the question asks one
    if _HOW_MUCH_TIME.search(q):
        found["period"] = True
        found["amount"] = bool(_COMPILED["amount"].search(_HOW_MUCH_TIME.sub(" ", q)))
    return Cues(**found)


_SNOWBALL = snowballstemmer.stemmer("english")  # the C stemmer (PyStemmer) when installed: the same algorithm


# Porter2 leaves apart derived forms a reader takes for one word: notify/notification ('notifi'/'notif'),
# urgent/urgency ('urgent'/'urgenc'), compliant/compliance, liable/liability. Their stems are joined here.
_DERIVED = ((re.compile(r"ifi$"), "if"), (re.compile(r"([ea])nc$"), r"\1nt"), (re.compile(r"abil$"), "abl"))


# Words Porter2 joins to another whose notion in the acts is a different one: "marketing" (direct marketing, GDPR
# Article 21) is no "market" (placing on the market, market surveillance: the AI Act's every other page).
_KEPT_APART = {"marketing": "marketing"}


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball (Porter2) English stem: 'conscious'/'consciousness', 'prohibited'/'prohibition',
    'fines'/'fined' meet; the light suffix stripper it replaced gave 'consciou' and 'consciousnes'. Derived forms
    it leaves apart ('notify'/'notification', 'urgent'/'urgency') meet too (`_DERIVED`)."""
    if (kept := _KEPT_APART.get(word.lower())) is not None:
        return kept
    s = _SNOWBALL.stemWord(word.lower())
    for pattern, repl in _DERIVED:
        s = pattern.sub(repl, s)
    return s


_PLURAL = ((re.compile(r"([^aeiou])ies$"), r"\1y"), (re.compile(r"(ss|x|z|ch|sh)es$"), r"\1"),
           (re.compile(r"([^siu])s$"), r"\1"))


def singular(phrase: str) -> str:
    """The phrase, lower-cased, with its last word in the singular: a question names a defined term in the plural
    ('third parties', 'operators', 'businesses') as often as not, and the acts define the singular."""
    words = phrase.casefold().split()
    if not words:
        return ""
    for pattern, repl in _PLURAL:
        last = pattern.sub(repl, words[-1])
        if last != words[-1]:
            words[-1] = last
            break
    return " ".join(words)


_TOKEN = re.compile(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'’-]*[A-Za-zÀ-ÿ]|\d+[a-z]?|[A-Za-z]")


def content_terms(text: str) -> list[str]:
    """Stemmed content words in order (stopwords and one-letter tokens out; hyphenated words kept whole and split)."""
    return list(_content_terms(text))


# "we're", "I've", "it's": the pronoun stays (a stopword), the clitic goes; "don't", "isn't" are function words
_CLITIC = re.compile(r"'(?:re|ve|m|d|ll|s)$")


@lru_cache(maxsize=8192)
def _content_terms(text: str) -> tuple[str, ...]:
    # one question reads the same evidence sentences in the answerability check, the generator and the
    # conflict finder: each is tokenised once
    out: list[str] = []
    for tok in _TOKEN.findall(text):
        t = _CLITIC.sub("", tok.lower().replace("’", "'").strip("'-"))
        if len(t) < 2 or t in STOPWORDS or t.endswith("n't"):
            continue
        out.append(stem(t))
        if "-" in t:
            out.extend(stem(p) for p in t.split("-") if len(p) > 2 and p not in STOPWORDS)
    return tuple(out)


_ENGLISH = frozenset("the a an is are do does of to in for and or what which who when how can must our we i my".split())
_OTHER = frozenset("di che per il la le gli sono è da del della un una chi quali quando come lo dei delle nel der die "
                   "das und ist wer wann les des est qui quand que el los las es quién cuándo "
                   "cosa quale non deve devono può possono ai al alla alle sul sulla "  # Italian
                   "muss müssen kann können welche nicht für mit eine einen "  # German
                   "doit doivent peut peuvent quelles quels quel pour une dans "  # French
                   "qué cuál cuáles debe deben puede pueden para".split())  # Spanish


def in_english(question: str) -> bool:
    """False for a question written in another language (Italian, German, French, Spanish function words)."""
    words = [w.lower() for w in re.findall(r"[\wÀ-ÿ']+", question)]
    return not (sum(w in _OTHER for w in words) >= 2 and sum(w in _ENGLISH for w in words) <= 1)


_AND_VALUE = re.compile(r"^(?:is|are|can|may|must|do|does|will)\b[^?]*,?\s+and\s+(?:from|since|by|until)?\s*when\b",
                        re.I)


# "What permission do we need first, and what if it is too urgent to wait?", "Can it fine a hospital, or does that
# depend on the country?": a second question joined to the first; "... and have heard nothing back" is none
_SECOND_PART = re.compile(r"(?:,\s*|\s+)(?:and|or|but)\s+(?=(?:what|how|when|which|who|whom|where|why)\b)|"
                          r",\s*(?:and|or|but)\s+(?=(?:can|could|must|may|is|are|do|does|did|should|will|would|"
                          r"has|have)\s)", re.I)


def question_parts(question: str) -> list[str]:
    """The questions a question asks: its asking sentences, each split where a second question is joined to it
    ("..., and what happens to the certificate?"); the words before the first asking sentence say what it is
    about and stay with it. One part for a question that asks one thing."""
    q = " ".join(question.split())
    sentences = re.split(r"(?<=\?)\s+(?=\S)", q)
    parts: list[str] = []
    for sentence in sentences:
        parts.extend(p.strip() for p in _SECOND_PART.split(sentence) if p.strip())
    return parts or [q]


def value_secondary(question: str) -> bool:
    """A yes/no question that asks for its date as a second part ("Is X banned, and from when?"): the answer
    to the first part stands without the value."""
    return bool(_AND_VALUE.search(" ".join(question.split())))


# A question that asks for the value itself ("How much ...?", "What is the maximum fine ...?", "By when ...?"),
# not one that only mentions a fine or a deadline ("What do authorities weigh up when setting a fine?").
_ASKS_VALUE = re.compile(
    r"(?:^|[.?!:;—–]\s+|,\s*)(?:(?:and|but|so)\s+)?"
    # "For how many years ...?", "Up to how much ...?": a preposition before the asking words
    r"(?:(?:for|in|after|within|up to|at)\s+)?"
    # "Exactly how many days ...?": an adverb before the asking words
    r"(?:(?:exactly|precisely|roughly|approximately|about|just|then|also|so|and)\s+)?"
    r"(?:how (?:much|long|many|soon|quickly|fast|often|high|big|large|old)|"
    r"(?:what|which)(?:'s| is) the (?:longest|shortest)|"
    rf"(?:by|since|until|from) when|{_WHEN_DATE}|within how|up to how|(?:from|at) what (?:age|date|day|year)|"
    r"(?:what|which)(?:'s| is| are| was| were)? (?:the )?(?:\w+ ){0,2}(?:date|deadline|period|time limit|amount|fine|"
    r"fines|penalty|penalties|ceiling|cap|threshold|percentage|rate|age|number|sum|fee|fees|salary|pay|wages?|"
    r"remuneration|headcount|turnover|duration)\b)", re.I)


# A query typed as a noun phrase, the way people type into a search box: "Court fees to sue a company in Spain?",
# "Minimum number of years a DPO must serve?", "Deadline for reporting a breach?". It asks for the value it names;
# a sentence that opens with an asking or auxiliary word is read by the pattern above.
_VALUE_NOUNS = (r"(?:number of\s+[\w'’-]+(?:\s+[\w'’-]+)?|date|deadline|period|time limit|amount|fines?|penalty|"
                r"penalties|ceiling|cap|threshold|percentage|rate|age|sum|fees?|costs?|price|salary|pay|wages?|"
                r"remuneration|headcount|turnover|duration)")
_VALUE_QUERY = re.compile(
    r"(?:^|(?<=[.?!])\s+)(?!(?:how|what|which|who|whom|whose|when|where|why|whether|is|are|am|was|were|does|do|did|"
    r"can|could|may|might|must|shall|should|will|would|has|have|had|if|and|but|or|so|i|we|you|they|our|my|it)\b)"
    rf"(?:the\s+)?(?P<phrase>(?:[\w'’-]+\s+){{0,2}}?{_VALUE_NOUNS})\b(?=\s+(?:of|for|to|in|on|under|per|a|an|the|"
    r"when|if|after|before|that)\b|\s*[?:])(?=[^.!]*\?)", re.I)


def value_query(question: str) -> str | None:
    """The value a noun-phrase query asks for, as written ("Court fees", "Minimum number of years"), else None."""
    m = _VALUE_QUERY.search(" ".join(question.split()))
    return m["phrase"] if m else None


def asks_for_value(question: str) -> bool:
    """True when some sentence of the question asks for a value rather than only mentioning one."""
    return bool(_ASKS_VALUE.search(" ".join(question.split()))) or value_query(question) is not None


_ENTRY_INTO_FORCE = re.compile(r"\b(?:enter(?:s|ed)? into force|entry into force|in force)\b", re.I)


def asks_entry_into_force(question: str) -> bool:
    """"When did it enter into force?" asks for entry into force, not for the date of application."""
    return bool(_ENTRY_INTO_FORCE.search(question))


# "Does the GDPR apply to ...?", "Are we covered by the AI Act?", "Can that cabinet fall under the GDPR?": whether an
# act (or "it", "the rules") applies, which its scope provisions decide. "What conformity check applies to ...?" asks
# which rule, and "When do the obligations start to apply?" asks for a date: neither is about the act's scope.
_ACT_WORDS = r"(?:GDPR|AI Act|Act|Regulation|Directive|law|laws|rules|it|this|these)"
# "Because the app is free, are we outside the GDPR?": a clause may come before the asking words
_LEAD = r"^(?:[^?,]{0,80},\s*)?"
_APPLIES_TO = re.compile(
    rf"{_LEAD}(?:does|do|would|will|can|could|is|are|am|might|may)\b[^?]{{0,40}}?\b{_ACT_WORDS}\s+(?:\w+\s+){{0,2}}?"
    rf"(?:apply|applies|cover|covers)\b|"
    rf"{_LEAD}(?:does|do|would|will|can|could|is|are|am|might|may)\b[^?]{{0,80}}?\b(?:covered by|subject to|bound by|"
    rf"exempt from|outside(?: of)?|out of|beyond|fall(?:s|ing)? (?:under|within|outside)|"
    rf"(?:in|within|outside) (?:the )?scope of)\s+(?:the\s+)?(?:EU\s+)?{_ACT_WORDS}\b", re.I)


def asking_sentences(question: str) -> list[str]:
    """The sentences of a question that ask (those ending in '?'), in order; [] when none does."""
    return [p for p in re.split(r"(?<=[.?!])\s+", " ".join(question.split())) if p.endswith("?")]


def asked_twice(question: str) -> str:
    """The question with its asking sentences once more, when sentences before them set out a situation: a
    bag-of-words reader (BM25) then weighs what is asked above the situation's words ("We're a cloud vendor
    handling data for a client ... Do we need the client's permission to bring in a subcontractor?"). A question
    that is all one asking sentence is returned as it is."""
    asking = asking_sentences(question)
    whole = " ".join(question.split())
    said = " ".join(asking)
    return f"{whole} {said}" if asking and said != whole else question


def asks_if_act_applies(question: str) -> bool:
    """Whether the asking sentence asks if an act applies to something (see `_APPLIES_TO`); a when-question is
    about dates, not scope."""
    asking = asking_sentences(question)
    sentence = asking[-1] if asking else question.strip()
    return bool(_APPLIES_TO.search(sentence)) and not cues(sentence).date
