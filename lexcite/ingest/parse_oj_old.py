"""Older Official Journal HTML (un-prefixed classes: `doc-ti`, `ti-art`, `sti-art`, `normal`) -> units.

There are no ELI divs: the act is a flat run of blocks. Paragraphs are the
`p.normal` that start "1.   " and run until the next numbered paragraph or the
next `ti-art`; points are "(a) | text" tables (nested recursively, as in the OJ
format) or `p.normal` starting "(a) "; recitals are "(1)" tables or `p.normal`
"(1) …" before the adoption formula ("HAVE ADOPTED THIS DIRECTIVE:"); an annex
starts at a `doc-ti` "ANNEX …". The ids are those of the OJ format
(`rct_N`, `art_N.par_M.pnt_x`, `anx_I.sct_A.pnt_1`).

The same reader handles `oj-` documents laid out flat (no ELI divs), detected as the format
"oj_flat" (`parse_oj_flat`, prefix "oj-"); they are stored as format "oj".

Quoted text of amending acts (a run of blocks opened by ‘ after an instruction
ending with ':' and closed by ’) never starts an article, paragraph or point.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from lexcite.contract import ParsedAct
from lexcite.errors import FormatNotRecognised, ParseError
from lexcite.ingest._labels import RECITAL_WORD, display_label
from lexcite.ingest._markup import classes, eurlex_link, norm_space, text_of
from lexcite.ingest._oj import (
    ANNEX_WORDS,
    OPEN_QUOTES,
    AnnexBuilder,
    Node,
    PointBuilder,
    PointRow,
    Texts,
    check_sequence,
    closes_quote,
    detect_meta,
    emit,
    label_segment,
    opens_quote,
    point_row,
    table_rows,
    take_notes,
)
from lexcite.ingest._units import UnitCollector
from lexcite.ingest.parse_oj import FORMAT as OJ_FORMAT

__all__ = ["parse_oj_old", "parse_oj_flat", "parse_flat"]

FORMAT = "oj_old"

_PARAGRAPH = re.compile(r"^(?P<n>\d{1,3}[a-z]?)\.\s+\S")
_FLAT_POINT = re.compile(r"^(?P<label>\(?(?P<n>[0-9]{1,3}[a-z]?|[a-z]{1,4}|[A-Z])\))\s+\S")
_RECITAL = re.compile(r"^\((?P<n>\d{1,3})\)\s+\S")
_ART_NUMBER = re.compile(r"(\d+)\s*([a-z]{0,6})\b", re.IGNORECASE)
_BLOCK_TAGS = ("p", "table", "hr", "h1", "h2", "h3", "h4", "h5", "h6")


# ---------------------------------------------------------------------------
# Blocks and the quotation state
# ---------------------------------------------------------------------------


@dataclass
class FBlock:
    el: etree._Element  # a p, a table row, an hr
    text: str
    point: PointRow | None = None
    quoted: bool = False

    def has(self, cls: str) -> bool:
        return cls in classes(self.el)


def linear_blocks(body: etree._Element, prefix: str) -> list[FBlock]:
    """The body as a flat list of blocks in document order; tables split into rows."""
    out: list[FBlock] = []

    def walk(el: etree._Element) -> None:
        for child in el:
            if not isinstance(child.tag, str):
                continue
            if child.tag == "table":
                for r in table_rows(child):
                    out.append(FBlock(r, text_of(r), point_row(r, f"{prefix}table")))
            elif child.tag in _BLOCK_TAGS or (
                child.tag == "div" and f"{prefix}enumeration-spacing" in classes(child)
            ):
                out.append(FBlock(child, text_of(child)))
            else:
                walk(child)

    walk(body)
    return out


class QuoteState:
    """Tracks quoted text (amending acts) over a run of blocks.

    A quotation opens at a point label starting with ‘, or at a paragraph starting
    with ‘ right after an instruction ending with ':', and closes at a block
    ending with ’.
    """

    def __init__(self) -> None:
        self.open = False
        self.prev = ""

    def feed(self, b: FBlock) -> bool:
        if not self.open:
            if b.point is not None:
                self.open = b.point.label[:1] in OPEN_QUOTES
            else:
                self.open = opens_quote(b.text) and self.prev.endswith(":")
        b.quoted = self.open
        if self.open and closes_quote(b.text):
            self.open = False
        if b.text:
            self.prev = b.text
        return b.quoted

    def close(self) -> None:
        self.open = False


# ---------------------------------------------------------------------------
# Points written as paragraphs "(a) text", nested by label kind
# ---------------------------------------------------------------------------


def _label_kind(seg: str, stack: list[tuple[str, str, Node]]) -> str:
    if seg[0].isdigit():
        return "num"
    if seg.isupper():
        return "upper"
    if re.fullmatch(r"[ivxlc]+", seg):
        alpha = next((s for k, s, _ in reversed(stack) if k == "alpha"), None)
        if len(seg) == 1 and alpha is not None and len(alpha) == 1 and ord(seg) == ord(alpha) + 1:
            return "alpha"  # (h) then (i): the letter i
        if seg == "i" or any(k == "roman" for k, _, _ in stack):
            return "roman"
    return "alpha"


class FlatPoints:
    """Points of a run of blocks: "(a) | text" table rows and "(a) text" paragraphs."""

    def __init__(self, pb: PointBuilder):
        self.pb = pb

    def build(self, blocks: list[FBlock], ref: str, suffix: str, anchor: str | None,
              labels: tuple[str, ...] = ()) -> list[Node]:
        top: list[Node] = []
        stack: list[tuple[str, str, Node]] = []  # (kind, seg, node) of the open flat points
        own: dict[int, str] = {}  # flat nodes -> their own text (children appended later)
        paths: dict[int, tuple[str, ...]] = {}
        for b in blocks:
            if b.quoted:
                continue
            if b.point is not None:
                seg = label_segment(b.point.label)
                if seg is None:
                    continue
                node = self.pb.point(b.point, seg, ref, suffix, anchor, labels)
                top.append(node)
                stack = []
                continue
            m = _FLAT_POINT.match(b.text) if b.el.tag == "p" else None
            if not m:
                continue
            seg = m["n"]
            kind = _label_kind(seg, stack)
            while stack and kind in (k for k, _, _ in stack):
                stack.pop()
            parent = stack[-1][2] if stack else None
            path = (paths[id(parent)] if parent is not None else labels) + (display_label(m["label"]),)
            node = Node(f"pnt_{seg}", "point", f"{ref}, {self.pb.word} {''.join(path)}{suffix}", b.text,
                        anchor, self.pb.texts.footnotes([b.el]))
            own[id(node)], paths[id(node)] = b.text, path
            (parent.children if parent is not None else top).append(node)
            stack.append((kind, seg, node))
        for node in top:
            self._texts(node, own)
        return top

    def _texts(self, node: Node, own: dict[int, str]) -> None:
        for c in node.children:
            self._texts(c, own)
        if id(node) in own and node.children:
            node.text = norm_space(" ".join([own[id(node)], *(c.text for c in node.children)]))


# ---------------------------------------------------------------------------
# The reader
# ---------------------------------------------------------------------------


@dataclass
class _Article:
    head: FBlock
    subtitle: list[FBlock] = field(default_factory=list)
    content: list[FBlock] = field(default_factory=list)


@dataclass
class _Annex:
    titles: list[FBlock]
    body: list[FBlock] = field(default_factory=list)


def _is_adoption_formula(text: str) -> bool:
    """'HAVE ADOPTED THIS DIRECTIVE:', 'HEEFT DE VOLGENDE VERORDENING VASTGESTELD:'."""
    letters = [c for c in text if c.isalpha()]
    return text.endswith(":") and len(letters) > 8 and all(c.isupper() for c in letters)


class _FlatParser:
    def __init__(self, root: etree._Element, path: str | Path, prefix: str):
        self.root, self.path, self.prefix = root, path, prefix

    def cls(self, name: str) -> str:
        return self.prefix + name

    def split(self, blocks: list[FBlock]) -> tuple[list[str], list[FBlock], list[_Article], list[_Annex], int]:
        """Title lines, preamble blocks, articles, annexes; and how many ti-art were quoted."""
        title: list[str] = []
        preamble: list[FBlock] = []
        articles: list[_Article] = []
        annexes: list[_Annex] = []
        quoted_heads = 0
        state = "start"
        i = 0
        quotes = QuoteState()
        while i < len(blocks):
            b = blocks[i]
            i += 1
            if quotes.open and b.has(self.cls("ti-art")) and b.text[:1] not in OPEN_QUOTES:
                # A quotation whose closing mark we did not see (it may sit in a footnote)
                # ends at the act's own next article; "Article 75b" inside "‘Article 75a …" does not.
                m = _ART_NUMBER.search(b.text)
                if m and int(m[1]) == len(articles) + 1 and not m[2]:
                    quotes.close()
            quotes.feed(b)
            if b.has(self.cls("doc-ti")) and not b.quoted:
                first = norm_space(b.text).split(" ")[0]
                if first in ANNEX_WORDS and state not in ("start", "title"):
                    annexes.append(_Annex([b]))
                    while i < len(blocks) and blocks[i].has(self.cls("doc-ti")) and \
                            norm_space(blocks[i].text).split(" ")[0] not in ANNEX_WORDS:
                        annexes[-1].titles.append(blocks[i])
                        i += 1
                    state = "annex"
                    continue
                if state in ("start", "title"):
                    title.append(b.text)
                    state = "title"
                    continue
            if b.has(self.cls("ti-art")) and state != "annex":
                if b.quoted or b.text[:1] in OPEN_QUOTES:
                    quoted_heads += 1
                elif state in ("start", "title", "preamble", "enacting"):
                    articles.append(_Article(b))
                    state = "enacting"
                    if i < len(blocks) and blocks[i].has(self.cls("sti-art")):
                        articles[-1].subtitle.append(blocks[i])
                        i += 1
                    continue
                else:
                    raise ParseError(self.path, b.text, f"article heading after the enacting terms ({state})")
            if state == "start":
                continue  # the OJ header line (date, language, OJ reference)
            if state == "title":
                state = "preamble"
            if state == "preamble":
                preamble.append(b)
            elif state == "enacting":
                if not b.quoted and (
                    any(b.has(self.cls(c)) for c in ("final", "signatory"))
                    or b.el.tag == "hr"
                    or any(self.cls(c) in classes(a) for a in b.el.iterancestors() for c in ("final", "signatory"))
                ):
                    state = "final"
                elif not b.quoted and any(b.has(self.cls(c)) for c in ("ti-section-1", "ti-section-2")):
                    continue  # chapter and section headings: not part of an article
                else:
                    articles[-1].content.append(b)
            elif state == "annex":
                annexes[-1].body.append(b)
        return title, preamble, articles, annexes, quoted_heads


def parse_flat(
    root: etree._Element,
    path: Path,
    prefix: str,
    fmt: str,
    act: str | None = None,
    version: str | None = None,
    language: str | None = None,
    binding: bool = True,
) -> ParsedAct:
    """Parse a flat OJ layout whose classes carry `prefix` ("" for the old family, "oj-")."""
    root = copy.deepcopy(root)
    texts = Texts(take_notes(root, f"{prefix}note"))
    body = root.find("body")
    if body is None:
        body = root
    blocks = linear_blocks(body, prefix)
    if not any(f"{prefix}ti-art" in classes(b.el) for b in blocks):
        raise FormatNotRecognised(path, [f"p.{prefix}ti-art"], "no article headings")
    fp = _FlatParser(root, path, prefix)
    title_lines, preamble, arts, annexes, quoted_heads = fp.split(blocks)
    meta = detect_meta(root, path, prefix, title_lines, act, version, language)
    pb = PointBuilder(texts, meta.language, f"{prefix}table")
    flat = FlatPoints(pb)

    recitals = _recitals(preamble, texts, meta.language)
    articles = [_article(path, a, texts, flat) for a in arts]
    ab = AnnexBuilder(texts, pb, prefix)
    annex_nodes: list[Node] = []
    for k, ax in enumerate(annexes, start=1):
        heading = ax.titles[0].text.lstrip("‘")
        words = heading.split(" ")
        n = words[1] if len(words) > 1 and re.fullmatch(r"[IVXLC]+|\d+", words[1]) else str(k)
        anchor = ax.titles[0].el.get("id")
        annex_nodes.append(ab.build(f"anx_{n}", heading, norm_space(" ".join(t.text for t in ax.titles[1:])),
                                    anchor, list(_elements(ax.body))))

    if not articles:
        raise FormatNotRecognised(path, [f"p.{prefix}ti-art"], "no articles")
    heads = [e for e in root.xpath("//p[not(ancestor::td)]") if f"{prefix}ti-art" in classes(e)]
    if len(heads) != len(articles) + quoted_heads:
        raise ParseError(path, "articles", f"emitted {len(articles)} articles (+{quoted_heads} quoted) but the "
                         f"markup has {len(heads)} p.{prefix}ti-art; refusing a short list")
    check_sequence(path, "articles", [a.seg[4:] for a in articles])
    check_sequence(path, "recitals", [r.seg[4:] for r in recitals])

    collector = UnitCollector(meta.act, meta.version, meta.language, path, binding)
    for node in (*recitals, *articles, *annex_nodes):
        emit(collector, node)
    return ParsedAct(
        act=meta.act,
        version=meta.version,
        language=meta.language,
        format=fmt,
        title=meta.title,
        units=collector.units(),
        doc_kind=meta.doc_kind,
        binding=binding,
        source_url=eurlex_link(meta.act, meta.language),
    )


def _recitals(preamble: list[FBlock], texts: Texts, lang: str) -> list[Node]:
    word = RECITAL_WORD.get(lang, "Recital")
    out: list[Node] = []
    current: list[etree._Element] = []
    first_text = ""

    def close() -> None:
        if out and current:
            node = out[-1]
            node.text = norm_space(" ".join([first_text] + [text_of(e) for e in current[1:]]))
            node.footnotes = texts.footnotes(current)

    for b in preamble:
        n: str | None = None
        text = b.text
        if b.point is not None and re.fullmatch(r"\(\d{1,3}\)", norm_space(b.point.label)):
            n, text = norm_space(b.point.label)[1:-1], text_of(b.point.content)
        elif b.el.tag == "p" and (m := _RECITAL.match(b.text)):
            n, text = m["n"], b.text[len(m["n"]) + 2:].strip()
        if n is not None:
            close()
            out.append(Node(f"rct_{n}", "recital", f"{word} {n}", text, None))
            current, first_text = [b.el], text
        elif _is_adoption_formula(b.text):
            close()
            current = []
            break
        elif current and b.el.tag == "p" and b.text:
            current.append(b.el)  # a recital running over several paragraphs
    close()
    return out


def _article(path: str | Path, a: _Article, texts: Texts, flat: FlatPoints) -> Node:
    heading = a.head.text
    m = _ART_NUMBER.search(heading)
    if m is None:
        raise ParseError(path, heading, "article heading without a number")
    number = (m[1] + m[2]).lower()
    subtitle = norm_space(" ".join(b.text for b in a.subtitle))
    suffix = f" — {subtitle}" if subtitle else ""
    anchor = a.head.el.get("id")
    content = a.content
    node = Node(f"art_{number}", "article", heading + suffix, texts.join(_elements(content)), anchor,
                texts.footnotes(_elements(content)))
    groups: list[tuple[str, list[FBlock]]] = []
    intro: list[FBlock] = []
    expected = 1
    for b in content:
        m = _PARAGRAPH.match(b.text) if b.el.tag == "p" and not b.quoted and b.point is None else None
        if m and (m["n"] == str(expected) or (groups and m["n"][:-1] == groups[-1][0]
                                                   and m["n"][-1:].isalpha())):
            groups.append((m["n"], [b]))
            if m["n"].isdigit():
                expected = int(m["n"]) + 1
        elif groups:
            groups[-1][1].append(b)
        else:
            intro.append(b)
    for n, blocks in groups:
        ref = f"{heading}({n})"
        par = Node(f"par_{n}", "paragraph", ref + suffix, texts.join(_elements(blocks)), anchor,
                   texts.footnotes(_elements(blocks)))
        par.children = flat.build(blocks[1:], ref, suffix, anchor)
        node.children.append(par)
    node.children.extend(flat.build(intro, heading, suffix, anchor))
    return node


def _elements(blocks: list[FBlock]) -> Iterator[etree._Element]:
    """The elements of a run of blocks, a table once (not once per row)."""
    seen: set[etree._Element] = set()  # holding the proxies keeps their identity
    for b in blocks:
        el = b.el
        if el.tag == "tr":
            table = next(el.iterancestors("table"), None)
            if table is not None:
                if table in seen:
                    continue
                seen.add(table)
                el = table
        yield el


def parse_oj_flat(
    root: etree._Element,
    path: Path,
    act: str | None = None,
    version: str | None = None,
    language: str | None = None,
    binding: bool = True,
) -> ParsedAct:
    """Parse an act in `oj-` classes laid out flat, without ELI divs (stored as format "oj")."""
    return parse_flat(root, path, "oj-", OJ_FORMAT, act, version, language, binding)


def parse_oj_old(
    root: etree._Element,
    path: Path,
    act: str | None = None,
    version: str | None = None,
    language: str | None = None,
    binding: bool = True,
) -> ParsedAct:
    """Parse an act in the older un-prefixed OJ HTML (`ti-art`, `normal`, no ELI divs)."""
    return parse_flat(root, path, "", FORMAT, act, version, language, binding)

