#!/usr/bin/env python3
"""What bringing a question's reply (search.with_replies) costs a keyword search: the same
queries with the rule on and off, alternated in one process, on a real conversation
(LoCoMo conv-41) and on a worst case (one session of 50,000 lines in one file, every line
a question).

    python bench/replies_cost.py          # ~1 min

Writes bench/results/replies-cost.json and prints a table.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "bench")]

import retrieval  # noqa: E402  (puts the repository first on sys.path)


def timed(mem, queries, rounds: int = 3) -> dict:
    """{"on": [ms], "off": [ms]}: each round runs every query with the rule on, then off."""
    from memory_core import search
    shipped, out = search.REPLY_DEPTH, {"on": [], "off": []}
    try:
        for _ in range(rounds):
            for label, depth in (("on", shipped), ("off", 0)):
                search.REPLY_DEPTH = depth
                for q in queries:
                    t = time.perf_counter()
                    mem.search(q, mode="fts", sync=False)
                    out[label].append((time.perf_counter() - t) * 1000)
    finally:
        search.REPLY_DEPTH = shipped
    return out


def locomo(work: Path):
    from memory_core import Memory
    folder = retrieval.DEFAULT_DATA / "locomo" / "conv-41"
    dest = work / "locomo"
    shutil.copytree(folder, dest, ignore=shutil.ignore_patterns("queries.jsonl", "index.sqlite*"))
    os.environ["CURSOR_MEMORY_NOW"] = retrieval.store_now("locomo/conv-41", folder)
    mem = Memory(dest)
    mem.sync(embed=False)
    queries = [json.loads(line)["question"] for line in open(folder / "queries.jsonl", encoding="utf-8")]
    return mem, queries


def worst_case(work: Path, lines: int = 50_000):
    from memory_core import Memory
    dest = work / "worst"
    (dest / "daily").mkdir(parents=True)
    with open(dest / "daily" / "2026-03-01.jsonl", "w", encoding="utf-8") as f:
        for i in range(lines):
            who = "Mia" if i % 2 else "Leo"
            f.write(json.dumps({"id": f"log-20260301-{i:07d}", "type": "fact", "memory_type": "W",
                                "content": f"{who}: did batch {i % 500} of the billing export finish?",
                                "timestamp": "2026-03-01T10:00:00Z", "source": {"session": "s1"}}) + "\n")
    os.environ["CURSOR_MEMORY_NOW"] = "2026-03-02T00:00:00Z"
    mem = Memory(dest)
    mem.sync(embed=False)
    return mem, [f"billing export batch {i}" for i in range(0, 500, 5)]


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="replies-cost-"))
    rows = {}
    try:
        for name, make in (("LoCoMo conv-41 (663 lines, 193 questions)", locomo),
                           ("one session of 50,000 questions (100 queries)", worst_case)):
            mem, queries = make(work)
            t = timed(mem, queries)
            rows[name] = {k: {"p50": round(statistics.median(v), 2),
                              "p95": round(sorted(v)[int(len(v) * 0.95)], 2)} for k, v in t.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("| store | keyword search p50 / p95, rule on | rule off |\n|---|---|---|")
    for name, r in rows.items():
        print(f"| {name} | {r['on']['p50']} / {r['on']['p95']} ms | {r['off']['p50']} / {r['off']['p95']} ms |")
    out = REPO / "bench" / "results" / "replies-cost.json"
    out.write_text(json.dumps({"command": "python bench/replies_cost.py", "results": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
