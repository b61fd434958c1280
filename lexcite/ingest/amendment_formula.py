"""The wording of an amending instruction -> its target units and action (the formula grammar).

"(7) Article 5 is amended as follows: (a) in paragraph 1, the first subparagraph, the following
points are inserted:" gives targets `art_5.par_1.pnt_…` and the action `inserted`. Pure text
rules, no markup: `lexcite.ingest.amendments` reads the formulas and the quoted new text from an
amending act's OJ markup and calls `parse_formula` on each. A formula no rule knows raises, and
the reader turns it into an `unparsed` link: a target is never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lexcite.ingest._markup import norm_space
from lexcite.ingest._oj import celex_from_title
from lexcite.ingest.dates import ORDINALS as _ORDINALS

__all__ = ["ACTIONS", "ACT_AMENDED", "SINGLE_INSTRUCTION", "Formula", "clean_formula", "parse_formula", "new_unit_id",
           "opens_with_formula"]

ACTIONS = ("replaced", "inserted", "deleted", "added", "amended", "unparsed")

_ORD_WORD = "|".join(_ORDINALS)

# "Regulation (EU) 2024/1689 is amended as follows" (the sentence that names the target act)
ACT_AMENDED = re.compile(
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
SINGLE_INSTRUCTION = re.compile(
    r"^in (?P<loc>.+?) (?:of|to) (?P<act>(?:Commission |Council )?(?:Implementing |Delegated )?"
    r"(?:Regulation|Directive|Decision)\b[^,]*?\d+/\d+(?:/[A-Z]+)?)(?: of the European Parliament and of the Council)?"
    r"(?: of \d+ \w+ \d{4})?,? (?P<rest>.+)$",
    re.IGNORECASE,
)
_ITEM_SPLIT = re.compile(r",\s*(?=(?:Articles?|paragraphs?|points?|[Ss]ections?|[Pp]arts?|Annex(?:es)?|the)\b)")
_LIST_SPLIT = re.compile(r"\s*,\s*|\s+and\s+")
_ARTICLE_REF = re.compile(r"^(?P<n>\d+[a-z]*)(?P<subs>(?:\((?:\d+[a-z]*|[a-z]+)\))*)$")
_PAREN = re.compile(r"\(([0-9a-z]+)\)")

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


def clean_formula(formula: str) -> str:
    text = norm_space(formula)
    text = re.sub(r"^\((?:\d+[a-z]*|[a-z]+)\)\s+", "", text)  # a unit text's own label "(a) "
    return text.rstrip(" :;.,")


def opens_with_formula(text: str) -> bool:
    """Whether a unit's text opens with a drafting formula ("(3) in Article 2, the following paragraph is added:
    ...", "Regulation (EU) 2024/1689 is amended as follows:"): an amending instruction, not a rule of its own."""
    head = clean_formula(norm_space(text).split(":", 1)[0])
    return bool(ACT_AMENDED.match(head) or _INSERT.match(head) or _CHANGE.match(head))


def parse_formula(formula: str, context: str = "") -> Formula:
    """Parse one drafting formula relative to `context` (a unit id, e.g. "art_5", or "" for the act).

    >>> parse_formula("Article 4 is replaced by the following:").targets
    ('art_4',)
    >>> parse_formula("in paragraph 1, the following points are inserted:", "art_5").container
    'art_5.par_1'
    """
    text = clean_formula(formula)
    try:
        m = ACT_AMENDED.match(text)
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


