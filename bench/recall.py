#!/usr/bin/env python3
"""Recall on every prompt (memory_core/recall.py): how often it brings what the prompt needs,
how often it speaks when nothing is behind the prompt, what it costs.

    python bench/recall.py --grid                 # the bar, on the tune halves
    python bench/recall.py                        # the shipped bar, on the check halves
    python bench/recall.py --latency --work /tmp/rw --sizes 10000,100000   # whole hook process

Prompts with memory behind them: the questions of devmem, the devmem paraphrases, LoCoMo, the
held-out devmem store, the noisy Chinese store and the cross-language devmem questions, each
asked of its own store. Prompts with
none: another store's questions (LoCoMo's asked of devmem, devmem's of LoCoMo, the noisy
store's of devmem) and chit-chat lines (bench/data/chitchat). Writes bench/results/recall.json
and recall.md.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import retrieval

REPO = retrieval.REPO
RESULTS = REPO / "bench" / "results"
STORES = ["devmem", "devmem-paraphrase", "locomo/conv-26", "locomo/conv-30", "locomo/conv-41",
          "locomo/conv-42", "locomo/conv-43", "heldout-devmem", "noisy-zh", "crossling-devmem"]
# (prompts from, asked of): nothing in the second store is about them
UNRELATED = [("locomo/conv-26", "devmem"), ("devmem", "locomo/conv-30"), ("noisy-zh", "devmem"),
             ("heldout-devmem", "locomo/conv-41"), ("chitchat", "devmem"), ("chitchat", "noisy-zh")]


def folder_of(name: str) -> Path:
    own = retrieval.OWN_DATA / name
    return own if own.exists() else retrieval.DEFAULT_DATA / name


def load_store(name: str, work: Path):
    from memory_core import Memory
    folder = folder_of(name)
    dest = work / name.replace("/", "_")
    if not dest.exists():
        shutil.copytree(retrieval.records_of(folder), dest, ignore=shutil.ignore_patterns(
            "queries.jsonl", "index.sqlite*", "NOW", "README.md", "STORE"))
    os.environ["CURSOR_MEMORY_NOW"] = retrieval.store_now(name, folder)
    mem = Memory(dest)
    mem.sync(embed=False)
    return mem


def prompts_of(name: str, split: str) -> list:
    if name == "chitchat":
        out = []
        for lang in ("en", "zh"):
            out += [{"qid": f"cc-{lang}-{i}", "question": json.loads(line)["content"], "evidence_ids": []}
                    for i, line in enumerate(open(retrieval.OWN_DATA / "chitchat" / f"{lang}.jsonl",
                                                  encoding="utf-8"))]
        return [p for p in out if split == "all" or retrieval.half_of("chitchat", p["qid"]) == split]
    qs = [json.loads(line) for line in open(folder_of(name) / "queries.jsonl", encoding="utf-8")]
    return [q for q in qs if q.get("evidence_ids") and (split == "all" or retrieval.half_of(name, q["qid"]) == split)]


def run(bars: list, split: str, work: Path) -> dict:
    """{bar: {"gold": ..., "spoke_unrelated": ..., "chars": ...}} over the stores."""
    from memory_core import recall

    out = {b: {"prompts": 0, "gold": 0, "any": 0, "chars": 0, "unrelated": 0, "spoke": 0}
           for b in bars}
    lowest = min(bars)
    for name in STORES:
        mem = load_store(name, work)
        for q in prompts_of(name, split):
            found = mem.index.run(lambda conn: recall.candidates(conn, q["question"], set(),
                                                                 min_coverage=lowest, limit=50))
            for b in bars:
                kept = [r for r in found if r.coverage >= b][:recall.MAX_HITS] \
                    if recall.worth_recalling(q["question"]) else []
                text = recall.render(kept)
                row = out[b]
                row["prompts"] += 1
                row["any"] += bool(text)
                row["chars"] += len(text)
                gold = set(q["evidence_ids"])
                row["gold"] += any(r.id in gold or r.id.split("#part-")[0] in gold for r in kept)
    for source, target in UNRELATED:
        mem = load_store(target, work)
        for q in prompts_of(source, split):
            found = mem.index.run(lambda conn: recall.candidates(conn, q["question"], set(),
                                                                 min_coverage=lowest, limit=50))
            for b in bars:
                spoke = recall.worth_recalling(q["question"]) and any(r.coverage >= b for r in found)
                out[b]["unrelated"] += 1
                out[b]["spoke"] += bool(spoke)
    return {b: {"gold_rate": r["gold"] / max(1, r["prompts"]), "spoke_rate": r["any"] / max(1, r["prompts"]),
                "chars_per_prompt": r["chars"] / max(1, r["prompts"]),
                "unrelated_spoke_rate": r["spoke"] / max(1, r["unrelated"]),
                "prompts": r["prompts"], "unrelated": r["unrelated"]} for b, r in out.items()}


def latency(work: Path, sizes: list, runs: int) -> dict:
    """The whole beforeSubmitPrompt hook process (new prompt each time), p50/p95, beside
    `python -c "import sqlite3"`, on perf.py's stores."""
    from perf import PY, make_store, paired, stats
    out = {}
    queries = ["Redis 缓存 TTL 现在是多少", "why did we switch the deploy to Helm", "数据库迁移停机了多久",
               "which queue do email jobs use", "前端打包体积优化了多少", "the login rate limit per minute"]
    for n in sizes:
        root = work / f"store-{n}"
        if not (root / "MEMORY.md").exists():
            make_store(root, n)
        env = dict(os.environ, PYTHONPATH=str(REPO), CURSOR_MEMORY_MODEL="none/keyword-only",
                   CURSOR_MEMORY_DIR=str(root))
        subprocess.run([PY, "-m", "memory_core", "sync", "--no-embed", "--memory-dir", str(root)],
                       env=env, capture_output=True)
        counter = iter(range(10 ** 9))

        def payload():
            k = next(counter)
            return json.dumps({"hook_event_name": "beforeSubmitPrompt", "conversation_id": f"c{k}",
                               "generation_id": f"g{k}", "prompt": queries[k % len(queries)],
                               "workspace_roots": [str(work)]})
        ours, floor = [], []
        for _ in range(runs):
            a, b = paired([PY, str(REPO / "scripts/hook.py"), "beforeSubmitPrompt"],
                          [PY, "-c", "import sqlite3"], 1, env, stdin=payload)
            ours.append(a["median"])
            floor.append(b["median"])
        out[str(n)] = {"ours": stats(ours), "floor": stats(floor)}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grid", action="store_true", help="bars 0.3-0.8 on the tune halves")
    ap.add_argument("--split", default=None, choices=("tune", "check", "all"))
    ap.add_argument("--latency", action="store_true")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "cursor-memory-recall")
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--out", type=Path, default=RESULTS / "recall.json")
    args = ap.parse_args(argv)
    from offline_model import use_offline_model
    use_offline_model()
    from memory_core import recall
    doc = json.loads(args.out.read_text()) if args.out.exists() else {}
    if args.latency:
        from perf import provenance  # also byte-compiles memory_core, as install does
        doc["latency_command"], doc["latency_commit"] = provenance("recall.py", argv)
        args.work.mkdir(parents=True, exist_ok=True)
        doc["latency"] = latency(args.work, [int(x) for x in args.sizes.split(",")], args.runs)
    else:
        split = args.split or ("tune" if args.grid else "check")
        bars = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8] if args.grid else [recall.MIN_COVERAGE]
        with tempfile.TemporaryDirectory() as work:
            res = run(bars, split, Path(work))
        doc[f"bars-{split}"] = {str(b): v for b, v in res.items()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    lines = ["| split | bar | prompts | gold recalled | spoke at all | chars / prompt | unrelated prompts that got something |",
             "|---|---|---|---|---|---|---|"]
    for key, rows in doc.items():
        if key.startswith("bars-"):
            for b, r in rows.items():
                lines.append(f"| {key[5:]} | {b} | {r['prompts']} | {r['gold_rate']:.1%} | {r['spoke_rate']:.1%} | "
                             f"{r['chars_per_prompt']:.0f} | {r['unrelated_spoke_rate']:.1%} of {r['unrelated']} |")
    if "latency" in doc:
        lines += ["", "| records | hook process p50 / p95 | import sqlite3 p50 |", "|---|---|---|"]
        for n, r in doc["latency"].items():
            lines.append(f"| {int(n):,} | {r['ours']['median']:.0f} / {r['ours']['p95']:.0f} ms | "
                         f"{r['floor']['median']:.0f} ms |")
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
