"""Formex 4 packages (the Publications Office's XML for the Official Journal) into normative units.

A package is the set of files Cellar returns for `Accept: application/zip;mtype=fmx4`:

* a manifest, root `<DOC>` (`L_202401689EN.doc.fmx.xml`, older `L_2022333EN.01008001.doc.xml`), whose
  `REF.PHYS FILE=` entries give the order of the content files (main act first, then annexes) and whose
  `PUBLICATION.REF/DATE` is the OJ publication date (the version of an original act) and `LEGAL.VALUE`
  the kind of act (REG, DIR, DEC…);
* the act, root `<ACT>`: `PREAMBLE/GR.CONSID/CONSID` recitals, `ENACTING.TERMS` with `DIVISION`s and
  `ARTICLE IDENTIFIER="006"` (`TI.ART`, `STI.ART`, `PARAG IDENTIFIER="006.002"` with `NO.PARAG`,
  `ALINEA`, `LIST/ITEM/NP` with `NO.P` "(a)" and `TXT`);
* one file per annex, root `<ANNEX>` (`TITLE/TI` "ANNEX III", `STI`, `CONTENTS` with `GR.SEQ` groups).

Text quoted from other acts (`QUOT.S`, e.g. the paragraphs that Articles 102-110 of the AI Act insert
into other regulations) is text of the unit that quotes it, never units of this act.

Zip packages are opened in memory only: nothing is ever written to disk.
"""

from __future__ import annotations

import io
import re
import stat
import zipfile
import zlib
from collections.abc import Iterable
from copy import deepcopy
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from lxml import etree

from lexcite.celex import LEGAL_VALUES, TYPE_LETTERS, kind_of_word
from lexcite.celex import doc_kind as celex_doc_kind
from lexcite.contract import ParsedAct
from lexcite.errors import FormatNotRecognised, ParseError
from lexcite.ingest._labels import (
    POINT_WORD,
    RECITAL_WORD,
    display_label,
    heading_number,
    heading_word_case,
    is_quoted,
    is_recitals_formula,
    iso_date,
    label_key,
    label_kind,
    numbered_heading,
    numbered_parts,
    point_id,
    section_key,
    section_parts,
)
from lexcite.ingest._markup import eurlex_link, norm_space, read_xml, text_of
from lexcite.ingest._units import UnitCollector
from lexcite.ingest.dates import formex_divisions

__all__ = [
    "parse_formex",
    "formex_files_from_zip",
    "formex_files_from_dir",
    "ZIP_MAX_TOTAL_BYTES",
    "ZIP_MAX_RATIO",
    "ZIP_MAX_MEMBERS",
]

# Zip-bomb guards. The real AI Act package is 732 kB unpacked from 171 kB (ratio ~4, ~20 per member).
ZIP_MAX_TOTAL_BYTES = 200 * 1024 * 1024
ZIP_MAX_RATIO = 100  # uncompressed / compressed, per member, checked for members over 1 MiB
_RATIO_FLOOR = 1024 * 1024
ZIP_MAX_MEMBERS = 2000
_FILE_MAX_BYTES = 64 * 1024 * 1024

_MANIFEST = re.compile(r"\.doc(?:\.fmx)?\.xml$", re.IGNORECASE)
_TOC = re.compile(r"\.toc(?:\.fmx)?\.xml$", re.IGNORECASE)
_LOOKED_FOR = ["<DOC> manifest", "<ACT> or <CONS.ACT> root", "<ARTICLE>"]
FORMAT = "formex"
CONSOLIDATED_FORMAT = "formex_consolidated"
_SPACED = ("NO.PARAG", "NO.P", "CELL", "ROW", "TI.ART", "STI.ART", "TI", "STI", "VISA", "CONSID")
# Labelled items inside these are text of the enclosing unit: quotations, recitals, notes, and table
# cells (the OJ renders a table's numbered cells as data, never as points: 2024/2981 Annex I).
_NOT_POINTS = ("QUOT.S", "CONSID", "NOTE", "GR.NOTES", "TBL")


# ---------------------------------------------------------------------------------------------- #
# Package reading


def _check_member_name(name: str, path: str | Path) -> None:
    parts = re.split(r"[\\/]", name)
    if (
        name.startswith(("/", "\\"))
        or re.match(r"^[A-Za-z]:", name)
        or ".." in parts
        or "\x00" in name
    ):
        raise ParseError(path, f"zip member {name!r}", "unsafe path in zip (absolute or '..'); refusing it")


