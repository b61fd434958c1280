"""Does all of the act land in units? Damage that leaves every numbering whole (DESIGN invariant 6).

A deleted tag can end an article early, push the annexes out of the act's container, or take the
label (or the label cell, or the table) of the last point of a list: the parser then builds fewer
units and no sequence shows a gap (`lexcite/ingest/completeness.py` judges those). Two checks read
the document's structure against the units built:

* coverage: all of the act's running text lies inside some unit's element, outside the preamble,
  the final provisions and the OJ's ELI/ISSN lines;
* labels: every list item and numbered paragraph keeps its label and its own markup;
* nesting: no recital, article or annex element lies inside another's (a table that lost its closing
  tag takes every later annex into the one that holds it: all its text is still "in a unit").

Both hold for every real file in the corpus and cost a few milliseconds (bench/parse.py). They apply
to the formats whose units are elements (OJ ELI divs, consolidated HTML); the flat layouts have
their own count checks, and a damaged Formex file is not well-formed XML.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from lxml import etree

from lexcite.contract import ParsedAct
from lexcite.errors import ParseError
from lexcite.ingest._labels import is_quoted, label_key
from lexcite.ingest._markup import classes, norm_space, text_of
from lexcite.ingest._oj import PAR_ID, dotted_label, label_segment, table_rows

__all__ = ["check_coverage", "check_list_labels"]

# The classes of an act's running text, per HTML format whose units are elements (ELI divs): any of it
# that lands in no unit is law lost. The flat layouts (oj_flat, oj_old) have no unit elements to be in.
_TEXT_CLASSES = {"oj": {"oj-normal"}, "consolidated": {"norm", "list"}}
# Running text that is no unit's: the preamble's citations and enacting formula (div#pbl_1), the
# final provisions and signatures (div#fnp_1, oj-final), and the ELI and ISSN lines after an OJ act.
_PREAMBLE_ID = "pbl_"
_NO_UNIT_IDS = (_PREAMBLE_ID, "fnp_")
_NO_UNIT_CLASSES = {"oj-final", "final", "oj-signatory", "signatory"}
_NO_UNIT_LINES = ("ELI:", "ISSN ")
# Each table part and the parent it must have. A table or row whose opening tag is lost leaves its parts under
# another parent (outside any table, or in the cell of the table around a nested one). One parent each: cheap.
_TABLE_PARENTS = {"td": ("tr",), "th": ("tr",), "tr": ("tbody", "thead", "tfoot", "table"),
                  "tbody": ("table",), "thead": ("table",), "tfoot": ("table",), "col": ("table", "colgroup"),
                  "colgroup": ("table",)}
# The element ids of the top-level units of an ELI-marked act: `rct_12`, `art_5`, `anx_II` (never dotted).
_TOP_UNIT_ID = re.compile(r"^(rct|art|anx)_[^.]+$")
_PAR_NUMBER_LABEL = re.compile(r"^[“‘\"']?\d+[a-z]*\.$")  # a consolidated paragraph's number: "2.", "14a.", "“5."
_PAR_NUMBER = re.compile(r"^(\d+)[a-z]?\.\s")  # "4.   The controller …": an OJ paragraph's own number


def _anchors(parsed: ParsedAct) -> dict[str, str]:
    """{element id: unit id} of the top-level units (recitals, articles, annexes) that name their element."""
    out = {}
    for u in parsed.units:
        anchor = u.source_url.partition("#")[2]
        if u.parent is None and anchor:
            out.setdefault(anchor, u.unit)
    return out


def _outside_units(root: etree._Element, anchors: dict[str, str], text_classes: set[str]
                   ) -> Iterable[tuple[str, etree._Element]]:
    """(the unit before it, block) for each block of running text outside every unit's element, in
    document order; iterative, so that a damaged file's deep nesting is no limit."""
    before = "the start of the act"
    stack = [iter(root)]
    while stack:
        el = next(stack[-1], None)
        if el is None:
            stack.pop()
            continue
        if not isinstance(el.tag, str):
            continue
        eid, cls = el.get("id") or "", classes(el)
        if eid in anchors:
            before = anchors[eid]
        elif cls & text_classes:
            yield before, el
        elif not (eid.startswith(_NO_UNIT_IDS) or cls & _NO_UNIT_CLASSES):
            stack.append(iter(el))


