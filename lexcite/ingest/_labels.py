"""Point, paragraph and heading labels as printed ("(a)", "a)", "3.1.", "Section A") to unit-id keys.

Shared by the consolidated and Formex parsers. Pure functions, no markup.
"""

from __future__ import annotations

import re
from datetime import date

from lexcite.ingest._markup import norm_space

__all__ = [
    "QUOTES",
    "is_quoted",
    "label_key",
    "label_kind",
    "point_id",
    "section_key",
    "numbered_heading",
    "heading_number",
    "RECITAL_WORD",
    "POINT_WORD",
    "display_label",
    "heading_word_case",
    "section_parts",
    "numbered_parts",
    "iso_date",
]

# Opening quotation marks used in EU texts (EN ‘’, NL/DE “” „, FR « »).
QUOTES = "“”„‘’‚«»‹›\"'"
# Unnumbered indents: they carry no id, their text belongs to the enclosing unit.
_BULLETS = {"", "—", "–", "-", "•", "·", "▪", "○", "◦", "*", "⁃"}
_KEY = re.compile(r"^[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*$")
_ROMAN = re.compile(r"^(?=[ivxlc]+$)c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$")
_SECTION = re.compile(r"^(?P<word>[^\W\d_]{4,})\s+(?P<key>[A-Z]|[IVXLC]+|\d+)(?=$|[\s.:—–-])")
_NUMBERED = re.compile(r"^(?P<key>\d+[a-z]?(?:\.\d+[a-z]?)*)\.?(?=\s|$)")
_HEADING_NO = re.compile(r"(?:^|\s)(?P<key>\d+[a-z]*|[IVXLC]+)\s*$")

RECITAL_WORD = {
    "en": "Recital",
    "nl": "Overweging",
    "fr": "Considérant",
    "de": "Erwägungsgrund",
    "it": "Considerando",
    "es": "Considerando",
}


# The formula that opens the recitals, where a document puts it in a recital element of its own.
RECITALS_FORMULA = ("whereas", "overwegende hetgeen volgt", "considérant ce qui suit",
                    "in erwägung nachstehender gründe", "considerando quanto segue", "considerando lo siguiente")


def is_recitals_formula(text: str) -> bool:
    """'Whereas:' (Data Act, div#rct_1 / an unnumbered <CONSID>): a heading of the recitals, not one."""
    return norm_space(text).rstrip(" :").lower() in RECITALS_FORMULA


def is_quoted(label: str) -> bool:
    """A label that opens a quotation ("“5.", "‘(68)") numbers text quoted from another act."""
    s = norm_space(label)
    return bool(s) and s[0] in QUOTES


def label_key(label: str) -> str | None:
    """'(a)' → 'a', 'a)' → 'a', '1.' → '1', '(iii)' → 'iii', '3.1.' → '3.1', '(14a)' → '14a'.

    None for bullets and dashes (unnumbered indents). ValueError for anything else, so that a
    label no rule knows is reported instead of silently becoming text.
    """
    s = norm_space(label)
    if s in _BULLETS:
        return None
    core = s
    if core.startswith("(") and core.endswith(")"):
        core = core[1:-1]
    elif core.endswith(")"):
        core = core[:-1]
    core = core.rstrip(".").strip()
    if not _KEY.match(core):
        raise ValueError(f"label {label!r} is not a point number like '(a)', 'a)', '1.' or '3.1.'")
    return core


def label_kind(key: str) -> str:
    """'dotted' (3.1), 'num' (1, 14a), 'roman' (iii; 'i', 'v', 'x' are ambiguous), 'alpha', 'upper'."""
    if "." in key:
        return "dotted"
    if key[0].isdigit():
        return "num"
    if _ROMAN.match(key):
        return "roman"
    if key.islower():
        return "alpha"
    return "upper"


def point_id(parent: str, key: str) -> str | None:
    """The id of the point labelled `key` under the unit `parent`.

    A dotted label "3.1" under point 3 becomes `...pnt_3.pnt_1`; None when the dotted prefix does
    not match the parent's trailing point keys (the caller reports it).
    """
    parts = key.split(".")
    if len(parts) > 1:
        chain = [seg[4:] for seg in parent.split(".") if seg.startswith("pnt_")]
        prefix = parts[:-1]
        if chain[-len(prefix) :] != prefix:
            return None
    return f"{parent}.pnt_{parts[-1]}"


def section_key(heading: str) -> str | None:
    """'Section A. List of …' / 'Afdeling B — …' / 'Section 1 Information …' → 'A' / 'B' / '1'."""
    m = _SECTION.match(norm_space(heading))
    return m["key"] if m else None


def numbered_heading(heading: str) -> str | None:
    """'1. Introduction' / '1.   Inleiding' / '3.1. Quality' → '1' / '1' / '3.1'."""
    m = _NUMBERED.match(norm_space(heading))
    return m["key"] if m else None


def heading_number(heading: str) -> str | None:
    """'Article 6' / 'Artikel 4a' / 'ANNEX III' / 'BIJLAGE XIII' → '6' / '4a' / 'III' / 'XIII'."""
    m = _HEADING_NO.search(norm_space(heading))
    return m["key"] if m else None


# Titles follow the OJ parser's convention, so a unit reads the same whichever format it came from:
# "Article 5(1), point (h)(iii) — Prohibited AI practices", "Annex I, Section A, point 1 — List of …".
POINT_WORD = {"en": "point", "nl": "punt", "de": "Nummer", "fr": "point", "it": "punto", "es": "punto"}


def display_label(label: str) -> str:
    """'(a)' -> '(a)', '4.' -> '4', 'a)' -> 'a)', '3.1.' -> '3.1'."""
    return norm_space(label).rstrip(".")


def heading_word_case(heading: str) -> str:
    """'ANNEX III' -> 'Annex III', 'BIJLAGE' -> 'Bijlage'; other headings unchanged."""
    heading = norm_space(heading)
    first, sep, rest = heading.partition(" ")
    return first.capitalize() + sep + rest if first.isupper() and len(first) > 1 else heading


def section_parts(heading: str) -> tuple[str, str, str] | None:
    """'Section A. List of …' -> ('Section', 'A', 'List of …'); 'Afdeling 1' -> ('Afdeling', '1', '')."""
    m = _SECTION.match(norm_space(heading))
    if not m:
        return None
    word = m["word"][0].upper() + m["word"][1:].lower()
    rest = norm_space(heading)[m.end():].lstrip(" .:—–-")
    return word, m["key"], rest


def numbered_parts(heading: str) -> tuple[str, str] | None:
    """'1.   Inleiding' -> ('1', 'Inleiding')."""
    m = _NUMBERED.match(norm_space(heading))
    if not m:
        return None
    return m["key"], norm_space(heading)[m.end():].lstrip(" .")


def iso_date(value: str) -> bool:
    """True for an ISO date YYYY-MM-DD (a version given on the command line is checked before use)."""
    try:
        return date.fromisoformat(value).isoformat() == value
    except ValueError:
        return False
