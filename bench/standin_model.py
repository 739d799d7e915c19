#!/usr/bin/env python3
"""A stand-in for the default embedding model, jinaai/jina-embeddings-v2-base-zh, with its
exact shape and random weights, so that its speed and memory can be measured offline.

The real model (161M parameters, 0.64 GB fp32 ONNX) cannot be downloaded here. This builds an
ONNX graph of the same architecture, JinaBERT v2 as in jina's modeling_bert.py:

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

    python bench/standin_model.py /tmp/standin            # build (once), load, embed 64 texts
    python bench/standin_model.py /tmp/standin --verify   # fastembed == onnxruntime == numpy
    python bench/standin_model.py /tmp/standin --grid     # batch x tokens x threads

    from standin_model import build, MODEL_NAME
    folder = build(Path("/tmp/standin")).parent.parent   # build returns onnx/model.onnx
    TextEmbedding(MODEL_NAME, specific_model_path=str(folder), local_files_only=True, threads=1)

Needs `onnx` (a bench dependency, not a runtime one) besides numpy, onnxruntime, fastembed.
"""
from __future__ import annotations

import argparse
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


def config() -> dict:
    """config.json: the public one of jina-embeddings-v2-base-zh as far as it is known, and
    a note that this is a stand-in. fastembed reads only pad_token_id from it."""
    return {
        "_name_or_path": "standin/jina-embeddings-v2-base-zh",
        "standin": "random weights, same shape; bench/standin_model.py",
        "architectures": ["JinaBertModel"], "model_type": "bert",
        "vocab_size": VOCAB, "hidden_size": HIDDEN, "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS, "intermediate_size": INTERMEDIATE,
        "hidden_act": "gelu", "feed_forward_type": "geglu",
        "position_embedding_type": "alibi", "max_position_embeddings": MAX_TOKENS,
        "type_vocab_size": TYPE_VOCAB, "layer_norm_eps": EPS, "pad_token_id": 0,
        "emb_pooler": "mean",
    }


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

    def layer_norm(self, x, prefix):
        return self.op("LayerNormalization", [x, self.weight(f"{prefix}.weight", (HIDDEN,), "one"),
                                              self.weight(f"{prefix}.bias", (HIDDEN,), "zero")],
                       axis=-1, epsilon=EPS)


