"""How near each sentence the offline answer may quote lies to the question, by the index's embedder.

The extractive generator chooses sentences by the question's words and what it asks
(`generate_extractive.py`); a question in a user's own words shares few words with the
sentence that answers it ("Will they warn me before they start using it again?": "shall be
informed by the controller before the restriction of processing is lifted"). The embedder
that ranked the evidence reads meaning as well, so each quotable sentence's cosine with the
question is a further, small part of its score. Embedding sentences at ask time costs about
35 ms each with e5, so `lexcite index` embeds every quotable sentence of the catalog once,
and `ask` looks them up.

The vectors are stored by the sentence's text (a hash), never by unit or version: a vector
is right for any unit that says the same words, so the file cannot go stale, only lack the
sentences of units indexed since (those get no nearness until the next `lexcite index`).
It is written whole or not at all (`index.manifest.write_atomic`), and vectors made by another embedder than
the index's are never read.
"""

from __future__ import annotations

import bisect
import io
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from lexcite.answer.evidence import own_text
from lexcite.answer.generate_extractive import candidate_sentences, in_context
from lexcite.contract import Evidence, UnitRecord
from lexcite.index.manifest import write_atomic
from lexcite.index.text_vectors import refresh, text_id
from lexcite.references import heading_of

__all__ = ["sentences_path", "quotable_sentences", "stored_texts", "sentence_id", "update_sentence_vectors", "Nearness",
           "load_nearness", "sentence_nearness", "QuestionNearness"]

_BATCH = 64
Progress = Callable[[int, int], None]
QuestionNearness = Callable[[Sequence[str]], Mapping[str, float]]  # sentences -> their cosine with one question


def sentences_path(home: Path, second: bool = False) -> Path:
    """The index embedder's sentence vectors, or (`second`) the second reading's (index/second.py)."""
    return home / "index" / ("sentences-second.npz" if second else "sentences.npz")


def sentence_id(text: str) -> str:
    return text_id(text)


def quotable_sentences(records: Iterable[UnitRecord]) -> list[str]:
    """Every sentence the extractive generator can quote from these units, alone and under its provision's heading
    (`generate_extractive.in_context`): each unit's text split as the generator splits it, and, for a unit with
    points, its own words alone (its opening and closing words), which is what it reads when the points are in the
    evidence too (`evidence.own_text`)."""
    records = list(records)
    by_version: dict[tuple[str, str, str], list[UnitRecord]] = {}
    for rec in records:
        u = rec.unit
        by_version.setdefault((u.ref.act, u.ref.version, u.language), []).append(rec)
    out: dict[str, None] = {}
    for group in by_version.values():
        ids = sorted(r.unit.unit for r in group)
        for rec in group:
            below = _below(ids, rec.unit.unit)
            kids = [_as_evidence(r) for r in group if r.unit.unit in below]
            own = candidate_sentences(own_text(_as_evidence(rec), kids)) if kids else []
            out.update(dict.fromkeys(stored_texts(rec.unit.title, rec.unit.text, own)))
    return list(out)


def stored_texts(title: str, text: str, more: Sequence[str] = ()) -> list[str]:
    """The texts stored for one unit's sentences (and `more` of its sentences): each alone and under the heading of
    its provision (`title`)."""
    heading = heading_of(title)
    return [t for s in [*candidate_sentences(text), *more] for t in (s, in_context(heading, s))]


def _below(ids: list[str], unit: str) -> set[str]:
    """The units under `unit` in the sorted list of a version's unit ids."""
    prefix = unit + "."
    start = bisect.bisect_left(ids, prefix)
    end = start
    while end < len(ids) and ids[end].startswith(prefix):
        end += 1
    return set(ids[start:end])


def _as_evidence(rec: UnitRecord) -> Evidence:
    u = rec.unit
    return Evidence(sid="", ref=u.ref, title=u.title, text=u.text, status=rec.status, binding=u.binding,
                    source_url=u.source_url)


def update_sentence_vectors(home: Path, records: Iterable[UnitRecord], embedder: object,
                            progress: Progress | None = None, second: bool = False) -> dict[str, int]:
    """Bring the home's sentence vectors in line with `records` under `embedder` (the index's, or with `second` the
    second reading's): the vectors of sentences already stored are kept, new sentences embedded, sentences no unit
    says any more dropped. Returns counts: sentences, embedded, kept, dropped, and damaged (1 when a file was there
    that could not be read whole, now rewritten)."""
    name = str(getattr(embedder, "name", ""))
    sentences = quotable_sentences(records)
    wanted = {sentence_id(s): s for s in sentences}
    path = sentences_path(home, second)
    old = _read(path)
    damaged = int(old is None and path.exists())
    same = old is not None and old[0] == name  # another embedder's vectors are all replaced
    got = refresh(wanted, old[1] if same else [], old[2] if same else np.zeros((0, 0), np.float16),
                  embedder.embed, _BATCH, progress)  # type: ignore[attr-defined]
    if got.changed or not same:
        _write(path, name, got.ids, got.vectors)
    return {"sentences": len(wanted), "embedded": got.embedded, "kept": len(wanted) - got.embedded,
            "dropped": got.dropped, "damaged": damaged}


