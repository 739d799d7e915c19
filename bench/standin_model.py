#!/usr/bin/env python3
"""Stand-ins for embedding models that cannot be downloaded here: the default,
jinaai/jina-embeddings-v2-base-zh, and the candidates to replace it, each with its exact shape
and random weights, so that their speed and memory can be measured offline.

Shapes (`build(folder, shape=...)`, `SHAPES`):

    jina-v2-base-zh           JinaBERT v2 as in jina's modeling_bert.py (161M parameters)
    multilingual-e5-small     BERT (BertModel with the XLM-R vocabulary), 118M parameters
    bge-small-zh-v1.5         BERT, 4 layers x 512, CLS pooling, ~24M parameters
    potion-multilingual-128M  static (model2vec): a 500,353 x 256 table, no network

jina-v2-base-zh, the graph:

    embeddings  word 61056 x 768 + token_type 2 x 768 (no position table), LayerNorm
    12 layers   Q, K, V, O 768 x 768 with bias; 12 heads of 64; scores / 8 + padding mask
                + symmetric ALiBi bias -slope_h * |i - j|, softmax; post-LayerNorm
                GEGLU: 768 -> 2 x 3072 without bias, GELU(first half) * second half,
                3072 -> 768 with bias; post-LayerNorm
    pooler      tanh(768 x 768 on the first token), a second output as in BertModel
    inputs      input_ids, attention_mask, token_type_ids: int64 [batch, seq]
    output 0    last_hidden_state: float32 [batch, seq, 768] (fastembed mean-pools it, then
                normalises)

The ALiBi bias is computed in the graph from the sequence length. The folder holds
`onnx/model.onnx` (where fastembed's registry looks for this model) and BERT WordPiece
tokenizer files (all-MiniLM-L6-v2's, the only ones offline). The real model's tokenizer is
a BPE one with a Chinese vocabulary; WordPiece makes every Chinese character its own token,
so Chinese texts have as many or more tokens here than with the real tokenizer: the token
counts, hence the times, are an upper bound for Chinese, comparable for English. Ids of the
30522-word vocabulary index the 61056-row embedding table like any other ids.

The BERT shapes (HF BertModel: word + learned absolute position (512) + token type
embeddings, LayerNorm; post-LayerNorm layers with exact-GELU MLPs; a tanh pooler as a second
output) are written where fastembed looks for them:

    multilingual-e5-small  onnx/model.onnx; not in fastembed 0.9.1's registry: `register()`
                           adds it with add_custom_model (mean pooling, normalised). Its
                           config.json says BertModel, max_position_embeddings 512, type
                           vocabulary 2, eps 1e-12 (the XLM-R tokenizer, not XLM-R's 514
                           offset positions). The real model wants "query: " / "passage: ".
    bge-small-zh-v1.5      model_optimized.onnx at the top of the folder (registry: source
                           Qdrant/bge-small-zh-v1.5, class OnnxTextEmbedding = CLS pooling,
                           normalised)

potion-multilingual-128M is what fastembed's StaticTextEmbedding reads (no model2vec package):
`model.safetensors` with one `embeddings` tensor [vocab, 256] (F32; I8 when quantized, as
model2vec's own int8 files, one global scale: the direction is all that matters) and
`tokenizer.json`; it pools the mean of the token rows (unknown tokens dropped), normalised.

`quantized=True` writes onnxruntime.quantization.quantize_dynamic of the fp32 graph, with
the recipe in QUANT (measured on this AVX2-only CPU: see QUANT), in the same place fastembed
reads the fp32 file from for that model, so the same name and folder setting load it.

A test-sized variant of any shape: `build(folder, shape=..., layers=2, hidden=64)` (heads and
the MLP width follow the hidden size unless given; the vocabulary stays real unless `vocab=`).

    python bench/standin_model.py /tmp/standin            # build (once), load, embed 64 texts
    python bench/standin_model.py /tmp/standin --verify   # fastembed == onnxruntime == numpy
    python bench/standin_model.py /tmp/standin --grid     # batch x tokens x threads
    python bench/standin_model.py /tmp/e5 --shape multilingual-e5-small --quantized
    python bench/standin_model.py /tmp/st --selftest      # every shape, test-sized, through
                                                          # memory_core.embeddings._load

    from standin_model import build, MODEL_NAME
    folder = build(Path("/tmp/standin")).parent.parent   # build returns onnx/model.onnx
    TextEmbedding(MODEL_NAME, specific_model_path=str(folder), local_files_only=True, threads=1)

Needs `onnx` (a bench dependency, not a runtime one) besides numpy, onnxruntime, fastembed.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
MODEL_NAME = "jinaai/jina-embeddings-v2-base-zh"
MODEL_FILE = "onnx/model.onnx"
FORMAT = 1  # bump when the graph changes: cached builds of another format are rebuilt

VOCAB = 61056
HIDDEN = 768
LAYERS = 12
HEADS = 12
HEAD = HIDDEN // HEADS
INTERMEDIATE = 3072
TYPE_VOCAB = 2
EPS = 1e-12
MAX_TOKENS = 8192  # the real tokenizer_config's model_max_length: fastembed truncates there
INIT_STD = 0.02
OPSET = 17  # LayerNormalization

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
TOKENIZER_DIRS = (REPO / "tests" / "model",  # the same four files, kept in the repo
                  REPO.parent / "shared" / "models" / "all-MiniLM-L6-v2",
                  Path("/work/shared/models/all-MiniLM-L6-v2"))

# quantize_dynamic's options for quantized=True. Measured on this machine (AMD EPYC, AVX2,
# no VNNI; bench/results/models.md "int8 recipe"): QInt8 weights, per tensor, full range
# ran fastest of QInt8/QUInt8 x per_channel x reduce_range for all three ONNX shapes.
QUANT = {"weight_type": "QInt8", "per_channel": False, "reduce_range": False}


@dataclasses.dataclass(frozen=True)
class Shape:
    """One model's architecture, and where and how fastembed reads it."""
    key: str
    model: str           # fastembed's name
    arch: str            # "jina" | "bert" | "static"
    vocab: int
    hidden: int
    layers: int = 0
    heads: int = 0
    intermediate: int = 0
    positions: int = 0   # rows of the learned absolute position table (0: none)
    type_vocab: int = 2
    eps: float = 1e-12
    pooling: str = "mean"  # "mean" | "cls" (then L2-normalised, both)
    model_file: str = MODEL_FILE
    max_tokens: int = 512  # tokenizer_config's model_max_length
    native: bool = True    # in fastembed 0.9.1's registry (else register() adds it)
    published_params: float = 0.0
    query_prefix: str = ""
    passage_prefix: str = ""

    @property
    def head(self) -> int:
        return self.hidden // self.heads


