#!/usr/bin/env python3
"""Embedding-model candidates through cursor-memory's own code path, each figure beside a
floor measured in the same run, with the published quality figures in the same table.

Models are stand-ins with each candidate's exact shape and random weights
(bench/standin_model.py: nothing can be downloaded here), so speed and memory carry over and
quality cannot be measured: the quality columns are published figures, with sources.

    python bench/models.py                                # all six (~25-35 min on 2 cores)
    python bench/models.py --only jina,e5-small --texts 200
    python bench/models.py --work /tmp/cm-models          # stand-ins are kept there and reused

Per candidate:
  load       `python -c` importing memory_core.embeddings and calling _load (median of
             --runs), beside a floor: `python -c` importing onnxruntime and opening the same
             file in a plain InferenceSession (a static model: numpy reading its table).
             RSS after load; peak RSS (VmHWM) after Embedder.embed of 32 texts of ~256 tokens.
  texts/s    Embedder.embed of --texts realistic documents (bench/perf.py's sentence(),
             summaries of 2-3 of them, MEMORY.md-like sections of ~150-450 tokens), beside
             the floor: a plain onnxruntime InferenceSession with default options (all cores)
             over the same file and the same token ids (sorted by length), batches of 32,
             mean/CLS pooled and normalised as fastembed does; in turns, medians. Target:
             ours >= floor / 1.3.
  query      Embedder.embed_query of 20 short queries in the warm process: p50 / p95.
  CLI        `python scripts/search_memory.py "<query>" --memory-dir <store>` hybrid, cold,
             with CURSOR_MEMORY_MODEL / CURSOR_MEMORY_MODEL_PATH set to the candidate
             (median of --runs), beside the floor: `python -c` importing fastembed, loading
             the model and embedding one query; in turns. A model cursor-memory cannot load
             is reported "needs support" (and, for one fastembed does not list, also measured
             through a wrapper that registers it first: labelled).

multilingual-e5-small is not in fastembed 0.9.1's registry: it is registered in process with
TextEmbedding.add_custom_model (mean pooling, normalised), and fed "passage: " / "query: "
prefixes as the model requires (cursor-memory adds none today). potion-multilingual-128M
has no .onnx file, which cursor-memory's folder setting requires: it is loaded as a download
would leave it (fastembed's cache layout under XDG_CACHE_HOME, no CURSOR_MEMORY_MODEL_PATH).

Writes bench/results/models.json and models.md (with the command and commit).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
sys.path[:0] = [str(REPO), str(BENCH)]
PY = sys.executable
SEARCH = REPO / "scripts" / "search_memory.py"

# key: (stand-in shape, int8?, label)
CANDIDATES = {
    "jina": ("jina-v2-base-zh", False, "jina-v2-base-zh fp32 (default)"),
    "jina-int8": ("jina-v2-base-zh", True, "jina-v2-base-zh int8"),
    "e5-small": ("multilingual-e5-small", False, "multilingual-e5-small fp32"),
    "e5-small-int8": ("multilingual-e5-small", True, "multilingual-e5-small int8"),
    "bge-small-zh": ("bge-small-zh-v1.5", False, "bge-small-zh-v1.5 fp32"),
    "potion": ("potion-multilingual-128M", False, "potion-multilingual-128M (static)"),
}

# Published retrieval quality (nDCG@10), from /tmp/research/models/REPORT.md. [R]: recomputed
# from embeddings-benchmark/results @ f4cc6c8b365a3c779dbc708d6affe0b0355b2ddf (reproduces
# the leaderboard). MTEB-en: mean of MTEB(eng, v1)'s 15 BEIR tasks / MTEB(eng, v2)'s 10
# retrieval tasks. C-MTEB: mean of its 8 retrieval tasks. MIRACL-zh: dev, full / hard negatives.
QUALITY = {
    "jina-v2-base-zh": {
        "mteb_en": None, "cmteb": "69.40", "miracl_zh": None,
        "source": "C-MTEB: the model card's model-index (self-reported; no independent run); "
                  "MTEB-en and MIRACL-zh: never published (not in the MTEB results repository)"},
    "multilingual-e5-small": {
        "mteb_en": "46.70 / 46.43", "cmteb": "59.94", "miracl_zh": "45.95 / 48.37",
        "source": "[R] embeddings-benchmark/results @ f4cc6c8b"},
    "bge-small-zh-v1.5": {
        "mteb_en": None, "cmteb": "61.77", "miracl_zh": "- / 41.09",
        "source": "[R] @ f4cc6c8b (C-MTEB imported from the BGE card, = its published 61.77); "
                  "MTEB-en and MIRACL-zh full: not published"},
    "potion-multilingual-128M": {
        "mteb_en": "23.64 / 24.10", "cmteb": "32.45", "miracl_zh": "- / 15.01",
        "source": "[R] @ f4cc6c8b; MMTEB retrieval 37.86, bitext mining 40.72 (LaBSE 76.35): "
                  "model2vec results/README.md @ c9014070"},
}
INT8_QUALITY = {
    "jina-v2-base-zh": "int8: no published figure; jina-v2-base-en's int8 ONNX was reported "
                       "returning unrelated results on short inputs (HF discussion "
                       "jinaai/jina-embeddings-v2-base-en #10)",
    "multilingual-e5-small": "int8 (elastic/multilingual-e5-small-optimized card): BEIR FiQA "
                             "-1.39, SciFact -2.22, NFCorpus -0.88 pts; MIRACL de/ru/es/ar/th "
                             "-0.8..+0.1, yo -7.26 pts",
}


# --- texts -------------------------------------------------------------------------------

def documents(n: int, seed: int = 7) -> list[str]:
    """Texts like the store's: 80% lines (perf.sentence: 20-150 characters, zh, en or
    mixed), 12% summaries (2-3 lines), 8% MEMORY.md sections (a heading and 6-16 lines,
    ~150-450 tokens)."""
    from perf import sentence

    rng = random.Random(seed)
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.80:
            out.append(sentence(rng))
        elif r < 0.92:
            out.append("。".join(sentence(rng) for _ in range(rng.randint(2, 3))))
        else:
            head = rng.choice(["## 重要决策", "## 技术栈", "## 环境与配置", "## 注意事项", "## Conventions"])
            out.append(head + "\n" + "\n".join(f"- {sentence(rng)}" for _ in range(rng.randint(6, 16))))
    return out


def long_texts(tokenizer, n: int = 32, tokens: int = 256, seed: int = 11) -> list[str]:
    """n texts of about `tokens` tokens (with this tokenizer), made of store-like lines."""
    from perf import sentence

    rng = random.Random(seed)
    out = []
    for _ in range(n):
        lines = []
        while len(tokenizer.encode("\n".join(lines)).ids) < tokens:
            lines.append(sentence(rng))
        out.append("\n".join(lines))
    return out


def queries(n: int = 20) -> list[str]:
    from perf import bench_queries
    return bench_queries()[:n]


# --- helpers -----------------------------------------------------------------------------

def stats(samples: list) -> dict:
    s = sorted(samples)
    return {"median": statistics.median(s), "p95": s[min(len(s) - 1, round(0.95 * (len(s) - 1)))],
            "min": s[0], "max": s[-1], "n": len(s)}


def load_avg() -> float:
    return round(os.getloadavg()[0], 2)


def run_json(cmd: list, env=None, timeout=3600) -> dict:
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"{cmd[:3]}... failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def timed(cmd: list, env=None) -> tuple:
    """(wall ms, completed process) of a whole process."""
    t = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    return (time.perf_counter() - t) * 1000, out


class Candidate:
    def __init__(self, key: str, work: Path):
        from standin_model import get_shape
        self.key = key
        self.shape_key, self.quantized, self.label = CANDIDATES[key]
        self.shape = get_shape(self.shape_key)
        self.work = work
        self.folder = work / "models" / (self.shape_key + ("-int8" if self.quantized else ""))
        self.fp32_folder = work / "models" / self.shape_key
        self.cache_home = work / "cache" / key
        self.static = self.shape.arch == "static"

    @property
    def file(self) -> Path:
        return self.folder / self.shape.model_file

    def build(self) -> dict:
        """Build (or reuse) in a child: its memory is not ours."""
        code = ("import sys, json, time; sys.path.insert(0, %r)\n"
                "from pathlib import Path; from standin_model import build, install_in_cache\n"
                "import logging; logging.getLogger().setLevel(logging.ERROR)\n"
                "t = time.perf_counter()\n"
                "if %r: build(Path(%r), shape=%r)\n"
                "p = build(Path(%r), shape=%r, quantized=%r, from_fp32=Path(%r))\n"
                "if %r: install_in_cache(Path(%r), Path(%r))\n"
                "print(json.dumps({'seconds': time.perf_counter() - t}))"
                % (str(BENCH), self.quantized, str(self.fp32_folder), self.shape_key,
                   str(self.folder), self.shape_key, self.quantized, str(self.fp32_folder),
                   self.static, str(self.folder), str(self.cache_home)))
        return run_json([PY, "-c", code])

    def env(self) -> dict:
        """How cursor-memory is pointed at this model: a folder setting, or (a static
        model, which the folder setting refuses) the download cache."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("CURSOR_MEMORY")}
        env["CURSOR_MEMORY_MODEL"] = self.shape.model
        env["HF_HUB_OFFLINE"] = "1"
        if self.static:
            env["XDG_CACHE_HOME"] = str(self.cache_home)
        else:
            env["CURSOR_MEMORY_MODEL_PATH"] = str(self.folder)
        return env

    def path_setting(self):
        return None if self.static else str(self.folder)

    def register_code(self) -> str:
        """Python registering the model with fastembed when it does not list it."""
        if self.shape.native:
            return ""
        return ("from standin_model import register\nregister(%r)\n" % self.shape_key)


