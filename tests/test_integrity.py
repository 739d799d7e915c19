"""The guarantees hold in real use: decisions changed back and forth, git rebases, hostile
lines, symbolic links, full and read-only disks, folders that are not projects, big stores.
Each test is one finding of issue #13 (the number in its docstring) and failed before the
fix. Disks are real: a 3 MB tmpfs and a read-only bind mount, inside a private mount
namespace (`unshare -m`)."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT
from hookutil import call, cursor
from memory_core import Memory, StorageError
from memory_core.consolidate import read_facts


def ids_in_index(root):
    db = sqlite3.connect(Path(root) / "index.sqlite")
    try:
        return {r[0] for r in db.execute("SELECT id FROM chunks WHERE instr(id, '#part-') = 0")}
    finally:
        db.close()


def cli(*args, env=None, cwd=None, input=None):
    return subprocess.run([sys.executable, "-m", "memory_core", *args], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(ROOT), **(env or {})),
                          cwd=cwd, input=input, timeout=120)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    proj = tmp_path / "proj"
    proj.mkdir()
    return proj


def memory_of(project):
    return Memory(project / ".cursor/skills/memory-data")


def at(monkeypatch, day):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", f"{day}T10:00:00Z")


# --- 1. a decision flipped back -----------------------------------------------------------------

def end_session(project):
    assert call("sessionEnd", cursor("sessionEnd", project, conv=f"c{time.monotonic_ns()}")) == {}


def chain_is_acyclic(facts: dict) -> bool:
    for start in facts:
        seen, cur = set(), start
        while cur in facts and facts[cur].get("supersedes"):
            if cur in seen:
                return False
            seen.add(cur)
            cur = facts[cur]["supersedes"]
    return True


def one_content_per_id(root) -> bool:
    """No fact id was ever used for two different texts (a version may change only its
    evidence, entities, confidence, status)."""
    seen: dict = {}
    for line in (Path(root) / "facts.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if seen.setdefault(rec["id"], rec["content"]) != rec["content"]:
            return False
    return True


@pytest.mark.parametrize("flips", [["Redis", "Memcached", "Redis"],
                                   ["Redis", "Memcached", "Redis", "Memcached"]])
def test_a_decision_changed_back_keeps_the_newest_statement_active(project, monkeypatch, flips):
    """#13.1: A→B→A and A→B→A→B, sessionEnd after each, days apart; then retention prunes
    the old days."""
    mem = memory_of(project)
    previous = None
    for n, value in enumerate(flips):
        at(monkeypatch, f"2026-06-{n * 3 + 1:02d}")
        if previous is None:
            mem.save_fact(f"Session cache backend is {value}")
        else:  # the agent supersedes the fact id the session context showed it
            old = [f for f in read_facts(mem.root).values() if f.get("status", "active") == "active"]
            assert len(old) == 1
            mem.save_fact(f"Session cache backend is {value}", supersedes=old[0]["id"])
        end_session(project)
        previous = value
    facts = read_facts(mem.root)
    active = [f for f in facts.values() if f.get("status", "active") == "active"]
    assert [f["content"] for f in active] == [f"Session cache backend is {flips[-1]}"]
    assert len(facts) == len(flips) and chain_is_acyclic(facts) and one_content_per_id(mem.root)
    hits = mem.search("cache backend", mode="fts")
    assert hits[0].content == f"Session cache backend is {flips[-1]}"
    assert [h.content for h in hits] == [f"Session cache backend is {flips[-1]}"]
    history = mem.search("cache backend", mode="fts", history=True)
    assert {h.status for h in history} == {"active", "superseded"}
    at(monkeypatch, "2026-12-01")  # every day past the 90-day retention
    end_session(project)
    assert mem.search("cache backend", mode="fts")[0].content == f"Session cache backend is {flips[-1]}"


def test_forgotten_then_saved_again_is_a_new_active_fact(project, monkeypatch):
    """#13.1: forget-then-resave."""
    mem = memory_of(project)
    at(monkeypatch, "2026-06-01")
    mem.save_fact("Deploys run on Fridays")
    end_session(project)
    [fact] = read_facts(mem.root).values()
    at(monkeypatch, "2026-06-03")
    mem.forget(fact["id"], reason="wrong")
    end_session(project)
    at(monkeypatch, "2026-06-05")
    again = mem.save_fact("Deploys run on Fridays")
    end_session(project)
    facts = read_facts(mem.root)
    assert facts[fact["id"]]["status"] == "forgotten"
    active = [f for f in facts.values() if f.get("status", "active") == "active"]
    assert len(active) == 1 and active[0]["id"] != fact["id"] and active[0]["evidence"] == [again["id"]]
    assert mem.search("Fridays", mode="fts")[0].id == active[0]["id"]
    assert one_content_per_id(mem.root)