def formex_files_from_zip(data: bytes, path: Path) -> dict[str, bytes]:
    """The members of a Formex zip, by base name, read in memory with zip-slip and zip-bomb guards."""
    if not data[:4] == b"PK\x03\x04":
        what = "empty zip" if data[:4] == b"PK\x05\x06" else "no PK\\x03\\x04 signature"
        raise ParseError(path, "byte 0", f"not a zip archive ({what}); a Cellar Formex package is a zip")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as e:
        raise ParseError(path, "central directory", f"not a readable zip archive: {e}") from None
    if len(infos) > ZIP_MAX_MEMBERS:
        raise ParseError(path, f"{len(infos)} members", f"more than {ZIP_MAX_MEMBERS} members; refusing it")
    out: dict[str, bytes] = {}
    total = 0
    with zf:
        for info in infos:
            name = info.filename
            _check_member_name(name, path)
            if info.is_dir():
                continue
            where = f"zip member {name!r}"
            if stat.S_ISLNK(info.external_attr >> 16):
                raise ParseError(path, where, "symbolic link in zip; refusing it")
            if info.flag_bits & 0x1:
                raise ParseError(path, where, "encrypted zip member; refusing it")
            total += info.file_size
            if info.file_size > _FILE_MAX_BYTES or total > ZIP_MAX_TOTAL_BYTES:
                raise ParseError(
                    path, where, f"uncompressed size over the cap ({ZIP_MAX_TOTAL_BYTES} bytes): zip bomb?"
                )
            ratio = info.file_size / max(info.compress_size, 1)
            if info.file_size > _RATIO_FLOOR and ratio > ZIP_MAX_RATIO:
                raise ParseError(
                    path, where, f"compression ratio {ratio:.0f}:1 over the cap {ZIP_MAX_RATIO}:1: zip bomb?"
                )
            try:
                with zf.open(info) as member:
                    # ZipExtFile never returns more than the declared size; a lying header fails the CRC.
                    blob = member.read(info.file_size + 1)
            # a damaged local header gives a negative seek or an undecodable name (ValueError)
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError,
                    ValueError) as e:
                raise ParseError(path, where, f"cannot be read: {e}") from None
            if len(blob) != info.file_size:
                raise ParseError(path, where, "size differs from the zip header; refusing it")
            key = PurePosixPath(name.replace("\\", "/")).name
            if key in out:
                raise ParseError(path, where, f"two members named {key!r}")
            out[key] = blob
    if not out:
        raise ParseError(path, "zip", "the zip holds no files")
    return out


def formex_files_from_dir(folder: Path) -> dict[str, bytes]:
    """The regular `.xml` files of a folder (not recursive; symbolic links are refused)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ParseError(folder, "folder", "not a folder")
    out: dict[str, bytes] = {}
    for entry in sorted(folder.iterdir()):
        if not entry.name.lower().endswith(".xml"):
            continue
        if entry.is_symlink():
            raise ParseError(folder, entry.name, "symbolic link in a Formex folder; refusing it")
        if not entry.is_file():
            continue
        if entry.stat().st_size > _FILE_MAX_BYTES:
            raise ParseError(folder, entry.name, f"larger than {_FILE_MAX_BYTES} bytes")
        out[entry.name] = entry.read_bytes()
    if not out:
        raise FormatNotRecognised(folder, ["Formex .xml files"], found="no .xml file")
    return out


# ---------------------------------------------------------------------------------------------- #
# Text


def _prepare(root: etree._Element) -> None:
    """Make text_of render Formex: quotes as characters, exponents as ^, labels spaced."""
    for el in root.iter():
        tag = el.tag
        if not isinstance(tag, str):
            continue
        if tag in ("QUOT.START", "QUOT.END"):
            code = el.get("CODE") or ""
            try:
                el.text = chr(int(code, 16))
            except ValueError:
                el.text = "‘" if tag == "QUOT.START" else "’"
        elif tag == "HT" and el.get("TYPE") == "SUP":
            el.tag = "SUP"
        elif tag == "HT" and el.get("TYPE") == "SUB":
            el.tag = "SUB"
        elif tag == "FT" and el.get("TYPE") == "NUMBER" and el.text and len(el) == 0:
            el.text = _group_digits(el.text)
        elif tag == "ITEM" and (el.getparent().get("TYPE") or "").upper() == "DASH":
            el.text = "— " + (el.text or "")  # the OJ prints the dash; Formex only says TYPE="DASH"
        if tag in _SPACED:
            el.tail = " " + (el.tail or "")


def _group_digits(number: str) -> str:
    """`<FT TYPE="NUMBER">35000000</FT>` is printed "35 000 000" in the OJ (groups from 5 digits)."""
    m = re.fullmatch(r"(\d{5,})((?:[.,]\d+)?)", number.strip())
    if not m:
        return number
    digits = m[1]
    head = len(digits) % 3 or 3
    groups = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return " ".join(groups) + m[2]


def _notes(*els: etree._Element) -> tuple[str, ...]:
    out: list[str] = []
    for el in els:
        for note in el.iter("NOTE"):
            t = text_of(note)
            if t and t not in out:
                out.append(t)
    return tuple(out)


def _inside(el: etree._Element, tags: tuple[str, ...]) -> bool:
    return any(a.tag in tags for a in el.iterancestors())


def _label(no: etree._Element | None) -> str:
    """A NO.P / NO.PARAG label as printed, quotation marks included (they mark quoted text)."""
    return norm_space("".join(no.itertext())) if no is not None else ""


def _first_text(el: etree._Element | None) -> str:
    return text_of(el) if el is not None else ""


# ---------------------------------------------------------------------------------------------- #
# Units


@dataclass
class _Counts:
    articles: int = 0
    recitals: int = 0
    paragraphs: int = 0
    points: int = 0
    annexes: int = 0
    restarted: int = 0  # labelled items of restarted lists, kept as text (see _Builder.restarts)
    lettered: int = 0  # labelled group headings "A." read as sections


@dataclass
class _Ref:
    """How a unit's points are titled: "Article 5(1)" + labels ("(h)",) + " — Prohibited AI practices"."""

    ref: str
    labels: tuple[str, ...] = ()
    suffix: str = ""


