"""Admitted units that disagree on a checked fact: show every value, then say which prevails, or that they diverge.

Two admitted documents disagree when both give a value of the kind the answer
is about (a date, a period, an amount, a percentage, a threshold) for the same
subject, and the values differ. Only related documents are compared: two
versions of one act, an amending act and the act it amends, or guidance and
anything else. Two unrelated binding acts are two laws, each with its own scope.

The rule that decides is fixed, applied in this order:

1. binding legislation prevails over guidance;
2. a later amending act prevails over the text it amends, from its date of
   application (before that date the amended text still applies);
3. a later version of the same act prevails over an earlier one, from its date;
4. otherwise the documents diverge, and the answer says so.

Never silently pick one: each value is shown with its reference, as sentences
rendered here from stored facts, then verified like any other sentence.

`former_conflict` is the same disagreement in time: the text an amending act
replaced beside the text now in force (rule 2). The former unit is named in the
Conflict, as former, and never cited: it lies outside a perimeter of current law.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from lexcite.answer.evidence import own_text
from lexcite.catalog import Catalog
from lexcite.celex import TYPE_LETTERS
from lexcite.contract import CitationRef, CitedSentence, Conflict, Evidence, Fact
from lexcite.ingest.facts import fact_key
from lexcite.question import content_terms, cues
from lexcite.references import unit_head
from lexcite.values import act_label, read_values

__all__ = ["Relations", "find_conflicts", "former_conflict", "unit_label", "RULES"]

RULES = {
    "binding": "binding legislation prevails over guidance",
    "amending": "a later amending act prevails over the text it amends from its date of application",
    "not_yet": "an amending act prevails over the text it amends only from its date of application, "
               "which the as-of date has not reached",
    "version": "a later version of an act prevails over an earlier one from the date it applies",
    "diverge": "no fixed rule decides between them: the documents diverge",
}

_AMENDING = re.compile(r"\bamending\b(?P<rest>.*)$", re.I | re.S)
# "... — as amended by Regulation (EU) 2026/1744 (from ...)": the title of a derived or consolidated version
# names its amenders after this; they are not acts it amends.
_AS_AMENDED = re.compile(r"\s*(?:—\s*)?\bas amended by\b.*$", re.I | re.S)
_ACT_NO = re.compile(r"(?P<type>Regulations?|Directives?|Decisions?)?\s*\((?:EU|EC|EEC)\)\s*(?:No\s*)?"
                     r"(?P<a>\d{4})/(?P<b>\d{1,4})")
# Fact kinds that count as one "kind of value" for comparison.
_KIND_CLASS = {"application_date": "date", "date": "date", "deadline": "period", "fine_amount": "amount",
               "amount": "amount", "turnover_pct": "percent", "percentage": "percent", "threshold": "power"}
_VALUE_CLASS = {"date": "date", "month": "date", "period": "period", "amount": "amount", "percent": "percent",
                "power": "power"}


_V = TypeVar("_V")


def _nearest(by_ref: dict[str, _V], amending: CitationRef) -> _V | None:
    """The value stored for `amending`'s unit, else for its nearest ancestor that has one (point (40)(b) -> (40))."""
    unit = amending.unit
    while unit:
        found = by_ref.get(str(CitationRef(amending.act, amending.version, unit)))
        if found:
            return found
        unit = unit.rpartition(".")[0]
    return None


