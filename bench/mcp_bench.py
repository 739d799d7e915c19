"""The MCP server as an agent uses it: spawned by the host, asked over stdio by the SDK's own
client, each figure beside its floor from the same run.

    python bench/mcp_bench.py --work /tmp/mw --model test --sizes 10000,100000
    python bench/mcp_bench.py --work /tmp/mw --model standin --sizes 10000,100000   # the default's shape

Rows per model and store size (docs/benchmarks.md "MCP server"):
- initialize: spawn to answer (the SDK's import is most of it; no model is loaded);
- first search: keyword-only while the model loads; then how long until hybrid answers;
- warm hybrid search, 40 distinct queries, round trip at the client: p50 / p95;
  floors: an MCP ping (the protocol and process hop), the query's embedding alone in a warm
  process, the same searches through `Memory.search` in a warm process;
- save_fact round trip; the server's resident memory (VmRSS) after the warm searches.

Stores are perf.make_store's; every record has a vector: `sample` texts are embedded by the
model and the rest given copies of those (embedding 100k texts with the stand-in would take
days here, and search cost does not depend on the vectors' values), as perf.py's scale run.
Writes bench/results/mcp.json and mcp.md (figures of other sizes and models kept).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from perf import PY, REPO, bench_queries, make_store, provenance, stats  # noqa: E402
from sessions import in_env, model_env, write_results  # noqa: E402

RESULTS = REPO / "bench" / "results"

PREPARE = """
import sys, time
sys.path.insert(0, {bench!r})
from memory_core import Memory, vectors
from perf import copy_vectors
m = Memory({root!r})
m.sync(embed=False)
emb = m.embedder()
vectors.fill(m.index, emb, limit={sample})
m.index.run(copy_vectors, vectors=True)
print(m.index.run(vectors.count_pending))
"""

FLOORS = """
import json, time
from memory_core import Memory
from memory_core.embeddings import WORKERS
queries = json.loads({queries!r})
m = Memory({root!r})
emb = m.embedder(threads=WORKERS)  # as the server loads it
m.search(queries[0]); m.search(queries[1])
embed, search = [], []
for q in queries:
    t = time.perf_counter(); emb.embed_query(q); embed.append((time.perf_counter() - t) * 1000)
for q in queries:
    t = time.perf_counter(); m.search(q, backlog=0); search.append((time.perf_counter() - t) * 1000)
