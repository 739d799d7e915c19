"""`cursor-memory doctor` says what is wrong and exits 1, or says all is well and exits 0."""
import os
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from memory_core import Memory, doctor, install
from memory_core.locks import LockFile


@pytest.fixture
def project(tmp_path, monkeypatch):
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the hooks' interpreter must find memory_core
    install.install(proj)
    mem = Memory(proj / ".cursor/skills/memory-data")
    mem.save_fact("The API listens on port 3000")
    mem.sync()
    return proj, mem


def run(mem, project, capsys):
    code = doctor.run(mem, project)
    return code, capsys.readouterr().out


def test_a_healthy_install_passes(project, capsys):
    proj, mem = project
    code, out = run(mem, proj, capsys)
    assert code == 0, out
    assert "FAIL" not in out
    for what in ("index vs files", "embedding model", "vector search", "hooks: installed and working"):
        assert what in out
    daily = "".join(p.read_text() for p in (mem.root / "daily").iterdir())
    assert "session_start" not in daily  # the hook probe did not touch the real memory


def test_missing_hooks_and_a_missing_model_are_reported(tmp_path, capsys, no_model):
    mem = Memory(tmp_path / "p/.cursor/skills/memory-data")
    code, out = run(mem, tmp_path / "p", capsys)
    assert code == 1
    assert "FAIL  hooks" in out and "install" in out
    assert "FAIL  embedding model" in out and "model download" in out


def test_a_hook_interpreter_without_cursor_memory_is_reported(project, capsys, monkeypatch):
    proj, mem = project
    monkeypatch.delenv("PYTHONPATH")
    hooks = proj / ".cursor/hooks.json"
    # -S: no site-packages, so whichever python3 is on PATH, this one cannot import the package
    hooks.write_text(hooks.read_text().replace(sys.executable, f"{sys.executable} -I -S"))
    code, out = run(mem, proj, capsys)
    assert code == 1 and "FAIL  hooks" in out


def test_a_dead_rebuilds_temp_file_is_reported(project, capsys):
    proj, mem = project
    stale = mem.root / "index.sqlite.rebuild-999999"
    stale.write_bytes(b"x")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    code, out = run(mem, proj, capsys)
    assert code == 1 and "leftover temp file" in out and "index.sqlite.rebuild-999999" in out


def test_a_held_lock_names_its_holder(project, capsys):
    proj, mem = project
    holder = subprocess.Popen([sys.executable, "-c",
                               "import sys, time; sys.path.insert(0, %r)\n"
                               "from memory_core.locks import LockFile\n"
                               "l = LockFile(%r); l.acquire(); print('held', flush=True); time.sleep(60)"
                               % (str(ROOT), str(mem.root / "cleanup.lock"))],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        code, out = run(mem, proj, capsys)
        assert f"held by pid {holder.pid}" in out
    finally:
        holder.kill()
        holder.wait()
    assert LockFile(mem.root / "cleanup.lock").acquire(timeout=2)  # released with its holder


def test_the_cli_exits_1_when_something_needs_the_user(tmp_path, no_model):
    out = subprocess.run([sys.executable, "-m", "memory_core", "doctor", "--memory-dir",
                          str(tmp_path / "m")], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert out.returncode == 1 and "FAIL  embedding model" in out.stdout


def test_summaries_indexed_line_by_line_still_count_once(project, capsys):
    proj, mem = project
    mem.save_summary("部署", "上线了 v1.0。回滚演练通过。", ["用 Helm 部署", "镜像推到 GHCR"], ["补监控"])
    mem.sync()
    code, out = run(mem, proj, capsys)
    assert code == 0, out
    assert mem.stats().by_type["session_summary"] == 1


def test_an_index_with_the_same_count_but_other_ids_is_reported(project, capsys):
    """#13.2: doctor compared counts: a phantom id in place of a missing one passed."""
    proj, mem = project
    import sqlite3
    db = sqlite3.connect(mem.root / "index.sqlite")
    real = db.execute("SELECT id FROM chunks WHERE source_file LIKE 'daily/%'").fetchone()[0]
    db.execute("UPDATE chunks SET id = 'log-phantom' WHERE id = ?", (real,))
    db.commit()
    db.close()
    code, out = run(mem, proj, capsys)
    assert code == 1 and "FAIL  index vs files" in out
    assert "log-phantom" in out and real in out
