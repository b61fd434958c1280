"""Amending acts -> `AmendmentLink`s: which unit of which act each instruction changes, and how.

An amending act (e.g. Regulation (EU) 2026/1744, the Digital Omnibus on AI) says
"Regulation (EU) 2024/1689 is amended as follows:" and then, point by point,
"(5) Article 4 is replaced by the following: ‘Article 4 …’". Points may nest: "(7) Article 5
is amended as follows: (a) in paragraph 1, the first subparagraph, the following points are
inserted: ‘(ba) …’". This module reads those points from the OJ markup (the formula, the
quoted new text and its structure) and parses each formula into target unit ids (DESIGN ids:
`art_4`, `art_5.par_1.pnt_ba`, `anx_XIV`) and an action; the catalog stores the links.

A formula no rule knows becomes an `unparsed` link carrying its text and the reason: a
target is never guessed, and no instruction is silently dropped.

A link is read with the amending act's entry into force (`ingest/dates.py`, from its own final
article and its OJ publication date); the date each change applies from is the later of that and
the date the amended act's application rules set for the changed unit (`apply_amendments`).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from lxml import etree

from lexcite.contract import AmendmentLink, CitationRef, Unit
from lexcite.ingest._markup import classes, eurlex_link, norm_space, text_of
from lexcite.ingest.dates import ORDINALS as _ORDINALS
from lexcite.ingest.dates import entry_into_force
from lexcite.ingest.parse_oj import OPEN_QUOTES, celex_from_title, closes_quote, label_segment, parse_date

__all__ = [
    "ACTIONS",
    "Formula",
    "Quoted",
    "Instruction",
    "AmendingAct",
    "parse_formula",
    "new_unit_id",
    "entry_into_force",
    "read_amending_act",
    "is_amending_text",
    "link_counts",
]

ACTIONS = ("replaced", "inserted", "deleted", "added", "amended", "unparsed")

_CLOSE_QUOTES = "’”»\"'"
_ORD_WORD = "|".join(_ORDINALS)

# "Regulation (EU) 2024/1689 is amended as follows" (the sentence that names the target act)
_ACT_AMENDED = re.compile(
    r"^(?P<act>(?:(?:Commission |Council )?(?:Implementing |Delegated )?(?:Regulation|Directive|Decision))"
    r"\b.*?\d+/\d+(?:/[A-Z]+)?) is (?:hereby )?amended as follows$",
    re.IGNORECASE,
)
_INSERT = re.compile(
    r"^(?:in (?P<loc>.+?),? )?the following (?P<what>[a-z]+) (?:is|are) (?P<verb>inserted|added)"
    r"(?: (?P<rel>after|before) (?P<anchor>.+))?$",
    re.IGNORECASE,
)
_CHANGE = re.compile(
    r"^(?:in (?P<loc>.+?), )?(?P<obj>.+?) (?:is|are) (?P<verb>replaced by the following|deleted|amended as follows)$",
    re.IGNORECASE,
)
# Splits "Annex VIII, section B, points 7 and 9" into locators, not inside "points (a), (b) and (c)".
# "In Article 4(3) of Regulation (EC) No 300/2008, the following …": an article that is one instruction.
_SINGLE = re.compile(
    r"^in (?P<loc>.+?) (?:of|to) (?P<act>(?:Commission |Council )?(?:Implementing |Delegated )?"
    r"(?:Regulation|Directive|Decision)\b[^,]*?\d+/\d+(?:/[A-Z]+)?)(?: of the European Parliament and of the Council)?"
    r"(?: of \d+ \w+ \d{4})?,? (?P<rest>.+)$",
    re.IGNORECASE,
)
_ITEM_SPLIT = re.compile(r",\s*(?=(?:Articles?|paragraphs?|points?|[Ss]ections?|[Pp]arts?|Annex(?:es)?|the)\b)")
_LIST_SPLIT = re.compile(r"\s*,\s*|\s+and\s+")
_ARTICLE_REF = re.compile(r"^(?P<n>\d+[a-z]*)(?P<subs>(?:\((?:\d+[a-z]*|[a-z]+)\))*)$")
_PAREN = re.compile(r"\(([0-9a-z]+)\)")
_PAR_LABEL = re.compile(r"^(?P<n>\d+[a-z]*)\.(?:\s|$)")
_PAR_DIV = re.compile(r"^\d{3}[A-Z]*\.\d{3}[A-Z]*$")
_ART_HEAD = re.compile(r"^Article\s+(?P<n>\d+[a-z]*)\b", re.IGNORECASE)
_ANNEX_HEAD = re.compile(r"^Annex\s+(?P<n>[IVXLC]+)\b", re.IGNORECASE)

# "the following X is inserted": which kind of unit X is.
_WHAT = {
    "article": "article", "articles": "article",
    "paragraph": "paragraph", "paragraphs": "paragraph",
    "point": "point", "points": "point", "definition": "point", "definitions": "point",
    "subparagraph": "subparagraph", "subparagraphs": "subparagraph",
    "annex": "annex", "annexes": "annex",
    "section": "section", "sections": "section", "part": "section", "parts": "section",
}
_SEG = {"article": "art", "paragraph": "par", "point": "pnt", "annex": "anx", "section": "sct"}


# ---------------------------------------------------------------------------
# The formula parser: one instruction's wording -> targets and an action
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Formula:
    """What one drafting formula says, relative to the context its parent point set.

    action: replaced | deleted | amended (a part of a unit: heading, introductory part,
    subparagraph, or "amended as follows" followed by the full text) | inserted | added |
    context ("Article 5 is amended as follows:": sub-points follow) | act (the sentence naming
    the target act) | unparsed.
    """

    action: str
    targets: tuple[str, ...] = ()  # unit ids for replaced / deleted / amended / context
    part: str = ""  # "", "heading", "intro", "subpar_2", "subpar_add"
    what: str = ""  # inserted/added: article, paragraph, point, annex, section, subparagraph
    container: str = ""  # inserted/added: the parent id ("" = the act itself)
    act: str = ""  # action "act": the target CELEX
    reason: str = ""


class _Unknown(ValueError):
    pass


def _ordinal(word: str) -> int:
    return _ORDINALS[word.lower()]


def _list_items(text: str) -> list[str]:
    items = [x for x in _LIST_SPLIT.split(text.strip()) if x]
    m = re.fullmatch(r"(\d+) to (\d+)", text.strip())
    if m:  # "paragraphs 2 to 4"
        a, b = int(m[1]), int(m[2])
        if a < b <= a + 50:
            return [str(i) for i in range(a, b + 1)]
    return items


def _point_label(item: str) -> str:
    m = re.fullmatch(r"\(([0-9a-z]+)\)|([0-9]+[a-z]*)", item.strip())
    if not m:
        raise _Unknown(f"{item!r} is not a point number like '(a)' or '7'")
    return m[1] or m[2]


@dataclass
class _Where:
    """A path being resolved: id segments plus the parts ids cannot name."""

    segs: list[str]
    subpar: int | None = None
    unnumbered: int | None = None  # "the third paragraph" of an article without numbered paragraphs

    def article(self) -> list[str]:
        for i, s in enumerate(self.segs):
            if s.startswith("art_"):
                return self.segs[: i + 1]
        raise _Unknown("a paragraph is named but no article is in context")

    def annex(self) -> list[str]:
        for i, s in enumerate(self.segs):
            if s.startswith("anx_"):
                return self.segs[: i + 1]
        raise _Unknown("a section is named but no annex is in context")

    def id(self) -> str:
        return ".".join(self.segs)


def _apply_item(where: _Where, item: str) -> list[_Where] | str:
    """Move `where` by one locator ("Article 5(1)", "paragraph 2", "point (a)", "Section B").

    Returns the resulting paths (several for "paragraphs 2 and 3"), or a part name for
    "the heading", "the introductory part", "the second subparagraph".
    """
    item = item.strip()
    low = item.lower()
    m = re.fullmatch(r"articles? (?P<list>.+)", item, re.IGNORECASE)
    if m:
        out = []
        for ref in _list_items(m["list"]):
            a = _ARTICLE_REF.match(ref)
            if not a:
                raise _Unknown(f"{ref!r} is not an article number like '5' or '5(1)'")
            segs = [f"art_{a['n']}"]
            subs = _PAREN.findall(a["subs"])
            if subs:
                segs.append(f"par_{subs[0]}")
                segs += [f"pnt_{s}" for s in subs[1:]]
            out.append(_Where(segs))
        return out
    m = re.fullmatch(r"paragraphs? (?P<list>.+)", item, re.IGNORECASE)
    if m:
        base = where.article()
        out = []
        for n in _list_items(m["list"]):
            if not re.fullmatch(r"\d+[a-z]*", n):
                raise _Unknown(f"{n!r} is not a paragraph number")
            out.append(_Where(base + [f"par_{n}"]))
        return out
    m = re.fullmatch(r"points? (?P<list>.+)", item, re.IGNORECASE)
    if m:
        return [_Where(where.segs + [f"pnt_{_point_label(x)}"], where.subpar, where.unnumbered)
                for x in _list_items(m["list"])]
    m = re.fullmatch(rf"the ({_ORD_WORD}) subparagraph", low)
    if m:
        return f"subpar_{_ordinal(m[1])}"
    m = re.fullmatch(rf"the ({_ORD_WORD}) paragraph", low)
    if m:
        return f"unnumbered_{_ordinal(m[1])}"
    if re.fullmatch(r"the introductory (?:part|wording|words|sentence)", low):
        return "intro"
    if low in ("the heading", "the title"):
        return "heading"
    m = re.fullmatch(r"(?:sections?|parts?) (?P<n>[A-Z0-9]+)", item, re.IGNORECASE)
    if m:
        return [_Where(where.annex() + [f"sct_{m['n'].upper() if m['n'].isalpha() else m['n']}"])]
    m = re.fullmatch(r"annex (?P<n>[IVXLC]+)", item, re.IGNORECASE)
    if m:
        return [_Where([f"anx_{m['n'].upper()}"])]
    raise _Unknown(f"no rule for the locator {item!r}")


def _locate(context: _Where, loc: str | None) -> _Where:
    """Resolve "in Article 5(1), the first subparagraph" against the context."""
    where = _Where(list(context.segs), context.subpar, context.unnumbered)
    for item in _ITEM_SPLIT.split(loc) if loc else []:
        got = _apply_item(where, item)
        if isinstance(got, str):
            if got.startswith("subpar_"):
                where.subpar = int(got[7:])
            elif got.startswith("unnumbered_"):
                where.unnumbered = int(got[11:])
            else:
                raise _Unknown(f"{item!r} cannot locate a change; it is a part of a unit")
            continue
        if len(got) != 1:
            raise _Unknown(f"{item!r} names several units where one place is expected")
        where = got[0]
    return where


def _context(context: str) -> _Where:
    if not context:
        return _Where([])
    path, _, sub = context.partition("#")
    where = _Where(path.split("."))
    if sub.startswith("subpar_"):
        where.subpar = int(sub[7:])
    return where


def _clean(formula: str) -> str:
    text = norm_space(formula)
    text = re.sub(r"^\((?:\d+[a-z]*|[a-z]+)\)\s+", "", text)  # a unit text's own label "(a) "
    return text.rstrip(" :;.,")


def parse_formula(formula: str, context: str = "") -> Formula:
    """Parse one drafting formula relative to `context` (a unit id, e.g. "art_5", or "" for the act).

    >>> parse_formula("Article 4 is replaced by the following:").targets
    ('art_4',)
    >>> parse_formula("in paragraph 1, the following points are inserted:", "art_5").container
    'art_5.par_1'
    """
    text = _clean(formula)
    try:
        m = _ACT_AMENDED.match(text)
        if m:
            celex = celex_from_title(m["act"])
            if celex is None:
                raise _Unknown(f"cannot tell the CELEX number of {m['act']!r}")
            return Formula("act", act=celex)
        ctx = _context(context)
        m = _INSERT.match(text)
        if m:
            what = _WHAT.get(m["what"].lower())
            if what is None:
                raise _Unknown(f"inserting or adding a {m['what']!r} is not modelled")
            if m["rel"]:
                raise _Unknown(f"a position given as '{m['rel']} {m['anchor']}' is not modelled")
            where = _locate(ctx, m["loc"])
            if what == "article" or what == "annex":
                if where.segs:
                    raise _Unknown(f"an {what} is inserted inside {where.id()}")
                container = ""
            elif what == "paragraph":
                container = ".".join(where.article())
            elif what == "section":
                container = ".".join(where.annex())
            else:
                container = where.id()
            if what == "subparagraph" and m["verb"].lower() == "inserted":
                raise _Unknown("inserting an unnumbered subparagraph at a position inside a unit is not modelled")
            return Formula(m["verb"].lower(), what=what, container=container)
        m = _CHANGE.match(text)
        if m:
            verb = m["verb"].lower()
            items = _ITEM_SPLIT.split(m["obj"])
            where = _locate(ctx, ", ".join(filter(None, [m["loc"], *items[:-1]])) or None)
            got = _apply_item(where, items[-1])
            if isinstance(got, str):  # a part: heading, introductory part, subparagraph
                if not where.segs:
                    raise _Unknown(f"'{items[-1]}' of what? no unit is in context")
                if got.startswith("unnumbered_"):
                    if verb.startswith("amended"):
                        # "in Article 113, the third paragraph is amended as follows": the points of an
                        # article without numbered paragraphs hang from the article (DESIGN ids).
                        return Formula("context", targets=(where.id(),))
                    raise _Unknown(f"'{items[-1]}' is an unnumbered paragraph: no unit id names it")
                if got == "intro" and where.subpar not in (None, 1):
                    raise _Unknown("the introductory part of a later subparagraph is not modelled")
                if verb.startswith("amended"):
                    return Formula("context", targets=(f"{where.id()}#{got}",) if got.startswith("subpar_")
                                   else (where.id(),), part=got)
                return Formula("amended", targets=(where.id(),),
                               part=got if verb.startswith("replaced") else f"{got}_delete")
            ids = tuple(w.id() for w in got)
            if verb.startswith("replaced"):
                return Formula("replaced", targets=ids)
            if verb == "deleted":
                return Formula("deleted", targets=ids)
            if len(ids) != 1:
                raise _Unknown("several units 'amended as follows' at once")
            return Formula("context", targets=ids)
        raise _Unknown("no rule for this formula")
    except _Unknown as e:
        return Formula("unparsed", reason=str(e))
    except KeyError as e:
        return Formula("unparsed", reason=f"unknown word {e}")


def new_unit_id(formula: Formula, label: str) -> str:
    """The id of a unit that an inserted/added formula creates from its quoted label ("4a", "ba", "XIV")."""
    seg = f"{_SEG[formula.what]}_{label}"
    return f"{formula.container}.{seg}" if formula.container else seg


# ---------------------------------------------------------------------------
# Reading an amending act's OJ markup
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class Quoted:
    """One block of quoted new text: a copy of its element with the quote marks removed."""

    el: etree._Element
    kind: str  # article, paragraph, point, annex, text
    label: str | None  # "4a", "1a", "ba", "XIV"; None for unnumbered text
    text: str


@dataclass(eq=False)
class Instruction:
    """A link plus what applying it needs: the part of the unit it changes and the quoted blocks."""

    link: AmendmentLink
    part: str = ""  # "", heading, intro, subpar_N, subpar_N_delete, subpar_add, full (amended = full text)
    quoted: tuple[Quoted, ...] = ()
    what: str = ""  # inserted/added: kind of the new unit
    source_url: str = ""  # the amending unit's link (a reader opens it to see the instruction)


@dataclass
class AmendingAct:
    act: str
    version: str
    language: str
    published: str
    applies_from: str | None
    applies_from_said: str  # the sentence it was read from, or why it is unknown
    instructions: list[Instruction] = field(default_factory=list)

    @property
    def links(self) -> list[AmendmentLink]:
        return [i.link for i in self.instructions]

    def targets(self) -> list[str]:
        return sorted({i.link.target_act for i in self.instructions if i.link.target_act})


def _elements(el: etree._Element) -> list[etree._Element]:
    return [c for c in el if isinstance(c.tag, str)]


def _in_table_cell(el: etree._Element) -> bool:
    return any(a.tag == "td" for a in el.iterancestors())


def _own_articles(root: etree._Element) -> list[etree._Element]:
    divs = root.xpath("//div[starts-with(@id, 'art_')]")
    return [d for d in divs if "eli-subdivision" in classes(d) and not _in_table_cell(d)
            and not any((a.get("id") or "").startswith("art_") for a in d.iterancestors("div"))]


def _single_row(table: etree._Element) -> tuple[str, etree._Element] | None:
    rows = table.xpath("./tr | ./tbody/tr")
    if len(rows) != 1:
        return None
    cells = [c for c in rows[0] if isinstance(c.tag, str) and c.tag in ("td", "th")]
    if len(cells) < 2 or any(text_of(c) for c in cells[:-2]):
        return None
    return text_of(cells[-2]), cells[-1]


def _text_nodes(el: etree._Element) -> Iterator[tuple[etree._Element, str]]:
    """(element, 'text'|'tail') in document order, for the text inside `el` (not its own tail)."""
    yield el, "text"
    for child in el:
        yield from _text_nodes(child)
        yield child, "tail"


def _strip_quote(el: etree._Element, *, opening: bool, closing: bool) -> etree._Element:
    """A copy of `el` without the opening quote mark at its start and/or the closing one at its end."""
    el = copy.deepcopy(el)
    el.tail = None
    nodes = [(e, w) for e, w in _text_nodes(el) if (getattr(e, w) or "").strip()]
    if opening and nodes:
        e, w = nodes[0]
        s = getattr(e, w)
        stripped = s.lstrip()
        if stripped[:1] in OPEN_QUOTES:
            setattr(e, w, s[: len(s) - len(stripped)] + stripped[1:])
    if closing and nodes:
        e, w = nodes[-1]
        s = getattr(e, w)
        m = re.search(rf"[{_CLOSE_QUOTES}](?P<after>[\s.;,]*)$", s)
        if m:
            # "…objectives.’" -> "…objectives."; "…Article 29.’." -> "…Article 29." (the final "." ends the point)
            setattr(e, w, s[: m.start()])
    return el


def _classify(el: etree._Element) -> Quoted:
    text = text_of(el)
    if el.tag == "table":
        row = _single_row(el)
        if row is not None:
            label = label_segment(row[0].lstrip(OPEN_QUOTES))
            if label is not None:
                return Quoted(el, "point", label, text)
    heads = el.xpath(".//p[contains(concat(' ', @class, ' '), ' oj-ti-art ')]")
    if el.tag == "div" and heads:
        m = _ART_HEAD.match(text_of(heads[0]).lstrip(OPEN_QUOTES))
        if m:
            return Quoted(el, "article", m["n"], text)
    heads = el.xpath(".//p[contains(concat(' ', @class, ' '), ' oj-doc-ti ')]")
    if heads:
        m = _ANNEX_HEAD.match(text_of(heads[0]).lstrip(OPEN_QUOTES))
        if m:
            return Quoted(el, "annex", m["n"].upper(), text)
    m = _PAR_LABEL.match(text.lstrip(OPEN_QUOTES))
    if el.tag == "div" and (_PAR_DIV.match(el.get("id") or "") or m):
        return Quoted(el, "paragraph", m["n"] if m else None, text)
    if el.tag == "p" and m:
        return Quoted(el, "paragraph", m["n"], text)
    return Quoted(el, "text", None, text)


@dataclass
class _Cell:
    formula: str
    quoted: list[etree._Element]
    subs: list[tuple[str, etree._Element]]  # (label, content cell) of sub-instructions
    stray: list[str]  # text that is neither formula, quotation, separator nor footnote


def _read_cell(cell: etree._Element) -> _Cell:
    kids = _elements(cell)
    formula, rest = "", kids
    if kids and kids[0].tag == "p" and text_of(kids[0])[:1] not in OPEN_QUOTES:
        formula, rest = text_of(kids[0]), kids[1:]
    quoted: list[etree._Element] = []
    subs: list[tuple[str, etree._Element]] = []
    stray: list[str] = []
    inside = False
    for el in rest:
        if "oj-note" in classes(el):
            continue  # a footnote of the quoted text, not part of it
        text = text_of(el)
        row = _single_row(el) if el.tag == "table" else None
        starts = text[:1] in OPEN_QUOTES or (row is not None and row[0][:1] in OPEN_QUOTES)
        if inside or starts:
            quoted.append(el)
            inside = not closes_quote(text)
            continue
        if not text.strip(" ;.,"):
            continue  # ";" between points
        if row is not None and label_segment(row[0]) is not None:
            subs.append((label_segment(row[0]) or "", row[1]))
            continue
        stray.append(text)
    return _Cell(formula, quoted, subs, stray)


def _quoted_blocks(els: list[etree._Element]) -> list[Quoted]:
    """The quoted elements as classified blocks: the opening quote mark off the first, the closing off the last."""
    return [_classify(_strip_quote(el, opening=i == 0, closing=i == len(els) - 1)) for i, el in enumerate(els)]


class _Reader:
    def __init__(self, act: str, version: str, language: str, applies_from: str | None, why_no_date: str,
                 urls: dict[str, str]):
        self.act, self.version, self.language = act, version, language
        self.applies_from, self.why_no_date = applies_from, why_no_date
        self.urls = urls
        self.out: list[Instruction] = []

    def ref(self, path: list[str]) -> tuple[CitationRef, str]:
        """The amending unit's reference; its nearest stored ancestor when the parser did not emit it."""
        segs = list(path)
        while segs:
            uid = ".".join(segs)
            if not self.urls or uid in self.urls:
                return CitationRef(self.act, self.version, uid), self.urls.get(uid) or eurlex_link(
                    self.act, self.language, segs[0])
            segs.pop()
        uid = ".".join(path)
        return CitationRef(self.act, self.version, uid), eurlex_link(self.act, self.language, path[0])

    def emit(self, path: list[str], target_act: str, target: str | None, action: str, instruction: str,
             new_text: str = "", reason: str = "", part: str = "", quoted: Sequence[Quoted] = (),
             what: str = "") -> None:
        ref, url = self.ref(path)
        if action != "unparsed" and self.applies_from is None:
            reason = "; ".join(filter(None, [reason, f"date of application unknown: {self.why_no_date}"]))
        link = AmendmentLink(ref, target_act, target, action, self.applies_from if action != "unparsed" else None,
                             new_text, instruction, reason)
        self.out.append(Instruction(link, part, tuple(quoted), what, url))

    def unparsed(self, path: list[str], target_act: str, instruction: str, text: str, reason: str) -> None:
        self.emit(path, target_act, None, "unparsed", instruction, new_text=text, reason=reason)

    def article(self, div: etree._Element) -> None:
        art = div.get("id")
        kids = _elements(div)
        body = [k for k in kids if not ({"oj-ti-art", "oj-sti-art", "eli-title"} & classes(k))]
        lead = next((k for k in body if k.tag == "p"), None)
        lead_text = text_of(lead) if lead is not None else ""
        f = parse_formula(lead_text)
        single = _SINGLE.match(_clean(lead_text))
        if f.action != "act" and single and celex_from_title(single["act"]):
            # "In Article 4(3) of Regulation (EC) No 300/2008, the following subparagraph is added:"
            # (AI Act Arts 102-107, 109, 110): one instruction, its quoted text follows in the article.
            cell = etree.Element("td")
            etree.SubElement(cell, "p").text = f"in {single['loc']}, {single['rest']}:"
            for el in body[body.index(lead) + 1:]:
                cell.append(copy.deepcopy(el))
            self.point([art], cell, celex_from_title(single["act"]) or "", "", instruction=lead_text)
            return
        if f.action != "act":
            if re.search(r"\b(?:is|are) (?:hereby )?(?:amended|replaced|inserted|deleted|added)\b", lead_text):
                said = re.search(r"(?:Regulation|Directive|Decision)[^,;:]*?\d+/\d+(?:/[A-Z]+)?", lead_text)
                target = (celex_from_title(said[0]) if said else None) or ""
                self.unparsed([art], target, lead_text, text_of(div),
                              f"article-level amending formula not recognised ({f.reason or 'no rule'})")
            return
        for el in body[body.index(lead) + 1:]:
            row = _single_row(el) if el.tag == "table" else None
            if row is None or label_segment(row[0]) is None:
                if text_of(el).strip(" ;.,"):
                    self.unparsed([art], f.act, text_of(el)[:200], text_of(el),
                                  "text between the instructions that is not a numbered point")
                continue
            self.point([art, f"pnt_{label_segment(row[0])}"], row[1], f.act, "")

    def point(self, path: list[str], cell: etree._Element, target_act: str, context: str,
              instruction: str = "") -> None:
        c = _read_cell(cell)
        f = parse_formula(c.formula, context)
        if instruction:
            c.formula = instruction
        blocks = _quoted_blocks(c.quoted)
        new_text = norm_space(" ".join(b.text for b in blocks))
        if c.stray:
            self.unparsed(path, target_act, c.formula, " ".join(c.stray),
                          "text after the instruction that is neither quoted nor a sub-point")
            return
        if f.action == "unparsed":
            self.unparsed(path, target_act, c.formula, new_text, f.reason)
            return
        if f.action == "act":
            self.unparsed(path, target_act, c.formula, new_text, "an act named inside another act's instructions")
            return
        if f.action == "context":
            ctx = f.targets[0]
            if c.subs and not blocks:
                for label, sub in c.subs:
                    self.point(path + [f"pnt_{label}"], sub, target_act, ctx)
                return
            target = ctx.partition("#")[0]
            if blocks and not c.subs and not f.part and len(blocks) == 1 and blocks[0].label == target.rsplit(
                    "_", 1)[-1]:
                # "point (14) is amended as follows:" followed by the complete point (14) and no
                # sub-instructions (Omnibus Art. 1(4)(a)): the quoted text restates the whole unit.
                self.emit(path, target_act, target, "amended", c.formula, new_text,
                          "'amended as follows' followed by the complete text of the unit, without "
                          "sub-instructions: applied as a replacement of the whole unit", "full", blocks)
                return
            self.unparsed(path, target_act, c.formula, new_text,
                          "'amended as follows' without sub-instructions and without one complete quoted unit")
            return
        if c.subs:
            self.unparsed(path, target_act, c.formula, new_text, f"sub-points under a '{f.action}' formula")
            return
        if f.action in ("replaced", "deleted") or (f.action == "amended" and f.part):
            self.change(path, target_act, c.formula, f, blocks)
        else:
            self.insert(path, target_act, c.formula, f, blocks)

    def change(self, path: list[str], target_act: str, formula: str, f: Formula, blocks: list[Quoted]) -> None:
        if f.action == "deleted" or f.part.endswith("_delete"):
            if blocks:
                self.unparsed(path, target_act, formula, " ".join(b.text for b in blocks),
                              "a deletion followed by quoted text")
                return
            for t in f.targets:
                self.emit(path, target_act, t, "amended" if f.part else "deleted", formula, part=f.part)
            return
        if not blocks:
            self.unparsed(path, target_act, formula, "", "a replacement without quoted new text")
            return
        if f.part:  # heading, introductory part, subparagraph: text only
            self.emit(path, target_act, f.targets[0], "amended", formula,
                      norm_space(" ".join(b.text for b in blocks)), part=f.part, quoted=blocks)
            return
        if len(f.targets) == 1:
            t = f.targets[0]
            label = t.rsplit(".", 1)[-1].split("_", 1)[1]
            if blocks[0].label is not None and blocks[0].label != label:
                self.unparsed(path, target_act, formula, " ".join(b.text for b in blocks),
                              f"the quoted text is numbered {blocks[0].label!r}, the formula names {label!r}")
                return
            self.emit(path, target_act, t, "replaced", formula, norm_space(" ".join(b.text for b in blocks)),
                      quoted=blocks)
            return
        labels = [b.label for b in blocks]
        wanted = [t.rsplit(".", 1)[-1].split("_", 1)[1] for t in f.targets]
        if labels != wanted:
            self.unparsed(path, target_act, formula, " ".join(b.text for b in blocks),
                          f"the formula names {wanted} but the quoted blocks are numbered {labels}")
            return
        for t, b in zip(f.targets, blocks, strict=True):
            self.emit(path, target_act, t, "replaced", formula, b.text, quoted=[b])

    def insert(self, path: list[str], target_act: str, formula: str, f: Formula, blocks: list[Quoted]) -> None:
        text = norm_space(" ".join(b.text for b in blocks))
        if not blocks:
            self.unparsed(path, target_act, formula, "", f"nothing quoted to be {f.action}")
            return
        if f.what == "subparagraph" or (f.what == "paragraph" and all(b.kind == "text" for b in blocks)):
            # Unnumbered text appended to its container (Art. 40(2): "the following subparagraph is added").
            if not f.container:
                self.unparsed(path, target_act, formula, text, "unnumbered text added to no unit")
                return
            self.emit(path, target_act, f.container, "added", formula, text, part="subpar_add", quoted=blocks,
                      what="subparagraph")
            return
        bad = [b for b in blocks if b.kind != f.what or b.label is None]
        if bad:
            self.unparsed(path, target_act, formula, text,
                          f"the formula announces {f.what}s but quotes "
                          + ", ".join(f"{b.kind} {b.label or '(unnumbered)'}" for b in bad))
            return
        for b in blocks:
            self.emit(path, target_act, new_unit_id(f, b.label or ""), f.action, formula, b.text, quoted=[b],
                      what=f.what)