# --- 2. lines inserted mid-file ------------------------------------------------------------------

def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def clone(origin, dest):
    """A clone of `origin` at `dest` that can commit."""
    git(dest.parent, "clone", "-q", str(origin), str(dest))
    git(dest, "config", "user.email", "x@y")
    git(dest, "config", "user.name", "x")


def test_lines_a_git_pull_rebase_inserts_are_indexed(tmp_path):
    """#13.2: two clones of one repository; the other side's line lands before ours (same
    inode, same first 4 KB, longer lines after): the next sync finds it, skips nothing."""
    origin, a, b = tmp_path / "origin.git", tmp_path / "a", tmp_path / "b"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    clone(origin, a)
    day = "2026-10-01"
    data = a / ".cursor/skills/memory-data"
    common = Memory(data)
    for i in range(60):  # > 4 KB that both clones share
        common.log_event("transcript", session_id="s", role="user",
                         content=f"common line {i} " + "x" * 60)
    (a / ".gitattributes").write_text(".cursor/skills/memory-data/daily/*.jsonl merge=union\n")
    (a / ".gitignore").write_text(".cursor/skills/memory-data/index.sqlite*\n*.lock\nstate.json\n")
    git(a, "add", "-A")
    git(a, "commit", "-qm", "init")
    git(a, "push", "-q", "origin", "HEAD")
    clone(origin, b)
    daily_a = next((a / ".cursor/skills/memory-data/daily").iterdir())
    daily_b = b / ".cursor/skills/memory-data/daily" / daily_a.name
    with open(daily_a, "a") as f:
        f.write(json.dumps({"id": "log-from-a", "type": "fact", "content": "Clone A chose Kafka",
                            "timestamp": f"{day}T01:00:00Z"}) + "\n")
    git(a, "commit", "-qam", "a")
    git(a, "push", "-q")
    mem_b = Memory(b / ".cursor/skills/memory-data")
    with open(daily_b, "a") as f:
        f.write(json.dumps({"id": "log-from-b", "type": "fact",
                            "content": "Clone B wrote a somewhat longer line about Pulsar",
                            "timestamp": f"{day}T02:00:00Z"}) + "\n")
    mem_b.sync(embed=False)  # B's index stops after B's own line
    git(b, "commit", "-qam", "b")
    git(b, "pull", "-q", "--rebase")
    assert "log-from-a" in daily_b.read_text()
    report = mem_b.sync(embed=False)
    assert report.skipped == []
    assert {"log-from-a", "log-from-b"} <= ids_in_index(mem_b.root)
    assert mem_b.search("Kafka", mode="fts")[0].id == "log-from-a"
    from memory_core import doctor
    assert all(ok is not False for ok, what, _ in doctor.checks(mem_b, None) if what == "index vs files")


def test_a_same_size_rewrite_past_the_first_4_kb_leaves_no_phantom(mem):
    """#13.2: bytes changed far into a file, size unchanged: the old id goes, the new one comes."""
    for i in range(80):
        mem.save_fact(f"filler fact number {i:03d} " + "y" * 40)
    mem.save_fact("the last fact is about zebras")
    mem.sync(embed=False)
    path = next((mem.root / "daily").iterdir())
    text = path.read_text()
    last = text.splitlines()[-1]
    record = json.loads(last)
    new = json.dumps(dict(record, id=record["id"][:-4] + "beef", content="the last fact is about okapis"),
                     ensure_ascii=False, separators=(",", ":"))
    assert len(new) == len(last)
    path.write_text(text.replace(last, new))
    mem.sync(embed=False)
    index = ids_in_index(mem.root)
    assert record["id"] not in index and json.loads(new)["id"] in index
    assert not mem.search("zebras", mode="fts") and mem.search("okapis", mode="fts")


# --- 3. retention never deletes unread lines ------------------------------------------------------

