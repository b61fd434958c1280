"""The values passed between stages: ingest -> catalog -> index -> answer -> eval.

These are pure values (frozen dataclasses). Storage identity lives in the
catalog; the only code that parses or formats a citation reference is
`CitationRef`. Dict shapes appear only at the JSON and SQLite edges.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from datetime import date
from typing import Any, Protocol, runtime_checkable

from lexcite.errors import CitationError

__all__ = [
    "UNIT_KINDS",
    "Unit",
    "ParsedAct",
    "CONSOLIDATED_FORMATS",
    "DERIVED_FORMAT",
    "CitationRef",
    "Perimeter",
    "Hit",
    "ProvisionGroup",
    "ProvisionEvidence",
    "Evidence",
    "CitedSentence",
    "Conflict",
    "Answer",
    "AmendmentLink",
    "Fact",
    "Verdict",
    "ValueCheck",
    "REFUSAL",
    "Candidate",
    "SearchResult",
    "UnitRecord",
    "VersionRow",
    "STATUSES",
    "OPEN_END",
    "Retriever",
]

UNIT_KINDS: tuple[str, ...] = ("recital", "article", "paragraph", "point", "annex", "section")

# ELI-style path: segments like rct_12, art_6, par_2, pnt_h, pnt_iii, anx_III, sct_A, art_4a.
_SEGMENT = r"(?:rct|art|par|pnt|anx|sct)_[0-9A-Za-z]+"
_UNIT_ID = re.compile(rf"^{_SEGMENT}(?:\.{_SEGMENT})*$")
_CELEX = re.compile(r"^[0-9CE][0-9]{4}[A-Z]{1,2}[0-9]{4}(?:R\([0-9]{2}\))?(?:-[0-9]{8})?$")
_REF = re.compile(r"^(?P<act>[^@#\s]+)(?:@(?P<version>\d{4}-\d{2}-\d{2}))?#(?P<unit>\S+)$")

REFUSAL = "Not found in the admitted documents."


def is_unit_id(text: str) -> bool:
    return bool(_UNIT_ID.match(text))


def is_celex(text: str) -> bool:
    return bool(_CELEX.match(text))


# The 24 official languages of the EU, as ISO 639-1 codes (what `Unit.language` carries).
EU_LANGUAGES = frozenset(
    "bg cs da de el en es et fi fr ga hr hu it lt lv mt nl pl pt ro sk sl sv".split()
)


def _iso(value: str, what: str) -> None:
    # dates are compared as text, so only the one spelling: Python also reads "20260101" and "2026-W01-1" as dates,
    # and "20260101" sorts after every "2026-..." date
    try:
        if not (isinstance(value, str) and len(value) == 10 and value[4] == value[7] == "-"):
            raise ValueError
        date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{what} must be an ISO date YYYY-MM-DD, got {value!r}") from None


@dataclass(frozen=True)
class Unit:
    """A normative unit: the atom that is indexed, retrieved and cited."""

    act: str  # CELEX, e.g. "32024R1689"
    version: str  # ISO date of the text version
    unit: str  # path id, e.g. "art_6.par_2"
    kind: str  # one of UNIT_KINDS
    title: str  # e.g. "Article 6 — Classification rules for high-risk AI systems"
    text: str  # full text, children included
    parent: str | None  # parent unit id, None at top level
    position: int  # document order, 0-based
    language: str  # ISO 639-1, e.g. "en"
    binding: bool = True  # legislation (True) or guidance (False)
    source_url: str = ""  # a link a reader can open, to the paragraph where possible
    footnotes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not is_unit_id(self.unit):
            raise ValueError(f"unit id {self.unit!r} is not an ELI-style path like 'art_6.par_2'")
        if self.kind not in UNIT_KINDS:
            raise ValueError(f"unit {self.unit}: kind {self.kind!r} not in {UNIT_KINDS}")
        _iso(self.version, f"unit {self.unit}: version")

    @property
    def ref(self) -> CitationRef:
        return CitationRef(self.act, self.version, self.unit)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["footnotes"] = list(self.footnotes)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Unit:
        names = {f.name for f in fields(cls)}
        kw = {k: v for k, v in d.items() if k in names}
        kw["footnotes"] = tuple(kw.get("footnotes") or ())
        kw["binding"] = bool(kw.get("binding", True))
        return cls(**kw)


# Official consolidated texts (a consolidated CONVEX page, a consolidated Formex package): the
# Publications Office's own application of the amending acts they name, never an amending act.
CONSOLIDATED_FORMATS = ("consolidated", "formex_consolidated")
# A version lexcite built itself by applying amending acts (lexcite/ingest/apply_amendments.py).
DERIVED_FORMAT = "amended"


@dataclass(frozen=True)
class ParsedAct:
    """One parsed manifestation: an act's text in one version and language."""

    act: str
    version: str
    language: str
    format: str  # "oj", "oj_old", "consolidated", "formex", "formex_consolidated" (and "amended": derived)
    title: str
    units: tuple[Unit, ...]
    doc_kind: str = "regulation"  # regulation, directive, decision, guidance, ...
    binding: bool = True
    source_url: str = ""
    modified_by: tuple[str, ...] = ()  # CELEX of amending acts named in a consolidated text
    # unit id -> CELEX of the act that last changed it (consolidated ▼M markers)
    changed_units: tuple[tuple[str, str], ...] = ()
    # article id -> the chapter/section it lies in ("cpt_III.sct_4"), where the markup says (ingest/dates.py)
    divisions: tuple[tuple[str, str], ...] = ()
    # unit ids a consolidated text marks as deleted (kept between deletion markers, not units): the only gaps
    # its numbering may have; None when the format does not say what was deleted
    deleted: tuple[str, ...] | None = None

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for u in self.units:
            out[u.kind] = out.get(u.kind, 0) + 1
        return out


