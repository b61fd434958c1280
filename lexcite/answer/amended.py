"""Amended provisions in an answer: which act changed a cited unit and from when, and the text it replaced.

A unit of a version that an amending act built (`ingest/apply_amendments.py`) carries
`changed_by`: the amending act's unit whose instruction enacted its text. For each such unit
that an answer cites, one sentence is rendered here, in code, never by a generator::

    Article 4 of Regulation (EU) 2024/1689 was replaced by Regulation (EU) 2026/1744, Article 1,
    point (5), applicable from 27 July 2026. [S1, S7]

It cites both the current unit and the amending unit. The amending unit joins the evidence
as a further S-id when retrieval did not admit it, and only when it lies inside the perimeter
(invariant 1; otherwise no sentence is written). The sentence is verified like any other, its
date against the catalog's record of when the current text is in force (`verify`, rule 4).
The same sentence is written when the answer cites an amending instruction itself ("point (c) is
replaced by the following: ..."): then the provision it enacted, as now in force, joins the evidence,
so that the answer points at the law as it reads, not only at the instruction that changed it.

What the sentence says comes from the stored amendment links (`ingest/amendments.py`):

* the instruction whose target is the cited unit gives the action (replaced, inserted, added,
  amended); "added"/"inserted" into a provision that already existed (a subparagraph added to
  a paragraph) is "amended", since the provision itself was not new;
* a unit inside a replaced or inserted provision (paragraph 1 of a replaced Article 4) is named
  through that provision: "Article 4 ... was replaced";
* a unit whose parts were changed (Article 113, whose points (a), (c) and (d) were replaced
  or added) was "amended" by the amending unit that holds all those instructions (point (40)).

The former text (the same provision in the version before the amendment) becomes a
`Conflict` (`conflicts.former_conflict`): former and current, the current prevailing under
the fixed rule that a later amending act prevails over the text it amends from its date
of application. The former unit is named there as former, never cited.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date

from lexcite.answer.conflicts import former_conflict, unit_label
from lexcite.answer.verify import Outside, Verification, verify
from lexcite.catalog import Catalog, UnitRecord
from lexcite.contract import AmendmentLink, CitationRef, CitedSentence, Conflict, Evidence, Fact, Perimeter
from lexcite.errors import CitationError
from lexcite.question import content_terms
from lexcite.references import unit_head
from lexcite.values import act_label, read_values

__all__ = ["Amendment", "Notes", "find_amendments", "amendment_notes", "former_conflicts", "render"]


@dataclass(frozen=True)
class Amendment:
    """One amending instruction behind cited units of an amended version."""

    current: tuple[CitationRef, ...]  # units now in force whose text it enacted (the note cites them)
    amending: CitationRef  # the amending act's unit to cite
    target: CitationRef  # the provision the sentence names (in the current version)
    action: str  # replaced | inserted | added | amended
    applies_from: str  # ISO date
    former: CitationRef | None  # the provision in the version before, when it existed
    moved: bool = False  # former is another provision, deleted by the same act, whose text this one took over


@dataclass(frozen=True)
class Notes:
    """The sentences on amended units, the evidence they cite, and how they verified."""

    evidence: tuple[Evidence, ...]  # the question's evidence, plus the units the notes cite that it lacked
    sentences: tuple[CitedSentence, ...]
    amendments: tuple[Amendment, ...]
    verification: Verification | None = None  # None when there is no note

    def gives(self, kinds: frozenset[str]) -> bool:
        """Do the notes, verified, give a value of one of these kinds (the date a question asks for)?"""
        return (self.verification is not None and self.verification.ok
                and any(v.kind in kinds for s in self.sentences for v in read_values(s.text)))


def _below(unit: str, other: str) -> bool:
    return unit.startswith(other + ".")


def _common_unit(units: Iterable[str]) -> str:
    """The deepest unit id that holds all of `units` ('art_1.pnt_40' for its points (a), (b), (c))."""
    split = [u.split(".") for u in units]
    out: list[str] = []
    for segs in zip(*split, strict=False):
        if len(set(segs)) != 1:
            break
        out.append(segs[0])
    return ".".join(out)


def _long_date(iso: str) -> str:
    d = date.fromisoformat(iso)
    return f"{d.day} {d:%B} {d.year}"


def _last_before(catalog: Catalog, act: str, unit: str, language: str | None, start: str,
                 other_than: str | None = None) -> UnitRecord | None:
    """`unit` of `act` in the latest version in force before `start` (other than version `other_than`), if it
    existed there."""
    older = [r for r in catalog.history(act, unit, language)
             if r.status != "draft" and r.unit.version != other_than and r.valid_from < start]
    return older[-1] if older else None


def _former(catalog: Catalog, rec: UnitRecord, unit: str) -> CitationRef | None:
    """`unit` in the latest version of the act before `rec`'s, if it existed there."""
    last = _last_before(catalog, rec.unit.act, unit, rec.unit.language, rec.valid_from, rec.unit.version)
    return last.unit.ref if last else None


