"""Text made safe for a terminal: escape sequences and control characters removed.

Law text and answers are printed to a terminal; a document (or a model) carrying ESC sequences
could recolour, retitle or rewrite what the reader sees. Everything lexcite shows passes here:
ingested text (`ingest/_markup.text_of`), answers (`answer/verify.verify`) and what the CLI prints.
"""

from __future__ import annotations

import re

__all__ = ["printable"]

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), other two-character escapes, then any C0/C1
# control except tab and newline, and DEL.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)


def printable(text: str) -> str:
    """`text` without terminal escape sequences and control characters (tabs and newlines kept)."""
    return _ESCAPES.sub("", text) if text else text
