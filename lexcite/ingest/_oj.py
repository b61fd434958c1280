"""The builders shared by the two OJ parsers (`parse_oj`: ELI divs; `parse_oj_old`: flat layouts).

Vocabulary of the OJ markup (quotes, labels, headings, CELEX from titles and ELI links), nodes
and their emission as units, text with footnotes, point tables, annex builders, metadata, and the
independent count checks. `lexcite/ingest/_labels.py` holds the labels and words every format
shares.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from lxml import etree

from lexcite.celex import KIND_WORDS, celex
from lexcite.celex import doc_kind as celex_doc_kind
from lexcite.contract import is_celex
from lexcite.errors import ParseError
from lexcite.ingest._labels import POINT_WORD, display_label, heading_word_case
from lexcite.ingest._markup import classes, norm_space, text_of
from lexcite.ingest._units import UnitCollector

# ---------------------------------------------------------------------------
# Vocabulary of the OJ markup (labels and words of every format: lexcite/ingest/_labels.py)
# ---------------------------------------------------------------------------

OPEN_QUOTES = "‘“„«‚\"'"
_CLOSES_QUOTE = re.compile(r"[’”»\"']\s*[)\].,;:]*\s*$")
# "‘personal data’ means", "“AI-systeem”: een": a defined term, not a quotation.
_DEFINED_TERM = re.compile(r"^[‘“„«][^’”»‘“\n]{1,80}[’”»]\s*(?:[\w(:,]|$)")
_POINT_LABEL = re.compile(r"^\(?(?P<n>[0-9]{1,3}[a-z]{0,3}|[a-z]{1,4}|[A-Z]{1,2})\)?\.?$")
_DOTTED_LABEL = re.compile(r"^\(?(?P<n>[0-9]{1,3}(?:\.[0-9]{1,3})+)\)?\.?$")
PAR_ID = re.compile(r"^(?P<art>[0-9]{3})(?P<artx>[A-Z]*)\.(?P<par>[0-9]{3})(?P<parx>[A-Z]*)$")
ART_NUMBER = re.compile(r"(\d+)\s*([a-z]{0,6})\b", re.IGNORECASE)
_DATE = re.compile(r"^\s*(\d{1,2})\s*[./]\s*(\d{1,2})\s*[./]\s*(\d{4})\s*$")

ANNEX_WORDS = ("ANNEX", "BIJLAGE", "ANHANG", "ANNEXE", "ALLEGATO", "ANEXO")
_PART_WORDS = ("part", "deel", "teil", "partie", "parte")
_SECTION_WORDS = ("section", "afdeling", "abschnitt", "sección", "seccion", "sezione")
_SECTION_HEADING = re.compile(
    rf"^(?P<word>{'|'.join(_PART_WORDS + _SECTION_WORDS)})\s+(?P<n>[A-Z]{{1,4}}|[0-9]{{1,3}}[a-z]?)"
    r"(?![\w/])\s*[.:—–-]?\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_NUMBERED_HEADING = re.compile(r"^(?P<n>[0-9]{1,3}|[a-z]|[A-Z])\.\s+(?P<rest>\S.*)$")

# ELI type segment -> CELEX type letter
_ELI_TYPE = {"reg": "R", "reg_impl": "R", "reg_del": "R", "dir": "L", "dir_impl": "L", "dir_del": "L",
             "dec": "D", "dec_impl": "D", "dec_del": "D"}
_KIND_ALT = "|".join(w for words in KIND_WORDS.values() for w in words)
# "REGULATION (EU) 2024/1689", "DIRECTIVE 2002/58/EC", "Regulation (EC) No 300/2008"
_DOC_NUMBER = re.compile(
    rf"(?P<kind>{_KIND_ALT})\s*(?:\((?:EU|EC|EEC|EG|EEG|CE|CEE|UE|Euratom|EU, Euratom)\)\s*)?"
    r"(?P<no>(?:No|Nr\.?|nr\.?|n\.|n°)\s*)?(?P<a>\d{1,4})/(?P<b>\d{1,4})",
    re.IGNORECASE,
)
# Formex file names in <title>: act-by-act `L_202401689EN.000101.fmx.xml`, OJ issue `L_2016119EN.01000101.xml`
_FMX_TITLE = re.compile(r"^(?P<series>[A-Z])_(?P<year>\d{4})(?P<num>\d{3,5})(?P<lang>[A-Z]{2})\.(?P<rest>\d+)")
_ELI_URI = re.compile(r"data\.europa\.eu/eli/(?P<type>[a-z_]+)/(?P<year>\d{4})/(?P<num>\d+)")


def opens_quote(text: str) -> bool:
    """A block that starts a quotation (not a defined term like "‘AI system’ means")."""
    return bool(text) and text[0] in OPEN_QUOTES and not _DEFINED_TERM.match(text)


def closes_quote(text: str) -> bool:
    return bool(_CLOSES_QUOTE.search(text))


def label_segment(label: str) -> str | None:
    """'(a)' -> 'a', 'iii)' -> 'iii', '14.' -> '14', '(ba)' -> 'ba'; '—', '•' or a word -> None."""
    label = norm_space(label)
    if not any(c in label for c in "()."):
        return None
    m = _POINT_LABEL.match(label)
    return m["n"] if m else None


def dotted_label(label: str) -> list[str] | None:
    """'3.1.' -> ['3', '1']."""
    m = _DOTTED_LABEL.match(norm_space(label))
    return m["n"].split(".") if m else None


def parse_date(text: str) -> str | None:
    """'12.7.2024' -> '2024-07-12'."""
    m = _DATE.match(norm_space(text))
    if not m:
        return None
    d, mth, y = (int(x) for x in m.groups())
    try:
        return date(y, mth, d).isoformat()
    except ValueError:
        return None


def celex_from_eli(text: str) -> str | None:
    m = _ELI_URI.search(text)
    if not m or m["type"] not in _ELI_TYPE:
        return None
    return f"3{m['year']}{_ELI_TYPE[m['type']]}{int(m['num']):04d}"


def kind_from_title(title: str) -> str | None:
    head = title.upper()
    best: tuple[int, str] | None = None
    for kind, words in KIND_WORDS.items():
        for w in words:
            i = head.find(w.upper())
            if i >= 0 and (best is None or i < best[0]):
                best = (i, kind)
    return best[1] if best else None


def celex_from_title(title: str) -> str | None:
    """'REGULATION (EU) 2016/679 OF ...' -> '32016R0679'; 'DIRECTIVE 95/46/EC' -> '31995L0046'."""
    m = _DOC_NUMBER.search(title)
    if not m:
        return None
    kind = kind_from_title(m["kind"]) or "regulation"
    a, b = m["a"], m["b"]
    year, number = (b, a) if m["no"] else (a, b)  # "No 300/2008" is number/year
    if len(year) == 2:
        year = ("19" if int(year) > 50 else "20") + year
    if len(year) != 4:
        return None
    return celex(year, kind, number)


def fmx_year_number(title: str) -> tuple[str, str] | None:
    """`L_202401689EN.000101.fmx.xml` -> ('2024', '1689'); OJ-issue names (`L_2016119EN.01000101`) -> None."""
    m = _FMX_TITLE.match(norm_space(title))
    if not m or len(m["num"]) != 5 or len(m["rest"]) != 6:
        return None
    return m["year"], str(int(m["num"]))


def fmx_language(title: str) -> str | None:
    m = _FMX_TITLE.match(norm_space(title))
    return m["lang"].lower() if m else None


def has_class(cls: str) -> str:
    """XPath predicate body: element has the class `cls`."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {cls} ')"


