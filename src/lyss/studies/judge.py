"""An LLM judge: grades a translation (source, optional reference, prediction) on a 1–5 rubric over
the OpenAI chat-completions protocol, and reports a probability per grade rather than one answer.

The probabilities come from the log-probabilities of the first answer token: the judge asks for the
option token only, reads `top_logprobs` of that token, keeps the entries that are option tokens
(surrounding whitespace ignored, so "4" and " 4" both count for option 4, summed), gives options
absent from the list probability 0 and renormalises over the options (a softmax over their logprobs).
A server that returns no logprobs gets the parsed answer with probability 1. The grade is the most
probable option. How the options are shown (`render`) is a setting, because judges are known to be
sensitive to it and the probe experiments compare renderings:

    label_definition   "4. Good: Meaning fully preserved, with minor errors ..."
    definition_only    "4. Meaning fully preserved, with minor errors ..."
    label_only         "4. Good"
    letters            "D. Good: Meaning fully preserved, ..." (answer tokens A–E instead of 1–5)

Probabilities are always keyed by the rubric token ("1"…"5"), whatever the rendering, so runs with
different renderings line up. `judge_items` returns, per item and in input order,
`{"id", "grade", "probabilities", "answer", "error"}`: grade is an int (None on error),
probabilities maps each rubric token to a float (empty on error), answer is the raw message content
(None when no call succeeded) and error is None or a message free of the API key.
"""

import math
import random
import re
import string
import threading

from lyss.chat_client import (
    CONNECTION_OPTIONS,
    CallFailed,
    client_from_options,
    first_message,
    parse_options,
    run_bounded,
)
from lyss.errors import InputError

RENDERINGS = ("label_definition", "definition_only", "label_only", "letters")
DEFAULT_RUBRIC = [
    {"token": "1", "label": "Unusable", "definition": "Unrelated, untranslated or incomprehensible output."},
    {"token": "2", "label": "Poor", "definition": "Major parts of the meaning are lost, wrong or added."},
    {"token": "3", "label": "Acceptable",
     "definition": "The main meaning is preserved, but with noticeable errors or omitted details."},
    {"token": "4", "label": "Good",
     "definition": "Meaning fully preserved, with minor errors in grammar, wording or style."},
    {"token": "5", "label": "Perfect", "definition": "Conveys the full meaning correctly and fluently."},
]
SYSTEM_PROMPT = "You are an expert evaluator of translation quality."
JUDGE_OPTIONS = {
    **CONNECTION_OPTIONS,
    "render": (str, "label_definition", None),
    "rubric": (list, DEFAULT_RUBRIC, None),
    "top_logprobs": (int, 20, 1),
    "max_tokens": (int, 8, 1),
    "temperature": (float, 0.0, 0.0),
}