def test_malformed_lines_outlive_their_day_in_quarantine(project, monkeypatch):
    """#13.3: a day past retention with a cut-off line and a Latin-1 line."""
    mem = memory_of(project)
    at(monkeypatch, "2026-01-05")
    mem.save_fact("an old fact, consolidated")
    path = mem.daily_path()
    bad = [b'{"id":"log-x","type":"fact","content":"caf\xe9 na\xefve","timestamp":"2026-01-05T00:00:00Z"}',
           b'{"id":"log-y","type":"fact","content":"cut']
    with open(path, "ab") as f:
        f.write(bad[0] + b"\n" + bad[1])
    end_session(project)  # consolidated; the bad lines are skipped
    at(monkeypatch, "2026-06-01")
    end_session(project)
    assert not path.exists()
    kept = (mem.root / "quarantine" / path.name).read_bytes()
    assert kept == bad[0] + b"\n" + bad[1] + b"\n"
    from memory_core import doctor
    found = [d for ok, what, d in doctor.checks(mem, None) if what == "quarantined lines"]
    assert found and "2 lines" in found[0]


# --- 4. one bad line stops nothing ----------------------------------------------------------------

HOSTILE = [
    '{"id":"log-h1","type":"fact","content":"big confidence","timestamp":"2026-10-01T00:00:00Z","confidence":1' + "0" * 5000 + "}",
    '{"id":"log-h2","type":"fact","content":"deep","timestamp":"2026-10-01T00:00:00Z","entities":' + "[" * 50_000 + "]" * 50_000 + "}",
    '{"id":"log-h3","type":"fact","content":"year one","timestamp":"0001-01-01T00:00:00+14:00"}',
    '{"id":"log-h4","type":"fact","content":"year 9999","timestamp":"9999-12-31T23:00:00-14:00"}',
    '{"id":"log-h5","type":"fact","content":"nan","timestamp":"2026-10-01T00:00:00Z","confidence":NaN}',
]


def test_any_one_line_is_skipped_and_everything_else_works(project, monkeypatch):
    """#13.4: each hostile line is reported as file:line; sync, search, doctor, sessionStart
    and sessionEnd all work around it."""
    mem = memory_of(project)
    at(monkeypatch, "2026-10-01")
    mem.save_fact("the good line before")
    with open(mem.daily_path(), "a") as f:
        f.write("\n".join(HOSTILE) + "\n")
    mem.save_fact("the good line after")
    report = mem.sync(embed=False)
    name = f"daily/{mem.daily_path().name}"
    assert [s.split(": ")[0] for s in report.skipped] == [f"{name}:{n}" for n in range(2, 7)]
    assert {h.content for h in mem.search("good line", mode="fts")} == {
        "the good line before", "the good line after"}
    out = call("sessionStart", cursor("sessionStart", project))
    assert "the good line after" in out["additional_context"]
    end_session(project)
    assert {f["content"] for f in read_facts(mem.root).values()} == {
        "the good line before", "the good line after"}
    from memory_core import doctor
    assert any(what.startswith("5 malformed lines") for _, what, _ in doctor.checks(mem, None))
    for flag in ("--since", "--until"):
        res = cli("search", "good", flag, "0001-01-01T00:00:00+14:00", "--memory-dir", str(mem.root))
        assert res.returncode == 2 and len(res.stderr.splitlines()) == 1 and "Traceback" not in res.stderr


# --- 5. clear results or one-line errors, never a traceback ----------------------------------------

def test_large_limits_are_answered(mem):
    """#13.5: hybrid search with a limit past vec0's k."""
    for i in range(30):
        mem.save_fact(f"fact {i} about deploys")
    mem.sync()
    assert len(mem.search("deploys", limit=1000)) == 30
    res = cli("search", "deploys", "--limit", "820", "--memory-dir", str(mem.root))
    assert res.returncode == 0 and "Traceback" not in res.stderr


def test_a_folder_where_the_index_should_be_is_moved_aside_and_rebuilt(project):
    """#13.5: index.sqlite replaced by a directory."""
    mem = memory_of(project)
    mem.save_fact("the index will be a folder")
    mem.sync(embed=False)
    for extra in ("", "-wal", "-shm"):
        p = Path(str(mem.root / "index.sqlite") + extra)
        if p.exists():
            p.unlink()
    (mem.root / "index.sqlite").mkdir()
    assert mem.search("folder", mode="fts")[0].content == "the index will be a folder"
    assert (mem.root / "index.sqlite").is_file()
    assert list(mem.root.glob("index.sqlite.moved-*"))
    for args in (["rebuild", "--no-embed"], ["doctor"]):
        res = cli(*args, "--memory-dir", str(mem.root))
        assert "Traceback" not in res.stderr
    out = call("sessionStart", cursor("sessionStart", project))
    assert "the index will be a folder" in out["additional_context"]


