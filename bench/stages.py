#!/usr/bin/env python3
"""The stages of a warm hybrid search, alone and side by side, with the model and the vector
product run on thread pools (fastembed's and numpy's defaults) and single-threaded (ours).
Shows why a search embeds and multiplies on one thread: the pools' threads spin after each
call and take the core the keyword search beside them needs.

    python bench/perf.py --work /tmp/pw --sizes 100000 --only build   # a store, once
    python bench/stages.py /tmp/pw/store-100000

Writes bench/results/stages.json and stages.md. Uses the offline test model.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "bench"), str(REPO / "tests")]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path, help="a memory folder with an embedded index")
    ap.add_argument("--out", type=Path, default=REPO / "bench/results/stages.json")
    args = ap.parse_args(argv)

    import numpy as np
    from offline_model import use_offline_model
    use_offline_model(os.environ)
    from perf import bench_queries, provenance, raw_model, stats

    from memory_core import Memory, vectors
    from memory_core.search import Filters, fts_candidates

    mem = Memory(args.store)
    ours, pool = mem.embedder(), raw_model()
    queries = bench_queries()
    results: dict = {}

    def measure(label, fn):
        for q in queries[:5]:
            fn(q)
        samples = []
        for q in queries:
            t = time.perf_counter()
            fn(q)
            samples.append((time.perf_counter() - t) * 1000)
        results[label] = stats(samples)
        print(f"{label:58s} p50 {results[label]['median']:6.1f}  p95 {results[label]['p95']:6.1f} ms",
              flush=True)

    def beside(background, foreground):
        def run(q):
            thread = threading.Thread(target=background, args=(q,))
            thread.start()
            foreground(q)
            thread.join()
        return run

    def run(conn):
        pks, matrix = vectors._load_matrix(conn)  # as a warm process holds it

        def keyword(q):
            fts_candidates(conn, q, Filters(), 50)

        def embed_pool(q):
            return next(iter(pool.query_embed(q)))

        def top_blas(v):
            sims = matrix @ v
            return pks[np.argpartition(-sims, 199)[:200]]

        def top_ours(v):
            return vectors._top(pks, matrix, v, 200)

        vecs = {q: ours.embed_query(q) for q in queries}
        for q in queries:  # every query's postings in the page cache before anything is timed
            keyword(q)
        measure("keyword search alone", keyword)
        measure("query embedding alone, fastembed's thread pool", embed_pool)
        measure("query embedding alone, one thread (ours)", ours.embed_query)
        measure("vector product alone, numpy @ (BLAS thread pool)", lambda q: top_blas(vecs[q]))
        measure("vector product alone, einsum (ours)", lambda q: top_ours(vecs[q]))
        measure("keyword beside embedding, thread pool", beside(embed_pool, keyword))
        measure("keyword beside embedding, one thread", beside(ours.embed_query, keyword))
        measure("embed, keyword, product in turn, thread pools",
                lambda q: (keyword(q), top_blas(embed_pool(q))))
        measure("embed, keyword, product in turn, one thread",
                lambda q: (keyword(q), top_ours(ours.embed_query(q))))
        measure("keyword beside (embed + product), one thread (ours)",
                beside(lambda q: top_ours(ours.embed_query(q)), keyword))
        measure("keyword search alone, again last", keyword)

    mem.index.run(run, vectors=True)
    command, commit = provenance("stages.py", argv)
    out = {"store": str(args.store), "chunks": mem.stats().chunks, "commit": commit,
           "command": command, "cpus": os.cpu_count(), "results": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    lines = [f"# Stages of a warm hybrid search ({out['chunks']} chunks, {out['cpus']} cpus)", "",
             f"`{out['command']}` at {commit}", "", "| stage | p50 ms | p95 ms |", "|---|---|---|"]
    lines += [f"| {k} | {v['median']:.1f} | {v['p95']:.1f} |" for k, v in results.items()]
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
