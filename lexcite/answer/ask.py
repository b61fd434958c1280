"""`ask`: one question, from search to a verified, cited answer or a refusal, traced.

    search ─> evidence ─> answerable? ─> generate ─> verify ─> numeric binding ─> conflicts ─> amended ─> Answer
              (none: fixed  (the law is    (draft)   (one failing sentence   (values from     (every value  (which
               refusal, no   silent: says             refuses the answer)      stored facts)    shown, rule)  act, from
               generator)    why)                                                                            when)

Every path that does not end in a fully verified answer ends in `REFUSAL` with
the reason recorded, through one exit (`_Refused`): no evidence (invariant 2),
the admitted provisions do not state what is asked (`answer/answerable.py`, flags
`value_not_stated`, `term_absent`), the generator said no or failed, a sentence
failed verification (invariant 3), a value had no stored fact (invariant 4, flag
`fabrication_guard`), the note on an amended provision failed verification
(`answer/amended.py`). The trace keeps the answerability verdict in its params.

Example::

    from lexcite.answer import ask
    answer = ask("By when must providers of high-risk AI systems comply?", k=6)
    print(answer.text, answer.cited())
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from lexcite import config
from lexcite.answer.amended import amendment_notes, former_conflicts
from lexcite.answer.answerable import VALUE_NOT_STATED
from lexcite.answer.answerable import check as check_answerable
from lexcite.answer.conflicts import Relations, find_conflicts
from lexcite.answer.draft import Generator
from lexcite.answer.evidence import build_evidence, no_evidence_answer, refused_answer
from lexcite.answer.nearness import QuestionNearness, sentence_nearness
from lexcite.answer.numeric import bind_values
from lexcite.answer.timing import asks_when, timing_notes
from lexcite.answer.trace import AskRecord, StoredTrace, TraceStore, catalog_problems, sha256_text, versions_in_scope
from lexcite.answer.verify import check_values, verify
from lexcite.catalog import Catalog
from lexcite.catalog.locate import act_names, act_titles
from lexcite.config import Settings
from lexcite.contract import REFUSAL, Answer, CitationRef, Evidence, Perimeter, Retriever, UnitRecord, Verdict
from lexcite.errors import CitationError, ConfigError, IndexMismatch
from lexcite.index.manifest import load_manifest
from lexcite.index.perimeter import empty_reason
from lexcite.question import asks_for_value, cues, value_secondary
from lexcite.references import short_forms
from lexcite.values import CHECKED_KINDS, read_values, states_no_charge, states_time_standard

__all__ = ["ask", "choose_generator", "GeneratorChoice", "replay", "ReplayReport", "GENERATORS"]

GENERATORS = ("claude", "extractive", "local")


@dataclass(frozen=True)
class GeneratorChoice:
    """The generator one `ask` uses and the line saying why, chosen once (the CLI shows `why`, the trace keeps it)."""

    generator: Generator
    why: str  # e.g. "offline extractive: ANTHROPIC_API_KEY not set"


def choose_generator(generator: str | Generator | GeneratorChoice | None = None,
                     settings: Settings | None = None) -> GeneratorChoice:
    """The generator to use and a line saying why: Claude when ANTHROPIC_API_KEY is set, else extractive.

    A choice already made is returned as it is, so a caller that showed `why` and `ask` agree.

    Raises:
        ConfigError: an unknown name, or "claude" without a key.
    """
    if isinstance(generator, GeneratorChoice):
        return generator
    if generator is not None and not isinstance(generator, str):
        return GeneratorChoice(generator, f"{generator.name} (given)")
    settings = config.settings(settings)
    if generator is None:
        if settings.anthropic_api_key:
            generator = "claude"
        else:
            from lexcite.answer.generate_extractive import ExtractiveGenerator

            return GeneratorChoice(ExtractiveGenerator(), "offline extractive: ANTHROPIC_API_KEY not set")
    if generator == "claude":
        from lexcite.answer.generate_claude import ClaudeGenerator

        gen = ClaudeGenerator(settings=settings)
        return GeneratorChoice(gen, f"claude ({gen.model})")
    if generator == "extractive":
        from lexcite.answer.generate_extractive import ExtractiveGenerator

        return GeneratorChoice(ExtractiveGenerator(), "offline extractive (chosen)")
    if generator == "local":  # optional extra: pip install lexcite[local]
        from lexcite.answer.generate_local import LocalGenerator

        gen = LocalGenerator()
        return GeneratorChoice(gen, f"local ({gen.model}: a small base model for testing the verifier; often wrong)")
    raise ConfigError(f"unknown generator {generator!r}; choose from {', '.join(GENERATORS)}")


def _default_searcher(catalog: Catalog, settings: Settings) -> Any:
    from lexcite.index.search import Searcher

    return Searcher(catalog=catalog, settings=settings)


def ask(
    question: str,
    perimeter: Perimeter = Perimeter(),
    k: int = 6,
    generator: str | Generator | GeneratorChoice | None = None,
    searcher: Retriever | None = None,
    trace: bool = True,
    store_text: bool = True,
    *,
    catalog: Catalog | None = None,
    traces: TraceStore | None = None,
    settings: Settings | None = None,
) -> Answer:
    """Answer `question` inside `perimeter` from at most `k` admitted units, or refuse.

    `searcher` is anything with `search(query, perimeter, k) -> SearchResult` (default: a
    `Searcher` over the index in LEXCITE_HOME, opened for this call; pass one to reuse its loaded
    models across questions); `generator` is "claude", "extractive", a Generator, the
    `choose_generator` result a caller already showed, or None (Claude when ANTHROPIC_API_KEY is
    set, else extractive). With `trace`, the question is written
    to LEXCITE_HOME/traces.sqlite (`store_text=False`: ids, hashes and flags only). `settings`: where
    the home and the key are (default: the environment, read once for this call).

    Raises:
        ConfigError: an empty question, an unknown generator, Claude without a key.
        IndexMismatch: no index, or one out of step with the catalog.
    """
    if not question or not question.strip():
        raise ConfigError("the question is empty")
    t_start = time.perf_counter()
    timings: dict[str, float] = {}
    settings = config.settings(settings)
    choice = choose_generator(generator, settings)
    gen = choice.generator
    own_catalog = catalog is None and getattr(searcher, "catalog", None) is None
    catalog = catalog or getattr(searcher, "catalog", None) or Catalog(settings=settings)
    own_searcher = searcher is None
    try:
        if searcher is None:
            searcher = _default_searcher(catalog, settings)
        t = time.perf_counter()
        result = searcher.search(question, perimeter, k)
        timings["search"] = time.perf_counter() - t
        for stage, secs in result.timings.items():
            timings[f"search.{stage}"] = secs
        rec = AskRecord(question=question, perimeter=perimeter, k=k, answer=Answer(question), result=result,
                        versions=versions_in_scope(catalog, perimeter), catalog_state=catalog.state(),
                        generator=gen.name, model=getattr(gen, "model", ""), timings=timings,
                        params={"generator_choice": choice.why})
        own, second = _index_embedders(searcher, settings)
        near = sentence_nearness(settings.home, own, question, second) \
            if getattr(gen, "reads_nearness", False) else None
        answer = _answer(question, perimeter, result, gen, catalog, rec, timings, near)
        timings["total"] = time.perf_counter() - t_start
        if trace:
            rec.answer = answer
            store = traces or TraceStore(settings=settings)
            try:
                tid = store.log(rec, store_text=store_text)
            finally:
                if traces is None:
                    store.close()
            answer = replace(answer, trace_id=tid)
        return answer
    finally:
        if own_searcher and searcher is not None and hasattr(searcher, "close"):
            searcher.close()
        if own_catalog:
            catalog.close()


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _title_words(catalog: Catalog) -> set[str]:
    """Words of the catalog's act titles, short forms included ("GDPR", "Omnibus"): never absent names."""
    words: set[str] = set()
    for v in catalog.versions():
        words |= {w.lower() for w in re.findall(r"[\w-]+", v.title)}
        words |= {f for f in short_forms(v.title) if " " not in f}
    return words