def test_check_refs_with_an_artifact_folder_outside_the_project(project, tmp_path):
    """#13.5: an absolute artifact_dirs path outside the project."""
    mem = memory_of(project)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "spare.pdf").write_text("x")
    (mem.root / "config.json").write_text(json.dumps({"artifact_dirs": {"report": str(outside)}}))
    mem.save_fact("the report is report:q3")
    res = cli("check-refs", "--memory-dir", str(mem.root), env={"CURSOR_PROJECT_DIR": str(project)})
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert str(outside / "spare.pdf") in res.stdout and "report:q3" in res.stdout


def test_search_piped_into_head_ends_quietly(mem):
    """#13.5: a closed pipe is not an error."""
    for i in range(200):
        mem.save_fact(f"line {i} about pipes and heads " + "z" * 50)
    mem.sync(embed=False)
    out = subprocess.run(f'"{sys.executable}" -m memory_core search pipes --limit 200 --mode fts '
                         f'--memory-dir "{mem.root}" | head -1', shell=True, capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert out.stdout.count("\n") == 1 and "Traceback" not in out.stderr and "Broken" not in out.stderr


def test_an_unexpected_error_is_one_line_and_exit_1(capsys):
    """No traceback reaches a user, whatever fails inside a command."""
    from types import SimpleNamespace

    from memory_core import cli

    def broken(args):
        raise RuntimeError("something nobody expected")
    assert cli._run(broken, SimpleNamespace(prog_name="cursor-memory search")) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "something nobody expected" in err and "Traceback" not in err


# --- 6. symbolic links ------------------------------------------------------------------------------

def test_nothing_is_written_through_a_symbolic_link(project, tmp_path):
    """#13.6: state.lock, index.sqlite, a daily file and hooks.log as links to a user's
    files: none of them is written, truncated or chmodded; doctor lists the links."""
    mem = memory_of(project)
    mem.save_fact("before the links")
    mem.sync(embed=False)
    victims = {}
    for name in ("lock-victim", "index-victim", "daily-victim", "log-victim"):
        victims[name] = tmp_path / name
        victims[name].write_text(f"the user's {name}\n")
        os.chmod(victims[name], 0o644)
    (mem.root / "state.lock").unlink(missing_ok=True)
    os.symlink(victims["lock-victim"], mem.root / "state.lock")
    for extra in ("", "-wal", "-shm"):
        Path(str(mem.root / "index.sqlite") + extra).unlink(missing_ok=True)
    os.symlink(victims["index-victim"], mem.root / "index.sqlite")
    tomorrow = mem.root / "daily" / "2099-01-01.jsonl"
    os.symlink(victims["daily-victim"], tomorrow)
    (mem.root / "hooks.log").unlink(missing_ok=True)
    os.symlink(victims["log-victim"], mem.root / "hooks.log")
    before = {k: (v.read_bytes(), v.stat().st_mode) for k, v in victims.items()}

    out = call("sessionStart", cursor("sessionStart", project))
    assert "before the links" in out["additional_context"]
    end_session(project)
    mem.search("links", mode="fts")
    os.environ["CURSOR_MEMORY_NOW"] = "2099-01-01T10:00:00Z"
    try:
        with pytest.raises(StorageError, match="symbolic link"):
            mem.save_fact("goes nowhere")
    finally:
        del os.environ["CURSOR_MEMORY_NOW"]
    assert {k: (v.read_bytes(), v.stat().st_mode) for k, v in victims.items()} == before
    from memory_core import doctor
    links = [d for ok, what, d in doctor.checks(mem, None) if "symbolic links" in what]
    assert links and "2099-01-01.jsonl" in links[0]


def test_a_save_refused_for_a_link_is_one_line(project, tmp_path):
    mem = memory_of(project)
    victim = tmp_path / "victim.jsonl"
    victim.write_text("")
    os.symlink(victim, mem.daily_path())
    res = cli("save-fact", "--content", "x", "--memory-dir", str(mem.root))
    assert res.returncode == 1 and len(res.stderr.splitlines()) == 1 and "symbolic link" in res.stderr
    assert victim.read_text() == ""


# --- 7, 8. a full disk and a read-only folder -----------------------------------------------------

def _namespace_available():
    if sys.platform != "linux" or not shutil.which("unshare"):
        return False
    for args in (["unshare", "-m", "true"], ["unshare", "-Urm", "true"]):
        if subprocess.run(args, capture_output=True).returncode == 0:
            return args[:-1]
    return False


NAMESPACE = _namespace_available()
needs_mounts = pytest.mark.skipif(not NAMESPACE, reason="needs a private mount namespace (unshare -m)")


def in_namespace(shell: str, env=None, timeout=120):
    """Run a shell script in a private mount namespace (mounts vanish with it)."""
    return subprocess.run([*NAMESPACE, "sh", "-c", shell], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), **(env or {})), timeout=timeout)