class _Builder:
    def __init__(self, col: UnitCollector, path: str | Path, language: str):
        self.col, self.path, self.language = col, str(path), language
        self.n = _Counts()
        self.refs: dict[str, _Ref] = {}
        self.kind: dict[str, str] = {}
        self.anchor: dict[str, str] = {}
        self.element: dict[str, etree._Element] = {}  # where each unit is, for amendment markers
        self.word = POINT_WORD.get(language, "point")

    def add(self, uid: str, kind: str, ref: _Ref, title: str, text: str, parent: str | None,
            anchor: str, notes: tuple[str, ...], el: etree._Element) -> str:
        self.col.add(uid, kind, title, text, parent, anchor=anchor, footnotes=notes)
        self.refs[uid], self.kind[uid], self.anchor[uid], self.element[uid] = ref, kind, anchor, el
        return uid

    def key(self, no: etree._Element | None, where: str) -> str | None:
        label = _label(no)
        if not label or is_quoted(label):
            return None
        try:
            return label_key(label)
        except ValueError as e:
            raise ParseError(self.path, where, str(e)) from None

    # -- recitals ------------------------------------------------------------------------------
    def recital(self, consid: etree._Element) -> bool:
        """Build one recital; False for the "Whereas:" formula some acts put in a <CONSID> of its own."""
        np_ = consid.find("NP")
        if np_ is None and self.n.recitals == 0 and is_recitals_formula(text_of(consid)):
            return False
        key = self.key(np_.find("NO.P") if np_ is not None else None, "CONSID")
        if key is None:
            raise ParseError(self.path, f"recital after {self.n.recitals}", "a recital without a number")
        word = RECITAL_WORD.get(self.language, "Recital")
        uid = f"rct_{key}"
        body = [c for c in np_ if isinstance(c.tag, str) and c.tag != "NO.P"]
        title = f"{word} {key}"
        self.add(uid, "recital", _Ref(title), title, " ".join(text_of(c) for c in body), None, uid,
                 _notes(consid), consid)
        self.n.recitals += 1
        return True

    # -- articles ------------------------------------------------------------------------------
    def article(self, art: etree._Element) -> None:
        heading = _first_text(art.find("TI.ART"))
        number = heading_number(heading)
        ident = (art.get("IDENTIFIER") or "").lstrip("0")
        if number is None:
            number = ident or None
        if number is None:
            raise ParseError(self.path, f"ARTICLE {heading!r}", "an article without a number")
        if ident and ident.lower() != number.lower():
            raise ParseError(
                self.path, f"ARTICLE IDENTIFIER={art.get('IDENTIFIER')}", f"heading {heading!r} disagrees"
            )
        sti = _first_text(art.find("STI.ART"))
        suffix = f" — {sti}" if sti else ""
        body = [k for k in art if isinstance(k.tag, str) and k.tag not in ("TI.ART", "STI.ART")]
        uid = f"art_{number}"
        text = " ".join(text_of(k) for k in body)
        self.add(uid, "article", _Ref(heading, (), suffix), heading + suffix, text, None, uid, _notes(*body), art)
        self.n.articles += 1
        for k in body:
            if k.tag == "PARAG":
                self.paragraph(k, uid)
            else:
                self.walk([k], uid)

    def paragraph(self, par: etree._Element, art_id: str) -> None:
        key = self.key(par.find("NO.PARAG"), f"PARAG IDENTIFIER={par.get('IDENTIFIER')}")
        if key is None:  # an unnumbered paragraph: its points hang from the article
            self.walk(list(par), art_id)
            return
        uid = f"{art_id}.par_{key}"
        art = self.refs[art_id]
        ref = _Ref(f"{art.ref}({key})", (), art.suffix)
        anchor = par.get("IDENTIFIER") or self.anchor[art_id]
        self.add(uid, "paragraph", ref, ref.ref + ref.suffix, text_of(par), art_id, anchor, _notes(par), par)
        self.n.paragraphs += 1
        self.walk(list(par), uid)

    # -- points, groups, sections ----------------------------------------------------------------
    def walk(self, children: Iterable[etree._Element], parent: str) -> None:
        for child in children:
            tag = child.tag
            if not isinstance(tag, str) or tag in _NOT_POINTS or tag in ("NO.P", "NO.PARAG"):
                continue
            if tag == "LIST" and self.restarts(child, parent):
                continue
            if tag == "ITEM" and child.find("NP") is not None:
                np_ = child.find("NP")
                key = self.key(np_.find("NO.P"), f"ITEM under {parent}")
                if key is None:
                    self.walk(child, parent)
                else:
                    rest = [np_child for np_child in np_] + [c for c in child if c is not np_]
                    self.point(child, key, _label(np_.find("NO.P")), parent, rest)
            elif tag == "NP":
                key = self.key(child.find("NO.P"), f"NP under {parent}")
                if key is None:
                    self.walk(child, parent)
                else:
                    self.point(child, key, _label(child.find("NO.P")), parent, list(child))
            elif tag == "GR.SEQ":
                self.group(child, parent)
            else:
                self.walk(child, parent)

    def point_id(self, parent: str, key: str) -> str:
        uid = point_id(parent, key)
        if uid is None:
            raise ParseError(self.path, f"point {key} under {parent}", "a dotted point outside its parent")
        return uid

    def restarts(self, lst: etree._Element, parent: str) -> bool:
        """A list whose numbering restarts inside the same unit: Article 43(1) of the AI Act has points
        (a)-(b) in its first subparagraph and (a)-(d) in its second. Unit ids have no subparagraph
        level, so the first list keeps the ids and a restarted list stays text of the enclosing unit
        (counted, so the cross-check still balances)."""
        first = next((it for it in lst if it.tag == "ITEM" and it.find("NP") is not None), None)
        if first is None:
            return False
        key = self.key(first.find("NP/NO.P"), f"LIST under {parent}")
        if key is None or self.point_id(parent, key) not in self.col:
            return False
        self.n.restarted += sum(
            1 for no in lst.iter("NO.P")
            if not _inside(no, _NOT_POINTS) and self.key(no, f"LIST under {parent}") is not None
        )
        return True

    def point(self, el: etree._Element, key: str, label: str, parent: str, children: list[etree._Element],
              heading: str | None = None) -> str:
        uid = self.point_id(parent, key)
        up = self.refs[parent]
        shown = display_label(label)
        labels = (shown,) if label_kind(key) == "dotted" else up.labels + (shown,)
        ref = _Ref(up.ref, labels, up.suffix)
        title = f"{up.ref}, {self.word} {''.join(labels)}" + (f" — {heading}" if heading else up.suffix)
        self.add(uid, "point", ref, title, text_of(el), parent, self.anchor[parent], _notes(el), el)
        self.n.points += 1
        self.walk(children, uid)
        return uid

    def group(self, gr: etree._Element, parent: str) -> None:
        title_el = gr.find("TITLE")
        ti = title_el.find("TI") if title_el is not None else None
        heading = _first_text(ti)
        rest = [c for c in gr if c is not title_el]
        np_ = ti.find("NP") if ti is not None else None
        if np_ is not None and (key := self.key(np_.find("NO.P"), f"GR.SEQ under {parent}")) is not None:
            if key.isupper():  # "A. General" (DMA Annex): a section without the word, as the OJ parser reads it
                uid = f"{parent}.sct_{key}"
                up = self.refs[parent]
                ref = _Ref(f"{up.ref}, {key}", (), up.suffix)
                self.add(uid, "section", ref, f"{ref.ref} — {_first_text(np_.find('TXT'))}", text_of(gr), parent,
                         self.anchor[parent], _notes(gr), gr)
                self.n.lettered += 1
                self.walk(rest, uid)
                return
            self.point(gr, key, _label(np_.find("NO.P")), parent, rest, heading=_first_text(np_.find("TXT")))
            return
        if (parts := section_parts(heading)) is not None:
            word, skey, title_rest = parts
            sti = _first_text(title_el.find("STI")) if title_el is not None else ""
            title_rest = " — ".join(t for t in (title_rest, sti) if t)
            uid = f"{parent}.sct_{skey}"
            up = self.refs[parent]
            ref = _Ref(f"{up.ref}, {word} {skey}", (), up.suffix)
            title = ref.ref + (f" — {title_rest}" if title_rest else "")
            self.add(uid, "section", ref, title, text_of(gr), parent, self.anchor[parent], _notes(gr), gr)
            self.walk(rest, uid)
            return
        if (numbered := numbered_parts(heading)) is not None:
            self.point(gr, numbered[0], numbered[0], parent, rest, heading=numbered[1])
            return
        self.walk(rest, parent)

    # -- annexes ---------------------------------------------------------------------------------
    def annex(self, anx: etree._Element, index: int) -> None:
        title_el = anx.find("TITLE")
        ti = title_el.find("TI") if title_el is not None else None
        lines = [text_of(p) for p in ti.findall("P")] if ti is not None else []
        if not lines:
            lines = [_first_text(ti)]
        # "ANNEX X" and its subtitle are sometimes both in TI (AI Act Annex X), not TI + STI.
        heading, extra = lines[0], [t for t in lines[1:] if t]
        number = heading_number(heading) if heading else None
        if number is None:
            if len(heading.split()) > 1:
                raise ParseError(self.path, f"ANNEX {heading!r}", "an annex heading without a number")
            number = str(index)  # a single unnumbered "ANNEX" (EUR-Lex anchors it anx_1)
        sti = " — ".join(extra + ([_first_text(title_el.find("STI"))] if title_el is not None else []))
        sti = sti.strip(" —")
        uid = f"anx_{number}"
        ref = _Ref(heading_word_case(heading or f"ANNEX {number}"), (), f" — {sti}" if sti else "")
        contents = [c for c in anx if isinstance(c.tag, str) and c.tag not in ("BIB.INSTANCE", "TITLE")]
        text = " ".join(text_of(c) for c in contents)
        self.add(uid, "annex", ref, ref.ref + ref.suffix, text, None, uid, _notes(*contents), anx)
        self.n.annexes += 1
        self.walk(contents, uid)