# ---------------------------------------------------------------------------
# Nodes: built with their full text, emitted in document order
# ---------------------------------------------------------------------------


@dataclass
class Node:
    seg: str  # id segment, e.g. "art_6", "par_2", "pnt_h"
    kind: str
    title: str
    text: str
    anchor: str | None
    footnotes: tuple[str, ...] = ()
    children: list[Node] = field(default_factory=list)


def emit(collector: UnitCollector, node: Node, parent: str | None = None) -> None:
    uid = f"{parent}.{node.seg}" if parent else node.seg
    collector.add(uid, node.kind, node.title, node.text, parent, anchor=node.anchor, footnotes=node.footnotes)
    seen: set[str] = set()
    restarted = False
    for child in node.children:
        if child.kind == "point" and (restarted or child.seg in seen):
            # A second run of points labelled alike in one container (two subparagraphs
            # that each list (a), (b), as in AI Act Article 43(1)): the id scheme has no
            # subparagraph level, so from the restart on the points stay text of their
            # container and only the first run has ids. Other repeats reach the collector,
            # which refuses them.
            restarted = True
            continue
        seen.add(child.seg)
        emit(collector, child, uid)


# ---------------------------------------------------------------------------
# Text and footnotes
# ---------------------------------------------------------------------------


class Texts:
    """text_of, plus the footnotes whose call-outs an element holds."""

    def __init__(self, notes: dict[str, str]):
        self.notes = notes
        # Units nest, so the same element's text is asked for several times; the tree
        # does not change once the notes are out, and holding the elements as keys
        # keeps their proxies (and so the keys) alive.
        self._memo: dict[etree._Element, str] = {}

    def text(self, el: etree._Element) -> str:
        t = self._memo.get(el)
        if t is None:
            t = self._memo[el] = text_of(el)
        return t

    def join(self, els: Iterable[etree._Element]) -> str:
        # Each part is already normalised (text_of), so joining the non-empty ones is enough.
        return " ".join(t for t in map(self.text, els) if t)

    def footnotes(self, els: Iterable[etree._Element]) -> tuple[str, ...]:
        out: list[str] = []
        for el in els:
            for a in el.iter("a"):
                href = a.get("href") or ""
                note = self.notes.get(href[1:]) if href.startswith("#ntr") else None
                if note and note not in out:
                    out.append(note)
        return tuple(out)