@dataclass(frozen=True, order=True)
class CitationRef:
    """`{act}@{version}#{unit}`; version None means "any version" (golden sets)."""

    act: str
    version: str | None
    unit: str

    def __post_init__(self) -> None:
        if not is_unit_id(self.unit):
            raise CitationError(f"{self}: unit id {self.unit!r} is not an ELI-style path")

    @classmethod
    def parse(cls, text: str) -> CitationRef:
        m = _REF.match(text.strip())
        if not m:
            raise CitationError(
                f"{text!r} is not a citation reference; expected '32024R1689@2024-07-12#art_6.par_2'"
                " or '32024R1689#art_6.par_2'"
            )
        try:
            if m["version"]:
                _iso(m["version"], "version")
            return cls(m["act"], m["version"], m["unit"])
        except ValueError as e:
            raise CitationError(f"{text!r}: {e}") from None

    def __str__(self) -> str:
        at = f"@{self.version}" if self.version else ""
        return f"{self.act}{at}#{self.unit}"

    def on_branch(self, other: CitationRef) -> bool:
        """True when both ids lie on one branch of the same act (equal, above or below)."""
        if self.act != other.act:
            return False
        if self.version and other.version and self.version != other.version:
            return False
        a, b = self.unit, other.unit
        return a == b or a.startswith(b + ".") or b.startswith(a + ".")


OPEN_END = "9999-12-31"  # the valid_to of a version or unit still in force


