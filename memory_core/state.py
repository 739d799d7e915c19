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


@contextmanager
def conversation(root: Path, conversation_id: str):
    """`with conversation(root, cid) as st:` gives that conversation's dict; changes are
    saved when the block ends without an error."""
    from .files import make_private_dir
    root = Path(root)
    make_private_dir(root)
    with LockFile(root / "state.lock"):
        data = _load(root)
        convs = data.setdefault("conversations", {})
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
    seen = {k: t for k, t in st.get("seen", {}).items() if now - t < DEDUPE_SECONDS}
    dup = key in seen
    seen[key] = now
    st["seen"] = seen
    return dup


def _load(root: Path) -> dict:
    """state.json, or {} when it is missing, broken, or a link (never followed)."""
    from .files import NOFOLLOW
    try:
        fd = os.open(root / STATE_FILE, os.O_RDONLY | NOFOLLOW)
        with os.fdopen(fd, "r", encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError, RecursionError):
        return {}


def _save(root: Path, data: dict) -> None:
    from .files import write_atomic
    write_atomic(root / STATE_FILE, json.dumps(data, ensure_ascii=False))
