"""Where the project and its memory folder are, what the clock says, and the user's settings.

Stdlib only and cheap to import: every hook and CLI starts here.
"""
from __future__ import annotations

import json
import os
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from .errors import UserError

DATA_SUBDIR = Path(".cursor") / "skills" / "memory-data"
CONFIG_FILE = "config.json"

# The production default; see README "Embedding model" for why.
DEFAULT_MODEL = "jinaai/jina-embeddings-v2-base-zh"


# --- the project and its memory folder ---------------------------------------------------

def find_project() -> Path:
    """The project: CURSOR_PROJECT_DIR (or CLAUDE_PROJECT_DIR), else the git top level of
    the cwd, else the cwd. The git top level is the nearest folder holding `.git` (a folder,
    or a file in a worktree), found without running git: this runs on every save."""
    env = os.environ.get("CURSOR_PROJECT_DIR") or os.environ.get("CLAUDE_PROJECT_DIR")
    if env:
        return Path(env)
    cwd = Path(os.getcwd()).absolute()
    for folder in (cwd, *cwd.parents):
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
    return cwd


def check_project(project: str | os.PathLike) -> Path:
    """The project folder if it may hold a memory folder: an existing directory that is not
    a file-system root or the home directory itself (a hook given workspace_roots ["/"] must
    not create /.cursor). UserError otherwise."""
    path = Path(os.path.abspath(os.fspath(project)))
    if not path.is_dir():
        raise UserError(f"{path} is not an existing folder: no project to keep memory for")
    what = _root_or_home(path)
    if what:
        raise UserError(f"{path} is {what}, not a project (run inside a project, or pass "
                        "--memory-dir)")
    return path


def _root_or_home(path: Path) -> str | None:
    """"the root of the file system" / "the home folder itself" when `path` is one of the two
    folders cursor-memory never fills, else None."""
    if path == Path(path.anchor):
        return "the root of the file system"
    try:
        if path.resolve() == Path(os.path.expanduser("~")).resolve():
            return "the home folder itself"
    except OSError:
        pass
    return None


def memory_dir_for(project: str | os.PathLike) -> Path:
    """<project>/.cursor/skills/memory-data, unless CURSOR_MEMORY_DIR says otherwise."""
    env = os.environ.get("CURSOR_MEMORY_DIR")
    if env:
        return check_memory_dir(env)
    return check_project(project) / DATA_SUBDIR


def resolve_memory_dir(flag: str | None = None, project: str | os.PathLike | None = None) -> Path:
    """`--memory-dir`, then CURSOR_MEMORY_DIR, then <project>/.cursor/skills/memory-data."""
    if flag:
        return check_memory_dir(flag)
    return memory_dir_for(project or find_project())


def check_memory_dir(value: str) -> Path:
    """A memory folder named by the user: anything but a file-system root or the home
    folder itself (whose daily/ and index.sqlite would land among the user's own files)."""
    path = Path(os.path.abspath(os.path.expanduser(value)))
    what = _root_or_home(path)
    if what:
        raise UserError(f"{path} is {what}, not a memory folder (name a folder inside it)")
    return path


def project_of_memory(root: Path) -> Path | None:
    """The project a memory folder belongs to: the folder holding .cursor/skills/memory-data,
    else CURSOR_PROJECT_DIR, else unknown."""
    root = Path(root)
    if root.as_posix().endswith(DATA_SUBDIR.as_posix()):
        return root.parents[len(DATA_SUBDIR.parts) - 1]
    env = os.environ.get("CURSOR_PROJECT_DIR")
    return Path(env) if env else None


# --- the clock -----------------------------------------------------------------------------

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
    """ISO 8601 (a trailing Z, a date alone) to an aware datetime whose UTC form exists;
    naive means UTC. UserError for anything else (0001-01-01T00:00:00+14:00 included)."""
    text = value.strip() if isinstance(value, str) else ""
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(text)
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        dt.astimezone(timezone.utc)  # 0001-01-01T00:00+14:00 has no UTC form
    except (ValueError, OverflowError, TypeError):
        raise UserError(f"not an ISO 8601 date or time: {str(value)[:60]!r}") from None
    return dt


