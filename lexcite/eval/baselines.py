"""Baselines measured in the same run as the system, so the report can set them side by side.

- `retrieval_only`: the first sentence of the top BM25 unit, cited. It shows
  what ranking alone buys, without generation or verification.
- `no_rag`: Claude answering from its own knowledge, given no evidence and
  citing nothing. It shows what retrieval adds, on key facts above all.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lexcite.contract import Answer, Candidate, CitedSentence, Evidence, Perimeter, SearchResult

__all__ = ["first_sentence", "retrieval_only", "no_rag_answer", "claude_no_rag", "NO_RAG_PROMPT", "DONT_KNOW"]

DONT_KNOW = "I don't know."
NO_RAG_PROMPT = (
    "Answer this question about EU law in at most three sentences, from what you know. "
    f"If you do not know, reply exactly: {DONT_KNOW}\n\nQuestion: {{question}}"
)

# "1.   ", "(a)  ", "(iii) " and the like open many units; they are not the sentence.
_ENUMERATOR = re.compile(r"^\s*(?:\(?[0-9]{1,3}[a-z]?[.)]|\([a-z]{1,4}\))\s+")
_SENTENCE_END = re.compile(r"(?<=[.;:])\s+(?=[A-Z(‘“'\"])")
_MAX_CHARS = 400


def first_sentence(text: str) -> str:
    """The unit's first sentence, without its enumerator, cut at 400 characters."""
    body = _ENUMERATOR.sub("", " ".join(text.split()))
    sentence = _SENTENCE_END.split(body, maxsplit=1)[0]
    return sentence if len(sentence) <= _MAX_CHARS else sentence[:_MAX_CHARS].rsplit(" ", 1)[0] + " …"


def _evidence(c: Candidate) -> Evidence:
    return Evidence(sid="S1", ref=c.ref, title=c.title, text=c.text, status=c.status, binding=c.binding,
                    source_url=c.source_url, score=c.score)


def retrieval_only(question: str, bm25: SearchResult) -> Answer:
    """Answer with the first sentence of the top-ranked BM25 unit; refuse only when nothing was ranked."""
    if not bm25.ranked:
        return Answer(question=question, refused=True, refusal_reason="nothing ranked",
                      generator="retrieval_only", perimeter=bm25.perimeter)
    top = bm25.ranked[0]
    return Answer(question=question, sentences=(CitedSentence(first_sentence(top.text), (top.ref,)),),
                  evidence=(_evidence(top),), generator="retrieval_only", perimeter=bm25.perimeter)


def no_rag_answer(question: str, perimeter: Perimeter, complete: Callable[[str], str]) -> Answer:
    """Wrap a model's unsupported text as an Answer with no citations (refused when it says it does not know)."""
    text = complete(NO_RAG_PROMPT.format(question=question)).strip()
    if not text or text.rstrip(".").lower() == DONT_KNOW.rstrip(".").lower():
        return Answer(question=question, refused=True, refusal_reason="model does not know",
                      generator="no_rag", perimeter=perimeter)
    return Answer(question=question, sentences=(CitedSentence(text, ()),), generator="no_rag", perimeter=perimeter)


def claude_no_rag(api_key: str, model: str, max_tokens: int = 300) -> Callable[[str], str]:
    """A `complete` function on the Anthropic Messages API (the caller reads the key, at the edge)."""
    import anthropic  # imported here: the offline path never needs the SDK

    client = anthropic.Anthropic(api_key=api_key)

    def complete(prompt: str) -> str:
        msg = client.messages.create(model=model, max_tokens=max_tokens, temperature=0,
                                     messages=[{"role": "user", "content": prompt}])
        return "".join(getattr(b, "text", "") for b in msg.content)

    return complete
