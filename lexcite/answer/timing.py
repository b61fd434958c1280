"""Time in an answer: a cited provision in force but not (yet, or any longer) applicable, and "when" questions.

The catalog records, per unit, when it is in force and from (and until) when it applies, each date
with the unit whose words set it (`ingest/dates.py`). For each cited provision one sentence is
rendered here, in code, never by a generator, when

* on the perimeter's date (as_of, else today) the provision is in force but does not apply yet::

      Article 26 of Regulation (EU) 2024/1689 is in force but applies only from 2 December 2027 as
      regards AI systems classified as high-risk pursuant to Article 6(2) and Annex III, and from
      2 August 2028 as regards … (Article 113, point (c)). [S1, S4]

  (worded without a negation: the verifier refuses one the cited text lacks);
* or no longer applies ("… applied only until …");
* or the question asks when (cues "when", "apply from", "comply", "deadline"): the date the provision
  applies from, and when it entered into force if asked.

Each sentence cites the provision and the unit(s) that set its date(s); a setting unit that retrieval
did not admit joins the evidence when it lies inside the perimeter (invariant 1; otherwise no sentence
is written). The sentences are verified like the amended-by notes (`answer/amended.py`): every date and
reference must appear in a cited unit, except a date of entry into force computed from the OJ date
("the twentieth day following that of its publication"), which is supported by the catalog's record of
when the setting unit is in force (`verify`, rule 4).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from lexcite.answer.amended import Notes, _evidence_of, _long_date
from lexcite.answer.conflicts import unit_label
from lexcite.answer.verify import Outside, verify
from lexcite.contract import CitationRef, CitedSentence, Evidence, Perimeter
from lexcite.errors import CitationError
from lexcite.ingest.dates import Dated, UnitDates
from lexcite.question import asks_entry_into_force, cues
from lexcite.references import unit_head
from lexcite.values import act_label

__all__ = ["Timing", "asks_when", "timing_sentence", "act_sentence", "timing_notes"]

# asking when a provision applies or is in force; not "by when must X be done" (a deadline the text itself sets)
_WHEN = re.compile(r"\b(?:from when|since when|until when|(?:from|since) (?:what|which) date|appl(?:y|ies|icable|"
                   r"ication)|comply|compliance|complied|in force|enter(?:s|ed)? into force|entry into force|"
                   r"start(?:s|ed)? to|begin(?:s)? to|take(?:s)? effect|binding)\b", re.I)


@dataclass(frozen=True)
class Timing:
    """One cited provision's dates as the catalog records them."""

    ref: CitationRef
    dates: UnitDates


def asks_when(question: str) -> bool:
    """Does the question ask about time: when a provision applies, must be complied with, is in force?"""
    return cues(question).date and bool(_WHEN.search(question))


def _cases(dated: Sequence[Dated]) -> str:
    """'2 August 2026' or '2 December 2027 as regards …, and from 2 August 2028 as regards …'."""
    parts = [f"{_long_date(d.date or '')}{' ' + d.condition if d.condition else ''}" for d in dated]
    return ", and from ".join(parts)


def _setters(dated: Sequence[Dated]) -> list[CitationRef]:
    return list(dict.fromkeys(d.set_by for d in dated if d.set_by is not None))


def _by(refs: Sequence[CitationRef], subject: CitationRef) -> str:
    """'(Article 113, point (c))', naming the act when it is another act than the subject's."""
    names = []
    for r in refs:
        names.append(unit_head(r.unit) if r.act == subject.act else unit_label(r))
    return f"({'; '.join(dict.fromkeys(names))})"


def timing_sentence(t: Timing, day: str, question: str = "") -> tuple[str, list[CitationRef]] | None:
    """The sentence for one cited provision on `day`, and the units it cites; None when nothing is to be said."""
    d = t.dates
    label = unit_label(t.ref)
    applies = [x for x in d.applies_from if x.date]
    if len(applies) != len(d.applies_from) or not applies:
        if not asks_when(question):
            return None
        # said in words without a negation (the verifier checks polarity against the cited text)
        return (f"The date from which {label} applies is unknown to lexcite: its act's final provisions set it "
                "in words lexcite leaves unread.", [t.ref])
    linked = [x for x in d.notes if x.date and x.set_by is not None]
    if linked and t.ref.unit.startswith("anx_"):  # an annex takes the dates of the provisions a rule links to it
        return (f"For {label}, {_by(_setters(linked), t.ref)[1:-1]} sets the date of application: from "
                f"{_cases(linked)}.", [t.ref, *_setters(linked)])
    # a further case with a date of its own ("from 12 September 2027 to contracts concluded on or before …")
    applies = applies + linked
    until = d.applies_until
    if until is not None and until.date and day >= until.date and until.set_by is not None:
        return (f"{label} applied only until {_long_date(until.date)} {_by([until.set_by], t.ref)}.",
                [t.ref, until.set_by])
    pending = [x for x in applies if (x.date or "") > day]
    setters = _setters(applies)
    if not setters:
        return None
    if pending and len(pending) == len(applies):
        return (f"{label} is in force but applies only from {_cases(applies)} "
                f"{_by(setters, t.ref)}.", [t.ref, *setters])
    if pending:  # some cases apply already, others not yet
        return (f"{label} applies from {_cases(applies)} {_by(setters, t.ref)}; the later of these dates is "
                "still to come.", [t.ref, *setters])
    if not asks_when(question):
        return None
    sentence = f"{label} applies from {_cases(applies)} {_by(setters, t.ref)}."
    cited = [t.ref, *setters]
    eif = d.in_force_from
    if asks_entry_into_force(question) and eif.date and eif.set_by is not None:
        sentence = (f"{label} entered into force on {_long_date(eif.date)} {_by([eif.set_by], t.ref)} and applies "
                    f"from {_cases(applies)} {_by(setters, t.ref)}.")
        cited.append(eif.set_by)
    return sentence, list(dict.fromkeys(cited))


