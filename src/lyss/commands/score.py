"""`lyss score`: the §9 scores block for plain text files (one segment per line), outside the pipeline,
the way `sacrebleu` scores files: several references (`-r A B`), several systems (`-i a b`: a table),
sentence-level values (`-sl`), `--tokenize`, `--confidence` for every metric that can be resampled,
`--format text|json|tsv`, and a signature for every metric and the composite.

Each system's lines become a run card by the pipeline's own builder (lyss.aggregate.card.build_card: oracle,
profile, coverage, caveats, composite, intervals) on the same per-entry rows; only the input differs (line
numbers as entry ids, one record per line and no time, hence no speed or cost).
The scoring helpers here are shared with `lyss compare`; the output is lyss.commands.score_report.
"""

import argparse
import dataclasses
import functools
import hashlib
import json
import sys
from pathlib import Path
from types import MappingProxyType

import numpy as np

from lyss.aggregate.card import CardInput, Dataset, Method, Translation, build_card, plain
from lyss.aggregate.caveats import skipped_caveats
from lyss.aggregate.composite import applied_weights, select_profile, weight_share
from lyss.aggregate.fingerprint import code_version
from lyss.argtypes import positive_int
from lyss.commands.plain_files import Notes, language_cards, load_settings, read_parallel, system_names
from lyss.commands.score_beside import ScoredBeside
from lyss.commands.score_options import Once, add_common_arguments, metric_names, output_format
from lyss.commands.score_report import null_reason, render, score_value, scores_only
from lyss.cpu import cores
from lyss.embed.embedders import Embeddings, uses_shared
from lyss.errors import InputError
from lyss.evidence.composite_entries import entry_composite
from lyss.languages import UNDETERMINED, card_provenance
from lyss.metrics import REGISTRY, MetricResult, ScoringInput, declaration, resolve_metric
from lyss.settings import Settings
from lyss.text import has_content

# Caveats that compare an output with its source: without --source they are not checked, and say so.
SOURCE_CAVEATS = ("source_copy", "misaligned_output")
# the pair of a run without -l (sacrebleu's metrics only: `language_pair`)
NO_LANGUAGES = f"{UNDETERMINED}-{UNDETERMINED}"


def model_free_metrics() -> list[str]:
    """Registered metrics that need no model download (a plugin says so with `requires_model = True`)."""
    return [m for m in REGISTRY if not declaration(m, "requires_model")]


def models_given(args: argparse.Namespace) -> list[str]:
    """The metrics that need a model the user provides and were given one on the command line
    (`--comet-model`): scored with the defaults, since naming the model asks for them."""
    return [m for m in REGISTRY if declaration(m, "requires_model")
            and any(getattr(args, flag, None) for flag in declaration(m, "cli_options"))]


def reads_source(metric: str) -> bool:
    return declaration(metric, "reads_source")


def choose_metrics(given: list[str] | None, has_source: bool,
                   with_model: list[str] = ()) -> tuple[list[str], list[str]]:
    """(the metrics to score, the defaults left out for want of a source). The metrics are those `-m` names, or
    every model-free one and those `with_model` (given their model on the command line); without --source, a
    metric that reads the source is an error when named and left out when it is only a default: the caller
    warns about those (`warn_without_source`) once the files have been read, so that an unreadable file is the
    one line printed. A model given for a metric `-m` leaves out is an error, not ignored."""
    unasked = [m for m in with_model if given is not None and m not in given]
    if unasked:
        raise InputError("--metrics", f"a model was given for {', '.join(unasked)}, which -m leaves out: add it "
                                      "to -m or drop the model option")
    if given is not None:
        needing = [m for m in given if reads_source(m)]
        if needing and not has_source:
            free = ", ".join(m for m in REGISTRY if not reads_source(m))
            raise InputError("--source", f"{', '.join(needing)} read the source: give -s SRC, or choose metrics "
                                         f"that do not ({free})")
        return given, []
    metrics = model_free_metrics() + list(with_model)
    if has_source:
        return metrics, []
    return [m for m in metrics if not reads_source(m)], [m for m in metrics if reads_source(m)]