class _Refused(Exception):
    """A stage of `_compose` decided that the answer is not shown; `_answer` turns it into the one refusal."""

    def __init__(self, reason: str, flags: list[str], evidence: tuple[Evidence, ...],
                 verdicts: tuple[Verdict, ...] = ()):
        super().__init__(reason)
        self.reason, self.flags, self.evidence, self.verdicts = reason, flags, evidence, verdicts


def _parent_in(catalog: Catalog, perimeter: Perimeter) -> Callable[[CitationRef], UnitRecord | None]:
    """The stored unit a point belongs to (its paragraph, or the point above it), when inside `perimeter`."""

    def parent(ref: CitationRef) -> UnitRecord | None:
        try:
            rec = catalog.resolve(replace(ref, unit=ref.unit.rpartition(".")[0]), perimeter.language)
        except CitationError:
            return None
        return None if perimeter.rejects(rec) is not None else rec  # the one perimeter rule (Catalog.outside's)

    return parent


def _index_embedders(searcher: Any, settings: Settings) -> tuple[str | None, str | None]:
    """The embedders the index was built with, its own and its second reading's ("none" when it has none): the
    searcher's, else the ones the home's manifest names."""
    name, manifest = getattr(searcher, "embedder_name", None), getattr(searcher, "manifest", None)
    if not isinstance(manifest, dict):
        try:
            manifest = load_manifest(settings.home) or {}
        except IndexMismatch:  # a manifest that cannot be read: search said so already, or will
            manifest = {}
    own = name if isinstance(name, str) and name else manifest.get("embedder")
    return own, manifest.get("second", "none")


