"""The retrieval benchmark harness runs end to end on a tiny store written for the tests
(tests/data/bench/mini: a few records and queries in the shared store format)."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_retrieval_harness_runs_on_a_small_store(tmp_path):
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "retrieval.py"),
                           "--data", str(ROOT / "tests" / "data" / "bench"), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    entry = doc["results"]["mini"]
    assert set(entry["modes"]) == {"fts", "vector", "hybrid"}
    for mode in entry["modes"].values():
        assert mode["overall"]["n"] == 6
        assert 0 <= mode["overall"]["r5"] <= 1 and mode["latency_ms"]["p50"] is not None
    assert entry["stores"]["mini"]["now"].startswith("2026-03-20")
    assert out.with_suffix(".md").read_text().startswith("| data | mode |")
