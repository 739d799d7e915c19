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


def run_script(name, *args, env=None, input=None, cwd=None):
    """Run scripts/<name>.py as the agent would, in a subprocess."""
    import subprocess
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *args],
                          capture_output=True, text=True, env=full_env, input=input, cwd=cwd,
                          timeout=120)
