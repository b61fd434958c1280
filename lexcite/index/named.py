"""Candidates the question itself names: the provisions it cites, the terms the acts define, an act's scope.

- A provision reference ("Article 26(1)", "Annex IV", "point (c) of Article 5(1)", "Art. 17(1) GDPR",
  "articolo 50, paragrafo 2") is read with `lexcite.references` and resolved against the passages
  inside the perimeter: in the act it names, else in every act in scope. The unit and the passages
  under it join the candidates (a whole article or annex gives its units, first ones first).
- A defined term: the term list is built from the parsed definitions of every act ("(14) 'X' means
  ..." points) by `lexcite index` and saved beside the index (`terms_path`, term -> passage keys,
  tagged with the fingerprint of the passages it was read from, like the BM25 index); it is read the
  first time it is needed, and read from the passages again when the file is missing, damaged or
  from other passages (an index built before it was saved). A question that asks what a term means
  ("how is profiling defined", "what counts as a provider") gets that term's definition as a candidate,
  and so does one that asks it in its own words when the acts' term for them is defined ("We're an IT
  reseller. What is our role?": `lay_terms` reads "distributor", AI Act Article 3(7)).
- An act's scope: a question that asks whether an act applies ("Does the GDPR apply to a company based
  outside the EU?", `question.asks_if_act_applies`) gets the units of that act's scope provisions, known
  by their headings ("Scope", "Material scope", "Territorial scope"; the acts in scope when it names
  none). Dev (stop 38): no ranking moved (the four such questions had their provision in the pool
  already); at a bonus of 0.05 one answer gained its expected paragraph and another lost its key
  fact, so they join with none. Prompted by a question of my own: GDPR Article 3 was not a candidate.

What joins is only a candidate: the reranker scores it like any other, and the priority it gets
(`Params.named_bonus` for at most `Params.named_boosted` of them, `Params.definition_bonus`) is
measured on the dev split (bench/RESULTS.md). A question that asks for a value ("What is the maximum
number of ...?") does not ask what a term means, though it opens like a definition question.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from lexcite.contract import AmendmentLink
from lexcite.index.chunks import Passage
from lexcite.index.manifest import write_atomic
from lexcite.index.provenance import asks_about_a_change
from lexcite.lay_terms import acts_terms
from lexcite.question import asks_if_act_applies, cues, singular
from lexcite.references import ActNames, find_references, heading_of, self_and_ancestors, unit_head
from lexcite.values import act_label

__all__ = ["Named", "NamedCandidates", "absent_reason", "unit_changes", "defined_term", "defined_terms",
           "terms_path", "save_terms", "load_terms", "TERM_QUALIFIER"]

_BY_NUMBER = re.compile(r"(?:Regulation|Directive|Decision|\d)")  # an act cited by its number takes no article
_MAX_PER_REFERENCE = 8  # a whole annex or article: its first units (the evidence adds the rest of the provision)
_MAX_TERMS = 2
# Words a definition may put between its term and "means": "(11) ‘consent’ of the data subject means ...", "(58)
# ‘subject’, for the purpose of real-world testing, means ..."
TERM_QUALIFIER = r"(?:\s+of the [a-z ]{2,30}?|,\s+for the purposes? of [^,]{2,60},)?"
# "(14) ‘serious incident’ means ...", "(4) 'profiling' means ...", "‘X’ or ‘Y’ means"
_DEFINITION = re.compile(r"^\s*\(?\d+[a-z]?\)?\s*[‘'\"“]([^’'\"”]{2,80})[’'\"”](?:\s*(?:or|and)\s*[‘'\"“][^’'\"”]+"
                         r"[’'\"”])*" + TERM_QUALIFIER + r"\s+(?:means|shall mean|refers to)\b", re.I)
_UNNUMBERED_ANNEX = re.compile(r"\bannex(?:es)?\b(?!\s+(?:[IVXLC]+|\d+)\b)", re.I)
_SCOPE_HEADING = re.compile(r"\bscope\b", re.I)
_TERMS_RULE = 2  # the version of the rule above a saved term list was read with: a list read by another is stale


def defined_term(text: str) -> str | None:
    """The term a definition point defines, lower-cased, or None when the text is not one."""
    m = _DEFINITION.match(text)
    return " ".join(m[1].lower().split()) if m else None


def defined_terms(passages: Sequence[Passage]) -> dict[str, list[str]]:
    """Every term the passages define -> the keys of the passages that define it, in passage order."""
    terms: dict[str, list[str]] = {}
    for p in passages:
        term = defined_term(p.body)
        if term:
            terms.setdefault(term, []).append(p.key)
    return terms


def terms_path(home: Path) -> Path:
    return home / "index" / "terms.json"


def save_terms(path: Path, passages: Sequence[Passage], fingerprint: str) -> None:
    """Write the term list of `passages`, tagged with `fingerprint` (bm25.fingerprint of their texts)."""
    write_atomic(path, json.dumps({"fingerprint": fingerprint, "rule": _TERMS_RULE, "terms": defined_terms(passages)},
                                  ensure_ascii=False))


def load_terms(path: Path, fingerprint: str) -> dict[str, list[str]] | None:
    """The term list saved at `path`, or None when there is none, it cannot be read, or it was built
    from other passages or by another rule (the caller then reads the passages)."""
    try:
        saved = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(saved, dict) or saved.get("fingerprint") != fingerprint or saved.get("rule") != _TERMS_RULE \
            or not isinstance(saved.get("terms"), dict):
        return None
    return saved["terms"]


def _short_forms(terms: dict[str, list[int]]) -> dict[str, list[int]]:
    """The last two or more words of a defined term, standing for it where no other term ends so and no term is
    so named: people say "data breach" for "personal data breach", "regulatory sandbox" for "AI regulatory
    sandbox"."""
    ends: dict[str, set[str]] = {}
    for t in terms:
        words = t.split()
        for n in range(2, len(words)):
            ends.setdefault(" ".join(words[-n:]), set()).add(t)
    return {end: terms[next(iter(full))] for end, full in ends.items() if len(full) == 1 and end not in terms}