@needs_mounts
def test_a_full_disk_leaves_the_files_exactly_as_before(tmp_path):
    """#13.7: save_fact.py on a 3 MB tmpfs that fills up: one line on stderr, exit 1, and
    the daily file byte for byte as it was."""
    disk = tmp_path / "disk"
    disk.mkdir()
    script = f"""
set -e
mount -t tmpfs -o size=3m tmpfs "{disk}"
M="{disk}/mem"
"{sys.executable}" "{ROOT}/scripts/save_fact.py" --memory-dir "$M" --content "written before the disk filled"
F=$(ls "$M"/daily/*.jsonl)
cp "$F" "{tmp_path}/before"
dd if=/dev/zero of="{disk}/filler" bs=4096 2>/dev/null || true
set +e
"{sys.executable}" "{ROOT}/scripts/save_fact.py" --memory-dir "$M" --content "$(python3 -c 'print("x" * 3900)')" 2> "{tmp_path}/err"
echo "exit=$?"
cmp "$F" "{tmp_path}/before" && echo same
"""
    res = in_namespace(script)
    assert "exit=1" in res.stdout and "same" in res.stdout, res.stdout + res.stderr
    err = (tmp_path / "err").read_text()
    assert len(err.splitlines()) == 1 and "disk is full" in err and "Traceback" not in err


@needs_mounts
def test_a_full_disk_is_not_taken_for_a_broken_index(tmp_path):
    """#13.7: sessionStart on a full disk answers from the index as it is and rebuilds
    nothing."""
    disk = tmp_path / "disk"
    disk.mkdir()
    payload = json.dumps({"hook_event_name": "sessionStart", "conversation_id": "c",
                          "workspace_roots": [str(disk / "proj")]})
    script = f"""
set -e
mount -t tmpfs -o size=3m tmpfs "{disk}"
mkdir -p "{disk}/proj"
"{sys.executable}" -m memory_core save-fact --content "remembered before the disk filled" --memory-dir "{disk}/proj/.cursor/skills/memory-data"
echo '{payload}' | "{sys.executable}" "{ROOT}/scripts/hook.py" sessionStart > /dev/null
stat -c %i "{disk}/proj/.cursor/skills/memory-data/index.sqlite" > "{tmp_path}/inode-before"
"{sys.executable}" -m memory_core save-fact --content "$(python3 -c 'print("y" * 3000)')" --memory-dir "{disk}/proj/.cursor/skills/memory-data" > /dev/null
dd if=/dev/zero of="{disk}/filler" bs=1024 2>/dev/null || true
echo '{payload}' | "{sys.executable}" "{ROOT}/scripts/hook.py" sessionStart > "{tmp_path}/out"
stat -c %i "{disk}/proj/.cursor/skills/memory-data/index.sqlite" > "{tmp_path}/inode-after"
cp "{disk}/proj/.cursor/skills/memory-data/hooks.log" "{tmp_path}/log" 2>/dev/null || true
"""
    res = in_namespace(script, env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)})
    assert res.returncode == 0, res.stderr
    out = json.loads((tmp_path / "out").read_text())
    assert "remembered before the disk filled" in out["additional_context"]
    assert (tmp_path / "inode-before").read_text() == (tmp_path / "inode-after").read_text()
    logs = "".join(p.read_text() for p in [tmp_path / "log", *tmp_path.glob("cache/**/hooks.log")]
                   if p.exists())
    assert "rebuilding" not in logs


