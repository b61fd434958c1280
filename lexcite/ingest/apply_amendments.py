"""Apply an amending act's instructions: the target act's version that results.

From the target's latest version before the amending act applies (e.g. AI Act 2024-07-12)
and the instructions read by `lexcite.ingest.amendments`, build a new version of the target
(version = the amending act's entry into force, e.g. 2026-07-27, format "amended"):

* replaced units get the new text, parsed into paragraphs and points by the OJ parser itself
  (the quoted markup is wrapped in its target's containers and built by the OJ parser's builders);
* inserted units are new units, placed after the sibling they follow in numbering order;
* deleted units are absent;
* headings, introductory parts and unnumbered subparagraphs change the text of their unit;
  subparagraph boundaries are read from the base version's OJ markup;
* every ancestor whose text contains a changed unit's text gets the change too (a paragraph's
  text includes its points), when that text occurs in it exactly once; otherwise the outcome
  says which ancestor kept its old text.

Changed and inserted units carry `changed_by` = the amending unit's reference
(`32026R1744@2026-07-24#art_1.pnt_5`) and link to the amending act. The result is stored with
`Catalog.store`, which makes it current and closes the base version's validity at that date.
A version of the same date that did not come from here (a consolidated text) always wins: it
is never overwritten, and ingesting one later replaces the derived version as the version's text;
the derived units are then kept beside it (`Catalog.derived_units`, `lexcite show REF --derived`)
with the comparison (`lexcite.ingest.consolidation`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from lxml import etree, html

from lexcite.catalog import Catalog, Source, StoreResult, VersionRow
from lexcite.contract import CONSOLIDATED_FORMATS, DERIVED_FORMAT, CitationRef, ParsedAct, Unit
from lexcite.errors import CatalogError, CitationError, LexciteError
from lexcite.ingest._markup import consolidated_link, read_html, text_of
from lexcite.ingest.amendments import (
    AmendingAct,
    Instruction,
    Quoted,
    amended_acts,
    is_amending_text,
    read_amending_act,
)
from lexcite.ingest.consolidation import ConsolidationCheck, compare_versions
from lexcite.ingest.detect import detect_html_format
from lexcite.ingest.parse_oj import parse_oj_fragment

__all__ = [
    "DERIVED_FORMAT",
    "ApplyResult",
    "derive",
    "oj_subparagraphs",
    "apply_amending_act",
    "apply_stored",
    "update_amendments",
]

_ROMAN = re.compile(r"^(?=[IVXLC]+$)C{0,3}(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})$", re.IGNORECASE)
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


class _NotApplied(Exception):
    pass


@dataclass
class ApplyResult:
    """What applying one amending act to one target act did."""

    amending: str  # "32026R1744@2026-07-24"
    target: str
    language: str
    base_version: str | None
    version: str | None  # the derived version, when one was built
    stored: StoreResult | None = None
    check: ConsolidationCheck | None = None  # when an official consolidation of that date is stored
    outcomes: dict[int, str] = field(default_factory=dict)  # link order -> "applied" / "not applied: …"
    note: str = ""  # why nothing was built
    # link order -> the date its change applies from: the later of the amending act's entry into force and the
    # date the (amended) act's application rules set for the changed unit (ingest/dates.py)
    applies_from: dict[int, str] = field(default_factory=dict)
    # "32014R0910@2024-10-18": a stored official consolidation already incorporates this amending act
    consolidated_in: str | None = None

    @property
    def applied(self) -> int:
        return sum(1 for o in self.outcomes.values() if o.startswith("applied"))

    @property
    def not_applied(self) -> dict[int, str]:
        return {k: v for k, v in self.outcomes.items() if not v.startswith("applied")}


# ---------------------------------------------------------------------------
# New text -> units, by the OJ parser
# ---------------------------------------------------------------------------


def _el(tag: str, cls: str | None = None, id_: str | None = None, text: str | None = None) -> etree._Element:
    e = etree.Element(tag)
    if cls:
        e.set("class", cls)
    if id_:
        e.set("id", id_)
    if text is not None:
        e.text = text
    return e


def _seg_label(seg: str) -> str:
    return seg.split("_", 1)[1]


def _div_number(label: str) -> str:
    """'4a' -> '004A' (the OJ div id numbering)."""
    m = re.fullmatch(r"(\d+)([a-z]*)", label)
    if not m:
        raise _NotApplied(f"{label!r} cannot be numbered like an OJ div id")
    return f"{int(m[1]):03d}{m[2].upper()}"


def _split_title(title: str) -> tuple[str, str]:
    head, _, sub = title.partition(" — ")
    return head, sub


def _document(*blocks: etree._Element) -> etree._Element:
    root = html.fromstring("<html><head><title>fragment</title></head><body></body></html>")
    body = root.find("body")
    container = _el("div", "eli-container")
    main = _el("div", "eli-main-title", "tit_1")
    main.append(_el("p", "oj-doc-ti", text="FRAGMENT"))
    container.append(main)
    enc = _el("div", "eli-subdivision", "enc_1")
    container.append(enc)
    body.append(container)
    for b in blocks:
        (enc if (b.get("id") or "").startswith("art_") else body).append(b)
    return root


def _article_shell(art_seg: str, draft: _Draft) -> etree._Element:
    label = _seg_label(art_seg)
    title = draft.units[art_seg].title if art_seg in draft.units else f"Article {label}"
    head, sub = _split_title(title)
    div = _el("div", "eli-subdivision", art_seg)
    div.append(_el("p", "oj-ti-art", text=head))
    if sub:
        t = _el("div", "eli-title", f"{art_seg}.tit_1")
        t.append(_el("p", "oj-sti-art", text=sub))
        div.append(t)
    return div


def _point_table(label: str, content: Iterable[etree._Element] = (), text: str = "") -> etree._Element:
    table = _el("table")
    tr = etree.SubElement(etree.SubElement(table, "tbody"), "tr")
    etree.SubElement(etree.SubElement(tr, "td"), "p", {"class": "oj-normal"}).text = f"({label})"
    cell = etree.SubElement(tr, "td")
    etree.SubElement(cell, "p", {"class": "oj-normal"}).text = text or "…"
    for c in content:
        cell.append(c)
    return table


def _wrap_in_parents(parent: str, inner: list[etree._Element], draft: _Draft) -> tuple[etree._Element, ...]:
    """Build the containers `parent` names (article, paragraph, points / annex, section) around `inner`."""
    segs = parent.split(".")
    pnts = [s for s in segs if s.startswith("pnt_")]
    head = [s for s in segs if not s.startswith("pnt_")]
    # points of points: nested tables, innermost last
    for seg in reversed(pnts):
        inner = [_point_table(_seg_label(seg), inner)]
    if head[0].startswith("art_"):
        art = _article_shell(head[0], draft)
        if len(head) == 2 and head[1].startswith("par_"):
            div = _el("div", None, f"{_div_number(_seg_label(head[0]))}.{_div_number(_seg_label(head[1]))}")
            div.append(_el("p", "oj-normal", text=f"{_seg_label(head[1])}.   …"))
            div.extend(inner)
            art.append(div)
        elif len(head) == 1:
            art.append(_el("p", "oj-normal", text="…"))
            art.extend(inner)
        else:
            raise _NotApplied(f"no OJ layout for a unit under {parent}")
        return (art,)
    if head[0].startswith("anx_") and len(head) <= 2 and not pnts:
        return (_annex_shell(head[0], head[1] if len(head) == 2 else None, inner, draft),)
    raise _NotApplied(f"no OJ layout for a unit under {parent}")


def _annex_shell(anx: str, sct: str | None, inner: list[etree._Element], draft: _Draft) -> etree._Element:
    label = _seg_label(anx)
    head, sub = _split_title(draft.units[anx].title if anx in draft.units else f"Annex {label}")
    div = _el("div", "eli-container", anx)
    div.append(_el("p", "oj-doc-ti", text=f"ANNEX {label}"))
    if sub:
        div.append(_el("p", "oj-doc-ti", text=sub))
    if sct:
        uid = f"{anx}.{sct}"
        title = draft.units[uid].title if uid in draft.units else ""
        rest = title.split(" — ", 1)[1] if " — " in title else ""
        word = "Part" if ", Part " in title else "Section"
        div.append(_el("p", "oj-ti-grseq-1", text=f"{word} {_seg_label(sct)}" + (f" — {rest}" if rest else "")))
    div.extend(inner)
    return div


def _annex_from_quote(q: Quoted, anx: str) -> etree._Element:
    """A quoted annex (‘Annex XIV, its title as plain text, then its body) as an OJ annex container."""
    heads = q.el.xpath(".//p[contains(concat(' ', @class, ' '), ' oj-doc-ti ')]")
    head = heads[0]
    body = [c for c in head.getparent() if isinstance(c.tag, str) and c is not head]
    div = _el("div", "eli-container", anx)
    # A quoted annex without a subtitle (the Omnibus's Annex XIV) opens with a plain paragraph: the
    # official consolidation keeps it as the annex's first text, not as its title.
    div.append(_el("p", "oj-doc-ti", text=f"ANNEX {_seg_label(anx)}"))
    div.extend(body)
    return div


def _unquote_level(text: str) -> str:
    return text.replace("“", "‘").replace("”", "’")


def _fragment_units(q: Quoted, uid: str, parent: str | None, draft: _Draft) -> list[Unit]:
    """The units the quoted block `q` becomes at `uid`, as the OJ parser numbers and titles them.

    The quoted markup is wrapped in the containers its target lives in (article, paragraph,
    annex, section) and handed to the OJ parser's own article and annex builders; the
    document-level checks of `parse_oj` (articles 1, 2, 3 …) do not apply to a fragment.
    """
    el = q.el
    if q.kind == "article":
        div = _el("div", "eli-subdivision", uid)
        div.extend(list(el) if el.tag == "div" else [el])
        blocks: tuple[etree._Element, ...] = (div,)
    elif q.kind == "paragraph":
        if parent is None:
            raise _NotApplied("a paragraph without an article")
        div = _el("div", None, f"{_div_number(_seg_label(parent.split('.')[0]))}.{_div_number(q.label or '')}")
        div.extend(list(el) if el.tag == "div" else [el])
        art = _article_shell(parent.split(".")[0], draft)
        art.append(div)
        blocks = (art,)
    elif q.kind == "point":
        if parent is None:
            raise _NotApplied("a point without a parent")
        blocks = _wrap_in_parents(parent, [el], draft)
    elif q.kind == "annex":
        blocks = (_annex_from_quote(q, uid),)
    else:
        raise _NotApplied(f"quoted {q.kind} text has no unit structure")
    root = _document(*blocks)
    path = Path(f"<quoted text for {uid}>")
    try:
        built = parse_oj_fragment(root, path, draft.act, draft.version, draft.language, draft.binding)
    except LexciteError as e:
        raise _NotApplied(f"the OJ parser refused the quoted text: {e}") from None
    # Quoted text quotes one level down (‘… “safety component” means …’); once in place it is the
    # act's own text, where the OJ and the official consolidation use single quotes.
    found = tuple(replace(u, title=_unquote_level(u.title), text=_unquote_level(u.text)) for u in built)
    units = [u for u in found if u.unit == uid or u.unit.startswith(uid + ".")]
    if not units or units[0].unit != uid:
        got = ", ".join(u.unit for u in found[:6])
        raise _NotApplied(f"the quoted text did not parse as {uid} (got {got})")
    return units


# ---------------------------------------------------------------------------
# The draft: the base version's units, edited instruction by instruction
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _U:
    unit: str
    kind: str
    title: str
    text: str
    parent: str | None
    source_url: str
    footnotes: tuple[str, ...]


def _label_key(label: str, roman: bool) -> tuple[int, int, str]:
    if roman and _ROMAN.match(label):
        total, prev = 0, 0
        for ch in reversed(label.upper()):
            v = _ROMAN_VALUES[ch]
            total, prev = (total - v, prev) if v < prev else (total + v, v)
        return (0, total, "")
    m = re.fullmatch(r"(\d+)([a-z]*)", label)
    if m:
        return (0, int(m[1]), m[2])
    return (1, 0, label)


def _label_after(uid: str, other: str) -> bool:
    """Whether the last segment of `uid` numbers after that of `other` (point 9 after point 8)."""
    a, b = _seg_label(uid.rsplit(".", 1)[-1]), _seg_label(other.rsplit(".", 1)[-1])
    return _label_key(a, False) > _label_key(b, False)


def _seg_type(uid: str) -> str:
    return uid.rsplit(".", 1)[-1].split("_", 1)[0]


def _replace_once(text: str, old: str, new: str) -> str | None:
    if not old or text.count(old) != 1:
        return None
    return text.replace(old, new)


class _Draft:
    def __init__(self, base: list[Unit], act: str, version: str, language: str, binding: bool,
                 subparagraphs: Callable[[str], list[tuple[str, str]] | None]):
        self.act, self.version, self.language, self.binding = act, version, language, binding
        self.units: dict[str, _U] = {
            u.unit: _U(u.unit, u.kind, u.title, u.text, u.parent, u.source_url, u.footnotes) for u in base}
        self.order: list[str] = [u.unit for u in base]
        self.changed: dict[str, str] = {}
        self.subparagraphs = subparagraphs

    # -- structure ----------------------------------------------------------------

    def subtree(self, uid: str) -> list[str]:
        i = self.order.index(uid)
        out = [uid]
        for nxt in self.order[i + 1:]:
            if not nxt.startswith(uid + "."):
                break
            out.append(nxt)
        return out

    def ancestors(self, uid: str) -> list[str]:
        out, p = [], self.units[uid].parent if uid in self.units else None
        while p is not None:
            out.append(p)
            p = self.units[p].parent
        return out

    def siblings(self, parent: str | None, seg_type: str) -> list[str]:
        return [u for u in self.order if self.units[u].parent == parent and _seg_type(u) == seg_type]

    def _roman(self, seg_type: str, labels: list[str]) -> bool:
        return seg_type == "anx" or (bool(labels) and all(_ROMAN.match(x) for x in labels) and (
            "ii" in labels or labels == ["i"]))

    # -- text propagation ---------------------------------------------------------

    def propagate(self, start: str | None, old: str, new: str, ref: str, notes: list[str]) -> None:
        """Apply the text edit old -> new to `start` and each of its ancestors."""
        p = start
        while p is not None:
            u = self.units[p]
            got = _replace_once(u.text, old, new)
            if got is None:
                notes.append(f"text of {p} not updated (the changed text occurs "
                             f"{u.text.count(old) if old else 0} times in it)")
                return
            self.units[p] = replace(u, text=re.sub(r"\s+", " ", got).strip())
            self.changed[p] = ref
            p = u.parent

    # -- operations ---------------------------------------------------------------

    def place(self, new: list[Unit], ref: str, url: str, at: int) -> None:
        for k, u in enumerate(new):
            if u.unit in self.units:
                raise _NotApplied(f"{u.unit} already exists")
            self.units[u.unit] = _U(u.unit, u.kind, u.title, u.text, u.parent, url, u.footnotes)
            self.order.insert(at + k, u.unit)
            self.changed[u.unit] = ref

    def replace(self, ins: Instruction, target: str, q: Quoted, notes: list[str]) -> None:
        if target not in self.units:
            raise _NotApplied(f"{target} is not in the base version")
        old = self.units[target]
        new = _fragment_units(q, target, old.parent, self)
        new[0] = Unit(**{**new[0].to_dict(), "parent": old.parent, "footnotes": tuple(new[0].footnotes)})
        gone = self.subtree(target)
        at = self.order.index(target)
        for uid in gone:
            self.order.remove(uid)
            del self.units[uid]
            self.changed.pop(uid, None)
        self.place(new, str(ins.link.amending), ins.source_url, at)
        self.propagate(old.parent, old.text, new[0].text, str(ins.link.amending), notes)

    def insert(self, ins: Instruction, uid: str, q: Quoted, notes: list[str]) -> None:
        if uid in self.units:
            raise _NotApplied(f"{uid} already exists in the base version")
        parent = uid.rsplit(".", 1)[0] if "." in uid else None
        if parent is not None and parent not in self.units:
            raise _NotApplied(f"its parent {parent} is not in the base version")
        new = _fragment_units(q, uid, parent, self)
        new[0] = Unit(**{**new[0].to_dict(), "parent": parent, "footnotes": tuple(new[0].footnotes)})
        seg_type = _seg_type(uid)
        sibs = self.siblings(parent, seg_type)
        roman = self._roman(seg_type, [_seg_label(s.rsplit(".", 1)[-1]) for s in sibs])
        key = _label_key(_seg_label(uid.rsplit(".", 1)[-1]), roman)
        before = [s for s in sibs if _label_key(_seg_label(s.rsplit(".", 1)[-1]), roman) < key]
        after = [s for s in sibs if s not in before]
        if before:
            prev = before[-1]
            at = self.order.index(self.subtree(prev)[-1]) + 1
        elif after:
            prev = None
            at = self.order.index(after[0])
        elif parent is not None:
            prev = None
            at = self.order.index(self.subtree(parent)[-1]) + 1
        else:
            raise _NotApplied(f"no {seg_type} in the base version to place {uid} among")
        if ins.link.action == "added" and after:
            notes.append(f"'added' but numbered before {after[0]}; placed by its number")
        self.place(new, str(ins.link.amending), ins.source_url, at)
        text = new[0].text
        if parent is None:
            return
        ref = str(ins.link.amending)
        if prev is not None:
            anchor = self.units[prev].text
            self.propagate(parent, anchor, f"{anchor} {text}", ref, notes)
        elif after:
            anchor = self.units[after[0]].text
            self.propagate(parent, anchor, f"{text} {anchor}", ref, notes)
        else:
            self.append_text(parent, text, ref, notes)

    def delete(self, ins: Instruction, target: str, notes: list[str]) -> None:
        if target not in self.units:
            raise _NotApplied(f"{target} is not in the base version")
        old = self.units[target]
        for uid in self.subtree(target):
            self.order.remove(uid)
            del self.units[uid]
            self.changed.pop(uid, None)
        if old.parent is not None:
            self.propagate(old.parent, old.text, "", str(ins.link.amending), notes)

    def append_text(self, uid: str, text: str, ref: str, notes: list[str]) -> None:
        u = self.units[uid]
        old, new = u.text, f"{u.text} {text}".strip()
        self.units[uid] = replace(u, text=new)
        self.changed[uid] = ref
        if u.parent is not None:
            self.propagate(u.parent, old, new, ref, notes)

    def heading(self, ins: Instruction, target: str) -> None:
        if target not in self.units:
            raise _NotApplied(f"{target} is not in the base version")
        head, old = _split_title(self.units[target].title)
        new = ins.link.new_text
        for uid in self.subtree(target):
            u = self.units[uid]
            if old and u.title.endswith(f" — {old}"):
                self.units[uid] = replace(u, title=u.title[: -len(old)] + new)
            elif uid == target:
                self.units[uid] = replace(u, title=f"{head} — {new}")
            else:
                continue
            self.changed[uid] = str(ins.link.amending)

    def subparagraph(self, ins: Instruction, target: str, part: str, notes: list[str]) -> None:
        if target not in self.units:
            raise _NotApplied(f"{target} is not in the base version")
        ref = str(ins.link.amending)
        if part == "subpar_add":
            self.append_text(target, ins.link.new_text, ref, notes)
            return
        subs = self.subparagraphs(target)
        if subs is None:
            raise _NotApplied("subparagraph boundaries need the base version's OJ markup, which is not available")
        if part in ("intro", "intro_delete"):
            n, intro = 1, True
        else:
            m = re.fullmatch(r"subpar_(\d+)(_delete)?", part)
            if not m:
                raise _NotApplied(f"no rule to apply the part {part!r}")
            n, intro = int(m[1]), False
        if n > len(subs):
            raise _NotApplied(f"{target} has {len(subs)} subparagraph(s) in the base markup, not {n}")
        old, lead_only = subs[n - 1]
        if intro:
            old = lead_only
        elif lead_only != old:
            kids = [c for c in self.units if self.units[c].parent == target and self.units[c].text in old]
            if kids:
                raise _NotApplied(f"subparagraph {n} of {target} holds the units {', '.join(kids)}; replacing it "
                                  "whole would need their new structure")
        new = "" if part.endswith("_delete") else ins.link.new_text
        u = self.units[target]
        got = _replace_once(u.text, old, new)
        if got is None:
            raise _NotApplied(f"subparagraph {n} of the base markup is not found once in the stored text of {target}")
        previous = u.text
        self.units[target] = replace(u, text=re.sub(r"\s+", " ", got).strip())
        self.changed[target] = ref
        if u.parent is not None:
            self.propagate(u.parent, previous, self.units[target].text, ref, notes)

    def punctuate(self, changed: str, ref: str, notes: list[str]) -> None:
        """The list punctuation consolidators restore around an inserted or deleted point (marked
        `COMMAND="IMPLICIT"` in the official consolidated Formex): a point followed by another ends with
        ';' and the list's last point with '.' (AI Act Articles 58(1)(c), 96(1)(f), 99(4)(da), Annex I
        Section B point 20, Annex VIII Section B point 8). Only the changed point and its neighbour."""
        parent = changed.rsplit(".", 1)[0]
        points = [u for u in self.siblings(parent, "pnt") if self.units[u].kind == "point"]
        if changed in points:  # inserted: itself when a point follows, else the point before it
            i = points.index(changed)
            todo = [changed] if i < len(points) - 1 else points[i - 1:i]
        else:  # deleted: the new last point, if the deleted one was last
            todo = points[-1:] if points and _label_after(changed, points[-1]) else []
        for uid in todo:
            text = self.units[uid].text
            last = uid == points[-1]
            if re.search(r"(?:\band|\bor|:)$", text):
                continue
            if last and text.endswith(";") and self.units[parent].text.endswith(text):
                self.edit_end(uid, text[:-1] + ".", ref, notes)
            elif not last and text.endswith("."):
                self.edit_end(uid, text[:-1] + ";", ref, notes)
            elif not last and (text[-1:].isalnum() or text.endswith(")")):
                self.edit_end(uid, text + ";", ref, notes)

    def edit_end(self, uid: str, new: str, ref: str, notes: list[str]) -> None:
        u = self.units[uid]
        self.units[uid] = replace(u, text=new)
        self.changed[uid] = ref
        self.propagate(u.parent, u.text, new, ref, notes)

    def apply(self, ins: Instruction) -> str:
        link, notes = ins.link, []
        target = link.target_unit or ""
        if link.action == "unparsed":
            raise _NotApplied(f"unparsed: {link.reason}")
        if link.action == "replaced" or (link.action == "amended" and ins.part == "full"):
            self.replace(ins, target, ins.quoted[0], notes)
        elif link.action in ("inserted", "added") and ins.part != "subpar_add":
            self.insert(ins, target, ins.quoted[0], notes)
            if _seg_type(target) == "pnt" and "." in target:
                self.punctuate(target, str(link.amending), notes)
        elif link.action == "deleted":
            self.delete(ins, target, notes)
            if _seg_type(target) == "pnt" and "." in target:
                self.punctuate(target, str(link.amending), notes)
        elif ins.part == "heading":
            self.heading(ins, target)
        elif ins.part:
            self.subparagraph(ins, target, ins.part, notes)
        else:
            raise _NotApplied(f"no rule to apply the action {link.action!r}")
        return "applied" + (f"; {'; '.join(notes)}" if notes else "")

    def result(self) -> tuple[tuple[Unit, ...], tuple[tuple[str, str], ...]]:
        # A changed unit links to the amended act's text (consolidated as of this version), not to the
        # instruction that changed it: `changed_by` names that one.
        units = tuple(
            Unit(self.act, self.version, uid, u.kind, u.title, u.text, u.parent, i, self.language, self.binding,
                 consolidated_link(self.act, self.version, self.language, uid) if uid in self.changed
                 else u.source_url, u.footnotes)
            for i, uid in enumerate(self.order)
            for u in (self.units[uid],)
        )
        for u in units:
            if u.parent is not None and u.parent not in self.units:
                raise CatalogError(f"derived version: {u.unit} lost its parent {u.parent}")
        return units, tuple((uid, ref) for uid, ref in self.changed.items() if uid in self.units)


def derive(base: list[Unit], instructions: list[Instruction], *, act: str, version: str, language: str,
           binding: bool = True, subparagraphs: Callable[[str], list[tuple[str, str]] | None] = lambda _: None,
           ) -> tuple[tuple[Unit, ...], tuple[tuple[str, str], ...], list[str]]:
    """Apply `instructions` (all for `act`) to the base units: (units, changed_by pairs, outcome per instruction).

    An instruction that cannot be applied leaves the draft as it was before it.
    """
    draft = _Draft(base, act, version, language, binding, subparagraphs)
    outcomes = []
    for ins in instructions:
        saved = (dict(draft.units), list(draft.order), dict(draft.changed))  # units are frozen: a shallow copy
        try:
            outcomes.append(draft.apply(ins))
        except _NotApplied as e:
            draft.units, draft.order, draft.changed = saved
            outcomes.append(f"not applied: {e}")
    units, changed = draft.result()
    return units, changed, outcomes


# ---------------------------------------------------------------------------
# Subparagraphs from the base version's OJ markup
# ---------------------------------------------------------------------------


def oj_subparagraphs(root: etree._Element) -> Callable[[str], list[tuple[str, str]] | None]:
    """uid -> [(text of subparagraph n with its points, text of its lead p only)] from OJ markup."""
    arts = {d.get("id"): d for d in root.xpath("//div[starts-with(@id, 'art_')]")
            if "eli-subdivision" in (d.get("class") or "")
            and not any(a.tag == "td" for a in d.iterancestors())}

    def lookup(uid: str) -> list[tuple[str, str]] | None:
        segs = uid.split(".")
        div = arts.get(segs[0])
        if div is None or len(segs) > 2 or (len(segs) == 2 and not segs[1].startswith("par_")):
            return None
        if len(segs) == 2:
            want = f"{_div_number(_seg_label(segs[0]))}.{_div_number(_seg_label(segs[1]))}"
            found = [c for c in div if isinstance(c.tag, str) and c.get("id") == want]
            if len(found) != 1:
                return None
            div = found[0]
        groups: list[list[etree._Element]] = []
        for c in div:
            if not isinstance(c.tag, str):
                continue
            cls = c.get("class") or ""
            if {"oj-ti-art", "oj-sti-art", "eli-title"} & set(cls.split()):
                continue
            if c.tag == "p" or not groups:
                groups.append([c])
            else:
                groups[-1].append(c)
        return [(re.sub(r"\s+", " ", " ".join(text_of(e) for e in g)).strip(), text_of(g[0])) for g in groups]

    return lookup


def _raw_file(v: VersionRow) -> Path | None:
    for candidate in (v.raw_path, v.source):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def _read_oj_markup(v: VersionRow) -> etree._Element | None:
    """The OJ markup a stored version was parsed from, if it is still there and unchanged."""
    path = _raw_file(v)
    if path is None:
        return None
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != v.sha256:
        return None
    root = read_html(data, path)
    try:
        return root if detect_html_format(root, path) == "oj" else None
    except LexciteError:
        return None


# ---------------------------------------------------------------------------
# Catalog side: read the amending act, store links, build and store derived versions
# ---------------------------------------------------------------------------


def _short_name(title: str, celex: str) -> str:
    m = re.match(r"^(REGULATION|DIRECTIVE|DECISION)\b(.*?\d+/\d+(?:/[A-Z]+)?)", title, re.IGNORECASE)
    return (m[1].capitalize() + m[2]) if m else celex


def _base_version(catalog: Catalog, act: str, language: str, before: str) -> VersionRow | None:
    rows = [v for v in catalog.versions(act) if v.language == language and v.status != "draft"
            and v.valid_from < before]
    return max(rows, key=lambda v: (v.valid_from, v.version)) if rows else None


def _consolidation_with(catalog: Catalog, target: str, amending: str, since: str, language: str,
                        ) -> VersionRow | None:
    """The first stored official consolidation of `target` from `since` on that names `amending` among the
    acts it incorporates (consolidated Formex GR.MOD.ACT, the consolidated page's ▼M list)."""
    rows = [v for v in catalog.versions(target) if v.language == language and v.format in CONSOLIDATED_FORMATS
            and v.version >= since and amending in v.modified_by]
    return min(rows, key=lambda v: v.version) if rows else None


def _not_read(catalog: Catalog, act: str, version: str, language: str, fmt: str) -> list[ApplyResult]:
    """An amending act stored from a manifestation whose instructions are not read (2024/1183 as Formex):
    for each act it amends, whether a stored official consolidation already has its changes."""
    amending = f"{act}@{version}"
    why = ApplyResult(amending, "", language, None, None,
                      note=f"stored as {fmt}, and amendment instructions are read from OJ XHTML only: "
                           f"ingest the OJ XHTML of {act} to apply them")
    out: list[ApplyResult] = []
    for target in amended_acts(catalog.texts(act, version, language, "article")):
        res = ApplyResult(amending, target, language, None, None)
        cons = _consolidation_with(catalog, target, act, version, language)
        if cons is not None:
            res.consolidated_in = f"{target}@{cons.version}"
            res.note = f"its changes are in {res.consolidated_in}, the official consolidation already stored"
        elif not any(v.language == language for v in catalog.versions(target)):
            res.note = f"no version of {target} in {language!r} is stored"
        out.append(res)
    # The reason comes once, after the targets it leaves unchanged (none named: it is the whole line).
    return out + ([why] if any(r.consolidated_in is None for r in out) or not out else [])


def _version_units(catalog: Catalog, v: VersionRow) -> list[Unit]:
    return [r.unit for r in catalog.records(v.act, v.language) if r.unit.version == v.version]


def _apply_to_target(catalog: Catalog, amending: AmendingAct, target: str, seqs: list[int],
                     amending_title: str) -> ApplyResult:
    """Build and store the version of `target` that the parsed links `seqs` of `amending` give."""
    res = ApplyResult(f"{amending.act}@{amending.version}", target, amending.language, None, None)

    def pending(note: str) -> ApplyResult:
        res.note, res.outcomes = note, {i: f"pending: {note}" for i in seqs}
        return res

    if amending.applies_from is None:
        return pending(f"date of application unknown ({amending.applies_from_said})")
    base = _base_version(catalog, target, amending.language, amending.applies_from)
    if base is None and (cons := _consolidation_with(catalog, target, amending.act, amending.version,
                                                     amending.language)) is not None:
        # Nothing to build on, but nothing is missing either: the official text has the changes.
        res.consolidated_in = f"{target}@{cons.version}"
        return pending(f"its changes are in {res.consolidated_in}, the official consolidation already stored")
    if base is None:
        return pending(f"no version of {target} in {amending.language!r} before {amending.applies_from} is stored")
    res.base_version = base.version
    existing = next((v for v in catalog.versions(target) if v.version == amending.applies_from
                     and v.language == amending.language), None)
    official = existing is not None and existing.format != DERIVED_FORMAT
    markup = _read_oj_markup(base)
    units, changed, outs = derive(
        _version_units(catalog, base), [amending.instructions[i] for i in seqs], act=target,
        version=amending.applies_from, language=amending.language, binding=base.binding,
        subparagraphs=oj_subparagraphs(markup) if markup is not None else (lambda _: None))
    res.outcomes = dict(zip(seqs, outs, strict=True))
    title = f"{base.title} — as amended by {_short_name(amending_title, amending.act)} (from {amending.applies_from})"
    doc_kind = catalog.doc_kind(target)
    derived = ParsedAct(
        act=target, version=amending.applies_from, language=amending.language, format=DERIVED_FORMAT, title=title,
        units=units, doc_kind=doc_kind, binding=base.binding, source_url=base.source_url,
        modified_by=tuple(dict.fromkeys((*base.modified_by, amending.act))), changed_units=changed)
    # Content-addressed: the same inputs give the same hash, so re-applying stores nothing.
    digest = hashlib.sha256(json.dumps(
        [title, [u.to_dict() for u in units], list(changed)], ensure_ascii=False, sort_keys=True).encode())
    how = f"{target}@{base.version} + {res.amending}"
    if official:
        # An official consolidation of that date is the current text (DESIGN.md, "Time"); the derived
        # version is kept as the check against it, unit by unit, and stays reachable through it.
        assert existing is not None
        check = compare_versions(_version_units(catalog, existing), units, official_source=existing.source,
                                 derived_source=how)
        catalog.store_consolidation_check(target, existing.version, existing.language, check.to_dict(),
                                          derived=units, changed_by=changed)
        res.check = check
        res.note = (f"the stored {existing.format} version {target}@{existing.version} prevails; the derived one "
                    f"agrees on {len(check.units_equal)} of its units ({check.share_equal:.1%}): "
                    f"lexcite consolidation-check {target}")
        return res
    source = Source(location=f"{how} (derived by lexcite)", sha256=digest.hexdigest())
    res.version, res.stored = amending.applies_from, catalog.store(derived, source)
    for i in seqs:
        unit = amending.instructions[i].link.target_unit
        try:
            dates = catalog.unit_dates(CitationRef(target, res.version, unit or ""), amending.language)
        except CitationError:  # a deleted unit: the deletion takes effect when the amending act does
            continue
        if dates is not None and dates.earliest:
            res.applies_from[i] = dates.earliest
    return res


def apply_amending_act(catalog: Catalog, amending: AmendingAct, amending_title: str = "",
                       ) -> list[ApplyResult]:
    """Store the links of `amending` and build the derived version of each target act present.

    Returns one result per target act: the StoreResult of the derived version, or a note
    saying why none was built (target not in the catalog, date unknown, a consolidated text
    of that date prevails); the outcome of every link is recorded in the catalog either way.
    """
    outcomes = {i: f"not applied: unparsed ({ins.link.reason})"
                for i, ins in enumerate(amending.instructions) if ins.link.action == "unparsed"}
    results: list[ApplyResult] = []
    applies_from: dict[int, str] = {}
    for target in amending.targets():
        seqs = [i for i, ins in enumerate(amending.instructions) if ins.link.target_act == target]
        res = _apply_to_target(catalog, amending, target, [i for i in seqs if i not in outcomes], amending_title)
        outcomes.update(res.outcomes)
        applies_from.update(res.applies_from)
        res.outcomes = {i: outcomes[i] for i in seqs}
        results.append(res)
    # Stored after the derived versions, whose application rules date each change.
    catalog.store_links(amending.act, amending.version, [
        replace(ins.link, applies_from=applies_from.get(i, ins.link.applies_from))
        for i, ins in enumerate(amending.instructions)])
    catalog.set_link_outcomes(amending.act, amending.version, outcomes)
    return results


def apply_stored(catalog: Catalog, act: str, version: str | None = None, language: str | None = None,
                 ) -> list[ApplyResult]:
    """Read a stored amending act again from its raw OJ file and apply it (`lexcite apply-amendments`).

    Raises CatalogError when the act is not stored or its OJ markup is gone or changed.
    """
    rows = [v for v in catalog.versions(act) if (version is None or v.version == version)
            and (language is None or v.language == language) and v.format != DERIVED_FORMAT]
    if not rows:
        raise CatalogError(f"{act}: no stored version{' ' + version if version else ''}; ingest it first")
    out: list[ApplyResult] = []
    for v in rows:
        root = _read_oj_markup(v)
        if root is None:
            raise CatalogError(f"{act}@{v.version} ({v.language}): its OJ XHTML ({v.source}) is not readable "
                               "or changed since it was ingested; amendments are read from OJ markup — re-ingest it")
        amending = read_amending_act(root, v.act, v.version, v.language, _version_units(catalog, v))
        out += apply_amending_act(catalog, amending, v.title)
    return out


def _owed(catalog: Catalog, v: VersionRow) -> bool:
    """An amending act stored but never applied: no links recorded, or links without an outcome."""
    links = catalog.links(amending_act=v.act)
    if links:
        return any(outcome is None for _, outcome in links)
    return is_amending_text(catalog.texts(v.act, v.version, v.language, "article"))


def update_amendments(catalog: Catalog, results: Iterable[StoreResult]) -> list[ApplyResult]:
    """After an ingest: (re)apply amending acts that were just stored, those whose target was, and
    those an interrupted run stored without applying (`_owed`), whatever the format of the target.

    Cheap when nothing amends anything: amending acts are recognised by an article that says
    "… is amended as follows:". Raises CatalogError when an amending act of this batch cannot be
    read back from its OJ file; an earlier amending act whose file is gone only gets a note.
    """
    touched = {(r.act, r.version, r.language) for r in results if r.format != DERIVED_FORMAT}
    acts = {a for a, _, _ in touched}
    todo: dict[tuple[str, str, str], None] = {}
    for a, ver, lang in sorted(touched):
        if is_amending_text(catalog.texts(a, ver, lang, "article")):
            todo[(a, ver, lang)] = None
    for a, ver in catalog.amending_versions(sorted(acts)):
        for v in catalog.versions(a):
            if v.version == ver and v.format != DERIVED_FORMAT:
                todo[(a, ver, v.language)] = None
    for v in catalog.versions():  # work an interrupted run left undone (killed between storing and applying)
        if v.format == "oj" and _owed(catalog, v):
            todo[(v.act, v.version, v.language)] = None
    # An official consolidation just stored names the acts it incorporates: an amending act stored from
    # Formex, never applied, is looked at again, since its changes are now in the catalog.
    for r in results:
        if r.format in CONSOLIDATED_FORMATS:
            (row,) = [v for v in catalog.versions(r.act) if (v.version, v.language) == (r.version, r.language)]
            for m in row.modified_by:
                for v in catalog.versions(m):
                    if v.language == r.language and v.format not in ("oj", DERIVED_FORMAT):
                        todo[(v.act, v.version, v.language)] = None
    out: list[ApplyResult] = []
    # Earlier amending acts first: a later one builds on the version an earlier one produced.
    for a, ver, lang in sorted(todo, key=lambda k: (k[1], k[0], k[2])):
        fmt = next((v.format for v in catalog.versions(a) if v.version == ver and v.language == lang), "")
        if fmt in CONSOLIDATED_FORMATS:
            # An official consolidation is not an amending act, though it quotes one's articles (the AI
            # Act's Articles 102-110 amend other acts): its own outcome and the consolidation check stand.
            continue
        if fmt != "oj":
            # Instructions are read from OJ XHTML only (lexcite/ingest/amendments.py): a Formex
            # manifestation of an amending act (2024/1183) is stored as it is.
            out += _not_read(catalog, a, ver, lang, fmt)
            continue
        try:
            out += apply_stored(catalog, a, ver, lang)
        except CatalogError as e:
            fmt = next((v.format for v in catalog.versions(a) if (v.version, v.language) == (ver, lang)), "")
            if (a, ver, lang) in touched and fmt == "oj":
                raise  # its OJ file was just ingested: a real fault
            # Instructions are read from OJ markup only: an act stored from Formex (the AI Act amends
            # other acts too) gets a note, and the acts that amend *it* are still applied.
            # An amending act stored earlier whose OJ file is gone: the target's ingest still stands.
            out.append(ApplyResult(f"{a}@{ver}", "", lang, None, None, note=str(e)))
    return out
