"""Read the checkable values in legal text: dates, amounts, percentages, periods, powers, numbers, references.

Ingest (`ingest/facts.py`, which stores values as facts) and answering
(`answer/verify.py`, which checks every value of a sentence against the units
it cites) must read a value the same way, or a stored fact could fail its own
verification. So both use this one module.

Every value comes back normalised, so that different spellings of one value
compare equal and different values never do:

- "EUR 35 000 000", "EUR 35,000,000", "35 000 000 EUR", "EUR 35 million" -> amount 35000000 EUR
- "7 %", "7%", "7 per cent", "seven per cent" -> percent 7
- "2 August 2026", "August 2, 2026", "2026-08-02" -> date 2026-08-02
- "three months", "3 months" -> period 3 month
- "10^25" (what the parsers write for 10<sup>25</sup>) -> power 10^25
- "Article 6(2)", "Art. 6(2)", "Article 6, paragraph 2" -> ref art_6.par_2
- "Regulation (EU) 2024/1689" -> act 2024/1689

Spaces of every Unicode width (NBSP, narrow NBSP, thin space) count as one
space; each is replaced one character for one, so spans index the original text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from lexcite.celex import DOC_KINDS

__all__ = [
    "digits_for_words",
    "Value",
    "KINDS",
    "CHECKED_KINDS",
    "read_values",
    "number_forms",
    "normalise_spaces",
    "act_numbers",
    "act_label",
    "resolve_relative",
    "states_time_standard",
    "states_no_charge",
    "kinds_answered",
    "counts",
]

# The law's answer to "how quickly?" or "by when?" where it sets no number: a standard of time, or the event
# by which something is due ("at the latest at the time of the first communication", "prior to placing it on
# the market"): not a value (nothing to bind)
_TIME_STANDARD = re.compile(r"\b(?:without undue delay|without delay|immediately|promptly|forthwith|"
                            r"as soon as (?:possible|practicable)|at the latest (?:at the time|when|upon|before|by)|"
                            r"no later than (?:at the time|when|upon|the time)|prior to (?:placing|putting|the start)|"
                            r"before (?:placing|putting) (?:\w+ ){0,4}(?:on the market|into service))\b", re.I)


def states_time_standard(text: str) -> bool:
    """True when `text` sets a time by a standard ("without undue delay", "immediately") or by an event ("prior
    to placing on the market") rather than by a period or a date."""
    return bool(_TIME_STANDARD.search(text))


# The law's answer to "how much is the fee?" where nothing is to be paid: no amount, and no value to bind
_NO_CHARGE = re.compile(r"\b(?:free of charge|without charge|at no cost|no fee shall be charged)\b", re.I)


def states_no_charge(text: str) -> bool:
    """True when `text` says something is given free of charge: the answer to "how much is the fee?"."""
    return bool(_NO_CHARGE.search(text))


def kinds_answered(text: str, payment: bool = False) -> set[str]:
    """The kinds of value `text` states, and those it answers without a value: a period by a standard of time
    ("without undue delay"), and, for a question about what is paid (`payment`), an amount by "free of charge"."""
    return ({v.kind for v in read_values(text)} | ({"period"} if states_time_standard(text) else set())
            | ({"amount"} if payment and states_no_charge(text) else set()))


# Kinds of value, in the order they are looked for (an earlier kind claims its span).
KINDS = ("date", "month", "power", "amount", "percent", "period", "act", "ref", "number")
# Kinds that the structured numeric channel renders from stored facts (invariant 4).
CHECKED_KINDS = frozenset({"date", "month", "power", "amount", "percent", "period"})

_SPACES = re.compile(r"[\u00a0\u2000-\u200b\u202f\u205f\u3000]")
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")

_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
    "oct": 10, "nov": 11, "dec": 12,
}
MONTH_NAMES = frozenset(_MONTHS)  # month names and their abbreviations, lower-case
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"

_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
}
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_WORD = rf"(?:(?:{_TENS})-(?:one|two|three|four|five|six|seven|eight|nine)|" + \
    "|".join(sorted(_WORDS, key=len, reverse=True)) + ")"