# ---------------------------------------------------------------------------------------------- #
# Metadata


def _iso(value: str | None) -> str | None:
    if value and re.fullmatch(r"\d{8}", value):
        return f"{value[:4]}-{value[4:6]}-{value[6:]}"
    return None


def _celex_type(legal_value: str, title: str) -> str | None:
    lv = legal_value.upper()
    for prefix, letter in LEGAL_VALUES.items():
        if lv.startswith(prefix):
            return letter
    kind = kind_of_word(title.split()[0]) if title.split() else None
    return TYPE_LETTERS[kind] if kind else None


def _detect_celex(main: etree._Element, manifest: etree._Element | None, title: str) -> str | None:
    bib = main.find("BIB.INSTANCE")
    no_doc = None
    if bib is not None:
        no_doc = bib.find("NO.DOC")
        if no_doc is None:
            no_doc = bib.find("DOCUMENT.REF/NO.DOC")
    if no_doc is None and manifest is not None:
        no_doc = manifest.find("BIB.DOC/NO.DOC")
    if no_doc is None:
        return None
    year, number = no_doc.findtext("YEAR"), no_doc.findtext("NO.CURRENT")
    legal = manifest.findtext(".//DOC.MAIN.PUB/LEGAL.VALUE") if manifest is not None else None
    letter = _celex_type(legal or "", title)
    if not (year and number and number.strip().isdigit() and letter):
        return None
    return f"3{year.strip()}{letter}{int(number):04d}"


