"""Per-conversation hook state (state.json in the memory folder, gitignored).

What the hooks must remember between events: how far a conversation's transcript has been
archived, whether a flush is pending, whether the [Session Save] follow-up was already sent,
and which events were already handled (Cursor also runs .claude/settings.json hooks, so one
event can arrive twice). Read-modify-write under an exclusive lock, replaced atomically.
"""
from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager
from pathlib import Path

from .locks import LockFile

STATE_FILE = "state.json"
KEEP_SECONDS = 30 * 86400  # forget conversations idle for a month
DEDUPE_SECONDS = 600
MAX_STATE_BYTES = 4_000_000  # a state file bigger than this is not ours: start afresh


@contextmanager
def conversation(root: Path, conversation_id: str):
    """`with conversation(root, cid) as st:` gives that conversation's dict; changes are
    saved when the block ends without an error."""
    from .config import project_of_memory
    from .files import link_on_path, make_private_dir
    root = Path(root)
    if link_on_path(root, project_of_memory(root)):
        yield {}  # reached through a link: nothing is written there, so nothing is kept
        return
    make_private_dir(root)
    with LockFile(root / "state.lock"):
        data = _load(root)
        convs = data["conversations"]
        st = convs.setdefault(conversation_id or "unknown", {})
        yield st
        st["touched"] = time.time()
        cutoff = time.time() - KEEP_SECONDS
        data["conversations"] = {k: v for k, v in convs.items() if v.get("touched", 0) >= cutoff}
        _save(root, data)


def seen_before(st: dict, key: str) -> bool:
    """True when this exact event (conversation + generation + event) was handled lately;
    records it otherwise."""
    now = time.time()
    seen = {k: t for k, t in st.get("seen", {}).items() if _number(t) and now - t < DEDUPE_SECONDS}
    dup = key in seen
    seen[key] = now
    st["seen"] = seen
    return dup


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def _offset(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _ids(value) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


# what the hooks keep per conversation; a value of another shape is dropped on load
_SHAPES = {"touched": _number, "seen": lambda v: isinstance(v, dict), "shown": _ids,
           "recalled": _ids, "transcripts": lambda v: isinstance(v, dict) and all(map(_offset, v.values())),
           "flush_epoch": lambda v: isinstance(v, int) and not isinstance(v, bool),
           "prompted_epoch": lambda v: isinstance(v, int) and not isinstance(v, bool),
           "flush_pending": lambda v: isinstance(v, bool), "flush_at": _number}


def _load(root: Path) -> dict:
    """state.json as {"conversations": {id: {...}}}: empty when it is missing, broken, or a
    link (never followed); entries of the wrong shape are dropped, so a hand-edited or
    merged file heals on the next save instead of stopping every hook."""
    from .files import NOFOLLOW
    try:
        fd = os.open(root / STATE_FILE, os.O_RDONLY | NOFOLLOW)
        with os.fdopen(fd, "r", encoding="utf-8") as f:
            data = json.loads(f.read(MAX_STATE_BYTES))
    except (OSError, ValueError, RecursionError):
        data = {}
    convs = data.get("conversations") if isinstance(data, dict) else None
    convs = {k: v for k, v in convs.items() if isinstance(v, dict)} if isinstance(convs, dict) else {}
    for st in convs.values():
        for key in [k for k, v in st.items() if k in _SHAPES and not _SHAPES[k](v)]:
            del st[key]
        st.setdefault("touched", 0)
    return {**(data if isinstance(data, dict) else {}), "conversations": convs}


def _save(root: Path, data: dict) -> None:
    from .files import write_atomic
    write_atomic(root / STATE_FILE, json.dumps(data))  # ASCII: any id a host sends can be written
