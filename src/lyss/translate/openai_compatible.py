"""`openai_compatible`: any server speaking the OpenAI chat-completions protocol (OpenAI, vLLM,
llama.cpp, Ollama, LiteLLM, ...), one request per entry, `concurrency` requests in flight.

The requests go through lyss.chat_client (retries with backoff, the API key from the environment only and
scrubbed from every message); an entry that still fails becomes a record with `error` set instead of
aborting the corpus, and the runner redoes it on the next run.
"""

import random
import string
import threading
import time
from collections.abc import Iterator

from lyss.chat_client import (
    CONNECTION_OPTIONS,
    CallFailed,
    client_from_options,
    first_message,
    parse_options,
    run_bounded,
)
from lyss.errors import InputError
from lyss.translate.base import MethodContext, TranslationRecord

COMMON_OPTIONS = frozenset({"kind", "postprocess"})  # read by the pipeline, not by the method
PROMPT_FIELDS = frozenset({"source", "source_lang", "target_lang", "glossary"})
DEFAULT_PROMPT_TEMPLATE = (
    "Translate the text below from {source_lang} to {target_lang}. Use the term translations listed, "
    "if any. Reply with the translation only.\n{glossary}\nText:\n{source}"
)

TRANSLATION_OPTIONS = {
    **CONNECTION_OPTIONS,
    "system_prompt": (str, None, None),
    "prompt_template": (str, DEFAULT_PROMPT_TEMPLATE, None),
    "glossary_coaching": (bool, False, None),
    "temperature": (float, 0.0, 0.0),
    "max_tokens": (int, None, 1),
}


def _count(details, key: str) -> int:
    value = details.get(key) if isinstance(details, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage_counts(response: dict) -> dict:
    """Token counts, 0 where the server does not report them (many local servers omit the details)."""
    usage = response.get("usage") if isinstance(response.get("usage"), dict) else {}
    return {
        "prompt_tokens": _count(usage, "prompt_tokens"),
        "completion_tokens": _count(usage, "completion_tokens"),
        "reasoning_tokens": _count(usage.get("completion_tokens_details"), "reasoning_tokens"),
        "cached_tokens": _count(usage.get("prompt_tokens_details"), "cached_tokens"),
    }


def cost_usd(counts: dict, price: dict | None) -> float:
    """Cached prompt tokens are billed at the cached rate (the input rate when none is given)."""
    if not price:
        return 0.0
    cached = min(counts["cached_tokens"], counts["prompt_tokens"])
    input_rate = float(price.get("input_per_1m", 0.0))
    cached_rate = float(price.get("cached_per_1m", input_rate))
    total = ((counts["prompt_tokens"] - cached) * input_rate + cached * cached_rate
             + counts["completion_tokens"] * float(price.get("output_per_1m", 0.0)))
    return total / 1_000_000


def _check_template(template: str, source: str, field: str) -> None:
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError as err:
        raise InputError(source, f"malformed format string ({err})", field=field) from None
    unknown = names - PROMPT_FIELDS
    if unknown:
        raise InputError(source, f"unknown placeholder {{{sorted(unknown)[0]}}}; known: "
                         f"{', '.join('{' + f + '}' for f in sorted(PROMPT_FIELDS))}", field=field)
    if "source" not in names:
        raise InputError(source, "the template must contain {source}", field=field)


class OpenAICompatible:
    """Translates each entry with one chat completion; see the module docstring for failure handling.
    Every answer is paid for, so the runner keeps its records after a complete run (`keeps_records`)."""

    keeps_records = True
    # How requests are sent, not what is answered: changing these reuses the stored records.
    DELIVERY_OPTIONS = frozenset({"api_key_env", "api_key_required", "timeout_s", "max_retries", "backoff_s",
                                  "concurrency"})

    def __init__(self, context: MethodContext):
        self.context = context
        prefix = f"methods.{context.name}"
        self.options = parse_options(context.options, TRANSLATION_OPTIONS, context.source, prefix,
                                     ignored=COMMON_OPTIONS)
        _check_template(self.options["prompt_template"], context.source, f"{prefix}.prompt_template")
        self.client = client_from_options(self.options, context.source, prefix)
        self.price = (context.prices or {}).get(self.options["model"])
        self.cost_known = self.price is not None

    def record_settings(self) -> dict:
        """What the stored records depend on (lyss.translate.runner): the options that shape an answer."""
        return {k: v for k, v in self.options.items() if k not in self.DELIVERY_OPTIONS}

    def prompt(self, entry: dict) -> str:
        terms = (entry.get("glossary") or []) if self.options["glossary_coaching"] else []
        glossary = "\n".join(f"- {t['source']} → {t['target']}" for t in terms)
        return self.options["prompt_template"].format(source=entry["source"], glossary=glossary,
                                                      source_lang=self.context.source_lang,
                                                      target_lang=self.context.target_lang)

    def request_body(self, entry: dict) -> dict:
        messages = [{"role": "user", "content": self.prompt(entry)}]
        if self.options["system_prompt"]:
            messages.insert(0, {"role": "system", "content": self.options["system_prompt"]})
        options = self.options
        body = {"model": options["model"], "messages": messages, "temperature": options["temperature"]}
        if options["max_tokens"] is not None:
            body["max_tokens"] = options["max_tokens"]
        return body

    def translate(self, entries: list[dict]) -> Iterator[TranslationRecord]:
        return run_bounded(entries, self._translate_one, self.options["concurrency"], threading.Event())

    def _translate_one(self, entry: dict, stop: threading.Event) -> TranslationRecord:
        # jitter seeded per entry: reproducible whatever order the threads run in
        rng = random.Random(f"{self.context.name}:{entry['id']}")
        started = time.perf_counter()
        try:
            response = self.client.complete(self.request_body(entry), rng, stop)
        except CallFailed as err:
            return TranslationRecord(entry["id"], None, None, latency_s=time.perf_counter() - started,
                                     error=str(err))
        latency = time.perf_counter() - started
        counts = usage_counts(response)
        content = first_message(response).get("content")
        error = None
        if isinstance(content, str):
            content = content.strip()
        else:
            finish = response["choices"][0].get("finish_reason")
            content, error = None, f"response has no message content (finish_reason={finish})"
        return TranslationRecord(entry["id"], content, content, latency_s=latency, error=error,
                                 cost_usd=cost_usd(counts, self.price), **counts)
