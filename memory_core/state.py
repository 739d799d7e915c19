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
    root = Path(root)
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
    try:
        with open(root / STATE_FILE, encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (FileNotFoundError, ValueError, OSError):
        return {}


def _save(root: Path, data: dict) -> None:
    tmp = root / f"{STATE_FILE}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)
    os.replace(tmp, root / STATE_FILE)