@dataclass(frozen=True)
class Relations:
    """Which act amends which, and from when: read from the catalog (amendment links, titles
    'amending ...', consolidated texts' modified_by)."""

    amends: dict[str, frozenset[str]] = field(default_factory=dict)  # amending CELEX -> amended CELEX
    applies_from: dict[str, str] = field(default_factory=dict)  # amending CELEX -> ISO date
    version_from: dict[tuple[str, str], str] = field(default_factory=dict)  # (act, version) -> valid_from
    # amending unit (e.g. "32026R1744@2026-07-24#art_1.pnt_40") -> the date its instruction applies from,
    # from the amendment links of lexcite/ingest/amendments.py, when the catalog has them
    unit_applies_from: dict[str, str] = field(default_factory=dict)
    # amending unit -> the (act, unit) pairs its instructions change, from the same links
    unit_targets: dict[str, frozenset[tuple[str, str]]] = field(default_factory=dict)
    # (act, version) -> the amending acts whose changes that version already contains (a derived or
    # consolidated version's modified_by)
    incorporates: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)

    def targets_of(self, amending: CitationRef) -> frozenset[tuple[str, str]] | None:
        """What an amending unit changes (its own links, else its nearest ancestor's, else its parts');
        empty when its act has links and none is this unit's (a recital changes nothing); None when no
        link of its act is stored."""
        found = _nearest(self.unit_targets, amending)
        if found:
            return found
        prefix = str(amending) + "."
        parts = [t for key, ts in self.unit_targets.items() if key.startswith(prefix) for t in ts]
        if parts:
            return frozenset(parts)
        own = f"{amending.act}@{amending.version}#" if amending.version else f"{amending.act}@"
        return frozenset() if any(key.startswith(own) for key in self.unit_targets) else None

    def start_of(self, amending: CitationRef) -> str | None:
        """When an amending unit applies: its own link's date (or its nearest ancestor's), else its act's."""
        return _nearest(self.unit_applies_from, amending) or self.applies_from.get(amending.act)

    @classmethod
    def from_catalog(cls, catalog: Catalog) -> Relations:
        amends: dict[str, set[str]] = {}
        applies: dict[str, str] = {}
        version_from: dict[tuple[str, str], str] = {}
        unit_from: dict[str, str] = {}
        targets: dict[str, set[tuple[str, str]]] = {}
        for link, _ in catalog.links():
            amending, applies_from = str(link.amending), link.applies_from
            amends.setdefault(link.amending.act, set()).add(link.target_act)
            if link.target_unit:
                targets.setdefault(amending, set()).add((link.target_act, link.target_unit))
            if applies_from:
                unit_from[amending] = min(unit_from.get(amending, applies_from), applies_from)
        incorporates: dict[tuple[str, str], frozenset[str]] = {}
        for v in catalog.versions():
            version_from[(v.act, v.version)] = v.valid_from
            incorporates[(v.act, v.version)] = frozenset(v.modified_by)
            applies[v.act] = min(applies.get(v.act, v.valid_from), v.valid_from)
            m = _AMENDING.search(_AS_AMENDED.sub("", v.title or ""))
            if m:
                kind = "R"
                for a in _ACT_NO.finditer(m["rest"]):
                    if a["type"]:
                        kind = TYPE_LETTERS[a["type"].lower().rstrip("s")]
                    amends.setdefault(v.act, set()).add(f"3{a['a']}{kind}{int(a['b']):04d}")
            for amending in v.modified_by:
                amends.setdefault(amending, set()).add(v.act)
        return cls({k: frozenset(s) for k, s in amends.items()}, applies, version_from, unit_from,
                   {k: frozenset(s) for k, s in targets.items()}, incorporates)


def unit_label(ref: CitationRef, binding: bool = True) -> str:
    """'Article 113 of Regulation (EU) 2024/1689', 'Annex III, point 4', 'recital 12 of ...'."""
    head = unit_head(ref.unit)
    label = act_label(ref.act)
    if label:
        return f"{head} of {label}"
    return f"{head} of this guidance" if not binding else head


def _clause_refs(text: str, start: int, end: int) -> set[str]:
    """References in the clause around a span ("...; (ii) 2 August 2028 as regards ... Article 6(1) and Annex I")."""
    left = max(text.rfind(";", 0, start), text.rfind(". ", 0, start), text.rfind(":", 0, start))
    ends = [i for i in (text.find(";", end), text.find(". ", end)) if i != -1]
    clause = text[left + 1:min(ends) if ends else len(text)]
    return {v.value for v in read_values(clause) if v.kind == "ref" and v.unit != "rel"}


def _best_fact(facts: Sequence[Fact], q_terms: set[str], asks_date: bool, kinds: set[str], text: str = "",
               q_refs: frozenset[str] = frozenset()) -> Fact | None:
    """The fact of one unit that answers the question best: shared words, the references the question
    names in the same clause (Annex I is not Annex III), and a date of application for "when"."""
    best, best_score = None, 0.0
    for f in facts:
        if _KIND_CLASS.get(f.kind) not in kinds:
            continue
        score = len(q_terms & set(content_terms(f.subject)))
        if q_refs and text:
            score += 2 * len(q_refs & _clause_refs(text, f.start, f.end))
        if asks_date and f.kind == "application_date":
            score += 1
        if score > best_score:
            best, best_score = f, score
    return best