@needs_mounts
def test_a_read_only_memory_folder_still_answers(project, tmp_path):
    """#13.8: a read-only bind mount: search and sessionStart answer from what is there, say
    once that the folder is read-only, and the hook logs to the user cache."""
    mem = memory_of(project)
    mem.save_fact("written while the folder was writable")
    mem.sync(embed=False)
    payload = json.dumps({"hook_event_name": "sessionStart", "conversation_id": "ro",
                          "workspace_roots": [str(project)]})
    root = mem.root
    script = f"""
set -e
mount --bind "{root}" "{root}"
mount -o remount,ro,bind "{root}"
"{sys.executable}" -m memory_core search writable --mode fts --memory-dir "{root}" > "{tmp_path}/search" 2> "{tmp_path}/search-err"
echo '{payload}' | "{sys.executable}" "{ROOT}/scripts/hook.py" sessionStart > "{tmp_path}/start"
"""
    res = in_namespace(script, env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)})
    assert res.returncode == 0, res.stderr
    assert "written while the folder was writable" in (tmp_path / "search").read_text()
    assert (tmp_path / "search-err").read_text().count("read-only") == 1
    start = json.loads((tmp_path / "start").read_text())
    assert "written while the folder was writable" in start["additional_context"]
    log = (tmp_path / "cache/cursor-memory/hooks.log").read_text()
    assert "read-only" in log


@needs_mounts
def test_a_read_only_folder_without_an_index_is_searched_from_its_files(project, tmp_path):
    mem = memory_of(project)
    mem.save_fact("never indexed here")
    root = mem.root
    script = f"""
set -e
mount --bind "{root}" "{root}"
mount -o remount,ro,bind "{root}"
"{sys.executable}" -m memory_core search indexed --mode fts --memory-dir "{root}"
"""
    res = in_namespace(script, env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert res.returncode == 0 and "never indexed here" in res.stdout, res.stderr


def test_a_read_only_folders_searches_leave_nothing_in_the_temp_folder(project, tmp_path):
    """Each search of a read-only folder indexed its files into a temp folder and left it
    there: a folder (160 KB for a few lines) per hook and per search, for good."""
    mem = memory_of(project)
    mem.save_fact("kept in a read-only folder")
    root = mem.root
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    script = f"""
set -e
mount --bind "{root}" "{root}"
mount -o remount,ro,bind "{root}"
for i in 1 2 3; do
  "{sys.executable}" -m memory_core search read-only --mode fts --memory-dir "{root}" >> "{tmp_path}/out" 2>/dev/null
done
"""
    if not NAMESPACE:
        pytest.skip("needs a private mount namespace (unshare -m)")
    res = in_namespace(script, env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "TMPDIR": str(tmp)})
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "out").read_text().count("kept in a read-only folder") == 3
    assert os.listdir(tmp) == []


SCRATCH = """
import os, sys
from memory_core.scratch import scratch_index
index = scratch_index(sys.argv[1])
print(index.path, flush=True)
how = sys.argv[2]
if how == "hard":
    from memory_core.mcp_server import hard_exit
    hard_exit(0)
if how == "kill":
    os.kill(os.getpid(), 9)
"""


def _scratch_process(root, how, tmp):
    return subprocess.run([sys.executable, "-c", SCRATCH, str(root), how], capture_output=True,
                          text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp)))


@pytest.mark.parametrize("how", ["exit", "hard"])
def test_a_scratch_index_goes_with_its_process(project, tmp_path, how):
    """A normal exit and the MCP server's hard exit (os._exit, which runs no atexit)."""
    mem = memory_of(project)
    mem.save_fact("a line to index")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    res = _scratch_process(mem.root, how, tmp)
    assert res.returncode == 0, res.stderr
    assert str(tmp) in res.stdout and os.listdir(tmp) == []


@pytest.mark.skipif(os.name != "posix", reason="a dead process's folder is swept on POSIX only")
def test_a_killed_process_scratch_index_is_swept_by_the_next_one(project, tmp_path):
    mem = memory_of(project)
    mem.save_fact("a line to index")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    killed = _scratch_process(mem.root, "kill", tmp)
    assert killed.returncode == -9
    left = Path(killed.stdout.strip()).parent
    assert left.is_dir()
    alive = tmp / f"cursor-memory-ro-{os.getpid()}-x"  # this process's: never swept
    alive.mkdir()
    other = tmp / "cursor-memory-ro-notapid"
    other.mkdir()
    young = _scratch_process(mem.root, "exit", tmp)  # the dead one's folder is under a minute old
    assert young.returncode == 0 and left.is_dir()
    old = time.time() - 120
    for p in (left, alive, other):
        os.utime(p, (old, old))
    later = _scratch_process(mem.root, "exit", tmp)
    assert later.returncode == 0, later.stderr
    assert sorted(os.listdir(tmp)) == sorted([alive.name, other.name])


# --- 9. where memory is created ---------------------------------------------------------------------