# A number as written: grouped thousands ("35 000 000", "35,000,000", "35.000.000"), then plain or decimal.
_NUM = r"(?:\d{1,3}(?:[ ,.]\d{3})+(?![\d])(?:[.,]\d+)?|\d+(?:[.,]\d+)?)"
_EDGE_L = r"(?<![\w/^.,-])"
_EDGE_R = r"(?![\w^/])"
_MULT = {"thousand": 10**3, "million": 10**6, "m": 10**6, "mn": 10**6, "billion": 10**9, "bn": 10**9}
_CURRENCY = r"(?:EUR|€|euros?|eur)"

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("date", re.compile(rf"{_EDGE_L}(?P<y>\d{{4}})-(?P<m>\d{{2}})-(?P<d>\d{{2}}){_EDGE_R}")),
    ("date", re.compile(rf"{_EDGE_L}(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}\s+(?P<y>\d{{4}}){_EDGE_R}", re.I)),
    ("date", re.compile(rf"\b{_MONTH}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>\d{{4}}){_EDGE_R}", re.I)),
    ("date", re.compile(rf"{_EDGE_L}(?P<d>\d{{1,2}})[./](?P<m>\d{{1,2}})[./](?P<y>\d{{4}}){_EDGE_R}")),
    ("month", re.compile(rf"\b{_MONTH}\s+(?P<y>\d{{4}}){_EDGE_R}", re.I)),
    ("power", re.compile(
        rf"{_EDGE_L}(?P<base>\d+)\s*(?:\^\s*|\*\*\s*|(?=[⁰¹²³⁴⁵⁶⁷⁸⁹]))(?P<exp>[0-9⁰¹²³⁴⁵⁶⁷⁸⁹]+){_EDGE_R}")),
    ("amount", re.compile(
        rf"(?:{_CURRENCY}\s?(?P<n1>{_NUM})(?:\s+(?P<m1>thousand|million|billion|mn|bn|m)\b)?"
        rf"|{_EDGE_L}(?P<n2>{_NUM})(?:\s*(?P<m2>thousand|million|billion|mn|bn|m)\b)?\s?{_CURRENCY})(?!\w)")),
    ("percent", re.compile(rf"(?:{_EDGE_L}(?P<n>{_NUM})|\b(?P<w>{_WORD}))\s*(?:%|per\s*cent\b|percent\b)", re.I)),
    ("period", re.compile(
        rf"(?:{_EDGE_L}(?P<n>{_NUM})|\b(?P<w>{_WORD}))[\s-]+(?:(?:calendar|working|consecutive)\s+)?"
        r"(?P<u>hour|day|week|month|year)s?\b", re.I)),
    ("act", re.compile(
        r"\b(?:(?P<type>Regulations?|Directives?|Decisions?)\s+)?(?:\((?P<ns>EU|EC|EEC|EU,\s*Euratom|Euratom|CE)\)\s*)?"
        rf"(?:No\.?\s*)?{_EDGE_L}(?P<a>\d{{1,4}})/(?P<b>\d{{1,4}})(?:/(?:EU|EC|EEC|CE))?{_EDGE_R}")),
]

_NUMBER = re.compile(rf"{_EDGE_L}{_NUM}{_EDGE_R}")
_NUMBER_WORDS = re.compile(r"\d+")

# References. "Article 6(2)", "Article 5(1), point (h)", "Article 5(1)(h)", "Article 6, paragraph 2",
# "Articles 102 to 110", "Articles 8 and 9", "Annex III", "Annex III, point 4", "Annex I, Section A",
# "recital (12)", "Chapter III", "Section 4", and relative "paragraph 2" / "point (a)".
_ART_NO = r"\d+[a-z]{0,2}"
_PAR = r"\((?P<par>\d+[a-z]?)\)"
_PNT = r"(?:\((?P<pnt>[a-z]{1,3}|[ivx]{1,5})\))"
_ARTICLE = re.compile(
    rf"\b(?:Articles?|Arts?\.)\s+(?P<art>{_ART_NO})(?![\w])(?:{_PAR})?{_PNT}?"
    r"(?:\s*,?\s*(?:first|second|third|fourth|fifth)?\s*(?:sub)?paragraph\s+(?P<par2>\d+))?"
    r"(?:\s*,?\s*points?\s+\((?P<pnt2>\d+[a-z]?|[a-z]{1,3}|[ivx]{1,5})\))?",
    re.I,
)
_ARTICLE_MORE = re.compile(
    rf"\s*(?:,|and|or|to|-|–)\s*(?:Articles?\s+)?(?P<art>{_ART_NO})(?![\w(])(?!\s+{_MONTH})", re.I)
