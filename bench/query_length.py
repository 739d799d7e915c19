#!/usr/bin/env python3
"""What one query's embedding costs with the default model's shape, by its length in tokens:
plain onnxruntime over the stand-in (bench/standin_model.py), one and two intra-op threads.
It answers where the MCP server's warm-search time goes (docs/benchmarks.md "MCP server").

    python bench/query_length.py --work /tmp/ql      # ~2 min; writes bench/results/query-length.json/.md
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import standin_model  # noqa: E402
from sessions import write_results  # noqa: E402

LENGTHS = (4, 8, 16, 32, 64, 128)


def measure(model: Path, threads: int, lengths=LENGTHS, runs: int = 15) -> dict:
    """{length: median ms of one forward pass} over random token ids."""
    import numpy as np
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    out = {}
    for n in lengths:
        feed = {}
        for i in session.get_inputs():
            if "mask" in i.name:
                feed[i.name] = np.ones((1, n), dtype=np.int64)
            elif "type" in i.name:
                feed[i.name] = np.zeros((1, n), dtype=np.int64)
            else:
                feed[i.name] = rng.integers(100, 5000, (1, n), dtype=np.int64)
        for _ in range(3):
            session.run(None, feed)
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            session.run(None, feed)
            times.append((time.perf_counter() - t) * 1000)
        out[n] = round(statistics.median(times), 1)
    return out


def table(results: dict) -> str:
    rows = ["| tokens | " + " | ".join(f"{t} thread{'s' * (t > 1)}, ms" for t in results["threads"]) + " |",
            "|---|" + "---|" * len(results["threads"])]
    for n in results["lengths"]:
        rows.append(f"| {n} | " + " | ".join(str(results["ms"][str(t)][str(n)]) for t in results["threads"]) + " |")
    return "\n".join(rows) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, required=True, help="where the stand-in is built (reused)")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "query-length.json")
    args = ap.parse_args(argv)
    model = standin_model.build(args.work / "standin")
    threads = (1, 2)
    results = {"model": "stand-in of jinaai/jina-embeddings-v2-base-zh (fp32)", "threads": list(threads),
               "lengths": list(LENGTHS),
               "ms": {str(t): {str(n): v for n, v in measure(model, t).items()} for t in threads}}
    print(table(results))
    write_results(args.out, results, render=table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