def test_memory_is_made_only_in_an_existing_project_folder(tmp_path, monkeypatch):
    """#13.9: workspace_roots ["/"], cwd "/", a folder that does not exist, the home folder."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    before_root = set(os.listdir("/"))
    for payload in ({"hook_event_name": "sessionStart", "conversation_id": "c", "workspace_roots": ["/"]},
                    {"hook_event_name": "SessionStart", "session_id": "c", "cwd": "/"},
                    {"hook_event_name": "sessionStart", "conversation_id": "c",
                     "workspace_roots": [str(tmp_path / "no/such/project")]},
                    {"hook_event_name": "sessionStart", "conversation_id": "c",
                     "workspace_roots": [str(tmp_path)]}):
        assert call("sessionStart", payload) == {}
    assert set(os.listdir("/")) == before_root and not (tmp_path / ".cursor").exists()
    assert not (tmp_path / "no").exists()
    log = (tmp_path / "cache/cursor-memory/hooks.log").read_text()
    assert "root of the file system" in log and "home folder" in log and "not an existing folder" in log


# --- 10, 11, 12. scale inside the hooks' time limits --------------------------------------------------

def write_store(root: Path, n: int, *, days: int = 30, facts: bool = False,
                last_day: str = "2026-09-28"):
    """n daily lines over `days` daily files ending on `last_day` (and, with `facts`, each
    already consolidated), written directly: fast."""
    from datetime import date, timedelta
    from memory_core.consolidate import fact_id
    root.mkdir(parents=True, exist_ok=True)
    (root / "daily").mkdir(exist_ok=True)
    per_day = -(-n // days)
    fact_lines = []
    first = date.fromisoformat(last_day) - timedelta(days=days - 1)
    for d in range(days):
        day = first + timedelta(days=d)
        lines = []
        for i in range(d * per_day, min(n, (d + 1) * per_day)):
            rid = f"log-{day:%Y%m%d}-000000-{i:010x}"
            stamp = f"{day}T{i % 24:02d}:00:00Z"
            content = f"store fact {i}: service s{i % 97} uses port {1000 + i}"
            lines.append(json.dumps({"id": rid, "type": "fact", "memory_type": "W",
                                     "content": content, "entities": [], "confidence": 1.0,
                                     "timestamp": stamp}))
            if facts:
                fact_lines.append(json.dumps({"id": fact_id(rid), "type": "W", "kind": "fact",
                                              "content": content, "entities": [], "confidence": 1.0,
                                              "evidence": [rid], "created_at": stamp,
                                              "updated_at": stamp}))
        (root / "daily" / f"{day}.jsonl").write_text("\n".join(lines) + "\n")
    if facts:
        (root / "facts.jsonl").write_text("\n".join(fact_lines) + "\n")


def test_consolidation_work_follows_what_is_new(tmp_path, monkeypatch):
    """#13.10: with 8,000 facts consolidated, a sessionEnd's consolidation of 10 new lines
    takes well under a second (quadratic before: 31 s at 8k facts)."""
    monkeypatch.setenv("CURSOR_MEMORY_MODEL", "none/none")
    monkeypatch.delenv("CURSOR_MEMORY_MODEL_PATH")
    root = tmp_path / "m"
    write_store(root, 8000, facts=True)
    mem = Memory(root)
    mem.sync(embed=False)
    for i in range(10):
        mem.save_fact(f"a new fact number {i}")
    mem.sync(embed=False)
    started = time.perf_counter()
    report = mem.consolidate()
    took = time.perf_counter() - started
    assert report.new == 10 and len(read_facts(root)) == 8010
    assert took < 2.0, took
    started = time.perf_counter()
    assert mem.consolidate().new == 0
    assert time.perf_counter() - started < 1.0


def test_a_first_sync_stops_at_its_deadline_and_goes_on_later(tmp_path, monkeypatch):
    """#13.11: a store with no index: sessionStart spends at most its sync budget, still
    gives the context (recent facts from the files), and later syncs finish the job
    without redoing what was done."""
    import memory_core.hooks as hooks
    proj = tmp_path / "p"
    root = proj / ".cursor/skills/memory-data"
    write_store(root, 30_000, days=30)
    (root / "MEMORY.md").write_text("# 核心\n\n## 栈\n- Go 与 Kafka\n", encoding="utf-8")
    at(monkeypatch, "2026-09-28")
    monkeypatch.setattr(hooks, "SESSION_START_SYNC_SECONDS", 0.5)
    started = time.perf_counter()
    out = call("sessionStart", cursor("sessionStart", proj))
    assert time.perf_counter() - started < 3.0
    text = out["additional_context"]
    assert "Go 与 Kafka" in text and "store fact" in text  # MEMORY.md and recent facts
    db = sqlite3.connect(root / "index.sqlite")
    done, partial = db.execute("SELECT count(*), sum(complete = 0) FROM sync_state").fetchone()
    first = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    db.close()
    assert 0 < first < 30_000
    report = Memory(root).sync(embed=False)
    assert report.complete and len(ids_in_index(root)) == 30_000 + 1
    assert report.upserted == 30_000 + 1 - first  # nothing synced twice


@pytest.mark.slow
def test_a_killed_sync_keeps_its_progress(tmp_path):
    """#13.11: kill -9 a first sync half-way: the slices it committed stay."""
    root = tmp_path / "m"
    write_store(root, 40_000, days=4)
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from memory_core import Memory; "
            f"Memory({str(root)!r}).sync(embed=False)")
    proc = subprocess.Popen([sys.executable, "-c", code])
    db_path = root / "index.sqlite"
    deadline = time.monotonic() + 60
    committed = 0
    while time.monotonic() < deadline and committed < 4000:
        time.sleep(0.2)
        if db_path.exists():
            try:
                db = sqlite3.connect(db_path, timeout=1)
                committed = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
                db.close()
            except sqlite3.Error:
                pass
    proc.kill()
    proc.wait()
    assert 0 < committed < 40_000
    report = Memory(root).sync(embed=False)
    assert report.upserted <= 40_000 - committed + 2000  # at most one slice redone
    assert len(ids_in_index(root)) == 40_000


