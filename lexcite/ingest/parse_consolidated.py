"""EUR-Lex consolidated texts (CONVEX "consleg" HTML) into normative units.

A consolidated text is a version of the base act: every unit carries the base CELEX (`32024R1689`,
sector 3) and the consolidation date as its version; the consolidated CELEX (`02024R1689-20240712`)
is the ParsedAct's `source_url` target and the units' link target.

Markup, as served by EUR-Lex (see corpus/raw/NOTES.md):

* `p.reference` "02024R1689 — NL — 12.07.2024 — 000.004" (CELEX — language — date — production
  counter); header tables after `p.hd-modifiers` list amending acts (►M1, ►M2 …, link titles give
  their CELEX) and corrigenda (►C1 …);
* body `div.eli-container` > `div#cpt_I` > `div.eli-subdivision#art_6` > `p.title-article-norm`
  "Artikel 6", `div.eli-title` > `p.stitle-article-norm`; numbered paragraphs `div.norm` >
  `span.no-parag` "1." + `div.norm.inline-element`; unnumbered subparagraphs `p.norm` siblings;
  points `div.grid-container.grid-list` > `div.grid-list-column-1` "a)" + `div.grid-list-column-2`
  (nested recursively);
* annexes `div#anx_III` > `p.title-annex-1` "BIJLAGE III", `p.title-annex-2` (subtitle),
  `p.title-gr-seq-level-1` group headings ("Afdeling A — …", "1.   Inleiding"), points either as
  grid lists or as flat hanging-indent `div[style]` > `p.norm` "1.<span> </span>text";
* change markers: `p.modref` > `a[title="32026R1744: REPLACED"]` "▼M1" opens a changed stretch that
  runs to the next marker (a `▼B` marker returns to the base act); inline `►M1 … ◄`;
* footnote calls `(<a href="#E0002"><span class="superscript">*1</span></a>)`, notes `p.footnote#E0002`.

Amending articles quote the paragraphs they insert into other acts ("“5. …”"): a label that opens a
quotation never makes a unit of this act.
"""

from __future__ import annotations

import copy
import re
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from pathlib import Path

from lxml import etree, html

from lexcite.celex import doc_kind
from lexcite.contract import ParsedAct, is_celex
from lexcite.errors import FormatNotRecognised, ParseError
from lexcite.ingest._labels import (
    POINT_WORD,
    display_label,
    heading_number,
    heading_word_case,
    is_quoted,
    iso_date,
    label_key,
    label_kind,
    numbered_heading,
    numbered_parts,
    point_id,
    section_key,
    section_parts,
)
from lexcite.ingest._markup import classes, eurlex_link, norm_space, text_of
from lexcite.ingest._units import UnitCollector
from lexcite.ingest.dates import article_divisions

__all__ = ["parse_consolidated"]

_LOOKED_FOR = ["p.title-article-norm", "p.reference", "div.eli-subdivision#art_N"]
_REFERENCE = re.compile(
    r"^(?P<celex>0\d{4}[A-Z]{1,2}\d{4})\s*[—–-]\s*(?P<lang>[A-Z]{2})\s*[—–-]\s*"
    r"(?P<d>\d{2})\.(?P<m>\d{2})\.(?P<y>\d{4})(?:\s*[—–-]\s*(?P<seq>[\d.]+))?"
)
_TITLE = re.compile(
    r"(?P<celex>3\d{4}[A-Z]{1,2}\d{4})\s*[—–-]\s*(?P<lang>[A-Z]{2})\s*[—–-]\s*"
    r"(?P<d>\d{2})\.(?P<m>\d{2})\.(?P<y>\d{4})"
)
_MARKER = re.compile(r"^\s*[►▼]\s*(?P<tag>[A-Z])\s*(?P<no>\d*)\s*$")
_BARE_MARKER = re.compile(r"►\s*(?P<label>[A-Z]\d+)")
_GLYPHS = re.compile(r"[►▼]\s*[A-Z]\d*\s*|\s*◄")
_ARROW_LABEL = re.compile(r"^\s*►?\s*(?P<tag>[A-Z])\s*(?P<no>\d*)\s*$")
_FLAT_LABEL = re.compile(r"^\(?[0-9A-Za-z]{1,4}(?:\.[0-9A-Za-z]{1,3})*[.)]$")
# "ANNEX III", "BIJLAGE", "ANHANG 2": an upper-case word and a number; subtitles are ordinary text.
_ANNEX_HEADING = re.compile(r"^[^\W\d_a-z]{4,}(?:\s+(?:[IVXLC]+|\d+))?$")


