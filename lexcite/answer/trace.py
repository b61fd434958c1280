"""Every question asked, written to LEXCITE_HOME/traces.sqlite so an answer can be audited and replayed.

One row per question in `traces`, plus child rows. The trace records what the
answer was built from: the perimeter and as-of date, the catalog versions in
scope with their sha256, each retriever's hits with scores, the fused and
reranked order, what was discarded and why, the threshold, the evidence with a
hash of each text, the generator, model and parameters, the exact prompt and
raw output, the verdict per sentence, the value bindings, conflicts, flags,
timings and the lexcite version.

The schema changes only through named migrations that run once each, in order,
recorded in `_lexcite_migrations` (the simonw/llm pattern). Each trace stores a
content hash ("sha256:" + hex of its canonical JSON). `StoredTrace.content_ok`
re-derives the hash and detects a row edited after logging. `catalog_problems`
says when a trace no longer matches the catalog: a cited text changed, a
version was replaced, or a newer version became current.

`store_text=False` (CLI `--no-text`) keeps ids, hashes, scores, verdicts and
flags, and drops every text: the question (its sha256 is kept), the prompt, the
raw output, the evidence texts and the sentences.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import time
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lexcite import __version__, config
from lexcite._sqlite import Migrations, connect, run_script, transaction
from lexcite.catalog import Catalog
from lexcite.config import Settings
from lexcite.contract import Answer, CitationRef, Perimeter, SearchResult
from lexcite.errors import CitationError, ConfigError

__all__ = ["TraceStore", "AskRecord", "StoredTrace", "TraceSummary", "ScopedVersion", "TracedEvidence",
           "TracedSentence", "TracedVerdict", "TracedHit", "MIGRATIONS", "sha256_text", "content_hash",
           "catalog_problems", "versions_in_scope"]

MIGRATIONS = Migrations()


@MIGRATIONS
def m001_initial(db: sqlite3.Connection) -> None:
    run_script(db, """
    CREATE TABLE traces (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        lexcite_version TEXT NOT NULL,
        question TEXT,
        question_sha256 TEXT NOT NULL,
        perimeter TEXT NOT NULL,
        as_of TEXT NOT NULL,
        k INTEGER NOT NULL,
        catalog_state TEXT,
        versions TEXT NOT NULL,
        threshold REAL,
        abstained INTEGER NOT NULL,
        generator TEXT NOT NULL,
        model TEXT,
        params TEXT NOT NULL,
        prompt TEXT,
        raw_output TEXT,
        answer TEXT NOT NULL,
        refused INTEGER NOT NULL,
        refusal_reason TEXT,
        flags TEXT NOT NULL,
        timings TEXT NOT NULL,
        store_text INTEGER NOT NULL,
        content_hash TEXT NOT NULL
    );
    CREATE INDEX traces_created ON traces(created_at);
    CREATE TABLE trace_hits (
        trace_id TEXT NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
        stage TEXT NOT NULL,
        rank INTEGER NOT NULL,
        ref TEXT NOT NULL,
        score REAL NOT NULL
    );
    CREATE TABLE trace_ranked (
        trace_id TEXT NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
        rank INTEGER NOT NULL,
        ref TEXT NOT NULL,
        score REAL NOT NULL,
        stage_scores TEXT NOT NULL,
        via TEXT NOT NULL,
        admitted INTEGER NOT NULL
    );
    CREATE TABLE trace_discarded (
        trace_id TEXT NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
        ref TEXT NOT NULL,
        reason TEXT NOT NULL
    );
    CREATE TABLE trace_evidence (
        trace_id TEXT NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
        sid TEXT NOT NULL,
        ref TEXT NOT NULL,
        title TEXT,
        status TEXT NOT NULL,
        binding INTEGER NOT NULL,
        score REAL NOT NULL,
        text_sha256 TEXT NOT NULL,
        text TEXT,
        source_url TEXT NOT NULL
    );
    CREATE TABLE trace_verdicts (
        trace_id TEXT NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        sentence TEXT,
        sids TEXT NOT NULL,
        refs TEXT NOT NULL,
        ok INTEGER NOT NULL,
        reasons TEXT NOT NULL,
        vals TEXT NOT NULL
    );
    """)


@MIGRATIONS
def m002_bindings_and_conflicts(db: sqlite3.Connection) -> None:
    db.execute("ALTER TABLE traces ADD COLUMN bindings TEXT NOT NULL DEFAULT '[]'")
    db.execute("ALTER TABLE traces ADD COLUMN conflicts TEXT NOT NULL DEFAULT '[]'")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def content_hash(doc: dict[str, Any]) -> str:
    body = {k: v for k, v in doc.items() if k != "content_hash"}
    body["trace"] = {k: v for k, v in doc["trace"].items() if k != "content_hash"}
    return "sha256:" + hashlib.sha256(_canonical(body).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ScopedVersion:
    """A catalog version a question could draw on, as it was when the question was asked."""

    act: str
    version: str
    language: str
    status: str
    sha256: str
    valid_from: str
    valid_to: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        return f"{self.act}@{self.version} [{self.language}]"


@dataclass(frozen=True)
class TracedEvidence:
    """One admitted unit as the trace recorded it (`text` None when stored with --no-text)."""

    sid: str
    ref: str
    title: str | None
    status: str
    binding: bool
    score: float
    text_sha256: str
    text: str | None
    source_url: str


@dataclass(frozen=True)
class TracedSentence:
    text: str | None
    refs: tuple[str, ...]


@dataclass(frozen=True)
class TracedVerdict:
    index: int
    sentence: str | None
    sids: tuple[str, ...]
    ok: bool
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class TracedHit:
    stage: str  # "bm25", "dense", ...
    rank: int
    ref: str
    score: float


@dataclass(frozen=True)
class StoredTrace:
    """One recorded question, read back: typed fields for the readers, and `doc`, the document whose hash
    was recorded (`content_hash`), for `--json` and for the tamper check."""

    id: str
    created_at: str
    lexcite_version: str
    question: str | None
    question_sha256: str
    perimeter: Perimeter
    as_of: str
    k: int
    generator: str
    model: str
    threshold: float | None
    answer_text: str | None
    sentences: tuple[TracedSentence, ...]
    refused: bool
    refusal_reason: str
    flags: tuple[str, ...]
    store_text: bool
    timings: dict[str, float]
    versions: tuple[ScopedVersion, ...]
    hits: tuple[TracedHit, ...]
    evidence: tuple[TracedEvidence, ...]
    discarded: tuple[tuple[str, str], ...]  # (ref, why)
    verdicts: tuple[TracedVerdict, ...]
    doc: dict[str, Any] = field(repr=False, compare=False)

    @property
    def content_ok(self) -> bool:
        """The stored trace still hashes to the hash recorded when it was logged (no row was edited)."""
        return content_hash(self.doc) == self.doc["trace"]["content_hash"]

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> StoredTrace:
        t, a = doc["trace"], doc["trace"]["answer"]
        return cls(
            id=t["id"], created_at=t["created_at"], lexcite_version=t["lexcite_version"], question=t["question"],
            question_sha256=t["question_sha256"], perimeter=Perimeter.from_dict(t["perimeter"]), as_of=t["as_of"],
            k=t["k"], generator=t["generator"], model=t["model"] or "", threshold=t["threshold"],
            answer_text=a["answer"], sentences=tuple(TracedSentence(s["text"], tuple(s["refs"]))
                                                     for s in a["sentences"]),
            refused=bool(t["refused"]), refusal_reason=t["refusal_reason"] or "", flags=tuple(t["flags"]),
            store_text=bool(t["store_text"]), timings=dict(t["timings"]),
            versions=tuple(ScopedVersion(**v) for v in t["versions"]),
            hits=tuple(TracedHit(h["stage"], h["rank"], h["ref"], h["score"]) for h in doc["hits"]),
            evidence=tuple(TracedEvidence(e["sid"], e["ref"], e["title"], e["status"], bool(e["binding"]),
                                          e["score"], e["text_sha256"], e["text"], e["source_url"])
                           for e in doc["evidence"]),
            discarded=tuple((d["ref"], d["reason"]) for d in doc["discarded"]),
            verdicts=tuple(TracedVerdict(v["idx"], v["sentence"], tuple(v["sids"]), bool(v["ok"]),
                                         tuple(v["reasons"])) for v in doc["verdicts"]),
            doc=doc)


@dataclass(frozen=True)
class TraceSummary:
    """One line of `lexcite trace list`."""

    id: str
    created_at: str
    question: str | None
    question_sha256: str
    generator: str
    model: str | None
    refused: bool
    flags: tuple[str, ...]
    n_evidence: int

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "flags": list(self.flags)}


@dataclass
class AskRecord:
    """Everything `ask` knows about one question, handed to the trace store."""

    question: str
    perimeter: Perimeter
    k: int
    answer: Answer
    result: SearchResult | None = None
    versions: list[ScopedVersion] = field(default_factory=list)
    catalog_state: str | None = None
    generator: str = ""
    model: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    prompt: str = ""
    raw_output: str = ""
    bindings: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


def _new_id() -> str:
    """Sortable: milliseconds since the epoch in hex, then random hex."""
    return f"{int(time.time() * 1000):011x}{secrets.token_hex(2)}"


class TraceStore:
    """The traces database (default LEXCITE_HOME/traces.sqlite), migrated on open."""

    def __init__(self, path: Path | None = None, settings: Settings | None = None):
        self.path = path or config.settings(settings).home / "traces.sqlite"
        self.conn = connect(self.path)
        self.migrate()

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> TraceStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self.conn)

    def migrate(self) -> list[str]:
        """Run the migrations not yet applied; returns their names (empty when up to date)."""
        try:
            return MIGRATIONS.apply(self.conn, where=str(self.path))
        except ValueError as e:
            raise ConfigError(str(e)) from None

    def applied_migrations(self) -> list[str]:
        return MIGRATIONS.applied(self.conn)

    # -- writing -----------------------------------------------------------------

    def log(self, rec: AskRecord, store_text: bool = True) -> str:
        """Write one trace in one transaction; returns its id."""
        tid = _new_id()
        a = rec.answer
        keep = (lambda s: s) if store_text else (lambda s: None)
        answer = a.to_dict()
        answer["trace_id"] = tid
        if not store_text:
            answer["question"] = None
            answer["answer"] = None if not a.refused else answer["answer"]
            for s in answer["sentences"]:
                s["text"] = None
            for e in answer["evidence"]:
                e["text"], e["title"] = None, None
            for v in answer["verdicts"]:
                v["sentence"] = None
                for val in v.get("values", []):
                    val["text"] = None
        bindings = [dict(b) for b in rec.bindings]
        if not store_text:
            for b in bindings:
                b["written"], b["rendered"] = None, None
        r = rec.result
        doc: dict[str, Any] = {
            "trace": {
                "id": tid,
                "created_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
                "lexcite_version": __version__,
                "question": keep(rec.question),
                "question_sha256": sha256_text(rec.question),
                "perimeter": rec.perimeter.to_dict(),
                "as_of": rec.perimeter.effective_date(),
                "k": rec.k,
                "catalog_state": rec.catalog_state,
                "versions": [v.to_dict() for v in rec.versions],
                "threshold": r.threshold if r is not None else None,
                "abstained": int(r.abstained) if r is not None else 1,
                "generator": rec.generator,
                "model": rec.model,
                "params": rec.params,
                "prompt": keep(rec.prompt),
                "raw_output": keep(rec.raw_output),
                "answer": answer,
                "refused": int(a.refused),
                "refusal_reason": a.refusal_reason,
                "flags": list(a.flags) + ([] if store_text else ["no_text"]),
                "timings": {k: round(v, 6) for k, v in rec.timings.items()},
                "store_text": int(store_text),
                "bindings": bindings,
                "conflicts": [c.to_dict() for c in a.conflicts],
            },
            "hits": [
                {"stage": stage, "rank": h.rank, "ref": str(h.ref), "score": float(h.score)}
                for stage, hits in (r.stage_hits.items() if r is not None else ()) for h in hits
            ],
            "ranked": [
                {"rank": n, "ref": str(c.ref), "score": float(c.score), "stage_scores": c.stage_scores,
                 "via": c.via, "admitted": int(c in r.admitted)}
                for n, c in enumerate(r.ranked if r is not None else (), start=1)
            ],
            "discarded": [{"ref": ref, "reason": why} for ref, why in (r.discarded if r is not None else ())],
            "evidence": [
                {"sid": e.sid, "ref": str(e.ref), "title": keep(e.title), "status": e.status,
                 "binding": int(e.binding), "score": float(e.score), "text_sha256": sha256_text(e.text),
                 "text": keep(e.text), "source_url": e.source_url}
                for e in a.evidence
            ],
            "verdicts": [
                {"idx": v.index, "sentence": keep(v.sentence), "sids": list(v.sids), "refs": list(v.refs),
                 "ok": int(v.ok), "reasons": list(v.reasons),
                 "vals": [{**x.to_dict(), "text": keep(x.text)} for x in v.values]}
                for v in a.verdicts
            ],
        }
        doc["trace"]["content_hash"] = content_hash(doc)
        self._write(doc)
        return tid

    _JSON_COLS = ("perimeter", "versions", "params", "answer", "flags", "timings", "bindings", "conflicts")

    def _write(self, doc: dict[str, Any]) -> None:
        t = dict(doc["trace"])
        for c in self._JSON_COLS:
            t[c] = _canonical(t[c])
        tid = t["id"]
        with self._tx() as db:
            cols = ", ".join(t)
            db.execute(f"INSERT INTO traces ({cols}) VALUES ({', '.join('?' * len(t))})", tuple(t.values()))
            db.executemany("INSERT INTO trace_hits VALUES (?, ?, ?, ?, ?)",
                           [(tid, h["stage"], h["rank"], h["ref"], h["score"]) for h in doc["hits"]])
            db.executemany("INSERT INTO trace_ranked VALUES (?, ?, ?, ?, ?, ?, ?)",
                           [(tid, x["rank"], x["ref"], x["score"], _canonical(x["stage_scores"]), x["via"],
                             x["admitted"]) for x in doc["ranked"]])
            db.executemany("INSERT INTO trace_discarded VALUES (?, ?, ?)",
                           [(tid, x["ref"], x["reason"]) for x in doc["discarded"]])
            db.executemany("INSERT INTO trace_evidence VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           [(tid, e["sid"], e["ref"], e["title"], e["status"], e["binding"], e["score"],
                             e["text_sha256"], e["text"], e["source_url"]) for e in doc["evidence"]])
            db.executemany("INSERT INTO trace_verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           [(tid, v["idx"], v["sentence"], _canonical(v["sids"]), _canonical(v["refs"]), v["ok"],
                             _canonical(v["reasons"]), _canonical(v["vals"])) for v in doc["verdicts"]])

    # -- reading -----------------------------------------------------------------

    def resolve_id(self, prefix: str) -> str:
        """The full id of the one trace whose id starts with `prefix`.

        Raises:
            ConfigError: no trace, or several, start with it.
        """
        rows = [r[0] for r in self.conn.execute("SELECT id FROM traces WHERE id LIKE ? ORDER BY id LIMIT 3",
                                                 (prefix.replace("%", "") + "%",))]
        if not rows:
            raise ConfigError(f"no trace {prefix!r} in {self.path}; see `lexcite trace list`")
        if len(rows) > 1:
            raise ConfigError(f"trace id {prefix!r} is ambiguous ({', '.join(rows)}, ...); give more characters")
        return rows[0]

    def list(self, limit: int = 20) -> list[TraceSummary]:
        rows = self.conn.execute(
            "SELECT id, created_at, question, question_sha256, generator, model, refused, flags, "
            "(SELECT COUNT(*) FROM trace_evidence e WHERE e.trace_id = t.id) AS n_evidence "
            "FROM traces t ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [TraceSummary(**{**dict(r), "refused": bool(r["refused"]), "flags": tuple(json.loads(r["flags"]))})
                for r in rows]

    def get(self, trace_id: str) -> StoredTrace:
        """The whole trace, read back (its `doc` is the document that was hashed: see `content_hash`).

        Raises:
            ConfigError: no such trace.
        """
        tid = self.resolve_id(trace_id)
        row = self.conn.execute("SELECT * FROM traces WHERE id=?", (tid,)).fetchone()
        t = dict(row)
        for c in self._JSON_COLS:
            t[c] = json.loads(t[c])
        q = self.conn.execute
        return StoredTrace.from_doc({
            "trace": t,
            "hits": [dict(r) for r in q("SELECT stage, rank, ref, score FROM trace_hits WHERE trace_id=? "
                                        "ORDER BY rowid", (tid,))],
            "ranked": [{**dict(r), "stage_scores": json.loads(r["stage_scores"])}
                       for r in q("SELECT rank, ref, score, stage_scores, via, admitted FROM trace_ranked "
                                  "WHERE trace_id=? ORDER BY rowid", (tid,))],
            "discarded": [dict(r) for r in q("SELECT ref, reason FROM trace_discarded WHERE trace_id=? "
                                             "ORDER BY rowid", (tid,))],
            "evidence": [dict(r) for r in q("SELECT sid, ref, title, status, binding, score, text_sha256, text, "
                                            "source_url FROM trace_evidence WHERE trace_id=? ORDER BY rowid",
                                            (tid,))],
            "verdicts": [{**dict(r), "sids": json.loads(r["sids"]), "refs": json.loads(r["refs"]),
                          "reasons": json.loads(r["reasons"]), "vals": json.loads(r["vals"])}
                         for r in q("SELECT idx, sentence, sids, refs, ok, reasons, vals FROM trace_verdicts "
                                    "WHERE trace_id=? ORDER BY rowid", (tid,))],
        })


def catalog_problems(trace: StoredTrace, catalog: Catalog) -> list[str]:
    """Why a trace no longer verifies against the catalog (empty: it still does).

    Checks each evidence text's sha256 against the unit now stored under the same reference, and
    each version in scope against the catalog's current row (sha256 and status).
    """
    problems: list[str] = []
    language = trace.perimeter.language
    for e in trace.evidence:
        try:
            rec = catalog.resolve(CitationRef.parse(e.ref), language)
        except CitationError:
            problems.append(f"{e.ref} ({e.sid}) is no longer in the catalog")
            continue
        if sha256_text(rec.unit.text) != e.text_sha256:
            problems.append(f"{e.ref} ({e.sid}): the stored text changed since this answer")
        elif rec.status != e.status:
            problems.append(f"{e.ref} ({e.sid}): was {e.status}, is now {rec.status}")
    now = {(v.act, v.version, v.language): v for v in catalog.versions()}
    for v in trace.versions:
        cur = now.get((v.act, v.version, v.language))
        if cur is None:
            problems.append(f"{v} is no longer in the catalog")
        elif cur.sha256 != v.sha256:
            problems.append(f"{v} was re-ingested from other bytes (sha256 {v.sha256[:12]}… -> {cur.sha256[:12]}…)")
        elif cur.status != v.status:
            problems.append(f"{v} was {v.status}, is now {cur.status}")
    scoped = {(v.act, v.language) for v in trace.versions}
    known = {(v.act, v.version, v.language) for v in trace.versions}
    for key, cur in now.items():
        if (cur.act, cur.language) in scoped and key not in known and cur.status == "current":
            problems.append(f"{cur.act}@{cur.version} [{cur.language}] is a newer current version, "
                            "ingested after this answer")
    return problems


def versions_in_scope(catalog: Catalog, perimeter: Perimeter) -> list[ScopedVersion]:
    """The catalog versions a question in `perimeter` could draw on (`Perimeter.admits_version`), with their sha256."""
    return [ScopedVersion(v.act, v.version, v.language, v.status, v.sha256, v.valid_from, v.valid_to)
            for v in catalog.versions() if perimeter.admits_version(v)]