def take_notes(root: etree._Element, note_class: str) -> dict[str, str]:
    """Footnote bodies keyed by their anchor id (`ntr…`); removed from the (copied) tree.

    Notes sit at the end of the act, but also inside the points of amending articles
    (AI Act Article 108); removing them keeps their text out of the units' text.
    """
    notes: dict[str, str] = {}
    for el in root.xpath(f"//*[self::p or self::hr or self::div][{has_class(note_class)}]"):
        if el.tag == "p":
            anchor = el.find(".//a[@id]")
            if anchor is not None and (anchor.get("id") or "").startswith("ntr"):
                notes[anchor.get("id")] = text_of(el)
        drop(el)
    return notes


def drop(el: etree._Element) -> None:
    """Remove an element, keeping its tail text."""
    parent = el.getparent()
    if parent is None:
        return
    if el.tail and el.tail.strip():
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


# ---------------------------------------------------------------------------
# Points: "(a) | text" table rows, nested recursively
# ---------------------------------------------------------------------------


def table_rows(table: etree._Element) -> list[etree._Element]:
    rows: list[etree._Element] = []
    for child in table:
        if not isinstance(child.tag, str):
            continue
        if child.tag == "tr":
            rows.append(child)
        elif child.tag in ("tbody", "thead", "tfoot"):
            rows.extend(c for c in child if isinstance(c.tag, str) and c.tag == "tr")
    return rows


@dataclass
class PointRow:
    el: etree._Element  # the row (or the element that holds label and text)
    label: str  # as written, e.g. "(a)", "1.", "‘(g)"
    content: etree._Element  # where its sub-points are looked for


def point_row(row: etree._Element, data_table_class: str) -> PointRow | None:
    """A table row that is a list item: one label cell (after empty cells), then the content cell."""
    table = row.getparent()
    if table is not None and table.tag != "table":
        table = table.getparent()
    if table is not None and data_table_class in classes(table):
        return None
    cells = [c for c in row if isinstance(c.tag, str) and c.tag in ("td", "th")]
    if len(cells) < 2:
        return None
    *before, content = cells
    labels = [text_of(c) for c in before]
    if not labels[-1] or any(labels[:-1]):
        return None
    return PointRow(row, labels[-1], content)


