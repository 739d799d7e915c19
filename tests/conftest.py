import os
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from offline_model import use_offline_model  # noqa: E402


@pytest.fixture(autouse=True)
def _environment(tmp_path, monkeypatch):
    """Every test: the real offline model, a private cache, no memory folder from outside,
    and a fixed timezone so daily file names are predictable."""
    for var in ("CURSOR_MEMORY_DIR", "CURSOR_PROJECT_DIR", "CLAUDE_PROJECT_DIR",
                "CURSOR_MEMORY_NOW", "CURSOR_MEMORY_SQLITE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    use_offline_model(os.environ)
    yield
    time.tzset()


@pytest.fixture
def mem(tmp_path):
    from memory_core import Memory
    return Memory(tmp_path / "memory-data")


@pytest.fixture
def no_model(monkeypatch):
    """A machine where the configured model was never downloaded."""
    monkeypatch.setenv("CURSOR_MEMORY_MODEL", "jinaai/jina-embeddings-v2-base-zh")
    monkeypatch.delenv("CURSOR_MEMORY_MODEL_PATH", raising=False)
    from memory_core import embeddings
    embeddings._LOADED.clear()
    yield


@pytest.fixture
def cli(monkeypatch, capsys):
    """Run an agent script or `cursor-memory` in this process through its main(argv), with
    `env` and `cwd` as a subprocess would get them: .returncode, .stdout, .stderr."""
    from types import SimpleNamespace

    from memory_core import cli as entry_points
    mains = {"save_fact.py": entry_points.save_fact_main,
             "save_summary.py": entry_points.save_summary_main,
             "search_memory.py": entry_points.search_main, "cursor-memory": entry_points.main}

    def run(name, *args, env=None, cwd=None):
        with monkeypatch.context() as m:
            for key, value in (env or {}).items():
                m.setenv(key, value)
            if cwd is not None:
                m.chdir(cwd)
            capsys.readouterr()
            try:
                code = mains[name]([str(a) for a in args])
            except SystemExit as e:  # argparse
                code = e.code if isinstance(e.code, int) else 0 if e.code is None else 2
            out, err = capsys.readouterr()
        return SimpleNamespace(returncode=code, stdout=out, stderr=err)
    return run


def run_script(name, *args, env=None, input=None, cwd=None):
    """Run scripts/<name>.py as the agent would, in a subprocess."""
    import subprocess
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *args],
                          capture_output=True, text=True, env=full_env, input=input, cwd=cwd,
                          timeout=120)
