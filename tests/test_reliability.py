"""Nothing lost, nothing corrupted: concurrent writers, kill -9 at random moments, broken
indexes, hostile input.

Bounded for CI. `CURSOR_MEMORY_STRESS=1 pytest tests/test_reliability.py` runs the long
version (real script processes for every save, many more kills); see README "What we
guarantee".
"""
import json
import multiprocessing
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from hookutil import call, cursor
from memory_core import Memory, jsonl
from memory_core.consolidate import read_facts

STRESS = os.environ.get("CURSOR_MEMORY_STRESS") == "1"
FORK = multiprocessing.get_context("fork")


def index_ids(root):
    db = sqlite3.connect(root / "index.sqlite")
    try:
        return [r[0] for r in db.execute("SELECT id FROM chunks")]
    finally:
        db.close()


def file_records(root):
    out = []
    for p in sorted((root / "daily").glob("*.jsonl")):
        batch = jsonl.read(p)
        assert not batch.skipped, batch.skipped
        out += [r for r in batch.records]
    return out


# --- concurrency -------------------------------------------------------------------------

def _saver(root, worker, n, via_script):
    if via_script:
        for i in range(n):
            subprocess.run([sys.executable, str(ROOT / "scripts/save_fact.py"), "--content",
                            f"worker {worker} fact {i} 并发写入", "--memory-dir", str(root)],
                           check=True, capture_output=True)
    else:
        from memory_core.cli import save_fact_main
        devnull = open(os.devnull, "w")
        sys.stdout = devnull
        for i in range(n):
            assert save_fact_main(["--content", f"worker {worker} fact {i} 并发写入",
                                   "--memory-dir", str(root)]) == 0


def _looper(root, what, stop_at):
    mem = Memory(root)
    while time.time() < stop_at:
        if what == "sync":
            mem.sync(embed=False)
        else:
            mem.search("并发写入 fact", mode="fts", limit=5)


@pytest.mark.slow
def test_twenty_writers_while_sync_and_search_loop(tmp_path):
    """20 processes x 200 saves (real save_fact.py processes in stress mode), with a sync
    loop and a search loop running: every record once in the JSONL, once in the index."""
    root = tmp_path / "m"
    Memory(root)
    workers, per = 20, 200
    loops = [FORK.Process(target=_looper, args=(root, what, time.time() + 600))
             for what in ("sync", "search")]
    for p in loops:
        p.start()
    savers = [FORK.Process(target=_saver, args=(root, w, per, STRESS)) for w in range(workers)]
    for p in savers:
        p.start()
    for p in savers:
        p.join()
        assert p.exitcode == 0
    for p in loops:
        p.kill()
        p.join()
    records = file_records(root)
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids)) == workers * per
    assert {r["content"] for r in records} == {f"worker {w} fact {i} 并发写入"
                                               for w in range(workers) for i in range(per)}
    Memory(root).sync(embed=False)
    in_index = index_ids(root)
    assert len(in_index) == len(set(in_index)) and set(in_index) == set(ids)


def test_two_session_ends_and_a_session_start_at_once(tmp_path):
    project = tmp_path / "p"
    mem = Memory(project / ".cursor/skills/memory-data")
    for i in range(60):
        mem.save_fact(f"fact number {i} about the deploy pipeline")
    mem.save_fact("fact number 7 about the deploy pipeline")  # a duplicate to merge
    env = dict(os.environ, CURSOR_PROJECT_DIR=str(project))
    procs = []
    for event, payload in [
        ("sessionEnd", cursor("sessionEnd", project, conv="a", reason="window_close")),
        ("sessionEnd", cursor("sessionEnd", project, conv="b", reason="user_close")),
        ("sessionStart", cursor("sessionStart", project, conv="c")),
    ]:
        procs.append(subprocess.Popen([sys.executable, str(ROOT / "scripts/hook.py"), event],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, env=env, text=True))
        procs[-1].stdin.write(json.dumps(payload))
        procs[-1].stdin.close()
    for p in procs:
        assert p.wait(timeout=180) == 0
        assert json.loads(p.stdout.read()) is not None
    log = (mem.root / "hooks.log").read_text()
    assert "error" not in log
    facts = read_facts(mem.root)
    owned = [e for f in facts.values() for e in f["evidence"]]
    lines = [r["id"] for r in file_records(mem.root) if r["type"] == "fact"]
    assert sorted(owned) == sorted(lines)  # every line consolidated, exactly once
    assert len(facts) == 60
    ids = index_ids(mem.root)
    assert len(ids) == len(set(ids))