@dataclass
class Block:
    el: etree._Element  # a child element, or one row of a child table
    point: PointRow | None


def child_blocks(container: etree._Element, data_table_class: str) -> Iterator[Block]:
    for child in container:
        if not isinstance(child.tag, str):
            continue
        if child.tag == "table":
            for r in table_rows(child):
                yield Block(r, point_row(r, data_table_class))
        else:
            yield Block(child, None)


def blocks_with_quotes(
    container: etree._Element, data_table_class: str, text: Callable[[etree._Element], str] = text_of
) -> Iterator[tuple[Block, bool]]:
    """Each child block and whether it is quoted text of an amending act.

    A quotation opens at a block (or point label) that starts with an opening quote
    mark and runs until a block whose text ends with a closing one.
    """
    quoted = False
    prev = ""
    for b in child_blocks(container, data_table_class):
        t = text(b.el)
        if not quoted:
            if b.point is not None:
                quoted = b.point.label[:1] in OPEN_QUOTES
            else:
                quoted = opens_quote(t) and (prev.endswith(":") or b.el.tag != "p")
        yield b, quoted
        if quoted and closes_quote(t):
            quoted = False
        if t:
            prev = t


class PointBuilder:
    def __init__(self, texts: Texts, lang: str, data_table_class: str):
        self.texts, self.lang, self.data_table_class = texts, lang, data_table_class
        self.word = POINT_WORD.get(lang, "point")

    def points(self, container: etree._Element, ref: str, suffix: str, anchor: str | None,
               labels: tuple[str, ...] = ()) -> list[Node]:
        """The points that are direct children of `container`; `ref` is e.g. 'Article 5(1)'."""
        out: list[Node] = []
        for b, quoted in blocks_with_quotes(container, self.data_table_class, self.texts.text):
            if quoted or b.point is None:
                continue
            seg = label_segment(b.point.label)
            if seg is not None:  # else an indent ("—") or a data cell: text of the container
                out.append(self.point(b.point, seg, ref, suffix, anchor, labels))
        return out

    def point(self, pr: PointRow, seg: str, ref: str, suffix: str, anchor: str | None,
              labels: tuple[str, ...] = ()) -> Node:
        labels = labels + (display_label(pr.label),)
        node = Node(
            seg=f"pnt_{seg}",
            kind="point",
            title=f"{ref}, {self.word} {''.join(labels)}{suffix}",
            text=self.texts.text(pr.el),
            anchor=anchor,
            footnotes=self.texts.footnotes([pr.el]),
        )
        node.children = self.points(pr.content, ref, suffix, anchor, labels)
        return node


# ---------------------------------------------------------------------------
# Annexes: section and numbered headings, point tables
# ---------------------------------------------------------------------------


@dataclass
class _Box:
    """An open container while reading an annex: the annex, a section or a numbered heading."""

    node: Node
    level: int  # 0 annex, 1 part, 2 section, 3 numbered heading, 4 lettered heading
    ref: str  # what its points are "of": "Annex I, Section A"
    labels: tuple[str, ...] = ()  # heading numbers its points continue: ("3",)
    els: list[etree._Element] = field(default_factory=list)
    bare: bool = False  # a "Section 1" heading still waiting for its title line