@dataclass(frozen=True)
class Perimeter:
    """The filters a question is asked in; applied before any ranking (invariant 1).

    The rule, in one place (`rejects`); index/perimeter.py translates it to a BM25 mask and a
    Chroma `where`, and a property test holds every consumer to it:

    - language: the unit's language equals `language` (None: any language);
    - acts: the unit's act is one of `acts` (empty: any act);
    - status: `current` only; `superseded` too when `include_superseded` is set or an `as_of`
      date is given (the version in force then may be superseded now); `draft` never;
    - date: valid_from <= as_of < valid_to (open end: OPEN_END), with as_of = today when not
      given; skipped when `include_superseded` is set without `as_of` (every version);
    - binding_only: guidance (binding false) is out;
    - access tags: a unit without tags is public; a unit with tags is in only when the
      perimeter holds one of them;
    - kinds: the unit's kind is one of `kinds` (empty: any kind).
    """

    acts: tuple[str, ...] = ()
    language: str | None = "en"
    include_superseded: bool = False
    binding_only: bool = False
    as_of: str | None = None  # ISO date; None = today
    access_tags: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.as_of is not None:
            _iso(self.as_of, "as_of")

    def effective_date(self) -> str:
        return self.as_of or date.today().isoformat()

    def statuses(self) -> tuple[str, ...]:
        """The version statuses admitted."""
        return ("current", "superseded") if (self.include_superseded or self.as_of) else ("current",)

    def check_date(self) -> str | None:
        """The day validity is checked on, or None when every version is wanted."""
        if self.include_superseded and self.as_of is None:
            return None
        return self.effective_date()

    def rejects(self, rec: UnitRecord) -> str | None:
        """Why `rec` lies outside the perimeter (the first rule it fails), or None when it is inside."""
        u = rec.unit
        return self._rejects(u.act, u.language, rec.status, rec.valid_from, rec.valid_to, u.binding,
                             rec.access_tags, u.kind)

    def admits(self, rec: UnitRecord) -> bool:
        """True when `rec` lies inside the perimeter."""
        return self.rejects(rec) is None

    def admits_version(self, v: VersionRow) -> bool:
        """The same rule for a whole stored version (no unit kind): could a question here draw on it?"""
        return self._rejects(v.act, v.language, v.status, v.valid_from, v.valid_to, v.binding, v.access_tags,
                             None) is None

    def _rejects(self, act: str, language: str, status: str, valid_from: str, valid_to: str | None,
                 binding: bool, access_tags: tuple[str, ...], kind: str | None) -> str | None:
        if self.language is not None and language != self.language:
            return f"language {language}, not {self.language}"
        if self.acts and act not in self.acts:
            return f"act {act} is not among {', '.join(self.acts)}"
        if status not in self.statuses():
            return f"a {status} version"
        day = self.check_date()
        if day is not None and not (valid_from <= day < (valid_to or OPEN_END)):
            return f"not in force on {day}"
        if self.binding_only and not binding:
            return "guidance in a binding-only perimeter"
        if access_tags and not set(access_tags) & set(self.access_tags):
            return f"restricted to access tags {', '.join(access_tags)}"
        if self.kinds and kind is not None and kind not in self.kinds:
            return f"a {kind}, not one of {', '.join(self.kinds)}"
        return None

    def describe(self) -> str:
        """The perimeter in words, for refusals and traces: 'acts 32024R1689; language en; current versions; ...'."""
        parts = [
            f"acts {', '.join(self.acts)}" if self.acts else "all acts in the catalog",
            f"language {self.language}" if self.language else "every language",
            "current and superseded versions" if self.include_superseded else "current versions only",
            f"in force on {day}" if (day := self.check_date()) else "any date",
            "binding texts only" if self.binding_only else "binding texts and guidance",
        ]
        if self.access_tags:
            parts.append(f"access tags {', '.join(self.access_tags)}")
        if self.kinds:
            parts.append(f"unit kinds {', '.join(self.kinds)}")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["acts"], d["access_tags"], d["kinds"] = list(self.acts), list(self.access_tags), list(self.kinds)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Perimeter:
        """Golden-set / CLI filter keys: act|acts, language, as_of, include_superseded, binding_only."""
        acts = d.get("acts", d.get("act", ()))
        if isinstance(acts, str):
            acts = (acts,)
        return cls(
            acts=tuple(acts),
            language=d.get("language", "en"),
            include_superseded=bool(d.get("include_superseded", False)),
            binding_only=bool(d.get("binding_only", False)),
            as_of=d.get("as_of"),
            access_tags=tuple(d.get("access_tags", ())),
            kinds=tuple(d.get("kinds", ())),
        )


@dataclass(frozen=True)
class Hit:
    ref: CitationRef
    score: float
    retriever: str  # "bm25", "dense", "rrf", "sibling", "rerank", ...
    rank: int = 0


@dataclass(frozen=True)
class Evidence:
    sid: str  # "S1", "S2", ... in rank order
    ref: CitationRef
    title: str
    text: str
    status: str
    binding: bool
    source_url: str
    score: float = 0.0
    rank: int | None = None  # its place in retrieval's final ranking (1 = best); None for a unit given as context

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ref"] = str(self.ref)
        return d