def _has(el: etree._Element, cls: str) -> bool:
    return isinstance(el.tag, str) and cls in classes(el)


def _by_class(root: etree._Element, cls: str, tag: str = "*") -> list[etree._Element]:
    return root.xpath(f'.//{tag}[contains(concat(" ", normalize-space(@class), " "), " {cls} ")]')


def _blank(el: etree._Element) -> bool:
    """Spacers (`<p><br/></p>`) and change markers (`p.modref`, `p.arrow`): never unit text."""
    if _has(el, "modref") or _has(el, "arrow"):
        return True
    return el.tag in ("p", "div") and not el.get("class") and not norm_space(el.text_content())


# ---------------------------------------------------------------------------------------------- #
# The plan: units found in the markup, before text is read


@dataclass
class _Node:
    uid: str
    kind: str
    ref: str  # what its points are "of": "Artikel 5(1)", "Bijlage I, Afdeling A"
    title: str
    parent: str | None
    anchor: str
    blocks: list[etree._Element] = field(default_factory=list)
    labels: tuple[str, ...] = ()  # point labels after `ref`: ("h)", "iii)")
    suffix: str = ""  # " — Verboden AI-praktijken": the article subject or annex subtitle
    bare: bool = False  # a section heading ("Afdeling 1") still waiting for its title line


@dataclass
class _Level:
    kind: str  # label kind: num, alpha, roman, dotted1, upper, heading kinds
    key: str
    node: _Node
    absorbs: bool  # a heading keeps the unlabelled blocks that follow it; a list item does not


_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


def _roman(s: str) -> int:
    total = 0
    for ch, nxt in zip(s, s[1:] + " ", strict=True):
        v = _ROMAN_VALUES[ch]
        total += -v if _ROMAN_VALUES.get(nxt, 0) > v else v
    return total


def _kind(key: str, stack: list[_Level]) -> str:
    """Label kind, settling 'i', 'v', 'x', 'l', 'c' (a letter after 'h'… or a roman numeral)."""
    kind = label_kind(key)
    if kind == "dotted":
        return f"dotted{key.count('.')}"
    if kind != "roman":
        return kind
    for level in reversed(stack):
        if level.kind == "alpha" and len(key) == 1 and len(level.key) == 1 and ord(level.key) + 1 == ord(key):
            return "alpha"
        if level.kind == "roman" and _roman(level.key) + 1 == _roman(key):
            return "roman"
    if key == "i" or len(key) > 1:
        return "roman"
    return "alpha"