def _answer(question: str, perimeter: Perimeter, result: Any, gen: Generator, catalog: Catalog, rec: AskRecord,
            timings: dict[str, float], nearness: QuestionNearness | None = None) -> Answer:
    evidence = build_evidence(result, _parent_in(catalog, perimeter))
    if not evidence:  # invariant 2: decided here, no generator called
        empty = empty_reason(perimeter, catalog.versions()) if not result.ranked else None
        return no_evidence_answer(question, result, empty)
    try:
        return _compose(question, perimeter, evidence, gen, catalog, rec, timings, nearness)
    except _Refused as r:
        return refused_answer(question, perimeter, f"{REFUSAL} {r.reason}", evidence=r.evidence, generator=gen.name,
                              flags=r.flags, verdicts=r.verdicts)


def _asked_acts(named: frozenset[str], relations: Relations) -> frozenset[str]:
    """The acts a question asks about: those it names, and those a named amending act amends ("After the Digital
    Omnibus, who supervises ...?" asks about the AI Act as the Omnibus left it)."""
    return named.union(*(relations.amends.get(a, frozenset()) for a in named))


def _of_acts(evidence: tuple[Evidence, ...], acts: frozenset[str], relations: Relations) -> tuple[Evidence, ...]:
    """The evidence a generator answers from: "What does the GDPR allow ...?" asks about the GDPR, so when the
    question names acts and some of their units are admitted, those units and their amenders' (the Omnibus
    for "under the AI Act"); otherwise all. The rest stays evidence for verification and conflicts."""
    if not acts:
        return evidence
    keep = {a for a, amended in relations.amends.items() if amended & acts} | set(acts)
    named = tuple(e for e in evidence if e.ref.act in keep)
    return named if any(e.ref.act in acts for e in named) else evidence