SHAPES = {s.key: s for s in (
    Shape("jina-v2-base-zh", MODEL_NAME, "jina", VOCAB, HIDDEN, LAYERS, HEADS, INTERMEDIATE,
          positions=0, type_vocab=TYPE_VOCAB, eps=EPS, pooling="mean", model_file=MODEL_FILE,
          max_tokens=MAX_TOKENS, native=True, published_params=161e6),
    Shape("multilingual-e5-small", "intfloat/multilingual-e5-small", "bert", 250037, 384, 12, 12,
          1536, positions=512, type_vocab=2, eps=1e-12, pooling="mean",
          model_file="onnx/model.onnx", max_tokens=512, native=False, published_params=118e6,
          query_prefix="query: ", passage_prefix="passage: "),
    Shape("bge-small-zh-v1.5", "BAAI/bge-small-zh-v1.5", "bert", 21128, 512, 4, 8, 2048,
          positions=512, type_vocab=2, eps=1e-12, pooling="cls",
          model_file="model_optimized.onnx", max_tokens=512, native=True, published_params=24e6),
    Shape("potion-multilingual-128M", "minishlab/potion-multilingual-128M", "static", 500353, 256,
          pooling="mean", model_file="model.safetensors", max_tokens=512, native=True,
          published_params=128e6),
)}
DEFAULT_SHAPE = "jina-v2-base-zh"


def get_shape(shape: str | Shape = DEFAULT_SHAPE, *, layers: int | None = None,
              hidden: int | None = None, heads: int | None = None,
              intermediate: int | None = None, vocab: int | None = None) -> Shape:
    """A shape by key or fastembed name, resized by any override: heads keep their width
    (at least one head) and the MLP its ratio to the hidden size unless given."""
    if isinstance(shape, str):
        found = SHAPES.get(shape) or next((s for s in SHAPES.values()
                                           if s.model.lower() == shape.lower()), None)
        if found is None:
            raise ValueError(f"unknown shape {shape!r}; one of {', '.join(SHAPES)}")
        shape = found
    changes = {}
    if hidden is not None and hidden != shape.hidden:
        changes["hidden"] = hidden
        if shape.arch != "static":
            changes["heads"] = heads or max(1, hidden // shape.head)
            changes["intermediate"] = intermediate or hidden * shape.intermediate // shape.hidden
    for k, v in (("layers", layers), ("heads", heads), ("intermediate", intermediate),
                 ("vocab", vocab)):
        if v is not None:
            changes[k] = v
    s = dataclasses.replace(shape, **changes)
    if s.arch != "static" and s.hidden % s.heads:
        raise ValueError(f"hidden {s.hidden} is not a multiple of {s.heads} heads")
    return s


def alibi_slopes(heads: int = HEADS) -> list[float]:
    """ALiBi's head slopes, as jina's `_get_alibi_head_slopes`: for 12 heads 2^-1 .. 2^-8,
    then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5."""
    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]
    if math.log2(heads).is_integer():
        return power_of_2(heads)
    closest = 2 ** math.floor(math.log2(heads))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][:heads - closest]


def config(shape: Shape | None = None) -> dict:
    """config.json: the public one of the model as far as it is known, and a note that this
    is a stand-in. fastembed reads only pad_token_id from it."""
    s = shape or SHAPES[DEFAULT_SHAPE]
    note = {"standin": "random weights, same shape; bench/standin_model.py",
            "_name_or_path": "standin/" + s.model.split("/")[-1]}
    if s.arch == "jina":
        return {
            **note,
            "architectures": ["JinaBertModel"], "model_type": "bert",
            "vocab_size": s.vocab, "hidden_size": s.hidden, "num_hidden_layers": s.layers,
            "num_attention_heads": s.heads, "intermediate_size": s.intermediate,
            "hidden_act": "gelu", "feed_forward_type": "geglu",
            "position_embedding_type": "alibi", "max_position_embeddings": s.max_tokens,
            "type_vocab_size": s.type_vocab, "layer_norm_eps": s.eps, "pad_token_id": 0,
            "emb_pooler": "mean",
        }
    if s.arch == "bert":
        return {
            **note,
            "architectures": ["BertModel"], "model_type": "bert",
            "vocab_size": s.vocab, "hidden_size": s.hidden, "num_hidden_layers": s.layers,
            "num_attention_heads": s.heads, "intermediate_size": s.intermediate,
            "hidden_act": "gelu", "position_embedding_type": "absolute",
            "max_position_embeddings": s.positions, "type_vocab_size": s.type_vocab,
            "layer_norm_eps": s.eps, "pad_token_id": 0,
        }
    return {**note, "model_type": "model2vec", "architectures": ["StaticModel"],
            "hidden_dim": s.hidden, "vocab_size": s.vocab, "normalize": True}


# --- the graph ---------------------------------------------------------------------------

