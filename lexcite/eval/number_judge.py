"""An independent judge of numbers, for measuring what the verifier catches (`bench/answer_local.py` and its test).

It deliberately does not use `lexcite.values`, the verifier's own reading: a number error is judged
here by a cruder, separate rule, so that "the verifier caught every number error" is not the
verifier grading itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lexcite.answer.draft import MARKER
from lexcite.contract import Evidence

__all__ = ["numbers", "foreign_numbers"]

# A number as written in EU acts: "20 000 000", "35,000,000", "7", "4,5", "2026". Thousands separators
# are dropped before comparing, so "EUR 20 000 000" and "20000000" are one number and "20 000" another.
_NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:[  ,.]\d{3})+(?![\d])|\d+(?:[.,]\d+)?")
# Numbers that name a provision or an act ("Article 6(2)", "Annex III", "Regulation (EU) 2024/1689"):
# the verifier supports them by the cited unit's own id, so they are not judged here.
_REFERENCE = re.compile(r"\b(?:Articles?|Annex(?:es)?|paragraphs?|points?|Chapters?|Sections?|recitals?)\s+"
                        r"\d+[a-z]?(?:\(\d+[a-z]?\))*(?:\([a-z]+\))*|\(\d+[a-z]?\)|\d{2,4}/\d{1,4}", re.I)
# Spelled-out numbers ("six months", "three years") are numbers too: "six" and "6" are one value.
_NAMES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen twenty").split()
_WORDS = {w: str(n) for n, w in enumerate(_NAMES)}
_WORDS |= {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "ninety": "90", "hundred": "100"}
_WORD = re.compile(r"\b(" + "|".join(_WORDS) + r")\b", re.I)


def numbers(text: str) -> set[str]:
    """The numbers of a text outside references, thousands separators removed."""
    text = _REFERENCE.sub(" ", MARKER.sub(" ", text))
    found = {re.sub(r"[  ,.](?=\d{3}\b)", "", m) for m in _NUMBER.findall(text)}
    return found | {_WORDS[w.lower()] for w in _WORD.findall(text)}


def foreign_numbers(sentence: str, cited: Iterable[Evidence], *, titles: bool = True) -> set[str]:
    """Numbers of `sentence` that none of its cited units contains (in its text, or its title with `titles`)."""
    found: set[str] = set()
    for e in cited:
        found |= numbers(e.text) | (numbers(e.title) if titles else set())
    return numbers(sentence) - found
