"""Every way vectors can be stored and searched gives the same answers: sqlite-vec loaded
into the stdlib sqlite3, into sqlean.py, or no extension at all (numpy over BLOBs)."""
import os
import shutil
import subprocess
import sys
import threading

import pytest

from memory_core import Memory
from memory_core.index import vector_driver

FACTS = ["We keep user login sessions in Redis with a six hour expiry",
         "The frontend is built with React and Vite",
         "Invoices are exported as PDF every month",
         "决定使用 Redis 作为会话缓存"]
QUERY = "where do we persist the signed-in state of accounts"


def _answers(root):
    mem = Memory(root)
    for f in FACTS:
        mem.save_fact(f)
    mem.sync()
    return ([h.id for h in mem.search(QUERY, mode="vector")],
            mem.search(QUERY, mode="vector", limit=1)[0].content,
            mem.search("缓存", mode="hybrid", limit=1)[0].content,
            mem.stats().vector_store)


@pytest.mark.parametrize("driver", ["sqlean", "numpy"])
def test_vector_search_works_with_each_driver(tmp_path, monkeypatch, driver):
    monkeypatch.setenv("CURSOR_MEMORY_SQLITE", driver)
    order, top, zh, store = _answers(tmp_path / driver)
    assert top == FACTS[0] and zh == FACTS[3] and len(order) == 4
    assert store == ("blob" if driver == "numpy" else "vec0")


def test_the_default_driver_is_the_best_this_python_has():
    import sqlite3
    expected = "stdlib" if hasattr(sqlite3.Connection, "enable_load_extension") else "sqlean"
    assert vector_driver() == expected


def _python_with_extension_loading():
    """A Python of the same version whose stdlib sqlite3 can load extensions (Debian's can;
    pyenv's and python.org's often cannot)."""
    import sqlite3
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return sys.executable
    for candidate in (f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}",):
        if shutil.which(candidate):
            ok = subprocess.run([candidate, "-c", "import sqlite3;"
                                 "sqlite3.connect(':memory:').enable_load_extension(True)"],
                                capture_output=True)
            if ok.returncode == 0:
                return candidate
    return None


def test_vector_search_works_with_the_stdlib_driver(tmp_path):
    python = _python_with_extension_loading()
    if python is None:
        pytest.skip("no Python here whose stdlib sqlite3 can load extensions")
    import numpy
    site = os.path.dirname(os.path.dirname(numpy.__file__))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = ("import sys, json; sys.path[:0] = [%r, %r, %r]\n"
            "from test_backends import _answers\n"
            "from memory_core.index import vector_driver\n"
            "print(json.dumps([vector_driver(), *_answers(sys.argv[1])]))") % (
        root, os.path.join(root, "tests"), site)
    out = subprocess.run([python, "-c", code, str(tmp_path / "stdlib")], capture_output=True,
                         text=True, env=dict(os.environ, CURSOR_MEMORY_SQLITE=""), timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    import json
    driver, order, top, zh, store = json.loads(out.stdout.strip().splitlines()[-1])
    assert driver == "stdlib" and store == "vec0"
    assert top == FACTS[0] and zh == FACTS[3] and len(order) == 4


def test_a_vec0_index_stays_usable_by_a_python_without_sqlite_vec(tmp_path, monkeypatch, capsys):
    root = tmp_path / "m"
    _answers(root)
    monkeypatch.setenv("CURSOR_MEMORY_SQLITE", "numpy")
    mem = Memory(root)
    mem.save_fact("新的事实：部署窗口在周四")
    hits = mem.search("部署窗口")  # keywords work, and nothing is rebuilt
    assert hits[0].content == "新的事实：部署窗口在周四" and hits[0].vec_rank is None
    assert "rebuilding" not in capsys.readouterr().err
    assert mem.stats().vector_store == "vec0" and mem.stats().vectors == 4
    monkeypatch.delenv("CURSOR_MEMORY_SQLITE")
    assert Memory(root).sync().embedded == 1  # a Python that can load it catches up


def test_rebuild_moves_vectors_into_the_store_this_python_can_use(tmp_path, monkeypatch):
    root = tmp_path / "m"
    monkeypatch.setenv("CURSOR_MEMORY_SQLITE", "numpy")
    _answers(root)
    monkeypatch.delenv("CURSOR_MEMORY_SQLITE")
    mem = Memory(root)
    report = mem.rebuild()
    assert report.embedded == 0  # carried over, not recomputed
    assert mem.stats().vector_store == "vec0"
    assert mem.search(QUERY, mode="vector", limit=1)[0].content == FACTS[0]


def test_a_warm_process_answers_from_memory_exactly_as_the_scan_does(tmp_path, monkeypatch):
    from memory_core import vectors
    mem = Memory(tmp_path / "m")
    for f in FACTS:
        mem.save_fact(f)
    mem.save_fact("Redis keeps the permission cache for 300 seconds", kind="preference",
                  memory_type="O")
    mem.sync()
    cold = [(h.id, round(h.vec_score, 5)) for h in mem.search(QUERY, mode="vector")]
    monkeypatch.setattr(vectors, "WARM_MIN", 0)
    vectors._warm.clear()
    threads = []
    top = vectors._top
    monkeypatch.setattr(vectors, "_top", lambda *a: threads.append(
        threading.current_thread() is threading.main_thread()) or top(*a))
    for _ in range(3):  # the second search builds the matrix, the third uses it
        warm = [(h.id, round(h.vec_score, 5)) for h in mem.search(QUERY, mode="vector")]
        assert warm == cold
    assert any(isinstance(e[1], tuple) for e in vectors._warm.values())  # the matrix is held
    # the third search multiplied once, on the query's embedding thread beside the keywords
    assert threads == [True, False]
    assert {h.type for h in mem.search("Redis", mode="vector", type="preference")} == {"preference"}
    new = mem.save_fact("Login sessions now live in Valkey instead of Redis")
    assert new["id"] in [h.id for h in mem.search(QUERY, mode="vector")]  # version bumped


def test_a_warm_process_never_answers_from_the_matrix_of_an_index_since_replaced(tmp_path,
                                                                                 monkeypatch):
    """The index is disposable: deleted and rebuilt from the files (here with a new earlier
    file, so every chunk gets another pk) while a process holds the old one's vectors."""
    from memory_core import jsonl, vectors
    monkeypatch.setattr(vectors, "WARM_MIN", 0)
    vectors._warm.clear()
    mem = Memory(tmp_path / "m")

    def write(day, texts):
        jsonl.append(mem.root / "daily" / f"{day}.jsonl", [
            {"id": f"log-{day.replace('-', '')}-000000-{i:010x}", "type": "fact", "content": t,
             "timestamp": f"{day}T00:00:00Z"} for i, t in enumerate(texts)])

    # enough vectors that the in-memory answer is not topped up by a vec0 scan
    write("2026-01-01", FACTS + [f"Build {i} of the mobile app passed on CI" for i in range(40)])
    mem.sync()
    for _ in range(3):
        assert mem.search(QUERY, mode="vector", limit=1)[0].content == FACTS[0]
    for p in mem.root.glob("index.sqlite*"):
        p.unlink()
    write("2020-01-01", ["Tabs are four spaces wide in the Go code"])
    mem.sync()  # the same writes as the first index had: the same count of vector writes
    for _ in range(3):
        assert mem.search(QUERY, mode="vector", limit=1)[0].content == FACTS[0]