def _write(path: Path, embedder: str, ids: Sequence[str], vectors: np.ndarray) -> None:
    buf = io.BytesIO()
    np.savez(buf, embedder=np.array(embedder), ids=np.array(ids, dtype="U24"), vectors=vectors.astype(np.float16))
    write_atomic(path, buf.getvalue())


def _read(path: Path) -> tuple[str, list[str], np.ndarray] | None:
    """(embedder, ids, vectors) of the file, or None when there is none or it cannot be read whole."""
    try:
        with np.load(path, allow_pickle=False) as f:
            embedder, ids, vectors = str(f["embedder"]), [str(i) for i in f["ids"]], np.asarray(f["vectors"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # none, or not written whole
        return None
    if vectors.ndim != 2 or len(ids) != len(vectors):
        return None
    return embedder, ids, vectors


class Nearness:
    """The stored sentence vectors of one embedder: `of(question_vector, sentences)` gives each stored sentence's
    cosine with the question (sentences not stored are left out)."""

    def __init__(self, ids: Sequence[str], vectors: np.ndarray):
        self._row = {i: n for n, i in enumerate(ids)}
        self._vectors = vectors  # as stored (half precision): a question reads a few hundred rows, not all

    def __len__(self) -> int:
        return len(self._row)

    def rows(self, texts: Iterable[str]) -> list[int]:
        """The rows of those of `texts` that are stored."""
        return [r for t in texts if (r := self._row.get(sentence_id(t))) is not None]

    def cosines(self, question_vector: np.ndarray, rows: Sequence[int]) -> np.ndarray:
        return self._vectors[list(rows)].astype(np.float32) @ np.asarray(question_vector, dtype=np.float32)

    def of(self, question_vector: np.ndarray, sentences: Sequence[str]) -> dict[str, float]:
        rows = {s: self._row.get(sentence_id(s)) for s in dict.fromkeys(sentences)}
        found = [(s, r) for s, r in rows.items() if r is not None]
        if not found:
            return {}
        cos = self.cosines(question_vector, [r for _, r in found])
        return {s: float(c) for (s, _), c in zip(found, cos, strict=True)}


def load_nearness(home: Path, embedder: str, second: bool = False) -> Nearness | None:
    """The home's sentence vectors when they were made by `embedder` (the index's, or with `second` the second
    reading's), else None."""
    path = sentences_path(home, second)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return None
    return _load(str(path), stamp, embedder)


@lru_cache(maxsize=4)
def _load(path: str, stamp: int, embedder: str) -> Nearness | None:
    # read once per process and file version: a question costs a lookup, not a 4 MB read
    got = _read(Path(path))
    if got is None or got[0] != embedder:
        return None
    return Nearness(got[1], got[2])


# The second reading's cosine counts this much beside the index embedder's. all-mpnet-base-v2's cosines spread over
# a band several times as wide as e5's, so a tenth of it already weighs about as much as e5's order. Dev (stop 42,
# bench/answer_stage.py, with NEARNESS 0.45): 0.07 / 0.1 / 0.15 gave key facts 0.815 / 0.815 / 0.818, ref_exact
# 0.837 / 0.837 / 0.833, conflict both shown 0.769 / 0.769 / 0.731; mpnet's alone 0.788, e5's alone 0.780
SECOND_SHARE = 0.1


def sentence_nearness(home: Path, embedder: str | None, question: str,
                      second: str | None = None) -> QuestionNearness | None:
    """What the generator reads for `question`: sentences -> their cosine with it, under the index's `embedder`
    plus `SECOND_SHARE` of it under the second reading's embedder `second` when the home holds that one's sentence
    vectors; None when the home holds no sentence vectors of `embedder`. The question is embedded on the first call
    only (and then served by the embedder, which keeps the questions retrieval embedded: `index.embed._LastQuery`)."""
    stored = load_nearness(home, embedder) if embedder else None
    if stored is None or not embedder:
        return None
    also = load_nearness(home, second, second=True) if second and second != "none" else None
    return _Readings(question, (embedder, stored), (second, also) if second and also else None)


class _Readings:
    """sentences -> their nearness to one question: the index embedder's cosine, plus `SECOND_SHARE` of the second
    reading's when the home has its sentence vectors. `readings` says how many embedders read them (the generator
    weighs two readings more: `generate_extractive.NEARNESS_TWO_READINGS`). The question is embedded once per
    embedder."""

    def __init__(self, question: str, own: tuple[str, Nearness], second: tuple[str, Nearness] | None):
        self.question, self._own, self._second = question, own, second
        self.readings = 1 if second is None else 2
        self._vectors: dict[str, np.ndarray] = {}

    def _vector(self, name: str) -> np.ndarray:
        if name not in self._vectors:
            from lexcite.index.embed import get_embedder

            self._vectors[name] = get_embedder(name).embed([self.question], query=True)[0]
        return self._vectors[name]

    def __call__(self, sentences: Sequence[str]) -> Mapping[str, float]:
        name, stored = self._own
        cos = stored.of(self._vector(name), sentences)
        if self._second is None:
            return cos
        name, stored = self._second
        more = stored.of(self._vector(name), sentences)
        # a sentence the second reading has no vector for (indexed since) is read at the mean of the others'
        fill = sum(more.values()) / len(more) if more else 0.0
        return {s: c + SECOND_SHARE * more.get(s, fill) for s, c in cos.items()}