# A provision is moved, not new, when an amending act deletes one provision and inserts another that repeats
# nearly all of its words (Article 10(5) deleted, its text inserted as Article 4a).
MOVED_SHARE = 0.8


def _moved_from(catalog: Catalog, links: _Links, rec: UnitRecord, target: str,
                changed_by: CitationRef) -> CitationRef | None:
    """The provision (in the version before `rec`'s) that `changed_by`'s act deleted and whose words the inserted
    provision `target` repeats: at least MOVED_SHARE of its content words, the best such; None when none does."""
    try:
        new_terms = set(content_terms(catalog.resolve(CitationRef(rec.unit.act, rec.unit.version, target),
                                                      rec.unit.language).unit.text))
    except CitationError:
        return None
    best, best_share = None, MOVED_SHARE
    for link in links.of(rec.unit.act, changed_by):
        old = _last_before(catalog, rec.unit.act, link.target_unit or "", rec.unit.language, rec.valid_from,
                           rec.unit.version) if link.action == "deleted" else None
        if old is None:
            continue
        terms = set(content_terms(old.unit.text))
        share = len(terms & new_terms) / len(terms) if terms else 0.0
        if share >= best_share:
            best, best_share = old.unit.ref, share
    return best


def _resolves(catalog: Catalog, ref: CitationRef, language: str) -> bool:
    try:
        catalog.resolve(ref, language)
    except CitationError:
        return False
    return True


class _Links:
    """The applied amendment links of an amending act version, read once per question."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self._cache: dict[tuple[str, str | None], list[AmendmentLink]] = {}

    def by_amending(self, amending: CitationRef) -> list[AmendmentLink]:
        """The links of `amending`'s act version, whatever their target."""
        key = (amending.act, amending.version)
        if key not in self._cache:
            self._cache[key] = [
                link for link, outcome in self.catalog.links(amending_act=amending.act)
                if link.amending.version == amending.version and link.target_unit and link.action != "unparsed"
                # only an instruction that was applied changed the stored text
                and (outcome is None or outcome.startswith("applied"))
            ]
        return self._cache[key]

    def of(self, target_act: str, amending: CitationRef) -> list[AmendmentLink]:
        """The links of `amending`'s act version that change `target_act`."""
        return [link for link in self.by_amending(amending) if link.target_act == target_act]


def _changed_by(catalog: Catalog, links: _Links, rec: UnitRecord) -> CitationRef | None:
    """The amending unit that enacted `rec`'s text. A derived version names it; an official consolidation's
    marker names only the amending act ("32026R1744"): then its stored version at or before `rec`'s, and the
    article of it whose instructions change `rec`'s act (None when the catalog holds neither)."""
    try:
        return CitationRef.parse(rec.changed_by or "")
    except CitationError:
        pass
    act = (rec.changed_by or "").strip()
    versions = [v.version for v in catalog.versions(act) if v.version <= rec.valid_from]
    if not versions:
        return None
    base = CitationRef(act, max(versions), "art_1")
    mine = links.of(rec.unit.act, base)
    return CitationRef(act, base.version, mine[0].amending.unit.split(".")[0]) if mine else None


def _amendment(catalog: Catalog, links: _Links, rec: UnitRecord) -> Amendment | None:
    """What changed `rec` (a unit with changed_by), from the stored links; None when they do not say."""
    changed_by = _changed_by(catalog, links, rec)
    if changed_by is None:
        return None
    u = rec.unit
    mine = links.of(u.act, changed_by)
    at_or_below = [x for x in mine if x.target_unit == u.unit or _below(x.target_unit or "", u.unit)]
    above = sorted((x for x in mine if _below(u.unit, x.target_unit or "")), key=lambda x: -len(x.target_unit or ""))
    if len(at_or_below) == 1 and at_or_below[0].target_unit == u.unit:  # the instruction names this unit
        link = at_or_below[0]
        target, action, amending = u.unit, link.action, link.amending
    elif at_or_below:  # its parts were changed: amended by the amending unit that holds all those instructions
        link = at_or_below[0]
        target, action, amending = u.unit, "amended", changed_by
        common = _common_unit(x.amending.unit for x in at_or_below)
        holder = CitationRef(changed_by.act, changed_by.version, common)
        # A whole article of the amending act ("Article 1", every instruction) says nothing: keep changed_by.
        if "." in common and _resolves(catalog, holder, u.language):
            amending = holder
    elif above:  # inside a replaced or inserted provision: name that provision
        link = above[0]
        target, action, amending = link.target_unit or u.unit, link.action, link.amending
    else:
        return None
    existed = _former(catalog, rec, target)
    if action in ("added", "inserted") and existed is not None:
        action = "amended"  # "a subparagraph is added" to a paragraph that existed: the paragraph was amended
    # The former text: this unit in the version before, else the provision it lies in; a new provision has none,
    # unless it took over the text of a provision the same act deleted.
    new = action in ("added", "inserted")
    former = _moved_from(catalog, links, rec, target, changed_by) if new else _former(catalog, rec, u.unit) or existed
    return Amendment(
        current=(u.ref,),
        amending=amending,
        target=CitationRef(u.act, u.version, target),
        action=action,
        applies_from=link.applies_from or rec.valid_from,
        former=former,
        moved=new and former is not None,
    )