# --- the child: one candidate in one process ---------------------------------------------

def child_inproc(key: str, work: Path, n_texts: int, turns: int, floor1: bool = False) -> dict:
    """Load through memory_core.embeddings._load, RSS, a 32 x ~256-token batch (peak RSS),
    warm queries, then Embedder.embed vs the floor in turns."""
    import numpy as np

    c = Candidate(key, work)
    os.environ.update({k: v for k, v in c.env().items() if k in ("XDG_CACHE_HOME", "HF_HUB_OFFLINE")})
    import logging
    logging.getLogger().setLevel(logging.ERROR)
    import warnings
    warnings.simplefilter("ignore")
    from memory_core import embeddings
    from standin_model import pool, register, rss_mb

    res = {"rss_before_mb": rss_mb()}
    t = time.perf_counter()
    name = register(c.shape)
    e = embeddings._load(name, c.path_setting())
    res["load_s"] = time.perf_counter() - t
    res["rss_after_load_mb"] = rss_mb()
    inner = e.model.model
    tok = inner.tokenizer
    pp, qp = c.shape.passage_prefix, c.shape.query_prefix

    # peak memory of one batch of 32 long texts, through the project's batching
    longs = [pp + x for x in long_texts(tok, 32, 256)]
    t = time.perf_counter()
    e.embed(longs)
    res["long32"] = {"seconds": time.perf_counter() - t, "tokens_mean":
                     statistics.mean(len(tok.encode(x).ids) for x in longs)}
    res["rss_after_long32_mb"] = rss_mb()
    res["peak_rss_after_long32_mb"] = rss_mb("VmHWM")

    # warm queries
    qs = [qp + q for q in queries(20)]
    e.embed_query(qs[0])
    lat = []
    for q in qs:
        t = time.perf_counter()
        e.embed_query(q)
        lat.append((time.perf_counter() - t) * 1000)
    res["query_ms"] = stats(lat)

    # the documents, their token ids as the model reads them, and the floor
    docs = [pp + x for x in documents(n_texts)]
    if c.static:
        unk = inner.unk_token_id
        ids = [[i for i in enc.ids if i != unk]
               for enc in tok.encode_batch(docs, add_special_tokens=False)]
        table = inner.embeddings

        def floor():
            order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
            out = np.empty((len(ids), table.shape[1]), np.float32)
            for b in range(0, len(order), 32):
                for i in order[b:b + 32]:
                    v = table[ids[i]].sum(0)
                    out[i] = v / (np.linalg.norm(v) or 1.0)
            return out
    else:
        import onnxruntime as ort
        ids = [enc.ids[:sum(enc.attention_mask)] for enc in tok.encode_batch(docs)]
        sess = ort.InferenceSession(str(c.file), providers=["CPUExecutionProvider"])
        so = ort.SessionOptions()
        so.intra_op_num_threads = so.inter_op_num_threads = 1
        sess1 = ort.InferenceSession(str(c.file), so, providers=["CPUExecutionProvider"]) \
            if floor1 else None
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        feeds = []
        for b in range(0, len(order), 32):
            batch = [ids[i] for i in order[b:b + 32]]
            width = max(map(len, batch))
            a = np.zeros((len(batch), width), np.int64)
            m = np.zeros_like(a)
            for r, x in enumerate(batch):
                a[r, :len(x)], m[r, :len(x)] = x, 1
            feeds.append({"input_ids": a, "attention_mask": m, "token_type_ids": np.zeros_like(a)})

        def floor(s=sess):
            return [pool(s.run(["last_hidden_state"], f)[0], f["attention_mask"], c.shape.pooling)
                    for f in feeds]
        sess.run(["last_hidden_state"], feeds[0])  # warm-up
    lengths = [len(x) for x in ids]
    # padded tokens each side computes: the project's batches (plan_batches) vs the floor's
    planned = embeddings.plan_batches(docs, e.workers)
    res["padded_tokens"] = {
        "ours": sum(len(b) * max(lengths[i] for i in b) for b in planned),
        "floor": sum(len(b) * max(lengths[i] for i in b)
                     for b in (sorted(range(len(ids)), key=lambda i: lengths[i])[k:k + 32]
                               for k in range(0, len(ids), 32))),
        "ours_batches": len(planned)}
    res["docs"] = {"n": len(docs), "tokens_mean": statistics.mean(lengths),
                   "tokens_median": statistics.median(lengths), "tokens_max": max(lengths),
                   "tokens_total": sum(lengths),
                   "over_100_tokens": sum(x > 100 for x in lengths)}

    encode = ((lambda: tok.encode_batch_fast(docs, add_special_tokens=False)) if c.static
              else (lambda: tok.encode_batch(docs)))
    ours_s, floor_s, floor1_s, tok_s, loads, ours_cpu, floor_cpu = [], [], [], [], [], [], []
    for _ in range(turns):
        loads.append(load_avg())
        t, cpu = time.perf_counter(), time.process_time()
        vecs = e.embed(docs)
        ours_s.append(time.perf_counter() - t)
        ours_cpu.append(time.process_time() - cpu)
        t, cpu = time.perf_counter(), time.process_time()
        floor()
        floor_s.append(time.perf_counter() - t)
        floor_cpu.append(time.process_time() - cpu)
        t = time.perf_counter()
        encode()
        tok_s.append(time.perf_counter() - t)
        if floor1 and not c.static:
            t = time.perf_counter()
            floor(sess1)
            floor1_s.append(time.perf_counter() - t)
    assert vecs.shape == (len(docs), c.shape.hidden)
    res["ours_texts_per_s"] = [len(docs) / s for s in ours_s]
    res["floor_texts_per_s"] = [len(docs) / s for s in floor_s]
    res["tokenize_s"] = tok_s
    # CPU seconds per pass (all threads): the work done, steadier than wall beside other jobs
    # (the floor's also counts onnxruntime's threads spinning between operators)
    res["ours_cpu_s"], res["floor_cpu_s"] = ours_cpu, floor_cpu
    res["ours_over_floor"] = statistics.median(f / o for o, f in zip(ours_s, floor_s))
    # the floor plus tokenising the same texts once (what ours must also do)
    res["ours_over_floor_plus_tokenize"] = statistics.median(
        (f + k) / o for o, f, k in zip(ours_s, floor_s, tok_s))
    if floor1_s:
        res["floor_1thread_texts_per_s"] = [len(docs) / s for s in floor1_s]
    res["load_avg"] = loads
    res["peak_rss_end_mb"] = rss_mb("VmHWM")
    res["workers"] = e.workers
    return res


