#!/usr/bin/env python3
"""What a question about the current value costs when its value was replaced many times
(a status line updated every session): keyword search, warm, best of 7, on a store of N
lines that replace one another (`supersedes`) beside the same N lines with no chain, the
floor. docs/retrieval.md "What is X now".

    python bench/chain_cost.py      # ~2 min; writes bench/results/chain-cost.json/.md
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from sessions import write_results  # noqa: E402

QUESTIONS = ("Redis 缓存 TTL 现在是多少", "Redis 缓存 TTL 是多少")
# on a store as users have it (bench/perf.make_store) with one value replaced 30 times: a
# "now" question with replaced values among its hits, and one without any
BIG_QUESTIONS = QUESTIONS + ("缓存 配置 现在是多少", "数据库 迁移 现在是什么", "数据库 迁移 是什么")


def store(root: Path, n: int, chain: bool):
    from memory_core import Memory

    mem = Memory(root)
    prev = None
    for i in range(n):
        prev = mem.save_fact(f"Redis 缓存 TTL 改成 {1000 + i} 秒",
                             supersedes=prev if chain else None)["id"]
    mem.search("warm", mode="fts")
    return mem


def best_ms(mem, query: str, runs: int = 7) -> float:
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        mem.search(query, mode="fts", sync=False)
        best = min(best, time.perf_counter() - t)
    return round(best * 1000, 1)


def big_store(root: Path, n: int):
    import perf
    from memory_core import Memory

    perf.make_store(root, n)
    mem = Memory(root)
    prev = None
    for i in range(30):
        prev = mem.save_fact(f"Redis 缓存 TTL 改成 {3600 + i} 秒", supersedes=prev)["id"]
    mem.search("warm", mode="fts")
    return mem


def render(results: dict) -> str:
    out = ["| lines | question | no chain (floor), ms | one chain, ms |", "|---|---|---|---|"]
    for n, rows in results.items():
        if n == "big":
            continue
        for q, r in rows.items():
            out.append(f"| {n} | {q} | {r['plain_ms']} | **{r['chain_ms']}** |")
    if "big" in results:
        big = results["big"]
        out += ["", f"A store of {big['lines']:,} synthetic lines (bench/perf.make_store) with one "
                "value replaced 30 times:", "", "| question | ms |", "|---|---|"]
        out += [f"| {q} | **{ms}** |" for q, ms in big["ms"].items()]
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100,1000")
    ap.add_argument("--big", type=int, default=20000, help="lines of the synthetic store (0: none)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "chain-cost.json")
    args = ap.parse_args(argv)
    os.environ["CURSOR_MEMORY_NOW"] = "2026-09-01T10:00:00Z"
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="cursor-memory-chain-") as work:
        for n in (int(x) for x in args.sizes.split(",")):
            plain, chain = (store(Path(work) / f"{n}-{c}", n, c) for c in (False, True))
            results[n] = {q: {"plain_ms": best_ms(plain, q), "chain_ms": best_ms(chain, q)}
                          for q in QUESTIONS}
        if args.big:
            os.environ["CURSOR_MEMORY_NOW"] = "2026-12-31T10:00:00Z"
            mem = big_store(Path(work) / "big", args.big)
            results["big"] = {"lines": args.big, "ms": {q: best_ms(mem, q) for q in BIG_QUESTIONS}}
    write_results(args.out, results, render)
    print(render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
