"""Where the memory folder is, what the clock says, and the user's settings.

Stdlib only and cheap to import: every hook and CLI starts here.
"""
from __future__ import annotations

import json
import os
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

DATA_SUBDIR = Path(".cursor") / "skills" / "memory-data"
CONFIG_FILE = "config.json"

# The production default: handles Chinese, English and mixed text, and reads 8192 tokens,
# so a 400-token MEMORY.md chunk is never truncated. See README "Embedding model".
DEFAULT_MODEL = "jinaai/jina-embeddings-v2-base-zh"


class MemoryError(Exception):
    """A problem the user can fix; its message is one line."""


def find_project(start: str | os.PathLike | None = None) -> Path:
    """The project: CURSOR_PROJECT_DIR, else the git top level of the cwd, else the cwd.

    The git top level is found by walking up to the nearest `.git` (a folder, or a file in
    a worktree) rather than by running git: this runs on every save and must be cheap."""
    env = os.environ.get("CURSOR_PROJECT_DIR") or os.environ.get("CLAUDE_PROJECT_DIR")
    if env:
        return Path(env)
    cwd = Path(start or os.getcwd()).absolute()
    for folder in (cwd, *cwd.parents):
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
    return cwd


def resolve_memory_dir(flag: str | None = None, project: str | os.PathLike | None = None) -> Path:
    """`--memory-dir`, then CURSOR_MEMORY_DIR, then <project>/.cursor/skills/memory-data."""
    if flag:
        return Path(flag).expanduser()
    env = os.environ.get("CURSOR_MEMORY_DIR")
    if env:
        return Path(env).expanduser()
    return Path(project or find_project()) / DATA_SUBDIR


def now() -> datetime:
    """The current time, aware. CURSOR_MEMORY_NOW (ISO 8601) fixes it for tests and benchmarks."""
    fixed = os.environ.get("CURSOR_MEMORY_NOW")
    if fixed:
        return parse_time(fixed)
    return datetime.now(timezone.utc)


def today() -> date:
    """The user's local calendar day: daily files are named by it."""
    return now().astimezone().date()


def parse_time(value: str) -> datetime:
    """ISO 8601 (a trailing Z, a date alone) to an aware datetime; naive means UTC."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        raise MemoryError(f"not an ISO 8601 date or time: {value!r}") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt


def iso(dt: datetime) -> str:
    """The one timestamp format we write: UTC, seconds, trailing Z."""
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def normalize_time(value) -> str | None:
    """A record's timestamp as we store it in the index, or None when it does not parse."""
    if not isinstance(value, str) or not value.strip():
        return None
    if len(value) == 20 and value[10] == "T" and value[19] == "Z":  # ours already (sync: 3%)
        try:
            datetime.fromisoformat(value[:19])
            return value
        except ValueError:
            pass
    try:
        return iso(parse_time(value))
    except MemoryError:
        return None


def date_bound(value: str, *, end: bool = False) -> str:
    """A --since/--until value as a UTC timestamp; a bare date means the whole local day."""
    text = value.strip()
    if len(text) == 10 and text[4] == "-" and text[7] == "-":
        try:
            day = date.fromisoformat(text)
        except ValueError:
            raise MemoryError(f"not a date: {value!r}") from None
        start = datetime(day.year, day.month, day.day).astimezone()
        return iso(start + timedelta(days=1, seconds=-1)) if end else iso(start)
    return iso(parse_time(text))


def load_config(root: Path) -> dict:
    """The memory folder's config.json; a broken one is ignored with a notice, never fatal."""
    path = Path(root) / CONFIG_FILE
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        import sys
        print(f"cursor-memory: ignoring {path}: {e}", file=sys.stderr)
        return {}


def model_settings(root: Path) -> tuple[str, str | None]:
    """(fastembed model name, local model folder or None): env wins over config.json."""
    cfg = load_config(root)
    name = os.environ.get("CURSOR_MEMORY_MODEL") or cfg.get("model") or DEFAULT_MODEL
    path = os.environ.get("CURSOR_MEMORY_MODEL_PATH") or cfg.get("model_path") or None
    return str(name), (str(Path(path).expanduser()) if path else None)


def model_cache_dir() -> Path:
    """A persistent cache (not the temp dir, which fastembed would use by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cursor-memory" / "models"
