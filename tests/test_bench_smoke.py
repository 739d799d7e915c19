"""The retrieval benchmark harness runs end to end on a tiny store written for the tests
(tests/data/bench/mini: a few records and queries in the shared store format)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_retrieval_harness_runs_on_a_small_store(tmp_path):
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "retrieval.py"),
                           "--data", str(ROOT / "tests" / "data" / "bench"), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    entry = doc["results"]["mini"]
    assert set(entry["modes"]) == {"fts", "vector", "hybrid", "bm25"}  # bm25: the plain baseline
    for mode in entry["modes"].values():
        assert mode["overall"]["n"] == 6
        assert 0 <= mode["overall"]["r5"] <= 1 and mode["latency_ms"]["p50"] is not None
    assert entry["stores"]["mini"]["now"].startswith("2026-03-20")
    assert out.with_suffix(".md").read_text().startswith("| data | mode |")


@pytest.mark.slow
def test_the_perf_suite_runs_on_a_small_store(tmp_path):
    """Every row of the performance table is measured (numbers are not judged here: that is
    bench/perf.py's job on a quiet machine)."""
    out = tmp_path / "perf.json"
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "perf.py"), "--sizes", "300",
                           "--runs", "1", "--work", str(tmp_path / "work"), "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(out.read_text())["results"]["300"]
    assert r["rebuild"]["embedded"] == r["embed"]["vectors"] > 300  # records, summaries, parts
    assert r["save_fact"]["median"] > 0 and r["session_start"]["imports_heavy"] == []
    assert r["search_inproc"]["ours"]["n"] == 40 and r["search_hybrid_cold"]["rss_mb"] > 0
    table = out.with_suffix(".md").read_text()
    for what in ("save_fact.py wall", "sessionStart hook, new conversation, nothing new", "text-only sync",
                 "embedding sync", "hybrid search in process", "--mode fts, cold",
                 "hybrid, cold", "peak RSS", "index.sqlite size", "full rebuild"):
        assert what in table
    # the rows that add lines leave a reused store as it was made
    store = tmp_path / "work" / "store-300"
    assert sum(f.stat().st_size for f in [*store.glob("*.jsonl"), *store.glob("daily/*.jsonl")]
               ) == r["jsonl_bytes"]

    # the two scripts that explain figures run on the same store
    for script, args in (("stages.py", []), ("fts_insert.py", ["--rows", "200", "--repeat", "1"])):
        res = tmp_path / script.replace(".py", ".json")
        proc = subprocess.run([sys.executable, str(ROOT / "bench" / script), str(store), *args,
                               "--out", str(res)], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        figures = json.loads(res.read_text())["results"]
        assert len(figures) >= 7 and all(v.get("median", v.get("rows_per_second")) > 0
                                         for v in figures.values())


def test_memdaily_trajectories_become_stores_the_retrieval_harness_measures(tmp_path):
    """bench/memdaily.py on three trajectories written for the tests in MemSim's format
    (tests/data/memsim): each becomes a store of its own with 9x chit-chat, which
    bench/retrieval.py then searches and scores like any other."""
    stores = tmp_path / "stores"
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "memdaily.py"), "--memsim",
                           str(ROOT / "tests" / "data" / "memsim"), "--split", "all",
                           "--out", str(stores)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert len(list((stores / "memdaily").iterdir())) == 3
    out = tmp_path / "m.json"
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "retrieval.py"), "--data",
                           str(stores), "--modes", "fts,bm25", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    entry = json.loads(out.read_text())["results"]["memdaily"]
    for mode in ("fts", "bm25"):
        o = entry["modes"][mode]["overall"]
        assert o["n"] == 3 and o["hit5"] == 1.0  # 36-45 lines a store, the facts still found
    assert entry["modes"]["fts"]["categories"].keys() == {"noisy"}
    assert entry["stores"]["memdaily/06_noisy_roles-1"]["now"].startswith("2024-04-02T21:00")
    bad = subprocess.run([sys.executable, str(ROOT / "bench" / "memdaily.py"), "--memsim",
                          str(tmp_path), "--out", str(tmp_path / "x")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("error: no ")