_ANNEX = re.compile(
    r"\bAnnex(?:es)?\s+(?P<anx>[IVXLC]+)\b(?:\s*,?\s*Section\s+(?P<sct>[A-Z0-9]+)\b)?"
    r"(?:\s*,?\s*points?\s+\(?(?P<pnt>\d+[a-z]?)\)?)?"
)
_RECITAL = re.compile(r"\brecitals?\s+\(?(?P<rct>\d+)\)?", re.I)
_DIVISION = re.compile(r"\b(?P<what>Chapter|Section|Title|Part)\s+(?P<no>[IVXLC]+|\d+)\b(?!\s*/)")
_REL_PAR = re.compile(r"\b(?:paragraphs?)\s+(?P<par>\d+[a-z]?)\b(?!\s*of\s+Article)", re.I)
_REL_PNT = re.compile(r"\bpoints?\s+\((?P<pnt>[a-z]{1,3}|[ivx]{1,5})\)", re.I)


@dataclass(frozen=True)
class Value:
    """One value as written, with its normalised form and its place in the text."""

    kind: str  # one of KINDS
    value: str  # normalised: "2026-08-02", "35000000", "7", "10^25", "art_6.par_2", "2024/1689"
    unit: str  # "EUR", "%", "day", "month", "", "rel" (a relative reference like "paragraph 2")
    text: str  # as written
    start: int
    end: int

    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.value, self.unit)


def normalise_spaces(text: str) -> str:
    """Every Unicode space as ' ', one character for one (spans stay valid)."""
    return _SPACES.sub(" ", text)


def _decimal(text: str) -> Decimal | None:
    """'35 000 000', '35,000,000', '35.000.000' -> 35000000; '7,5' -> 7.5; '1.234,56' -> 1234.56."""
    t = text.replace(" ", "")
    seps = re.findall(r"[,.]", t)
    if seps:
        last = t.rfind(seps[-1])
        grouping = len(set(seps)) == 1 and len(t) - last - 1 == 3
        if grouping:
            t = t.replace(seps[0], "")
        else:  # the last separator is the decimal mark; any others group thousands
            t = re.sub(r"[,.]", "", t[:last]) + "." + t[last + 1:]
    try:
        return Decimal(t)
    except InvalidOperation:
        return None


def _fmt(d: Decimal) -> str:
    d = d.normalize()
    s = format(d, "f")
    return s.rstrip("0").rstrip(".") if "." in s else s


def _word(w: str) -> int | None:
    w = w.lower()
    if "-" in w:
        a, b = w.split("-", 1)
        return (_WORDS.get(a) or 0) + (_WORDS.get(b) or 0) or None
    return _WORDS.get(w)


def _valid_date(y: int, m: int, d: int) -> bool:
    return 1 <= m <= 12 and 1 <= d <= 31 and 1900 <= y <= 2200


