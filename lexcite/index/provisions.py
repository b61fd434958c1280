"""Evidence by provision: the ranked units regrouped into the articles, annexes and recitals they belong to.

A paragraph is one step of one line of reasoning; a lawyer reads the article.
The generator therefore receives the top-ranked provisions, best first, each
with its ranked paragraphs/points plus their siblings in document order, under
a token budget. Each unit keeps its own id, so citations stay at paragraph or
point level. A provision longer than half the budget (Article 3's definitions,
a long annex) contributes only its ranked units and their immediate neighbours.
When a provision does not fit what is left of the budget, its ranked units
alone are tried, best first; the first provision's best unit is always given.

The seeds are the ranked candidates that admission let through the threshold
(all of them, not only the top k), so a refused search has no evidence.
Tokens are estimated at four characters each (`estimate_tokens`), the usual
rule for English text; the budget is a size, not a model's exact count.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from lexcite.contract import Candidate, CitationRef, ProvisionEvidence, ProvisionGroup
from lexcite.index.chunks import Passage, candidate

__all__ = ["BUDGETS", "DEFAULT_BUDGET", "estimate_tokens", "Seed", "group_provisions"]

BUDGETS = (1500, 3000, 6000)  # measured in bench/RESULTS.md ("Evidence by provision")
DEFAULT_BUDGET = 3000
_NEIGHBOURS = 1  # in a long provision, this many units either side of a ranked one


def estimate_tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4)


@dataclass(frozen=True)
class Seed:
    """A ranked candidate and the passage position it came from."""

    position: int
    candidate: Candidate


def group_provisions(seeds: Sequence[Seed], passages: Sequence[Passage], provision_of: Callable[[int], list[int]],
                     mask: np.ndarray, title_of: Callable[[CitationRef], str], budget: int = DEFAULT_BUDGET,
                     ranked: Sequence[Seed] = ()) -> ProvisionEvidence:
    """Group `seeds` (best first) into provisions within `budget` estimated tokens.

    `provision_of(i)` lists the positions of passage i's provision in document order; `mask` is the
    perimeter (a unit outside it is never added); `title_of` names a provision; `ranked` are the other
    ranked candidates (below the threshold), whose scores a neighbour keeps when it is one of them.
    """
    if budget < 1:
        raise ValueError(f"the evidence budget must be at least 1 token, got {budget}")
    known = {s.position: s.candidate for s in (*ranked, *seeds)}
    order: dict[int, list[Seed]] = {}  # first member position of the provision -> its seeds, best first
    members: dict[int, list[int]] = {}
    for s in seeds:
        group = [j for j in provision_of(s.position) if mask[j]] or [s.position]
        order.setdefault(group[0], []).append(s)
        members[group[0]] = group
    tokens = {j: estimate_tokens(passages[j].body) for g in members.values() for j in g}
    groups: list[ProvisionGroup] = []
    used = 0
    for head, prov_seeds in order.items():
        group = members[head]
        hits = [s.position for s in prov_seeds]
        whole = sum(tokens[j] for j in group) <= budget // 2
        chosen = group if whole else _around(group, set(hits))
        if used + sum(tokens[j] for j in chosen) > budget:
            whole = False
            chosen = list(hits)
            while chosen and used + sum(tokens[j] for j in chosen) > budget:
                chosen.pop()  # the lowest-ranked first
            if not chosen and not groups:
                chosen = hits[:1]  # never an empty evidence for an admitted question
            if not chosen:
                continue
            chosen = sorted(chosen, key=group.index)
        units = tuple(_unit(passages[j], known.get(j)) for j in chosen)
        cost = sum(tokens[j] for j in chosen)
        used += cost
        first = passages[head].record.unit
        provision = CitationRef(first.act, first.version, passages[head].article)
        groups.append(ProvisionGroup(provision=provision, title=title_of(provision), rank=len(groups) + 1,
                                     score=prov_seeds[0].candidate.score, units=units, tokens=cost, whole=whole))
    return ProvisionEvidence(tuple(groups), budget, used)


def _around(group: list[int], hits: set[int]) -> list[int]:
    """The ranked units of a long provision and their immediate neighbours, in document order."""
    keep = {group[n + d] for n, j in enumerate(group) if j in hits
            for d in range(-_NEIGHBOURS, _NEIGHBOURS + 1) if 0 <= n + d < len(group)}
    return [j for j in group if j in keep]


def _unit(p: Passage, ranked: Candidate | None) -> Candidate:
    """The unit as evidence: its own words (a container ranked by its own text gives that text only)."""
    if ranked is not None:
        return replace(ranked, text=p.body)
    return candidate(p, 0.0, via="context", text=p.body)
