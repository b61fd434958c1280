"""Amending acts -> `AmendmentLink`s: which unit of which act each instruction changes, and how.

An amending act (e.g. Regulation (EU) 2026/1744, the Digital Omnibus on AI) says
"Regulation (EU) 2024/1689 is amended as follows:" and then, point by point,
"(5) Article 4 is replaced by the following: ‘Article 4 …’". Points may nest: "(7) Article 5
is amended as follows: (a) in paragraph 1, the first subparagraph, the following points are
inserted: ‘(ba) …’". This module reads those points from the OJ markup (the formula, the
quoted new text and its structure); `amendment_formula.py` parses each formula into target unit
ids (DESIGN ids: `art_4`, `art_5.par_1.pnt_ba`, `anx_XIV`) and an action; the catalog stores
the links (`Catalog.store_links`).

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
from lexcite.ingest._oj import OPEN_QUOTES, celex_from_title, closes_quote, label_segment, parse_date
from lexcite.ingest.amendment_formula import (
    ACT_AMENDED,
    ACTIONS,
    SINGLE_INSTRUCTION,
    Formula,
    clean_formula,
    new_unit_id,
    parse_formula,
)
from lexcite.ingest.dates import entry_into_force

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
    "amended_acts",
    "link_counts",
]

_CLOSE_QUOTES = "’”»\"'"
_PAR_LABEL = re.compile(r"^(?P<n>\d+[a-z]*)\.(?:\s|$)")
_PAR_DIV = re.compile(r"^\d{3}[A-Z]*\.\d{3}[A-Z]*$")
_ART_HEAD = re.compile(r"^Article\s+(?P<n>\d+[a-z]*)\b", re.IGNORECASE)
_ANNEX_HEAD = re.compile(r"^Annex\s+(?P<n>[IVXLC]+)\b", re.IGNORECASE)


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
        single = SINGLE_INSTRUCTION.match(clean_formula(lead_text))
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
    return any(ACT_AMENDED.match(clean_formula(t.split(":", 1)[0])) for t in texts if "amended as follows" in t[:300])


def amended_acts(texts: Iterable[str]) -> list[str]:
    """CELEX of each act whose "… is amended as follows:" sentence opens one of the article texts.

    Read from stored text alone, so it also serves an amending act stored from Formex, whose
    instructions are never read (2024/1183: "Regulation (EU) No 910/2014 is amended as follows:").
    """
    found = (ACT_AMENDED.match(clean_formula(t.split(":", 1)[0])) for t in texts if "amended as follows" in t[:300])
    return list(dict.fromkeys(c for m in found if m and (c := celex_from_title(m["act"]))))


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
