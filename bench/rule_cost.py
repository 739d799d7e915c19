#!/usr/bin/env python3
"""What a ranking rule costs a keyword search: the same queries with the rule on and off,
alternated in one process, on real stores and on the rule's worst case.

- replies (search.with_replies): LoCoMo conv-41; one session of 50,000 lines in one file,
  every line a question.
- lines over parts (search.lines_over_parts): heldout-devmem (FrostLine, 40 summaries);
  one session of 20,000 lines whose summary repeats 200 of them as decisions.
- the bridge across languages (search.BRIDGE: a keyword search of the query's words in the
  other language, and every record scored by its concepts in either language):
  heldout-devmem; 100,000 synthetic records in both languages (bench/perf.make_store).
- lines that say nothing taken off the candidate lists (search.saying_nothing):
  devmem-fourth; 50,000 short lines, every other one "ok thanks", all matching the query.
- a question that asks why (text.with_reason: 原因 looked for, and the keyword candidates
  that hold nothing else of the question dropped, search.only_reasons): the
  why-questions of the four devmem-style stores, on devmem-third; 100,000 synthetic records
  in both languages, every query a why-question.

    python bench/rule_cost.py          # ~4 min

Writes bench/results/rule-cost.json and prints a table.
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


def _no_replies():
    from memory_core import search
    return search, "REPLY_DEPTH", 0


def _no_lines_over_parts():
    from memory_core import search
    return search, "lines_over_parts", lambda conn, found: found


def _no_bridge():
    from memory_core import search
    return search, "BRIDGE", False


def _no_small_talk():
    from memory_core import search
    return search, "saying_nothing", lambda conn, pks: set()


def _no_why():
    from memory_core import search
    return search, "with_reason", lambda query: query


def why_questions(work: Path):
    """devmem-third's store, asked every why-question of the devmem-style stores."""
    from memory_core.text import with_reason
    mem, _ = heldout_devmem(work, "devmem-third")
    asked = []
    for name in ("devmem-third", "devmem-fourth", "heldout-devmem", "heldout-devmem-more"):
        for line in open(retrieval.OWN_DATA / name / "queries.jsonl", encoding="utf-8"):
            question = json.loads(line)["question"]
            if with_reason(question) != question:
                asked.append(question)
    return mem, asked


def synthetic_why(work: Path):
    mem, queries = synthetic(Path(tempfile.mkdtemp(dir=work)))  # a store of its own
    return mem, [("Why " if q.isascii() else "为什么") + q for q in queries]


def timed(mem, queries, off, rounds: int = 3) -> dict:
    """{"on": [ms], "off": [ms]}: each round runs every query with the rule on, then off
    (`off()`: the module, attribute and value that switch it off)."""
    obj, name, value = off()
    shipped, out = getattr(obj, name), {"on": [], "off": []}
    try:
        for _ in range(rounds):
            for label, setting in (("on", shipped), ("off", value)):
                setattr(obj, name, setting)
                for q in queries:
                    t = time.perf_counter()
                    mem.search(q, mode="fts", sync=False)
                    out[label].append((time.perf_counter() - t) * 1000)
    finally:
        setattr(obj, name, shipped)
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


def heldout_devmem(work: Path, name: str = "heldout-devmem"):
    from memory_core import Memory
    folder = retrieval.OWN_DATA / name
    dest = Path(tempfile.mkdtemp(dir=work)) / "heldout"  # a fresh copy for each rule
    shutil.copytree(folder, dest, ignore=shutil.ignore_patterns("queries.jsonl", "index.sqlite*",
                                                                "NOW", "README.md"))
    os.environ["CURSOR_MEMORY_NOW"] = retrieval.store_now(name, folder)
    mem = Memory(dest)
    mem.sync(embed=False)
    queries = [json.loads(line)["question"] for line in open(folder / "queries.jsonl", encoding="utf-8")]
    return mem, queries


