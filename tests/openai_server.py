"""A local server speaking the OpenAI chat-completions protocol, so the client, its retries and the
judge are tested against real HTTP without a network or a paid API.

`serve(script)` runs a ThreadingHTTPServer on 127.0.0.1 (free port) in a background thread and yields
a `Server` whose `base_url` ends in `/v1` and whose `requests` list records every request (path,
headers, parsed body). Answers are deterministic:

* content: the translation of the first `Script.translations` key found in the last user message,
  else the argmax token of the first matching `Script.distributions` entry, else `ECHO: <message>`;
* usage: whitespace tokens of all messages (prompt) and of the answer (completion, plus
  `Script.reasoning_tokens`); the token-details objects are sent only when their counts are non-zero;
* `logprobs: true, top_logprobs: k`: the first answer token gets the k most probable tokens of the
  matching distribution ({token: probability}, sent as natural logs), unless `Script.logprobs` is off;
* faults: `Script.faults_at` maps a 1-based request number, and `Script.faults` a text found in the
  last user message, to a fault name or a list consumed one per matching request ("ok" = no fault):
  "429" (with `Script.retry_after`), "500", "400" (echoing the Authorization header), "sleep"
  (`Script.sleep_s` before answering), "garbage" (200 with a non-JSON body), "no_choices" (200
  without choices), "null_content".
"""

import json
import math
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Script:
    translations: dict[str, str] = field(default_factory=dict)
    distributions: dict[str, dict[str, float]] = field(default_factory=dict)
    faults_at: dict[int, str] = field(default_factory=dict)
    faults: dict[str, str | list[str]] = field(default_factory=dict)
    retry_after: str = "0"
    sleep_s: float = 1.0
    # "sleep" requests wait until this many are in flight at once (or 10 s): proves concurrency
    # without measuring time.
    hold_until_in_flight: int | None = None
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    logprobs: bool = True  # False: ignore `logprobs` requests, like servers without support


@dataclass
class Server:
    base_url: str
    script: Script
    requests: list[dict] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    in_flight: int = 0
    max_in_flight: int = 0
    gate: threading.Event = field(default_factory=threading.Event)

    def enter(self) -> None:
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if self.in_flight >= (self.script.hold_until_in_flight or 0):
                self.gate.set()

    def leave(self) -> None:
        with self.lock:
            self.in_flight -= 1

    def record(self, path: str, headers: dict, body) -> int:
        with self.lock:
            self.requests.append({"path": path, "headers": headers, "body": body})
            return len(self.requests)

    def fault_for(self, number: int, prompt: str) -> str | None:
        """Request-number faults win over text faults; list faults are consumed in order."""
        if number in self.script.faults_at:
            return self.script.faults_at[number]
        with self.lock:
            for text, fault in self.script.faults.items():
                if text in prompt:
                    if isinstance(fault, list):
                        return fault.pop(0) if fault else None
                    return fault
        return None


def _last_user_message(body: dict) -> str:
    users = [m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"]
    return users[-1] if users else ""


def _first_match(mapping: dict, prompt: str):
    """The value of the longest key contained in the prompt, so 'a cat' beats 'cat'."""
    keys = sorted((k for k in mapping if k in prompt), key=len, reverse=True)
    return mapping[keys[0]] if keys else None


def _top_logprobs(distribution: dict[str, float], k: int) -> list[dict]:
    ranked = sorted(distribution.items(), key=lambda item: item[1], reverse=True)[:k]
    return [{"token": token, "logprob": math.log(p), "bytes": list(token.encode())} for token, p in ranked]


def completion(script: Script, body: dict) -> dict:
    prompt = _last_user_message(body)
    distribution = _first_match(script.distributions, prompt)
    answer = _first_match(script.translations, prompt)
    if answer is None:
        answer = max(distribution, key=distribution.get) if distribution else f"ECHO: {prompt}"
    prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    usage = {"prompt_tokens": prompt_tokens,
             "completion_tokens": len(answer.split()) + script.reasoning_tokens}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    if script.reasoning_tokens:
        usage["completion_tokens_details"] = {"reasoning_tokens": script.reasoning_tokens}
    if script.cached_tokens:
        usage["prompt_tokens_details"] = {"cached_tokens": script.cached_tokens}
    choice = {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}
    if body.get("logprobs") and script.logprobs:
        first = answer.split()[0] if answer.split() else answer
        top = _top_logprobs(distribution, int(body.get("top_logprobs") or 0)) if distribution else []
        logprob = math.log(distribution[first]) if distribution and first in distribution else 0.0
        choice["logprobs"] = {"content": [{"token": first, "logprob": logprob, "top_logprobs": top}]}
    return {"id": "chatcmpl-local", "object": "chat.completion", "model": body.get("model"),
            "choices": [choice], "usage": usage}


def _handler(server: Server):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep pytest output clean
            pass

        def _send(self, status: int, payload: bytes, headers: dict | None = None) -> None:
            self.send_response(status)
            for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            try:
                body = json.loads(raw)
            except json.JSONDecodeError:
                body = None
            number = server.record(self.path, dict(self.headers.items()), body)
            if self.path != "/v1/chat/completions" or not isinstance(body, dict):
                self._send(404 if isinstance(body, dict) else 400, b'{"error": {"message": "bad request"}}')
                return
            fault = server.fault_for(number, _last_user_message(body))
            try:
                self._answer(fault, body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and left

        def _answer(self, fault: str | None, body: dict) -> None:
            if fault == "429":
                retry = {"Retry-After": server.script.retry_after}
                self._send(429, b'{"error": {"message": "rate limited"}}', retry)
            elif fault == "500":
                self._send(500, b'{"error": {"message": "scripted 500"}}')
            elif fault == "400":  # echoes the key like some real APIs do, to test redaction
                message = f"Incorrect API key provided: {self.headers.get('Authorization', '')}"
                self._send(400, json.dumps({"error": {"message": message}}).encode())
            elif fault == "garbage":
                self._send(200, b"<html>upstream proxy error</html>", {"Content-Type": "text/html"})
            elif fault == "no_choices":
                self._send(200, b'{"object": "chat.completion", "choices": []}')
            elif fault == "null_content":
                choice = {"index": 0, "message": {"role": "assistant", "content": None}}
                self._send(200, json.dumps({"choices": [{**choice, "finish_reason": "length"}]}).encode())
            else:
                if fault == "sleep":
                    server.enter()
                    try:
                        server.gate.wait(10.0)
                        if server.stopping.wait(server.script.sleep_s):
                            return
                    finally:
                        server.leave()
                self._send(200, json.dumps(completion(server.script, body)).encode())

    return Handler


@contextmanager
def serve(script: Script | None = None):
    """Run the server for the duration of the block; yields the `Server` (base_url, requests)."""
    state = Server("", script or Script())
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stopping.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join()
