"""Provision references as people write them, read into unit ids; acts by the names people use.

One home for reading a written reference — "Art. 6(2)", "Article 83(5) GDPR", "point (c) of Article 5(1)",
"Annex III point 4(a)", "articolo 50, paragrafo 2", "art_6.par_2" — so that `show`, `--act`, and the
retrieval of provisions a question names all read them the same way.

A written reference does not always say which level it means: "Article 3(14)" of the AI Act is point 14
of an article without numbered paragraphs (`art_3.pnt_14`), while "Article 6(2)" is a paragraph. So a
`Reference` gives its `candidates`, most literal first, and `resolve` picks the first the act holds.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from lexcite.errors import UnreadableReference
from lexcite.values import act_numbers

__all__ = ["Reference", "find_references", "without_references", "parse_reference", "resolve", "suggest", "ActNames",
           "short_title", "short_forms", "bare_names", "name_core", "unit_head", "self_and_ancestors", "provision_of",
           "heading_of"]

_NO = r"\d+[a-z]{0,2}"
_ROMAN = r"[IVXLC]+"
_PNT = r"[a-z]{1,3}|[ivx]{1,5}|\d+[a-z]?"
# words for article / paragraph / point / annex / recital in the languages the corpus holds
_ART_W = r"(?:articles?|arts?\.?|articolo|articoli|artikel|artículo|art\.)"
_PAR_W = r"(?:paragraphs?|paras?\.?|par\.|paragrafo|paragraphe|absatz|abs\.|apartado)"
_PNT_W = r"(?:points?|pts?\.?|punto|lettera|buchstabe|letra|point)"
_SUB_W = r"(?:(?:first|second|third|fourth|fifth|sixth|last)\s+)?subparagraph"
_ANX_W = r"(?:annex(?:es)?|allegato|anhang|anexo|annexe)"
_RCT_W = r"(?:recitals?|considerando|erwägungsgrund|considérant)"

# the parts of an article reference that follow its number: "(1)", "(c)", ", paragraph 2", ", point (c)"
_ART_TAIL = (
    rf"(?:\s*\((?P<par>\d+[a-z]?)\))?"
    rf"(?:\s*\((?P<pnt>{_PNT})\))?"
    rf"(?:\s*\((?P<sub>[ivx]{{1,5}})\))?"
    rf"(?:\s*,?\s*{_SUB_W})?"
    rf"(?:\s*,?\s*{_PAR_W}\s*(?P<par2>\d+[a-z]?))?"
    rf"(?:\s*,?\s*{_SUB_W})?"
    rf"(?:\s*,?\s*{_PNT_W}\s*\(?(?P<pnt2>{_PNT})\)?)?"
)
# "point (c) of Article 5(1)", "paragraph 2 of Article 6": the inner part written first
_LEAD = (
    rf"(?:(?:{_PNT_W}\s*\(?(?P<lpnt>{_PNT})\)?\s*(?:,\s*|\s+)(?:of\s+)?(?:the\s+)?)"
    rf"|(?:(?:the\s+)?{_SUB_W}\s+of\s+)"
    rf"|(?:{_PAR_W}\s*(?P<lpar>\d+[a-z]?)\s+(?:of\s+)?))?"
)
_ARTICLE = re.compile(rf"(?<![\w.]){_LEAD}{_ART_W}\s*(?P<art>{_NO})(?![\w/]){_ART_TAIL}", re.I)
_ANNEX = re.compile(
    rf"(?<![\w.])(?:{_PNT_W}\s*(?P<lpnt>\d+[a-z]?)(?:\s*\((?P<lsub>[a-z]{{1,3}})\))?\s+of\s+(?:the\s+)?)?"
    rf"{_ANX_W}\s+(?P<anx>{_ROMAN})\b"
    rf"(?:\s*,?\s*(?:section|sezione|abschnitt)\s+(?P<sct>[A-Z0-9]+)\b)?"
    rf"(?:\s*,?\s*{_PNT_W}\s*\(?(?P<pnt>\d+[a-z]?)\)?(?:\s*\((?P<sub>[a-z]{{1,3}})\))?)?",
    re.I,
)
_RECITAL = re.compile(rf"(?<![\w.]){_RCT_W}\s*\(?(?P<rct>\d+)\)?", re.I)
_UNIT_ID = re.compile(r"(?<![\w.])(?P<id>(?:rct|art|anx)_[0-9A-Za-z]+(?:\.(?:par|pnt|sct|sub)_[0-9A-Za-z]+)*)(?![\w.])")
# an act named right after a reference: "of Regulation (EU) 2016/679", "of the GDPR", "AI Act", "(EU) 2016/679"
_ACT_AFTER = re.compile(
    r"\s*,?\s*(?:of\s+|in\s+|under\s+)?(?:the\s+)?(?:EU\s+)?(?P<act>"
    r"(?:Regulation|Directive|Decision|Implementing Regulation|Delegated Regulation)\s+(?:\((?:EU|EC|EEC)\)\s*)?"
    r"(?:No\s+)?\d{2,4}/\d+(?:/(?:EU|EC|EEC))?"
    r"|\((?:EU|EC)\)\s*(?:No\s+)?\d{2,4}/\d+"
    r"|\d{4}/\d+(?:/(?:EU|EC|EEC))?"
    r"|[0-9][0-9]{4}[A-Z]{1,2}[0-9]{4}"
    r"|(?:[A-Z][\w-]*\s+){0,5}(?:Act|Regulation|Directive)\b"
    r"|[A-Z][A-Za-z]{1,6}(?![a-z]))"
)
# an act named right before a reference: "GDPR Article 17", "the AI Act's Article 6"
_ACT_BEFORE = re.compile(r"(?P<act>(?:[A-Z][\w-]*\s+){0,4}(?:Act|Regulation|Directive)|[A-Z]{2,6})(?:['’]s)?\s*$")
# "Articles 8 and 9", "Articles 102 to 110", "Article 6(1) and (2)"
_MORE_ARTICLES = re.compile(rf"\s*(?:,|and|or|to|-|–)\s*(?:{_ART_W}\s*)?(?P<art>{_NO})(?![\w(/])", re.I)
_MORE_PARS = re.compile(r"\s*(?:,|and|or|to)\s*\((?P<par>\d+[a-z]?)\)")
_NOT_ACTS = frozenset({"EU", "I", "A", "THE", "AND", "OR", "OF", "IN"})


@dataclass(frozen=True)
class Reference:
    """One provision reference as written: `unit` is the most literal id ("art_3.par_14"), `candidates`
    every id it may mean in order, `act` the act named beside it as written ("GDPR", "2016/679"), if any."""

    unit: str
    candidates: tuple[str, ...]
    act: str | None = None
    text: str = ""
    start: int = 0
    end: int = 0

    @property
    def provision(self) -> str:
        """The article, annex or recital the reference lies in: 'art_5.par_1.pnt_c' -> 'art_5'."""
        return provision_of(self.unit)


def _article_candidates(art: str, par: str | None, pnt: str | None, sub: str | None) -> tuple[str, ...]:
    base = f"art_{art.lower()}"
    tail = [f"pnt_{p.lower()}" for p in (pnt, sub) if p]
    if not par:
        return (".".join([base, *tail]),)
    # "Article 3(14)" may be point 14 of an article without paragraphs
    as_par = ".".join([base, f"par_{par}", *tail])
    as_pnt = ".".join([base, f"pnt_{par}", *tail])
    return (as_par, as_pnt)


def _act_after(text: str, end: int) -> tuple[str | None, int]:
    m = _ACT_AFTER.match(text, end)
    if not m:
        return None, end
    act = m["act"].strip()
    if act.upper() in _NOT_ACTS or (act.isalpha() and act.istitle() and len(act) < 4):
        return None, end
    return act, m.end()


def _act_before(text: str, start: int) -> str | None:
    m = _ACT_BEFORE.search(text[:start])
    if not m or m["act"].upper() in _NOT_ACTS:
        return None
    return m["act"].strip()


def find_references(text: str) -> list[Reference]:
    """Every provision reference in `text`, in text order; overlapping readings keep the longest."""
    found: list[Reference] = []
    for m in _ARTICLE.finditer(text):
        par = m["par"] or m["par2"] or m["lpar"]
        pnt = m["pnt"] or m["pnt2"] or m["lpnt"]
        sub = m["sub"] if (m["pnt"] or m["pnt2"]) else None
        if m["lpnt"] and (m["pnt"] or m["pnt2"]):  # "point (a) of Article 5(1)(h)": the lead is the sub-point
            sub = m["lpnt"]
            pnt = m["pnt"] or m["pnt2"]
        listed = [(m["art"], par, m.start(), m.end())]
        pos = m.end()
        while more := (_MORE_ARTICLES.match(text, pos) if m.group().lower().startswith(("articles", "articoli"))
                       else None) or (_MORE_PARS.match(text, pos) if par and not pnt else None):
            if "art" in more.groupdict():
                first = listed[-1][0]
                if re.search(r"\bto\b|[-–]", more.group()) and first.isdigit() and more["art"].isdigit():
                    listed += [(str(n), None, more.start(), more.end())
                               for n in range(int(first) + 1, min(int(more["art"]), int(first) + 30) + 1)]
                else:
                    listed.append((more["art"], None, more.start(), more.end()))
            else:
                listed.append((m["art"], more["par"], more.start(), more.end()))
            pos = more.end()
        act, end = _act_after(text, pos)
        act = act or _act_before(text, m.start())
        for i, (art, p, start, stop) in enumerate(listed):
            cands = _article_candidates(art, p, pnt if i == 0 else None, sub if i == 0 else None)
            found.append(Reference(cands[0], cands, act, text[start:stop].strip(" ,"), start,
                                   end if i == len(listed) - 1 else stop))
    for m in _ANNEX.finditer(text):
        parts = [f"anx_{m['anx'].upper()}"]
        if m["sct"]:
            parts.append(f"sct_{m['sct']}")
        pnt, sub = (m["pnt"], m["sub"]) if m["pnt"] else (m["lpnt"], m["lsub"])
        parts += [f"pnt_{p.lower()}" for p in (pnt, sub) if p]
        unit = ".".join(parts)
        act, end = _act_after(text, m.end())
        found.append(Reference(unit, (unit,), act or _act_before(text, m.start()), text[m.start():end].strip(),
                               m.start(), end))
    for m in _RECITAL.finditer(text):
        act, end = _act_after(text, m.end())
        unit = f"rct_{m['rct']}"
        found.append(Reference(unit, (unit,), act or _act_before(text, m.start()), text[m.start():end].strip(),
                               m.start(), end))
    for m in _UNIT_ID.finditer(text):
        unit = m["id"]
        act, end = _act_after(text, m.end())
        found.append(Reference(unit, (unit,), act or _act_before(text, m.start()), m["id"], m.start(), end))
    found.sort(key=lambda r: (r.start, -(r.end - r.start)))
    kept: list[Reference] = []
    for r in found:
        # one range ("Articles 102 to 105") gives several references over the same span: keep them all
        if kept and r.start < kept[-1].end and (r.start, r.end) != (kept[-1].start, kept[-1].end):
            continue
        kept.append(r)
    return kept


def without_references(text: str, refs: Sequence[Reference] | None = None) -> str:
    """`text` with each provision reference in it (`refs`, default `find_references(text)`) blanked out, offsets
    kept: "Art 35(3) GDPR" names a unit and its act, not a topic or a name the law must mention."""
    for r in find_references(text) if refs is None else refs:
        text = text[:r.start] + " " * (r.end - r.start) + text[r.end:]
    return text


def parse_reference(text: str) -> Reference:
    """The one reference a whole string writes ("Art. 6(2)", "article 83(5) GDPR", "GDPR art 17", "art_6.par_2");
    words left over beside it name the act. UnreadableReference (a CitationError) when the string holds no
    reference, or several."""
    refs = find_references(text)
    if not refs:
        raise UnreadableReference(f"{text!r} is not a provision reference (write e.g. 'Article 6(2)', 'Art. 5(1)(c)', "
                            "'Annex III point 4', 'recital 12' or 'art_6.par_2')")
    if len(refs) > 1:
        found = ", ".join(r.text for r in refs)
        raise UnreadableReference(f"{text!r} holds {len(refs)} references ({found}); give one")
    ref = refs[0]
    rest = (text[:ref.start] + " " + text[ref.end:]).strip(" ,;:")
    rest = re.sub(r"^(?:of|in|under)\s+(?:the\s+)?|['’]s$", "", rest, flags=re.I).strip()
    if ref.act is None and rest:
        return Reference(ref.unit, ref.candidates, rest, text.strip(), 0, len(text))
    return ref


def resolve(ref: Reference, exists: Callable[[str], bool]) -> str | None:
    """The first of the reference's candidate ids that `exists` (the act's held units), or None."""
    return next((c for c in ref.candidates if exists(c)), None)


def suggest(unit: str, held: Iterable[str], n: int = 3) -> list[str]:
    """The held unit ids nearest a wrong one, for 'did you mean ...': the same provision's units first."""
    held = list(held)
    same = [h for h in held if h.split(".", 1)[0] == unit.split(".", 1)[0]]
    near = difflib.get_close_matches(unit, same, n=n, cutoff=0.5)
    return near or difflib.get_close_matches(unit, held, n=n, cutoff=0.6)