def check_coverage(root: etree._Element, parsed: ParsedAct, fmt: str, path: str | Path) -> None:
    """All of the act's running text lands in some unit: text outside every unit is a unit lost.

    A deleted tag can end an article early (GDPR Article 32 paragraphs 3 and 4 then stand between
    the articles) or the act's container (the consolidated annexes then follow it): the parser
    builds fewer units, with no gap in any numbering. Only the preamble, the final provisions and
    the OJ's ELI/ISSN lines hold running text that is no unit's.
    """
    text_classes = _TEXT_CLASSES.get(fmt)
    anchors = _anchors(parsed)
    if not text_classes or not anchors:
        return
    _check_nesting(root, anchors, path)
    if fmt == "oj":
        _check_bare_text(root, anchors, path)
        _check_preamble_tables(root, path)
    stray = [(before, t) for before, el in _outside_units(root, anchors, text_classes)
             if (t := text_of(el)) and not t.startswith(_NO_UNIT_LINES)]
    if stray:
        before, text = stray[0]
        words = sum(len(t.split()) for _, t in stray)
        shown = text if len(text) <= 60 else text[:57] + "…"
        raise ParseError(path, f"the text after {before}",
                         f"{len(stray)} block(s) of the act's text ({words} words) lie outside every unit, the first "
                         f"{shown!r}: the markup is damaged")


def _check_nesting(root: etree._Element, anchors: dict[str, str], path: str | Path) -> None:
    """No top-level unit's element inside another's: the inner one is then read as text of the outer."""
    for el in root.iter():
        if not isinstance(el.tag, str) or not _TOP_UNIT_ID.match(eid := el.get("id") or ""):
            continue
        outer = next((a.get("id") for a in el.iterancestors() if _TOP_UNIT_ID.match(a.get("id") or "")), None)
        if outer is not None:
            raise ParseError(path, anchors.get(outer, f"div#{outer}"),
                             f"the element of {eid} lies inside the element of {outer} (a closing tag is lost), so "
                             f"{eid} would be read as text of {outer}: the markup is damaged")


def _check_preamble_tables(root: etree._Element, path: str | Path) -> None:
    """The preamble's citations are paragraphs; its only tables are the recitals' number | text rows, each inside
    its recital's div: one outside any is a recital whose div lost its opening tag (the preamble's text is no
    unit's, so the coverage check does not see it)."""
    for pbl in root.iter("div"):
        if not (pbl.get("id") or "").startswith(_PREAMBLE_ID):
            continue
        for table in pbl.iter("table"):
            if not any((a.get("id") or "").startswith("rct_") for a in table.iterancestors()):
                raise ParseError(path, f"div#{pbl.get('id')}", f"a recital's text outside any recital's element "
                                 f"({text_of(table)[:40]!r}…): its opening tag is lost; the markup is damaged")


def _check_bare_text(root: etree._Element, anchors: dict[str, str], path: str | Path) -> None:
    """In an OJ act all text of a unit is inside its paragraphs' and points' elements: text standing bare in a
    unit's div (a paragraph's opening tags cut, 'ss="oj-normal">2. By derogation …') belongs to no unit."""
    for el in root.iter("div"):
        uid = anchors.get(el.get("id") or "")
        if uid is None:
            continue
        for div in el.iter("div"):
            bare = next((t.strip() for t in (div.text, *(k.tail for k in div)) if t and t.strip()), None)
            if bare:
                raise ParseError(path, uid, f"text outside any paragraph's or point's markup ({bare[:40]!r}…): "
                                 "the markup is damaged")


