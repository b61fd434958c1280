"""Lexical retrieval: a tokeniser for legal text and BM25 with the perimeter as a mask.

The tokeniser keeps the tokens lawyers search by: act numbers ("2024/1689"),
powers ("10^25"), provision references ("6(2)", "5(1)(h)"), hyphenated terms
("high-risk"), and amounts written with thin spaces ("35 000 000" -> "35000000").
A compound token is emitted together with its parts, so "high risk" still finds
"high-risk" and "Article 6" finds "6(2)". English stop words are dropped.

Invariant 1: `BM25Index.top` zeroes every document outside the perimeter mask
*before* selecting the top n, so an outside unit never competes for a rank.

Two implementations are kept for the comparison in bench/retrieval.py:
bm25s (sparse matrix, the default) and rank-bm25 (BM25Okapi, pure Python).
The bm25s index is saved beside the dense index at build time (`save`/`load`),
so opening a Searcher reads it instead of tokenising every passage again.
bm25s is imported without scipy (`_bm25s`): lexcite uses none of it.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lexcite._words import ENGLISH_STOPWORDS

__all__ = ["tokenize", "BM25Index", "TOKENIZER", "BM25_PARAMS", "IMPLEMENTATIONS", "fingerprint"]

TOKENIZER = "legal-v1"
BM25_PARAMS = {"k1": 1.2, "b": 0.75, "method": "lucene"}
IMPLEMENTATIONS = ("bm25s", "rank_bm25")

_TOKEN = re.compile(
    r"""
      \d{1,3}(?:[\u00a0\u202f\u2009 ]\d{3})+(?![\d/])   # 35 000 000 (EU amounts, thin or plain spaces)
    | \d+\^\d+                                         # 10^25
    | \d+/\d+(?:/[a-z]+)?                              # 2024/1689, 2016/679/eu
    | \d+[a-z]?(?:\([0-9a-z]{1,5}\))+                  # 6(2), 5(1)(h), 4a(1)
    | \d+(?:\.\d+)+                                    # 3.5, 1.2.1
    | \w+(?:[-\u2010\u2011]\w+)+                       # high-risk, general-purpose, real-time
    | \w+
    """,
    re.VERBOSE,
)
_PARTS = re.compile(r"[^\W_]+")

# A standard English list (close to Lucene's and scikit-learn's); modal verbs such as "shall" and
# "may" stay in because they carry the obligation.
# Legal drafting's own function words join the English ones.
STOP_WORDS = ENGLISH_STOPWORDS | frozenset(("upon", "thereof", "therein", "whereas"))


def fingerprint(texts: Sequence[str]) -> str:
    """What a saved index was built from: the texts, in their positions."""
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


def tokenize(text: str) -> list[str]:
    """Lower-cased tokens of `text`, legal compounds kept (with their parts), stop words out."""
    out: list[str] = []
    for m in _TOKEN.finditer(text.lower()):
        tok = m.group(0)
        if tok[0].isdigit() and (" " in tok or "\u00a0" in tok or "\u202f" in tok or "\u2009" in tok):
            out.append(re.sub(r"\D", "", tok))
            continue
        if tok in STOP_WORDS:
            continue
        out.append(tok)
        if not tok.isalnum():
            out.extend(p for p in _PARTS.findall(tok) if p not in STOP_WORDS and p != tok)
    return out


def _bm25s() -> Any:
    """The bm25s module, imported without scipy.sparse when nothing has loaded it yet.

    bm25s imports scipy.sparse whenever it is installed, but uses it only for `csc_backend="scipy"`;
    lexcite builds with bm25s's default numpy backend and scores with numpy. The import costs 0.2 s
    of every `lexcite ask` (bench/RESULTS.md, "Start-up"; most of it scipy's array-API layer), so for
    the one `import bm25s` the name is marked missing (bm25s catches the ImportError and sets
    SCIPY_AVAILABLE False), then unmarked: the process can import scipy afterwards as usual.
    """
    if "bm25s" in sys.modules or "scipy.sparse" in sys.modules:
        import bm25s

        return bm25s
    sys.modules["scipy.sparse"] = None  # type: ignore[assignment]  # `import scipy.sparse` raises ImportError
    try:
        import bm25s
    finally:
        if sys.modules.get("scipy.sparse", False) is None:
            del sys.modules["scipy.sparse"]
    return bm25s


class BM25Index:
    """BM25 over a fixed list of texts, addressed by position."""

    def __init__(self, texts: Sequence[str], impl: str = "bm25s", k1: float = BM25_PARAMS["k1"],
                 b: float = BM25_PARAMS["b"]):
        if impl not in IMPLEMENTATIONS:
            raise ValueError(f"BM25 implementation {impl!r} is not one of {', '.join(IMPLEMENTATIONS)}")
        self.impl, self.size = impl, len(texts)
        corpus = [tokenize(t) or [""] for t in texts]
        if impl == "bm25s":
            self._model = _bm25s().BM25(k1=k1, b=b, method=BM25_PARAMS["method"])
            self._model.index(corpus, show_progress=False)
        else:
            from rank_bm25 import BM25Okapi

            self._model = BM25Okapi(corpus, k1=k1, b=b)

    def save(self, folder: Path, fingerprint: str) -> None:
        """Write a bm25s index to `folder`, tagged with `fingerprint` (what it was built from)."""
        if self.impl != "bm25s":
            raise ValueError("only the bm25s implementation can be saved")
        folder.mkdir(parents=True, exist_ok=True)
        tag = folder / "lexcite.json"
        tag.unlink(missing_ok=True)  # written last: a save cut short leaves no index that claims to be whole
        self._model.save(str(folder), show_progress=False)
        tag.write_text(json.dumps({"fingerprint": fingerprint, "size": self.size,
                                                         "tokenizer": TOKENIZER, "params": BM25_PARAMS}))

    @classmethod
    def load(cls, folder: Path, fingerprint: str) -> BM25Index | None:
        """The index saved in `folder`, or None when there is none or it was built from other passages
        (the caller then builds one in memory)."""
        tag = folder / "lexcite.json"
        if not tag.exists():
            return None
        meta = json.loads(tag.read_text())
        if (meta.get("fingerprint"), meta.get("tokenizer"), meta.get("params")) != (fingerprint, TOKENIZER,
                                                                                     BM25_PARAMS):
            return None
        index = cls.__new__(cls)
        index.impl, index.size = "bm25s", int(meta["size"])
        index._model = _bm25s().BM25.load(str(folder), show_progress=False)
        return index

    def scores(self, query: str) -> np.ndarray:
        """One score per text (0 where no query token occurs)."""
        tokens = tokenize(query)
        if self.impl == "bm25s":
            ids = self._model.get_tokens_ids(tokens)
            if not ids or self.size == 0:
                return np.zeros(self.size, dtype=np.float32)
            return np.asarray(self._model.get_scores_from_ids(ids), dtype=np.float32)
        if not tokens or self.size == 0:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._model.get_scores(tokens), dtype=np.float32)

    def top(self, query: str, mask: np.ndarray | None, n: int) -> list[tuple[int, float]]:
        """The n best (position, score) with score > 0 among positions where `mask` is True."""
        s = self.scores(query)
        if mask is not None:
            s = np.where(mask, s, 0.0)  # the perimeter, before any ranking (invariant 1)
        hits = np.flatnonzero(s > 0)
        if hits.size > n:
            # argpartition: O(N) selection of the n best, then a sort of those n only
            hits = hits[np.argpartition(-s[hits], n - 1)[:n]]
        order = hits[np.lexsort((hits, -s[hits]))]
        return [(int(i), float(s[i])) for i in order]