class AnnexBuilder:
    def __init__(self, texts: Texts, points: PointBuilder, prefix: str):
        self.texts, self.pb, self.prefix = texts, points, prefix

    def _is(self, el: etree._Element, cls: str) -> bool:
        return f"{self.prefix}{cls}" in classes(el)

    def _flat(self, els: Iterable[etree._Element]) -> Iterator[etree._Element]:
        for el in els:
            if not isinstance(el.tag, str):
                continue
            if el.tag == "div" and not self._is(el, "enumeration-spacing") and not el.get("id"):
                yield from self._flat(el)
            else:
                yield el

    def build(self, seg: str, heading: str, subtitle: str, anchor: str | None,
              body: list[etree._Element]) -> Node:
        ref = heading_word_case(heading)
        suffix = f" — {subtitle}" if subtitle else ""
        annex = Node(seg, "annex", ref + suffix, self.texts.join(body), anchor, self.texts.footnotes(body))
        stack = [_Box(annex, 0, ref)]
        boxes: list[_Box] = []
        for el in self._flat(body):
            is_heading = any(self._is(el, f"ti-grseq-{i}") for i in (1, 2, 3))
            box = self._heading_box(self.texts.text(el), stack, anchor) if is_heading else None
            if box is not None:
                while stack[-1].level >= box.level:
                    stack.pop()
                stack[-1].node.children.append(box.node)
                stack.append(box)
                boxes.append(box)
            elif is_heading and stack[-1].bare:  # "Section 1" + its title on the next line
                stack[-1].node.title += f" — {self.texts.text(el)}"
                stack[-1].bare = False
            else:
                stack[-1].bare = False
            for b in stack[1:]:
                b.els.append(el)
            if not is_heading:
                for owner, pnode in self._points(el, stack, suffix, anchor):
                    owner.node.children.append(pnode)
        for b in boxes:
            b.node.text = self.texts.join(b.els)
            b.node.footnotes = self.texts.footnotes(b.els)
        return annex

    def _heading_box(self, heading: str, stack: list[_Box], anchor: str | None) -> _Box | None:
        m = _SECTION_HEADING.match(heading)
        if m:
            level = 1 if m["word"].lower() in _PART_WORDS else 2
            parent = self._parent(stack, level)
            ref = f"{parent.ref}, {m['word'][0].upper()}{m['word'][1:].lower()} {m['n']}"
            rest = m["rest"].strip()
            node = Node(f"sct_{m['n']}", "section", ref + (f" — {rest}" if rest else ""), "", anchor)
            return _Box(node, level, ref, bare=not rest)
        m = _NUMBERED_HEADING.match(heading)
        if m:
            n = m["n"]
            if n.isupper():  # "A. Requirements": a section without the word
                parent = self._parent(stack, 2)
                node = Node(f"sct_{n}", "section", f"{parent.ref}, {n} — {m['rest']}", "", anchor)
                return _Box(node, 2, f"{parent.ref}, {n}")
            level = 3 if n.isdigit() else 4
            parent = self._parent(stack, level)
            labels = parent.labels + ((n,) if level == 3 else (f"({n})",))
            title = f"{parent.ref}, {self.pb.word} {''.join(labels)} — {m['rest']}"
            return _Box(Node(f"pnt_{n}", "point", title, "", anchor), level, parent.ref, labels)
        return None

    @staticmethod
    def _parent(stack: list[_Box], level: int) -> _Box:
        for b in reversed(stack):
            if b.level < level:
                return b
        return stack[0]

    def _rows(self, el: etree._Element) -> list[PointRow]:
        if el.tag == "table":
            rows = [point_row(r, f"{self.prefix}table") for r in table_rows(el)]
            return [r for r in rows if r is not None]
        if el.tag == "div" and self._is(el, "enumeration-spacing"):
            kids = [c for c in el if isinstance(c.tag, str)]
            if len(kids) >= 2 and kids[0].tag == "p":
                return [PointRow(el, text_of(kids[0]), el)]
        return []

    def _points(self, el: etree._Element, stack: list[_Box], suffix: str,
                anchor: str | None) -> Iterator[tuple[_Box, Node]]:
        for pr in self._rows(el):
            if pr.label[:1] in OPEN_QUOTES:
                continue
            parts = dotted_label(pr.label)
            if parts:  # "3.1." belongs to the heading numbered 3
                owner = next((b for b in reversed(stack) if b.labels == tuple(parts[:-1])), None)
                if owner is None or owner.level != 3:
                    continue  # no such heading: stays text of its container
                yield owner, self.pb.point(pr, parts[-1], owner.ref, suffix, anchor)
                continue
            seg = label_segment(pr.label)
            if seg is not None:
                top = stack[-1]
                yield top, self.pb.point(pr, seg, top.ref, suffix, anchor, top.labels)


# ---------------------------------------------------------------------------
# Metadata
# ---------------------------------------------------------------------------


@dataclass
class Meta:
    act: str
    version: str
    language: str
    title: str
    doc_kind: str


