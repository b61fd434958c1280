"""The Claude generator, through the official `anthropic` SDK (enabled by ANTHROPIC_API_KEY).

Design choice: a source-bound prompt, not the Messages API's native citations.
The evidence goes in as numbered sources ([S1] ...) and Claude must end every
sentence with the ids it relies on, or reply with exactly the refusal line
(`prompt.py`). The alternative, search-result or document content blocks with
`citations` enabled, makes the API attach `search_result_location` spans to
text blocks. We chose the prompt because it keeps verification simple and robust:

- One format for every generator. Claude, the offline extractive generator and
  the local model all return "sentence [S1]" text, so one parser and one
  verifier (`verify.py`) judge all of them. With native citations Claude's
  output alone would need a second, block-based reader.
- Sentences are what we verify. Native citations attach to text blocks that the
  model segments as it likes: a block can hold half a sentence or three, and
  uncited connective blocks are allowed. Mapping them back onto sentences is
  heuristic. With [S#] ids the sentence carries its own citations.
- Native citations prove where quoted text came from, not that the prose around
  it is right. A number in the model's own words is exactly what invariant 3
  must check, and a native span does not check it. The verifier is the trust
  root in both designs, so the extra machinery adds no safety.
- The refusal is an exact line that we can compare, not a judgement about free text.
- It is portable: any endpoint that speaks the Messages API works (tests use a
  loopback fake), and replay needs only the recorded prompt and output.

Sampling: the SDK (2.x, API version 2026-10-21) no longer accepts `temperature`,
and current Sonnet and Opus models reject it with a 400. So by default none is
sent. `temperature=` is kept for endpoints that still take it, and is passed
through `extra_body`. Repeatability comes from the trace, which records the exact
prompt and raw output, and from the verifier, which decides each time. `effort=` ("low" to "max")
is sent as `output_config` only when given. `max_tokens` leaves room for adaptive thinking.

Failure: 529 (overloaded), 429 and 5xx are retried by the SDK with backoff
(`max_retries`). An error that remains becomes a refusal with a fixed message.
That message has no number and no guess. The status code goes to the trace only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anthropic

from lexcite import config
from lexcite.answer.draft import SAID_NO, Draft, refusal_reason
from lexcite.answer.prompt import SYSTEM, full_prompt, render_user
from lexcite.config import Settings
from lexcite.contract import Evidence
from lexcite.errors import ConfigError

__all__ = ["ClaudeGenerator", "PROVIDER_FAILED", "DEFAULT_MAX_TOKENS", "DEFAULT_TIMEOUT", "DEFAULT_RETRIES"]

NAME = "claude"
DEFAULT_MAX_TOKENS = 4096  # room for adaptive thinking (on by default on current models) plus six sentences
DEFAULT_TIMEOUT = 60.0  # seconds per attempt
DEFAULT_RETRIES = 3  # on 529 / 429 / 5xx / connection errors, with the SDK's exponential backoff

PROVIDER_FAILED = ("The Claude generator did not return an answer (the service failed or could not be reached), "
                   "so nothing is stated. Try again later, or ask with the offline extractive generator.")
_CUT_OFF = "The Claude generator's answer was cut off before its end, so nothing of it is shown."
_DECLINED = "The Claude generator declined to answer."


class ClaudeGenerator:
    """Answers from the evidence with Claude.

    Example::

        gen = ClaudeGenerator()                       # ANTHROPIC_API_KEY, LEXCITE_CLAUDE_MODEL
        draft = gen.generate("When does the AI Act apply?", evidence)

    Raises:
        ConfigError: no API key given and ANTHROPIC_API_KEY is not set.
    """

    name = NAME

    def __init__(
        self,
        api_key: str | None = None,
        model: str | None = None,
        *,
        base_url: str | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_RETRIES,
        temperature: float | None = None,
        effort: str | None = None,
        client: anthropic.Anthropic | None = None,
        settings: Settings | None = None,
    ):
        settings = config.settings(settings)
        key = api_key or settings.anthropic_api_key
        if client is None and not key:
            raise ConfigError("the Claude generator needs ANTHROPIC_API_KEY; set it, or use --generator extractive")
        if max_tokens < 64:
            raise ConfigError(f"max_tokens {max_tokens} is too small for an answer; use at least 64")
        self.model = model or settings.claude_model
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.max_retries = max_retries
        self.temperature = temperature
        self.effort = effort  # "low" ... "max" where the model supports it; None leaves the model's default
        self._client = client or anthropic.Anthropic(
            api_key=key, base_url=base_url, timeout=timeout, max_retries=max_retries
        )

    def params(self) -> dict[str, Any]:
        return {"max_tokens": self.max_tokens, "timeout": self.timeout, "max_retries": self.max_retries,
                "temperature": self.temperature, "effort": self.effort, "base_url": str(self._client.base_url)}

    def generate(self, question: str, evidence: Sequence[Evidence]) -> Draft:
        prompt = full_prompt(question, evidence)
        params = self.params()
        extra: dict[str, Any] = {}
        if self.temperature is not None:
            extra["extra_body"] = {"temperature": self.temperature}
        if self.effort is not None:
            extra["output_config"] = {"effort": self.effort}
        try:
            msg = self._client.messages.create(
                model=self.model,
                max_tokens=self.max_tokens,
                system=SYSTEM,
                messages=[{"role": "user", "content": render_user(question, evidence)}],
                **extra,
            )
        except anthropic.APIStatusError as e:
            return self._failed(prompt, params, f"{type(e).__name__}: HTTP {e.status_code}")
        except anthropic.AnthropicError as e:  # connection, timeout, response validation
            return self._failed(prompt, params, f"{type(e).__name__}: {e}")
        except ValueError as e:  # a body that is not JSON escapes the SDK as JSONDecodeError
            return self._failed(prompt, params, f"malformed response: {type(e).__name__}: {e}")
        try:
            text, stop_reason = _well_formed(msg)
        except ValueError as e:  # an HTML page, another JSON shape, a cut body: the SDK hands it over as is
            return self._failed(prompt, params, f"malformed response: {e}")
        usage = msg.usage.model_dump() if hasattr(getattr(msg, "usage", None), "model_dump") else {}
        model = msg.model if isinstance(getattr(msg, "model", None), str) and msg.model else self.model
        base = {"prompt": prompt, "model": model, "params": params, "usage": usage}
        if stop_reason == "max_tokens":
            return Draft(text, refused=True, reason=_CUT_OFF, flags=("generator_truncated",), **base)
        if stop_reason == "refusal":
            return Draft(text, refused=True, reason=_DECLINED, flags=("generator_declined",), **base)
        said = refusal_reason(text)
        if said is not None:  # the model's own reason, when it gave one that states no value
            return Draft(text, refused=True, reason=f"{SAID_NO}: {said}" if said else SAID_NO,
                         flags=("generator_said_no",), **base)
        return Draft(text, **base)

    def _failed(self, prompt: str, params: dict[str, Any], error: str) -> Draft:
        return Draft("", refused=True, reason=PROVIDER_FAILED, prompt=prompt, model=self.model, params=params,
                     flags=("generator_error",), error=error)


_SKIPPED_BLOCKS = ("thinking", "redacted_thinking")  # adaptive thinking: not part of the answer


def _well_formed(msg: object) -> tuple[str, str]:
    """The answer text and stop reason of a well-formed Messages response; ValueError for anything else."""
    content = getattr(msg, "content", None)
    if not isinstance(content, list):
        raise ValueError(f"a {type(msg).__name__} without a list of content blocks")
    stop_reason = getattr(msg, "stop_reason", None)
    if not isinstance(stop_reason, str):
        raise ValueError("no stop_reason: the response is not a complete message")
    texts = []
    for block in content:
        kind = getattr(block, "type", None)
        if kind in _SKIPPED_BLOCKS:
            continue
        value = getattr(block, "text", None)
        if kind != "text" or not isinstance(value, str):
            raise ValueError(f"a content block of type {kind!r} where text was expected")
        texts.append(value)
    if not texts and stop_reason != "refusal":
        raise ValueError("no text block in the response")
    return "".join(texts), stop_reason
