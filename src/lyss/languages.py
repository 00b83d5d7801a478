"""Language cards: the card of every language, derived from CLDR and completed by
`data/languages/<iso639-3>.yaml`; JSON-Schema validation; the COMET model a language calls for; and the
language-specific metric plugins a card declares.

A card says what the harness knows about a language: script, casing, quotes, word tokenisation, FST
analyzer, orthography rules, language-specific metric plugins (`evalMetrics`), which COMET model suits
it (`metricModelSupport`). Facts that the Unicode CLDR records for a language (its script, quotation
marks, hence whether it is cased) are derived for every language CLDR knows (`derive_card`), so a
language without a card file is not scored as if it had no script. A card file only adds what CLDR
lacks (analyzers, orthography rules, plugins) and is merged over the derived card. Every card carries
its `provenance` (`card_provenance`): "file", "derived from CLDR" or "none", so that a score can say
which facts it stood on. Adding a language, or a language→model mapping, is editing data, not code.
"""

import copy
import functools
import importlib
import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

import jsonschema
import pycountry
import regex
import yaml

from lyss.errors import InputError
from lyss.fastyaml import safe_load
from lyss.settings import default_of

# ISO 639-3 "undetermined": the languages of `lyss score` run without -l, as sacrebleu runs (its metrics only)
UNDETERMINED = "und"
FROM_FILE = "file"
FROM_CLDR = "derived from CLDR"
FROM_NOTHING = "none"
CLDR_FIELDS = ("name", "scripts", "caseless", "quotes")
# CLDR's script subtags that are not Unicode script properties: the scripts their text is written in.
COMPOSITE_SCRIPTS = {"Jpan": ["Hani", "Hira", "Kana"], "Kore": ["Hang", "Hani"], "Hans": ["Hani"],
                     "Hant": ["Hani"], "Hanb": ["Hani", "Bopo"]}


def card_schema() -> dict:
    return json.loads(resources.files("lyss.schemas").joinpath("language_card.schema.json").read_text())


def load_card(path) -> dict:
    """A card file, validated, merged over the CLDR card of its language (`with_cldr_facts`).

    Remembered per process by path and content: the workflow's start-up reads every card three times (the
    settings check, the input check, the GPU-job question), each time parsing ~70 YAML files. A copy is
    returned, so a caller that changes its card changes nobody else's."""
    path = Path(path)
    text = path.read_bytes()
    return copy.deepcopy(_loaded_card(str(path), text))


@functools.lru_cache(maxsize=1024)
def _loaded_card(path: str, text: bytes) -> dict:
    return with_cldr_facts(read_card_file(Path(path), text), Path(path))


