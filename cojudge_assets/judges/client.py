"""The one request-and-validation path every judge takes (hosted or local).

``judge_once`` sends a rendered prompt through ``litellm.acompletion`` and
returns a :class:`JudgeCall`, never raising for a provider's or a model's fault:

* transient provider errors (429, 5xx, timeouts, connection resets) are retried
  with exponential backoff and jitter (tenacity), waiting at least as long as a
  ``Retry-After`` header asks;
* authentication and bad-request errors fail at once with a clear message;
* an answer that fails validation (core/judging/models.py: (a)-(d)) re-issues the
  identical request, up to ``max_tries`` answers in all;
* a row that exhausts its tries is ``status="failed"`` with the last error;
* an answer that is exactly ``{"abstain": "<reason>"}`` (core/judging/models.py) is a
  final answer, ``status="abstained"`` with the reason in ``abstain_reason``:
  not re-asked, and stored by the runner with the reason as its rationale.

API keys are read from the environment variable the judge config names, at call
time, and passed to litellm only; they are never part of a JudgeCall.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from cojudge_assets.core.judging.models import JudgeOutput, validate_answer
from cojudge_assets.core.judging.prompts import asks_score


class JudgeConfig(BaseModel):
    """What the request path needs to know of one judge. The judges file's entry (judges/config.py ``JudgeSpec``)
    is this model with the file's own fields added (enabled, concurrency, rate, imported source...): one settings
    model, never copied field by field."""

    model_config = ConfigDict(frozen=True)

    name: str
    model: str  # litellm model string: "openai/gpt-...", "cojudge/sample-exec", "openai/NAME" + api_base
    api_base: str | None = None
    api_key_env: str | None = None  # the environment variable holding the key; None for local judges
    temperature: float = 0.0
    top_p: float | None = None  # sent only when set
    max_tokens: int = Field(default=512, ge=1)
    reasoning_budget: int | None = Field(default=None, ge=0)
    json_mode: bool = True
    max_tries: int = Field(default=3, ge=1, le=20)  # answers per row (validation re-asks)
    transient_retries: int = Field(default=5, ge=0, le=50)  # provider errors per answer
    timeout_s: float = Field(default=120.0, gt=0)
    lenient: bool = False
    extra: dict = Field(default_factory=dict)

    def api_key(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The judge's API key: the value of the variable ``api_key_env`` names in ``environ`` (the process's
        environment by default), stripped, ``""`` when it is unset or blank; None for a judge that takes no key
        (a local judge, a server without authentication). The one place a key is read: the request path, the
        drift probe, the judging step and the command's preflight all ask here."""
        if not self.api_key_env:
            return None
        return ((os.environ if environ is None else environ).get(self.api_key_env) or "").strip()


@dataclass
class JudgeCall:
    status: str  # "ok", "abstained" or "failed"
    output: JudgeOutput | None
    error: str
    raw_text: str
    served_model: str
    system_fingerprint: str
    tries: int  # answers received or attempted
    validation_failures: int
    repaired: bool
    latency_s: float
    input_tokens: int | None
    output_tokens: int | None
    cost: float | None
    provider_errors: int = 0
    fatal: bool = False  # authentication or permission refused: no other row of this judge can succeed
    sent: int = 0  # requests that reached the judge's server (see reached_server); local judges: every call
    abstain_reason: str = ""  # status "abstained": why the judge had nothing to go on


TRANSIENT_STATUS = {408, 409, 429, 500, 502, 503, 504, 520, 529}


def _status(exc: BaseException) -> int | None:
    for attr in ("status_code", "code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None)


def is_transient(exc: BaseException) -> bool:
    import litellm

    if isinstance(
        exc,
        (litellm.AuthenticationError, litellm.BadRequestError, litellm.NotFoundError, litellm.PermissionDeniedError),
    ):
        return False
    if isinstance(
        exc,
        (
            litellm.RateLimitError,
            litellm.Timeout,
            litellm.APIConnectionError,
            litellm.InternalServerError,
            litellm.ServiceUnavailableError,
        ),
    ):
        return True
    return _status(exc) in TRANSIENT_STATUS


def reached_server(exc: BaseException) -> bool:
    """Whether a failed request reached the judge's server: it answered with an HTTP status (an
    ``httpx.HTTPStatusError`` in the exception's chain, or a response that carries headers), the request went
    out and timed out, or it went out and the answer broke off (a body shorter than announced, the connection
    closed before or while answering: ``httpx.ReadError`` or ``RemoteProtocolError``, which litellm's aiohttp
    transport raises for those). A failure before sending (a missing key, a body that cannot be encoded, a refused
    connection: ``httpx.ConnectError``) did not: litellm reports those as 500s too, so the status alone cannot
    tell."""
    import httpx
    import litellm

    after_sending = (
        httpx.HTTPStatusError,
        httpx.ReadTimeout,
        httpx.WriteTimeout,
        httpx.ReadError,
        httpx.RemoteProtocolError,
        litellm.Timeout,
    )
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, after_sending):
            return True
        response = getattr(current, "response", None)
        if response is not None and len(getattr(response, "headers", None) or {}) > 0:
            return True
        current = current.__cause__ or current.__context__
    return False


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds the provider asked to wait (Retry-After header), if it said."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or getattr(exc, "headers", None) or {}
    value = headers.get("retry-after") if hasattr(headers, "get") else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class _HonourRetryAfter:
    """tenacity wait: exponential backoff with jitter, but never shorter than Retry-After."""

    def __init__(self, initial: float, maximum: float):
        self.backoff = wait_exponential_jitter(multiplier=initial, max=maximum, jitter=initial)

    def __call__(self, state) -> float:
        asked = retry_after_s(state.outcome.exception()) if state.outcome and state.outcome.failed else None
        return max(self.backoff(state), asked or 0.0)


