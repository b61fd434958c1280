"""The CELEX type letters of the acts lexcite reads, and the words that name each kind of act.

A CELEX number of legislation is `3` + year + type letter + number: `32024R1689` (Regulation),
`32002L0058` (Directive), `32019D1234` (Decision). Every parser and the answer stage take the
letter, the kind and the words for it from here.
"""

from __future__ import annotations

__all__ = ["DOC_KINDS", "TYPE_LETTERS", "KIND_WORDS", "LEGAL_VALUES", "doc_kind", "kind_of_word", "celex"]

# CELEX type letter -> kind of act (ParsedAct.doc_kind)
DOC_KINDS: dict[str, str] = {"R": "regulation", "L": "directive", "D": "decision"}
TYPE_LETTERS: dict[str, str] = {kind: letter for letter, kind in DOC_KINDS.items()}
# The word that names each kind at the head of a title, in the languages lexcite reads (any case).
KIND_WORDS: dict[str, tuple[str, ...]] = {
    "regulation": ("regulation", "verordening", "verordnung", "règlement", "regolamento", "reglamento"),
    "directive": ("directive", "richtlijn", "richtlinie", "direttiva", "directiva"),
    "decision": ("decision", "besluit", "beschluss", "décision", "decisione", "decisión"),
}
# Formex `LEGAL.VALUE` (REG, REG_IMPL, DIR, DEC_DEL, …) prefix -> CELEX type letter
LEGAL_VALUES: dict[str, str] = {"REG": "R", "DIR": "L", "DEC": "D"}


def doc_kind(celex_number: str) -> str:
    """'32002L0058' -> 'directive'; an unknown letter counts as a regulation."""
    return DOC_KINDS.get(celex_number[5:6], "regulation")


def kind_of_word(word: str) -> str | None:
    """'Verordnung' -> 'regulation', 'DIRECTIVE' -> 'directive'; None for any other word."""
    w = word.lower()
    return next((kind for kind, words in KIND_WORDS.items() if w in words), None)


def celex(year: int | str, kind: str, number: int | str) -> str:
    """(2024, 'regulation', 1689) -> '32024R1689'. Raises KeyError for a kind without a type letter."""
    return f"3{int(year)}{TYPE_LETTERS[kind]}{int(number):04d}"