class _Graph:
    """Nodes, initializers and a count of the weights (not of the small constants)."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes, self.inits, self.params, self._n = [], [], 0, 0

    def name(self, hint):
        self._n += 1
        return f"{hint}_{self._n}"

    def const(self, value, dtype=np.float32, hint="c"):
        from onnx import numpy_helper
        n = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), n))
        return n

    def weight(self, name, shape, kind="normal", padding_row=None):
        from onnx import numpy_helper
        if kind == "normal":
            a = self.rng.standard_normal(shape, dtype=np.float32)
            a *= INIT_STD
            if padding_row is not None:  # as nn.Embedding(padding_idx=...)
                a[padding_row] = 0.0
        else:
            a = np.full(shape, 1.0 if kind == "one" else 0.0, dtype=np.float32)
        self.params += a.size
        self.inits.append(numpy_helper.from_array(a, name))
        return name

    def op(self, op_type, inputs, hint=None, outputs=None, **attrs):
        from onnx import helper
        outs = outputs or [self.name(hint or op_type.lower())]
        self.nodes.append(helper.make_node(op_type, list(inputs), outs,
                                           name=self.name(op_type), **attrs))
        return outs[0]

    def linear(self, x, prefix, n_in, n_out, bias=True):
        y = self.op("MatMul", [x, self.weight(f"{prefix}.weight", (n_in, n_out))])
        if bias:
            y = self.op("Add", [y, self.weight(f"{prefix}.bias", (n_out,), "zero")])
        return y

    def layer_norm(self, x, prefix, width=HIDDEN, eps=EPS):
        return self.op("LayerNormalization", [x, self.weight(f"{prefix}.weight", (width,), "one"),
                                              self.weight(f"{prefix}.bias", (width,), "zero")],
                       axis=-1, epsilon=eps)


def make_model(seed: int = 0, shape: Shape | str | None = None):
    """The ONNX ModelProto (about 0.64 GB in memory for jina's shape) and its parameter
    count. Static shapes have no graph: see write_static."""
    s = get_shape(shape or DEFAULT_SHAPE)
    if s.arch == "jina":
        return _jina_model(seed, s)
    if s.arch == "bert":
        return _bert_model(seed, s)
    raise ValueError(f"{s.key} is a static model: no ONNX graph")


def _inputs():
    from onnx import TensorProto, helper
    return [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
            for n in ("input_ids", "attention_mask", "token_type_ids")]


def _padding_mask(g):
    """[batch, 1, 1, seq]: 0 where attended, float32 min where padded."""
    from onnx import TensorProto
    m = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    m = g.op("Mul", [g.op("Sub", [g.const(1.0), m]), g.const(np.finfo(np.float32).min)])
    return g.op("Unsqueeze", [m, g.const([1, 2], np.int64)])


def _finish(g, h, s: Shape, graph_name: str):
    from onnx import TensorProto, helper
    g.op("Identity", [h], outputs=["last_hidden_state"])
    first = g.op("Gather", [h, g.const(0, np.int64)], axis=1)
    g.op("Tanh", [g.linear(first, "pooler.dense", s.hidden, s.hidden)], outputs=["pooler_output"])
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                             ["batch", "sequence", s.hidden]),
               helper.make_tensor_value_info("pooler_output", TensorProto.FLOAT,
                                             ["batch", s.hidden])]
    graph = helper.make_graph(g.nodes, graph_name, _inputs(), outputs, g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="cursor-memory bench/standin_model.py")
    model.ir_version = 8
    return model, g.params


class _LayerConstants:
    """The small constants every encoder layer uses, made once per graph."""

    def __init__(self, g, s: Shape):
        self.heads_shape = g.const([0, 0, s.heads, s.head], np.int64)
        self.merged_shape = g.const([0, 0, s.hidden], np.int64)
        self.scale, self.half, self.one = g.const(math.sqrt(s.head)), g.const(0.5), g.const(1.0)
        self.sqrt2 = g.const(math.sqrt(2.0))


def _attention(g, c: _LayerConstants, h, p: str, s: Shape, mask, alibi=None):
    """Self-attention (scores / sqrt(head) + padding mask [+ ALiBi]), the output projection,
    the residual and the post-LayerNorm, as both BERT and jina-bert-v2 export it."""
    H = s.hidden

    def split_heads(x, perm):
        return g.op("Transpose", [g.op("Reshape", [x, c.heads_shape])], perm=perm)

    q = split_heads(g.linear(h, f"{p}.attention.self.query", H, H), [0, 2, 1, 3])
    k = split_heads(g.linear(h, f"{p}.attention.self.key", H, H), [0, 2, 3, 1])
    v = split_heads(g.linear(h, f"{p}.attention.self.value", H, H), [0, 2, 1, 3])
    sc = g.op("Add", [g.op("Div", [g.op("MatMul", [q, k]), c.scale]), mask])
    if alibi is not None:
        sc = g.op("Add", [sc, alibi])
    ctx = g.op("MatMul", [g.op("Softmax", [sc], axis=-1), v])
    ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), c.merged_shape])
    o = g.linear(ctx, f"{p}.attention.output.dense", H, H)
    return g.layer_norm(g.op("Add", [o, h]), f"{p}.attention.output.LayerNorm", H, s.eps)


def _gelu(g, c: _LayerConstants, x):
    """Exact GELU, as torch exports it: x * (erf(x / sqrt 2) + 1) / 2."""
    erf = g.op("Erf", [g.op("Div", [x, c.sqrt2])])
    return g.op("Mul", [g.op("Mul", [x, g.op("Add", [erf, c.one])]), c.half])


def _jina_model(seed: int, s: Shape):
    from onnx import TensorProto

    g = _Graph(np.random.default_rng(seed))
    H, I = s.hidden, s.intermediate  # noqa: E741

    # embeddings: word + token type (ALiBi replaces the position table), LayerNorm
    word = g.weight("embeddings.word_embeddings.weight", (s.vocab, H), padding_row=0)
    types = g.weight("embeddings.token_type_embeddings.weight", (s.type_vocab, H))
    h = g.op("Add", [g.op("Gather", [word, "input_ids"], axis=0),
                     g.op("Gather", [types, "token_type_ids"], axis=0)])
    h = g.layer_norm(h, "embeddings.LayerNorm", H, s.eps)
    mask = _padding_mask(g)

    # symmetric ALiBi [1, heads, seq, seq]: -slope_h * |i - j|, from the sequence length
    seq = g.op("Gather", [g.op("Shape", ["input_ids"]), g.const(1, np.int64)], axis=0)
    pos = g.op("Cast", [g.op("Range", [g.const(0, np.int64), seq, g.const(1, np.int64)])],
               to=TensorProto.FLOAT)
    rel = g.op("Abs", [g.op("Sub", [g.op("Unsqueeze", [pos, g.const([1], np.int64)]),
                                    g.op("Unsqueeze", [pos, g.const([0], np.int64)])])])
    slopes = -np.asarray(alibi_slopes(s.heads), np.float32).reshape(1, s.heads, 1, 1)
    alibi = g.op("Mul", [g.const(slopes), g.op("Unsqueeze", [rel, g.const([0, 1], np.int64)])])

    c = _LayerConstants(g, s)
    cut = [g.const([a], np.int64) for a in (0, I, 2 * I)]
    last = g.const([2], np.int64)
    for i in range(s.layers):
        p = f"encoder.layer.{i}"
        h = _attention(g, c, h, p, s, mask, alibi)
        # GEGLU: gated_layers (no bias) -> GELU(first half) * second half -> wo
        gl = g.linear(h, f"{p}.mlp.gated_layers", H, 2 * I, bias=False)
        gate = g.op("Slice", [gl, cut[0], cut[1], last])
        value = g.op("Slice", [gl, cut[1], cut[2], last])
        o = g.linear(g.op("Mul", [_gelu(g, c, gate), value]), f"{p}.mlp.wo", I, H)
        h = g.layer_norm(g.op("Add", [o, h]), f"{p}.mlp.layernorm", H, s.eps)
    return _finish(g, h, s, "jina_bert_v2_standin")


def _bert_model(seed: int, s: Shape):
    """HF BertModel: word + absolute position + token type embeddings, LayerNorm; per layer
    self-attention (scores / sqrt(head) + padding mask), post-LayerNorm, then
    intermediate.dense -> exact GELU -> output.dense, post-LayerNorm."""
    g = _Graph(np.random.default_rng(seed))
    H, I = s.hidden, s.intermediate  # noqa: E741

    word = g.weight("embeddings.word_embeddings.weight", (s.vocab, H), padding_row=0)
    positions = g.weight("embeddings.position_embeddings.weight", (s.positions, H))
    types = g.weight("embeddings.token_type_embeddings.weight", (s.type_vocab, H))
    seq = g.op("Gather", [g.op("Shape", ["input_ids"]), g.const(1, np.int64)], axis=0)
    pos_ids = g.op("Range", [g.const(0, np.int64), seq, g.const(1, np.int64)])
    h = g.op("Add", [g.op("Gather", [word, "input_ids"], axis=0),
                     g.op("Gather", [types, "token_type_ids"], axis=0)])
    h = g.op("Add", [h, g.op("Gather", [positions, pos_ids], axis=0)])  # [S, H] broadcast
    h = g.layer_norm(h, "embeddings.LayerNorm", H, s.eps)
    mask = _padding_mask(g)

    c = _LayerConstants(g, s)
    for i in range(s.layers):
        p = f"encoder.layer.{i}"
        h = _attention(g, c, h, p, s, mask)
        x = _gelu(g, c, g.linear(h, f"{p}.intermediate.dense", H, I))
        o = g.linear(x, f"{p}.output.dense", I, H)
        h = g.layer_norm(g.op("Add", [o, h]), f"{p}.output.LayerNorm", H, s.eps)
    return _finish(g, h, s, "bert_standin_" + s.key.replace("-", "_").replace(".", "_"))


def write_static(path: Path, s: Shape, seed: int = 0, quantized: bool = False) -> int:
    """model.safetensors with one `embeddings` tensor [vocab, dims]: N(0, 1) float32 rows,
    or int8 ones scaled by one global factor (as model2vec's int8 files: no scale is kept,
    the direction of a mean is what counts). Written in slices: ~0.5 GB never in memory
    twice. Returns the parameter count."""
    rng = np.random.default_rng(seed)
    dtype, code = (np.int8, "I8") if quantized else (np.float32, "F32")
    nbytes = s.vocab * s.hidden * np.dtype(dtype).itemsize
    header = json.dumps({"__metadata__": {"format": "pt", "standin": "bench/standin_model.py"},
                         "embeddings": {"dtype": code, "shape": [s.vocab, s.hidden],
                                        "data_offsets": [0, nbytes]}}).encode()
    header += b" " * (-len(header) % 8)
    with open(path, "wb") as f:
        f.write(len(header).to_bytes(8, "little"))
        f.write(header)
        for start in range(0, s.vocab, 65536):
            rows = rng.standard_normal((min(65536, s.vocab - start), s.hidden), dtype=np.float32)
            if quantized:  # 127 at 4 standard deviations, clipped beyond
                rows = np.clip(np.rint(rows * (127 / 4)), -127, 127).astype(np.int8)
            f.write(rows.tobytes())
    return s.vocab * s.hidden


def quantize(src: Path, dst: Path, recipe: dict | None = None) -> dict:
    """onnxruntime's dynamic int8 quantisation of `src` into `dst` (MatMul weights and the
    Gather tables to int8, activations quantised per tensor at run time). Returns the recipe."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    r = dict(QUANT, **(recipe or {}))
    quantize_dynamic(str(src), str(dst), weight_type=getattr(QuantType, r["weight_type"]),
                     per_channel=r["per_channel"], reduce_range=r["reduce_range"])
    return r