class _Planner:
    def __init__(self, path: str | Path, language: str):
        self.path = str(path)
        self.word = POINT_WORD.get(language, "point")
        self.nodes: list[_Node] = []
        self.by_id: dict[str, _Node] = {}
        self.ids: set[str] = set()
        self.restarted = 0
        self.quoted_paragraphs = 0

    def new(self, uid: str, kind: str, ref: str, title: str, parent: str | None, anchor: str,
            blocks: list[etree._Element], labels: tuple[str, ...] = (), suffix: str = "") -> _Node:
        if uid in self.ids:
            raise ParseError(self.path, uid, "two units with the same id")
        node = _Node(uid, kind, ref, title, parent, anchor, list(blocks), labels, suffix)
        self.ids.add(uid)
        self.nodes.append(node)
        self.by_id[uid] = node
        return node

    def key(self, label: str, where: str) -> str | None:
        if is_quoted(label):
            return None
        try:
            return label_key(label)
        except ValueError as e:
            raise ParseError(self.path, where, str(e)) from None

    # -- articles ------------------------------------------------------------------------------
    def article(self, div: etree._Element) -> None:
        head = next(k for k in div if _has(k, "title-article-norm"))
        heading = norm_space(head.text_content())
        number = heading_number(heading)
        div_id = div.get("id") or ""
        eli = div_id[4:] if re.fullmatch(r"art_[0-9A-Za-z]+", div_id) else None
        if eli and number and eli.lower() != number.lower():
            raise ParseError(self.path, f"div#{div_id}", f"heading {heading!r} disagrees with the id")
        number = eli or number
        if not number:
            raise ParseError(self.path, heading or "article", "an article without a number")
        sub = next((k for k in div if _has(k, "eli-title")), None)
        stitle = norm_space(sub.text_content()) if sub is not None else ""
        suffix = f" — {stitle}" if stitle else ""
        blocks = [
            k for k in div
            if isinstance(k.tag, str) and k is not head and k is not sub and not _blank(k)
        ]
        uid = f"art_{number}"
        anchor = div_id or uid
        self.new(uid, "article", heading, heading + suffix, None, anchor, blocks, suffix=suffix)

        groups: list[tuple[str | None, list[etree._Element]]] = [(None, [])]
        for b in blocks:
            no = next((k for k in b if _has(k, "no-parag")), None)
            if no is not None:
                label = norm_space(no.text_content())
                key = self.key(label, f"{uid} paragraph {label!r}")
                if key is not None:
                    groups.append((key, [b]))
                    continue
                self.quoted_paragraphs += 1
            groups[-1][1].append(b)
        for key, group in groups:
            if key is None:
                self.sequence(group, uid)
                continue
            pid = f"{uid}.par_{key}"
            ref = f"{heading}({key})"
            self.new(pid, "paragraph", ref, ref + suffix, uid, anchor, group, suffix=suffix)
            self.sequence(group, pid)

    # -- points --------------------------------------------------------------------------------
    def sequence(self, blocks: list[etree._Element], base: str) -> None:
        """Walk sibling blocks under `base`; list items nest by label kind (flat lists) or by markup."""
        stack: list[_Level] = []
        skipping: set[str] = set()  # label kinds of a restarted list, kept as text
        for b in blocks:
            if not isinstance(b.tag, str):
                continue
            item = self._item(b)
            if item is None:
                if _blank(b):
                    continue
                heading = self._heading(b, base, stack)
                if heading:
                    continue
                # `p.list` continues the list item above it; other blocks belong to the innermost
                # heading (annex groups) or to the base unit, never to a list item.
                continues = _has(b, "list")
                for level in stack:
                    if level.absorbs or continues:
                        level.node.blocks.append(b)
                owner = next((lv.node.uid for lv in reversed(stack) if lv.absorbs or continues), base)
                inner = [k for k in b if isinstance(k.tag, str)]
                if inner:
                    self.sequence(inner, owner)
                continue
            label, body = item
            key = self.key(label, f"item {label!r} under {base}")
            if key is None:  # a dash, or a quoted point: text of the enclosing unit
                for level in stack:
                    if level.absorbs:
                        level.node.blocks.append(b)
                self.sequence(body, next((lv.node.uid for lv in reversed(stack)), base))
                continue
            kind = _kind(key, stack)
            at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].kind == kind), None)
            if at is not None:
                del stack[at:]
            parent = stack[-1].node.uid if stack else base
            uid = None if kind in skipping else self._point_id(parent, key)
            if uid is None or uid in self.ids:
                # A list that restarts its numbering in a later subparagraph (Article 43(1) of the AI
                # Act): the first list keeps the ids, this one stays text (counted for the cross-check).
                if uid is not None and key not in ("a", "i", "1", "A"):
                    raise ParseError(self.path, uid, "two units with the same id")
                skipping.add(kind)
                self.restarted += 1 + self._count_items(body)
                for level in stack:
                    if level.absorbs:
                        level.node.blocks.append(b)
                continue
            node = self._point(uid, parent, key, label, [b])
            for level in stack:
                level.node.blocks.append(b)
            stack.append(_Level(kind, key, node, absorbs=False))
            self.sequence(body, uid)

    def _count_items(self, body: list[etree._Element]) -> int:
        n = 0
        for b in body:
            for el in b.iter():
                item = self._item(el) if isinstance(el.tag, str) else None
                if item is not None and not is_quoted(item[0]) and self._safe_key(item[0]) is not None:
                    n += 1
        return n

    def _safe_key(self, label: str) -> str | None:
        try:
            return label_key(label)
        except ValueError:
            return None

    def _item(self, b: etree._Element) -> tuple[str, list[etree._Element]] | None:
        """(label, body blocks) for a grid-list item or a flat hanging-indent item."""
        if _has(b, "grid-list"):
            col1 = next((k for k in b if _has(k, "grid-list-column-1")), None)
            col2 = next((k for k in b if _has(k, "grid-list-column-2")), None)
            if col1 is None or col2 is None:
                raise ParseError(self.path, "div.grid-list", "a grid list item without its two columns")
            return norm_space(col1.text_content()), [k for k in col2 if isinstance(k.tag, str)]
        if b.tag == "div" and not b.get("class") and "margin-left" in (b.get("style") or ""):
            first = next((k for k in b if isinstance(k.tag, str)), None)
            if first is not None and first.tag == "p" and len(first) and first[0].tag == "span":
                label = norm_space(first.text or "")
                if _FLAT_LABEL.match(label) and not norm_space(first[0].text_content()):
                    rest = [k for k in b if isinstance(k.tag, str) and k is not first]
                    return label, rest
        return None

    def _heading(self, b: etree._Element, base: str, stack: list[_Level]) -> bool:
        """Annex group headings: sections (`sct_A`) and numbered groups (`pnt_1`)."""
        if not any(_has(b, f"title-gr-seq-level-{n}") for n in range(1, 7)):
            return False
        heading = norm_space(b.text_content())
        if (parts := section_parts(heading)) is not None:
            word, skey, rest = parts
            stack.clear()
            annex = self.by_id[base.split(".")[0]]
            ref = f"{annex.ref}, {word} {skey}"
            node = self.new(f"{annex.uid}.sct_{skey}", "section", ref, ref + (f" — {rest}" if rest else ""),
                            annex.uid, annex.anchor, [b], suffix=annex.suffix)
            node.bare = not rest
            stack.append(_Level("section", skey, node, absorbs=True))
            return True
        if (numbered := numbered_parts(heading)) is not None:
            nkey, rest = numbered
            kind = _kind(nkey, stack)
            at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].kind == kind), None)
            if at is not None:
                del stack[at:]
            parent = stack[-1].node.uid if stack else base
            node = self._point(self._point_id(parent, nkey), parent, nkey, nkey, [b], heading=rest)
            for level in stack:
                if level.absorbs:
                    level.node.blocks.append(b)
            stack.append(_Level(kind, nkey, node, absorbs=True))
            return True
        # An unlabelled heading: the rest of a split section heading ("Afdeling 1" / "Informatie …").
        top = next((lv for lv in reversed(stack) if lv.absorbs), None)
        if top is not None and top.node.kind == "section" and top.node.bare:
            top.node.title = f"{top.node.title} — {heading}"
            top.node.blocks.append(b)
            top.node.bare = False
            return True
        return False

    def _point(self, uid: str, parent: str, key: str, label: str, blocks: list[etree._Element],
               heading: str | None = None) -> _Node:
        up = self.by_id[parent]
        shown = display_label(label)
        labels = (shown,) if label_kind(key) == "dotted" else up.labels + (shown,)
        title = f"{up.ref}, {self.word} {''.join(labels)}" + (f" — {heading}" if heading else up.suffix)
        return self.new(uid, "point", up.ref, title, parent, up.anchor, blocks, labels, up.suffix)

    def _point_id(self, parent: str, key: str) -> str:
        uid = point_id(parent, key)
        if uid is None:
            raise ParseError(self.path, f"point {key} under {parent}", "a dotted point outside its parent")
        return uid


    # -- annexes -------------------------------------------------------------------------------
    def annex(self, div: etree._Element, index: int) -> None:
        titles = [k for k in div if _has(k, "title-annex-1") or _has(k, "title-annex-2")]
        if not titles:
            raise ParseError(self.path, f"div#{div.get('id')}", "an annex without its heading")
        heading = norm_space(titles[0].text_content())
        subtitle = " — ".join(norm_space(t.text_content()) for t in titles[1:])
        div_id = div.get("id") or ""
        eli = div_id[4:] if re.fullmatch(r"anx_[0-9A-Za-z]+", div_id) else None
        number = heading_number(heading)
        if eli and number and eli != number:
            raise ParseError(self.path, f"div#{div_id}", f"heading {heading!r} disagrees with the id")
        if not (eli or number) and len(heading.split()) > 1:
            raise ParseError(self.path, f"annex {heading!r}", "an annex heading without a number")
        number = eli or number or str(index)
        uid = f"anx_{number}"
        blocks = [
            k for k in div
            if isinstance(k.tag, str) and k not in titles and k.tag != "hr" and not _blank(k)
        ]
        ref = heading_word_case(heading)
        suffix = f" — {subtitle}" if subtitle else ""
        self.new(uid, "annex", ref, ref + suffix, None, div_id or uid, blocks, suffix=suffix)
        self.sequence(blocks, uid)