def language_pair(given: str | None, metrics: list[str], defaults: bool) -> str:
    """`-l` as given, or, when it is not and no metric to score needs the languages (sacrebleu's: BLEU, chrF++,
    TER, and exact match and length ratio), `und-und` (ISO 639-3 "undetermined"), as sacrebleu scores without
    `-l`; else the error that names the metrics needing it (`defaults`: they were not asked for by name)."""
    if given is not None:
        return given
    needing = [m for m in metrics if declaration(m, "reads_language")]
    if needing:
        free = ", ".join(m for m in REGISTRY if not declaration(m, "reads_language"))
        which = "the default metrics" if defaults else ", ".join(needing)
        raise InputError("--lang-pair", f"{which} need the languages: give -l SRC-TGT (e.g. en-de), or choose "
                                        f"with -m metrics that do not ({free})")
    return NO_LANGUAGES


def warn_unsegmented_script(notes: Notes, pair: str, metrics: list[str], options: dict, references: list[str]) -> None:
    """Without -l, BLEU tokenizes with 13a, as sacrebleu does, and 13a reads a line of Chinese or Japanese as one
    word (it splits at spaces and punctuation); sacrebleu picks zh, ja-mecab or ko-mecab only when -l names the
    target. Where most of the references' letters are Han, kana or Hangul and no tokenizer was chosen, a warning
    says so rather than a BLEU nobody meant passing unremarked."""
    tokenized = [m for m in metrics if "tokenize" in declaration(m, "options_schema")]
    if pair != NO_LANGUAGES or not tokenized or any(
            (options.get(m) or {}).get("tokenize") for m in tokenized):
        return
    import regex

    text = "".join(references)
    letters = len(regex.findall(r"\p{L}", text))
    unsegmented = len(regex.findall(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]", text))
    if letters and unsegmented > letters / 2:
        notes.warn(f"no -l: {', '.join(tokenized)} tokenized with 13a as sacrebleu does, but "
                   f"{unsegmented / letters:.0%} of the references' letters are Chinese, Japanese or Korean, for which "
                   f"sacrebleu uses zh, ja-mecab or ko-mecab given the target: give -l SRC-TGT (e.g. en-zh) or "
                   f"--tokenize")


def warn_without_source(notes: Notes, left_out: list[str]) -> None:
    """The warning for the default metrics `choose_metrics` left out because no --source was given."""
    if left_out:
        notes.warn(f"no --source: scoring only the metrics that declare they do not read it; not scored: "
                   f"{', '.join(left_out)}")


def scoring_input(source: list[str] | None, references: list[list[str]], hypothesis: list[str],
                  languages: tuple) -> ScoringInput:
    """Entries with line numbers as ids; every line has an output (an empty line scores as empty). With
    several reference files each entry carries all of them under `references` (the first is `reference`);
    without a source file the source is empty (no metric that reads it runs)."""
    src_lang, tgt_lang, src_card, tgt_card = languages
    source = source if source is not None else [""] * len(hypothesis)
    entries = []
    for i, (s, *refs) in enumerate(zip(source, *references, strict=True), start=1):
        entry = {"id": str(i), "source": s, "reference": refs[0]}
        if len(refs) > 1:
            entry["references"] = refs
        entries.append(entry)
    return ScoringInput(entries=entries, predictions=list(hypothesis), raw_predictions=list(hypothesis),
                        source_lang=src_lang, target_lang=tgt_lang, source_card=src_card,
                        target_card=tgt_card)


def needs_embeddings(metrics: list[str]) -> bool:
    """Whether a requested metric reads sentence vectors (its class says `needs_embeddings = True`)."""
    return any(declaration(m, "needs_embeddings") for m in metrics)


def shared_embeddings(settings: dict, wanted: bool) -> Embeddings | None:
    """One in-memory vector table for every metric, caveat and system of the run (each text embedded once, as
    the pipeline's cached files do), or None when nothing asked for embeddings or no backend loads (the
    metrics then report themselves unavailable)."""
    if not wanted:
        return None
    embeddings = Embeddings((settings.get("embeddings") or {}).get("backend"))
    try:
        embeddings.require()  # a missing backend makes the metrics say so, not crash; no model loads yet
    except ImportError:
        return None
    return embeddings


def one_pass_texts(embeddings: Embeddings | None, base: ScoringInput, hypotheses: list[list[str]],
                   metrics: list[str], options: dict, misaligned_check: bool) -> list[str]:
    """Every source, reference and output (and what a metric embeds besides, its `extra_texts`), to be embedded
    in one call before any metric asks, when the shared table will be asked for all of them (by the
    misaligned_output caveat, or by a metric that embeds with the table's model); else none. One sorted set of
    texts makes fuller batches than the oracle's and each system's texts apart, and one progress line; the
    metrics then find their vectors in the table."""
    readers = [m for m in metrics if declaration(m, "needs_embeddings")
               and uses_shared((options.get(m) or {}).get("embedder"), embeddings)]
    if embeddings is None or not (readers or misaligned_check):
        return []
    sources = [e["source"] for e in base.entries]
    texts = [t for t in (*sources, *base.references, *(t for h in hypotheses for t in h)) if has_content(t)]
    for metric in readers:  # and what a metric embeds besides (e.g. the sentences of the texts)
        extra = declaration(metric, "extra_texts")
        texts += [t for h in (base.references, *hypotheses) for t in extra(base.entries, h)] if extra else []
    return texts


def score_beside_embedding(inputs: list[ScoringInput], metrics: list[str], options: dict,
                           embeddings: Embeddings | None, texts: list[str],
                           labels: list[str] | None = None) -> list[dict[str, MetricResult]]:
    """Every metric of every input (in `metrics` order) after `texts` are embedded in one pass (one_pass_texts).
    When some of them must be computed, the metrics that read no vectors are scored meanwhile in a child process
    (lyss.commands.score_beside), the others here after the pass; when the store on disk has them all, there is
    no wait to fill and everything is scored here. Each input is scored under its progress `labels`."""
    pending = embeddings.uncached(texts) if embeddings is not None and texts else []
    vectorless = [m for m in metrics if not declaration(m, "needs_embeddings")] if pending else []
    unembedded = [dataclasses.replace(data, embeddings=None) for data in inputs]  # the child needs no vectors
    beside = ScoredBeside(unembedded, vectorless, functools.partial(score_metrics, options=options), cores())
    if pending:
        label_embedding(embeddings, "the sources, references and outputs")
        embeddings.embed(pending)
    here = [m for m in metrics if m not in beside.metrics]
    scored = []
    for i, data in enumerate(inputs):
        if labels:
            label_embedding(embeddings, labels[i])
        results = {**score_metrics(data, here, options), **beside.results(i)}
        scored.append({m: results[m] for m in metrics})
    return scored


def label_embedding(embeddings: Embeddings | None, what: str) -> None:
    """Name on the progress line what the next texts embedded belong to, so a long bar says which file."""
    if embeddings is not None:
        embeddings.label = f"embed {what}"


def metric_options(settings: dict, args: argparse.Namespace) -> dict[str, dict]:
    """Per metric, params.yaml `metric_options` as the pipeline passes them, with the sacrebleu flags given on
    the command line over them (each metric declares the flags it takes as `cli_options`, as sacrebleu scopes
    them: `-lc` is BLEU's alone, chrF++ and TER have their own)."""
    options = {m: dict(o) for m, o in (settings.get("metric_options") or {}).items()}
    for metric in REGISTRY:
        for flag, option in declaration(metric, "cli_options").items():
            value = getattr(args, flag, None)
            if value not in (None, False):
                options.setdefault(metric, {})[option] = value
    return options


def score_metrics(data: ScoringInput, metrics: list[str], options: dict | None = None) -> dict[str, MetricResult]:
    """Each metric by the plugin the target card declares for it, else the generic one (as rule `score`),
    with its own options; a metric that uses one reference of several says so in its details."""
    results = {}
    n_refs = len(data.reference_streams)
    for metric in metrics:
        own = dataclasses.replace(data, options=(options or {}).get(metric, {}))
        plugin = resolve_metric(metric, data.target_card, source="--metrics")
        result = plugin.score(own)
        if n_refs > 1 and not declaration(plugin, "uses_all_references"):
            result.details = {**result.details, "references": f"scored against the first of the {n_refs} "
                                                              "references"}
        results[metric] = result
    return results


def lyss_signature(metric: str, data: ScoringInput, own: str | None = None) -> str:
    """A sacrebleu-style signature of a LYSS metric: every setting that changes its number (the references it
    used, the cards it read and where they come from, the embedder, the metric's `own` settings, the lyss
    version with the hash of its sources). The version is 0.1.0 between releases, so the hash is what tells
    two formulas apart (a metric's corpus value has changed without a release), as sacrebleu's version does."""
    n_refs = len(data.reference_streams)
    used = n_refs if metric == "composite" or declaration(metric, "uses_all_references") else 1
    parts = [f"nrefs:{used}" + (f"(first of {n_refs})" if used < n_refs else "")]
    cards = [f"{code}={card_provenance(card)['card'].replace('derived from CLDR', 'cldr')}"
             for code, card in ((data.source_lang, data.source_card), (data.target_lang, data.target_card))]
    parts.append("cards:" + ",".join(cards))
    if declaration(metric, "needs_embeddings") or metric == "composite":
        parts.append(f"embedder:{data.embeddings.name if data.embeddings is not None else 'none'}")
    return "|".join([*parts, *([own] if own else []), f"version:lyss-{code_version()}"])


def metric_signature(metric: str, result: MetricResult, data: ScoringInput) -> str:
    """A metric's signature: one that names its version is whole (sacrebleu's, a precomputed file's); settings a
    LYSS metric reports itself (code-switching's identifier and word lists) join the LYSS signature."""
    if result.signature and "version:" in result.signature:
        return result.signature
    return lyss_signature(metric, data, own=result.signature)


def composite_signature(profile: str, scope: str, used: dict, data: ScoringInput) -> str:
    weights = ",".join(f"{m}={w:.4f}" for m, w in used.items()) or "none"
    return f"profile:{profile}|scope:{scope}|weights:{weights}|{lyss_signature('composite', data)}"


def composite_scope(metrics: list[str], weights: dict) -> tuple[str, list[str]]:
    """("profile", []) when the metrics scored include every weighted metric of the profile (the composite is
    the profile's, comparable with a tier), else ("selection", the profile's metrics left out): a tier
    only for a composite that is comparable with one."""
    left_out = [m for m, w in weights.items() if w and m not in metrics]
    return ("selection", left_out) if left_out else ("profile", [])


def caveat_settings(settings: Settings, has_source: bool) -> tuple[Settings, dict]:
    """The settings without the source caveats when there is no source, and those skipped, why."""
    caveats = plain(settings.caveats)
    if has_source:
        return settings, {}
    thresholds = {k: v for k, v in caveats["thresholds"].items() if k not in SOURCE_CAVEATS}
    skipped = {k: "needs the source (--source)" for k in SOURCE_CAVEATS if caveats["thresholds"].get(k) is not None}
    return dataclasses.replace(settings, caveats=MappingProxyType({**caveats, "thresholds": thresholds})), skipped


def card_settings(settings: Settings, has_source: bool, n: int | None, seed: int | None) -> tuple[Settings, dict]:
    """The settings the cards are built with: the caveats that can be checked (and the skipped ones), and the
    bootstrap's resamples and seed as --n and --seed say (params' seed 12345 and 1,000 resamples are
    sacrebleu's --confidence draws)."""
    settings, skipped = caveat_settings(settings, has_source)
    stats = dataclasses.replace(settings.stats, bootstrap_resamples=n or settings.stats.bootstrap_resamples,
                                seed=settings.stats.seed if seed is None else seed)
    return dataclasses.replace(settings, stats=stats), skipped


@dataclasses.dataclass(frozen=True)
class Run:
    """What every system of one `lyss score` call shares: settings, metrics, profile, options."""

    settings: Settings  # as the cards are built with (card_settings)
    skipped: dict  # caveats not checked, why
    metrics: list[str]
    options: dict
    profile: str
    ci: bool
    sentence_level: bool


def plain_card(run: Run, data: ScoringInput, method: Method, results: dict, reference_results: dict) -> dict:
    """The run card of one system's lines, by the pipeline's builder (lyss.aggregate.card): line numbers as
    entry ids, one record per line, no time, tokens or cost (kind `precomputed`, or `reference` for the
    oracle), with intervals of every metric it shows when --confidence asks for them."""
    records = [{"id": e["id"], "prediction": p} for e, p in zip(data.entries, data.predictions, strict=True)]
    lines = json.dumps([[e["source"], e.get("references") or e["reference"]] for e in data.entries])
    dataset = Dataset("plain text files", data.source_lang, data.target_lang,
                      hashlib.sha256(lines.encode()).hexdigest())
    return build_card(CardInput(
        dataset=dataset, method=method, results=results, reference_results=reference_results,
        entries=data.entries, translation=Translation(records), settings=run.settings,
        cards={data.source_lang: data.source_card, data.target_lang: data.target_card},
        embeddings=data.embeddings, intervals="shown" if run.ci else "none"))


def oracle_input(data: ScoringInput) -> ScoringInput:
    """The references as the hypothesis (docs/oracle.md)."""
    return dataclasses.replace(data, predictions=data.references, raw_predictions=data.references)


def oracle_check(run: Run, data: ScoringInput, results: dict[str, MetricResult]) -> dict:
    """The reference scored as if it were the hypothesis (docs/oracle.md): its `results` (of oracle_input),
    which every system's card is checked against, and its block: its composite and tier, and the reference check
    of every metric (a failing one is not valid on these files)."""
    oracle = oracle_input(data)
    card = plain_card(dataclasses.replace(run, ci=False), oracle, Method("reference", {"kind": "reference"}),
                      results, results)
    weights = run.settings.composite.profiles[run.profile]
    tier = card["scores"]["quality_tier"] if composite_scope(run.metrics, weights)[0] == "profile" else None
    return {"results": results, "block": {"composite": card["scores"]["composite"], "quality_tier": tier,
                                          "reference_check": card["reference_check"]}}


def score_system(run: Run, data: ScoringInput, oracle: dict, notes: Notes, results: dict[str, MetricResult]) -> dict:
    """One system's block from its metric `results`: its card's scores (a selection's composite without a
    tier), how the composite was made, signatures, caveats, intervals."""
    metrics = run.metrics
    card = plain_card(run, data, Method("system", {"kind": "precomputed"}), results, oracle["results"])
    # the card's other warnings are shown apart: skipped caveats below, missing language cards already
    for warning in card["warnings"]:
        if not warning.startswith("caveat "):
            notes.warn(warning)
    scores, reasons = card["scores"], card["null_reasons"]
    weights = dict(card["composite_profile"]["weights"])
    scope, left_out = composite_scope(metrics, weights)
    if scope == "selection" and scores["composite"] is not None:
        scores["quality_tier"] = None
        reasons["quality_tier"] = (f"the composite is over a metric selection (-m) that leaves out "
                                   f"{', '.join(left_out)} of profile {run.profile}: not comparable with a tier")
    used = applied_weights(scores, weights)
    signatures = {m: metric_signature(m, r, data) for m, r in results.items()}
    signatures["composite"] = composite_signature(run.profile, scope, used, data)
    block = {"composite_profile": {"profile": run.profile, "weights": weights, "applied_weights": used,
                                   "weight_share": round(weight_share(scores, weights), 6), "scope": scope,
                                   "left_out": left_out},
             "language_cards": card["language_cards"],
             "references": len(data.reference_streams),
             "signatures": signatures,
             "metric_details": {m: r.details for m, r in results.items() if r.details},
             "null_reasons": {k: v for k, v in reasons.items() if k in metrics or k == "quality_tier"},
             "withheld": card["withheld"],
             "score_caveats": card["score_caveats"],
             "skipped_caveats": {**skipped_caveats(plain(run.settings.caveats), data.embeddings), **run.skipped},
             "tier_gate": card["tier_gate"], "scores": scores, "oracle": oracle["block"]}
    if run.sentence_level:
        normalisation = plain(run.settings.composite).get("normalisation") or {}
        block["segments"] = segments(data, results, used if scores["composite"] is not None else {},
                                     normalisation)
    return block


def segments(data: ScoringInput, results: dict[str, MetricResult], weights: dict, normalisation: dict) -> list[dict]:
    """Per line, the per-entry value of every metric that has them (None on a line where it has none), as
    sacrebleu's -sl prints them, and the line's composite: the corpus composite's applied `weights` over the
    line's normalised values, renormalised over those the line has (lyss.evidence.composite_entries, what
    docs/validation.md correlates with people). It is no share of the corpus composite: corpus chrF++ is not
    the mean of sentence chrF++. A metric with no per-entry value (consistency_score is corpus-level, an
    unavailable metric) has no column; without a corpus composite there is no composite column."""
    per_entry = {m: r.values for m, r in results.items() if not np.isnan(np.asarray(r.values, dtype=float)).all()}
    weighted = {m: w for m, w in weights.items() if m in per_entry}
    if weighted:
        per_entry["composite"] = entry_composite(per_entry, weighted, normalisation)
    rows = []
    for i, entry_id in enumerate(data.ids):
        row = {"segment": int(entry_id)}
        for metric, values in per_entry.items():
            value = float(values[i])
            row[metric] = None if value != value else round(value, 6)
        rows.append(row)
    return rows


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "score", help="score hypothesis files against references (the run card's scores block)",
        description="Score plain text files (one segment per line) with the LYSS metrics and composite, "
        "as in a run card, with sacrebleu's options; see docs/metrics.md.")
    add_common_arguments(parser)
    parser.add_argument("--hypothesis", "--hypotheses", "-i", dest="hypotheses", type=Path, nargs="+",
                        action="extend",
                        help="system outputs, one segment per line (`-`: standard input); several give a table; "
                        "without -i, standard input when it is piped (`cat hyp | lyss score -r ref -l en-de`)")
    parser.add_argument("--score-only", "-b", action="store_true",
                        help="sacrebleu's flag: print only the values of the -m metrics (default: the composite), "
                        "one per line; several systems, a line each; nan for a null metric, its reason on stderr")
    parser.add_argument("--sentence-level", "-sl", action="store_true",
                        help="per-segment values of every metric (text, json, tsv)")
    parser.add_argument("--confidence", "--ci", "-ci", dest="ci", action="store_true",
                        help="bootstrap confidence intervals of every metric that can be resampled and of the "
                        "composite (§8.1; sacrebleu's --confidence)")
    parser.add_argument("--n", "--confidence-n", "-cin", type=positive_int, action=Once,
                        help="bootstrap resamples for --confidence (default: params stats)")
    parser.add_argument("--embedding-caveats", action="store_true",
                        help="check misaligned_output (needs the sentence embedder) even when no requested "
                        "metric embeds; without it that caveat runs only alongside a metric that does "
                        "(one whose class declares needs_embeddings)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    fmt = output_format(args)
    notes = Notes()
    has_source = args.source is not None
    # what the command line says is checked first: a wrong option is the one line printed
    metrics, left_out = choose_metrics(metric_names(args.metrics, args.chrf_word_order), has_source,
                                       models_given(args))
    pair = language_pair(args.lang_pair, metrics, defaults=args.metrics is None)
    args.hypotheses = args.hypotheses or [piped_stdin()]
    if args.score_only and args.sentence_level:
        raise InputError("--score-only", "prints corpus values only: drop -b to see -sl's per-segment values")
    if args.embedding_caveats and not has_source:
        raise InputError("--embedding-caveats", "misaligned_output compares outputs with the sources: give -s SRC")
    names = system_names(args.hypotheses)
    texts = read_parallel([*([args.source] if has_source else []), *args.reference, *args.hypotheses])
    warn_without_source(notes, left_out)  # after the files: an unreadable one is the only line printed
    languages = language_cards(pair, args.languages, notes)
    settings = load_settings(args.params, notes)
    source = texts.pop(0) if has_source else None
    references, hypotheses = texts[:len(args.reference)], texts[len(args.reference):]
    embeddings = shared_embeddings(settings, args.embedding_caveats or needs_embeddings(metrics))
    typed, skipped = card_settings(Settings.from_checked(settings), has_source,
                                   args.n, args.seed)
    options = metric_options(settings, args)
    warn_unsegmented_script(notes, pair, metrics, options, references[0])
    run_ = Run(typed, skipped, metrics, options,
               select_profile(languages[3], settings["composite"]), args.ci, args.sentence_level)
    base = scoring_input(source, references, hypotheses[0], languages)
    base.embeddings = embeddings
    systems = [dataclasses.replace(base, predictions=list(h), raw_predictions=list(h)) for h in hypotheses]
    misaligned_check = plain(typed.caveats)["thresholds"].get("misaligned_output") is not None
    texts = one_pass_texts(embeddings, base, hypotheses, metrics, run_.options, misaligned_check)
    scored = score_beside_embedding([oracle_input(base), *systems], metrics, run_.options, embeddings, texts,
                                    ["the references (oracle check)", *names])
    oracle = oracle_check(run_, base, scored[0])
    blocks = [{"system": name, "file": str(path), **score_system(run_, data, oracle, notes, scored[i])}
              for i, (name, path, data) in enumerate(zip(names, args.hypotheses, systems, strict=True), start=1)]
    for block in blocks:
        block["warnings"] = list(notes.warnings)
    if args.score_only:
        shown = metrics if args.metrics else ["composite"]
        for block in blocks:
            for metric in shown:
                if score_value(block, metric) is None:
                    notes.note(f"{block['system']}: {metric} is nan: {null_reason(block, metric)}")
        print(scores_only(blocks, shown, fmt, args.width))
    else:
        print(render(blocks, fmt, args.sentence_level, args.width))
    return nothing_measured(blocks, metrics)


def piped_stdin() -> Path:
    """The hypothesis when -i is not given: standard input, as sacrebleu reads it, unless it is the terminal
    (a forgotten -i would otherwise wait silently for typing)."""
    if sys.stdin is None or sys.stdin.isatty():
        raise InputError("--hypothesis", "give the system output with -i HYP, or pipe it to standard input")
    return Path("-")


def nothing_measured(blocks: list[dict], metrics: list[str]) -> int:
    """Exit status 1 when no metric measured anything for any system (each is null: a missing tokenizer
    model, no COMET): the output says why, and a script that runs `lyss score` must not take it for a
    result. A value withheld from the composite (too few entries, failed reference check) was measured."""
    measured = any(block["scores"].get(m) is not None or m in block.get("withheld", {})
                   for block in blocks for m in metrics)
    if measured:
        return 0
    what = f"{metrics[0]} could not" if len(metrics) == 1 else f"none of {', '.join(metrics)} could"
    print(f"lyss score: {what} be scored (the output says why)", file=sys.stderr)
    return 1