# ---------------------------------------------------------------------------------------------- #
# Entry point


def _where(path: Path, name: str) -> Path:
    """The file a message names: the package path and the member, or the file itself."""
    return path if path.name == name else path / name


def _read(files: dict[str, bytes], name: str, path: Path) -> etree._Element:
    where = _where(path, name)
    root = read_xml(files[name], where)
    if root.getroottree().docinfo.internalDTD is not None:
        raise ParseError(where, "DOCTYPE", "declares an internal DTD (Formex never does); refusing it")
    for pi in root.iter(etree.ProcessingInstruction):
        # a processing instruction that lost its "?>" runs on to the next one and takes the markup between
        # them with it (a whole inserted article of eIDAS): its text then holds tags
        if "<" in (pi.text or ""):
            raise ParseError(where, f"<?{pi.target}", f"a processing instruction holds markup ({(pi.text or '')[:60]!r}"
                             "…): its closing '?>' is lost; the file is damaged")
    return root


def _resolve_includes(files: dict[str, bytes], roots: list[tuple[str, etree._Element]], path: Path) -> set[str]:
    """Put each `<INCL.ELEMENT FILEREF=…>` in place, as a quotation of the included file's content.

    The manifest need not list an included file: 2024/1183 keeps the text of its Annexes V-VII in
    `.005402`/`.005502`/`.005602`, which only `.005401`… include; the Omnibus includes its quoted new
    Annex XIV (`.003601`) in Article 1, point (43). The OJ prints that text in the including unit.
    """
    included: set[str] = set()
    pending = [(name, root, (name,)) for name, root in roots]
    while pending:
        name, root, chain = pending.pop()
        for inc in list(root.iter("INCL.ELEMENT")):
            ref = inc.get("FILEREF") or ""
            if ref not in files:
                raise ParseError(_where(path, name), f"INCL.ELEMENT FILEREF={ref!r}",
                                 "includes a file not in the package")
            if ref in chain:
                raise ParseError(_where(path, name), f"INCL.ELEMENT FILEREF={ref!r}", "includes itself")
            child = _read(files, ref, path)
            quote = etree.Element("QUOT.S")
            quote.extend(c for c in list(child) if isinstance(c.tag, str) and c.tag != "BIB.INSTANCE")
            quote.tail = inc.tail
            inc.getparent().replace(inc, quote)
            included.add(ref)
            pending.append((ref, quote, chain + (ref,)))
    return included


