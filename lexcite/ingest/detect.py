"""Which EUR-Lex format is this? Decided from the markup, never from the file name.

A document that matches no known format is an error (invariant 6), naming the
markers looked for and what was found instead.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from lxml import etree

from lexcite.errors import FormatNotRecognised

__all__ = ["FORMAT_MARKERS", "detect_html_format", "detect_xml_format"]

# format -> the class that proves it (checked in this order: oj- before its un-prefixed ancestor).
FORMAT_MARKERS: dict[str, str] = {
    "oj": "oj-ti-art",
    "consolidated": "title-article-norm",
    "oj_old": "ti-art",
}
FORMEX_ROOTS = ("ACT", "DOC", "ANNEX", "CONS.ACT")


def detect_html_format(root: etree._Element, path: str | Path) -> str:
    """'oj', 'oj_flat' (oj- classes without ELI article divs), 'consolidated' or 'oj_old'."""
    seen: Counter[str] = Counter()
    for el in root.iter("p", "div", "span", "td"):
        for c in (el.get("class") or "").split():
            seen[c] += 1
    for fmt, marker in FORMAT_MARKERS.items():
        if seen[marker]:
            if fmt == "oj" and not root.xpath("//div[starts-with(@id, 'art_')][contains(concat(' ', "
                                               "normalize-space(@class), ' '), ' eli-subdivision ')]"):
                return "oj_flat"
            return fmt
    common = ", ".join(f"{c}×{n}" for c, n in seen.most_common(5)) or "no classed elements"
    raise FormatNotRecognised(path, [f"p.{m}" for m in FORMAT_MARKERS.values()], found=common)


def detect_xml_format(root: etree._Element, path: str | Path) -> str:
    if isinstance(root.tag, str) and root.tag in FORMEX_ROOTS:
        return "formex"
    raise FormatNotRecognised(path, [f"<{t}>" for t in FORMEX_ROOTS], found=f"<{root.tag}>")