@dataclass(frozen=True)
class CitedSentence:
    text: str
    refs: tuple[CitationRef, ...]
    # rendered by code from catalog records (answer/amended.py), not by a generator: its date may be
    # the date a cited unit is recorded in force from (answer/verify.py, rule 4)
    from_records: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "refs": [str(r) for r in self.refs]}
        if self.from_records:
            out["from_records"] = True
        return out


@dataclass(frozen=True)
class Conflict:
    """Admitted units that disagree on a checked fact, and which prevails under a fixed rule."""

    fact_kind: str
    values: tuple[tuple[str, CitationRef], ...]  # (value as written, the unit that gives it)
    prevails: CitationRef | None  # the unit that prevails, or None: "the documents diverge"
    rule: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "fact_kind": self.fact_kind,
            "values": [{"value": v, "ref": str(r)} for v, r in self.values],
            "prevails": str(self.prevails) if self.prevails else None,
            "rule": self.rule,
        }


@dataclass(frozen=True)
class ValueCheck:
    """One value a sentence states (a date, an amount, a reference ...) and whether a cited unit supports it."""

    text: str  # as the sentence writes it
    kind: str  # lexcite.values kinds: date, month, amount, percent, period, power, number, act, ref
    value: str  # normalised
    ok: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Verdict:
    """The verifier's judgement of one sentence of a draft (invariant 3), kept for the trace."""

    index: int
    sentence: str
    sids: tuple[str, ...]
    refs: tuple[str, ...]
    ok: bool
    reasons: tuple[str, ...] = ()
    values: tuple[ValueCheck, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "sentence": self.sentence,
            "sids": list(self.sids),
            "refs": list(self.refs),
            "ok": self.ok,
            "reasons": list(self.reasons),
            "values": [v.to_dict() for v in self.values],
        }


@dataclass(frozen=True)
class Answer:
    question: str
    sentences: tuple[CitedSentence, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    refused: bool = False
    refusal_reason: str = ""
    conflicts: tuple[Conflict, ...] = ()
    verdicts: tuple[Verdict, ...] = ()
    generator: str = ""
    flags: tuple[str, ...] = ()
    trace_id: str | None = None
    perimeter: Perimeter = field(default_factory=Perimeter)

    @property
    def text(self) -> str:
        if self.refused:
            return REFUSAL
        return " ".join(s.text for s in self.sentences)

    def cited(self) -> tuple[CitationRef, ...]:
        seen: dict[CitationRef, None] = {}
        for s in self.sentences:
            for r in s.refs:
                seen[r] = None
        return tuple(seen)

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.text,
            "refused": self.refused,
            "refusal_reason": self.refusal_reason,
            "sentences": [s.to_dict() for s in self.sentences],
            "evidence": [e.to_dict() for e in self.evidence],
            "conflicts": [c.to_dict() for c in self.conflicts],
            "verdicts": [v.to_dict() for v in self.verdicts],
            "generator": self.generator,
            "flags": list(self.flags),
            "trace_id": self.trace_id,
            "perimeter": self.perimeter.to_dict(),
        }


STATUSES = ("current", "superseded", "draft")


@dataclass(frozen=True)
class VersionRow:
    """One stored version (expression) of an act, as the catalog holds it."""

    id: int
    act: str
    version: str
    language: str
    format: str
    status: str
    valid_from: str
    valid_to: str | None
    binding: bool
    title: str
    source: str
    source_url: str
    sha256: str
    etag: str | None
    last_modified: str | None
    fetched_at: str | None
    ingested_at: str
    modified_by: tuple[str, ...]
    access_tags: tuple[str, ...]
    unit_count: int = 0
    raw_path: str | None = None


@dataclass(frozen=True)
class UnitRecord:
    """A unit with the catalog facts retrieval filters on."""

    unit: Unit
    status: str
    valid_from: str
    valid_to: str | None
    access_tags: tuple[str, ...] = ()
    changed_by: str | None = None


