"""The reranker's second reading: a passage's sentence nearest the question (index/nearest_sentence.py).

Real SQLite, embedded Chroma and the minilm model on the toy acts; the sentence vectors are written as
`lexcite index` writes them (answer/nearness.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lexcite.answer.nearness import load_nearness, sentences_path, stored_texts, update_sentence_vectors
from lexcite.catalog import Catalog
from lexcite.contract import Perimeter
from lexcite.index.build import build
from lexcite.index.embed import get_embedder
from lexcite.index.search import Params, Searcher, Stages

from .conftest import AI, EMBEDDER, RERANKER, ai_act, dp_act, store

pytestmark = pytest.mark.slow

ON = replace(Stages(), threshold=False)
OFF = replace(ON, sentences=False)
# the last sentence of a long paragraph about something else (tests/index/conftest.py, Article 4(1))
QUESTION = "In which language must the register be kept, given where the lighthouse keeper lives?"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("nearest")
    with Catalog(home / "catalog.sqlite") as c:
        store(c, ai_act())
        store(c, dp_act())
        build(c, home=home, chroma_url="", embedder=EMBEDDER, reranker=RERANKER)
    return home


def _by_unit(result) -> dict[str, object]:
    return {c.ref.unit: c for c in result.ranked if c.ref.act == AI}


def test_without_sentence_vectors_the_stage_changes_nothing(home):
    assert not sentences_path(home).exists()
    with Searcher(home, chroma_url="") as s:
        on, off = s.search(QUESTION, Perimeter(), stages=ON), s.search(QUESTION, Perimeter(), stages=OFF)
    assert [(c.ref, c.score) for c in on.ranked] == [(c.ref, c.score) for c in off.ranked]
    assert not any("sentence" in c.stage_scores for c in on.ranked)


def test_a_passage_gains_a_share_of_what_its_nearest_sentence_adds(home):
    with Catalog(home / "catalog.sqlite") as c:
        update_sentence_vectors(home, c.records(), get_embedder(EMBEDDER))
    weight = Params().sentence_weight
    with Searcher(home, chroma_url="") as s:
        on, off = _by_unit(s.search(QUESTION, Perimeter(), stages=ON)), _by_unit(s.search(QUESTION, Perimeter(),
                                                                                           stages=OFF))
    long_par = on["art_4.par_1"]
    sentence, passage = long_par.stage_scores["sentence"], long_par.stage_scores["rerank"]
    assert sentence > passage  # the lighthouse sentence is nearer the question than its long paragraph
    assert long_par.score - off["art_4.par_1"].score == pytest.approx(weight * (sentence - passage), abs=1e-6)
    # a passage of one sentence reads the same both ways: no gain
    one = on["art_5"]
    assert one.score == pytest.approx(off["art_5"].score, abs=1e-6)
    assert set(on) == set(off)  # the stage re-scores the candidates; it adds none


def test_the_nearest_sentence_is_the_best_of_the_passage_s_sentences(home):
    minilm = get_embedder(EMBEDDER)
    with Catalog(home / "catalog.sqlite") as c:
        update_sentence_vectors(home, c.records(), minilm)
    with Searcher(home, chroma_url="") as s:
        nearest = s.nearest_sentences()
        assert nearest is not None
        i = next(i for i, p in enumerate(s.passages) if p.record.unit.unit == "art_4.par_1")
        unit = s.passages[i].record.unit
        q = minilm.embed([QUESTION], query=True)[0]
        expected = max(float(v @ q) for v in minilm.embed(stored_texts(unit.title, unit.text)))
        assert nearest.best(q, [i]) == pytest.approx({i: expected}, abs=2e-3)  # stored at half precision
    assert load_nearness(home, "another-embedder") is None  # vectors of another embedder are never read


def test_the_sentences_are_read_only_beside_a_reranker_of_the_same_embedder(home):
    """A sentence's cosine is compared with the reranker's score: another reranker's scale is not a cosine of
    these vectors (a cross-encoder's logits, another embedder's cosines)."""
    with Catalog(home / "catalog.sqlite") as c:
        update_sentence_vectors(home, c.records(), get_embedder(EMBEDDER))
    with Searcher(home, chroma_url="") as s:
        assert s.nearest_sentences() is not None
    with Searcher(home, chroma_url="", reranker="cross-encoder:some-model") as s:
        assert s.nearest_sentences() is None