def _enacted(catalog: Catalog, links: _Links, ref: CitationRef, language: str | None) -> UnitRecord | None:
    """The unit now in force whose text the amending instruction `ref` enacted, when it names one provision
    (several, as in "the following paragraphs are inserted", would each need a sentence: none is written)."""
    mine = [x for x in links.by_amending(ref) if x.amending == ref]
    if len(mine) != 1:
        return None
    try:
        rec = catalog.resolve(CitationRef(mine[0].target_act, None, mine[0].target_unit or ""), language)
    except CitationError:
        return None
    changed_by = _changed_by(catalog, links, rec)
    # Only while the current text is still this instruction's (a later act may have changed it since); an
    # official consolidation's marker names the act only: its act and version are what can be checked.
    if changed_by is None:
        return None
    same = changed_by.on_branch(ref) if "#" in (rec.changed_by or "") else \
        (changed_by.act, changed_by.version) == (ref.act, ref.version)
    return rec if same else None


def _deleted(catalog: Catalog, links: _Links, ref: CitationRef, language: str | None) -> list[Amendment]:
    """The provisions that the amending instruction `ref` (or one of its parts) deleted, each named by its text
    in the latest version before the deletion, which is its former text ("paragraph 5 is deleted")."""
    out = []
    for link in links.by_amending(ref):
        if link.action != "deleted" or not (link.amending == ref or _below(link.amending.unit, ref.unit)):
            continue
        last = _last_before(catalog, link.target_act, link.target_unit or "", language,
                            link.applies_from or "9999-12-31")
        if last is not None:
            deleted = last.unit.ref
            out.append(Amendment((), link.amending, deleted, "deleted", link.applies_from or last.valid_from, deleted))
    return out


def find_amendments(catalog: Catalog, cited: Iterable[CitationRef], language: str | None) -> list[Amendment]:
    """The amendments behind the cited units, one per (provision, amending unit).

    A cited unit with changed_by gives its own; a cited amending instruction ("point (c) is replaced by
    the following: ...") gives the provision it enacted, so that the answer also points at the text in force,
    or the provisions it deleted, with the text they had.
    """
    links = _Links(catalog)
    cited = list(dict.fromkeys(cited))
    found: dict[tuple[CitationRef, CitationRef], Amendment] = {}
    enacted: list[UnitRecord] = []
    for ref in cited:
        try:
            rec = catalog.resolve(ref, language)
        except CitationError:
            continue
        if not rec.changed_by:
            later = _enacted(catalog, links, ref, language)
            if later is not None:
                enacted.append(later)
            for a in _deleted(catalog, links, ref, language):
                found.setdefault((a.target, a.amending), a)
            continue
        a = _amendment(catalog, links, rec)
        if a is None:
            continue
        key = (a.target, a.amending)
        if key in found:  # points (i) and (ii) of one replaced point: one sentence citing both
            prev = found[key]
            found[key] = replace(prev, current=(*prev.current, *a.current))
        else:
            found[key] = a
    for rec in enacted:  # after the cited units' own: one of those may already say it
        a = _amendment(catalog, links, rec)
        if a is not None and (a.target, a.amending) not in found:
            found[(a.target, a.amending)] = a
    return list(found.values())


def render(a: Amendment) -> str:
    """'Article 4 of Regulation (EU) 2024/1689 was replaced by Regulation (EU) 2026/1744, Article 1,
    point (5), applicable from 27 July 2026.'"""
    act = act_label(a.amending.act)
    by = f"{act}, {unit_head(a.amending.unit)}" if act else unit_label(a.amending)
    return f"{unit_label(a.target)} was {a.action} by {by}, applicable from {_long_date(a.applies_from)}."