def tokenizer_json(source: Path, vocab: int) -> dict | None:
    """The WordPiece tokenizer.json of `source`, cut to ids below `vocab` when the model's
    table is smaller than its 30,522 words (bge-small-zh's 21,128: bert-base-chinese's
    vocabulary, which also splits English into more pieces than an English one); None
    when every id fits."""
    tok = json.loads((source / "tokenizer.json").read_text())
    words = tok["model"]["vocab"]
    if len(words) <= vocab:
        return None
    tok["model"]["vocab"] = {w: i for w, i in words.items() if i < vocab}
    tok["added_tokens"] = [a for a in tok.get("added_tokens", []) if a["id"] < vocab]
    return tok


def _stamp_matches(folder: Path, want: dict, model_file: str) -> bool:
    """Is the build in `folder` the one `want` describes, whole? (A stamp written before
    shapes existed describes jina's fp32 graph.)"""
    try:
        stamp = json.loads((folder / "standin.json").read_text())
        have = {"shape": DEFAULT_SHAPE, "quantized": False, "overrides": {}, **stamp}
        return ({k: have.get(k) for k in want} == want
                and (folder / model_file).stat().st_size == stamp["onnx_bytes"]
                and all((folder / f).exists() for f in TOKENIZER_FILES + ("config.json",)))
    except (OSError, ValueError, KeyError):
        return False


