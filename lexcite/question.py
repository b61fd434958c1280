"""What a question asks for: a date, a period, an amount, a percentage, a threshold, a definition, a permission.

Read from cue words, deterministically. The extractive generator prefers
sentences that give what is asked; the numeric channel decides from the same
cues whether an answer must carry a value rendered from a stored fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lexcite._words import ENGLISH_STOPWORDS

__all__ = ["Cues", "cues", "content_terms", "stem", "STOPWORDS"]

# The question reader also drops modal verbs and the words every question about an act contains.
STOPWORDS = ENGLISH_STOPWORDS | frozenset("""
aren cannot shall may must per whether eu union regulation article articles paragraph point annex according
""".split())

_CUES = {
    "date": r"\b(?:when|by when|from when|until when|since when|what date|which date|dates?\b|deadline|"
            r"apply from|applicable from|applies from|enters? into force|entry into force|start(?:s)? to apply|"
            r"in force|time ?line|timeline|begin(?:s)? to apply|from what|as of when)\b",
    "period": r"\b(?:how long|how many (?:days|weeks|months|years|hours)|within how|time limit|period|how soon|"
              r"how quickly|how fast|deadline|notify|notification|report(?:ing)? (?:within|deadline))\b",
    "amount": r"\b(?:how much|fines?|penalt(?:y|ies)|amount|sanctions?|eur|euros?)\b|€",
    "percent": r"\b(?:percent|per cent|percentage|share of|turnover)\b|%",
    "power": r"\b(?:flops?|floating[- ]point|compute|computation|training compute)\b",
    "definition": r"^(?:what (?:is|are) (?:an? |the )?|what does .* mean|define|definition|meaning of|"
                  r"what counts as|what is meant by)|\bdefin(?:e|ed|ition)\b|\bmeans?\b",
    "permission": r"^(?:can|may|is it|am i|are (?:we|they|providers|deployers)|is (?:an?|the)|must|"
                  r"do(?:es)? .* (?:have|need) to|is .* (?:allowed|permitted|prohibited|banned|lawful|legal|required))|"
                  r"\b(?:allowed|permitted|prohibited|banned|forbidden|lawful|obliged|required|obligations?)\b",
    "who": r"^who\b|\bwhich (?:authority|authorities|body|bodies|entity|entities)\b|\bwho (?:is|are|must)\b",
}
_COMPILED = {k: re.compile(v, re.I) for k, v in _CUES.items()}


@dataclass(frozen=True)
class Cues:
    date: bool = False
    period: bool = False
    amount: bool = False
    percent: bool = False
    power: bool = False
    definition: bool = False
    permission: bool = False
    who: bool = False

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


def cues(question: str) -> Cues:
    q = " ".join(question.split())
    found = {k: bool(p.search(q)) for k, p in _COMPILED.items()}
    # "How many days/months" asks for a period, not for a date.
    if re.search(r"\bhow many (?:days|weeks|months|years|hours)\b", q, re.I):
        found["date"] = False
    return Cues(**found)


def stem(word: str) -> str:
    """A light English stemmer: enough to match 'providers'/'provider', 'prohibited'/'prohibition'."""
    w = word.lower()
    for suffix in ("ations", "ation", "ities", "ity", "ings", "ing", "ions", "ion", "ies", "ers", "er", "ed", "es",
                   "s"):
        if len(w) - len(suffix) >= 4 and w.endswith(suffix):
            return w[: -len(suffix)] + ("y" if suffix in ("ies",) else "")
    return w


_TOKEN = re.compile(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'’-]*[A-Za-zÀ-ÿ]|\d+[a-z]?|[A-Za-z]")


def content_terms(text: str) -> list[str]:
    """Stemmed content words in order (stopwords and one-letter tokens out; hyphenated words kept whole and split)."""
    out: list[str] = []
    for tok in _TOKEN.findall(text):
        t = tok.lower().strip("'’-")
        if len(t) < 2 or t in STOPWORDS:
            continue
        out.append(stem(t))
        if "-" in t:
            out.extend(stem(p) for p in t.split("-") if len(p) > 2 and p not in STOPWORDS)
    return out
