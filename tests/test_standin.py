"""The production-shaped stand-in (bench/standin_model.py) goes through the same code path as
the real default model: named as jina-v2-base-zh, found in the folder setting where fastembed
reads that model, embedded and searched by cursor-memory's own code. The benchmarks' speed
figures rest on this. Test-sized (1 layer, a 2,000-word vocabulary); the 768 dimensions and
the file layout are the real model's."""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
onnx = pytest.importorskip("onnx")  # the test extras install it


def test_the_default_models_stand_in_loads_and_searches_like_the_real_one(tmp_path, monkeypatch):
    import standin_model
    from memory_core import Memory, embeddings
    from memory_core.config import DEFAULT_MODEL

    folder = tmp_path / "standin"
    path = standin_model.build(folder, layers=1, intermediate=256, vocab=2000)
    assert path == folder / "onnx" / "model.onnx"  # where fastembed reads jina-v2-base-zh
    monkeypatch.setenv("CURSOR_MEMORY_MODEL", DEFAULT_MODEL)
    monkeypatch.setenv("CURSOR_MEMORY_MODEL_PATH", str(folder))
    monkeypatch.setattr(embeddings, "_LOADED", {})

    mem = Memory(tmp_path / "memory-data")
    mem.save_fact("the session cache backend is Redis")
    mem.save_fact("the API listens on port 3000")
    embedder = mem.embedder()
    assert embedder is not None and embedder.identity.startswith(DEFAULT_MODEL)
    assert embedder.embed(["one text", "another"]).shape == (2, 768)
    mem.sync()
    hits = mem.search("Redis cache backend", mode="hybrid")
    assert hits and any(h.vec_rank for h in hits) and not hits.notes