class _Instructions:
    """The units of amending acts that give amendment instructions, read once per question."""

    def __init__(self, catalog: object):
        self.catalog = catalog
        self._by_act: dict[str, list[CitationRef]] = {}

    def gives(self, ref: CitationRef) -> bool:
        if ref.act not in self._by_act:
            self._by_act[ref.act] = [link.amending for link, _ in
                                     self.catalog.links(amending_act=ref.act)]  # type: ignore[attr-defined]
        return any(a.on_branch(ref) for a in self._by_act[ref.act])


def _in_final_article(ref: CitationRef, act_dates: tuple[Dated, Dated]) -> bool:
    eif = act_dates[0].set_by
    return eif is not None and eif.unit.split(".")[0] == ref.unit.split(".")[0]


def act_sentence(ref: CitationRef, eif: Dated, general: Dated) -> tuple[str, list[CitationRef]] | None:
    """'Regulation (EU) 2016/679 entered into force on 24 May 2016 (Article 99(1)) and applies from 25 May 2018
    (Article 99(2)).'"""
    if not (eif.date and eif.set_by and general.date and general.set_by):
        return None
    act = act_label(ref.act) or ref.act
    return (f"{act} entered into force on {_long_date(eif.date)} {_by([eif.set_by], ref)} and applies from "
            f"{_long_date(general.date)} {_by([general.set_by], ref)}.", list(dict.fromkeys([eif.set_by,
                                                                                             general.set_by])))


def _provision(ref: CitationRef) -> CitationRef:
    return CitationRef(ref.act, ref.version, ref.unit.split(".")[0])


def timing_notes(catalog: object, question: str, cited: Sequence[CitationRef], evidence: Sequence[Evidence],
                 perimeter: Perimeter, outside: Outside, limit: int = 3) -> Notes:
    """One verified sentence per cited provision whose time the answer must state (module docstring),
    citing it and the units that set its dates (each added to the evidence when retrieval did not admit it).

    The verification covers only these sentences; the caller refuses the answer when it fails.
    """
    evidence = list(evidence)
    sid_of = {e.ref: e.sid for e in evidence}
    day = perimeter.effective_date()
    drafts: list[str] = []
    said: set[str] = set()
    record_dates: dict[CitationRef, str] = {}
    instructions = _Instructions(catalog)
    cited = list(dict.fromkeys(cited))
    # A "when" question is about the provisions the evidence holds, cited or not: their dates answer it.
    candidates = cited + [e.ref for e in evidence if e.ref not in cited] if asks_when(question) else cited
    for ref in candidates:
        if len(drafts) >= limit:
            break
        dates = catalog.unit_dates(ref, perimeter.language)  # type: ignore[attr-defined]
        if dates is None:
            continue
        act_dates = catalog.act_dates(ref.act, ref.version, perimeter.language or "en")  # type: ignore[attr-defined]
        final = act_dates is not None and _in_final_article(ref, act_dates)
        if act_dates is not None and (final or asks_entry_into_force(question)):
            # the article that sets the dates, or a question about entry into force: the act's own dates
            out = act_sentence(ref, *act_dates) if asks_when(question) else None
        elif ref.unit.startswith("rct_") or instructions.gives(ref):
            continue  # a recital states reasons and an amending instruction changes another act: neither applies
        else:
            out = timing_sentence(Timing(ref, dates), day, question)
        if out is None:
            continue
        text, refs = out
        # one sentence per provision and dates: points (a) and (b) of one article that apply alike say it once;
        # of the units only in the evidence, one per date and setting unit
        dates_only = text.replace(unit_label(ref), "")
        key = re.sub(re.escape(unit_label(ref)), unit_label(_provision(ref)), text) if ref in cited else dates_only
        if key in said:
            continue
        try:
            records = {r: catalog.resolve(r, perimeter.language) for r in refs}  # type: ignore[attr-defined]
        except CitationError:
            continue
        # invariant 1: a unit outside the perimeter is never cited, even one a searcher handed over
        if any(outside(r) is not None for r in refs):
            continue
        new = [r for r in refs if r not in sid_of]
        missing = [_evidence_of(records[r], f"S{len(evidence) + i}") for i, r in enumerate(new, start=1)]
        evidence.extend(missing)
        sid_of.update((ev.ref, ev.sid) for ev in missing)
        for eif in (dates.in_force_from, *(act_dates or ())[:1]):
            if eif.date and eif.set_by in records:
                record_dates[eif.set_by] = eif.date
        said.update((key, dates_only))
        drafts.append(f"{text} [{', '.join(sid_of[r] for r in refs)}]")
    if not drafts:
        return Notes(tuple(evidence), (), ())
    checked = verify("\n".join(drafts), evidence, outside, record_dates=record_dates)
    sentences: tuple[CitedSentence, ...] = tuple(replace(s, from_records=True) for s in checked.sentences)
    return Notes(tuple(evidence), sentences, (), checked)