@dataclass(frozen=True)
class AmendmentLink:
    """One instruction of an amending act, e.g. 'Article 4 is replaced by the following:'."""

    amending: CitationRef  # the amending act's unit that gives the instruction
    target_act: str
    target_unit: str | None  # None when unparsed
    action: str  # replaced | inserted | deleted | added | amended | unparsed
    applies_from: str | None  # ISO date of application, when known
    new_text: str = ""
    instruction: str = ""  # the drafting formula as written
    reason: str = ""  # why it is unparsed

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["amending"] = str(self.amending)
        return d


@dataclass(frozen=True)
class Fact:
    """A value extracted from a unit at ingest time (the structured numeric channel)."""

    kind: str  # date, deadline, fine_amount, turnover_pct, threshold, percentage
    value: str  # normalised value, e.g. "35000000", "7", "2026-08-02", "10^25"
    unit: str  # EUR, %, days, months, FLOP, date
    display: str  # the literal text as written in the unit
    subject: str  # words around it
    ref: CitationRef
    start: int
    end: int


@dataclass(frozen=True)
class Candidate:
    """A unit that reached the final ranking, with the score each stage gave it."""

    ref: CitationRef
    title: str
    text: str
    status: str
    binding: bool
    source_url: str
    score: float  # final score (rerank scale when reranking is on)
    stage_scores: dict[str, float] = field(default_factory=dict)  # e.g. {"bm25": 12.1, "dense": 0.61, "rrf": ...}
    via: str = "retrieved"  # "retrieved" or "sibling"; "context" in evidence: a neighbour that was not ranked
    changed_by: CitationRef | None = None  # the amending act's unit that enacted this text, if any


@dataclass(frozen=True)
class ProvisionGroup:
    """One provision handed to a generator (DESIGN.md "Evidence"): an article, annex (section) or recital,
    with its ranked paragraphs/points and their neighbours in document order, each under its own id."""

    provision: CitationRef  # the article, annex or recital itself, e.g. 32024R1689@2024-07-12#art_6
    title: str  # its heading, e.g. "Article 6 — Classification rules for high-risk AI systems"
    rank: int  # 1 = the provision of the best-ranked unit
    score: float  # the final score of its best-ranked unit
    units: tuple[Candidate, ...]  # document order; score 0.0 and via "context" for a unit that was not ranked
    tokens: int  # estimated tokens of the units' texts
    whole: bool  # every unit of the provision inside the perimeter is here

    @property
    def ranked(self) -> tuple[Candidate, ...]:
        return tuple(u for u in self.units if u.via != "context")


@dataclass(frozen=True)
class ProvisionEvidence:
    """The provisions a generator receives for one question, best first, within a token budget."""

    groups: tuple[ProvisionGroup, ...]
    budget: int  # estimated tokens allowed
    tokens: int  # estimated tokens used

    def units(self) -> tuple[Candidate, ...]:
        """Every unit of every group, group by group, in document order within each."""
        return tuple(u for g in self.groups for u in g.units)


@dataclass(frozen=True)
class SearchResult:
    """What retrieval hands to answering and evaluation."""

    query: str
    perimeter: Perimeter
    ranked: tuple[Candidate, ...]  # final order, before the threshold
    admitted: tuple[Candidate, ...]  # those passing the calibrated threshold (top k)
    threshold: float | None
    abstained: bool  # nothing admitted
    stage_hits: dict[str, tuple[Hit, ...]] = field(default_factory=dict)  # per retriever / stage
    discarded: tuple[tuple[str, str], ...] = ()  # (ref, reason)
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage
    outside: tuple[str, ...] = ()  # laws the question is asked under that the catalog lacks (index/scope.py)
    absent: tuple[str, ...] = ()  # provisions the question cites that no act it may mean has (index/named.py)
    provisions: ProvisionEvidence | None = None  # the evidence by provision, at the default budget
    expanded: tuple[str, ...] = ()  # the acts' terms BM25 read beside the query (lexcite/lay_terms.py)


@runtime_checkable
class Retriever(Protocol):
    """What answering and evaluation need from retrieval: `index.search.Searcher`, and the tests' small searchers.

    `search` ranks the units inside `perimeter` (never one outside: invariant 1) and admits at most
    `k` of them above the calibrated threshold.
    """

    def search(self, query: str, perimeter: Perimeter = ..., k: int = ...) -> SearchResult: ...