# ---------------------------------------------------------------------------------------------- #
# Metadata and markers


@dataclass
class _Meta:
    base: str
    consolidated: str
    version: str
    language: str


def _metadata(root: etree._Element, path: Path) -> _Meta | None:
    ref = _by_class(root, "reference", "p")
    m = _REFERENCE.match(norm_space(ref[0].text_content())) if ref else None
    if m:
        cons = m["celex"]
        base = "3" + cons[1:]
        return _Meta(base, f"{cons}-{m['y']}{m['m']}{m['d']}", f"{m['y']}-{m['m']}-{m['d']}", m["lang"].lower())
    t = root.find(".//title")
    m = _TITLE.search(norm_space(t.text_content())) if t is not None else None
    if m:
        base = m["celex"]
        return _Meta(base, f"0{base[1:]}-{m['y']}{m['m']}{m['d']}", f"{m['y']}-{m['m']}-{m['d']}",
                     m["lang"].lower())
    return None


def _link_celex(a: etree._Element) -> str | None:
    title = (a.get("title") or "").split(":")[0].strip()
    if is_celex(title):
        return title
    m = re.search(r"celex:([0-9A-Z()%]+)", a.get("href") or "", re.IGNORECASE)
    if m:
        celex = m[1].replace("%28", "(").replace("%29", ")")
        return celex if is_celex(celex) else None
    return None