def build(folder: Path, *, shape: str = DEFAULT_SHAPE, seed: int = 0, quantized: bool = False,
          quant: dict | None = None, from_fp32: Path | None = None, **overrides) -> Path:
    """Write the stand-in of `shape` into `folder` where fastembed reads that model from,
    with the tokenizer and config files it reads, or reuse them when a build of this format,
    shape, seed, quantisation and size is there. Returns the model file's path
    (`<folder>/onnx/model.onnx` for jina's shape).

    quantized: int8 (ONNX: quantize_dynamic with QUANT, or `quant` changing it; static: an
    int8 table). from_fp32: a folder holding this shape's fp32 build (same seed and size) to
    quantise instead of generating the graph again. overrides: layers, hidden, heads,
    intermediate, vocab (see get_shape)."""
    import onnx

    s = get_shape(shape, **overrides)
    overrides = {k: v for k, v in overrides.items() if v is not None}
    folder = Path(folder)
    out_path = folder / s.model_file
    stamp_path = folder / "standin.json"
    recipe = (dict(QUANT, **(quant or {})) if s.arch != "static" else {"table": "int8"}) \
        if quantized else False
    want = {"format": FORMAT, "seed": seed, "shape": s.key, "quantized": recipe,
            "overrides": overrides}
    if _stamp_matches(folder, want, s.model_file):
        return out_path

    source = next((d for d in TOKENIZER_DIRS if (d / "tokenizer.json").exists()), None)
    if source is None:
        raise FileNotFoundError(f"no tokenizer files in any of {TOKENIZER_DIRS}")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    stamp_path.unlink(missing_ok=True)
    for name in ("tokenizer.json", "special_tokens_map.json"):
        shutil.copy(source / name, folder / name)
    tok = tokenizer_json(source, s.vocab)
    if tok is not None:
        (folder / "tokenizer.json").write_text(json.dumps(tok, ensure_ascii=False))
    tok_cfg = json.loads((source / "tokenizer_config.json").read_text())
    tok_cfg["model_max_length"] = s.max_tokens
    (folder / "tokenizer_config.json").write_text(json.dumps(tok_cfg, indent=1))
    (folder / "config.json").write_text(json.dumps(config(s), indent=1))

    tmp = out_path.with_name(f".{out_path.name}.{os.getpid()}.tmp")
    if s.arch == "static":
        params = write_static(tmp, s, seed, quantized)
    else:
        fp32 = None
        if quantized and from_fp32 is not None:
            fp32_want = dict(want, quantized=False)
            if _stamp_matches(Path(from_fp32), fp32_want, s.model_file):
                fp32 = Path(from_fp32) / s.model_file
                params = parameter_count(from_fp32)
        if fp32 is None:
            model, params = make_model(seed, s)
            fp32 = tmp.with_name(tmp.name + ".fp32") if quantized else tmp
            onnx.save_model(model, str(fp32))
            del model
        if quantized:
            quantize(fp32, tmp, recipe)
            if fp32.name.endswith(".fp32"):
                fp32.unlink()
    os.replace(tmp, out_path)
    stamp = {**want, "params": params, "tokenizer_from": str(source),
             "onnx_bytes": out_path.stat().st_size, "file": s.model_file, "model": s.model}
    if not overrides and not quantized and s.key == DEFAULT_SHAPE:  # as before shapes existed
        stamp = {k: stamp[k] for k in ("format", "seed", "params", "tokenizer_from", "onnx_bytes")}
    stamp_path.write_text(json.dumps(stamp, indent=1))
    return out_path


def shape_of(folder: Path) -> Shape:
    """The shape (with its overrides) of the build in `folder`."""
    stamp = json.loads((Path(folder) / "standin.json").read_text())
    return get_shape(stamp.get("shape", DEFAULT_SHAPE), **stamp.get("overrides", {}))


def register(shape: str | Shape) -> str:
    """The fastembed name to load `shape` by, registering it first with
    TextEmbedding.add_custom_model when fastembed 0.9.1 does not list it (in this process
    only: cursor-memory's own processes do not do this)."""
    s = get_shape(shape) if isinstance(shape, str) else shape
    if s.native:
        return s.model
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    if any(m.model.lower() == s.model.lower() for m in TextEmbedding._list_supported_models()):
        return s.model
    TextEmbedding.add_custom_model(
        s.model, pooling=PoolingType.MEAN if s.pooling == "mean" else PoolingType.CLS,
        normalization=True, sources=ModelSource(hf=s.model), dim=s.hidden,
        model_file=s.model_file, description="stand-in registration (bench/standin_model.py)",
        license="mit", size_in_gb=round(s.published_params * 4 / 1e9, 2))
    return s.model


def install_in_cache(folder: Path, cache_home: Path, shape: str | Shape | None = None) -> Path:
    """Lay a build out as fastembed's download cache holds it (huggingface's
    models--org--name/snapshots/<rev>/, refs/main) under `cache_home`, which as
    XDG_CACHE_HOME is where cursor-memory looks for a downloaded model
    (<XDG_CACHE_HOME>/cursor-memory/models). Files are symbolic links to the build. For
    models cursor-memory will not load from a folder setting (a static model has no .onnx
    file). Returns the snapshot folder."""
    from fastembed import TextEmbedding

    folder = Path(folder)
    s = shape_of(folder) if shape is None else (get_shape(shape) if isinstance(shape, str) else shape)
    desc = next(m for m in TextEmbedding._list_supported_models()
                if m.model.lower() == s.model.lower())
    repo = Path(cache_home) / "cursor-memory" / "models" / ("models--" + desc.sources.hf.replace("/", "--"))
    rev = "0" * 40
    snap = repo / "snapshots" / rev
    if snap.exists():
        shutil.rmtree(snap)
    for f in [s.model_file, "config.json", *TOKENIZER_FILES]:
        (snap / f).parent.mkdir(parents=True, exist_ok=True)
        os.symlink((folder / f).resolve(), snap / f)
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(rev)
    return snap


def parameter_count(folder: Path) -> int:
    """The count recorded by the build (weights only, no shape or slope constants)."""
    return json.loads((Path(folder) / "standin.json").read_text())["params"]