LOAD_CODE = """import sys, time, json, os
t0 = time.perf_counter()
sys.path[:0] = [{repo!r}, {bench!r}]
import logging, warnings; logging.getLogger().setLevel(logging.ERROR); warnings.simplefilter("ignore")
from memory_core import embeddings
t1 = time.perf_counter()
{register}e = embeddings._load({name!r}, {path!r})
t2 = time.perf_counter()
rss = int([l for l in open('/proc/self/status') if l.startswith('VmRSS')][0].split()[1]) / 1024
print(json.dumps({{"import_s": t1 - t0, "load_s": t2 - t1, "rss_mb": rss}}))
"""


def cold_load(c: Candidate, runs: int) -> dict:
    """_load in a new process, beside a plain session (or numpy read) of the same file, in turns."""
    code = LOAD_CODE.format(repo=str(REPO), bench=str(BENCH), register=c.register_code(),
                            name=c.shape.model, path=c.path_setting())
    if c.static:
        floor = f"import numpy as np\na = np.fromfile({str(c.file)!r}, dtype=np.uint8)"
    else:
        floor = ("import onnxruntime as ort\n"
                 f"s = ort.InferenceSession({str(c.file)!r}, providers=['CPUExecutionProvider'])")
    ours, floors, inner, rss = [], [], [], []
    for _ in range(runs):
        ms, out = timed([PY, "-c", code], c.env())
        if out.returncode != 0:
            raise RuntimeError(out.stderr[-2000:])
        r = json.loads(out.stdout.strip().splitlines()[-1])
        ours.append(ms)
        inner.append(r["load_s"] * 1000)
        rss.append(r["rss_mb"])
        ms, out = timed([PY, "-c", floor])
        if out.returncode != 0:
            raise RuntimeError(out.stderr[-2000:])
        floors.append(ms)
    return {"process_ms": stats(ours), "load_call_ms": stats(inner), "floor_ms": stats(floors),
            "rss_after_load_mb": statistics.median(rss)}