def _header_labels(root: etree._Element, body: etree._Element | None) -> dict[str, str]:
    """The header's arrows: {"B": base, "M1": first amending act, "C1": first corrigendum, …}."""
    out: dict[str, str] = {}
    for p in _by_class(root, "arrow", "p"):
        if body is not None and any(a is body for a in p.iterancestors()):
            continue
        for a in p.iter("a"):
            m = _ARROW_LABEL.match(a.text_content())
            celex = _link_celex(a)
            if m and celex:
                out.setdefault(m["tag"] + m["no"], celex)
    return out


def _modifiers(root: etree._Element, body: etree._Element | None) -> tuple[str, ...]:
    """Amending acts (►M1, ►M2 …) named in the header; corrigenda (►C1 …) are not amending acts."""
    out: list[str] = []
    for label, celex in _header_labels(root, body).items():
        if label.startswith("M") and celex not in out:
            out.append(celex)
    return tuple(out)


def _strip_call(a: etree._Element) -> None:
    """Remove a footnote call and the parentheses printed around it: "Raad (<a>*1</a>), worden"."""
    prev = a.getprevious()
    parent = a.getparent()
    before = (prev.tail if prev is not None else parent.text) or ""
    tail = a.tail or ""
    if before.rstrip().endswith("(") and tail.lstrip().startswith(")"):
        before = before.rstrip()[:-1].rstrip()
        tail = tail.lstrip()[1:]
        if tail[:1].isalnum():
            tail = " " + tail
    if prev is not None:
        prev.tail = before
    else:
        parent.text = before
    a.tail = tail
    a.drop_tree()


# ---------------------------------------------------------------------------------------------- #
# Entry point