@pytest.mark.parametrize("size", ["1 MB, 2000 sections", "10 MB", "2 MB of binary"])
def test_session_start_cost_follows_the_budget_not_memory_md(project, size):
    """#13.12: a large MEMORY.md: the context is built in well under a second and stays
    within the budget."""
    from memory_core import context
    mem = memory_of(project)
    path = mem.root / "MEMORY.md"
    if size.startswith("1 MB"):
        path.write_text("".join(f"## 第 {i} 节\n" + "- 一条很长的约定说明 " * 25 + "\n" for i in range(2000)),
                        encoding="utf-8")
    elif size == "10 MB":
        path.write_text("## 大文件\n" + ("这是一行核心记忆 with English words too\n" * 260_000), encoding="utf-8")
    else:
        path.write_bytes(os.urandom(2_000_000))
    mem.save_fact("a fact beside a big MEMORY.md")
    started = time.perf_counter()
    text = context.build(mem.root, None).text
    assert time.perf_counter() - started < 1.0
    assert len(text) <= context.DEFAULT_BUDGET and "a fact beside a big MEMORY.md" in text
    started = time.perf_counter()
    out = call("sessionStart", cursor("sessionStart", project))
    assert time.perf_counter() - started < 8.0
    assert len(out["additional_context"]) <= context.DEFAULT_BUDGET


def test_two_clones_that_both_consolidated_merge_without_losing_a_fact(tmp_path, monkeypatch):
    """A fourth hostile round: facts.jsonl had no merge rule, so two clones that consolidated
    always conflicted there, and keeping one side lost the other's facts once retention had
    pruned their days. With the attributes install writes, the pull merges and both stay."""
    from memory_core import install
    origin, a, b = tmp_path / "origin.git", tmp_path / "a", tmp_path / "b"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    clone(origin, a)
    monkeypatch.setenv("HOME", str(tmp_path))
    install.install(a, mcp=False)
    git(a, "add", "-A")
    git(a, "commit", "-qm", "install")
    git(a, "push", "-q", "origin", "HEAD")
    clone(origin, b)
    for project, text in ((a, "Clone A moved the queue to Kafka"), (b, "Clone B moved search to Meilisearch")):
        monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-01-01T10:00:00Z")
        Memory(project / ".cursor/skills/memory-data").save_fact(text)
        monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-05-01T10:00:00Z")  # consolidate, then prune the day
        assert call("sessionEnd", cursor("sessionEnd", project, conv=f"end-{project.name}")) == {}
        assert not list((project / ".cursor/skills/memory-data/daily").glob("2026-01-01.jsonl"))
        git(project, "add", "-A")
        git(project, "commit", "-qm", project.name)
        if project is a:
            git(a, "push", "-q")
    git(b, "pull", "-q", "--no-rebase", "--no-edit")
    mem = Memory(b / ".cursor/skills/memory-data")
    assert mem.search("Kafka", mode="fts") and mem.search("Meilisearch", mode="fts")