def _compose(question: str, perimeter: Perimeter, evidence: tuple[Evidence, ...], gen: Generator, catalog: Catalog,
             rec: AskRecord, timings: dict[str, float], nearness: QuestionNearness | None = None) -> Answer:
    """Generate, verify, bind values, show conflicts and amendments; raise `_Refused` where the answer stops."""
    # Refuse only when the law is silent, decided here from what the admitted units state (answer/answerable.py).
    relations = Relations.from_catalog(catalog)  # read once: answerability, the generator's evidence, conflicts
    named = _asked_acts(act_names(catalog).named_in(question), relations)
    verdict = check_answerable(question, evidence, _title_words(catalog), named, act_titles(catalog))
    rec.params["answerability"] = verdict.to_dict()

    def outside(ref: CitationRef) -> str | None:  # the catalog's word on a unit, by the one perimeter rule
        return catalog.outside(ref, perimeter)

    # only a question that asks for a value needs one in its answer: "Can the regulator stack a separate maximum
    # fine for each breach?" mentions a fine and is answered by the rule that there is none (any value an answer
    # gives is still rendered from a stored fact)
    wanted = cues(question).value_kinds() if asks_for_value(question) else frozenset()
    # "When must we comply with X?": the date is in the catalog's record of X's provisions (answer/timing.py),
    # set by the act's final provisions, even where no admitted sentence states it
    if not verdict.answerable and not (verdict.rule == VALUE_NOT_STATED and asks_when(question) and timing_notes(
            catalog, question, (), evidence, perimeter, outside).gives(wanted)):
        raise _Refused(_sentence(verdict.reason), [verdict.rule], evidence)
    facts = catalog.facts(refs=[e.ref for e in evidence], language=perimeter.language)
    t = time.perf_counter()
    given = _of_acts(evidence, named, relations)
    draft = gen.generate(question, given, nearness=nearness) if nearness else gen.generate(question, given)
    timings["generate"] = time.perf_counter() - t
    rec.prompt, rec.raw_output = draft.prompt, draft.text
    rec.params.update(draft.params)
    rec.model = draft.model or rec.model
    if draft.error:
        rec.params["error"] = draft.error
    flags = list(draft.flags)
    if draft.refused:
        raise _Refused(_sentence(draft.reason), [*flags, "generator_refused"], evidence)

    t = time.perf_counter()
    checked = verify(draft.text, evidence, outside)
    timings["verify"] = time.perf_counter() - t
    verdicts = checked.verdicts
    if not checked.ok:
        raise _Refused(f"The generated answer was not shown: {checked.reason}.", [*flags, *checked.flags], evidence,
                       verdicts)
    sentences = checked.sentences
    # Cited provisions in force but not applicable on the perimeter's date, and "when" questions: the dates the
    # law sets, cited to the units that set them (answer/timing.py), rendered from the catalog and verified.
    timing = timing_notes(catalog, question, [r for s in sentences for r in s.refs], evidence, perimeter, outside)
    if wanted:
        # "Is X banned, and since when?" asks two things: the answer to the first stands without the value;
        # and the date asked may be the timing note's
        # "How quickly?" is answered by "without undue delay" as by a number of hours, "How much is the fee?" by
        # "free of charge" as by an amount
        standard = ("period" in wanted and any(states_time_standard(s.text) for s in sentences)) or (
            "amount" in wanted and cues(question).payment and any(states_no_charge(s.text) for s in sentences))
        bound = bind_values(sentences, facts, frozenset() if value_secondary(question) or standard else wanted)
        if not bound.ok and timing.gives(wanted):
            bound = bind_values(sentences, facts, frozenset())
        rec.bindings = [b.to_dict() for b in bound.bindings]
        if not bound.ok:
            raise _Refused(_sentence(bound.reason), [*flags, *bound.flags], evidence, verdicts)
        sentences = bound.sentences
        flags.append("numeric_path")

    answer_kinds = {v.kind for s in sentences for v in read_values(s.text) if v.kind in CHECKED_KINDS}
    # Only units inside the perimeter may be shown as the other side of a disagreement (invariant 1).
    admissible = [e for e in evidence if outside(e.ref) is None]
    conflicts, shown = find_conflicts(question, admissible, facts, answer_kinds, relations, perimeter.effective_date())
    if conflicts:
        by_ref = {e.ref: e for e in evidence}
        for s in shown:
            _, failures = check_values(s.text, [by_ref[r] for r in s.refs])
            if failures:  # never show one side alone: refuse rather than hide the other value
                raise _Refused("The admitted documents disagree and the disagreement could not be shown "
                               f"verifiably: {failures[0]}.", [*flags, "conflict", "verification_failed"], evidence,
                               verdicts)
        flags.append("conflict")

    # Cited units whose text an amending act enacted (or cited amending instructions): say which act and from
    # when, in sentences rendered and verified here (a unit they cite that retrieval did not admit joins the
    # evidence), and keep the text the amendment replaced as former.
    cited = [r for s in (*sentences, *shown) for r in s.refs]
    notes = amendment_notes(catalog, cited, timing.evidence, perimeter, outside)
    if notes.verification is not None:
        offset = len(sentences)
        verdicts += tuple(replace(v, index=v.index + offset) for v in notes.verification.verdicts)
        if not notes.verification.ok:
            raise _Refused(f"The note on an amended provision was not shown: {notes.verification.reason}.",
                           [*flags, "amended", *notes.verification.flags], notes.evidence, verdicts)
        flags.append("amended")
    if timing.verification is not None:
        offset = len(sentences) + len(notes.sentences)
        verdicts += tuple(replace(v, index=v.index + offset) for v in timing.verification.verdicts)
        if not timing.verification.ok:
            raise _Refused(f"The note on when a provision applies was not shown: {timing.verification.reason}.",
                           [*flags, "timing", *timing.verification.flags], notes.evidence, verdicts)
        flags.append("timing")
    conflicts += former_conflicts(question, notes.amendments, catalog, perimeter.language, answer_kinds, conflicts)
    return Answer(
        question=question,
        sentences=sentences + notes.sentences + timing.sentences + shown,
        evidence=notes.evidence,
        conflicts=conflicts,
        verdicts=verdicts,
        generator=gen.name,
        flags=tuple(dict.fromkeys(flags)),
        perimeter=perimeter,
    )


