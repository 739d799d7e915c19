#!/usr/bin/env python3
"""Measure the near-duplicate threshold for consolidation (config `dedup_threshold`).

Embeds every fact/preference line of a store (default: ../shared/bench/devmem) with the
configured model (default here: the offline test model) and prints the most similar pairs.
A threshold must sit above every pair that is not the same fact; the labelled rewordings
(below, by record id) show what merging at that threshold would catch.

    python bench/dedup.py                     # offline test model
    CURSOR_MEMORY_MODEL=... python bench/dedup.py --real-model   # your configured model
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

# The same fact in other words or the other language, found by reading devmem's top pairs
# by cosine and by shared tokens. Every other pair among the top ones is a different fact.
SAME_FACT = [("log-20260901-071646", "log-20260915-021505"),  # Postgres on 5433 (zh / en)
             ("log-20260902-021908", "log-20260918-013322")]  # no default export (two people)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", type=Path, default=REPO.parent / "shared" / "bench" / "devmem")
    ap.add_argument("--real-model", action="store_true", help="use the configured model")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args(argv)
    if not args.real_model:
        from offline_model import use_offline_model
        use_offline_model()
    from memory_core import embeddings
    from memory_core.consolidate import _numbers

    recs = []
    for path in sorted((args.store / "daily").glob("*.jsonl")):
        for line in path.open(encoding="utf-8"):
            r = json.loads(line)
            if r.get("type") in ("fact", "preference") and r.get("content"):
                recs.append(r)
    model = embeddings.load(args.store)
    vecs = model.embed([r["content"] for r in recs])
    sims = vecs @ vecs.T
    ids = [r["id"] for r in recs]
    same = {frozenset((a, b)) for a, b in SAME_FACT}
    pairs = sorted(((float(sims[i, j]), i, j) for i in range(len(recs)) for j in range(i + 1, len(recs))),
                   reverse=True)
    print(f"model: {model.name}; {len(recs)} lines\n")
    print("| cosine | same fact? | numbers equal | a | b |\n|---|---|---|---|---|")
    for s, i, j in pairs[:args.top]:
        label = "yes" if frozenset((ids[i], ids[j])) in same else "no"
        print(f"| {s:.3f} | {label} | {_numbers(recs[i]['content']) == _numbers(recs[j]['content'])} "
              f"| {recs[i]['content'][:40]} | {recs[j]['content'][:40]} |")
    worst = max(s for s, i, j in pairs if frozenset((ids[i], ids[j])) not in same
                and _numbers(recs[i]["content"]) == _numbers(recs[j]["content"]))
    print(f"\nhighest pair that is not the same fact (numbers equal): {worst:.3f}")
    for a, b in SAME_FACT:
        i, j = ids.index(a), ids.index(b)
        print(f"labelled same fact {a} / {b}: {float(sims[i, j]):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