def summarised_session(work: Path, lines: int = 20_000, decisions: int = 200):
    """Every query finds parts of one summary and, in its session, the lines they repeat."""
    from memory_core import Memory
    dest = work / "summarised"
    (dest / "daily").mkdir(parents=True)
    with open(dest / "daily" / "2026-03-01.jsonl", "w", encoding="utf-8") as f:
        for i in range(lines):
            f.write(json.dumps({"id": f"log-20260301-{i:07d}", "type": "fact", "memory_type": "W",
                                "content": f"billing export batch {i % 500} moved to queue q{i % 37}",
                                "timestamp": "2026-03-01T10:00:00Z", "source": {"session": "s1"}}) + "\n")
    with open(dest / "sessions.jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps({"id": "sum-20260301-120000", "session_id": "s1", "topic": "billing export",
                            "summary": "Batches of the billing export were moved between queues.",
                            "decisions": [f"billing export batch {i} moved to queue q{i % 37}"
                                          for i in range(decisions)], "todos": [],
                            "timestamp": "2026-03-01T12:00:00Z"}) + "\n")
    os.environ["CURSOR_MEMORY_NOW"] = "2026-03-02T00:00:00Z"
    mem = Memory(dest)
    mem.sync(embed=False)
    return mem, [f"billing export batch {i} queue" for i in range(0, 200, 2)]


BRIDGE_QUERIES = [
    "数据库连接池超时怎么配置", "How do I configure the database connection pool timeout?",
    "缓存过期时间是多少", "When does the cache expire?", "部署到生产环境之前要做什么",
    "What do we check before a production deploy?", "用户权限是怎么校验的",
    "Where are the error logs?", "监控告警发到哪个群", "Which queue handles retries?",
    "缓存", "cache"]


def synthetic(work: Path, records: int = 100_000):
    """perf.py's store: lines in Chinese, English or both, words by their real frequency."""
    import perf
    from memory_core import Memory
    dest = work / "synthetic"
    perf.make_store(dest, records)
    os.environ["CURSOR_MEMORY_NOW"] = "2026-12-31T00:00:00Z"
    mem = Memory(dest)
    mem.sync(embed=False)
    return mem, BRIDGE_QUERIES


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


def short_lines(work: Path, lines: int = 50_000):
    """Every candidate is a short line, so every one is read and checked."""
    from memory_core import Memory
    dest = work / "short"
    (dest / "daily").mkdir(parents=True)
    with open(dest / "daily" / "2026-03-01.jsonl", "w", encoding="utf-8") as f:
        for i in range(lines):
            said = "ok thanks" if i % 2 else f"ok, batch {i % 500} done, thanks"
            f.write(json.dumps({"id": f"log-20260301-{i:07d}", "type": "fact", "memory_type": "W",
                                "content": said, "timestamp": "2026-03-01T10:00:00Z",
                                "source": {"session": f"s{i // 50}"}}) + "\n")
    os.environ["CURSOR_MEMORY_NOW"] = "2026-03-02T00:00:00Z"
    mem = Memory(dest)
    mem.sync(embed=False)
    return mem, [f"was batch {i} done? thanks" for i in range(0, 500, 5)]


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="rule-cost-"))
    rows = {}
    try:
        for rule, off, store, make in (
                ("replies", _no_replies, "LoCoMo conv-41 (663 lines, 193 questions)", locomo),
                ("replies", _no_replies, "one session of 50,000 questions (100 queries)", worst_case),
                ("lines over parts", _no_lines_over_parts, "heldout-devmem (120 questions)",
                 heldout_devmem),
                ("lines over parts", _no_lines_over_parts,
                 "one session of 20,000 lines, 200 repeated in its summary (100 queries)",
                 summarised_session),
                ("bridge", _no_bridge, "heldout-devmem (120 questions)", heldout_devmem),
                ("bridge", _no_bridge, "100,000 synthetic records in both languages (12 queries)",
                 synthetic),
                ("lines that say nothing", _no_small_talk, "devmem-fourth (160 questions)",
                 lambda work: heldout_devmem(work, "devmem-fourth")),
                ("lines that say nothing", _no_small_talk,
                 "50,000 short lines, half \"ok thanks\" (100 queries)", short_lines),
                ("a question that asks why", _no_why,
                 "devmem-third, the why-questions of the four devmem-style stores", why_questions),
                ("a question that asks why", _no_why,
                 "100,000 synthetic records in both languages (12 why-questions)", synthetic_why)):
            mem, queries = make(work)
            t = timed(mem, queries, off)
            rows[f"{rule}: {store}"] = {k: {"p50": round(statistics.median(v), 2),
                                            "p95": round(sorted(v)[int(len(v) * 0.95)], 2)}
                                        for k, v in t.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("| rule: store | keyword search p50 / p95, rule on | rule off |\n|---|---|---|")
    for name, r in rows.items():
        print(f"| {name} | {r['on']['p50']} / {r['on']['p95']} ms | {r['off']['p50']} / {r['off']['p95']} ms |")
    out = REPO / "bench" / "results" / "rule-cost.json"
    out.write_text(json.dumps({"command": "python bench/rule_cost.py", "results": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
