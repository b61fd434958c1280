"""Official Journal XHTML with `oj-` classes (CONVEX, ELI divs) -> normative units.

Structure, not global id lookups, decides what belongs where:

* an article is the `div.eli-subdivision#art_N` that holds a `p.oj-ti-art`; its
  numbered paragraphs are the `div#NNN.MMM` that are its *direct* children (the
  AI Act quotes other acts' paragraphs in Articles 102-110 under the same div
  ids one level deeper: those stay text of the quoting article);
* points are the 2-column tables `(a) | text` (3 columns with an empty first cell
  in some annexes) that are direct children of their paragraph, article, point or
  annex heading; tables nested deeper (inside quoted `div`s) are text, not units;
* quoted text of amending acts (‘Article 4a …, ‘(14a) …) is text of the point
  that quotes it and never becomes a unit of its own.

After parsing, counts are checked against independent counts of the markup and
any disagreement raises `ParseError` (invariant 6: never a silently short list).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from pathlib import Path

from lxml import etree

from lexcite.celex import doc_kind as celex_doc_kind
from lexcite.contract import ParsedAct, Unit
from lexcite.errors import FormatNotRecognised, ParseError
from lexcite.ingest._labels import RECITAL_WORD, is_recitals_formula
from lexcite.ingest._markup import classes, eurlex_link, norm_space, text_of
from lexcite.ingest._oj import (
    ANNEX_WORDS,
    ART_NUMBER,
    OPEN_QUOTES,
    PAR_ID,
    AnnexBuilder,
    Meta,
    Node,
    PointBuilder,
    Texts,
    check_count,
    check_sequence,
    child_blocks,
    detect_meta,
    emit,
    has_class,
    label_segment,
    take_notes,
)
from lexcite.ingest._units import UnitCollector
from lexcite.ingest.dates import article_divisions

__all__ = ["parse_oj", "parse_oj_fragment", "FORMAT"]

FORMAT = "oj"

# ---------------------------------------------------------------------------
# The OJ (ELI divs) parser
# ---------------------------------------------------------------------------


def _art_number(text: str) -> str | None:
    m = ART_NUMBER.search(text)
    return (m[1] + m[2]).lower() if m else None


def _par_number(div_id: str) -> str:
    m = PAR_ID.match(div_id)
    assert m
    return f"{int(m['par'])}{m['parx'].lower()}"


def _outside_tables(els: Iterable[etree._Element]) -> list[etree._Element]:
    return [e for e in els if not any(a.tag == "td" for a in e.iterancestors())]


class _OjParser:
    def __init__(self, root: etree._Element, path: str | Path, meta: Meta, texts: Texts):
        self.root, self.path, self.meta, self.texts = root, path, meta, texts
        self.pb = PointBuilder(texts, meta.language, "oj-table")

    def recitals(self) -> list[Node]:
        word = RECITAL_WORD.get(self.meta.language, "Recital")
        out: list[Node] = []
        skipped = 0  # "Whereas:" divs before a recital: ids run ahead of the recitals' own numbers
        for div in _outside_tables(self.root.xpath("//div[starts-with(@id, 'rct_')]")):
            n = div.get("id")[4:]
            if not n.isdigit():
                raise ParseError(self.path, div.get("id"), "recital id is not a number")
            rows = [b.point for b in child_blocks(div, "oj-table") if b.point is not None]
            if not rows and not out and is_recitals_formula(self.texts.text(div)):
                # The Data Act puts "Whereas:" in its own div#rct_1, so div#rct_2 holds recital (1).
                skipped += 1
                continue
            n = str(int(n) - skipped)
            if rows:  # "(12) | text"
                if label_segment(rows[0].label) != n:
                    raise ParseError(self.path, div.get("id"), f"recital labelled {rows[0].label!r}")
                content = [rows[0].content] + [c for c in div if isinstance(c.tag, str) and c.tag != "table"]
                text = self.texts.join(content)
            else:
                text = self.texts.text(div)
            out.append(Node(f"rct_{n}", "recital", f"{word} {n}", text, div.get("id"),
                            self.texts.footnotes([div])))
        return out

    def articles(self) -> list[Node]:
        out: list[Node] = []
        for head in self.article_headings():
            div = head.getparent()
            div_id = div.get("id") or ""
            if div.tag != "div" or not div_id.startswith("art_") or "eli-subdivision" not in classes(div):
                raise ParseError(self.path, norm_space(text_of(head)),
                                 "article heading outside a div.eli-subdivision#art_N")
            out.append(self.article(div, head))
        return out

    def article_headings(self) -> list[etree._Element]:
        """`p.oj-ti-art` of the act itself: not in a point's cell, not quoted."""
        heads = _outside_tables(self.root.xpath(f"//p[{has_class('oj-ti-art')}]"))
        return [h for h in heads if text_of(h)[:1] not in OPEN_QUOTES]

    def article(self, div: etree._Element, head: etree._Element) -> Node:
        div_id = div.get("id")
        heading = text_of(head)
        number = div_id[4:]
        said = _art_number(heading)
        if said is not None and said != number.lower():
            raise ParseError(self.path, div_id, f"heading {heading!r} disagrees with the div id")
        sub_el = [c for c in div if isinstance(c.tag, str) and (
            "eli-title" in classes(c) or "oj-sti-art" in classes(c))]
        subtitle = self.texts.join(sub_el)
        suffix = f" — {subtitle}" if subtitle else ""
        content = [c for c in div if isinstance(c.tag, str) and c is not head and c not in sub_el]
        node = Node(f"art_{number}", "article", heading + suffix, self.texts.join(content), div_id,
                    self.texts.footnotes(content))
        for c in content:
            cid = c.get("id") or ""
            if c.tag == "div" and PAR_ID.match(cid):
                n = _par_number(cid)
                par = Node(f"par_{n}", "paragraph", f"{heading}({n}){suffix}", self.texts.text(c), cid,
                           self.texts.footnotes([c]))
                par.children = self.pb.points(c, f"{heading}({n})", suffix, cid)
                node.children.append(par)
        node.children.extend(self.pb.points(div, heading, suffix, div_id))
        return node

    def annexes(self) -> list[Node]:
        ab = AnnexBuilder(self.texts, self.pb, "oj-")
        out: list[Node] = []
        for div in _outside_tables(self.root.xpath(f"//div[starts-with(@id, 'anx_')][{has_class('eli-container')}]")):
            div_id = div.get("id")
            kids = [c for c in div if isinstance(c.tag, str)]
            titles: list[etree._Element] = []
            for c in kids:
                if c.tag == "p" and "oj-doc-ti" in classes(c):
                    titles.append(c)
                elif titles:
                    break
            heading = text_of(titles[0]) if titles else div_id.replace("_", " ").title()
            subtitle = self.texts.join(titles[1:])
            n = div_id[4:]
            words = heading.split()
            said = words[1] if len(words) > 1 and re.fullmatch(r"[IVXLC]+|\d+", words[1]) else None
            if said is not None and said != n:
                raise ParseError(self.path, div_id, f"heading {heading!r} disagrees with the div id")
            body = [c for c in kids if c not in titles]
            out.append(ab.build(f"anx_{n}", heading, subtitle, div_id, body))
        return out