def make_model(seed: int = 0):
    """The ONNX ModelProto (about 0.64 GB in memory) and its parameter count."""
    from onnx import TensorProto, helper

    g = _Graph(np.random.default_rng(seed))
    dims = ["batch", "sequence"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims)
              for n in ("input_ids", "attention_mask", "token_type_ids")]

    # embeddings: word + token type (ALiBi replaces the position table), LayerNorm
    word = g.weight("embeddings.word_embeddings.weight", (VOCAB, HIDDEN), padding_row=0)
    types = g.weight("embeddings.token_type_embeddings.weight", (TYPE_VOCAB, HIDDEN))
    h = g.op("Add", [g.op("Gather", [word, "input_ids"], axis=0),
                     g.op("Gather", [types, "token_type_ids"], axis=0)])
    h = g.layer_norm(h, "embeddings.LayerNorm")

    # padding mask [batch, 1, 1, seq]: 0 where attended, float32 min where padded
    m = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    m = g.op("Mul", [g.op("Sub", [g.const(1.0), m]), g.const(np.finfo(np.float32).min)])
    mask = g.op("Unsqueeze", [m, g.const([1, 2], np.int64)])

    # symmetric ALiBi [1, heads, seq, seq]: -slope_h * |i - j|, from the sequence length
    seq = g.op("Gather", [g.op("Shape", ["input_ids"]), g.const(1, np.int64)], axis=0)
    pos = g.op("Cast", [g.op("Range", [g.const(0, np.int64), seq, g.const(1, np.int64)])],
               to=TensorProto.FLOAT)
    rel = g.op("Abs", [g.op("Sub", [g.op("Unsqueeze", [pos, g.const([1], np.int64)]),
                                    g.op("Unsqueeze", [pos, g.const([0], np.int64)])])])
    slopes = -np.asarray(alibi_slopes(), np.float32).reshape(1, HEADS, 1, 1)
    alibi = g.op("Mul", [g.const(slopes), g.op("Unsqueeze", [rel, g.const([0, 1], np.int64)])])

    heads_shape = g.const([0, 0, HEADS, HEAD], np.int64)
    merged_shape = g.const([0, 0, HIDDEN], np.int64)
    scale, half, one = g.const(math.sqrt(HEAD)), g.const(0.5), g.const(1.0)
    sqrt2 = g.const(math.sqrt(2.0))
    cut = [g.const([a], np.int64) for a in (0, INTERMEDIATE, 2 * INTERMEDIATE)]
    last = g.const([2], np.int64)
    for i in range(LAYERS):
        p = f"encoder.layer.{i}"

        def split_heads(x, perm):
            return g.op("Transpose", [g.op("Reshape", [x, heads_shape])], perm=perm)

        q = split_heads(g.linear(h, f"{p}.attention.self.query", HIDDEN, HIDDEN), [0, 2, 1, 3])
        k = split_heads(g.linear(h, f"{p}.attention.self.key", HIDDEN, HIDDEN), [0, 2, 3, 1])
        v = split_heads(g.linear(h, f"{p}.attention.self.value", HIDDEN, HIDDEN), [0, 2, 1, 3])
        s = g.op("Div", [g.op("MatMul", [q, k]), scale])
        s = g.op("Add", [g.op("Add", [s, mask]), alibi])
        ctx = g.op("MatMul", [g.op("Softmax", [s], axis=-1), v])
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merged_shape])
        o = g.linear(ctx, f"{p}.attention.output.dense", HIDDEN, HIDDEN)
        h = g.layer_norm(g.op("Add", [o, h]), f"{p}.attention.output.LayerNorm")

        # GEGLU: gated_layers (no bias) -> GELU(first half) * second half -> wo
        gl = g.linear(h, f"{p}.mlp.gated_layers", HIDDEN, 2 * INTERMEDIATE, bias=False)
        gate = g.op("Slice", [gl, cut[0], cut[1], last])
        value = g.op("Slice", [gl, cut[1], cut[2], last])
        erf = g.op("Erf", [g.op("Div", [gate, sqrt2])])  # exact GELU, as torch exports it
        gelu = g.op("Mul", [g.op("Mul", [gate, g.op("Add", [erf, one])]), half])
        o = g.linear(g.op("Mul", [gelu, value]), f"{p}.mlp.wo", INTERMEDIATE, HIDDEN)
        h = g.layer_norm(g.op("Add", [o, h]), f"{p}.mlp.layernorm")

    g.op("Identity", [h], outputs=["last_hidden_state"])
    first = g.op("Gather", [h, g.const(0, np.int64)], axis=1)
    g.op("Tanh", [g.linear(first, "pooler.dense", HIDDEN, HIDDEN)], outputs=["pooler_output"])

    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                             dims + [HIDDEN]),
               helper.make_tensor_value_info("pooler_output", TensorProto.FLOAT,
                                             ["batch", HIDDEN])]
    graph = helper.make_graph(g.nodes, "jina_bert_v2_standin", inputs, outputs, g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="cursor-memory bench/standin_model.py")
    model.ir_version = 8
    return model, g.params


def build(folder: Path, *, seed: int = 0) -> Path:
    """Write `<folder>/onnx/model.onnx` with the tokenizer and config files fastembed reads,
    or reuse them when a build of this format and seed is there. Returns the ONNX path."""
    import onnx

    folder = Path(folder)
    onnx_path = folder / MODEL_FILE
    stamp_path = folder / "standin.json"
    want = {"format": FORMAT, "seed": seed}
    try:
        stamp = json.loads(stamp_path.read_text())
        if ({k: stamp.get(k) for k in want} == want
                and onnx_path.stat().st_size == stamp["onnx_bytes"]
                and all((folder / f).exists() for f in TOKENIZER_FILES + ("config.json",))):
            return onnx_path
    except (OSError, ValueError, KeyError):
        pass

    source = next((d for d in TOKENIZER_DIRS if (d / "tokenizer.json").exists()), None)
    if source is None:
        raise FileNotFoundError(f"no tokenizer files in any of {TOKENIZER_DIRS}")
    onnx_path.parent.mkdir(parents=True, exist_ok=True)
    stamp_path.unlink(missing_ok=True)
    for name in ("tokenizer.json", "special_tokens_map.json"):
        shutil.copy(source / name, folder / name)
    tok_cfg = json.loads((source / "tokenizer_config.json").read_text())
    tok_cfg["model_max_length"] = MAX_TOKENS
    (folder / "tokenizer_config.json").write_text(json.dumps(tok_cfg, indent=1))
    (folder / "config.json").write_text(json.dumps(config(), indent=1))

    model, params = make_model(seed)
    tmp = onnx_path.with_name(f".model.onnx.{os.getpid()}.tmp")
    onnx.save_model(model, str(tmp))
    del model
    os.replace(tmp, onnx_path)
    stamp_path.write_text(json.dumps({**want, "params": params, "tokenizer_from": str(source),
                                      "onnx_bytes": onnx_path.stat().st_size}, indent=1))
    return onnx_path


def parameter_count(folder: Path) -> int:
    """The count recorded by the build (weights only, no shape or slope constants)."""
    return json.loads((Path(folder) / "standin.json").read_text())["params"]


# --- loading and measuring ---------------------------------------------------------------