# --- which int8 recipe --------------------------------------------------------------------

RECIPES = {
    "QInt8": {"weight_type": "QInt8", "per_channel": False, "reduce_range": False},
    "QInt8+rr": {"weight_type": "QInt8", "per_channel": False, "reduce_range": True},
    "QInt8+pc": {"weight_type": "QInt8", "per_channel": True, "reduce_range": False},
    "QInt8+pc+rr": {"weight_type": "QInt8", "per_channel": True, "reduce_range": True},
    "QUInt8": {"weight_type": "QUInt8", "per_channel": False, "reduce_range": False},
    "QUInt8+pc": {"weight_type": "QUInt8", "per_channel": True, "reduce_range": False},
}
RECIPE_INPUTS = {"16x64": (16, 64, 3), "1x16": (1, 16, 15), "4x256": (4, 256, 3)}  # b, n, runs


def child_recipes(shapes: list, work: Path) -> dict:
    """fp32 and each quantize_dynamic recipe of each shape, 1-thread sessions as fastembed
    opens them (threads=1, ORT_ENABLE_ALL), run in turns on random ids: median CPU ms per
    run (steadier than wall beside other jobs), file size, and the smallest cosine of the
    pooled output to fp32's (random weights: a check that it runs, not a quality figure)."""
    import logging

    import numpy as np
    import onnxruntime as ort
    from standin_model import build, get_shape, pool, quantize

    logging.getLogger().setLevel(logging.ERROR)
    out = {}
    for key in shapes:
        s = get_shape(key)
        files = {"fp32": build(work / "models" / key, shape=key)}
        for name, r in RECIPES.items():
            dst = work / "recipes" / key / f"{name}.onnx"
            dst.parent.mkdir(parents=True, exist_ok=True)
            if not dst.exists():
                quantize(files["fp32"], dst, r)
            files[name] = dst
        sessions = {}
        for name, f in files.items():
            so = ort.SessionOptions()
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            so.intra_op_num_threads = so.inter_op_num_threads = 1
            sessions[name] = ort.InferenceSession(str(f), so, providers=["CPUExecutionProvider"])
        rng = np.random.default_rng(0)
        res = {n: {"mb": round(f.stat().st_size / 1e6, 1)} for n, f in files.items()}
        for label, (b, n, runs) in RECIPE_INPUTS.items():
            ids = rng.integers(1000, min(s.vocab, 21128), size=(b, n), dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                    "token_type_ids": np.zeros_like(ids)}
            ref = sessions["fp32"].run(["last_hidden_state"], feed)[0]
            cpu = {name: [] for name in sessions}
            for _ in range(runs + 1):
                for name, sess in sessions.items():  # in turns
                    t = time.process_time()
                    got = sess.run(["last_hidden_state"], feed)[0]
                    cpu[name].append(time.process_time() - t)
                    if label == "16x64":
                        a, b_ = pool(got, feed["attention_mask"], s.pooling), pool(ref, feed["attention_mask"], s.pooling)
                        res[name]["cos_vs_fp32_min"] = round(float((a * b_).sum(1).min()), 4)
            for name in sessions:
                res[name][label + "_cpu_ms"] = round(1000 * statistics.median(cpu[name][1:]), 1)
        out[key] = res
    return out