# --- loading and measuring ---------------------------------------------------------------

def load(folder: Path, threads: int | None = 1):
    """TextEmbedding loaded exactly as cursor-memory loads its model from a folder, and the
    seconds it took."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from fastembed import TextEmbedding

    name = register(shape_of(folder))
    kwargs = {} if shape_of(folder).arch == "static" else {"threads": threads}
    start = time.perf_counter()
    model = TextEmbedding(name, cache_dir=tempfile.gettempdir(), local_files_only=True,
                          specific_model_path=str(folder), **kwargs)
    return model, time.perf_counter() - start


def rss_mb(field: str = "VmRSS") -> float:
    """This process's resident memory (VmRSS) or its peak (VmHWM), in MB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def sentences(n: int = 64, seed: int = 0) -> list[str]:
    """Short mixed Chinese/English notes, like the project's memories."""
    import random

    rnd = random.Random(seed)
    zh = ("缓存 数据库 迁移 部署 接口 用户 配置 测试 性能 监控 日志 权限 认证 队列 任务 前端 后端 "
          "索引 连接池 超时 限流 告警 回滚 发布 镜像 集群 备份 延迟 并发 事务 分页 登录 会话").split()
    glue = "决定 改成 使用 需要 不要 已经 暂时 统一 默认 每天 之后 现在 负责 支持 保留".split()
    en = ("Redis Postgres Kafka nginx webhook cron TTL JWT OAuth pnpm Docker k8s Sentry "
          "Grafana S3 CDN GraphQL gRPC CI staging").split()
    out = []
    for _ in range(n):
        words = [rnd.choice(zh), rnd.choice(glue), rnd.choice(en), rnd.choice(zh)]
        if rnd.random() < 0.5:
            words += [rnd.choice(glue), rnd.choice(zh), str(rnd.randint(2, 600))]
        if rnd.random() < 0.3:
            words = ["we", "switched", "the", rnd.choice(en).lower(), "to"] + words[2:]
        out.append(" ".join(words) + rnd.choice(["。", "", ".", "；下周再看"]))
    return out


def texts_of_tokens(model, tokens: int, n: int) -> list[str]:
    """n texts that tokenize to exactly `tokens` ids with [CLS] and [SEP]: one WordPiece
    token per Chinese character."""
    chars = "缓存数据库迁移部署接口用户配置测试性能监控日志权限认证队列任务前端后端索引连接池超时限流"
    tok = model.model.tokenizer
    texts = []
    for i in range(n):
        t = "".join(chars[(i + j) % len(chars)] for j in range(tokens - 2))
        assert len(tok.encode(t).ids) == tokens, (len(tok.encode(t).ids), tokens)
        texts.append(t)
    return texts


def timings(model, texts: list[str], batch: int, min_seconds: float = 3.0,
            min_runs: int = 2) -> dict:
    """passage_embed over `texts` in batches of `batch`, after one warm-up pass, repeated
    until min_seconds have gone: texts/s from the median and from the fastest pass, and the
    process's CPU seconds per pass (threads busy, not waiting: steadier on a shared machine)."""
    list(model.passage_embed(texts, batch_size=batch))
    walls, cpus = [], []
    while len(walls) < min_runs or sum(walls) < min_seconds:
        wall, cpu = time.perf_counter(), time.process_time()
        out = list(model.passage_embed(texts, batch_size=batch))
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    assert len(out) == len(texts)
    return {"texts_per_s": round(len(texts) / statistics.median(walls), 2),
            "best_texts_per_s": round(len(texts) / min(walls), 2),
            "cpu_s_per_pass": round(statistics.median(cpus), 3), "runs": len(walls)}


def throughput(model, texts: list[str], batch: int, min_seconds: float = 3.0) -> float:
    """texts/s (median pass) of passage_embed over `texts` in batches of `batch`."""
    return timings(model, texts, batch, min_seconds)["texts_per_s"]


# --- verification ------------------------------------------------------------------------

def reference_forward(weights: dict, ids, mask, types) -> np.ndarray:
    """last_hidden_state in plain numpy from the weights, written from jina's modeling_bert
    independently of the graph: a check of the graph's maths."""
    def ln(x, p):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + EPS) * weights[p + ".weight"] + weights[p + ".bias"]

    def lin(x, p, bias=True):
        y = x @ weights[p + ".weight"]
        return y + weights[p + ".bias"] if bias else y

    erf_v = np.vectorize(math.erf, otypes=[np.float64])
    b, s = ids.shape
    h = ln(weights["embeddings.word_embeddings.weight"][ids]
           + weights["embeddings.token_type_embeddings.weight"][types], "embeddings.LayerNorm")
    ext = (1.0 - mask[:, None, None, :].astype(np.float64)) * np.finfo(np.float32).min
    pos = np.arange(s)
    bias = -np.asarray(alibi_slopes())[None, :, None, None] * np.abs(pos[None, :] - pos[:, None])
    for i in range(LAYERS):
        p = f"encoder.layer.{i}"
        sh = lambda x: x.reshape(b, s, HEADS, HEAD).transpose(0, 2, 1, 3)  # noqa: E731
        q, k, v = (sh(lin(h, f"{p}.attention.self.{n}")) for n in ("query", "key", "value"))
        sc = q @ k.transpose(0, 1, 3, 2) / math.sqrt(HEAD) + ext + bias
        sc = np.exp(sc - sc.max(-1, keepdims=True))
        ctx = (sc / sc.sum(-1, keepdims=True)) @ v
        ctx = ctx.transpose(0, 2, 1, 3).reshape(b, s, HIDDEN)
        h = ln(lin(ctx, f"{p}.attention.output.dense") + h, f"{p}.attention.output.LayerNorm")
        gl = lin(h, f"{p}.mlp.gated_layers", bias=False)
        gate, value = gl[..., :INTERMEDIATE], gl[..., INTERMEDIATE:]
        act = 0.5 * gate * (1.0 + erf_v(gate / math.sqrt(2.0)))
        h = ln(lin(act * value, f"{p}.mlp.wo") + h, f"{p}.mlp.layernorm")
    return h