# the short title an act's full title ends with: "(Artificial Intelligence Act)"
_SHORT_TITLE = re.compile(r"\(([A-Z][^()]*\s[^()]*)\)")
_KINDS = ("act", "directive", "regulation", "law", "laws")


def name_core(name: str) -> str:
    """A law's name without the kind of act, lower-cased: "Data Protection Regulation" -> "data protection"."""
    words = name.replace("’", "'").lower().split()
    return " ".join(words[:-1] if len(words) > 1 and words[-1] in _KINDS else words)


def short_forms(title: str) -> set[str]:
    """The names an act goes by (as `name_core`s), from the short title its full title ends with.

    "(Artificial Intelligence Act)" -> {"artificial intelligence", "ai", "aia"};
    "(General Data Protection Regulation)" -> {"general data protection", "data protection", "gdp", "gdpr", ...}.
    """
    forms: set[str] = set()
    for short in _SHORT_TITLE.findall(title):
        words = name_core(short).split()
        initials = "".join(w[0] for w in short.split() if w[0].isupper()).lower()
        forms |= {initials, initials[:len(words)]}  # "gdpr", and "gdp" / "ai" as in "GDP Regulation", "AI Act"
        # the whole name and each run of two or more of its words: "data protection", "digital omnibus"
        forms |= {" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1)
                  if j - i >= 2 or len(words) == 1}
    return forms