def _label_ok(label: str) -> bool:
    """A point number ('(a)', '3.1.'), an indent ('—') or a quoted label ('‘(68)': text of another act)."""
    if is_quoted(label) or label_segment(label) is not None or dotted_label(label) is not None:
        return True
    try:
        return label_key(label) is None  # an indent: a dash or a bullet
    except ValueError:
        return False


def _is_data_table(el: etree._Element) -> bool:
    return any(c == "table" or c.endswith("-table") for c in classes(el))


def check_list_labels(root: etree._Element, parsed: ParsedAct, fmt: str, path: str | Path) -> None:
    """Every list item and numbered paragraph keeps its label and its own markup: one that lost either is
    a unit lost.

    Deleting the label of the last point of a list leaves no gap in the numbering: the point's text
    stays in its paragraph and the point is gone. OJ lists are label | text table rows (outside data
    tables), in tables whose opening tag is there; OJ paragraphs are `div#NNN.MMM`; consolidated
    lists are grid lists and numbered paragraphs (`span.no-parag`).
    """
    anchors = _anchors(parsed)
    if fmt not in _TEXT_CLASSES or not anchors:
        return
    # a table part whose parent is not its own (a row's or a nested table's opening tag lost): the XML parser
    # keeps what is written, so a cell stands in a section, a section or a column in the cell around it
    stray = [el for el in root.iter(*_TABLE_PARENTS) if el.getparent() is None
             or el.getparent().tag not in _TABLE_PARENTS[el.tag]]
    if stray:
        cell = stray[0]
        raise ParseError(path, _unit_around(cell, anchors), f"table markup (<{cell.tag}>) outside its table or row "
                         f"({text_of(cell)[:40]!r}): a list's table or row lost its opening tag; the markup is damaged")
    if fmt == "oj":
        _labels_outside_rows(root, anchors, path)
    for el in root.xpath("//div[@id] | //p[@id]"):
        uid = anchors.get(el.get("id"))
        if uid is None:
            continue
        if fmt == "consolidated":
            _consolidated_labels(el, uid, path)
            continue
        _stray_paragraphs(el, path)
        _oj_list_labels(el, uid, path)


_LABEL_ONLY = re.compile(r"^(?:\((?:[a-z]{1,3}|[ivxlc]{1,6}|\d{1,3})\)|—|-)$")


def _labels_outside_rows(root: etree._Element, anchors: dict[str, str], path: str | Path) -> None:
    """An OJ point's label ("(a)", "(ii)", "—") is a cell of its list's table row: a label standing outside any
    cell lost its table's markup (an HTML parser drops stray rows and cells), so its point would be read as text
    of the paragraph."""
    for p in root.iter("p"):
        label = norm_space("".join(p.itertext()))
        if _LABEL_ONLY.match(label) and not any(a.tag == "td" for a in p.iterancestors()):
            raise ParseError(path, _unit_around(p, anchors), f"a point's label {label!r} outside any list row (its "
                             "table's markup is lost): the markup is damaged")


def _unit_around(el: etree._Element, anchors: dict[str, str]) -> str:
    """The top-level unit whose element holds `el`, for the error line; "the act" when none does."""
    return next((anchors[a.get("id")] for a in el.iterancestors() if a.get("id") in anchors), "the act")


def _oj_list_labels(el: etree._Element, uid: str, path: str | Path) -> None:
    prev = "its first item"
    for table in el.iter("table"):
        if _is_data_table(table) or any(_is_data_table(a) for a in table.iterancestors("table")):
            continue
        # A list table lays out label | text in two (or three) columns; a row of one cell there lost its label's.
        columns = len(table.findall("col")) + len(table.findall("colgroup/col"))
        for row in table_rows(table):
            cells = [c for c in row if c.tag in ("td", "th")]
            if columns and len(cells) > columns:  # a row's <tr> lost: its cells joined the row before
                raise ParseError(path, f"{uid}, the list item after {prev}", f"a list row of {len(cells)} cells in a "
                                 f"table of {columns} columns (a row's markup is lost): the markup is damaged")
            # The content cell is only asked whether it has text (it may hold a whole list); a label cell
            # holds a label's few characters: its plain text is enough.
            if not cells or not any(t.strip() for t in cells[-1].itertext()) or (len(cells) < 2 and columns < 2):
                continue
            label = next((t for t in (norm_space("".join(c.itertext())) for c in reversed(cells[:-1])) if t), "")
            if not label or not _label_ok(label):
                what = "without its label" if not label else f"labelled {label[:20]!r}, not a point number"
                raise ParseError(path, f"{uid}, the list item after {prev}",
                                 f"a list item {what} ({text_of(cells[-1])[:40]!r}…): the markup is damaged")
            prev = repr(label)


