"""Rerankers: spec parsing, the cross-encoder loading and scoring code, the embedder reranker.

The cross-encoder here is a tiny BERT built from a config with random weights,
saved to tmp_path. Its scores are meaningless: the tests check that lexcite
loads a local cross-encoder offline, feeds it (question, passage) pairs, reads
its scale, and ranks by what it returns, not that the ranking is any good.
"""

from __future__ import annotations

import numpy as np
import pytest

from lexcite.errors import ConfigError
from lexcite.index.chunks import Passage
from lexcite.index.rerank import CrossEncoderReranker, EmbedderReranker, load_reranker, parse_spec

WORDS = "providers deployers shall keep logs months staff literacy fines turnover the of for a".split()


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory):
    transformers = pytest.importorskip("transformers")
    path = tmp_path_factory.mktemp("tiny-ce")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tok = transformers.BertTokenizerFast(vocab_file=str(path / "vocab.txt"))
    cfg = transformers.BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                  intermediate_size=32, max_position_embeddings=64, num_labels=1)
    transformers.set_seed(0)
    transformers.BertForSequenceClassification(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def _passage(i: int, text: str) -> Passage:
    from lexcite.catalog import UnitRecord
    from lexcite.contract import Unit

    u = Unit(act="32099R0001", version="2022-01-01", unit=f"art_{i}", kind="article", title=f"Article {i}", text=text,
             parent=None, position=i, language="en")
    return Passage(f"en:{u.ref}", UnitRecord(u, "current", "2022-01-01", None), "")


class TestSpecs:
    @pytest.mark.parametrize("spec,expected", [("none", ("none", "")), ("embedder:e5", ("embedder", "e5")),
                                               ("cross-encoder:/m/ce", ("cross-encoder", "/m/ce"))])
    def test_spec_forms(self, spec, expected):
        assert parse_spec(spec) == expected

    @pytest.mark.parametrize("spec", ["", "bm25", "embedder:", "cross-encoder", "none:x"])
    def test_bad_spec_lists_the_forms(self, spec):
        with pytest.raises(ConfigError, match="none, cross-encoder:<name or path>, embedder:<name>"):
            parse_spec(spec)

    def test_none_is_no_reranker(self):
        assert load_reranker("none") is None

    def test_cross_encoder_that_is_not_on_disk_is_a_config_error(self, tmp_path):
        with pytest.raises(ConfigError, match="cannot load it offline"):
            load_reranker(f"cross-encoder:{tmp_path / 'absent'}")


@pytest.mark.slow
class TestCrossEncoder:
    def test_local_cross_encoder_scores_every_pair_on_a_probability_scale(self, tiny_cross_encoder):
        rr = load_reranker(f"cross-encoder:{tiny_cross_encoder}")
        assert isinstance(rr, CrossEncoderReranker)
        assert rr.scale == "probability"  # num_labels=1, no activation saved: sentence-transformers adds a sigmoid
        ps = [_passage(1, "deployers shall keep logs"), _passage(2, "fines of the turnover"), _passage(3, "staff")]
        s = rr.score("how long keep logs", ps)
        assert s.shape == (3,) and np.all((s >= 0) & (s <= 1))
        assert np.allclose(s, rr.score("how long keep logs", ps))  # deterministic
        assert rr.score("q", []).shape == (0,)


class _CountingEmbedder:
    name, dim, max_words = "counting", 3, 100

    def __init__(self):
        self.calls = 0

    def embed(self, texts, *, query=False):
        self.calls += 1
        out = np.array([[1.0, len(t) % 3, 0.5] for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_embedder_reranker_scores_a_unit_by_its_best_chunk_from_stored_vectors():
    emb = _CountingEmbedder()
    stored = {"en:32099R0001@2022-01-01#art_1": np.array([[0, 1, 0], [1, 0, 0]], dtype=np.float32),
              "en:32099R0001@2022-01-01#art_2": np.array([[0, 0, 1]], dtype=np.float32)}
    rr = EmbedderReranker(emb, lambda keys: {k: stored[k] for k in keys if k in stored})
    s = rr.score("q", [_passage(1, "a"), _passage(2, "b")])
    q = emb.embed(["q"])[0]
    assert s[0] == pytest.approx(max(q[0], q[1])) and s[1] == pytest.approx(q[2])
    assert rr.scale == "cosine" and rr.spec == "embedder:counting"


@pytest.mark.slow
def test_rerank_reads_the_question_in_the_acts_words_beside_the_question_as_written():
    """`Params.lay_rerank`: the score is the weighted mean of the passage's scores for the question as written and
    for the question with the acts' words appended (lay_terms.py), so a provision the acts word otherwise rises;
    the latter shifted so that their best is the question's best, which keeps the threshold's scale."""
    from lexcite.index.embed import get_embedder
    from lexcite.index.rerank import rerank
    from lexcite.lay_terms import expand_query

    emb = get_embedder("minilm")
    passages = [_passage(1, "Providers established in third countries shall appoint an authorised representative "
                            "which is established in the Union."),
                _passage(2, "Providers shall keep the documentation at the disposal of the national authorities.")]
    vectors = {p.key: emb.embed([p.text]) for p in passages}
    rr = EmbedderReranker(emb, lambda keys: {k: vectors[k] for k in keys})
    question = "Do we need a local agent in Europe to speak for us?"
    wording = expand_query(question)
    assert wording != question and "authorised representative" in wording
    pool = {0: 1.0, 1: 1.0}
    plain = rerank(rr, question, pool, passages, blend=0.0)
    both = rerank(rr, question, pool, passages, blend=0.0, also=wording, weight=0.7)
    lay = rr.score(wording, passages)
    shift = max(plain.scores.values()) - float(lay.max())
    for i in pool:
        assert both.scores[i] == pytest.approx(0.3 * plain.scores[i] + 0.7 * (float(lay[i]) + shift), abs=1e-6)
    gain = [both.scores[i] - plain.scores[i] for i in pool]
    assert gain[0] > gain[1]  # the representative's provision gains most from the acts' words
    assert max(both.scores.values()) <= max(plain.scores.values()) + 1e-6  # on the scale of the question as written
    assert rerank(rr, question, pool, passages, blend=0.0, also=wording, weight=0.0).scores == plain.scores