def _claimed(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(start < e and s < end for s, e in spans)


def _refs(text: str) -> Iterable[tuple[str, str, int, int]]:
    """(path, unit, start, end): unit '' for absolute refs, 'rel' for relative ones ('paragraph 2')."""
    for m in _ARTICLE.finditer(text):
        path = f"art_{m['art'].lower()}"
        par = m["par"] or m["par2"]
        if par:
            path += f".par_{par}"
        pnt = m["pnt"] or m["pnt2"]
        if pnt:
            path += f".pnt_{pnt.lower()}"
        yield path, "", m.start(), m.end()
        # "Articles 8 and 9", "Articles 102 to 110", "Article 6(1) and (2)"
        pos = m.end()
        while True:
            more = _ARTICLE_MORE.match(text, pos) if m.group().lower().startswith(("articles", "arts")) else None
            if more:
                yield f"art_{more['art'].lower()}", "", more.start("art"), more.end()
                pos = more.end()
                continue
            more_par = re.match(r"^\s*(?:,|and|or|to)\s*\((?P<par>\d+[a-z]?)\)", text[pos:])
            if more_par and (m["par"] or m["par2"]):
                yield f"art_{m['art'].lower()}.par_{more_par['par']}", "", pos, pos + more_par.end()
                pos += more_par.end()
                continue
            break
    for m in _ANNEX.finditer(text):
        path = f"anx_{m['anx']}"
        if m["sct"]:
            path += f".sct_{m['sct']}"
        if m["pnt"]:
            path += f".pnt_{m['pnt']}"
        yield path, "", m.start(), m.end()
    for m in _RECITAL.finditer(text):
        yield f"rct_{m['rct']}", "", m.start(), m.end()
    for m in _DIVISION.finditer(text):
        prefix = {"Chapter": "cpt", "Section": "sct", "Title": "tit", "Part": "prt"}[m["what"]]
        yield f"{prefix}_{m['no']}", "", m.start(), m.end()
    for m in _REL_PAR.finditer(text):
        yield f"par_{m['par']}", "rel", m.start(), m.end()
    for m in _REL_PNT.finditer(text):
        yield f"pnt_{m['pnt'].lower()}", "rel", m.start(), m.end()


def read_values(text: str) -> list[Value]:
    """Every checkable value in `text`, in text order; each character belongs to at most one value."""
    return list(_read_values(text))


# A unit's own label ("(48)", "1.", "(a)") and the numbers of the provisions a text points at ("points 6, 7 and 8
# of Annex III") number the law's structure: they count nothing, and answer no "how many?"
_LABEL = re.compile(r"^\s*(?:\((?:\d{1,3}[a-z]?|[a-z]{1,3}|[ivx]{1,5})\)|\d{1,3}[a-z]?\.)\s")
_NUMBERED = re.compile(r"\b(?:points?|paragraphs?|subparagraphs?|articles?|annex(?:es)?|sections?|chapters?|"
                       r"titles?|recitals?)\s+[\dIVXLC]+[a-z]?(?:\s*(?:,|and|or|to)\s*[\dIVXLC]+[a-z]?\b)*", re.I)


def counts(text: str) -> list[Value]:
    """The numbers of `text` that count something: its "number" values less its label and provision numbers."""
    structure = [m.span() for m in (_LABEL.match(text), *_NUMBERED.finditer(text)) if m]
    return [v for v in read_values(text)
            if v.kind == "number" and not any(a <= v.start and v.end <= b for a, b in structure)]


@lru_cache(maxsize=8192)
def _read_values(text: str) -> tuple[Value, ...]:
    """`read_values`, memoised: an answer reads the same unit texts in the generator, the verifier, the
    answerability check and the numeric channel (Values are frozen, so sharing them is safe)."""
    text = normalise_spaces(text)
    found: list[Value] = []
    spans: list[tuple[int, int]] = []

    def add(kind: str, value: str, unit: str, start: int, end: int) -> None:
        found.append(Value(kind, value, unit, text[start:end], start, end))
        spans.append((start, end))

    # References first: "Article 6(2)" must never read as the numbers 6 and 2.
    for path, unit, start, end in sorted(_refs(text), key=lambda r: (r[2], -(r[3] - r[2]))):
        if not _claimed(spans, start, end):
            add("ref", path, unit, start, end)
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if _claimed(spans, m.start(), m.end()):
                continue
            g = m.groupdict()
            if kind == "date":
                month = int(g["m"]) if g.get("m") else _MONTHS[g["month"].lower()]
                y, d = int(g["y"]), int(g["d"])
                if _valid_date(y, month, d):
                    add("date", f"{y:04d}-{month:02d}-{d:02d}", "", m.start(), m.end())
            elif kind == "month":
                add("month", f"{int(g['y']):04d}-{_MONTHS[g['month'].lower()]:02d}", "", m.start(), m.end())
            elif kind == "power":
                exp = g["exp"].translate(_SUPERSCRIPT)
                add("power", f"{int(g['base'])}^{int(exp)}", "", m.start(), m.end())
            elif kind == "amount":
                n = _decimal(g["n1"] or g["n2"])
                mult = (g["m1"] or g["m2"] or "").lower()
                if n is not None:
                    add("amount", _fmt(n * _MULT.get(mult, 1)), "EUR", m.start(), m.end())
            elif kind == "percent":
                n = _decimal(g["n"]) if g["n"] else (Decimal(_word(g["w"]) or 0) if g["w"] else None)
                if n is not None:
                    add("percent", _fmt(n), "%", m.start(), m.end())
            elif kind == "period":
                n = _decimal(g["n"]) if g["n"] else (Decimal(_word(g["w"]) or 0) if g["w"] else None)
                if n is not None and n > 0:
                    add("period", _fmt(n), g["u"].lower(), m.start(), m.end())
            elif kind == "act":
                add("act", f"{int(g['a'])}/{int(g['b'])}", "", m.start("a"), m.end())
    for m in _NUMBER.finditer(text):
        if not _claimed(spans, m.start(), m.end()):
            n = _decimal(m.group())
            if n is not None:
                add("number", _fmt(n), "", m.start(), m.end())
    found.sort(key=lambda v: v.start)
    return tuple(found)


_SCALES = {"hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9}
_NUMBER_WORD = r"(?:" + "|".join(sorted([*_WORDS, *_SCALES], key=len, reverse=True)) + r")"
_NUMBER_PHRASE = re.compile(rf"\b{_NUMBER_WORD}(?:(?:[\s-]+and)?[\s-]+{_NUMBER_WORD})*\b", re.I)


def _phrase_value(phrase: str) -> int | None:
    total = current = 0
    for word in re.split(r"[\s-]+", phrase.lower()):
        if word == "and":
            continue
        if word == "hundred":
            current = (current or 1) * 100
        elif word in _SCALES:
            total, current = total + (current or 1) * _SCALES[word], 0
        else:
            current += _WORDS[word]
    return total + current or None


def digits_for_words(text: str) -> str:
    """Numbers written in words as digits: 'thirty-five million euros' -> '35000000 euros'.

    A lone 'one' stays a word (it is a pronoun far more often than a number), and so does a scale
    word after digits ('EUR 7.5 million'). Used on both sides
    of a check, so that words and digits compare alike.
    """
    def sub(m: re.Match[str]) -> str:
        words = set(re.split(r"[\s-]+", m.group().lower()))
        if words == {"one"} or words <= {*_SCALES, "and"}:  # "7.5 million" is read with its digits
            return m.group()
        value = _phrase_value(m.group())
        return str(value) if value is not None else m.group()

    return _NUMBER_PHRASE.sub(sub, text)


def number_forms(text: str) -> set[str]:
    """Every number a reader could see in `text`: grouped and ungrouped readings, and the digits
    inside dates, amounts and references. The lenient side of the check (what the cited text offers)."""
    text = normalise_spaces(text)
    out = {_fmt(Decimal(d)) for d in _NUMBER_WORDS.findall(text)}
    for m in re.finditer(_NUM, text):
        n = _decimal(m.group())
        if n is not None:
            out.add(_fmt(n))
    for v in read_values(text):
        if v.kind in ("amount", "percent", "period", "number"):
            out.add(v.value)
    return out


def act_numbers(celex: str) -> set[str]:
    """The ways an act's own number is written: 32024R1689 -> {'2024/1689', '1689/2024'}."""
    m = re.match(r"^[0-9](?P<y>\d{4})[A-Z]{1,2}(?P<n>\d{4})", celex)
    if not m:
        return set()
    y, n = int(m["y"]), int(m["n"])
    return {f"{y}/{n}", f"{n}/{y}", f"{y % 100}/{n}", f"{n}/{y % 100}"}


def act_label(celex: str) -> str | None:
    """'32024R1689' -> 'Regulation (EU) 2024/1689'; None when no safe label exists (guidance, old acts)."""
    m = re.match(r"^3(?P<y>\d{4})(?P<t>[RLD])(?P<n>\d{4})$", celex)
    if not m or int(m["y"]) < 2015:
        return None
    return f"{DOC_KINDS[m['t']].capitalize()} (EU) {int(m['y'])}/{int(m['n'])}"


def resolve_relative(path: str, within: str) -> str:
    """A relative reference ('par_2', 'pnt_a') read inside unit `within` ('art_6.par_1') -> 'art_6.par_2'."""
    head = path.split("_", 1)[0]
    parts = within.split(".")
    if head == "par":
        keep = [p for p in parts if p.startswith("art_")][:1]
    else:  # a point: in the same paragraph, or the article when it has none
        keep = []
        for p in parts:
            if p.startswith("pnt_"):
                break
            keep.append(p)
    return ".".join([*keep, path]) if keep else path
