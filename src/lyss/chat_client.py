"""The OpenAI chat-completions transport that translation (`openai_compatible`) and the LLM judge
(lyss.studies.judge) share: their connection options, one POST with retries, and a bounded number of
requests in flight.

Remote calls fail in ordinary ways (rate limits, overloaded servers, dropped connections, proxies that
answer with HTML), so transient failures are retried with exponential backoff, honouring Retry-After.
The API key is read only from the environment, sent only in the Authorization header, and scrubbed from
every message this module produces, because error text ends up in result files.
"""

import http.client
import itertools
import json
import math
import os
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

from lyss.errors import InputError

REQUIRED = object()  # marks an option without a default

# option → (accepted type, default, smallest allowed value or None)
CONNECTION_OPTIONS = {
    "base_url": (str, REQUIRED, None),
    "model": (str, REQUIRED, None),
    "api_key_env": (str, "OPENAI_API_KEY", None),
    "api_key_required": (bool, True, None),
    "timeout_s": (float, 60.0, 0.001),
    "max_retries": (int, 4, 0),
    "backoff_s": (float, 1.0, 0.0),
    "concurrency": (int, 4, 1),
}


def _type_ok(value, kind) -> bool:
    if isinstance(value, bool):
        return kind is bool
    if kind is float:
        return isinstance(value, (int, float)) and math.isfinite(value)
    return isinstance(value, kind)


def parse_options(options: dict, spec: dict, source: str, prefix: str, ignored=frozenset()) -> dict:
    """Check names, types and ranges of user options against `spec` and fill in defaults, so a typo
    (`temprature`) or a wrong type fails before any request is paid for."""
    unknown = sorted(set(options) - set(spec) - ignored)
    if unknown:
        raise InputError(source, f"unknown option {unknown[0]!r}; known: {', '.join(sorted(spec))}",
                         field=f"{prefix}.{unknown[0]}")
    parsed = {}
    for name, (kind, default, low) in spec.items():
        value = options.get(name, default)
        field = f"{prefix}.{name}"
        if value is REQUIRED or (kind is str and default is REQUIRED and not str(value or "").strip()):
            raise InputError(source, "required option is missing or empty", field=field)
        if value is not None and not _type_ok(value, kind):
            raise InputError(source, f"expected {kind.__name__}, got {type(value).__name__}", field=field)
        if value is not None and low is not None and value < low:
            raise InputError(source, f"must be at least {low}, got {value!r}", field=field)
        parsed[name] = float(value) if kind is float and value is not None else value
    return parsed


def read_api_key(env_name: str, required: bool, source: str, field: str) -> str | None:
    """The key comes only from the environment so it never sits in params.yaml or a lock file."""
    key = os.environ.get(env_name) or None
    if key is None and required:
        raise InputError(source, f"environment variable {env_name} is not set (it must hold the API key; "
                         "set api_key_required: false for servers without authentication)", field=field)
    return key


def client_from_options(options: dict, source: str, prefix: str) -> "ChatClient":
    """A client for options parsed with CONNECTION_OPTIONS; a bad URL fails here, not in a worker."""
    if not options["base_url"].startswith(("http://", "https://")):
        raise InputError(source, f"expected an http:// or https:// URL, got {options['base_url']!r}",
                         field=f"{prefix}.base_url")
    key = read_api_key(options["api_key_env"], options["api_key_required"], source, f"{prefix}.api_key_env")
    return ChatClient(options["base_url"], key, options["timeout_s"], options["max_retries"],
                      options["backoff_s"])


class CallFailed(Exception):
    """A request that could not be completed; the message is already free of the API key."""


class _Retryable(Exception):
    """A failure worth another attempt; `retry_after` is the server's requested wait, if any."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


def _retry_after_seconds(value: str | None) -> float | None:
    """Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3)."""
    if not value:
        return None
    try:
        seconds = float(value)
        return max(seconds, 0.0) if math.isfinite(seconds) else None
    except ValueError:
        pass
    try:
        return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except (TypeError, ValueError):
        return None


@dataclass
class ChatClient:
    """POSTs to `{base_url}/chat/completions` with retries; shared by translation and the judge."""

    base_url: str
    api_key: str | None
    timeout_s: float
    max_retries: int
    backoff_s: float

    def __repr__(self) -> str:  # the dataclass default would print the key
        return f"ChatClient(base_url={self.base_url!r})"

    def redact(self, text: str) -> str:
        return text.replace(self.api_key, "***") if self.api_key else text

    def complete(self, body: dict, rng: random.Random, stop: threading.Event) -> dict:
        """Return the parsed response; raise CallFailed after the last attempt or on a client error.
        `stop` cuts the backoff short when the consumer has gone away."""
        attempts = self.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                return self._post_once(body)
            except _Retryable as err:
                if attempt == attempts or stop.is_set():
                    raise CallFailed(self.redact(f"{err} after {attempt} attempts")) from None
                delay = err.retry_after
                if delay is None:
                    delay = self.backoff_s * 2 ** (attempt - 1) * (0.5 + rng.random())
                if stop.wait(delay):
                    raise CallFailed(self.redact(f"{err}; stopped before retrying")) from None
        raise AssertionError("unreachable")

    def _post_once(self, body: dict) -> dict:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(f"{self.base_url.rstrip('/')}/chat/completions",
                                         data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                payload = response.read()
        except urllib.error.HTTPError as err:
            raise self._http_failure(err) from None
        except urllib.error.URLError as err:
            if isinstance(err.reason, TimeoutError):
                raise _Retryable(f"timeout ({self.timeout_s:g} s)") from None
            raise _Retryable(f"connection error ({err.reason})") from None
        except TimeoutError:
            raise _Retryable(f"timeout ({self.timeout_s:g} s)") from None
        except (OSError, http.client.HTTPException) as err:
            raise _Retryable(f"connection error ({type(err).__name__}: {err})") from None
        return _parse_response(payload)

    def _http_failure(self, err: urllib.error.HTTPError) -> Exception:
        if err.code == 429 or err.code >= 500:
            return _Retryable(f"HTTP {err.code}", _retry_after_seconds(err.headers.get("Retry-After"))
                              if err.code == 429 else None)
        try:
            detail = err.read(500).decode("utf-8", "replace").strip()
        except OSError:
            detail = ""
        return CallFailed(self.redact(f"HTTP {err.code}" + (f": {detail}" if detail else "")))


def _parse_response(payload: bytes) -> dict:
    """Garbage from a proxy or a truncated body is transient; so is a body without choices."""
    try:
        response = json.loads(payload)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise _Retryable("malformed JSON response") from None
    choices = response.get("choices") if isinstance(response, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _Retryable("response without choices")
    return response


def first_message(response: dict) -> dict:
    message = response["choices"][0].get("message")
    return message if isinstance(message, dict) else {}


def run_bounded(items, work, concurrency: int, stop: threading.Event) -> Iterator:
    """Yield `work(item, stop)` results as they complete, with at most `concurrency` calls started and
    not yet consumed (the next item starts only once a result is taken), so an interrupted run has
    paid for at most that many unrecorded calls."""
    queue = iter(items)
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        in_flight = {pool.submit(work, item, stop) for item in itertools.islice(queue, concurrency)}
        try:
            while in_flight:
                done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
                    in_flight |= {pool.submit(work, item, stop) for item in itertools.islice(queue, 1)}
        finally:
            stop.set()
            for future in in_flight:
                future.cancel()
