"""Laws a question names that the catalog does not hold.

"Under the Data Act, can car owners demand the data?" is not answered by the AI Act, however close
its words come, yet retrieval alone still ranks AI Act paragraphs, and near the threshold. So the
laws a question names — "... Act", "... Directive", "... Regulation", "Germany's national law" —
are looked up among the catalog's acts by their short titles ("Artificial Intelligence Act"), the
usual short forms ("AI Act", "GDPR") and, since people mix up the kind of act, the same names with
another kind ("AI Regulation", "Data Protection Regulation"). A law that no act carries makes the search abstain and
say which law is missing — the fix is to ingest it, not to answer from another act — when the
question is asked under it ("under the Data Act", "according to ..."); a state's own law ("Colorado's
AI law") always counts as asked under, since no EU act answers for it. A law only mentioned ("if we
meet the Cyber Resilience Act, must we still show the AI Act's ...?", "does the Machinery Regulation
still list AI?") is left to the ranking: the catalog's acts often speak of the acts they amend or
refer to.

Acts cited only by number ("Directive (EU) 2019/1937") are not checked: the catalog's texts cite
many acts it does not hold, and a question about such a citation can be answered from them. A
nickname made of one word of a short title ("Omnibus Regulation") is not recognised: one word
("Data") would match too much.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lexcite.question import STOPWORDS
from lexcite.references import name_core, short_forms

__all__ = ["named_laws", "Scope", "refusal_reason"]

# one to five capitalised words before the kind of act: "Cyber Resilience Act", "Platform Work Directive"
_NAMED_ACT = re.compile(r"\b(?:[A-Z][\w-]*\s+){1,5}(?:Act|Directive|Regulation)\b")
# a state's own law: "Germany's national law", "Colorado's AI law"
_NATIONAL_LAW = re.compile(r"\b[A-Z][a-z]+['’]s\s+(?:(?:[a-z]+|AI)\s+){0,3}laws?\b")
_GOVERNED = re.compile(r"\b(?:under|according to|pursuant to|in accordance with)\s+(?:the\s+)?(?:EU\s+)?$", re.I)
_EU_OWNERS = ("Europe", "Union", "Commission", "Parliament", "Council")
_SKIP = STOPWORDS | {"european", "eu's"}


def named_laws(question: str) -> dict[str, bool]:
    """The laws a question names, as written ("Data Act", "Germany's national law"), in order, each with
    whether the question is asked under it ("under the Data Act, ...", or a state's own law)."""
    found = [(m, False) for m in _NAMED_ACT.finditer(question)]
    found += [(m, True) for m in _NATIONAL_LAW.finditer(question) if not m.group(0).startswith(_EU_OWNERS)]
    names: dict[str, bool] = {}
    for m, national in sorted(found, key=lambda f: f[0].start()):
        words = m.group(0).split()
        skipped = 0
        while words and words[0].lower() in _SKIP:  # "Under the EU AI Act" -> "AI Act"
            skipped += len(words[0]) + 1
            words = words[1:]
        if len(words) > 1:  # a bare "Act" or "Regulation" names nothing
            before = question[:m.start() + skipped]
            name = " ".join(words)
            names[name] = names.get(name, False) or national or bool(_GOVERNED.search(before))
    return names


class Scope:
    """The names of the acts in a catalog, and the laws a question names beyond them."""

    def __init__(self, titles: Iterable[str]):
        self.names: set[str] = set()
        for title in titles:
            self.names |= short_forms(title)

    def outside(self, question: str) -> tuple[str, ...]:
        """The laws the question is asked under that the catalog lacks (empty: nothing to refuse)."""
        return tuple(n for n, under in named_laws(question).items() if under and name_core(n) not in self.names)


def refusal_reason(outside: tuple[str, ...]) -> str:
    """'the question is asked under the Data Act, which the catalog does not hold (ingest it to ask about it)'."""
    laws = " and ".join(n if "'" in n or "’" in n else f"the {n}" for n in outside)
    return f"the question is asked under {laws}, which the catalog does not hold (ingest it to ask about it)"