def _stray_paragraphs(article: etree._Element, path: str | Path) -> None:
    """An OJ paragraph whose div lost its opening tag stands, number and all, beside its siblings' divs or
    inside the div of the paragraph before it: a numbered paragraph's text outside its own div."""
    divs = [d for d in article.xpath(".//div[@id]") if PAR_ID.match(d.get("id"))]
    if not divs:
        return
    for holder, own in ((article, None), *((d, PAR_ID.match(d.get("id"))) for d in divs)):
        blocks = holder.findall("p")
        for p in blocks[1:] if own else blocks:
            n = _PAR_NUMBER.match(norm_space(p.text or ""))  # the number opens the paragraph's own text
            if n and (own is None or int(n[1]) == int(own["par"]) + 1):
                where = f"div#{holder.get('id')}"
                raise ParseError(path, where, f"paragraph {n[1]} ({text_of(p)[:40]!r}…) stands outside its own "
                                 "div#NNN.MMM (its opening tag is lost): the markup is damaged")


def _consolidated_labels(el: etree._Element, uid: str, path: str | Path) -> None:
    for number in el.iter():  # every element marked as a paragraph's number
        if not isinstance(number.tag, str) or "no-parag" not in classes(number):
            continue
        # a paragraph number's span that took the paragraph's text (its closing tag cut) leaves no number
        if not _PAR_NUMBER_LABEL.match(label := norm_space("".join(number.itertext()))):
            raise ParseError(path, uid, f"a paragraph number that is not one ({label[:40]!r}): the markup is damaged")
        # a number in a div that lost its class "norm" numbers no paragraph the parser reads
        parent = number.getparent()
        if number.tag != "span" or parent is None or "norm" not in classes(parent):
            raise ParseError(path, uid, f"paragraph {label} outside a numbered paragraph's div.norm (its markup is "
                             "damaged)")
    for div in el.iter("div"):
        cls = classes(div)
        kids = [k for k in div if isinstance(k.tag, str)]
        if "grid-list" in cls:
            col1 = next((k for k in kids if "grid-list-column-1" in classes(k)), None)
            if col1 is not None and not text_of(col1):
                raise ParseError(path, uid, "a list item without its label (an empty grid-list-column-1): "
                                 "the markup is damaged")
        elif "norm" in cls and "inline-element" not in cls and any("inline-element" in classes(k) for k in kids) \
                and not any("no-parag" in classes(k) for k in kids):
            raise ParseError(path, uid, f"a numbered paragraph without its number ({text_of(div)[:40]!r}…): "
                             "the markup is damaged")
    for div in el.iter("div"):  # after the checks above, which name a damaged paragraph more precisely
        _unnumbered_after_numbered([k for k in div if isinstance(k.tag, str)], uid, path)


def _unnumbered_after_numbered(kids: list[etree._Element], uid: str, path: str | Path) -> None:
    """Numbered paragraphs are numbered to the end: a `div.norm` without its number after a numbered sibling
    lost it (its number's span damaged), and would be read as more text of the paragraph before it."""
    numbered = False
    for k in kids:
        if k.tag != "div" or "norm" not in classes(k):
            continue
        has_number = any("no-parag" in classes(x) for x in k if isinstance(x.tag, str))
        if numbered and not has_number:
            raise ParseError(path, uid, f"a paragraph without its number after numbered ones ({text_of(k)[:40]!r}…): "
                             "the markup is damaged")
        numbered |= has_number