def reference_forward_bert(weights: dict, ids, mask, types, s: Shape) -> np.ndarray:
    """last_hidden_state of HF BertModel in plain numpy from the weights: a check of the
    BERT shapes' graph."""
    def ln(x, p):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + s.eps) * weights[p + ".weight"] + weights[p + ".bias"]

    def lin(x, p):
        return x @ weights[p + ".weight"] + weights[p + ".bias"]

    erf_v = np.vectorize(math.erf, otypes=[np.float64])
    b, n = ids.shape
    h = ln(weights["embeddings.word_embeddings.weight"][ids]
           + weights["embeddings.token_type_embeddings.weight"][types]
           + weights["embeddings.position_embeddings.weight"][np.arange(n)][None],
           "embeddings.LayerNorm")
    ext = (1.0 - mask[:, None, None, :].astype(np.float64)) * np.finfo(np.float32).min
    for i in range(s.layers):
        p = f"encoder.layer.{i}"
        sh = lambda x: x.reshape(b, n, s.heads, s.head).transpose(0, 2, 1, 3)  # noqa: E731
        q, k, v = (sh(lin(h, f"{p}.attention.self.{m}")) for m in ("query", "key", "value"))
        sc = q @ k.transpose(0, 1, 3, 2) / math.sqrt(s.head) + ext
        sc = np.exp(sc - sc.max(-1, keepdims=True))
        ctx = ((sc / sc.sum(-1, keepdims=True)) @ v).transpose(0, 2, 1, 3).reshape(b, n, s.hidden)
        h = ln(lin(ctx, f"{p}.attention.output.dense") + h, f"{p}.attention.output.LayerNorm")
        x = lin(h, f"{p}.intermediate.dense")
        x = 0.5 * x * (1.0 + erf_v(x / math.sqrt(2.0)))
        h = ln(lin(x, f"{p}.output.dense") + h, f"{p}.output.LayerNorm")
    return h


def pool(hidden, mask, pooling: str) -> np.ndarray:
    """fastembed's pooling of last_hidden_state (mean over the attended tokens, or the
    first token), L2-normalised."""
    if pooling == "cls":
        pooled = hidden[:, 0].astype(np.float64)
    else:
        m = mask[..., None].astype(np.float64)
        pooled = (hidden * m).sum(1) / m.sum(1)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def verify(folder: Path) -> dict:
    """Loads through fastembed as cursor-memory does, embeds passages and a query, and
    compares fastembed's output with a plain onnxruntime session (pooled as the model's
    registry entry says) and with numpy (fp32 graphs; for a static model, the mean of its
    rows)."""
    folder = Path(folder)
    s = shape_of(folder)
    stamp = json.loads((folder / "standin.json").read_text())
    model, seconds = load(folder, threads=1)
    inner = model.model
    desc = inner.model_description
    texts = sentences(8)
    passages = np.asarray(list(model.passage_embed(texts)))
    query = np.asarray(list(model.query_embed("数据库连接池超时怎么处理")))
    facts = {"shape": s.key, "quantized": stamp.get("quantized", False),
             "load_s": round(seconds, 2), "registry_model_file": desc.model_file,
             "registry_dim": desc.dim, "class": type(inner).__name__,
             "passage_shape": passages.shape, "query_shape": query.shape,
             "norms": [round(float(x), 5) for x in np.linalg.norm(passages, axis=1)[:3]]}

    if s.arch == "static":
        from fastembed.common.safetensors_utils import load_safetensors
        table = load_safetensors(folder / s.model_file)["embeddings"].astype(np.float64)
        tok = inner.tokenizer
        unk = inner.unk_token_id
        rows = []
        for t in texts:
            ids = [i for i in tok.encode(t, add_special_tokens=False).ids if i != unk]
            v = table[ids].mean(0)
            rows.append(v / np.linalg.norm(v))
        facts["numpy_mean_vs_passage_embed_max_abs"] = float(np.abs(np.asarray(rows) - passages).max())
        facts["table"] = list(table.shape)
        return facts

    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper

    # the same tokens through a plain session (default options) and through fastembed's
    ctx = inner.onnx_embed(texts)
    plain = ort.InferenceSession(str(folder / s.model_file), providers=["CPUExecutionProvider"])
    feed = {"input_ids": ctx.input_ids.astype(np.int64),
            "attention_mask": ctx.attention_mask.astype(np.int64),
            "token_type_ids": np.zeros_like(ctx.input_ids, dtype=np.int64)}
    hidden = plain.run(["last_hidden_state"], feed)[0]
    facts["plain_vs_fastembed_max_abs"] = float(np.abs(hidden - ctx.model_output).max())
    pooled = pool(hidden, feed["attention_mask"], s.pooling)
    facts["plain_pooled_vs_passage_embed_max_abs"] = float(np.abs(pooled - passages).max())
    facts["tokens"] = [int(x) for x in ctx.attention_mask.sum(1)]
    if stamp.get("quantized"):
        return facts

    # numpy, from the weights in the file, on two padded texts
    graph = onnx.load(str(folder / s.model_file)).graph
    weights = {t.name: numpy_helper.to_array(t).astype(np.float64)
               for t in graph.initializer if "." in t.name}
    small = {k: v[:2, :12] for k, v in feed.items()}
    small["attention_mask"] = small["attention_mask"].copy()
    small["attention_mask"][1, 9:] = 0
    if s.arch == "jina" and s == SHAPES[DEFAULT_SHAPE]:
        ref = reference_forward(weights, small["input_ids"], small["attention_mask"],
                                small["token_type_ids"])
    elif s.arch == "bert":
        ref = reference_forward_bert(weights, small["input_ids"], small["attention_mask"],
                                     small["token_type_ids"], s)
    else:
        return facts
    got = plain.run(["last_hidden_state"], small)[0]
    keep = small["attention_mask"].astype(bool)
    facts["plain_vs_numpy_max_abs"] = float(np.abs(got - ref)[keep].max())
    return facts