def parse_consolidated(
    root: html.HtmlElement,
    path: Path,
    act: str | None = None,
    version: str | None = None,
    language: str | None = None,
    binding: bool = True,
) -> ParsedAct:
    """Parse a EUR-Lex consolidated text into a ParsedAct of format "consolidated".

    The caller's tree is not modified (the parser works on a copy).
    """
    path = Path(path)
    heads = _by_class(root, "title-article-norm", "p")
    if not heads:
        raise FormatNotRecognised(path, _LOOKED_FOR, found="no p.title-article-norm heading")
    doc = copy.deepcopy(root)
    meta = _metadata(doc, path)
    if meta is None and not (act and version and language):
        raise ParseError(path, "p.reference", "no consolidated reference line; pass act=, version=, language=")
    base = meta.base if meta else ""
    cons_celex = meta.consolidated if meta else ""
    if act:
        m = re.fullmatch(r"0(?P<work>\d{4}[A-Z]{1,2}\d{4})(?:-(?P<date>\d{8}))?", act)
        # A consolidated CELEX given as the act names the base act's version (DESIGN: the unit's act
        # is the base act; the consolidated text is one version of it).
        base = f"3{m['work']}" if m else act
        cons_celex = act if m and m["date"] else (cons_celex or base)
    ver = version or meta.version
    lang = (language or meta.language).lower()
    if not iso_date(ver):
        raise ParseError(path, "version", f"version {ver!r} is not an ISO date YYYY-MM-DD")

    body = next(iter(_by_class(doc, "eli-container", "div")), None)
    scope = body if body is not None else doc
    articles = [
        d for d in scope.iter("div")
        if re.fullmatch(r"art_[0-9A-Za-z]+", d.get("id") or "") and any(_has(k, "title-article-norm") for k in d)
    ]
    if not articles:
        raise FormatNotRecognised(
            path, _LOOKED_FOR,
            found=f"{len(heads)} p.title-article-norm but no div#art_N containers (flat consolidated variant)",
        )

    # 1. Change markers and footnote calls, by document position, before the tree is edited.
    order = {el: i for i, el in enumerate(doc.iter())}
    markers: list[tuple[int, str | None]] = []  # block markers: (position, CELEX or None for the base)
    inline: list[tuple[int, str]] = []
    drop: list[etree._Element] = []
    for a in scope.iter("a"):
        m = _MARKER.match(a.text_content())
        if not m:
            continue
        celex = _link_celex(a)
        holder = a.getparent()
        if holder is not None and any(t.tag == "table" for t in holder.iterancestors()):
            continue  # the header's list of amending acts, not a marker in the text
        if holder is not None and (_has(holder, "modref") or _has(holder, "arrow")):
            markers.append((order[holder], None if celex in (None, base) or m["tag"] == "B" else celex))
            drop.append(holder)
        else:
            if celex and celex != base and m["tag"] != "B":
                inline.append((order[a], celex))
            drop.append(a)
    # Markers written as bare text ("►M1 … ◄" without a link): the header tells which act M1 is.
    labels = _header_labels(doc, body)
    for el in scope.iter():
        if not isinstance(el.tag, str):
            continue
        for text, at in ((el.text, el), (el.tail, el.getparent())):
            for m in _BARE_MARKER.finditer(text or ""):
                celex = labels.get(m["label"])
                if celex and celex != base and at is not None:
                    inline.append((order[at], celex))
    notes_by_id: dict[str, etree._Element] = {}
    for p in _by_class(doc, "footnote", "p"):
        for el in p.iter():
            if isinstance(el.tag, str) and el.get("id"):
                notes_by_id[el.get("id")] = p
    calls: list[tuple[int, str]] = []
    call_els: list[etree._Element] = []
    for a in scope.iter("a"):
        href = a.get("href") or ""
        if href.startswith("#") and href[1:] in notes_by_id and (a.get("id") or "").startswith("src."):
            calls.append((order[a], href[1:]))
            call_els.append(a)

    # 2. The plan of units.
    planner = _Planner(path, lang)
    for div in articles:
        planner.article(div)
    annexes = [d for d in scope.iter("div") if re.fullmatch(r"anx_[0-9A-Za-z]+", d.get("id") or "")]
    for index, div in enumerate(annexes, start=1):
        planner.annex(div, index)

    # 3. Positions each unit spans (its blocks and everything inside them).
    def end(el: etree._Element) -> int:
        """Position of the last node inside `el`: just before whatever follows its subtree."""
        x = el
        while x is not None:
            nxt = x.getnext()
            if nxt is not None:
                return order[nxt] - 1
            x = x.getparent()
        return len(order) - 1

    def span(node: _Node) -> list[tuple[int, int]]:
        return [(order[b], end(b)) for b in node.blocks]

    spans = {n.uid: span(n) for n in planner.nodes}

    def starts(node: _Node) -> int:
        return min((s for s, _ in spans[node.uid]), default=-1)

    # 4. Clean the tree: markers out, footnote calls out, exponents marked.
    note_text = {}
    for nid, p in notes_by_id.items():
        t = text_of(p)
        note_text[nid] = re.sub(r"^\(\s*\*?\d*\s*\)\s*", "", t)
    for el in drop:
        if el.getparent() is not None:
            el.drop_tree()
    for a in call_els:
        if a.getparent() is not None:
            _strip_call(a)
    for el in scope.iter():
        if not isinstance(el.tag, str):
            continue
        if _has(el, "superscript"):
            el.tag = "sup"
        if el.text and ("◄" in el.text or "►" in el.text or "▼" in el.text):
            el.text = _GLYPHS.sub("", el.text)
        if el.tail and ("◄" in el.tail or "►" in el.tail or "▼" in el.tail):
            el.tail = _GLYPHS.sub("", el.tail)

    # 5. Units, changes, notes.
    positions = [p for p, _ in markers]
    changed: dict[str, str] = {}
    for node in planner.nodes:
        at = bisect_right(positions, starts(node)) - 1
        if at >= 0 and markers[at][1]:
            changed[node.uid] = markers[at][1]
    for pos, celex in inline:
        best = None
        for node in planner.nodes:
            for s, e in spans[node.uid]:
                if s <= pos <= e and (best is None or e - s <= best[0]):  # ties: the later, deeper unit
                    best = (e - s, node.uid)
        if best:
            changed[best[1]] = celex

    col = UnitCollector(base, ver, lang, path, binding)
    for node in planner.nodes:
        text = " ".join(t for t in (text_of(b) for b in node.blocks) if t)
        notes = []
        for pos, nid in calls:
            if any(s <= pos <= e for s, e in spans[node.uid]) and note_text.get(nid) not in notes:
                notes.append(note_text.get(nid, ""))
        # a title is read before step 4 strips the glyphs: "Article 4 — ►M2 Security of processing ◄"
        title = norm_space(_GLYPHS.sub(" ", node.title))
        col.add(node.uid, node.kind, title, text, node.parent, anchor=node.anchor,
                footnotes=tuple(n for n in notes if n))
    units = tuple(replace(u, source_url=eurlex_link(cons_celex, lang, u.source_url.partition("#")[2] or None))
                  for u in col.units())

    # 6. Independent counts (DESIGN invariant 6: never a silently short list).
    counts = {"article": 0, "paragraph": 0, "point": 0, "annex": 0}
    for u in units:
        if u.kind in counts:
            counts[u.kind] += 1
    no_parag = [
        s for s in _by_class(scope, "no-parag", "span")
        if not is_quoted(s.text_content()) and not any(_has(a, "grid-list") for a in s.iterancestors())
    ]
    annex_heads = [
        p for p in _by_class(scope, "title-annex-1", "p")
        if _ANNEX_HEADING.match(norm_space(p.text_content()))
    ]
    labelled = 0
    for el in scope.iter("div", "p"):
        cls = classes(el)
        if "grid-list-column-1" in cls:
            label = norm_space(el.text_content())
        elif any(c.startswith("title-gr-seq-level-") for c in cls):
            heading = norm_space(el.text_content())
            labelled += section_key(heading) is None and numbered_heading(heading) is not None
            continue
        elif el.tag == "p" and len(el) and el[0].tag == "span" and "margin-left" in (
                el.getparent().get("style") or "") and el.getparent()[0] is el:
            label = norm_space(el.text or "")
            if not _FLAT_LABEL.match(label):
                continue
        else:
            continue
        if not is_quoted(label) and planner.key(label, "count") is not None:
            labelled += 1
    counts["point"] += planner.restarted
    expected = {
        "point": labelled,
        "article": len(_by_class(scope, "title-article-norm", "p")),
        "paragraph": len(no_parag),
        "annex": len(annex_heads),
    }
    for kind, want in expected.items():
        if want != counts[kind]:
            raise ParseError(path, kind, f"{want} in the markup but {counts[kind]} {kind} units built")

    title_parts = _by_class(doc, "title-doc-first", "p")
    title = norm_space(" ".join(p.text_content() for p in title_parts[:3])) if title_parts else ""
    t = doc.find(".//title")
    if not title and t is not None:
        title = norm_space(t.text_content())
    return ParsedAct(
        act=base,
        version=ver,
        language=lang,
        format="consolidated",
        title=f"{title} (consolidated {cons_celex})" if title else f"consolidated {cons_celex}",
        units=units,
        doc_kind=doc_kind(base),
        binding=binding,
        source_url=eurlex_link(cons_celex, lang),
        modified_by=_modifiers(doc, body),
        changed_units=tuple(sorted(changed.items(), key=lambda kv: next(
            u.position for u in units if u.unit == kv[0]))),
        divisions=article_divisions(body),
    )
