"""The record formats of seed 003 (§2 daily, §3 sessions, §4 facts): build, validate, name.

Stdlib only: save_fact.py imports this and must stay fast.
"""
from __future__ import annotations

import os
from datetime import timezone

from .config import MemoryError, iso, now
from .redact import redact

MEMORY_TYPES = ("W", "B", "O")  # World fact, Biographical (what happened), Opinion/preference
FACT_TYPES = MEMORY_TYPES + ("S",)  # facts.jsonl also holds facts drawn from Summaries
KINDS = ("fact", "preference", "action")  # daily lines that are memories
EVENTS = ("session_start", "session_end", "transcript")  # daily lines that are not
FORGET = "forget"  # a tombstone: the record it names is no longer true (never an edit)
DAILY_TYPES = KINDS + EVENTS + (FORGET,)

MAX_CONTENT = 4000  # characters in one fact, summary, decision or todo
MAX_TOPIC = 200
MAX_ENTITIES = 32
MAX_ENTITY = 100
MAX_ITEMS = 50  # decisions or todos in one summary


def new_id(prefix: str) -> str:
    """`log-20261121-143000-3f9a1c02be`: readable, sortable, and 40 random bits make two
    saves in the same second (other windows, other machines) collide about once in 10^12."""
    stamp = now().astimezone(timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"{prefix}-{stamp}-{os.urandom(5).hex()}"


def _text(value, field: str, limit: int = MAX_CONTENT) -> str:
    """Validated, and with likely secrets redacted: nothing unredacted reaches disk."""
    if not isinstance(value, str):
        raise MemoryError(f"{field} must be text")
    text = value.strip()
    if not text:
        raise MemoryError(f"{field} is empty")
    if len(text) > limit:
        raise MemoryError(f"{field} is {len(text)} characters; the limit is {limit}")
    if "\x00" in text:
        raise MemoryError(f"{field} contains a NUL byte")
    return redact(text)


def _entities(values) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str):
        values = values.split(",")
    out: list[str] = []
    for v in values:
        if not isinstance(v, str):
            raise MemoryError("entities must be text")
        v = v.strip()
        if not v:
            continue
        if len(v) > MAX_ENTITY:
            raise MemoryError(f"entity {v[:20]!r}... is longer than {MAX_ENTITY} characters")
        if v not in out:
            out.append(v)
    if len(out) > MAX_ENTITIES:
        raise MemoryError(f"{len(out)} entities; the limit is {MAX_ENTITIES}")
    return out


def _confidence(value, default: float) -> float:
    if value is None:
        return default
    try:
        c = float(value)
    except (TypeError, ValueError):
        raise MemoryError(f"confidence must be a number from 0 to 1, not {value!r}") from None
    if not 0.0 <= c <= 1.0 or c != c:
        raise MemoryError(f"confidence must be from 0 to 1, not {value!r}")
    return c


def _items(values, field: str) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    items = [_text(v, field) for v in values if not (isinstance(v, str) and not v.strip())]
    if len(items) > MAX_ITEMS:
        raise MemoryError(f"{len(items)} {field}s; the limit is {MAX_ITEMS}")
    return items


def _session(value) -> str | None:
    if value is None or value == "":
        return None
    return _text(value, "session id", 200)


def _refs(values) -> list[str]:
    from .refs import RefError, canonical
    try:
        return canonical(values)
    except RefError as e:
        raise MemoryError(str(e)) from None


def _record_id(value, field: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 200 or "\n" in value:
        raise MemoryError(f"{field} must be a memory id such as log-20261015-093000-3f9a1c02be")
    return value.strip()


def fact(content, *, memory_type="W", kind="fact", entities=None, confidence=None,
         session_id=None, source=None, refs=None, supersedes=None) -> dict:
    """A daily `fact`/`preference`/`action` line (seed 003 §2), optionally pointing at files
    (`refs`) or replacing an earlier fact that is no longer true (`supersedes`)."""
    if kind not in KINDS:
        raise MemoryError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if memory_type not in MEMORY_TYPES:
        raise MemoryError(f"type must be W (world fact), B (what happened) or O (opinion/preference), not {memory_type!r}")
    record = {
        "id": new_id("log"),
        "type": kind,
        "memory_type": memory_type,
        "content": _text(content, "content"),
        "entities": _entities(entities),
        "confidence": _confidence(confidence, 0.8 if kind == "preference" else 1.0),
        "timestamp": iso(now()),
    }
    session = _session(session_id)
    if session:
        record["session_id"] = session
    if source is not None:
        if not isinstance(source, dict):
            raise MemoryError("source must be an object")
        record["source"] = source
    elif session:
        record["source"] = {"session": session}
    if refs:
        record["refs"] = _refs(refs)
    if supersedes is not None:
        record["supersedes"] = _record_id(supersedes, "--supersedes")
    return record


def forget(target, reason=None) -> dict:
    """A tombstone for the record `target` (append-only: nothing is edited or deleted)."""
    record = {"id": new_id("log"), "type": FORGET, "target": _record_id(target, "the id"),
              "timestamp": iso(now())}
    if reason is not None and str(reason).strip():
        record["reason"] = _text(reason, "reason", MAX_TOPIC)
    return record


def summary(topic, summary_text, *, decisions=None, todos=None, session_id=None,
            refs=None) -> dict:
    """A sessions.jsonl line (seed 003 §3)."""
    record = {
        "id": new_id("sum"),
        "session_id": _session(session_id) or "unknown",
        "topic": _text(topic, "topic", MAX_TOPIC),
        "summary": _text(summary_text, "summary"),
        "decisions": _items(decisions, "decision"),
        "todos": _items(todos, "todo"),
        "timestamp": iso(now()),
    }
    if refs:
        record["refs"] = _refs(refs)
    return record


def event(kind: str, **fields) -> dict:
    """A daily line that is not a memory: session_start, session_end, transcript."""
    if kind not in EVENTS:
        raise MemoryError(f"unknown event type {kind!r}")
    record = {"id": new_id("log"), "type": kind, "timestamp": iso(now())}
    record.update({k: v for k, v in fields.items() if v is not None})
    return record