# Every litellm.completion argument cojudge sets itself (request_kwargs), and those whose answers the request path
# cannot read (a stream, several choices): a judge's ``extra`` may set none of them (judges/config.py refuses it at
# preflight; a clash would otherwise fail the judging step after paid requests). A test keeps it a superset of
# request_kwargs's keys.
SET_BY_COJUDGE = frozenset(
    {
        *("model", "messages", "temperature", "top_p", "max_tokens", "timeout", "num_retries", "max_retries"),
        *("api_base", "api_key", "response_format", "thinking"),
        *("stream", "stream_options", "n"),
    }
)


def request_kwargs(config: JudgeConfig, messages: list[dict]) -> dict:
    """The litellm.completion arguments for one judge and these messages (the key read from the environment)."""
    kwargs = dict(
        model=config.model,
        messages=messages,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        timeout=config.timeout_s,
        num_retries=0,
        max_retries=0,
        **config.extra,
    )
    if config.top_p is not None:
        kwargs["top_p"] = config.top_p
    if config.api_base:
        kwargs["api_base"] = config.api_base
    if config.api_key_env:
        kwargs["api_key"] = config.api_key()
    if config.json_mode:
        kwargs["response_format"] = {"type": "json_object"}
    if config.reasoning_budget is not None:
        kwargs["thinking"] = {"type": "enabled", "budget_tokens": config.reasoning_budget}
    return kwargs


async def judge_once(
    config: JudgeConfig,
    messages: list[dict],
    *,
    backoff_initial_s: float = 1.0,
    backoff_max_s: float = 60.0,
    limiter=None,
) -> JudgeCall:
    """Ask one judge about one request until it answers validly or the tries run out.

    ``limiter`` (an ``aiolimiter.AsyncLimiter``) is acquired before every request
    sent, re-asks and retries included, so a requests-per-minute limit holds.
    """
    import litellm

    litellm.suppress_debug_info = True
    kwargs = request_kwargs(config, messages)
    local = config.model.startswith("cojudge/")  # judges/local.py LOCAL_PROVIDER: served in this process
    started = time.perf_counter()
    call = JudgeCall("failed", None, "", "", "", "", 0, 0, False, 0.0, None, None, None)
    provider_errors = 0

    def count(_state) -> None:
        nonlocal provider_errors
        provider_errors += 1

    for _ in range(config.max_tries):
        call.tries += 1
        try:
            async for attempt in AsyncRetrying(
                retry=retry_if_exception(is_transient),
                wait=_HonourRetryAfter(backoff_initial_s, backoff_max_s),
                stop=stop_after_attempt(config.transient_retries + 1),
                before_sleep=count,
                reraise=True,
            ):
                with attempt:
                    if limiter is not None:
                        await limiter.acquire()
                    try:
                        response = await litellm.acompletion(**kwargs)
                    except Exception as exc:  # noqa: BLE001 - counted, then handled by the retrying below
                        call.sent += 1 if local or reached_server(exc) else 0
                        raise
                    call.sent += 1
        except Exception as exc:  # noqa: BLE001 - every provider failure becomes a recorded row
            kind = "transient error, retries exhausted" if is_transient(exc) else "fatal error"
            call.error = f"{kind}: {type(exc).__name__}: {str(exc)[:500]}"
            call.provider_errors = provider_errors + (1 if is_transient(exc) else 0)
            call.fatal = isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError))
            break
        text = response.choices[0].message.content or ""
        call.raw_text = text
        call.served_model = str(getattr(response, "model", "") or "")
        call.system_fingerprint = str(getattr(response, "system_fingerprint", "") or "")
        usage = getattr(response, "usage", None)
        call.input_tokens = getattr(usage, "prompt_tokens", None) if usage else None
        call.output_tokens = getattr(usage, "completion_tokens", None) if usage else None
        if config.api_key_env:  # hosted: litellm's price table; local judges cost nothing to record
            # litellm's cost calculator has already priced the response (None for a model it cannot price)
            cost = getattr(response, "_hidden_params", {}).get("response_cost")
            call.cost = float(cost) if cost is not None else None
        checked = validate_answer(text, lenient=config.lenient, require_score=asks_score(messages))
        if checked.output is not None:
            call.status, call.output, call.error, call.repaired = "ok", checked.output, "", checked.repaired
            break
        if checked.abstained:  # a final answer, not a fault: never re-asked
            call.status, call.error, call.abstain_reason = "abstained", "", checked.abstain_reason
            break
        call.validation_failures += 1
        call.error = f"invalid answer: {checked.error}"
    call.provider_errors = max(call.provider_errors, provider_errors)
    call.latency_s = time.perf_counter() - started
    return call
