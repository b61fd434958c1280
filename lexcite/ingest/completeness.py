"""Is this document whole? Checks read from the document itself, and against what is stored.

A parser builds the units it can see; a truncated or damaged file shows it fewer. These checks
turn that into a refusal (DESIGN invariant 6): the markup must reach the end of the document,
an OJ act must carry its final provisions and signature block, and every numbered sequence
(recitals, articles, paragraphs, points, annexes) must run on without a gap; damage that leaves
every numbering whole is `lexcite/ingest/coverage.py`'s. A new manifestation of a stored version
may not lose units unless the user asks for it (`--replace`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from lxml import etree

from lexcite.contract import CONSOLIDATED_FORMATS, ParsedAct
from lexcite.errors import CatalogError, ParseError
from lexcite.ingest._markup import classes

__all__ = ["check_document_end", "check_final_provisions", "check_sequences", "check_not_shrinking",
           "describe_units"]

# The class that marks the final provisions / signature block, per HTML format. Consolidated texts
# carry no signature, so they have no entry.
_FINAL_MARKERS = {"oj": ("oj-final", "oj-signatory"), "oj_old": ("final", "signatory")}
_ROMAN = re.compile(r"^(?=[mdclxvi]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_KINDS = {"rct": "recital", "art": "article", "par": "paragraph", "pnt": "point", "anx": "annex",
          "sct": "section"}


def check_document_end(data: bytes, path: str | Path) -> None:
    """An (X)HTML manifestation ends with its closing </html> tag; a cut file does not."""
    tail = data.rstrip()[-64:].lower()
    if not tail.endswith(b"</html>"):
        raise ParseError(path, f"byte {len(data)}",
                         "the document stops before its closing </html> tag: the file is truncated")


def check_final_provisions(root: etree._Element, fmt: str, path: str | Path, published: bool = True) -> None:
    """An OJ act carries its final provisions and signatures, and (oj-) its end-of-document rule.

    The end-of-document rule is the Official Journal's own mark: a guidance document in the same
    markup (`published=False`) is not held to it, but still to its final provisions."""
    markers = _FINAL_MARKERS.get(fmt)
    if not markers:
        return
    seen: set[str] = set()
    for el in root.iter():
        if isinstance(el.tag, str):
            seen |= classes(el)
    if not seen & set(markers):
        raise ParseError(path, "end of the act",
                         f"no final provisions or signature block ({' / '.join(markers)}): the file is damaged")
    if fmt == "oj" and published and "oj-doc-end" not in seen:
        raise ParseError(path, "end of the document",
                         "no end-of-document rule (hr.oj-doc-end): the file is cut short")


def _roman(text: str) -> int | None:
    text = text.lower()
    if not text or not _ROMAN.match(text):
        return None
    values = [_ROMAN_VALUES[c] for c in text]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def _to_roman(n: int) -> str:
    out = ""
    for value, numeral in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
                           (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= value:
            out, n = out + numeral, n - value
    return out


def _gaps(keys: set[str], continued: bool) -> list[str]:
    """Labels missing from one list of siblings: from 1 (a, i, I) to its highest label.

    A `continued` list may start later than 1 (Annex I section B of the AI Act goes on from
    section A's points). Inserted labels ("4a", "ba") are not judged. A single "i", "v" or "x"
    is a letter when the letter before it is there, a roman numeral otherwise.
    """
    digits = {int(k) for k in keys if k.isdigit()}
    first = min(digits, default=1) if continued else 1
    missing = [str(n) for n in range(first, max(digits) + 1) if n not in digits] if digits else []
    for case in (str.lower, str.upper):
        same = {k for k in keys if k.isalpha() and case(k) == k}
        letters = {k for k in same if len(k) == 1}
        romans = {k for k in same if len(k) > 1 and _roman(k) is not None}
        for ambiguous in map(case, "ivx"):
            if ambiguous in letters and chr(ord(ambiguous) - 1) not in letters and (romans or ambiguous in "iI"):
                letters.discard(ambiguous)
                romans.add(ambiguous)
        if letters:
            start = ord(min(letters)) if continued else ord(case("a"))
            missing += [chr(c) for c in range(start, ord(max(letters)) + 1) if chr(c) not in letters]
        values = {_roman(k) or 0 for k in romans}
        if values:
            start = min(values) if continued else 1
            missing += [case(_to_roman(n)) for n in range(start, max(values) + 1) if n not in values]
    return missing


def _siblings(ids: Iterable[str]) -> dict[tuple[str, str], set[str]]:
    """(parent id, kind prefix) -> the labels of those children: 'art_3.pnt_44' -> ('art_3', 'pnt') -> {'44'}."""
    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    for uid in ids:
        parent, _, last = uid.rpartition(".")
        prefix, _, key = last.partition("_")
        out[(parent, prefix)].add(key)
    return out


def check_sequences(parsed: ParsedAct, path: str | Path) -> None:
    """Every numbered list of siblings runs without a gap; the first gap is named.

    A consolidated text leaves out what amending acts deleted (eIDAS consolidated has no Articles
    17 to 19): consolidated Formex marks each deletion (`ParsedAct.deleted`), so its numbering may
    miss only those; consolidated HTML does not say, so its numbering is not judged (the
    end-of-document check and the comparison with the stored version guard it).
    """
    if parsed.format in CONSOLIDATED_FORMATS and parsed.deleted is None:
        return
    siblings, gone = _siblings(u.unit for u in parsed.units), _siblings(parsed.deleted or ())
    for (parent, prefix), keys in siblings.items():
        missing = [m for m in _gaps(keys, continued=parent.rpartition(".")[2].startswith("sct_"))
                   if m not in gone.get((parent, prefix), ())]
        if missing:
            kind = _KINDS.get(prefix, prefix)
            under = f" of {parent}" if parent else ""
            raise ParseError(path, f"{kind}s{under}",
                             f"the numbering jumps: {kind} {', '.join(missing[:5])} missing; the file is damaged")


def describe_units(ids: Iterable[str]) -> str:
    """'articles 14, 15, ... (100), annexes I-XIII' for a set of unit ids: the top-level ones named."""
    ids = sorted(ids)
    top = [i for i in ids if "." not in i]
    shown = top or ids
    by_kind: dict[str, list[str]] = defaultdict(list)
    for i in shown:
        prefix, _, key = i.partition(".")[0].partition("_")
        by_kind[_KINDS.get(prefix, prefix)].append(key)
    parts = []
    for kind, keys in by_kind.items():
        keys.sort(key=lambda k: (len(k), k))
        listed = ", ".join(keys[:6]) + (f", … ({len(keys)})" if len(keys) > 6 else "")
        plural = ("es" if kind.endswith("x") else "s") if len(keys) > 1 else ""
        parts.append(f"{kind}{plural} {listed}")
    return "; ".join(parts) + ("" if top else f" ({len(ids)} units)")


def check_not_shrinking(parsed: ParsedAct, stored_ids: set[str], path: str | Path, replace: bool = False
                        ) -> set[str]:
    """The stored units this manifestation would drop: refused, or returned when `replace` asks for it.

    A consolidated text never carries the preamble, so recitals it lacks are not a loss it is judged by.
    """
    lost = stored_ids - {u.unit for u in parsed.units}
    if parsed.format in CONSOLIDATED_FORMATS:
        lost = {i for i in lost if not i.startswith("rct_")}
    if lost and not replace:
        raise CatalogError(
            f"{path}: would replace {parsed.act}@{parsed.version} [{parsed.language}] with a text that lacks "
            f"{len(lost)} of its {len(stored_ids)} stored units ({describe_units(lost)}); the stored version "
            "stays current. If this text is right, ingest it again with --replace"
        )
    return lost