@dataclass(frozen=True)
class NamedCandidates:
    references: tuple[int, ...]  # passage positions under a provision the question cites
    definitions: tuple[int, ...]  # passage positions of a definition the question asks about
    terms: tuple[str, ...]  # the defined terms it asks about
    absent: tuple[str, ...] = ()  # provisions it cites that no act it may mean has inside the perimeter, each with why
    # ("Article 120 of the GDPR, which no act ... has"): an answer from another provision would hide that
    scope: tuple[int, ...] = ()  # passage positions of the scope provisions of the act a question asks applies


class Named:
    """The passages under each unit id, and the defined terms, of one open index."""

    def __init__(self, passages: Sequence[Passage], acts: Iterable[tuple[str, str]],
                 terms_file: Path | None = None, fingerprint: str | None = None,
                 changes: Mapping[tuple[str, str], str] | None = None):
        """`terms_file` and `fingerprint`: the term list `lexcite index` saved for these passages; `changes`: what
        deleted or inserted a unit, by (act, unit) ("was deleted by Regulation (EU) 2026/1744, Article 1, point
        (9)(b), applicable from 2026-07-27"; `unit_changes`)."""
        self._names = ActNames(acts)
        self._changes = changes or {}
        self._passages = passages
        self._terms_file, self._fingerprint = terms_file, fingerprint
        self._under: dict[tuple[str, str], list[int]] = {}  # (act, unit id or an ancestor's) -> positions
        # each act's scope provisions, by their headings ("Scope", "Material scope", "Territorial scope")
        self._scope: dict[str, list[int]] = {}
        for i, p in enumerate(passages):
            u = p.record.unit
            for unit in self_and_ancestors(u.unit):
                self._under.setdefault((u.act, unit), []).append(i)
            if _SCOPE_HEADING.search(heading_of(u.title)):
                self._scope.setdefault(u.act, []).append(i)
        self._with_annexes = {act for act, unit in self._under if unit.startswith("anx_")}

    @cached_property
    def _defined(self) -> tuple[dict[str, list[int]], re.Pattern[str] | None]:
        """The defined terms (term -> positions) and the pattern that finds them in a question.

        Read on first use, not as the index opens: only a definition question needs it, and compiling the
        pattern of every term is milliseconds. The saved list
        spares reading every passage; without one (an index from before it was saved) they are read.
        """
        saved = (load_terms(self._terms_file, self._fingerprint)
                 if self._terms_file is not None and self._fingerprint is not None else None)
        by_key = saved if saved is not None else defined_terms(self._passages)
        position = {p.key: i for i, p in enumerate(self._passages)}
        terms = {t: [position[k] for k in keys if k in position] for t, keys in by_key.items()}
        terms |= _short_forms(terms)
        longest_first = sorted(terms, key=len, reverse=True)  # "AI system" before "system"
        # a term in y is named in the plural in ies ("third parties"); `find` reads it back in the singular
        alternatives = "|".join(f"{re.escape(t[:-1])}(?:y|ies)" if re.search(r"[^aeiou]y$", t) else re.escape(t)
                                for t in longest_first)
        pattern = re.compile(rf"(?<![\w-])({alternatives})(?:e?s)?(?![\w-])", re.I) if longest_first else None
        return terms, pattern

    def acts_in(self, query: str) -> frozenset[str]:
        """The CELEX of the catalog's acts the question names by name ("under the AI Act", "GDPR")."""
        return self._names.named_in(query)

    @property
    def terms(self) -> frozenset[str]:
        return frozenset(self._defined[0])

    def find(self, query: str, mask: np.ndarray, acts_in_scope: Sequence[str],
             definitions: bool = True, scope: bool = True) -> NamedCandidates:
        """The passages inside `mask` that `query` names (its definitions too when `definitions`, and the scope
        provisions of the act it asks applies when `scope`)."""
        refs: list[int] = []
        absent: list[str] = []
        for ref in find_references(query):
            named = self._names.resolve(ref.act) if ref.act else None
            if ref.act and not named:  # an act the catalog does not hold: scope.py's business
                continue
            acts = [named] if named else list(acts_in_scope) or sorted({a for a, _ in self._under})
            anywhere = [i for a in acts for cand in ref.candidates for i in self._under.get((a, cand), [])]
            if not anywhere:
                absent.append(f"{_cited(ref.text, ref.act)}, which no act it may mean has in any version the catalog "
                              "holds")
                continue
            # deleted since, or not yet inserted, at the date asked about; what the amendment did is still asked
            # ("What did the Omnibus change in Article 10(5)?": its instruction answers)
            if not any(mask[i] for i in anywhere) and not asks_about_a_change(query):
                change = next((self._changes[a, u] for a in acts for cand in ref.candidates
                               for u in self_and_ancestors(cand) if (a, u) in self._changes), "")
                absent.append(f"{_cited(ref.text, ref.act)}, which is not in the versions searched"
                              f"{f' (it {change})' if change else ''}: only {_versions(self._passages, anywhere)} "
                              "has it")
                continue
            for cand in ref.candidates:
                found = [i for a in acts for i in self._under.get((a, cand), []) if mask[i]]
                if found:
                    refs.extend(j for j in found[:_MAX_PER_REFERENCE] if j not in refs)
                    break
        # "the GDPR's annex", "the annexes to the GDPR": an act with no annex at all, named alone (a numbered annex
        # is a reference, above)
        if _UNNUMBERED_ANNEX.search(query) and len(named_acts := self.acts_in(query)) == 1:
            act = next(iter(named_acts))
            if act not in self._with_annexes:
                label = act_label(act) or act
                absent.append(f"an annex of {label}, which has none in any version the catalog holds")
        terms: list[str] = []
        defs: list[int] = []
        asks = cues(query)
        # "What is the maximum number of ...?" asks for a value, not what a term means
        if definitions and asks.definition and not (asks.value_kinds() or asks.count) and self._defined[1] is not None:
            known, pattern = self._defined
            # the acts' terms for what the question says in its own ("reseller": distributor) may be defined terms
            for m in (*pattern.finditer(query), *pattern.finditer(" ".join(acts_terms(query)))):
                term = " ".join(m[1].lower().split())
                term = term if term in known else singular(term)
                if term in known and term not in terms and len(terms) < _MAX_TERMS:
                    terms.append(term)
                    defs.extend(i for i in known[term] if mask[i] and i not in defs)
        applies: list[int] = []
        if scope and asks_if_act_applies(query):  # "Does the GDPR apply to ...?": its scope articles decide
            acts = sorted(self.acts_in(query)) or list(acts_in_scope) or sorted(self._scope)
            applies = [i for a in acts for i in self._scope.get(a, []) if mask[i]]
        return NamedCandidates(tuple(refs), tuple(defs), tuple(terms), tuple(dict.fromkeys(absent)), tuple(applies))


