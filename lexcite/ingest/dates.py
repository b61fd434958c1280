"""When an act's provisions are in force and when they apply, read from the act's own final provisions.

An EU act says it of itself, in its last article(s):

- entry into force: "This Regulation shall enter into force on the twentieth day following that of its
  publication in the Official Journal" (computed from the OJ date) or on a date written out;
- application: "It shall apply from 25 May 2018." (the act's general date; without one, an act applies
  from its entry into force);
- staged application: "However: (a) Chapters I and II shall apply from 2 February 2025; (b) Chapter III
  Section 4, Chapter V … and Article 78 shall apply from 2 August 2025, with the exception of Article
  101; …" — rules whose scope names chapters, sections, articles, paragraphs and points, with
  exceptions, exceptions with their own date ("… which shall apply from 2 December 2026"), and dates
  that differ by case ("shall apply from: (i) 2 December 2027 as regards …; and (ii) 2 August 2028 as
  regards …");
- an end: "… shall apply until …".

Every date comes with the unit whose words set it (`set_by`), so it can be cited. A unit no rule can
date gets `None` with the reason, never the publication date. Pure functions over parsed units (and
the chapter/section each article lies in, read from the markup by `article_divisions`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from lxml import etree

from lexcite.contract import CitationRef, Unit
from lexcite.errors import LexciteError
from lexcite.ingest._markup import read_html
from lexcite.values import read_values

__all__ = [
    "UNKNOWN",
    "ORDINALS",
    "Dated",
    "Rule",
    "ActDates",
    "UnitDates",
    "entry_into_force",
    "read_dates",
    "unit_dates",
    "dates_of",
    "article_divisions",
    "formex_divisions",
    "divisions_from_file",
    "amended",
    "later",
]

UNKNOWN = "unknown"  # what the catalog stores for a date no rule reads

ORDINALS = {w: i for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
    "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split(), start=1)}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60}
_TENS_ORD = {"thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60}


@dataclass(frozen=True)
class Dated:
    """A date the law sets, the unit whose words set it, and the words (or why it is unknown)."""

    date: str | None  # ISO date; None = unknown
    set_by: CitationRef | None
    said: str
    condition: str = ""  # "as regards AI systems classified as high-risk pursuant to Article 6(2) and Annex III"


@dataclass(frozen=True)
class Rule:
    """One application rule of a final article: these provisions apply from (or until) these dates."""

    scope: tuple[str, ...]  # unit ids ("art_78", "art_5.par_1.pnt_ba") and divisions ("cpt_V", "cpt_III.sct_4")
    dates: tuple[Dated, ...]  # one; several when the date differs by case
    excepted: tuple[str, ...] = ()
    until: bool = False
    unresolved: str = ""  # words of the scope that name no unit ("the corresponding obligations …")


@dataclass(frozen=True)
class ActDates:
    entry_into_force: Dated
    applies_from: Dated  # the general date of application
    rules: tuple[Rule, ...] = ()
    final: str | None = None  # the article that sets them
    unread: tuple[tuple[str, str], ...] = ()  # (unit, sentence) about application that no rule reads


@dataclass(frozen=True)
class UnitDates:
    in_force_from: Dated
    applies_from: tuple[Dated, ...]  # several when the date differs by case; the earliest first
    applies_until: Dated | None = None
    notes: tuple[Dated, ...] = field(default_factory=tuple)  # conditions without a date of their own
    # a text an amending act enacted: the day the text it replaced stopped applying (= the new text's start)
    former_until: Dated | None = None

    @property
    def earliest(self) -> str | None:
        """The first day some of the unit applies; None when unknown."""
        known = [d.date for d in self.applies_from if d.date]
        return min(known) if known and len(known) == len(self.applies_from) else None

    @property
    def first(self) -> Dated:
        """The earliest case (what the catalog's `applies_from` column holds)."""
        return min(self.applies_from, key=lambda d: d.date or "0000")

    def period(self, valid_from: str, valid_to: str | None) -> tuple[str, str | None] | None:
        """(start, end) of the period a text that was the law from `valid_from` to `valid_to` applied: from
        its date of application, never before its version is in force, to the next text or its end of
        application (None: open); None when its date of application is unknown. start >= end: it never
        applied (replaced before its date of application)."""
        start = self.earliest
        if start is None:
            return None
        start = max(start, valid_from)
        ends = [x for x in (valid_to, self.applies_until.date if self.applies_until else None) if x]
        return start, min(ends) if ends else None

    def to_json(self) -> str:
        return json.dumps({
            "in_force_from": _dated_dict(self.in_force_from),
            "applies_from": [_dated_dict(d) for d in self.applies_from],
            "applies_until": _dated_dict(self.applies_until) if self.applies_until else None,
            "notes": [_dated_dict(d) for d in self.notes],
            "former_until": _dated_dict(self.former_until) if self.former_until else None,
        }, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> UnitDates:
        d = json.loads(text)
        return cls(_dated(d["in_force_from"]), tuple(_dated(x) for x in d["applies_from"]),
                   _dated(d["applies_until"]) if d.get("applies_until") else None,
                   tuple(_dated(x) for x in d.get("notes", ())),
                   _dated(d["former_until"]) if d.get("former_until") else None)


def _dated_dict(d: Dated) -> dict[str, str | None]:
    return {"date": d.date, "set_by": str(d.set_by) if d.set_by else None, "said": d.said, "condition": d.condition}


def _dated(d: dict[str, str | None]) -> Dated:
    by = d.get("set_by")
    return Dated(d.get("date"), CitationRef.parse(by) if by else None, d.get("said") or "", d.get("condition") or "")


def _ordinal_number(words: str) -> int | None:
    words = words.lower()
    if words in ORDINALS:
        return ORDINALS[words]
    if words in _TENS_ORD:
        return _TENS_ORD[words]
    tens, _, unit = words.partition("-")
    if tens in _TENS and unit in ORDINALS and ORDINALS[unit] < 10:
        return _TENS[tens] + ORDINALS[unit]
    return None


def _first_date(text: str) -> tuple[str, int, int] | None:
    for v in read_values(text):
        if v.kind == "date":
            return v.value, v.start, v.end
    return None


def entry_into_force(texts: Iterable[str], published: str) -> tuple[str | None, str]:
    """The entry-into-force date an act states of itself, and the words it was read from.

    "shall enter into force on the third day following that of its publication" + publication
    2026-07-24 -> 2026-07-27. (None, reason) when no sentence says it.
    """
    for text in texts:
        m = re.search(r"shall enter into force on the (?P<n>[a-z-]+) day following(?: that of)? its publication",
                      text)
        if m:
            n = _ordinal_number(m["n"])
            if n is None:
                return None, f"unknown ordinal {m['n']!r} in {m[0]!r}"
            return (date.fromisoformat(published) + timedelta(days=n)).isoformat(), m[0]
        m = re.search(r"shall enter into force on the day (?:following|after)(?: that of)? its publication", text)
        if m:
            return (date.fromisoformat(published) + timedelta(days=1)).isoformat(), m[0]
        m = re.search(r"shall enter into force on the (?:day|date) of its publication", text)
        if m:
            return published, m[0]
        m = re.search(r"shall enter into force on (?P<when>\d{1,2} [A-Z][a-z]+ \d{4})", text)
        if m and (d := _first_date(m["when"])):
            return d[0], m[0]
    return None, "no 'shall enter into force on …' sentence found in the act's articles"


# ---------------------------------------------------------------------------
# Scopes as written -> unit ids and divisions
# ---------------------------------------------------------------------------

_ROMAN = r"[IVXLC]+"
_SCOPE_TOKEN = re.compile(
    rf"(?P<sections_of>Sections?\s+(?P<sl>\d+(?:\s*(?:,|and|to)\s*\d+)*)\s+of\s+Chapter\s+(?P<sc>{_ROMAN}))"
    rf"|(?P<chapter>Chapters?)\s+(?P<cn>{_ROMAN})\b"
    r"|(?P<section>Sections?)\s+(?P<sn>\d+)"
    r"|(?P<article>Articles?)\s+(?P<an>\d+[a-z]*)(?P<asub>(?:\(\w+\))*)"
    r"|(?P<points>points?)\s+(?P<pn>\(\w+\))"
    r"|(?P<subpar>(?:first|second|third|fourth|fifth) subparagraph)"
    r"|(?P<to>\bto\b)"
    r"|(?P<paren>\(\w+\))"
    rf"|(?P<roman>\b{_ROMAN}\b)"
    r"|(?P<num>\b\d+[a-z]*)(?P<nsub>(?:\(\w+\))*)"
    r"|(?P<sep>,|\band\b|\bor\b|\bas well as\b)"
    r"|(?P<word>[^\s,()]+)"
)
_FILLER = frozenset({"the", "of", "this", "regulation", "directive", "decision", "in", "however", "referred", "to"})


def _article_path(art: str, subs: str, known: Mapping[str, str] | None) -> str:
    """'6', '(1)(a)' -> 'art_6.par_1.pnt_a', or the point reading when the act has no such paragraph."""
    labels = re.findall(r"\((\w+)\)", subs)
    path = f"art_{art}"
    for i, lab in enumerate(labels):
        if i == 0 and lab[:1].isdigit():
            par, pnt = f"{path}.par_{lab}", f"{path}.pnt_{lab}"
            path = pnt if known is not None and par not in known and pnt in known else par
        else:
            path = f"{path}.pnt_{lab}"
    return path


def _scope(text: str, known: Mapping[str, str] | None = None) -> tuple[list[str], str]:
    """'Chapter III Section 4, Chapter V and Article 78' -> (['cpt_III.sct_4', 'cpt_V', 'art_78'], unread words).

    A number continues the list of the last kind named ("Articles 40, 46 and 47", "Article 24(2), (3)
    and (6)", "Articles 102 to 110", "Sections 1, 2, and 3"); 'to' makes a range of what the act holds.
    """
    out: list[str] = []
    left: list[str] = []
    kind = ""  # chapter | section | article | paragraph | point
    chapter = ""
    article = ""  # current article path, for "(3) and (6)"
    pending_to = False

    def add(item: str) -> None:
        nonlocal pending_to
        if pending_to and out:
            out.extend(_range(out.pop(), item, known))
        else:
            out.append(item)
        pending_to = False

    for m in _SCOPE_TOKEN.finditer(text):
        g = m.lastgroup
        if m["sections_of"]:
            chapter, kind = m["sc"], "section"
            nums = re.findall(r"\d+", m["sl"])
            if re.search(r"\bto\b", m["sl"]) and len(nums) == 2:
                nums = [str(n) for n in range(int(nums[0]), int(nums[1]) + 1)]
            out.extend(f"cpt_{chapter}.sct_{n}" for n in nums)
        elif m["chapter"]:
            chapter, kind = m["cn"], "chapter"
            add(f"cpt_{chapter}")
        elif m["section"]:
            if not chapter:
                left.append(m[0])
                continue
            kind = "section"
            if out and out[-1] == f"cpt_{chapter}":
                out.pop()  # "Chapter III, Sections 1, 2 and 3": the sections, not the whole chapter
            add(f"cpt_{chapter}.sct_{m['sn']}")
        elif m["article"]:
            kind = "article"
            article = _article_path(m["an"], m["asub"], known)
            add(article)
        elif m["points"]:
            if not article:
                left.append(m[0])
                continue
            kind = "point"
            base = article if ".pnt_" not in article else article.rsplit(".pnt_", 1)[0]
            article = f"{base}.pnt_{m['pn'][1:-1]}"
            if out and out[-1] == base:
                out.pop()  # "Article 5(1), first subparagraph, points (ba) and (bb)": the points only
            add(article)
        elif g == "paren":
            lab = m[0][1:-1]
            if kind == "point" and article:
                add(f"{article.rsplit('.pnt_', 1)[0]}.pnt_{lab}")
            elif kind in ("article", "paragraph") and article and lab[:1].isdigit():
                kind = "paragraph"
                add(_article_path(article.split(".")[0][4:], f"({lab})", known))
            else:
                left.append(m[0])
        elif g == "roman" and kind == "chapter":
            chapter = m[0]
            add(f"cpt_{chapter}")
        elif m["num"] and kind in ("article", "paragraph"):
            kind = "article"
            article = _article_path(m["num"], m["nsub"] or "", known)
            add(article)
        elif m["num"] and kind == "section" and chapter:
            add(f"cpt_{chapter}.sct_{m['num']}")
        elif g == "to":
            pending_to = bool(out)
        elif g in ("sep", "subpar"):
            continue
        elif m[0].lower() not in _FILLER:
            left.append(m[0])
    return out, " ".join(left)


def _range(first: str, last: str, known: Mapping[str, str] | None) -> list[str]:
    """'art_102' to 'art_110' -> every article between, in the act's order (inserted 102a included)."""
    if known is None or first not in known or last not in known:
        return _numeric_range(first, last)
    ids = list(known)
    i, j = ids.index(first), ids.index(last)
    parent = known[first]
    return [u for u in ids[i:j + 1] if known[u] == parent]


def _numeric_range(first: str, last: str) -> list[str]:
    a, b = re.match(r"(.*_)(\d+)$", first), re.match(r"(.*_)(\d+)$", last)
    if not (a and b and a[1] == b[1]):
        return [first, last]
    return [f"{a[1]}{n}" for n in range(int(a[2]), int(b[2]) + 1)]


# ---------------------------------------------------------------------------
# Reading the final provisions
# ---------------------------------------------------------------------------

_APPLY = re.compile(r"\bshall (?:apply|be applicable|cease to apply)\b", re.I)
_WHEN = re.compile(r"^\s*(?P<when>from|as from|until|with effect from)\b\s*:?", re.I)
_DEFAULT = re.compile(r"^(?:it|this (?:regulation|directive|decision))$", re.I)
_LABEL = re.compile(r"^\s*(?:\(\w+\)|\d+\.)\s*")
_LEAD_WORDS = re.compile(r"^(?:however|nevertheless|and|or|but)\b[,:]?\s*", re.I)
_EXCEPT = re.compile(r",?\s*with the exception of\s+", re.I)
_CLAUSES = re.compile(r"(?<=[.;:])\s+")


def _final_articles(units: Sequence[Unit]) -> list[Unit]:
    """The articles that set the act's dates: titled 'Entry into force…' / '…application', else the last
    article that says 'shall enter into force on'."""
    arts = [u for u in units if u.kind == "article"]
    titled = [a for a in arts if re.search(r"entry into force|^\s*(?:\w+ )?application\b",
                                           a.title.split("—", 1)[-1], re.I)
              and ("enter into force" in a.text or _APPLY.search(a.text))]
    if titled:
        return titled
    last = [a for a in arts if "shall enter into force on" in a.text]
    return last[-1:]


def _setter(final: Sequence[Unit], words: str) -> Unit | None:
    """The deepest unit of the final article(s) whose text holds `words`."""
    words = re.sub(r"\s+", " ", words).strip(" ;.,:")
    best: Unit | None = None
    for u in final:
        if words and words in re.sub(r"\s+", " ", u.text):
            if best is None or u.unit.count(".") > best.unit.count("."):
                best = u
    return best


def _clean_scope(text: str) -> str:
    text = _LABEL.sub("", text.strip())
    return _LEAD_WORDS.sub("", text).strip(" ,;")


def read_dates(units: Sequence[Unit], published: str) -> ActDates:
    """The dates an act sets itself, from its final article(s); `published` is its OJ publication date."""
    if not units:
        return ActDates(Dated(None, None, "no units"), Dated(None, None, "no units"))
    act, version = units[0].act, units[0].version
    arts = [u for u in units if u.kind == "article"]
    heads = _final_articles(units)
    final = [u for u in units if u.unit.split(".")[0] in {h.unit for h in heads}]
    known = {u.unit: (u.parent or "") for u in units}

    def ref(u: Unit | None) -> CitationRef | None:
        return CitationRef(act, version, u.unit) if u is not None else None

    eif_date, eif_said = entry_into_force([a.text for a in heads] + [a.text for a in reversed(arts)], published)
    eif = Dated(eif_date, ref(_setter(final, eif_said) or _setter(arts, eif_said)) if eif_date else None, eif_said)
    general: Dated | None = None
    rules: list[Rule] = []
    unread: list[tuple[str, str]] = []
    cases: list[Dated] | None = None  # dates of a "shall apply from:" rule still being read
    cases_rule: tuple[list[str], list[str], str] | None = None

    def close_cases() -> None:
        nonlocal cases, cases_rule
        if cases_rule is not None and cases:
            rules.append(Rule(tuple(cases_rule[0]), tuple(cases), tuple(cases_rule[1]), unresolved=cases_rule[2]))
        cases, cases_rule = None, None

    for head in heads:
        for sentence in _CLAUSES.split(head.text):
            sentence = sentence.strip()
            if not sentence or "enter into force" in sentence and not _APPLY.search(sentence):
                continue
            if cases is not None and (d := _first_date(sentence)) and re.match(
                    r"^(?:and\s+|or\s+)?\([ivx]+\)", sentence):
                cond = sentence[d[2]:].strip(" ;.,")
                sentence = _LEAD_WORDS.sub("", sentence)
                cases.append(Dated(d[0], ref(_setter(final, sentence)), sentence.strip(" ;"), cond))
                continue
            if cases is not None and cases and _LABEL.match(sentence) and not _APPLY.search(sentence):
                last = cases[-1]
                cases[-1] = Dated(last.date, last.set_by, last.said, f"{last.condition} {sentence}".strip())
                continue
            close_cases()
            matches = list(_APPLY.finditer(sentence))
            if not matches:
                if re.search(r"\bappl(?:y|ies|ication)\b", sentence, re.I) and not re.match(
                        r"^(?:however|nevertheless)[:,]?$", sentence, re.I):
                    unread.append((head.unit, sentence))
                continue
            start = 0
            for k, m in enumerate(matches):
                end = matches[k + 1].start() if k + 1 < len(matches) else len(sentence)
                scope_text = sentence[start:m.start()]
                rest = sentence[m.end():end]
                start = end
                # the next clause's scope lies at the end of this clause's rest: cut it at "and <scope>"
                if k + 1 < len(matches):
                    cut = re.search(r"(?:,\s*|\s+)(?:and\s+)?(?=(?:with the exception of|Articles?|Chapters?|"
                                    r"Sections?|points?)\b[^;]*$)", rest)
                    if cut:
                        start = m.end() + cut.start()
                        rest = rest[:cut.start()]
                setter = _setter(final, sentence[m.start():m.end() + len(rest)]) or _setter(final, sentence)
                rule_ref = ref(setter) or ref(head)
                raw_scope = _clean_scope(scope_text)
                own_exception = re.match(r"^with the exception of\s+(?P<s>.*?)\s*,?\s*which$", raw_scope, re.I)
                if own_exception:
                    scope_words, except_words = own_exception["s"], ""
                elif _EXCEPT.search(raw_scope):
                    scope_words, except_words = _EXCEPT.split(raw_scope, maxsplit=1)
                else:
                    scope_words, except_words = raw_scope, ""
                w = _WHEN.match(rest)
                d = _first_date(rest) if w else None
                tail = rest[d[2]:] if d else rest
                tail_except = _EXCEPT.search(tail)
                if tail_except:
                    except_words = (except_words + ", " if except_words else "") + tail[tail_except.end():]
                    tail = tail[:tail_except.start()]
                condition = tail.strip(" ;.,:")
                excepted = _scope(except_words, known)[0] if except_words else []
                said = f"{scope_words} {m[0]}{rest}".strip(" ;")
                if _DEFAULT.match(scope_words):
                    if w and d and w["when"].lower() != "until":
                        general = Dated(d[0], rule_ref, said)
                    else:
                        unread.append((head.unit, sentence))
                    continue
                scope, left = _scope(scope_words, known)
                if own_exception and rules:
                    prev = rules[-1]
                    rules[-1] = Rule(prev.scope, prev.dates, prev.excepted + tuple(scope), prev.until, prev.unresolved)
                if not scope:
                    unread.append((head.unit, sentence))
                    continue
                if w and not d and rest.rstrip().endswith(":"):
                    cases, cases_rule = [], (scope, excepted, left)
                    continue
                if w and d:
                    until = w["when"].lower() == "until"
                    rules.append(Rule(tuple(scope), (Dated(d[0], rule_ref, said, condition),), tuple(excepted),
                                      until, left))
                elif re.match(r"^\s*(?:to|in relation to|only)\b", rest):
                    # "Chapter IV shall apply to contracts concluded after …": a condition, no date of its own
                    rules.append(Rule(tuple(scope), (Dated(None, rule_ref, said, rest.strip(" ;.,")),),
                                      tuple(excepted), False, left))
                else:
                    unread.append((head.unit, sentence))
        close_cases()
    if general is None:
        general = Dated(eif.date, eif.set_by,
                        "no date of application is set: the act applies from its entry into force"
                        if eif.date else eif.said)
    return ActDates(eif, general, tuple(rules), heads[-1].unit if heads else None, tuple(unread))


# ---------------------------------------------------------------------------
# Which rule dates which unit
# ---------------------------------------------------------------------------


def _covers(item: str, unit: str, division: str | None) -> int:
    """How specifically `item` (a unit id or a division) covers `unit`: 0 = not at all."""
    if item.startswith("cpt_"):
        if division is None:
            return 0
        return item.count(".") + 1 if division == item or division.startswith(item + ".") else 0
    if unit == item or unit.startswith(item + "."):
        return 10 + item.count(".")
    return 0


def _division(unit: str, divisions: Mapping[str, str]) -> str | None:
    art = unit.split(".")[0]
    if art in divisions:
        return divisions[art]
    base = re.match(r"^(art_\d+)[a-z]+$", art)  # an inserted Article 4a lies in the division of Article 4
    return divisions.get(base[1]) if base else None


def unit_dates(units: Sequence[Unit], dates: ActDates, divisions: Mapping[str, str]) -> dict[str, UnitDates]:
    """Per unit id: in force from (the act's entry into force), applies from (the most specific rule
    that covers it, else the general date), applies until (a rule that ends it)."""
    has_divisions = any(i.startswith("cpt_") for r in dates.rules for i in r.scope + r.excepted)
    final = dates.final
    out: dict[str, UnitDates] = {}
    for u in units:
        art = u.unit.split(".")[0]
        div = _division(u.unit, divisions)
        if final is not None and art == final:
            # the provisions on entry into force and application take effect when the act does
            out[u.unit] = UnitDates(dates.entry_into_force, (Dated(
                dates.entry_into_force.date, dates.entry_into_force.set_by,
                "the act's provisions on its entry into force and application apply from its entry into force"),))
            continue
        if u.kind == "recital":
            out[u.unit] = UnitDates(dates.entry_into_force, (Dated(
                None, None, "a recital states the act's reasons; it has no date of application of its own"),))
            continue
        best, best_rank = [dates.applies_from], 0
        until: Dated | None = None
        notes: list[Dated] = []
        unknown_division = has_divisions and u.kind != "recital" and art.startswith("art_") and div is None
        for r in dates.rules:
            rank = max((_covers(i, u.unit, div) for i in r.scope), default=0)
            if not rank or any(_covers(i, u.unit, div) for i in r.excepted):
                continue
            if r.until:
                until = r.dates[0]
            elif all(d.date is None for d in r.dates):
                notes.extend(r.dates)
            elif len(r.dates) == 1 and r.dates[0].condition and not re.match(r"^\W*$", r.dates[0].condition):
                notes.append(r.dates[0])  # one case only ("from … to contracts concluded before …"): an addition
            elif rank >= best_rank:
                best, best_rank = list(r.dates), rank
        if u.unit.startswith("anx_"):
            # "(i) 2 December 2027 as regards AI systems classified as high-risk pursuant to … Annex III": the
            # obligations a rule ties to this annex apply from that date
            annex = u.unit.split(".")[0][4:]
            notes.extend(d for r in dates.rules for d in r.dates
                         if d.date and re.search(rf"\bAnnex {annex}\b", d.condition))
        if unknown_division and best_rank < 10:
            best = [Dated(None, None, f"{art} lies in no chapter or section this lexcite could read, and the "
                                      "act's application rules name chapters")]
        best.sort(key=lambda d: d.date or "9999")
        out[u.unit] = UnitDates(dates.entry_into_force, tuple(best), until, tuple(notes))
    return out


def dates_of(units: Sequence[Unit], published: str, divisions: Mapping[str, str]) -> dict[str, UnitDates]:
    """`unit_dates` of `read_dates`: the dates of every unit of one parsed text."""
    return unit_dates(units, read_dates(units, published), divisions)


def later(a: Dated, b: Dated) -> Dated:
    """The later of two dates (an amendment applies neither before it is in force nor before its rule)."""
    if a.date is None:
        return a
    if b.date is None:
        return b
    return b if b.date > a.date else a


def article_divisions(root: etree._Element) -> tuple[tuple[str, str], ...]:
    """(article id, deepest chapter/section id) for each article, from ELI ids of OJ and consolidated
    CONVEX markup (`div#cpt_III.sct_4` > `div#art_26`); quoted articles of amending acts are left out."""
    out: dict[str, str] = {}
    for div in root.iter("div"):
        aid = div.get("id") or ""
        if not re.match(r"^art_\d+[a-z]*$", aid):
            continue
        for anc in div.iterancestors("div"):
            did = anc.get("id") or ""
            if re.match(rf"^cpt_{_ROMAN}(?:\.sct_\d+)?$", did):
                out.setdefault(aid, did)
                break
            if re.match(r"^art_", did):
                break  # an article quoted inside another (an amending act's new text)
    return tuple(out.items())


def formex_divisions(articles: Iterable[etree._Element]) -> tuple[tuple[str, str], ...]:
    """(article id, chapter/section id) from Formex: each `<ARTICLE>` inside `<DIVISION>`s whose `TITLE/TI`
    reads "CHAPTER III" / "SECTION 4"."""
    out: dict[str, str] = {}
    for art in articles:
        head = " ".join(art.findtext("TI.ART", "").split())
        m = re.search(r"Article\s+(\d+[a-z]*)", head)
        number = m[1] if m else (art.get("IDENTIFIER") or "").lstrip("0")
        path: list[str] = []
        for div in art.iterancestors("DIVISION"):
            title = " ".join("".join(div.find("TITLE/TI").itertext()).split()) if div.find("TITLE/TI") is not None \
                else ""
            if (c := re.match(rf"^CHAPTER\s+({_ROMAN})\b", title, re.I)):
                path.insert(0, f"cpt_{c[1].upper()}")
            elif (sec := re.match(r"^SECTION\s+(\d+)\b", title, re.I)):
                path.insert(0, f"sct_{sec[1]}")
        if number and path and path[0].startswith("cpt_"):
            out.setdefault(f"art_{number}", ".".join(path[:2]))
    return tuple(out.items())


def divisions_from_file(path: str | None, sha256: str) -> tuple[tuple[str, str], ...]:
    """`article_divisions` of a stored version's raw file, if it is still there and unchanged; else none."""
    if not path or not Path(path).is_file():
        return ()
    data = Path(path).read_bytes()
    if hashlib.sha256(data).hexdigest() != sha256 or b"<" not in data[:4096]:
        return ()
    try:
        return article_divisions(read_html(data, Path(path)))
    except LexciteError:  # not (X)HTML: a Formex file has no ELI divisions
        return ()


def amended(dates: UnitDates, in_force: Dated) -> UnitDates:
    """The dates of a text an amending act enacted: in force from that act's entry into force (`in_force`),
    applying from the later of that and what the application rules set; the former text applied until then."""
    applies = tuple(later(in_force, d) for d in dates.applies_from)
    first = min(applies, key=lambda d: d.date or "0000")
    return UnitDates(in_force, applies, dates.applies_until, dates.notes, first if first.date else None)