class Judge:
    """Parsed options, the rendered rubric and the client; one instance grades many items."""

    def __init__(self, options: dict, source: str = "judge options", prefix: str = "judge"):
        self.options = parse_options(options, JUDGE_OPTIONS, source, prefix)
        if self.options["render"] not in RENDERINGS:
            raise InputError(source, f"unknown rendering {self.options['render']!r}; known: "
                             f"{', '.join(RENDERINGS)}", field=f"{prefix}.render")
        self.rubric = _check_rubric(self.options["rubric"], source, f"{prefix}.rubric")
        self.shown = self._shown_tokens()
        self.client = client_from_options(self.options, source, prefix)

    def _shown_tokens(self) -> dict[str, str]:
        """Answer token the model sees → rubric token; letters replace the grades in `letters` mode."""
        tokens = [o["token"] for o in self.rubric]
        if self.options["render"] == "letters":
            return dict(zip(string.ascii_uppercase, tokens, strict=False))
        return {t: t for t in tokens}

    def option_lines(self) -> list[str]:
        render = self.options["render"]
        lines = []
        for shown, option in zip(self.shown, self.rubric, strict=True):
            if render == "definition_only":
                text = option["definition"]
            elif render == "label_only":
                text = option["label"]
            else:
                text = f"{option['label']}: {option['definition']}"
            lines.append(f"{shown}. {text}")
        return lines

    def prompt(self, item: dict) -> str:
        parts = ["Grade the translation below on this scale:", *self.option_lines(), "",
                 f"Source text:\n{item['source']}"]
        if item.get("reference"):
            parts.append(f"Reference translation:\n{item['reference']}")
        parts += [f"Translation to grade:\n{item['prediction']}", "",
                  f"Answer with one of {', '.join(self.shown)} and nothing else."]
        return "\n".join(parts)

    def request_body(self, item: dict) -> dict:
        options = self.options
        return {"model": options["model"], "temperature": options["temperature"],
                "max_tokens": options["max_tokens"], "logprobs": True,
                "top_logprobs": options["top_logprobs"],
                "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                             {"role": "user", "content": self.prompt(item)}]}

    def grade_all(self, items: list[dict]) -> list[dict]:
        """Results in input order, `concurrency` requests in flight."""

        def grade_at(position: int, stop: threading.Event) -> tuple[int, dict]:
            return position, self.grade(items[position], stop)

        concurrency = self.options["concurrency"]
        graded = dict(run_bounded(range(len(items)), grade_at, concurrency, threading.Event()))
        return [graded[position] for position in range(len(items))]

    def grade(self, item: dict, stop: threading.Event) -> dict:
        result = {"id": item["id"], "grade": None, "probabilities": {}, "answer": None, "error": None}
        if item.get("prediction") is None:
            result["error"] = "no prediction to grade"
            return result
        rng = random.Random(f"judge:{item['id']}")
        try:
            response = self.client.complete(self.request_body(item), rng, stop)
        except CallFailed as err:
            result["error"] = str(err)
            return result
        message = first_message(response)
        result["answer"] = message.get("content") if isinstance(message.get("content"), str) else None
        try:
            probabilities = self.probabilities(response["choices"][0], result["answer"])
        except ValueError as err:
            result["error"] = str(err)
            return result
        result["probabilities"] = probabilities
        result["grade"] = int(max(probabilities, key=probabilities.get))
        return result

    def probabilities(self, choice: dict, answer: str | None) -> dict[str, float]:
        """Per rubric token, from the first answer token's top logprobs, else from the parsed answer."""
        top = _first_token_top_logprobs(choice)
        if top is None:
            picked = self._parse_answer(answer)
            return {token: float(token == picked) for token in self.shown.values()}
        mass = dict.fromkeys(self.shown.values(), 0.0)
        for entry in top:
            token = self.shown.get(str(entry.get("token", "")).strip())
            logprob = entry.get("logprob")
            if token is not None and isinstance(logprob, (int, float)) and math.isfinite(logprob):
                mass[token] += math.exp(logprob)
        total = sum(mass.values())
        if total <= 0:
            tokens = [str(e.get("token", "")) for e in top[:5]]
            raise ValueError(f"no option among the top logprobs of the first answer token (top: {tokens})")
        return {token: value / total for token, value in mass.items()}

    def _parse_answer(self, answer: str | None) -> str:
        match = re.match(r"\W*(\w+)", answer or "")
        shown = match.group(1) if match else ""
        if shown not in self.shown:
            raise ValueError(f"answer {answer!r} is not one of {', '.join(self.shown)} (and no logprobs)")
        return self.shown[shown]


def _first_token_top_logprobs(choice: dict) -> list[dict] | None:
    """`choices[0].logprobs.content[0].top_logprobs`, or None when the server sent no logprobs."""
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        return None
    top = content[0].get("top_logprobs")
    return [entry for entry in top if isinstance(entry, dict)] if isinstance(top, list) and top else None


def _check_rubric(rubric: list, source: str, field: str) -> list[dict]:
    """Distinct non-negative integer tokens, so the grade is a number and one token is one answer."""
    if not 2 <= len(rubric) <= len(string.ascii_uppercase):
        raise InputError(source, f"expected 2 to 26 options, got {len(rubric)}", field=field)
    for option in rubric:
        if not isinstance(option, dict) or not {"token", "label", "definition"} <= option.keys():
            raise InputError(source, "each option needs 'token', 'label' and 'definition'", field=field)
        if not re.fullmatch(r"\d+", str(option["token"])):
            raise InputError(source, f"option token {option['token']!r} is not an integer grade", field=field)
    tokens = [str(o["token"]) for o in rubric]
    if len(set(tokens)) != len(tokens):
        raise InputError(source, f"option tokens repeat: {tokens}", field=field)
    return [{"token": str(o["token"]), "label": str(o["label"]), "definition": str(o["definition"])}
            for o in rubric]


def judge_items(items: list[dict], options: dict) -> list[dict]:
    """Grade `items` ({id, source, prediction, reference?}); results in input order, one per item."""
    return Judge(options).grade_all(items)