def selftest(work: Path, **size) -> list[dict]:
    """Every shape, fp32 and int8, test-sized (layers=2, hidden=64 unless `size` says
    otherwise), loaded through cursor-memory's own memory_core.embeddings._load as a folder
    setting (CURSOR_MEMORY_MODEL_PATH) does, then `embed` and `embed_query`. A static model
    is refused as a folder (no .onnx file there), so it is also loaded from a download-cache
    layout (install_in_cache). Raises AssertionError on a wrong result."""
    sys.path.insert(0, str(REPO))
    from memory_core import embeddings
    from memory_core.errors import UserError

    size = size or {"layers": 2, "hidden": 64}
    work = Path(work)
    rows = []
    for key in SHAPES:
        for quantized in (False, True):
            folder = work / (key + ("-int8" if quantized else ""))
            kw = {} if SHAPES[key].arch != "static" else {"hidden": size.get("hidden")}
            path = build(folder, shape=key, quantized=quantized,
                         **(kw if SHAPES[key].arch == "static" else size))
            s = shape_of(folder)
            name = register(s)
            row = {"shape": key, "quantized": quantized, "file": str(path.relative_to(folder)),
                   "params": parameter_count(folder)}
            try:
                e = embeddings._load(name, str(folder))
                row["route"] = "folder"
            except UserError as err:
                row["folder_setting"] = str(err)
                old = os.environ.get("XDG_CACHE_HOME")
                os.environ["XDG_CACHE_HOME"] = str(work / ("cache-" + folder.name))
                try:
                    install_in_cache(folder, work / ("cache-" + folder.name))
                    e = embeddings._load(name, None)
                finally:
                    if old is None:
                        os.environ.pop("XDG_CACHE_HOME", None)
                    else:
                        os.environ["XDG_CACHE_HOME"] = old
                row["route"] = "download cache"
            docs = e.embed([s.passage_prefix + t for t in sentences(5)])
            q = e.embed_query(s.query_prefix + "数据库连接池超时怎么处理")
            assert docs.shape == (5, s.hidden) and q.shape == (s.hidden,), (docs.shape, q.shape)
            assert np.allclose(np.linalg.norm(docs, axis=1), 1, atol=1e-4)
            row["dims"] = s.hidden
            rows.append(row)
    return rows


# --- the command line --------------------------------------------------------------------

def grid(folder: Path, batches=(1, 16, 64), lengths=(16, 64, 256), threads=(1, 2),
         min_seconds: float = 3.0) -> list[dict]:
    """texts/s through fastembed for each threads x tokens x batch (one batch of texts
    each: a batch of 1 is one text), with the 1-minute load average: figures taken beside
    other work on the machine are slower, 2 threads much more than 1."""
    rows = []
    for t in threads:
        model, seconds = load(folder, threads=t)
        print(json.dumps({"threads": t, "load_s": round(seconds, 2), "rss_mb": round(rss_mb())}))
        for n in lengths:
            for b in batches:
                texts = texts_of_tokens(model, n, b)
                r = timings(model, texts, b, min_seconds=min_seconds)
                rows.append({"threads": t, "tokens": n, "batch": b, **r,
                             "ms_per_batch": round(1000 * b / r["texts_per_s"], 1),
                             "rss_mb": round(rss_mb()), "load": os.getloadavg()[0]})
                print(json.dumps(rows[-1]), flush=True)
        del model
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--shape", default=DEFAULT_SHAPE, choices=list(SHAPES))
    ap.add_argument("--quantized", action="store_true", help="int8 (quantize_dynamic with QUANT)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="onnxruntime threads (default 1)")
    ap.add_argument("--verify", action="store_true", help="compare fastembed, onnxruntime, numpy")
    ap.add_argument("--grid", action="store_true", help="batch 1/16/64 x 16/64/256 tokens x 1/2 threads")
    ap.add_argument("--selftest", action="store_true",
                    help="every shape, fp32 and int8, test-sized, in FOLDER, through "
                         "memory_core.embeddings._load")
    ap.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)

    if a.selftest:
        for row in selftest(a.folder):
            print(json.dumps(row, ensure_ascii=False))
        return 0
    s = get_shape(a.shape)
    model_path = a.folder / s.model_file
    if a.build_only:
        stamp = a.folder / "standin.json"
        before = stamp.stat().st_mtime if stamp.exists() else None
        start = time.perf_counter()
        build(a.folder, shape=a.shape, seed=a.seed, quantized=a.quantized)
        if stamp.stat().st_mtime != before:
            print(f"built in {time.perf_counter() - start:.1f} s")
        return 0
    # built in a child, so that this process's memory figures are those of loading alone
    subprocess.run([sys.executable, __file__, str(a.folder), "--seed", str(a.seed),
                    "--shape", a.shape, "--build-only"] + (["--quantized"] if a.quantized else []),
                   check=True)
    params = parameter_count(a.folder)
    print(f"model      {s.model} stand-in{' int8' if a.quantized else ''}, random weights "
          f"(seed {a.seed}) in {model_path}")
    print(f"parameters {params:,} ({params / s.published_params - 1:+.2%} vs "
          f"{s.published_params / 1e6:.0f}M)")
    print(f"file       {model_path.stat().st_size / 1e9:.3f} GB")

    if a.verify:
        for k, v in verify(a.folder).items():
            print(f"{k:40} {v}")
        return 0
    if a.grid:
        grid(a.folder)
        return 0

    import fastembed  # noqa: F401  (its import time is not the model's load time)
    before = rss_mb()
    model, seconds = load(a.folder, threads=a.threads)
    print(f"load       {seconds:.2f} s through fastembed (threads={a.threads}); "
          f"RSS {before:.0f} -> {rss_mb():.0f} MB")
    texts = sentences(64)
    tok = getattr(model.model, "tokenizer", None)
    tokens = [sum(e.attention_mask) for e in tok.encode_batch(texts)]
    tps = throughput(model, texts, 64)
    print(f"speed      {tps:.1f} texts/s, 64 short mixed zh/en texts in one batch of 64 "
          f"({min(tokens)}-{max(tokens)} tokens, mean {statistics.mean(tokens):.1f}); "
          f"peak RSS {rss_mb('VmHWM'):.0f} MB")
    one = throughput(model, texts[:8], 1)
    print(f"query      {1000 / one:.1f} ms for one short text")
    return 0


if __name__ == "__main__":
    sys.exit(main())