def _numbered_paragraphs(main: etree._Element, b: _Builder) -> list[etree._Element]:
    """The act's own numbered <PARAG>s (not those quoted from other acts): an independent count."""
    return [p for p in main.iter("PARAG")
            if not _inside(p, ("QUOT.S",)) and b.key(p.find("NO.PARAG"), "PARAG") is not None]


def _check_counts(path: Path, expected: dict[str, tuple[int, int]]) -> None:
    """Never a silently short list (DESIGN invariant 6): markup count vs units built, per kind."""
    for what, (want, got) in expected.items():
        if want != got:
            raise ParseError(path, what, f"{want} in the markup but {got} units built")


def parse_formex(
    files: dict[str, bytes],
    path: Path,
    act: str | None = None,
    version: str | None = None,
    language: str | None = None,
    binding: bool = True,
) -> ParsedAct:
    """Parse one Formex 4 package (file name -> bytes) into a ParsedAct of format "formex"."""
    path = Path(path)
    xml_names = sorted(n for n in files if n.lower().endswith(".xml"))
    if not xml_names:
        raise FormatNotRecognised(path, _LOOKED_FOR, found=", ".join(sorted(files)[:5]) or "no files")
    manifests = [n for n in xml_names if _MANIFEST.search(n)]
    if len(manifests) > 1:
        raise ParseError(path, ", ".join(manifests), "several .doc manifests: give one act's package")

    manifest: etree._Element | None = None
    if manifests:
        manifest = _read(files, manifests[0], path)
        if manifest.tag != "DOC":
            raise FormatNotRecognised(_where(path, manifests[0]), ["<DOC> manifest"], found=f"<{manifest.tag}>")
        order = [
            r.get("FILE") or ""
            for r in manifest.iter("REF.PHYS")
            if (r.get("FILE") or "").lower().endswith(".xml")
        ]
        if not order:
            raise ParseError(_where(path, manifests[0]), "FMX", "the manifest lists no REF.PHYS files")
        missing = [f for f in order if f not in files]
        if missing:
            raise ParseError(path, manifests[0], f"the manifest lists {', '.join(missing)}, not in the package")
        # A damaged entry (its name no longer .xml) would otherwise drop that annex without a word.
        bad = [r.get("FILE") or "" for r in manifest.iter("REF.PHYS") if r.get("TYPE") == "DOC.XML"
               and not (r.get("FILE") or "").lower().endswith(".xml")]
        if bad:
            raise ParseError(path, manifests[0], f"the manifest lists {', '.join(map(repr, bad))}, not an XML file")
        roots = [(name, _read(files, name, path)) for name in order]
    else:
        candidates = [n for n in xml_names if not _TOC.search(n)]
        roots = [(name, _read(files, name, path)) for name in candidates]
        acts = [r for r in roots if r[1].tag in ("ACT", "CONS.ACT")]
        roots = acts + [r for r in roots if r[1].tag == "ANNEX"]  # file names sort in page order
        if not roots:
            raise FormatNotRecognised(path, _LOOKED_FOR, found=", ".join(xml_names[:5]))

    listed = {name for name, _root in roots}
    included = _resolve_includes(files, roots, path)
    unread = [n for n in xml_names if n not in listed and n not in included and n not in manifests
              and not _TOC.search(n)]
    if unread:
        # Never a silently short act: a content file that nothing lists or includes is refused.
        raise ParseError(path, ", ".join(unread), "in the package but neither listed in the manifest nor "
                         "included by another file (INCL.ELEMENT)")

    main_name, main = roots[0]
    if main.tag == "CONS.ACT" and len(roots) == 1:
        _prepare(main)
        where = _where(path, main_name)
        whole = deepcopy(main) if _has_deletions(main) else None
        _drop_deleted(main, where)
        parsed = _parse_consolidated(main, where, act, version, language, binding)
        deleted: tuple[str, ...] = ()  # the units the markers delete: the only gaps its numbering may have
        if whole is not None:
            kept = {u.unit for u in parsed.units}
            every = _parse_consolidated(whole, where, act, version, language, binding).units
            deleted = tuple(u.unit for u in every if u.unit not in kept)
        return replace(parsed, deleted=deleted)
    if main.tag != "ACT":
        raise FormatNotRecognised(path, _LOOKED_FOR, found=f"<{main.tag}> in {main_name}")
    for name, root in roots[1:]:
        if root.tag != "ANNEX":
            raise ParseError(_where(path, name), f"<{root.tag}>", "expected an <ANNEX> after the act")

    for _name, root in roots:
        _prepare(root)

    title = norm_space(_first_text(main.find("TITLE/TI")))
    bib = main.find("BIB.INSTANCE")
    lang = language or (bib.findtext("LG.DOC") if bib is not None else None)
    if not lang and manifest is not None:
        lang = manifest.findtext(".//LG.DOC")
    if not lang:
        raise ParseError(_where(path, main_name), "BIB.INSTANCE/LG.DOC", "no document language; pass language=")
    lang = lang.strip().lower()

    ver = version
    if ver is None and manifest is not None:
        date_el = manifest.find("PUBLICATION.REF/DATE")
        ver = _iso(date_el.get("ISO")) if date_el is not None else None
    if ver is None:
        tocs = [n for n in xml_names if _TOC.search(n)]
        if tocs:
            date_el = _read(files, tocs[0], path).find(".//BIB.OJ/DATE")
            ver = _iso(date_el.get("ISO")) if date_el is not None else None
    if ver is None:
        raise ParseError(path, "PUBLICATION.REF/DATE", "no OJ publication date (the version); pass version=")

    if not iso_date(ver):
        raise ParseError(path, "version", f"version {ver!r} is not an ISO date YYYY-MM-DD")
    celex = act or _detect_celex(main, manifest, title)
    if not celex:
        raise ParseError(_where(path, main_name), "BIB.INSTANCE/NO.DOC", "cannot tell the CELEX number; pass act=")
    doc_kind = celex_doc_kind(celex)

    articles = [a for a in main.iter("ARTICLE") if not _inside(a, ("QUOT.S",))]
    if not articles:
        raise FormatNotRecognised(_where(path, main_name), _LOOKED_FOR, found="an <ACT> without <ARTICLE>")

    col = UnitCollector(celex, ver, lang, path, binding)
    b = _Builder(col, _where(path, main_name), lang)
    consids = [c for c in main.iter("CONSID") if not _inside(c, ("QUOT.S",))]
    consids = [c for c in consids if b.recital(c)]
    for art in articles:
        b.article(art)
    for index, (name, anx) in enumerate(roots[1:], start=1):
        b.path = str(_where(path, name))
        b.annex(anx, index)
        b.path = str(_where(path, main_name))

    # Independent counts: never a silently short list (DESIGN invariant 6).
    parags = _numbered_paragraphs(main, b)
    labelled = 0
    for _name, root in roots:
        for no in root.iter("NO.P"):
            if _inside(no, _NOT_POINTS):
                continue
            label = _label(no)
            try:
                labelled += bool(label) and not is_quoted(label) and label_key(label) is not None
            except ValueError:
                labelled += 1  # a label no rule reads: the counts disagree and the parse fails
        for gr in root.iter("GR.SEQ"):  # numbered headings written as text: "1. Introduction"
            ti = gr.find("TITLE/TI")
            if ti is not None and ti.find("NP") is None and section_key(text_of(ti)) is None:
                labelled += numbered_heading(text_of(ti)) is not None
    expected = {
        "articles": (len(articles), b.n.articles),
        "recitals": (len(consids), b.n.recitals),
        "paragraphs": (len(parags), b.n.paragraphs),
        "points": (labelled, b.n.points + b.n.restarted + b.n.lettered),
        "annexes": (len(roots) - 1, b.n.annexes),
    }
    _check_counts(path, expected)
    return ParsedAct(
        act=celex,
        version=ver,
        language=lang,
        format=FORMAT,
        title=title,
        units=col.units(),
        doc_kind=doc_kind,
        binding=binding,
        source_url=eurlex_link(celex, lang),
        divisions=formex_divisions(articles),
    )