def _applies_from(catalog: Catalog, rec: UnitRecord, amending: CitationRef) -> str:
    """When the catalog records the change `amending` made to `rec` applying: that of the parts of `rec` the
    same instruction enacted (points inserted into a paragraph), else the unit's own date of application when
    the amending act enacted its text, else its start in force."""
    # a paragraph's text is rebuilt when a point is inserted into it: the change applies when the point does
    changed = [c for c in catalog.children(rec) if c.changed_by == str(amending)] or ([rec] if rec.changed_by else [])
    days = [d.earliest for c in changed if (d := catalog.unit_dates(c.unit.ref, c.unit.language)) and d.earliest]
    return min(days, default=None) or rec.valid_from


def _evidence_of(rec: UnitRecord, sid: str) -> Evidence:
    u = rec.unit
    return Evidence(sid=sid, ref=u.ref, title=u.title, text=u.text, status=rec.status, binding=u.binding,
                    source_url=u.source_url)


def amendment_notes(catalog: Catalog, cited: Sequence[CitationRef], evidence: Sequence[Evidence],
                    perimeter: Perimeter, outside: Outside) -> Notes:
    """One verified sentence per amendment behind the cited units, citing the current unit and the
    amending unit (each added to the evidence when retrieval did not admit it).

    The verification covers only these sentences; the caller refuses the answer when it fails.
    """
    evidence = list(evidence)
    sid_of = {e.ref: e.sid for e in evidence}
    drafts: list[str] = []
    kept: list[Amendment] = []
    record_dates: dict[CitationRef, str] = {}
    for a in find_amendments(catalog, cited, perimeter.language):
        if a.action == "deleted":
            # no sentence: the instruction words its target as its act does ("in Annex VIII, section B, points 7
            # and 9 are deleted"), which the reference check cannot read; the former text is shown as a Conflict
            kept.append(a)
            continue
        refs = (*a.current, a.amending)
        try:
            records = {r: catalog.resolve(r, perimeter.language) for r in refs}
        except CitationError:
            continue
        new = [r for r in refs if r not in sid_of]
        missing = [_evidence_of(records[r], f"S{len(evidence) + i}") for i, r in enumerate(new, start=1)]
        # invariant 1: a unit outside the perimeter is never cited, so no sentence names it
        if any(outside(ev.ref) is not None for ev in missing):
            continue
        evidence.extend(missing)
        sid_of.update((ev.ref, ev.sid) for ev in missing)
        # the change's date is the current unit's date of application where the catalog read one (a change may
        # apply later than the amending act's entry into force: catalog/dates.py), else its start in force
        record_dates.update((r, _applies_from(catalog, rec, a.amending)) for r, rec in records.items())
        drafts.append(f"{render(a)} [{', '.join(sid_of[r] for r in refs)}]")
        kept.append(a)
    if not drafts:
        return Notes(tuple(evidence), (), tuple(kept))
    checked = verify("\n".join(drafts), evidence, outside, record_dates=record_dates)
    sentences = tuple(replace(s, from_records=True) for s in checked.sentences)
    return Notes(tuple(evidence), sentences, tuple(kept), checked)


def former_conflicts(question: str, amendments: Sequence[Amendment], catalog: Catalog, language: str | None,
                     answer_kinds: set[str], shown: Sequence[Conflict] = ()) -> tuple[Conflict, ...]:
    """The former text (or value) of each amended provision beside the current one; none for a provision
    that a conflict among admitted units already shows in both versions."""
    pairs: list[tuple[CitationRef, CitationRef]] = []
    for a in amendments:
        if a.former is None:
            continue
        if a.action == "deleted":  # the text it had beside the instruction that deleted it
            pairs.append((a.former, a.amending))
            continue
        # the whole provision against its whole former self (Article 4 then and now, or the deleted provision whose
        # text it took over), else unit by unit
        whole = a.former.unit == a.target.unit or a.moved
        pairs += [(a.former, a.target)] if whole else [(a.former, c) for c in a.current]
    pairs = list(dict.fromkeys(pairs))
    if not pairs:
        return ()
    facts: list[Fact] = catalog.facts(refs=[r for pair in pairs for r in pair], language=language)
    named = {r for c in shown for _, r in c.values}
    out: list[Conflict] = []
    for old, new in pairs:
        if any(n.on_branch(old) for n in named) and new in named:
            continue
        c = former_conflict(question, (old, catalog.resolve(old, language).unit.text),
                            (new, catalog.resolve(new, language).unit.text), facts, answer_kinds)
        if c is not None and c not in out:
            out.append(c)
    return tuple(out)