_JOINING = frozenset({"on", "of", "for", "and", "the", "in", "to"})


def bare_names(title: str) -> set[str]:
    """The names an act goes by without a kind of act, lower-cased: a short title that is no "... Act" or
    "... Regulation" is used as it stands, whole or by its leading words ("Digital Omnibus on AI" ->
    {"digital omnibus on ai", "digital omnibus"}); "Artificial Intelligence Act" gives none, since "artificial
    intelligence" alone names the subject, not the act. Two words at least, never ending on a joining word."""
    out: set[str] = set()
    for short in _names_in_brackets(title):
        words = short.lower().split()
        if words[-1] in _KINDS:
            continue
        out |= {" ".join(words[:j]) for j in range(2, len(words) + 1) if words[j - 1] not in _JOINING}
    return out


class ActNames:
    """The names each act of a catalog goes by: its CELEX, its number ('2016/679', 'Regulation (EU) 2016/679'),
    its short title and the usual short forms ('AI Act', 'GDPR', 'Digital Omnibus on AI')."""

    def __init__(self, acts: Iterable[tuple[str, str]]):
        self._forms: dict[str, set[str]] = {}
        self._bare: dict[str, set[str]] = {}
        for celex, title in acts:
            forms = {celex.lower()} | {n.lower() for n in act_numbers(celex)} | short_forms(title)
            self._forms[celex] = forms
            self._bare[celex] = bare_names(title)
        self._pattern: tuple[dict[str, str], re.Pattern[str] | None] | None = None

    @property
    def acts(self) -> Collection[str]:
        return self._forms.keys()

    def named_in(self, text: str) -> frozenset[str]:
        """The CELEX of the acts `text` names by name: a name with its kind ("AI Act", "Data Governance Act",
        "data protection regulation"), a short title that has no kind, as it stands ("the Digital Omnibus",
        `bare_names`), or an acronym of three letters or more written in capitals ("GDPR", "DSA"). A bare word
        ("AI", "data") names no act; a name two acts go by names neither."""
        if self._pattern is None:
            self._pattern = _name_pattern(self._forms, self._bare)
        names, pattern = self._pattern
        if pattern is None:
            return frozenset()
        return frozenset(names[name] for m in pattern.finditer(text) if (name := next(g for g in m.groups() if g)
                                                                                 .lower()) in names)

    def resolve(self, name: str) -> str | None:
        """The CELEX of the one act `name` names, or None (unknown, or more than one act goes by it)."""
        text = name.strip()
        if text in self._forms:
            return text
        number = re.search(r"(\d{2,4})/(\d+)", text)
        if number:
            key = f"{number[1]}/{number[2]}".lower()
            hits = [c for c, f in self._forms.items() if key in f]
        else:
            core = name_core(re.sub(r"^(?:the|eu)\s+", "", text, flags=re.I))
            hits = [c for c, f in self._forms.items() if core in f]
        return hits[0] if len(hits) == 1 else None

    def require(self, name: str) -> str:
        """Like `resolve`, but an unknown or ambiguous name is an UnreadableReference naming the acts held."""
        celex = self.resolve(name)
        if celex is None:
            held = ", ".join(sorted(self._forms)) or "none"
            raise UnreadableReference(f"unknown act {name!r} (the catalog holds: {held})")
        return celex