# ---------------------------------------------------------------------------------------------- #
# Consolidated Formex: `CL2024R1689EN0010010.0001.xml`, root <CONS.ACT>


def _parse_consolidated(
    main: etree._Element, path: Path, act: str | None, version: str | None, language: str | None, binding: bool
) -> ParsedAct:
    """A consolidated text (the Publications Office's own application of the amendments to an act).

    `INFO.CONSLEG START.DATE` is the date from which this text is the law (the version; CONSLEG.DATE is
    only when it was produced); `FAM.COMP/BIB.DATA/NO.CELEX` names the base act and
    `GR.MOD.ACT/MOD.ACT` the amending acts; `<?CLG.MDFO ACTIVE.DOC=… ?>` … `<?CLG.MDFC?>` mark what each
    one changed. Annexes are `<CONS.ANNEX>` in the same file. No preamble: no recitals.
    """
    info = main.find("INFO.CONSLEG")
    ver = version or (_iso(info.get("START.DATE")) if info is not None else None)
    if ver is None or not iso_date(ver):
        raise ParseError(path, "INFO.CONSLEG START.DATE", f"no consolidation date (got {ver!r}); pass version=")
    fam = main.find("CONS.DOC/FAM.COMP")
    base = fam.findtext("BIB.DATA/NO.CELEX") if fam is not None else None
    celex = act or (base or "").strip()
    if not celex:
        raise ParseError(path, "FAM.COMP/BIB.DATA/NO.CELEX", "cannot tell the consolidated act; pass act=")
    bib = main.find("CONS.DOC/BIB.INSTANCE")
    lang = (language or (bib.findtext("LG.DOC") if bib is not None else None) or "").strip().lower()
    if not lang:
        raise ParseError(path, "BIB.INSTANCE/LG.DOC", "no document language; pass language=")
    doc = main.find("CONS.DOC")
    title = norm_space(_first_text(doc.find("TITLE/TI"))) if doc is not None else ""
    modified_by = tuple(dict.fromkeys(
        c.strip() for c in (fam.xpath("GR.MOD.ACT/MOD.ACT/BIB.DATA/NO.CELEX/text()") if fam is not None else [])
    ))

    articles = [a for a in main.iter("ARTICLE") if not _inside(a, ("QUOT.S",))]
    if not articles:
        raise FormatNotRecognised(path, _LOOKED_FOR, found="a <CONS.ACT> without <ARTICLE>")
    annexes = [a for a in main.iter("CONS.ANNEX") if not _inside(a, ("QUOT.S",))]
    col = UnitCollector(celex, ver, lang, path, binding)
    b = _Builder(col, path, lang)
    for art in articles:
        b.article(art)
    for index, anx in enumerate(annexes, start=1):
        b.annex(anx, index)
    _check_counts(path, {"articles": (len(articles), b.n.articles),
                         "paragraphs": (len(_numbered_paragraphs(main, b)), b.n.paragraphs),
                         "annexes": (len(annexes), b.n.annexes)})
    return ParsedAct(
        act=celex,
        version=ver,
        language=lang,
        format=CONSOLIDATED_FORMAT,
        title=title,
        units=col.units(),
        doc_kind=celex_doc_kind(celex),
        binding=binding,
        source_url=eurlex_link(f"0{celex[1:]}-{ver.replace('-', '')}", lang),
        modified_by=modified_by,
        changed_units=tuple(_changed_units(main, b.element).items()),
    )