def recipes_md(rec: dict) -> str:
    lines = ["| shape | recipe | file | 16 x 64 tokens | 1 x 16 | 4 x 256 | min cos to fp32 |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for shape, res in rec["results"].items():
        for name, r in res.items():
            lines.append(f"| {shape} | {name} | {r['mb']:.0f} MB | {r['16x64_cpu_ms']:.0f} ms | "
                         f"{r['1x16_cpu_ms']:.1f} ms | {r['4x256_cpu_ms']:.0f} ms | "
                         f"{r.get('cos_vs_fp32_min', 1):.4f} |")
    return "\n".join(lines)


# --- the command line search on a small store --------------------------------------------

SHIM = """import sys
sys.path[:0] = [{repo!r}, {bench!r}]
from standin_model import register
register({shape!r})
from memory_core.cli import main
sys.exit(main(sys.argv[1:]))
"""


def base_store(work: Path, records: int) -> Path:
    from perf import make_store
    root = work / "store-base"
    if not (root / "MEMORY.md").exists():
        shutil.rmtree(root, ignore_errors=True)
        make_store(root, records)
    return root


def cli_search(c: Candidate, work: Path, records: int, runs: int) -> dict:
    """search_memory.py hybrid, cold, on a store whose vectors this model made, beside the
    floor (import fastembed + load + one query), in turns."""
    base = base_store(work, records)
    root = work / "stores" / c.key
    env = c.env()
    out: dict = {}
    shim = None
    if not c.shape.native:
        shim = work / f"cli_shim_{c.shape_key}.py"
        shim.write_text(SHIM.format(repo=str(REPO), bench=str(BENCH), shape=c.shape_key))
    q = queries(2)[1]
    # fresh store copy (an index made by another model would be re-embedded)
    if not (root / "index.sqlite").exists():
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(base, root, ignore=shutil.ignore_patterns("index.sqlite*", "*.lock"))
    cli = [PY, "-m", "memory_core"] if shim is None else [PY, str(shim)]
    t = time.perf_counter()
    emb = subprocess.run(cli + ["embed", "--memory-dir", str(root), "--json"], env=env,
                         capture_output=True, text=True, cwd=str(REPO))
    out["index_embed_s"] = time.perf_counter() - t
    if emb.returncode != 0:
        out["index_embed_error"] = emb.stderr.strip()[-300:]
    probe = subprocess.run([PY, str(SEARCH), q, "--memory-dir", str(root), "--json"], env=env,
                           capture_output=True, text=True)
    res = json.loads(probe.stdout) if probe.returncode == 0 else {"notes": [probe.stderr[-300:]]}
    vec_hits = sum(1 for r in res.get("results", []) if r.get("vec_rank"))
    out["notes"] = res.get("notes", [])
    out["supported"] = vec_hits > 0 and not res.get("keyword_only")
    floor_code = ("import sys, os, warnings; warnings.simplefilter('ignore')\n"
                  f"sys.path.insert(0, {str(BENCH)!r})\n" + c.register_code() +
                  "from fastembed import TextEmbedding\n"
                  f"m = TextEmbedding({c.shape.model!r}, "
                  + (f"specific_model_path={str(c.folder)!r}" if not c.static else
                     f"cache_dir={str(c.cache_home / 'cursor-memory' / 'models')!r}, local_files_only=True")
                  + ")\nlist(m.query_embed('x'))")
    search = [PY, str(SEARCH), q, "--memory-dir", str(root)]
    if not out["supported"] and shim is not None:
        # what it would cost once supported: the same CLI through a wrapper registering it
        search = [PY, str(shim), "search", q, "--memory-dir", str(root)]
        res = json.loads(subprocess.run(search + ["--json"], env=env, capture_output=True,
                                        text=True).stdout or "{}")
        out["via_registration_wrapper"] = any(r.get("vec_rank") for r in res.get("results", []))
    ours, floors, failures = [], [], []
    for _ in range(runs):
        ms, p = timed(search, env)
        if p.returncode != 0:  # reported, and the run left out
            failures.append(p.stderr.strip()[-500:])
            if len(failures) > runs:
                raise RuntimeError(failures[-1])
            continue
        ours.append(ms)
        ms, p = timed([PY, "-c", floor_code], env)
        if p.returncode != 0:
            raise RuntimeError(p.stderr[-2000:])
        floors.append(ms)
    if c.static:
        out["route"] = "download cache"  # a folder setting is refused: no .onnx file
    if failures:
        out["failed_runs"] = failures
    if not ours:
        raise RuntimeError(failures[-1])
    out["hybrid_ms"] = stats(ours)
    out["floor_ms"] = stats(floors)
    return out


def fts_cold(work: Path, records: int, runs: int) -> dict:
    base = base_store(work, records)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURSOR_MEMORY")}
    env["CURSOR_MEMORY_MODEL"] = "none/keyword-only"
    cmd = [PY, str(SEARCH), queries(2)[1], "--mode", "fts", "--memory-dir", str(base)]
    subprocess.run(cmd, env=env, capture_output=True)
    return stats([timed(cmd, env)[0] for _ in range(runs)])


# --- report ------------------------------------------------------------------------------

def fmt(x, spec=".0f", none="missing"):
    return none if x is None else format(x, spec)


def table(results: dict) -> str:
    head = ("| candidate | file | load, cold process: ours / floor | RSS after load | peak RSS, "
            "32 x 256 tok | texts/s ours / floor (ours/floor) | query p50 / p95 | CLI hybrid, "
            "cold: ours / floor | MTEB-en retr. v1 / v2 | C-MTEB retr. | MIRACL-zh full / HN |")
    lines = [head, "|" + "---|" * 11]
    for key, r in results.items():
        if "error" in r:
            lines.append(f"| {r['label']} | error: {r['error'][:80]} |" + " |" * 9)
            continue
        qual = QUALITY[r["shape"]]
        ip, ld, cli = r.get("inproc", {}), r.get("load", {}), r.get("cli", {})
        err = {p: "error (see models.json)" for p in ("load", "inproc", "cli") if p + "_error" in r}
        tps = (f"{statistics.median(ip['ours_texts_per_s']):.1f} / "
               f"{statistics.median(ip['floor_texts_per_s']):.1f} ({ip['ours_over_floor']:.2f})"
               if ip else "-")
        if cli:
            cli_cell = f"{cli['hybrid_ms']['median']:.0f} / {cli['floor_ms']['median']:.0f} ms"
            if not cli["supported"]:
                cli_cell = ("needs support" + (f"; via a registering wrapper {cli_cell}"
                                               if cli.get("via_registration_wrapper") else ""))
            elif cli.get("route"):
                cli_cell += " (as a download; a folder setting needs support)"
        else:
            cli_cell = err.get("cli", "-")
        mark = " (fp32's)" if r["quantized"] else ""
        lines.append(
            f"| {r['label']} | {r['file_mb']:.0f} MB | "
            + (f"{ld['process_ms']['median'] / 1000:.2f} / {ld['floor_ms']['median'] / 1000:.2f} s | "
               f"{ld['rss_after_load_mb']:.0f} MB | " if ld else f"{err.get('load', '-')} | - | ")
            + (f"{ip['peak_rss_after_long32_mb']:.0f} MB | {tps} | "
               f"{ip['query_ms']['median']:.1f} / {ip['query_ms']['p95']:.1f} ms | " if ip
               else f"{err.get('inproc', '-')} | - | - | ")
            + f"{cli_cell} | {fmt(qual['mteb_en'], 's')}{mark if qual['mteb_en'] else ''} | "
            f"{qual['cmteb']}{mark} | {fmt(qual['miracl_zh'], 's')}{mark if qual['miracl_zh'] else ''} |")
    return "\n".join(lines)


def markdown(doc: dict) -> str:
    out = ["# Embedding-model candidates through cursor-memory's code path\n",
           f"Command: `{doc['command']}` at commit `{doc['commit']}`, {doc['date']}.",
           (f"Uncommitted at the start of the run: {', '.join(doc['uncommitted'])}.\n"
            if doc.get("uncommitted") else "") +
           f"Machine: {doc['machine']}; onnxruntime {doc['versions']['onnxruntime']}, fastembed "
           f"{doc['versions']['fastembed']}. 1-min load average during the run: "
           f"{min(doc['load_avg'])}-{max(doc['load_avg'])} (other jobs share the 2 cores: "
           "ratios to the floors, taken in turns, compare better than absolute figures).\n",
           "Models are stand-ins with each candidate's exact shape and random weights "
           "(bench/standin_model.py), tokenised with all-MiniLM's WordPiece (one token per "
           "Chinese character: token counts are an upper bound for the real zh tokenisers). "
           "Quality columns are published figures, not measured here.\n",
           table(doc["results"]), ""]
    out.append("Columns: *load* = wall time of `python -c` importing memory_core.embeddings and "
               "calling `_load` (median of %d) / floor = `python -c` importing onnxruntime and "
               "opening the same file (static: numpy reading it). *peak RSS* = VmHWM after "
               "`Embedder.embed` of 32 texts of ~256 tokens. *texts/s* = `Embedder.embed` of %d "
               "documents (%s) / floor = plain InferenceSession, default options (all cores), "
               "same token ids sorted by length, batches of 32, pooled; medians of %d turns; "
               "target ours/floor >= 0.77 (floor / 1.3). *query* = warm `embed_query`, 20 short "
               "queries. *CLI* = `search_memory.py` hybrid on a %d-record store, cold, median "
               "of %d / floor = import fastembed + load + one query. Quality: nDCG@10; "
               "int8 rows show the fp32 model's figures.\n"
               % (doc["runs"], doc["texts"], doc.get("docs_desc", ""), doc["turns"],
                  doc["store_records"], doc["runs"]))
    out.append("Sources of the quality figures (from /tmp/research/models/REPORT.md):\n")
    for shape, q in QUALITY.items():
        out.append(f"- {shape}: {q['source']}" + (f". {INT8_QUALITY[shape]}" if shape in INT8_QUALITY else ""))
    out.append("")
    out.append("Per candidate (all figures in models.json):\n")
    for key, r in doc["results"].items():
        if "error" in r:
            continue
        ip, cli = r.get("inproc", {}), r.get("cli", {})
        bits = [f"**{r['label']}**: file {r['file']} ({r['file_mb']:.0f} MB)"]
        if ip:
            bits.append(f"in-process `_load` {ip['load_s']:.2f} s; tokenising all documents "
                        f"{statistics.median(ip['tokenize_s']) * 1000:.0f} ms (ours / (floor + "
                        f"tokenising): {ip['ours_over_floor_plus_tokenize']:.2f}); ours texts/s per turn "
                        f"{', '.join(f'{x:.1f}' for x in ip['ours_texts_per_s'])}, floor "
                        f"{', '.join(f'{x:.1f}' for x in ip['floor_texts_per_s'])}"
                        + (f", 1-thread floor {', '.join(f'{x:.1f}' for x in ip['floor_1thread_texts_per_s'])}"
                           if ip.get('floor_1thread_texts_per_s') else "")
                        + (f"; CPU s per pass: ours {', '.join(f'{x:.1f}' for x in ip['ours_cpu_s'])}, "
                           f"floor {', '.join(f'{x:.1f}' for x in ip['floor_cpu_s'])}" if 'ours_cpu_s' in ip else "")
                        + f"; documents {ip['docs']['tokens_mean']:.0f} tokens on average "
                        f"(max {ip['docs']['tokens_max']}), {ip['docs']['tokens_total']:,} in all, "
                        f"padded: ours {ip['padded_tokens']['ours']:,} in "
                        f"{ip['padded_tokens']['ours_batches']} batches, floor "
                        f"{ip['padded_tokens']['floor']:,} (padded tokens/s: ours "
                        f"{ip['padded_tokens']['ours'] * statistics.median(ip['ours_texts_per_s']) / ip['docs']['n']:,.0f}, floor "
                        f"{ip['padded_tokens']['floor'] * statistics.median(ip['floor_texts_per_s']) / ip['docs']['n']:,.0f}); 32 x "
                        f"{ip['long32']['tokens_mean']:.0f} tokens took {ip['long32']['seconds']:.1f} s")
        for p in ("load", "inproc", "cli"):
            if p + "_error" in r:
                bits.append(f"{p} failed: {r[p + '_error'][-300:]}")
        b1 = r.get("inproc_blas1")
        if b1:
            bits.append(f"the same in a process with OPENBLAS_NUM_THREADS=1: ours "
                        f"{statistics.median(b1['ours_texts_per_s']):.0f} texts/s, floor "
                        f"{statistics.median(b1['floor_texts_per_s']):.0f} (ours/floor "
                        f"{b1['ours_over_floor']:.2f}; ours / (floor + tokenising) "
                        f"{b1['ours_over_floor_plus_tokenize']:.2f}); query p50 "
                        f"{b1['query_ms']['median']:.2f} ms")
        if cli.get("failed_runs"):
            bits.append(f"{len(cli['failed_runs'])} CLI run(s) failed and are left out: "
                        f"{cli['failed_runs'][-1][-200:]}")
        if cli:
            bits.append(f"CLI store embedded in {cli['index_embed_s']:.1f} s"
                        + ("" if cli["supported"] else f"; cursor-memory itself: {'; '.join(cli['notes'])[:200]}"))
        out.append("- " + "; ".join(bits))
    if doc.get("int8_recipes"):
        rec = doc["int8_recipes"]
        out.append(f"\n## int8 recipe\n\nonnxruntime.quantization.quantize_dynamic of each fp32 "
                   f"stand-in (QInt8/QUInt8 weights, per tensor or per channel (pc), full or "
                   f"7-bit range (rr); activations always dynamic uint8), 1-thread sessions as "
                   f"fastembed opens them, median CPU time per run in turns (random ids). From "
                   f"`{rec['command']}` at `{rec['commit']}`, {rec['date']}, load average "
                   f"{min(rec['load_avg'])}-{max(rec['load_avg'])}. bench/standin_model.py's "
                   f"QUANT is the recipe int8 stand-ins are built with.\n")
        out.append(recipes_md(rec))
    if doc.get("fts_cold"):
        out.append(f"\nReference: `search_memory.py --mode fts`, cold, same store: "
                   f"{doc['fts_cold']['median']:.0f} ms (median of {doc['runs']}).")
    for note in doc.get("notes", []):
        out.append(f"\n{note}")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated: " + ", ".join(CANDIDATES))
    ap.add_argument("--texts", type=int, default=500, help="documents for texts/s (default 500)")
    ap.add_argument("--runs", type=int, default=5, help="cold process runs (default 5)")
    ap.add_argument("--turns", type=int, default=2, help="texts/s turns, ours and floor (default 2)")
    ap.add_argument("--store-records", type=int, default=200)
    ap.add_argument("--work", type=Path, default=Path("/tmp/cursor-memory-models-bench"))
    ap.add_argument("--skip", default="", help="parts to skip: load,inproc,cli")
    ap.add_argument("--out", type=Path, default=BENCH / "results", help="where models.json/md go")
    ap.add_argument("--floor1", action="store_true",
                    help="also a 1-thread plain session (how much the 2 workers gain)")
    ap.add_argument("--recipes", action="store_true",
                    help="also compare quantize_dynamic recipes (~6 min); otherwise the last "
                         "comparison in models.json is carried over with its own provenance")
    ap.add_argument("--child", nargs=2, metavar=("TASK", "KEY"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)

    if a.child:
        task, key = a.child
        if task == "recipes":
            print(json.dumps(child_recipes(key.split(","), a.work)))
        else:
            print(json.dumps(child_inproc(key, a.work, a.texts, a.turns, a.floor1)))
        return 0

    keys = [k.strip() for k in a.only.split(",")] if a.only else list(CANDIDATES)
    unknown = [k for k in keys if k not in CANDIDATES]
    if unknown:
        ap.error(f"unknown candidate(s) {unknown}; one of {', '.join(CANDIDATES)}")
    skip = set(filter(None, a.skip.split(",")))
    from perf import provenance
    command, commit = provenance("models.py", argv)
    import fastembed
    import onnxruntime
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor())
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "memory_core",
                            "bench/models.py", "bench/standin_model.py"],
                           capture_output=True, text=True).stdout.split("\n")
    doc = {"command": command, "commit": commit, "date": time.strftime("%Y-%m-%d %H:%M"),
           "uncommitted": [x.strip() for x in dirty if x.strip()],
           "machine": f"{cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
           "versions": {"onnxruntime": onnxruntime.__version__, "fastembed": fastembed.__version__},
           "texts": a.texts, "runs": a.runs, "turns": a.turns, "store_records": a.store_records,
           "docs_desc": "80% store lines, 12% 2-3-line summaries, 8% MEMORY.md sections",
           "load_avg": [load_avg()], "results": {}}
    a.work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for key in keys:
        c = Candidate(key, a.work)
        r = {"label": c.label, "shape": c.shape_key, "quantized": c.quantized, "model": c.shape.model}
        doc["results"][key] = r
        parts = {
            "load": lambda: cold_load(c, a.runs),
            "inproc": lambda: run_json(
                [PY, __file__, "--child", "inproc", key, "--work", str(a.work), "--texts",
                 str(a.texts), "--turns", str(a.turns)] + (["--floor1"] if a.floor1 else [])),
            "cli": lambda: cli_search(c, a.work, a.store_records, a.runs)}
        if c.static:  # its pooling is a numpy matrix product: OpenBLAS's threads, or one
            parts["inproc_blas1"] = lambda: run_json(
                [PY, __file__, "--child", "inproc", key, "--work", str(a.work), "--texts",
                 str(a.texts), "--turns", str(a.turns)], env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
        try:
            print(f"== {c.label}: building", flush=True)
            r["build_s"] = c.build()["seconds"]
            r["file"] = str(c.file.relative_to(c.folder))
            r["file_mb"] = c.file.stat().st_size / 1e6
        except Exception as e:  # noqa: BLE001 - one candidate's failure is reported, not fatal
            r["error"] = f"{type(e).__name__}: {e}"[-1500:]
            print(r["error"], file=sys.stderr)
            parts = {}
        for part, run in parts.items():
            if part in skip:
                continue
            print(f"   {part}", flush=True)
            try:  # a part's failure is reported in its cell, the others still run
                r[part] = run()
            except Exception as e:  # noqa: BLE001
                r[part + "_error"] = f"{type(e).__name__}: {e}"[-1500:]
                print(r[part + "_error"], file=sys.stderr)
            doc["load_avg"] += r[part]["load_avg"] if part.startswith("inproc") and part in r else [load_avg()]
        r["seconds"] = time.perf_counter() - started - sum(
            x.get("seconds", 0) for k, x in doc["results"].items() if k != key)
        print(table({key: r}).splitlines()[-1], flush=True)
        print(f"   {time.perf_counter() - started:.0f} s so far", flush=True)
        (a.work / "partial.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False))
    if "cli" not in skip:
        doc["fts_cold"] = fts_cold(a.work, a.store_records, a.runs)
    shapes = sorted({CANDIDATES[k][0] for k in keys if CANDIDATES[k][1]}
                    or {"jina-v2-base-zh", "multilingual-e5-small"})
    if a.recipes:
        print(f"== int8 recipes: {', '.join(shapes)}", flush=True)
        shapes.append("bge-small-zh-v1.5")
        doc["int8_recipes"] = {"command": command, "commit": commit, "date": doc["date"],
                               "load_avg": [load_avg()],
                               "results": run_json([PY, __file__, "--child", "recipes",
                                                    ",".join(shapes), "--work", str(a.work)])}
        doc["int8_recipes"]["load_avg"].append(load_avg())
    else:  # carried over from the last run that measured it, with its own provenance
        try:
            doc["int8_recipes"] = json.loads((a.out / "models.json").read_text())["int8_recipes"]
        except (OSError, ValueError, KeyError):
            pass
    doc["seconds"] = time.perf_counter() - started
    doc["notes"] = [
        "cursor-memory's loader (memory_core.embeddings._load) refuses a model folder holding no "
        ".onnx file, so a static model loads only as a download (from the cache); it passes "
        "threads=1 to every model, which fastembed's static class warns about on each load "
        "(a UserWarning on stderr of every CLI call). It cannot load a model fastembed does not "
        "list (no add_custom_model), and adds no query/passage prefixes (multilingual-e5-small "
        "needs \"query: \" / \"passage: \"; this bench adds them itself).",
        "Not measured: quality of any candidate (random weights); the real tokenisers' token "
        "counts (jina's BPE, XLM-R's SentencePiece, bert-base-chinese's WordPiece are not "
        "offline: all stand-ins use all-MiniLM's WordPiece, cut to 21,128 ids for bge)."]
    md = markdown(doc)
    print("\n" + table(doc["results"]))
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "models.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False))
    (a.out / "models.md").write_text(md)
    print(f"\nwrote {a.out / 'models.json'} and models.md in {doc['seconds'] / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
