#!/usr/bin/env python3
"""Retrieval benchmark: recall@5/10, hit@5, MRR@10 per category and overall, and per-query
latency, for modes fts / vector / hybrid, through the public Memory API with the offline
test model.

    python bench/retrieval.py                      # every dataset in ../shared/bench
    python bench/retrieval.py devmem locomo/conv-26 --modes hybrid
    python bench/retrieval.py --data tests/data/bench --out /tmp/r.json   # any folder of stores

Writes bench/results/retrieval.json and retrieval.md (unless --out says otherwise).
Metric definitions are those of ../shared/bench/README.md.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

DEFAULT_DATA = Path(os.environ.get("CURSOR_MEMORY_BENCH_DATA", REPO.parent / "shared" / "bench"))
OWN_DATA = REPO / "bench" / "data"  # stores written for this project (held out, distractors)
MODES = ("fts", "vector", "hybrid", "bm25")
# Tune and check halves (docs/retrieval.md "Method"): LoCoMo by conversation (the tuning of
# earlier work used conv-26/30/41), every other store by a stable hash of the query id.
# Stores written only to check (heldout-*) are check data whole.
TUNE_STORES = {"locomo/conv-26", "locomo/conv-30", "locomo/conv-41"}
CHECK_STORES = {"locomo/conv-42", "locomo/conv-43"}


def half_of(store: str, qid: str) -> str:
    """'tune' or 'check' for a query."""
    import hashlib
    if store in TUNE_STORES:
        return "tune"
    if store in CHECK_STORES or store.startswith("heldout"):
        return "check"
    return "tune" if int(hashlib.sha1(qid.encode()).hexdigest()[:8], 16) % 2 == 0 else "check"
# "Now" for relative dates in queries ("上周", "yesterday"): fixed where the data says what
# "today" is (devmem: 2026-10-15), otherwise the time of the store's newest record (a store
# is read as if searched right after its last save), so every run gives the same numbers.
FIXED_NOW = {"devmem": "2026-10-15T12:00:00Z"}


def find_stores(data: Path, names: list[str]) -> list[tuple[str, Path]]:
    """(name, folder) of every store (a folder holding queries.jsonl) under data."""
    stores = sorted((str(p.parent.relative_to(data)), p.parent) for p in data.rglob("queries.jsonl"))
    if names:
        stores = [(n, p) for n, p in stores if any(n == x or n.startswith(x.rstrip("/") + "/")
                                                   for x in names)]
    return stores


def records_of(folder: Path) -> Path:
    """The folder holding a store's records: itself, or the store its STORE file names
    (questions written later for the same records), shared or one of ours."""
    if (folder / "STORE").exists():
        name = (folder / "STORE").read_text().strip()
        return OWN_DATA / name if (OWN_DATA / name / "daily").is_dir() else DEFAULT_DATA / name
    return folder


def store_now(name: str, folder: Path) -> str:
    if (folder / "STORE").exists():
        name = (folder / "STORE").read_text().strip()
        folder = records_of(folder)
    if name in FIXED_NOW:
        return FIXED_NOW[name]
    if (folder / "NOW").exists():  # a store that says what "today" is
        return (folder / "NOW").read_text().strip()
    newest = None
    for f in sorted((folder / "daily").glob("*.jsonl")):
        for line in open(f, encoding="utf-8"):
            ts = json.loads(line).get("timestamp")
            if ts and (newest is None or ts > newest):
                newest = ts
    if newest is None:
        return datetime.now(timezone.utc).isoformat()
    from memory_core.config import iso, parse_time
    return iso(parse_time(newest))


def matches(gold: str, hit) -> bool:
    if gold.startswith("MEMORY.md#"):
        return hit.source_file == "MEMORY.md" and hit.section == gold.split("#", 1)[1]
    return gold == hit.id or gold in hit.evidence


def score(gold: list[str], hits) -> dict:
    def found(k):
        return [g for g in gold if any(matches(g, h) for h in hits[:k])]
    first = next((i for i, h in enumerate(hits[:10], 1) if any(matches(g, h) for g in gold)), None)
    return {"r5": len(found(5)) / len(gold), "r10": len(found(10)) / len(gold),
            "hit5": 1.0 if found(5) else 0.0, "mrr": 1.0 / first if first else 0.0,
            # the first gold id is the one that must come first (devmem lists the newest
            # value first for its latest-value questions)
            "top1": 1.0 if hits and matches(gold[0], hits[0]) else 0.0}


def run_store(name: str, folder: Path, modes, max_queries: int | None, work: Path,
              split: str = "all", distract: int = 0) -> dict:
    from memory_core import Memory

    if split != "all" and (name in TUNE_STORES and split == "check" or name in CHECK_STORES
                           and split == "tune" or name.startswith("heldout") and split == "tune"):
        return {"records": 0, "queries": 0, "sync_seconds": 0, "now": "",
                "modes": {m: {"queries": [], "latency_ms": []} for m in modes}}
    dest = work / name.replace("/", "_")
    data = records_of(folder)
    shutil.copytree(data, dest, ignore=shutil.ignore_patterns("queries.jsonl", "index.sqlite*", "NOW",
                                                              "README.md", "STORE"))
    if distract:
        import distractors
        distractors.mix_in(dest, name, abs(distract), interleave=distract < 0)
    os.environ["CURSOR_MEMORY_NOW"] = store_now(name, folder)
    mem = Memory(dest)
    t = time.perf_counter()
    report = mem.sync(embed=any(m in ("vector", "hybrid") for m in modes))
    sync_s = time.perf_counter() - t
    queries = [json.loads(line) for line in open(folder / "queries.jsonl", encoding="utf-8")]
    queries = [q for q in queries if q.get("evidence_ids")
               and (split == "all" or half_of(name, q["qid"]) == split)]
    if max_queries:
        queries = queries[:max_queries]
    out = {"records": report.upserted, "queries": len(queries), "sync_seconds": round(sync_s, 2),
           "now": os.environ["CURSOR_MEMORY_NOW"], "modes": {}}
    baseline = None
    for mode in modes:
        rows, latencies = [], []
        for q in queries:
            t = time.perf_counter()
            if mode == "bm25":
                if baseline is None:
                    import bm25
                    baseline = bm25.Index(dest)
                hits = baseline.search(q["question"], 10)
            else:
                hits = mem.search(q["question"], limit=10, mode=mode, sync=False)
            latencies.append((time.perf_counter() - t) * 1000)
            rows.append(dict(score(q["evidence_ids"], hits), qid=q["qid"],
                             category=str(q.get("category_name") or q.get("category") or "all")))
        out["modes"][mode] = {"queries": rows, "latency_ms": latencies}
    os.environ.pop("CURSOR_MEMORY_NOW", None)
    return out


def summarise(rows: list[dict]) -> dict:
    n = len(rows)
    return {"n": n, **{m: round(sum(r[m] for r in rows) / n, 3) if n else 0.0
                       for m in ("r5", "r10", "hit5", "mrr")},
            "top1_is_first_gold": int(sum(r["top1"] for r in rows))}


def dataset_of(store: str) -> str:
    """locomo/conv-26 -> locomo; madial-zh/user1 -> madial-zh; devmem -> devmem."""
    return store.split("/")[0]


def build_results(per_store: dict, modes) -> dict:
    results = {}
    for ds in sorted({dataset_of(s) for s in per_store}):
        stores = {s: v for s, v in per_store.items() if dataset_of(s) == ds}
        entry = {"stores": {s: {k: v[k] for k in ("records", "queries", "sync_seconds", "now")}
                            for s, v in stores.items()}, "modes": {}}
        for mode in modes:
            rows = [r for v in stores.values() for r in v["modes"][mode]["queries"]]
            lat = sorted(x for v in stores.values() for x in v["modes"][mode]["latency_ms"])
            cats = {}
            for r in rows:
                cats.setdefault(r["category"], []).append(r)
            entry["modes"][mode] = {
                "overall": summarise(rows),
                "categories": {c: summarise(rs) for c, rs in sorted(cats.items())},
                "latency_ms": {"p50": round(statistics.median(lat), 1) if lat else None,
                               "p95": round(lat[int(0.95 * (len(lat) - 1))], 1) if lat else None},
                "per_query": rows,
            }
        results[ds] = entry
    return results


def markdown(results: dict, modes) -> str:
    lines = ["| data | mode | queries | R@5 | R@10 | hit@5 | MRR@10 | p50 ms | p95 ms |",
             "|---|---|---|---|---|---|---|---|---|"]
    for ds, entry in results.items():
        for mode in modes:
            m = entry["modes"][mode]
            o = m["overall"]
            lines.append(f"| {ds} | {mode} | {o['n']} | {o['r5']:.3f} | {o['r10']:.3f} | "
                         f"{o['hit5']:.3f} | {o['mrr']:.3f} | {m['latency_ms']['p50']} | "
                         f"{m['latency_ms']['p95']} |")
    for ds, entry in results.items():
        cats = entry["modes"][modes[-1]]["categories"]
        if len(cats) > 1:
            lines += ["", f"{ds}, by category ({modes[-1]}):", "",
                      "| category | queries | R@5 | R@10 | hit@5 | MRR@10 | top-1 is first gold |",
                      "|---|---|---|---|---|---|---|"]
            for c, o in cats.items():
                lines.append(f"| {c} | {o['n']} | {o['r5']:.3f} | {o['r10']:.3f} | "
                             f"{o['hit5']:.3f} | {o['mrr']:.3f} | {o['top1_is_first_gold']}/{o['n']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("datasets", nargs="*", help="stores or datasets (default: all)")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of stores")
    ap.add_argument("--modes", default="fts,vector,hybrid,bm25")
    ap.add_argument("--max-queries", type=int, help="per store (smoke runs)")
    ap.add_argument("--split", default="all", choices=("all", "tune", "check"),
                    help="only the tune or the check half of the queries (see half_of)")
    ap.add_argument("--distract", type=int, default=0,
                    help="mix N x the store's records of unrelated ones in, in sessions of their "
                         "own; -N: inside the store's own conversations (bench/distractors.py)")
    ap.add_argument("--own", action="store_true", help="also the stores of bench/data (held out)")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "retrieval.json")
    ap.add_argument("--configured-model", action="store_true",
                    help="embed with CURSOR_MEMORY_MODEL / CURSOR_MEMORY_MODEL_PATH (e.g. the "
                         "production model) instead of the offline test model")
    args = ap.parse_args(argv)
    modes = tuple(m for m in args.modes.split(",") if m)

    from offline_model import MODEL_NAME, use_offline_model
    if not args.configured_model:
        use_offline_model()
    stores = find_stores(args.data, args.datasets)
    if args.own:
        stores += find_stores(OWN_DATA, args.datasets)
    if not stores:
        print(f"no stores under {args.data}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    per_store = {}
    with tempfile.TemporaryDirectory(prefix="cursor-memory-bench-") as work:
        for name, folder in stores:
            t = time.perf_counter()
            per_store[name] = run_store(name, folder, modes, args.max_queries, Path(work),
                                        args.split, args.distract)
            print(f"{name}: {per_store[name]['records']} chunks, {per_store[name]['queries']} "
                  f"queries, {time.perf_counter() - t:.1f} s", file=sys.stderr)
    results = build_results(per_store, modes)
    table = markdown(results, modes)
    doc = {
        "command": "python bench/retrieval.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "model": (os.environ.get("CURSOR_MEMORY_MODEL", "?") if args.configured_model
                  else f"{MODEL_NAME} (int8 ONNX, offline test model)"),
        "split": args.split, "distract": args.distract,
        "seconds": round(time.perf_counter() - started, 1),
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, ensure_ascii=False, indent=1))
    args.out.with_suffix(".md").write_text(table + "\n")
    print(table)
    print(f"\n{doc['seconds']} s; wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