def _has_deletions(root: etree._Element) -> bool:
    return any(pi.target == "CLG.MDFO" and _pi_attrs(pi).get("ACTION") == "DELETED"
               for pi in root.iter(etree.ProcessingInstruction))


def _drop_deleted(root: etree._Element, path: Path) -> None:
    """Take out what a `<?CLG.MDFO ACTION="DELETED"?>` … `<?CLG.MDFC?>` pair encloses.

    The consolidated file keeps deleted provisions in place between the two markers (AI Act Article
    10(5), Annex I Section A point 1, Annex VIII Section B points 7 and 9, deleted by the Omnibus);
    they are not part of the consolidated text, so they are neither units nor text of their parent.
    """
    for pi in list(root.iter(etree.ProcessingInstruction)):
        if pi.target != "CLG.MDFO" or _pi_attrs(pi).get("ACTION") != "DELETED":
            continue
        ident = _pi_attrs(pi).get("ID", "")
        doomed, node = [], pi.getnext()
        while node is not None and not (node.tag is etree.ProcessingInstruction and node.target == "CLG.MDFC"
                                        and _pi_attrs(node).get("IDREF") == ident):
            doomed.append(node)
            node = node.getnext()
        if node is None:
            raise ParseError(path, f"CLG.MDFO ID={ident}", "a DELETED marker whose closing CLG.MDFC is not a sibling")
        pi.tail = None
        for el in doomed:
            el.getparent().remove(el)


def _pi_attrs(pi: etree._Element) -> dict[str, str]:
    return dict(re.findall(r'([A-Z.]+)="([^"]*)"', pi.text or ""))


def _changed_units(root: etree._Element, element: dict[str, etree._Element]) -> dict[str, str]:
    """Unit id -> CELEX of the act whose `CLG.MDFO`…`CLG.MDFC` marker pair encloses it (the last one, in
    document order); a marker pair inside a single unit (a changed sentence) marks that unit."""
    order: dict[etree._Element, int] = {}
    opened: dict[str, tuple[int, str]] = {}
    spans: list[tuple[int, int, str]] = []
    for i, node in enumerate(root.iter()):
        order[node] = i
        if node.tag is etree.ProcessingInstruction:
            attrs = _pi_attrs(node)
            if node.target == "CLG.MDFO" and attrs.get("ACTIVE.DOC"):
                opened[attrs.get("ID", "")] = (i, attrs["ACTIVE.DOC"])
            elif node.target == "CLG.MDFC" and attrs.get("IDREF") in opened:
                start, celex = opened.pop(attrs["IDREF"])
                spans.append((start, i, celex))
    extent = {}
    for uid, el in element.items():
        *_, last = el.iter()  # the element's last descendant (itself when it has none)
        extent[uid] = (order[el], order[last])
    out: dict[str, str] = {}
    for start, end, celex in spans:
        inside = [u for u, (a, z) in extent.items() if start < a and z < end]
        if not inside:
            around = [u for u, (a, z) in extent.items() if a < start and end <= z]
            inside = [max(around, key=lambda u: extent[u][0])] if around else []
        for uid in inside:
            out[uid] = celex
    return out