def is_amending_text(texts: Iterable[str]) -> bool:
    """Cheap test on article texts: does any say "… is amended as follows:"?"""
    return any(_ACT_AMENDED.match(_clean(t.split(":", 1)[0])) for t in texts if "amended as follows" in t[:300])


def read_amending_act(root: etree._Element, act: str, version: str, language: str,
                      units: Sequence[Unit] = ()) -> AmendingAct:
    """Every instruction of an amending act in OJ markup, in document order.

    `units` (the act's parsed units) give the amending references and their links; without
    them the references are built from the markup's numbering the same way.
    """
    published = parse_date(text_of(root.xpath("//p[contains(@class, 'oj-hd-date')]")[0])) if root.xpath(
        "//p[contains(@class, 'oj-hd-date')]") else None
    published = published or version
    articles = _own_articles(root)
    applies_from, said = entry_into_force((text_of(a) for a in reversed(articles)), published)
    reader = _Reader(act, version, language, applies_from, said, {u.unit: u.source_url for u in units})
    if language != "en":
        # The formula grammar is English; another language's instructions are listed, never guessed.
        for a in articles:
            if "amended" in text_of(a) or "gewijzigd" in text_of(a):
                reader.unparsed([a.get("id")], "", text_of(a)[:200], text_of(a),
                                f"the formula grammar reads English only (document language {language!r})")
        return AmendingAct(act, version, language, published, applies_from, said, reader.out)
    for a in articles:
        reader.article(a)
    return AmendingAct(act, version, language, published, applies_from, said, reader.out)


def link_counts(links: Iterable[AmendmentLink]) -> dict[str, int]:
    """{"parsed": n, "unparsed": m, "replaced": …}: how many links of each action."""
    counts: dict[str, int] = {"parsed": 0, "unparsed": 0}
    for link in links:
        counts["unparsed" if link.action == "unparsed" else "parsed"] += 1
        if link.action != "unparsed":
            counts[link.action] = counts.get(link.action, 0) + 1
    return counts