def _name_pattern(forms: Mapping[str, set[str]], bare: Mapping[str, set[str]]
                  ) -> tuple[dict[str, str], re.Pattern[str] | None]:
    by_name: dict[str, set[str]] = {}
    for celex, fs in (*forms.items(), *bare.items()):
        for f in fs:
            if len(f) >= 2:
                by_name.setdefault(f, set()).add(celex)
    names = {n: next(iter(c)) for n, c in by_name.items() if len(c) == 1}
    if not names:
        return names, None
    longest = sorted(names, key=len, reverse=True)
    kinds = "|".join(re.escape(n) for n in longest)
    pattern = rf"(?i:\b({kinds})\s+(?:act|regulation|directive)\b)"
    if plain := "|".join(re.escape(n) for n in longest if any(n in b for b in bare.values())):
        pattern += rf"|(?i:\b({plain})\b)"
    if acronyms := "|".join(re.escape(n.upper()) for n in longest if " " not in n and len(n) >= 3 and n.isalpha()):
        pattern += rf"|\b({acronyms})\b"
    return names, re.compile(pattern)


def short_title(title: str) -> str | None:
    """The short title an act's full title ends with: '... (General Data Protection Regulation)' -> that name."""
    found = _names_in_brackets(title)
    return found[-1] if found else None