# --- crashes -----------------------------------------------------------------------------

KILLS = 60 if STRESS else 8


def _append_burst(path, confirmed):
    i = 0
    while True:
        rec = {"id": f"r{os.getpid()}-{i}", "type": "fact", "content": "x" * random.randint(10, 5000),
               "timestamp": "2026-10-15T00:00:00Z"}
        jsonl.append(path, rec)
        with open(confirmed, "a") as f:  # only after append() returned
            f.write(rec["id"] + "\n")
        i += 1


def _kill_soon(proc, low=0.05, high=0.4):
    time.sleep(random.uniform(low, high))
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()


def test_kill_9_during_appends_loses_no_confirmed_record(tmp_path):
    path = tmp_path / "daily.jsonl"
    confirmed = tmp_path / "confirmed"
    for _ in range(KILLS):
        p = FORK.Process(target=_append_burst, args=(path, confirmed))
        p.start()
        _kill_soon(p)
    batch = jsonl.read(path)
    have = {r["id"] for r in batch.records}
    assert set(confirmed.read_text().split()) <= have  # every record confirmed before a kill
    # Linux can cut a large write() short when SIGKILL arrives between pages, so a killed
    # writer may leave a torn line. It stays a line of its own (the next append ends it
    # first): a prefix of one unconfirmed record, never glued to another.
    lines = path.read_bytes().split(b"\n")
    for n, _ in batch.skipped:
        torn = lines[n - 1]
        assert torn.startswith(b'{"id":"r') and torn.count(b'{"id"') == 1
    assert len(batch.skipped) <= KILLS


def _sync_forever(root):
    mem = Memory(root)
    while True:
        mem.sync(embed=False)
        os.unlink(root / "index.sqlite") if random.random() < 0.3 else None


def _rebuild_forever(root):
    mem = Memory(root)
    while True:
        mem.rebuild(embed=False)


def _consolidate_forever(root):
    from memory_core.consolidate import compact_if_needed
    mem = Memory(root)
    while True:
        mem.consolidate()
        compact_if_needed(root, force=True)


@pytest.fixture
def big(tmp_path):
    root = tmp_path / "m"
    mem = Memory(root)
    for day in range(1, 6):
        jsonl.append(mem.root / "daily" / f"2026-10-0{day}.jsonl",
                     [{"id": f"log-{day}-{i}", "type": "fact", "memory_type": "W",
                       "content": f"第 {day} 天的事实 {i}: service-{i} uses port {3000 + i}",
                       "timestamp": f"2026-10-0{day}T10:00:00Z"} for i in range(400)])
    return mem


@pytest.mark.slow
@pytest.mark.parametrize("work", [_sync_forever, _rebuild_forever])
def test_kill_9_during_sync_or_rebuild_leaves_a_working_index(big, work):
    expected = {f"log-{d}-{i}" for d in range(1, 6) for i in range(400)}
    for _ in range(KILLS):
        p = FORK.Process(target=work, args=(big.root,))
        p.start()
        _kill_soon(p, 0.1, 0.8)
        started = time.monotonic()
        hits = Memory(big.root).search("service-7 port", mode="fts", limit=3)
        assert time.monotonic() - started < 10  # no lock or temp file left blocking
        assert hits and "service-7" in hits[0].content
        assert set(index_ids(big.root)) == expected
    leftovers = list(big.root.glob("index.sqlite.rebuild-*"))
    Memory(big.root).rebuild(embed=False)  # the next rebuild clears what a dead one left
    assert list(big.root.glob("index.sqlite.rebuild-*")) == [] or leftovers == []


@pytest.mark.slow
def test_kill_9_during_consolidation_and_compaction_loses_nothing(big):
    for _ in range(KILLS):
        p = FORK.Process(target=_consolidate_forever, args=(big.root,))
        p.start()
        _kill_soon(p, 0.05, 0.6)
        batch = jsonl.read(big.root / "facts.jsonl") if (big.root / "facts.jsonl").exists() else None
        assert batch is None or not batch.skipped
    big.consolidate()
    facts = read_facts(big.root)
    owned = sorted(e for f in facts.values() for e in f["evidence"])
    assert owned == sorted(f"log-{d}-{i}" for d in range(1, 6) for i in range(400))
    from memory_core.locks import remove_stale_temps
    remove_stale_temps(big.root)  # what sessionEnd does: a dead writer's temp file goes
    assert not list(big.root.glob("*.tmp"))
    big.sync(embed=False)
    assert len([i for i in index_ids(big.root) if i.startswith("fact-")]) == len(facts)