def load(folder: Path, threads: int | None = 1):
    """TextEmbedding loaded exactly as cursor-memory loads its model from a folder, and the
    seconds it took."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from fastembed import TextEmbedding

    start = time.perf_counter()
    model = TextEmbedding(MODEL_NAME, cache_dir=tempfile.gettempdir(), local_files_only=True,
                          threads=threads, specific_model_path=str(folder))
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


def verify(folder: Path) -> dict:
    """Loads through fastembed as cursor-memory does, embeds passages and a query, and
    compares fastembed's raw output with a plain onnxruntime session and with numpy."""
    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper

    folder = Path(folder)
    model, seconds = load(folder, threads=1)
    inner = model.model
    desc = inner.model_description
    texts = sentences(8)
    passages = np.asarray(list(model.passage_embed(texts)))
    query = np.asarray(list(model.query_embed("数据库连接池超时怎么处理")))
    facts = {"load_s": round(seconds, 2), "registry_model_file": desc.model_file,
             "registry_dim": desc.dim, "class": type(inner).__name__,
             "passage_shape": passages.shape, "query_shape": query.shape,
             "norms": [round(float(x), 5) for x in np.linalg.norm(passages, axis=1)[:3]]}

    # the same tokens through a plain session (default options) and through fastembed's
    ctx = inner.onnx_embed(texts)
    plain = ort.InferenceSession(str(folder / MODEL_FILE), providers=["CPUExecutionProvider"])
    feed = {"input_ids": ctx.input_ids.astype(np.int64),
            "attention_mask": ctx.attention_mask.astype(np.int64),
            "token_type_ids": np.zeros_like(ctx.input_ids, dtype=np.int64)}
    hidden = plain.run(["last_hidden_state"], feed)[0]
    facts["plain_vs_fastembed_max_abs"] = float(np.abs(hidden - ctx.model_output).max())
    m = feed["attention_mask"][..., None].astype(np.float64)
    pooled = (hidden * m).sum(1) / m.sum(1)
    pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    facts["plain_pooled_vs_passage_embed_max_abs"] = float(np.abs(pooled - passages).max())

    # numpy, from the weights in the file, on two padded texts
    graph = onnx.load(str(folder / MODEL_FILE)).graph
    weights = {t.name: numpy_helper.to_array(t).astype(np.float64)
               for t in graph.initializer if "." in t.name}
    small = {k: v[:2, :12] for k, v in feed.items()}
    small["attention_mask"] = small["attention_mask"].copy()
    small["attention_mask"][1, 9:] = 0
    ref = reference_forward(weights, small["input_ids"], small["attention_mask"],
                            small["token_type_ids"])
    got = plain.run(["last_hidden_state"], small)[0]
    keep = small["attention_mask"].astype(bool)
    facts["plain_vs_numpy_max_abs"] = float(np.abs(got - ref)[keep].max())
    facts["tokens"] = [int(x) for x in ctx.attention_mask.sum(1)]
    return facts


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
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="onnxruntime threads (default 1)")
    ap.add_argument("--verify", action="store_true", help="compare fastembed, onnxruntime, numpy")
    ap.add_argument("--grid", action="store_true", help="batch 1/16/64 x 16/64/256 tokens x 1/2 threads")
    ap.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)

    onnx_path = a.folder / MODEL_FILE
    if a.build_only:
        stamp = a.folder / "standin.json"
        before = stamp.stat().st_mtime if stamp.exists() else None
        start = time.perf_counter()
        build(a.folder, seed=a.seed)
        if stamp.stat().st_mtime != before:
            print(f"built in {time.perf_counter() - start:.1f} s")
        return 0
    # built in a child, so that this process's memory figures are those of loading alone
    subprocess.run([sys.executable, __file__, str(a.folder), "--seed", str(a.seed),
                    "--build-only"], check=True)
    params = parameter_count(a.folder)
    print(f"model      {MODEL_NAME} stand-in, random weights (seed {a.seed}) in {onnx_path}")
    print(f"parameters {params:,} ({params / 161e6 - 1:+.2%} vs 161M)")
    print(f"file       {onnx_path.stat().st_size / 1e9:.3f} GB")

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
    tokens = [sum(e.attention_mask) for e in model.model.tokenizer.encode_batch(texts)]
    tps = throughput(model, texts, 64)
    print(f"speed      {tps:.1f} texts/s, 64 short mixed zh/en texts in one batch of 64 "
          f"({min(tokens)}-{max(tokens)} tokens, mean {statistics.mean(tokens):.1f}); "
          f"peak RSS {rss_mb('VmHWM'):.0f} MB")
    one = throughput(model, texts[:8], 1)
    print(f"query      {1000 / one:.1f} ms for one short text")
    return 0


if __name__ == "__main__":
    sys.exit(main())