# -- replay ----------------------------------------------------------------------


@dataclass(frozen=True)
class ReplayReport:
    trace_id: str
    answer: Answer  # the answer the rerun gave
    differences: tuple[str, ...]  # empty: the rerun reproduced the trace
    catalog_problems: tuple[str, ...]  # why the trace no longer matches the catalog, if it does not
    content_ok: bool  # the stored trace still hashes to its recorded hash

    def to_dict(self) -> dict[str, Any]:
        return {"trace_id": self.trace_id, "same": not self.differences, "differences": list(self.differences),
                "catalog_problems": list(self.catalog_problems), "content_ok": self.content_ok,
                "answer": self.answer.to_dict()}


def replay(trace_id: str, *, searcher: Retriever | None = None, generator: str | Generator | None = None,
           catalog: Catalog | None = None, traces: TraceStore | None = None,
           settings: Settings | None = None) -> ReplayReport:
    """Rerun a traced question with its recorded inputs (question, perimeter, k, generator) and compare.

    Raises:
        ConfigError: no such trace, a trace stored without text (`--no-text`), or a Claude trace
            without ANTHROPIC_API_KEY (pass generator="extractive" to rerun offline).
    """
    settings = config.settings(settings)
    own_store = traces is None
    store = traces or TraceStore(settings=settings)
    try:
        t = store.get(trace_id)
    finally:
        if own_store:
            store.close()
    if not t.store_text or t.question is None:
        raise ConfigError(f"trace {t.id} was stored with --no-text: its question is not kept, so it cannot be "
                          "replayed")
    gen = generator or t.generator
    own_catalog = catalog is None and getattr(searcher, "catalog", None) is None
    catalog = catalog or getattr(searcher, "catalog", None) or Catalog(settings=settings)
    try:
        problems = tuple(catalog_problems(t, catalog))
        answer = ask(t.question, t.perimeter, t.k, generator=gen, searcher=searcher, trace=False,
                     catalog=catalog, settings=settings)
    finally:
        if own_catalog:
            catalog.close()
    return ReplayReport(t.id, answer, tuple(_differences(t, answer)), problems, t.content_ok)


def _differences(t: StoredTrace, new: Answer) -> list[str]:
    out: list[str] = []
    if t.generator != new.generator:
        out.append(f"generator: {t.generator} -> {new.generator}")
    old_ev = [(e.sid, e.ref) for e in t.evidence]
    new_ev = [(e.sid, str(e.ref)) for e in new.evidence]
    if old_ev != new_ev:
        gone = [r for _, r in old_ev if r not in {r for _, r in new_ev}]
        added = [r for _, r in new_ev if r not in {r for _, r in old_ev}]
        out.append("evidence changed" + (f"; no longer admitted: {', '.join(gone)}" if gone else "")
                   + (f"; newly admitted: {', '.join(added)}" if added else "")
                   + ("; same units in another order" if not gone and not added else ""))
    old_hash = {e.ref: e.text_sha256 for e in t.evidence}
    for e in new.evidence:
        h = old_hash.get(str(e.ref))
        if h is not None and h != sha256_text(e.text):
            out.append(f"text of {e.ref} changed")
    if t.refused != new.refused:
        out.append(f"refused: {t.refused} -> {new.refused}")
    elif new.refused and t.refusal_reason != new.refusal_reason:
        out.append(f"refusal reason: {t.refusal_reason!r} -> {new.refusal_reason!r}")
    old_sentences = [s.text for s in t.sentences]
    new_sentences = [s.text for s in new.sentences]
    if old_sentences != new_sentences:
        out.append("answer text changed:\n  was: " + " ".join(map(str, old_sentences)) + "\n  now: "
                   + " ".join(new_sentences))
    old_cited = [r for s in t.sentences for r in s.refs]
    new_cited = [str(r) for s in new.sentences for r in s.refs]
    if old_cited != new_cited:
        out.append(f"citations: {', '.join(dict.fromkeys(old_cited)) or '-'} -> "
                   f"{', '.join(dict.fromkeys(new_cited)) or '-'}")
    old_flags = [f for f in t.flags if f != "no_text"]
    if old_flags != list(new.flags):
        out.append(f"flags: {', '.join(old_flags) or '-'} -> {', '.join(new.flags) or '-'}")
    return out