def absent_reason(absent: tuple[str, ...]) -> str:
    """'the question cites Article 120 of the GDPR, which no act it may mean has in any version the catalog holds
    (...)'; a provision deleted since, or inserted later than, the date asked about is named with its versions."""
    return (f"the question cites {'; and '.join(absent)} (check the number, ask about another date with --as-of, "
            "or ingest the act it belongs to)")


def unit_changes(links: Iterable[AmendmentLink]) -> dict[tuple[str, str], str]:
    """What deleted or inserted each unit, by (target act, unit): "was deleted by Regulation (EU) 2026/1744,
    Article 1, point (9)(b), applicable from 2026-07-27" (answer/amended.py renders the changes of the units an
    answer cites; these units are cited by no answer)."""
    notes = {}
    for link in links:
        if link.action in ("deleted", "inserted"):
            by = act_label(link.amending.act) or link.amending.act
            when = f", applicable from {link.applies_from}" if link.applies_from else ""
            notes[link.target_act, link.target_unit] = (f"was {link.action} by {by}, {unit_head(link.amending.unit)}"
                                                        f"{when}")
    return notes


def _versions(passages: Sequence[Passage], positions: Iterable[int]) -> str:
    """'the version of 2024-07-12 (superseded)', 'the versions of 2024-07-12 (superseded) and 2026-07-27 (current)'."""
    found = sorted({(passages[i].record.unit.version, passages[i].record.status) for i in positions})
    listed = " and ".join(f"{v} ({status})" for v, status in found)
    return f"the version{'s' if len(found) > 1 else ''} of {listed}"


def _cited(text: str, act: str | None) -> str:
    """A reference as the question cites it, with its act: "Article 120 of the GDPR", "Article 9 of Regulation (EU)
    2016/679"."""
    if not act or act in text:
        return text
    article = "" if _BY_NUMBER.match(act) else "the "
    return f"{text} of {article}{act}"