def act_title(lines: list[str]) -> str:
    """The doc-ti lines, without a closing "(Text with EEA relevance)"."""
    lines = [norm_space(x) for x in lines if norm_space(x)]
    if len(lines) > 1 and lines[-1].startswith("(") and lines[-1].endswith(")"):
        lines = lines[:-1]
    return " ".join(lines)


def detect_meta(
    root: etree._Element,
    path: str | Path,
    prefix: str,
    title_lines: list[str],
    act: str | None,
    version: str | None,
    language: str | None,
) -> Meta:
    """Explicit arguments win; otherwise read the document. Raises ParseError naming the option."""
    title = act_title(title_lines)
    head_title = norm_space(" ".join(root.xpath("//head/title/text()")[:1]))
    kind = kind_from_title(title)

    def first(cls: str) -> str:
        found = root.xpath(f"//p[{has_class(prefix + cls)}]")
        return text_of(found[0]) if found else ""

    if act is None:
        # The act's own "ELI: http://data.europa.eu/eli/reg/2024/1689/oj" line; the ones in
        # footnotes (p.oj-note, inside cells) name other acts.
        for p in root.xpath(f"//p[{has_class(prefix + 'normal')}][starts-with(normalize-space(.), 'ELI:')]"
                            "[not(ancestor::td)]"):
            act = celex_from_eli(text_of(p))
            if act:
                break
    if act is None:
        for m in root.xpath("//meta[@property='eli:id_local' or @name='eli:id_local']"):
            value = norm_space(m.get("content") or "")
            if is_celex(value):
                act = value
                break
    if act is None and title:
        act = celex_from_title(title)
    if act is None and (yn := fmx_year_number(head_title)) and kind:
        act = celex(yn[0], kind, yn[1])
    if act is None:
        raise ParseError(path, "document header", "cannot detect the act's CELEX number; pass --celex")
    if not is_celex(act):
        raise ParseError(path, "document header", f"{act!r} is not a CELEX number; pass --celex")

    if version is not None:
        try:
            version = date.fromisoformat(version).isoformat()
        except ValueError:
            raise ParseError(path, "arguments", f"version {version!r} is not a date; pass --version YYYY-MM-DD") \
                from None
    else:
        version = parse_date(first("hd-date"))
        if version is None:
            raise ParseError(path, "document header",
                             "cannot detect the publication date (hd-date); pass --version")
    if language is None:
        lg = norm_space(first("hd-lg")).lower()
        if len(lg) == 2 and lg.isalpha():
            language = lg
        else:
            language = fmx_language(head_title)
        if language is None:
            for el in (root, *root.xpath("//body")):
                lang = (el.get("lang") or el.get("{http://www.w3.org/XML/1998/namespace}lang") or "").lower()
                if len(lang) >= 2 and lang[:2].isalpha():
                    language = lang[:2]
                    break
        if language is None:
            raise ParseError(path, "document header", "cannot detect the language (hd-lg); pass --language")
    language = language.lower()
    if not re.fullmatch(r"[a-z]{2}", language):
        raise ParseError(path, "arguments", f"language {language!r} is not an ISO 639-1 code; pass --language")
    doc_kind = kind or celex_doc_kind(act)
    return Meta(act, version, language, title, doc_kind)


def check_sequence(path: str | Path, what: str, numbers: list[str]) -> None:
    """Articles and recitals of an original act run 1, 2, 3 … (4a may follow 4): a gap is a lost unit."""
    prev = 0
    for n in numbers:
        m = re.fullmatch(r"(\d+)([a-z]*)", n.lower())
        if not m:
            raise ParseError(path, f"{what} {n}", "not a number")
        k = int(m[1])
        if not (k == prev + 1 or (m[2] and k == prev)):
            raise ParseError(path, f"{what} {n}", f"{what} do not run in sequence ({prev} then {n}); "
                             "a unit was lost or misread")
        prev = k


def check_count(path: str | Path, what: str, found: int, expected: int, how: str) -> None:
    if found != expected:
        raise ParseError(path, what, f"emitted {found} {what} but the markup has {expected} ({how}); "
                         "refusing a short or padded list")