# --- broken indexes ----------------------------------------------------------------------

def _set_meta(root, key, value):
    db = sqlite3.connect(root / "index.sqlite")
    db.execute("UPDATE meta SET value=? WHERE key=?", (value, key))
    db.commit()
    db.close()


def test_an_index_from_an_older_schema_is_rebuilt(big, caplog):
    big.sync(embed=False)
    _set_meta(big.root, "schema_version", "0")
    assert big.search("service-7", mode="fts")
    assert caplog.text.count("rebuilding") == 1 and "schema_version" in caplog.text


def test_vectors_of_another_dimension_are_remade(mem, capsys):
    mem.save_fact("The API listens on port 3000")
    mem.sync()
    _set_meta(mem.root, "embedding_dims", "999")
    assert Memory(mem.root).sync().embedded == 1
    assert mem.search("which port does the api use", mode="vector")[0].content == \
        "The API listens on port 3000"


def _hold_write_lock(path, ready):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    db.execute("UPDATE meta SET value=value")
    ready.set()
    time.sleep(600)


def test_an_index_locked_by_a_dead_process_answers_at_once(big):
    big.sync(embed=False)
    ready = FORK.Event()
    p = FORK.Process(target=_hold_write_lock, args=(str(big.root / "index.sqlite"), ready))
    p.start()
    assert ready.wait(30)
    os.kill(p.pid, signal.SIGKILL)
    p.join()
    started = time.monotonic()
    big.save_fact("after the crash 崩溃之后")
    assert "崩溃之后" in big.search("崩溃之后", mode="fts")[0].content
    assert time.monotonic() - started < 5


# --- hostile input -----------------------------------------------------------------------

def test_a_100_mb_transcript_is_handled_within_the_hook_timeout(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    project = tmp_path / "p"
    project.mkdir()
    path = tmp_path / "huge.jsonl"
    line = json.dumps({"role": "assistant", "message": {"content": [
        {"type": "text", "text": "长输出 long output " * 200}]}}, ensure_ascii=False) + "\n"
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(100_000_000 // len(line.encode()) + 1):
            f.write(line)
    started = time.monotonic()
    out = call("preCompact", cursor("preCompact", project, transcript_path=str(path)))
    assert time.monotonic() - started < 30  # hooks.json gives preCompact 30 s
    assert "checkpointed" in out.get("user_message", "")
    log = (project / ".cursor/skills/memory-data/hooks.log").read_text()
    assert "archived" in log  # says what it left out
    daily = sum(p.stat().st_size for p in (project / ".cursor/skills/memory-data/daily").iterdir())
    assert daily < 10_000_000


def test_bad_lines_are_listed_by_doctor_and_the_rest_syncs(mem, capsys):
    from memory_core import doctor
    mem.save_fact("good")
    with open(mem.daily_path(), "ab") as f:
        f.write(b"not json\n")
        f.write(b'{"id": "w", "type": "fact", "content": 5, "timestamp": "2026-01-01T00:00:00Z"}\n')
        f.write(b'{"id": "big", "type": "fact", "content": "' + b"x" * 1_100_000 + b'"}\n')
        f.write(b'{"id": "bad", "type": "fact", "content": "\xff\xfe", "timestamp": "x"}\n')
        f.write(b'{"id": "nul\x00", "type": "fact"}\n')
    mem.save_fact("good again")
    assert mem.sync(embed=False).upserted == 2
    capsys.readouterr()
    assert doctor.run(mem, None) == 1
    out = capsys.readouterr().out
    assert "5 malformed lines skipped" in out
    name = mem.daily_path().name
    for n in (2, 3, 4, 5, 6):
        assert f"daily/{name}:{n}:" in out


def test_memory_files_are_private(tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    mem = Memory(project / ".cursor/skills/memory-data")
    mem.save_fact("x")
    mem.save_summary("t", "s")
    call("sessionStart", cursor("sessionStart", project))
    call("sessionEnd", cursor("sessionEnd", project))
    assert os.stat(mem.root).st_mode & 0o777 == 0o700
    for p in mem.root.rglob("*"):
        if p.is_file():
            assert p.stat().st_mode & 0o077 == 0, p