def _names_in_brackets(title: str) -> list[str]:
    """The names in brackets a title holds, in order; "(Text with EEA relevance)" closes many titles (Formex keeps it
    in the title): a note, not a name."""
    return [f for f in _SHORT_TITLE.findall(title) if not f.lower().startswith("text with eea relevance")]


def heading_of(title: str) -> str:
    """The heading of a unit's provision, from its title: "Establishment ..." of "Article 65(2) — Establishment ..."."""
    return title.partition(" — ")[2]


def provision_of(unit: str) -> str:
    """The article, annex or recital a unit id lies in: 'art_6.par_2.pnt_a' -> 'art_6'."""
    return unit.split(".", 1)[0]


def unit_head(unit: str) -> str:
    """The provision's own name, without its act: 'Article 113', 'Article 6(2)', 'Annex III, point 4'."""
    head = ""
    for p in unit.split("."):
        key, _, no = p.partition("_")
        if key == "art":
            head = f"Article {no}"
        elif key == "par":
            head += f"({no})"
        elif key == "pnt":  # "Article 1, point (40)(b)": a second ", point (b)" would read as a relative reference
            head += f"({no})" if ", point (" in head else f", point ({no})"
        elif key == "anx":
            head = f"Annex {no}"
        elif key == "sct":
            head += f", Section {no}"
        elif key == "rct":
            head = f"Recital ({no})"
    return head


def self_and_ancestors(unit: str) -> list[str]:
    """A unit id and the ids of the units it lies in, innermost first: 'art_10.par_5.pnt_a' -> itself,
    'art_10.par_5', 'art_10'."""
    parts = unit.split(".")
    return [".".join(parts[:n]) for n in range(len(parts), 0, -1)]
