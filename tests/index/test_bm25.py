"""The legal tokeniser, and BM25 taking the perimeter as a mask before top-k."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from lexcite.index.bm25 import BM25Index, tokenize


class TestTokeniser:
    def test_tokeniser_keeps_act_numbers(self):
        assert "2024/1689" in tokenize("Regulation (EU) 2024/1689 of the European Parliament")

    def test_tokeniser_keeps_powers_of_ten(self):
        assert "10^25" in tokenize("greater than 10^25 floating point operations")

    def test_tokeniser_keeps_provision_references_and_their_article_number(self):
        toks = tokenize("as referred to in Article 6(2) and Article 5(1)(h)")
        assert "6(2)" in toks and "5(1)(h)" in toks
        assert "6" in toks  # "Article 6" still finds "6(2)"

    def test_tokeniser_keeps_hyphenated_terms_and_their_parts(self):
        toks = tokenize("High-risk AI systems and general-purpose AI models")
        assert "high-risk" in toks and "general-purpose" in toks
        assert "risk" in toks and "purpose" in toks

    def test_tokeniser_joins_amounts_written_with_spaces(self):
        assert "35000000" in tokenize("fines of up to EUR 35 000 000 or")
        assert "35000000" in tokenize("up to EUR 35\u00a0000\u00a0000")

    def test_tokeniser_drops_english_stop_words_but_keeps_shall(self):
        toks = tokenize("The provider shall ensure that the system is of the highest quality")
        assert "the" not in toks and "of" not in toks and "is" not in toks
        assert "shall" in toks and "provider" in toks


class TestMask:
    TEXTS = [
        "deployers shall keep logs for six months",  # 0: best match, outside the mask below
        "logs shall be kept",  # 1
        "providers shall keep documentation",  # 2
        "nothing relevant here at all",  # 3
        "the commission shall adopt guidelines",  # fillers: Okapi idf is 0 for a word in half the texts
        "member states shall designate authorities",
        "recitals explain the purpose",
        "annexes list the systems",
    ]

    @pytest.mark.parametrize("impl", ["bm25s", "rank_bm25"])
    def test_masked_out_document_never_takes_a_top_slot(self, impl):
        index = BM25Index(self.TEXTS, impl=impl)
        assert index.top("keep logs", None, 1)[0][0] == 0
        mask = np.array([False] + [True] * (len(self.TEXTS) - 1))
        top = index.top("keep logs", mask, 2)
        assert [i for i, _ in top] == [1, 2]  # n slots filled from inside the perimeter

    def test_documents_without_a_query_word_are_not_hits(self):
        index = BM25Index(self.TEXTS)
        top = index.top("keep logs", None, 10)
        assert top and all(i != 3 for i, _ in top)
        assert index.top("zebra", None, 5) == []

    def test_bm25s_and_rank_bm25_rank_alike(self):
        texts = [f"{w} shall keep logs of {x}" for w in ("providers", "deployers", "importers")
                 for x in ("incidents", "training data", "risk")] + self.TEXTS
        a, b = BM25Index(texts, impl="bm25s"), BM25Index(texts, impl="rank_bm25")
        for q in ("deployers keep logs", "training data risk", "importers incidents"):
            assert [i for i, _ in a.top(q, None, 3)] == [i for i, _ in b.top(q, None, 3)]


def test_a_saved_index_scores_as_the_one_built_and_is_refused_for_other_texts(tmp_path):
    from lexcite.index.bm25 import fingerprint

    texts = ["Providers of high-risk AI systems shall keep logs.", "Deployers shall inform workers.",
             "Fines up to EUR 35 000 000 apply under Article 99(3)."]
    built = BM25Index(texts)
    built.save(tmp_path / "bm25", fingerprint(texts))
    loaded = BM25Index.load(tmp_path / "bm25", fingerprint(texts))
    assert loaded is not None and loaded.size == 3
    for q in ("logs of high risk systems", "35000000 fines", "Article 99", "nothing matches zebra"):
        assert loaded.scores(q).tolist() == built.scores(q).tolist()
        assert loaded.top(q, None, 2) == built.top(q, None, 2)
    assert BM25Index.load(tmp_path / "bm25", fingerprint(texts[:2])) is None  # built from other passages
    assert BM25Index.load(tmp_path / "nowhere", fingerprint(texts)) is None


def test_a_fresh_process_loads_and_scores_a_saved_index_without_scipy_and_can_import_it_after(tmp_path):
    """bm25s is imported with scipy.sparse hidden (bm25._bm25s); the scores are those of the index as built."""
    from lexcite.index.bm25 import fingerprint

    texts = ["Providers of high-risk AI systems shall keep logs.", "Deployers shall inform workers.",
             "Fines up to EUR 35 000 000 apply under Article 99(3).", "Logs of logs, kept by providers."]
    queries = ("logs of high risk systems", "35000000 fines", "Article 99", "providers logs logs", "zebra")
    built = BM25Index(texts)
    built.save(tmp_path / "bm25", fingerprint(texts))
    code = textwrap.dedent(f"""
        import json, sys
        from pathlib import Path
        from lexcite.index.bm25 import BM25Index
        index = BM25Index.load(Path({str(tmp_path / "bm25")!r}), {fingerprint(texts)!r})
        scores = [index.scores(q).tolist() for q in {queries!r}]
        assert "scipy.sparse" not in sys.modules and not sys.modules["bm25s"].SCIPY_AVAILABLE
        import scipy.sparse  # hidden for bm25s's import only
        print(json.dumps(scores))
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout) == [built.scores(q).tolist() for q in queries]
