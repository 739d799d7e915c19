"""The agent-facing scripts and `cursor-memory`: behaviour through main(argv) in this process
(the `cli` fixture), and each script once as the agent runs it, a subprocess."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, run_script


@pytest.fixture
def memdir(tmp_path):
    return str(tmp_path / "memory-data")


def test_each_script_runs_as_a_process_and_a_saved_fact_is_found_at_once(memdir):
    saved = run_script("save_fact.py", "--content", "决定使用 Redis 作为会话缓存",
                       "--type", "W", "--entities", "redis,cache", "--memory-dir", memdir, "--json")
    assert saved.returncode == 0, saved.stderr
    record = json.loads(saved.stdout)
    found = run_script("search_memory.py", "缓存", "--memory-dir", memdir, "--json")
    assert found.returncode == 0, found.stderr
    results = json.loads(found.stdout)["results"]
    assert results[0]["id"] == record["id"] and results[0]["entities"] == ["redis", "cache"]
    human = run_script("search_memory.py", "缓存", "--memory-dir", memdir)
    assert "决定使用 Redis 作为会话缓存" in human.stdout and record["id"] in human.stdout


def test_save_summary_prints_the_saved_record(memdir):
    out = run_script("save_summary.py", "--topic", "Redis 缓存方案", "--summary", "讨论了缓存选型",
                     "--decision", "用 Redis", "--decision", "TTL 6 小时", "--todo", "连接池",
                     "--memory-dir", memdir, "--json")
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["decisions"] == ["用 Redis", "TTL 6 小时"] and record["id"].startswith("sum-")
    text = open(os.path.join(memdir, "sessions.jsonl"), encoding="utf-8").read()
    assert json.loads(text) == record


@pytest.mark.parametrize("args, says", [
    (["--content", ""], "empty"),
    (["--content", "   "], "empty"),
    (["--content", "x" * 5000], "limit"),
    (["--content", "ok", "--type", "Z"], "--type"),
    (["--content", "ok", "--confidence", "1.5"], "confidence"),
    (["--content", "ok", "--confidence", "abc"], "confidence"),
    ([], "--content"),
])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(cli, memdir, args, says):
    out = cli("save_fact.py", *args, "--memory-dir", memdir)
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and says in out.stderr
    daily = os.path.join(memdir, "daily")
    assert not os.path.isdir(daily) or not os.listdir(daily)


def test_non_utf8_arguments_are_refused(memdir):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "save_fact.py"),
                          b"--content", b"bad \xff\xfe bytes", "--memory-dir", memdir],
                         capture_output=True)
    assert out.returncode == 2 and b"UTF-8" in out.stderr
    assert not os.path.isdir(os.path.join(memdir, "daily")) or not os.listdir(os.path.join(memdir, "daily"))


def test_search_refuses_a_bad_limit_and_mode(cli, memdir):
    assert cli("search_memory.py", "x", "--limit", "0", "--memory-dir", memdir).returncode == 2
    assert cli("search_memory.py", "x", "--mode", "magic", "--memory-dir", memdir).returncode == 2


def test_the_memory_folder_is_found_flag_then_env_then_project(cli, tmp_path):
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    env = {"CURSOR_MEMORY_DIR": "", "CURSOR_PROJECT_DIR": ""}
    cli("save_fact.py", "--content", "from git top", env=env, cwd=project / "src")
    assert list((project / ".cursor/skills/memory-data/daily").iterdir())
    other = tmp_path / "other"
    refused = cli("save_fact.py", "--content", "nowhere", cwd=project / "src",
                         env={"CURSOR_PROJECT_DIR": str(other), "CURSOR_MEMORY_DIR": ""})
    assert refused.returncode == 2 and "not an existing folder" in refused.stderr
    assert len(refused.stderr.splitlines()) == 1 and not other.exists()  # nothing made
    other.mkdir()
    cli("save_fact.py", "--content", "from project env", cwd=project / "src",
               env={"CURSOR_PROJECT_DIR": str(other), "CURSOR_MEMORY_DIR": ""})
    assert list((other / ".cursor/skills/memory-data/daily").iterdir())
    cli("save_fact.py", "--content", "from memory env", cwd=project / "src",
               env={"CURSOR_PROJECT_DIR": str(other), "CURSOR_MEMORY_DIR": str(tmp_path / "m")})
    assert list((tmp_path / "m/daily").iterdir())
    cli("save_fact.py", "--content", "from flag", "--memory-dir", str(tmp_path / "f"),
               cwd=project / "src", env={"CURSOR_MEMORY_DIR": str(tmp_path / "m")})
    assert list((tmp_path / "f/daily").iterdir())
    plain = tmp_path / "plain"
    plain.mkdir()
    cli("save_fact.py", "--content", "from cwd", cwd=plain, env=env)
    assert list((plain / ".cursor/skills/memory-data/daily").iterdir())


@pytest.mark.parametrize("script, args", [
    ("save_fact.py", ["--content", "fast"]),
    ("save_summary.py", ["--topic", "t", "--summary", "s"]),
])
def test_saving_imports_no_sqlite_numpy_or_fastembed(memdir, script, args):
    out = subprocess.run([sys.executable, "-X", "importtime", str(ROOT / "scripts" / script),
                          *args, "--memory-dir", memdir], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    imported = {line.split("|")[-1].strip() for line in out.stderr.splitlines() if "|" in line}
    assert not imported & {"sqlite3", "_sqlite3", "numpy", "fastembed", "onnxruntime", "subprocess"}


def test_cursor_memory_commands(cli, memdir):
    def run(*args):
        return cli("cursor-memory", *args, "--memory-dir", memdir)

    assert run("save-fact", "--content", "Grafana 看板在 infra 仓库").returncode == 0
    assert run("save-summary", "--topic", "t", "--summary", "s").returncode == 0
    synced = run("sync")
    assert synced.returncode == 0 and "2 chunks added or changed" in synced.stdout
    assert "Grafana" in run("search", "看板").stdout
    stats = json.loads(run("stats", "--json").stdout)
    assert stats["chunks"] == 2 and stats["vectors"] == 2
    assert run("rebuild").returncode == 0
    assert json.loads(run("stats", "--json").stdout)["vectors"] == 2
    assert "all-MiniLM" in run("model", "info").stdout


def test_cursor_memory_runs_as_a_process(memdir):
    out = subprocess.run([sys.executable, "-m", "memory_core", "save-fact", "--content", "ok",
                          "--memory-dir", memdir], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.returncode == 0 and out.stdout.startswith("saved log-"), out.stderr