def _on_branch(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _related(a: Evidence, b: Evidence, rel: Relations) -> bool:
    """Whether two units speak about the same provision in documents that can disagree."""
    if a.ref.act == b.ref.act:  # two versions of one act: the same provision only
        return a.ref.version != b.ref.version and _on_branch(a.ref.unit, b.ref.unit)
    if not (a.binding and b.binding):
        return True
    for x, y in ((a, b), (b, a)):
        if y.ref.act in rel.amends.get(x.ref.act, ()):
            if x.ref.act in rel.incorporates.get((y.ref.act, y.ref.version or ""), ()):
                return False  # y's version already contains x's changes: one text, not two
            targets = rel.targets_of(x.ref)
            # Without amendment links, any unit of the amended act may be the one changed.
            return targets is None or any(t_act == y.ref.act and _on_branch(t_unit, y.ref.unit)
                                          for t_act, t_unit in targets)
    return False


def _prevails(a: Evidence, b: Evidence, rel: Relations, as_of: str) -> tuple[Evidence | None, str]:
    """Which of two disagreeing units prevails, and under which rule."""
    if a.binding != b.binding:
        return (a if a.binding else b), "binding"
    for x, y in ((a, b), (b, a)):
        if y.ref.act in rel.amends.get(x.ref.act, ()):
            start = rel.start_of(x.ref)
            if start is None or as_of >= start:
                return x, "amending"
            return y, "not_yet"
    if a.ref.act == b.ref.act and a.ref.version != b.ref.version:
        later, earlier = (a, b) if (a.ref.version or "") > (b.ref.version or "") else (b, a)
        start = rel.version_from.get((later.ref.act, later.ref.version or ""), later.ref.version or "")
        return (later, "version") if as_of >= start else (earlier, "version")
    return None, "diverge"


def _labels(group: list[tuple[Evidence, Fact]]) -> dict[CitationRef, str]:
    """unit_label, plus "in its earlier/latest version" where one act appears in several versions
    (in words: a version date would be a value that the cited text does not contain)."""
    versions: dict[str, list[str]] = {}
    for e, _ in group:
        versions.setdefault(e.ref.act, [])
        if e.ref.version not in versions[e.ref.act]:
            versions[e.ref.act].append(e.ref.version or "")
    out = {}
    for e, _ in group:
        label = unit_label(e.ref, e.binding)
        vs = sorted(versions[e.ref.act])
        if len(vs) > 1:
            label += " in its latest version" if e.ref.version == vs[-1] else " in its earlier version"
        out[e.ref] = label
    return out


def _components(picks: list[tuple[Evidence, Fact]], rel: Relations) -> list[list[tuple[Evidence, Fact]]]:
    """Picks of one kind of value, grouped by relatedness (connected components), in evidence order."""
    groups: list[list[tuple[Evidence, Fact]]] = []
    for kind in dict.fromkeys(_KIND_CLASS[f.kind] for _, f in picks):
        members = [p for p in picks if _KIND_CLASS[p[1].kind] == kind]
        seen: set[int] = set()
        for i in range(len(members)):
            if i in seen:
                continue
            todo, comp = [i], []
            seen.add(i)
            while todo:
                j = todo.pop()
                comp.append(j)
                for n in range(len(members)):
                    if n not in seen and _related(members[j][0], members[n][0], rel):
                        seen.add(n)
                        todo.append(n)
            groups.append([members[j] for j in sorted(comp)])
    return groups


def _winner(group: list[tuple[Evidence, Fact]], rel: Relations, as_of: str) -> tuple[Evidence | None, list[str]]:
    """The member that prevails over every member giving another value, and the rules used; None: diverge."""
    for e, f in group:
        rules: list[str] = []
        for e2, f2 in group:
            if fact_key(f2) == fact_key(f):
                continue
            if not _related(e, e2, rel):
                break
            w, rule = _prevails(e, e2, rel, as_of)
            if w is not e:
                break
            rules.append(rule)
        else:
            return e, list(dict.fromkeys(rules))
    return None, []


def find_conflicts(
    question: str,
    evidence: Sequence[Evidence],
    facts: Sequence[Fact],
    answer_kinds: set[str],
    relations: Relations,
    as_of: str,
) -> tuple[tuple[Conflict, ...], tuple[CitedSentence, ...]]:
    """The conflicts among admitted units on the kinds of value the answer is about, and the sentences
    that show them (each value with its reference, then the rule's outcome)."""
    c = cues(question)
    kinds = {_VALUE_CLASS[k] for k in (set(c.value_kinds()) | answer_kinds) if k in _VALUE_CLASS}
    if not kinds or len(evidence) < 2:
        return (), ()
    q_terms = set(content_terms(question))
    by_ref: dict[CitationRef, list[Fact]] = {}
    for f in facts:
        by_ref.setdefault(f.ref, []).append(f)
    q_refs = frozenset(v.value for v in read_values(question) if v.kind == "ref" and v.unit != "rel")
    picks: list[tuple[Evidence, Fact]] = []
    for e in evidence:
        if own_text(e, evidence) != e.text:
            # a paragraph whose points are here: its points speak for their own values, and its opening words
            # are what they qualify ("It shall apply from 2 August 2026. However: (a) ..."), not a rival text
            continue
        f = _best_fact(by_ref.get(e.ref, ()), q_terms, c.date, kinds, e.text, q_refs)
        if f is not None:
            picks.append((e, f))
    conflicts: list[Conflict] = []
    sentences: list[CitedSentence] = []
    for group in _components(picks, relations):
        if len({fact_key(f) for _, f in group}) < 2:
            continue
        winner, rules = _winner(group, relations, as_of)
        kind = _KIND_CLASS[group[0][1].kind]
        rule = "; ".join(RULES[r] for r in rules) if winner is not None else RULES["diverge"]
        conflicts.append(Conflict(
            fact_kind=kind,
            values=tuple((f.display, e.ref) for e, f in group),
            prevails=winner.ref if winner is not None else None,
            rule=rule,
        ))
        label = _labels(group)
        for e, f in group:
            sentences.append(CitedSentence(f"{label[e.ref]} gives {f.display}.", (e.ref,)))
        if winner is not None:
            sentences.append(CitedSentence(
                f"Under the fixed rule that {' and that '.join(RULES[r] for r in rules)}, "
                f"{label[winner.ref]} prevails.", (winner.ref,)))
        else:
            sentences.append(CitedSentence(
                # worded without a negation: the verifier refuses a negation the cited texts lack
                "These admitted documents diverge on this point, and lexcite's fixed rules leave the choice between "
                "them open.",
                tuple(e.ref for e, _ in group)))
    return tuple(conflicts), tuple(sentences)


def _same_subject(a: Fact, a_text: str, b: Fact, b_text: str) -> bool:
    """Whether two values state the same thing: the same provisions named in their clause and mostly
    the same words around them. "2 August 2026" -> "2 August 2027" for a sandbox is one fact changed;
    the date of Article 6(1) in a replaced point and a date for Annex III in its successor are two."""
    if _clause_refs(a_text, a.start, a.end) != _clause_refs(b_text, b.start, b.end):
        return False
    x, y = set(a.subject.split()), set(b.subject.split())
    return not (x or y) or len(x & y) / len(x | y) >= 0.5


def former_conflict(question: str, former: tuple[CitationRef, str], current: tuple[CitationRef, str],
                    facts: Sequence[Fact], answer_kinds: set[str]) -> Conflict | None:
    """The text an amending act replaced beside the text now in force, the current one prevailing (rule 2).

    `former` and `current` are (reference, text) of the same provision in the version before the
    amendment and in the amended version. On the kind of value the question or the answer is about,
    when the current text changed a value that the former text gave for the same subject, the
    Conflict lists the two values; otherwise it lists the two texts (a former value of another subject
    would mislead). None when the texts are the same.
    """
    (old_ref, old_text), (new_ref, new_text) = former, current
    c = cues(question)
    kinds = {_VALUE_CLASS[k] for k in (set(c.value_kinds()) | answer_kinds) if k in _VALUE_CLASS}
    if kinds:
        q_refs = frozenset(v.value for v in read_values(question) if v.kind == "ref" and v.unit != "rel")
        new_facts = [f for f in facts if f.ref == new_ref]
        new = _best_fact(new_facts, set(content_terms(question)), c.date, kinds, new_text, q_refs)
        if new is not None:
            old = next((f for f in facts if f.ref == old_ref and _KIND_CLASS.get(f.kind) == _KIND_CLASS[new.kind]
                        and _same_subject(f, old_text, new, new_text)), None)
            if old is not None and fact_key(old) != fact_key(new):
                return Conflict(_KIND_CLASS[new.kind], ((old.display, old_ref), (new.display, new_ref)), new_ref,
                                RULES["amending"])
    if " ".join(old_text.split()) == " ".join(new_text.split()):
        return None
    return Conflict("text", ((old_text, old_ref), (new_text, new_ref)), new_ref, RULES["amending"])
