"""Safe reading of HTML/XML bytes and the text rules shared by every format parser.

Entity resolution and network access are always off (no XXE, no billion laughs).
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from lxml import etree, html

from lexcite.errors import ParseError
from lexcite.printable import printable

__all__ = ["read_html", "read_xml", "text_of", "norm_space", "eurlex_link", "classes"]

_MAX_BYTES = 64 * 1024 * 1024
_SPACE = re.compile(r"[\s\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
_SAFE_CODECS = {"utf-8", "ascii", "cp1250", "cp1251", "cp1252", "cp1253", "cp1254", "cp1257", "latin-1"}
_LANG3 = {"en": "EN", "nl": "NL", "it": "IT", "fr": "FR", "de": "DE", "es": "ES"}


def _declared_encoding(data: bytes) -> str | None:
    head = data[:2048].decode("ascii", "replace").lower()
    m = re.search(r"(?:charset|encoding)\s*=\s*[\"']?([a-z0-9_.:-]+)", head)
    return m.group(1) if m else None


def _decode(data: bytes, path: str | Path) -> tuple[str, str]:
    """The text and the codec it was read with; never a lossy guess.

    Bytes that are valid UTF-8 are UTF-8, whatever they declare (EUR-Lex serves UTF-8; a page
    mislabelled latin-1 would otherwise turn every accent and dash into two wrong characters).
    Otherwise the declared codec is used only if it is one of the ASCII-compatible codecs EU
    documents come in; UTF-7, EBCDIC, UTF-16 and unknown names are refused.
    """
    if not data or not data.strip():
        raise ParseError(path, "byte 0", "the file is empty")
    if len(data) > _MAX_BYTES:
        raise ParseError(path, f"{len(data)} bytes", f"larger than {_MAX_BYTES} bytes")
    declared = _declared_encoding(data)
    if declared and declared.replace("-", "").replace("_", "") in ("utf7", "unicode11utf7", "csunicode11utf7"):
        # Its ASCII bytes stand for other characters ("+AKA-"): read either way, the text would be wrong.
        raise ParseError(path, "charset declaration", "declares UTF-7, which lexcite refuses to decode; use UTF-8")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as e:
        not_utf8 = e.start
    try:
        codec = codecs.lookup(declared).name if declared else None
    except LookupError:
        codec = None
    if codec is None or not (codec in _SAFE_CODECS or codec.startswith("iso8859-")):
        said = f"declares the charset {declared!r}, which lexcite does not decode" if declared else \
            "declares no charset"
        raise ParseError(path, f"byte {not_utf8}", f"not UTF-8 text and {said} (use UTF-8, ISO-8859-n or windows-125n)")
    try:
        return data.decode(codec), codec
    except UnicodeDecodeError as e:
        raise ParseError(path, f"byte {e.start}", f"not valid {declared} text (wrong encoding?)") from None


def read_html(data: bytes, path: str | Path) -> html.HtmlElement:
    """Parse (X)HTML bytes with a parser that never fetches or expands anything."""
    text, _ = _decode(data, path)
    # lxml refuses str input carrying an XML encoding declaration: strip it.
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
    parser = html.HTMLParser(no_network=True, remove_comments=True, remove_pis=True, default_doctype=False)
    try:
        root = html.document_fromstring(text, parser=parser)
    except (etree.ParserError, ValueError) as e:
        raise ParseError(path, "document", f"not parseable as HTML: {e}") from None
    return root


def read_xml(data: bytes, path: str | Path) -> etree._Element:
    """Parse XML (Formex) with entities, DTDs and network access off."""
    _, codec = _decode(data, path)
    parser = etree.XMLParser(  # the codec chosen above, not whatever the declaration names
        resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False, huge_tree=False,
        encoding=codec,
    )
    try:
        root = etree.fromstring(data, parser=parser)
    except etree.XMLSyntaxError as e:
        raise ParseError(path, f"line {e.lineno}", f"not well-formed XML (truncated?): {e.msg}") from None
    if any(isinstance(n, etree._Entity) for n in root.iter()):
        raise ParseError(path, "document", "declares entities; refusing to expand them")
    return root


def classes(el: etree._Element) -> set[str]:
    return set((el.get("class") or "").split())


def norm_space(text: str) -> str:
    # Same result as _SPACE.sub(" ", text).strip() (str.split() splits on every char
    # that regex \s matches, NBSP and the U+2000 spaces included; only U+200B is not
    # whitespace to Python), at C speed: units nest, so long texts pass here often.
    if "\u200b" in text:
        text = text.replace("\u200b", " ")
    return " ".join(text.split())


def _is_note_marker(el: etree._Element) -> bool:
    """Footnote call-outs: <a href="#ntr1..">(<span class="oj-super oj-note-tag">1</span>)</a>."""
    tag = el.tag if isinstance(el.tag, str) else ""
    c = classes(el)
    if "oj-note-tag" in c or "note-tag" in c or tag in ("NOTE",):
        return True
    href = el.get("href") or ""
    return tag == "a" and (href.startswith("#ntr") or href.startswith("#ntc") or "footnote" in c)


def _walk(el: etree._Element, out: list[str], skip: frozenset[str]) -> None:
    if not isinstance(el.tag, str) or _is_note_marker(el):
        if el.tail:
            if isinstance(el.tag, str) and el.tail[:1] in ",.;:)":
                # "the Council <a>(58)</a>, the" -> "the Council, the", not "the Council , the"
                while out and not out[-1].strip():
                    out.pop()
                if out:
                    out[-1] = out[-1].rstrip()
            out.append(el.tail)
        return
    if el.tag in skip:
        if el.tail:
            out.append(el.tail)
        return
    superscript = el.tag in ("sup", "SUP") or "oj-super" in classes(el) or "super" in classes(el)
    inner: list[str] = []
    if el.text:
        inner.append(el.text)
    for child in el:
        _walk(child, inner, skip)
    chunk = "".join(inner)
    if superscript and out and out[-1][-1:].isdigit() and chunk.strip().isdigit():
        # An exponent: "10<sup>25</sup>" is 10^25, never 1025.
        out.append("^" + chunk.strip())
    else:
        # Block elements (paragraphs, cells) are separated by a space.
        if el.tag in ("p", "td", "div", "tr", "li", "br", "P", "ALINEA", "NP", "TXT", "ITEM"):
            out.append(" ")
        out.append(chunk)
        if el.tag in ("p", "td", "div", "tr", "li", "P", "ALINEA", "NP", "ITEM"):
            out.append(" ")
    if el.tail:
        out.append(el.tail)


def text_of(el: etree._Element, skip: frozenset[str] = frozenset()) -> str:
    """Readable text of an element: footnote markers out, exponents as ^, spaces normalised,
    terminal escapes and control characters removed (`lexcite.printable`)."""
    out: list[str] = []
    if el.text:
        out.append(el.text)
    for child in el:
        _walk(child, out, skip)
    return norm_space(printable("".join(out)))


def eurlex_link(celex: str, language: str, anchor: str | None = None) -> str:
    lang = _LANG3.get(language, language.upper())
    url = f"https://eur-lex.europa.eu/legal-content/{lang}/TXT/HTML/?uri=CELEX:{celex}"
    return f"{url}#{anchor}" if anchor else url


def consolidated_link(act: str, version: str, language: str, unit: str) -> str:
    """The EUR-Lex consolidated text of `act` as of `version` (CELEX 0YYYYRNNNN-YYYYMMDD), at the unit's
    article or annex: consolidated texts anchor articles and annexes (`art_4`), not their paragraphs."""
    top = unit.split(".", 1)[0]
    return eurlex_link(f"0{act[1:]}-{version.replace('-', '')}", language,
                       top if top.startswith(("art_", "anx_")) else None)