def parse_oj(
    root: etree._Element,
    path: Path,
    act: str | None = None,
    version: str | None = None,
    language: str | None = None,
    binding: bool = True,
) -> ParsedAct:
    """Parse an OJ act in CONVEX XHTML (`oj-` classes, ELI divs) into units."""
    art_divs = root.xpath(f"//div[starts-with(@id, 'art_')][{has_class('eli-subdivision')}]")
    if not art_divs:
        # oj- classes without ELI divs are the flat layout, a format of its own (detect.py: "oj_flat").
        found = "p.oj-ti-art without ELI divs (the flat layout)" if root.xpath(
            f"//p[{has_class('oj-ti-art')}]") else "no articles"
        raise FormatNotRecognised(path, ["div.eli-subdivision#art_N", "p.oj-ti-art"], found)

    root = copy.deepcopy(root)  # notes are cut out below; the caller's tree stays whole
    texts = Texts(take_notes(root, "oj-note"))
    title_lines = [text_of(p) for p in root.xpath(f"//div[@id='tit_1']//p[{has_class('oj-doc-ti')}]")]
    if not title_lines:
        title_lines = [text_of(p) for p in root.xpath(f"//p[{has_class('oj-doc-ti')}]")[:4]]
    meta = detect_meta(root, path, "oj-", title_lines, act, version, language)

    parser = _OjParser(root, path, meta, texts)
    recitals, articles, annexes = parser.recitals(), parser.articles(), parser.annexes()
    if not articles:
        raise FormatNotRecognised(path, ["p.oj-ti-art in div.eli-subdivision#art_N"], "no articles")

    # Independent counts (invariant 6).
    check_sequence(path, "articles", [a.seg[4:] for a in articles])
    check_sequence(path, "recitals", [r.seg[4:] for r in recitals])
    own_art_divs = [d for d in _outside_tables(art_divs)
                    if not any((a.get("id") or "").startswith("art_") for a in d.iterancestors("div"))]
    check_count(path, "articles", len(articles), len(own_art_divs), "div.eli-subdivision#art_N outside quotations")
    paragraphs = sum(1 for a in articles for c in a.children if c.kind == "paragraph")
    expected_pars = 0
    for d in own_art_divs:
        own = d.get("id")[4:]
        for p in d.iter("div"):
            m = PAR_ID.match(p.get("id") or "")
            if m and f"{int(m['art'])}{m['artx'].lower()}" == own.lower() and not any(
                a.tag == "td" for a in p.iterancestors()
            ):
                expected_pars += 1
    check_count(path, "paragraphs", paragraphs, expected_pars, "div#NNN.MMM numbered like their article")
    anx_heads = [p for p in _outside_tables(root.xpath(f"//p[{has_class('oj-doc-ti')}]"))
                 if norm_space(text_of(p)).split(" ")[0] in ANNEX_WORDS]
    if anx_heads or annexes:
        check_count(path, "annexes", len(annexes), len(anx_heads), "p.oj-doc-ti 'ANNEX …'")

    collector = UnitCollector(meta.act, meta.version, meta.language, path, binding)
    for node in (*recitals, *articles, *annexes):
        emit(collector, node)
    units = collector.units()
    return ParsedAct(
        act=meta.act,
        version=meta.version,
        language=meta.language,
        format=FORMAT,
        title=meta.title,
        units=units,
        doc_kind=meta.doc_kind,
        binding=binding,
        source_url=eurlex_link(meta.act, meta.language),
        divisions=article_divisions(root),
    )


def parse_oj_fragment(root: etree._Element, path: Path, act: str, version: str, language: str,
                      binding: bool = True) -> tuple[Unit, ...]:
    """The units of a fragment of OJ markup (articles and annexes in their ELI containers), built as
    `parse_oj` builds a whole act, without the document-level checks (articles 1, 2, 3 …).

    `lexcite.ingest.apply_amendments` builds an amending act's new text with it, so that text gets
    the ids, titles and texts an OJ original would give it. Raises ParseError as `parse_oj` does.
    """
    parser = _OjParser(root, path, Meta(act, version, language, "", celex_doc_kind(act)), Texts({}))
    collector = UnitCollector(act, version, language, path, binding)
    for node in (*parser.articles(), *parser.annexes()):
        emit(collector, node)
    return collector.units()