print(json.dumps({{"embed_query": embed, "memory_search": search}}))
"""


def store(work: Path, model: str, n: int, env: dict, sample: int) -> Path:
    """A store of n records with every vector in place, made once per model and kept."""
    root = work / model / f"store-{n}"
    if not (root / ".ready").exists():
        shutil.rmtree(root, ignore_errors=True)
        make_store(root, n)
        left = in_env(env, PREPARE.format(root=str(root), sample=sample, bench=str(Path(__file__).resolve().parent))).strip()
        if left != "0":
            raise RuntimeError(f"{left} chunks still without a vector")
        (root / ".ready").write_text("")
    return root


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0.0


def server_pid() -> int:
    """Our child that runs `memory_core mcp` (the SDK client does not say its pid)."""
    me = str(os.getpid())
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if proc.joinpath("stat").read_text().rsplit(")", 1)[1].split()[1] == me and \
                    b"mcp" in proc.joinpath("cmdline").read_bytes():
                return int(proc.name)
        except (OSError, IndexError):
            continue
    raise RuntimeError("no server process found")


async def measure(root: Path, env: dict, queries: list) -> dict:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def call(session, name, args):
        t = time.perf_counter()
        result = await session.call_tool(name, args)
        ms = (time.perf_counter() - t) * 1000
        if result.is_error:
            raise RuntimeError(result.content[0].text)
        return ms, result

    res: dict = {}
    params = StdioServerParameters(command=PY, args=["-m", "memory_core", "mcp", "--memory-dir",
                                                     str(root)], env=env, cwd=str(REPO))
    started = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                res["initialize_ms"] = (time.perf_counter() - started) * 1000
                pid = server_pid()
                res["rss_idle_mb"] = rss_mb(pid)
                ms, first = await call(session, "memory_search", {"query": queries[0]})
                res["first_search_ms"], res["first_mode"] = ms, first.structured_content["mode"]
                t = time.perf_counter()
                while True:
                    ms, r = await call(session, "memory_search", {"query": queries[0]})
                    if r.structured_content["mode"] == "hybrid":
                        break
                    await anyio.sleep(0.05)
                res["model_ready_after_s"] = time.perf_counter() - t
                await call(session, "memory_search", {"query": queries[1]})  # loads the warm matrix
                pings = []
                for _ in queries:
                    t = time.perf_counter()
                    await session.send_ping()
                    pings.append((time.perf_counter() - t) * 1000)
                warm = []
                for q in queries:
                    ms, r = await call(session, "memory_search", {"query": q})
                    if r.structured_content["mode"] != "hybrid":
                        raise RuntimeError("a warm search was not hybrid")
                    warm.append(ms)
                res["warm_search_ms"] = stats(warm)
                res["ping_ms"] = stats(pings)
                res["rss_warm_mb"] = rss_mb(pid)
                saves = [(await call(session, "memory_save_fact",
                                     {"content": f"bench fact {i} about the staging cluster"}))[0]
                         for i in range(10)]
                res["save_fact_ms"] = stats(saves)
    return res


def bench(work: Path, model: str, n: int, sample: int) -> dict:
    import anyio
    env = model_env(model, work)
    root = store(work, model, n, env, sample)
    queries = bench_queries()
    res = {"records": n}
    res.update(anyio.run(measure, root, env, queries))
    floors = json.loads(in_env(env, FLOORS.format(root=str(root), queries=json.dumps(queries))))
    res["embed_query_ms"] = stats(floors["embed_query"])
    res["memory_search_ms"] = stats(floors["memory_search"])
    return res


def table(results: dict) -> str:
    lines = ["| model | records | initialize | first search (mode) | hybrid after | warm search p50 / p95 "
             "| floors p50: ping · embed query · Memory.search | save_fact p50 | RSS idle → warm |",
             "|---|---|---|---|---|---|---|---|---|"]
    for model, sizes in results.items():
        for n, r in sorted(sizes.items(), key=lambda kv: int(kv[0])):
            w = r["warm_search_ms"]
            lines.append(
                f"| {model} | {int(n):,} | {r['initialize_ms']:.0f} ms | {r['first_search_ms']:.0f} ms "
                f"({r['first_mode']}) | {r['model_ready_after_s']:.1f} s | {w['median']:.0f} / "
                f"{w['p95']:.0f} ms | {r['ping_ms']['median']:.1f} · {r['embed_query_ms']['median']:.0f}"
                f" · {r['memory_search_ms']['median']:.0f} ms | {r['save_fact_ms']['median']:.0f} ms | "
                f"{r['rss_idle_mb']:.0f} → {r['rss_warm_mb']:.0f} MB |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, required=True, help="where stores are made and kept")
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--model", default="test", choices=("test", "standin"))
    ap.add_argument("--sample", type=int, default=300, help="texts the model really embeds")
    ap.add_argument("--out", type=Path, default=RESULTS / "mcp.json")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    results = json.loads(args.out.read_text())["results"] if args.out.exists() else {}
    command, commit = provenance("mcp_bench.py", argv)
    for n in (int(x) for x in args.sizes.split(",") if x):
        print(f"{args.model}: {n} records ...", file=sys.stderr, flush=True)
        results.setdefault(args.model, {})[str(n)] = dict(
            bench(args.work, args.model, n, args.sample), command=command, commit=commit,
            date=time.strftime("%Y-%m-%d"))
        write_results(args.out, results, table)
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