def iso(dt: datetime) -> str:
    """The one timestamp format we write: UTC, seconds, trailing Z (the year always four
    digits: strftime writes year 999 as "999", which sorts after 2026)."""
    try:
        u = dt.astimezone(timezone.utc)
    except OverflowError:  # the first or last instant a datetime holds, in another zone
        u = datetime.min.replace(tzinfo=timezone.utc) if dt.year < 2 else datetime.max.replace(
            tzinfo=timezone.utc)
    return f"{u.year:04d}-{u.month:02d}-{u.day:02d}T{u.hour:02d}:{u.minute:02d}:{u.second:02d}Z"


def normalize_time(value) -> str | None:
    """A record's timestamp as we store it in the index, or None when it does not parse."""
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        return None
    if len(value) == 20 and value[10] == "T" and value[19] == "Z":  # ours already: the common case
        try:
            datetime.fromisoformat(value[:19])
            return value
        except ValueError:
            pass
    try:
        return iso(parse_time(value))
    except (UserError, OverflowError, ValueError):
        return None


def date_bound(value: str, *, end: bool = False) -> str:
    """A since/until value as a UTC timestamp; a bare date means the whole local day."""
    text = str(value).strip()
    try:
        if len(text) == 10 and text[4] == "-" and text[7] == "-":
            day = date.fromisoformat(text)
            try:
                start = datetime(day.year, day.month, day.day).astimezone()
            except (OverflowError, ValueError):  # year 1: the local zone runs out of range
                start = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
            return iso(start + timedelta(days=1, seconds=-1)) if end else iso(start)
        return iso(parse_time(text))
    except (ValueError, OverflowError, UserError):
        raise UserError(f"{'until' if end else 'since'} must be a date (YYYY-MM-DD) or an ISO "
                        f"time, not {text[:60]!r}") from None


# --- settings ------------------------------------------------------------------------------

def load_config(root: Path) -> dict:
    """The memory folder's config.json; a broken one is ignored with a notice, never fatal.
    Read like every other file of the folder: not through a link, not a device, at most
    MAX_CONFIG_BYTES (a link to /dev/zero would otherwise be read until memory runs out)."""
    import stat
    path = Path(root) / CONFIG_FILE
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return {}
    except OSError as e:
        from .log import note
        note(f"ignoring {path}: {'it is a symbolic link' if os.path.islink(path) else e.strerror}")
        return {}
    try:
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise ValueError("not a regular file")
            raw = f.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise ValueError(f"larger than {MAX_CONFIG_BYTES:,} bytes")
        data = json.loads(raw.decode("utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError, RecursionError) as e:
        from .log import note
        note(f"ignoring {path}: {e}")
        return {}


MAX_CONFIG_BYTES = 1_000_000


def setting(config: dict, key: str, default, *, minimum=None, maximum=None):
    """config[key] as the type of `default` (int, float or bool), within [minimum, maximum];
    the default, with a notice, when it is missing or not such a value."""
    if key not in config:
        return default
    value = config[key]
    kind = type(default)
    ok = isinstance(value, bool) if kind is bool else (
        isinstance(value, (int, float)) and not isinstance(value, bool)
        and abs(value) < 1e15)  # not NaN, not infinite, not a number no setting means
    if ok and kind is not bool:
        value = kind(value)
        ok = (minimum is None or value >= minimum)
        if ok and maximum is not None and value > maximum:
            from .log import note
            note(f"config.json: {key} {value} is past its maximum; using {maximum}")
            value = maximum
    if not ok:
        from .log import note
        note(f"config.json: {key} must be {'true or false' if kind is bool else 'a number'}"
             + (f" from {minimum}" if minimum is not None else "")
             + (f" to {maximum}" if maximum is not None else "") + f"; using {default}")
        return default
    return value


def model_settings(root: Path) -> tuple[str, str | None]:
    """(fastembed model name, local model folder or None): env wins over config.json."""
    cfg = load_config(root)
    for key in ("model", "model_path"):
        if key in cfg and not isinstance(cfg[key], str):
            from .log import note
            note(f"config.json: {key} must be text; ignoring it")
            cfg.pop(key)
    name = os.environ.get("CURSOR_MEMORY_MODEL") or cfg.get("model") or DEFAULT_MODEL
    path = os.environ.get("CURSOR_MEMORY_MODEL_PATH") or cfg.get("model_path") or None
    return str(name), (str(Path(path).expanduser()) if path else None)


def model_cache_dir() -> Path:
    """A persistent cache (not the temp dir, which fastembed would use by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cursor-memory" / "models"