def read_card_file(path: Path, text: bytes | None = None) -> dict:
    """A card file as written (`text`: its bytes, when already read), validated against the schema;
    InputError naming file, line and field."""
    try:
        card = safe_load(path.read_text(encoding="utf-8") if text is None else text.decode("utf-8"))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise InputError(path, f"malformed YAML ({getattr(err, 'problem', err)})",
                         line=mark.line + 1 if mark else None) from None
    validator = jsonschema.Draft202012Validator(card_schema())
    errors = sorted(validator.iter_errors(card), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        raise InputError(path, first.message, field=".".join(str(p) for p in first.path) or None)
    if card["code"] != path.stem:
        raise InputError(path, f"code {card['code']!r} does not match the file name", field="code")
    return card


def load_cards(directory) -> "LanguageCards":
    """The card files of `directory`, each merged over its CLDR card when first asked for; any other ISO 639-3
    code asked for with `cards[code]` or `cards.get(code)` gets its derived card (see `LanguageCards`)."""
    return LanguageCards(Path(directory))


class LanguageCards(Mapping):
    """Card files by code (iteration, `in` and `len` see the files only); a code without a file is answered
    with its derived card, never with an empty one, so no caller scores a language blind. A file is read and
    checked when its card is first asked for: a Snakemake start needs the few cards its datasets name, and
    reading all 71 shipped ones (YAML, schema, CLDR facts) was 0.2 s of it."""

    def __init__(self, directory: Path):
        self.directory = directory
        self._files = {p.stem: p for p in sorted(directory.glob("*.yaml"))}

    def __getitem__(self, code: str) -> dict:
        path = self._files.get(code)
        return load_card(path) if path else derived_card(code, self.directory / f"{code}.yaml")

    def __iter__(self):
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    def __contains__(self, code) -> bool:
        return code in self._files

    def get(self, code, default=None):
        if code is None:
            return default
        return self[code]


def card_for(code: str, directory=None) -> dict:
    """The card of one language: its file merged over the CLDR card, or the CLDR card alone. `directory`:
    the card folder (None: params.yaml's default `languages_dir`)."""
    path = Path(directory or default_of("languages_dir")) / f"{code}.yaml"
    return load_card(path) if path.exists() else derived_card(code, path)


def card_provenance(card: dict | None) -> dict:
    """Where a card's facts come from: {"card": "file" | "derived from CLDR" | "none", "file": path or
    None, "cldr": CLDR locale or None, "note": one sentence}. A card built in code (tests, plugins)
    has no `provenance`: it counts as a card file when it has a code, as no card when it is empty."""
    card = card or {}
    if "provenance" in card:
        return dict(card["provenance"])
    if card.get("code"):
        return {"card": FROM_FILE, "file": None, "cldr": None, "note": f"card {card['code']!r} given in code"}
    return {"card": FROM_NOTHING, "file": None, "cldr": None, "note": "no language card given"}


def provenance_warning(code: str, card: dict) -> str | None:
    """One line for `lyss score` warnings and logs when a language has no card file, else None (also for the
    undetermined language, which has none to miss)."""
    where = card_provenance(card)
    if where["card"] == FROM_FILE or code == UNDETERMINED:
        return None
    return f"language {code!r}: {where['note']}"


def missing_fact_reason(card: dict | None, field: str, code: str | None = None) -> str:
    """Why a metric that needs the card's `field` cannot run, telling a missing card file, a language
    CLDR does not know, and a card file without the field apart."""
    card = card or {}
    code = card.get("code") or code or "?"
    where = card_provenance(card)
    if where["card"] == FROM_FILE:
        return f"language card {where['file'] or repr(code)} declares no {field}"
    if where["card"] == FROM_CLDR:
        return (f"language {code!r} has no card file ({where['file']}); its card is derived from CLDR, "
                f"which has no {field}")
    if where["file"]:
        return (f"language {code!r} has no card file ({where['file']}) and CLDR does not know it; "
                f"no {field}")
    return f"no language card was given for {code!r}; no {field}"


def with_cldr_facts(card: dict, path: Path) -> dict:
    """A validated card file merged over its CLDR card: the file's keys win, CLDR fills the rest."""
    derived = derived_card(card["code"], path)
    filled = [k for k in CLDR_FIELDS if k in derived and k not in card]
    merged = {**{k: v for k, v in derived.items() if k != "provenance"}, **card}
    note = f"card file {path}" + (f", with {', '.join(filled)} from CLDR" if filled else "")
    merged["provenance"] = {"card": FROM_FILE, "file": str(path),
                            "cldr": derived["provenance"]["cldr"], "note": note}
    return merged


def derived_card(code: str, path: Path | None = None) -> dict:
    """The card of a language without a card file: CLDR's facts, or a card that says CLDR has none."""
    card = copy.deepcopy(_cldr_card(code))
    where = str(path) if path else None
    if card["provenance"]["cldr"]:
        note = f"no card file {where}; card derived from CLDR locale {card['provenance']['cldr']!r}"
    else:
        note = (f"no card file {where} and CLDR does not know {code!r}: script, casing and quotation marks "
                "are unknown")
    card["provenance"].update(file=where, note=note)
    return card


def cldr_locale(code: str) -> str | None:
    """The CLDR language code of an ISO 639-3 code (deu → de, sme → se, arb → ar, crk → crk), or None
    when CLDR has no data for it. CLDR's own alias table maps 639-3 and 639-2/B codes."""
    from babel.core import get_global

    likely = get_global("likely_subtags")
    alias = get_global("language_aliases").get(code)
    alpha_2 = getattr(pycountry.languages.get(alpha_3=code), "alpha_2", None)
    for candidate in (alias, code, alpha_2):
        if candidate and candidate in likely:
            return candidate
    return None


@functools.lru_cache(maxsize=512)
def _cldr_card(code: str) -> dict:
    locale = cldr_locale(code)
    language = pycountry.languages.get(alpha_3=code)
    if locale is None:
        name = getattr(language, "name", code)
        return {"code": code, "name": name,
                "provenance": {"card": FROM_NOTHING, "cldr": None}}
    from babel import Locale
    from babel.core import get_cldr_version, get_global

    script = get_global("likely_subtags")[locale].split("_")[1]
    scripts = COMPOSITE_SCRIPTS.get(script, [script])
    card = {"code": code, "name": Locale("en").languages.get(locale) or getattr(language, "name", code),
            "scripts": scripts, "caseless": not any(_script_is_cased(s) for s in scripts)}
    quotes = _cldr_quotes(locale)
    if quotes:
        card["quotes"] = quotes
    source = f"CLDR {get_cldr_version()} via Babel" + ("; quotation marks via ICU" if quotes else "")
    card["provenance"] = {"card": FROM_CLDR, "cldr": f"{locale} ({source})"}
    return card


@functools.lru_cache(maxsize=64)
def _script_is_cased(script: str) -> bool:
    """Whether the Unicode script has upper-case letters (Latin, Cyrillic, Greek…: yes; Ethiopic, Arabic,
    Han…: no)."""
    return bool(regex.search(rf"[\p{{sc={script}}}&&\p{{Lu}}]", _upper_case_letters(), flags=regex.V1))


@functools.lru_cache(maxsize=1)
def _upper_case_letters() -> str:
    return "".join(c for c in map(chr, range(0x30000)) if c.isupper())


@functools.lru_cache(maxsize=1)
def _icu_locales() -> frozenset:
    """ICU's locales, asked once per process (each card asked it again: 70 calls at every workflow start)."""
    import icu

    return frozenset(icu.Locale.getAvailableLocales())


def _cldr_quotes(locale: str) -> dict | None:
    """CLDR's quotation delimiters of a locale (ICU's copy of CLDR), or None when CLDR has no locale
    data for the language (only its likely script): then the card says nothing about quotes."""
    import icu

    if locale not in _icu_locales():
        return None
    data = icu.LocaleData(locale)
    kind = icu.ULocaleDataDelimiterType
    primary = [data.getDelimiter(kind.QUOTATION_START), data.getDelimiter(kind.QUOTATION_END)]
    secondary = [data.getDelimiter(kind.ALT_QUOTATION_START), data.getDelimiter(kind.ALT_QUOTATION_END)]
    return {"primary": primary, "secondary": secondary}


def resolve_code(code: str, directory=None) -> str:
    """The card code (ISO 639-3) of a language code as users type it: a code with a card file in
    `directory` or an ISO 639-3 code as it is, an ISO 639-1 code (`es`, sacrebleu's `-l en-es`) or an
    ISO 639-2/B code (`ger`) as its ISO 639-3 code, so that `es` gets the shipped Spanish card and its
    analyzer exactly as `spa` does. Anything else is an InputError: a misspelt code must not be scored
    as a language nobody knows."""
    directory = Path(directory or default_of("languages_dir"))
    typed = code.strip()
    lowered = typed.lower()
    if (directory / f"{typed}.yaml").exists():
        return typed
    if pycountry.languages.get(alpha_3=lowered) is not None:
        return lowered
    by_other = (pycountry.languages.get(alpha_2=lowered) if len(lowered) == 2
                else pycountry.languages.get(bibliographic=lowered))
    if by_other is not None:
        return by_other.alpha_3
    raise InputError("--lang-pair", f"unknown language code {code!r}: not an ISO 639-1 or ISO 639-3 code and "
                                    f"no card file {directory / (typed + '.yaml')}")


def is_known_language(code: str, cards: Mapping) -> bool:
    """A code is known when it has a card file or is a valid ISO 639-3 code."""
    return code in cards or pycountry.languages.get(alpha_3=code) is not None


DEFAULT_COMET_MODEL = "Unbabel/wmt22-comet-da"


def resolve_comet_model(card: dict | None, override: str | None = None) -> str:
    """The COMET model for a target language (spec §2.3): an explicit override (params.yaml
    the COMET metric's `model` option or `--comet-model`) wins, then the card's
    `metricModelSupport.comet` (e.g. AfriCOMET for the African languages), then the default."""
    if override:
        return override
    return ((card or {}).get("metricModelSupport") or {}).get("comet") or DEFAULT_COMET_MODEL


def language_plugin(card: dict | None, metric_id: str):
    """An instance of the plugin the card declares for `metric_id` under `evalMetrics`, or None.

    A declared plugin that cannot be loaded is a hard error naming the card and the module: silently
    falling back to the generic metric would score the language by other rules than its card says.
    """
    card = card or {}
    declared = [p for p in card.get("evalMetrics", []) if p["metric"] == metric_id]
    if not declared:
        return None
    spec = declared[0]
    where = f"language card {card.get('code', '?')!r}"
    try:
        plugin = getattr(importlib.import_module(spec["module"]), spec["class"])()
    except Exception as err:  # any import or constructor failure is reported the same way
        problem = (f"cannot load plugin {spec['class']!r} from module {spec['module']!r} for metric "
                   f"{metric_id!r}: {type(err).__name__}: {err}")
        raise InputError(where, problem, field="evalMetrics") from err
    if getattr(plugin, "id", None) != metric_id or not callable(getattr(plugin, "score", None)):
        problem = f"plugin {spec['module']}.{spec['class']} is not a metric with id {metric_id!r}"
        raise InputError(where, problem, field="evalMetrics")
    return plugin
