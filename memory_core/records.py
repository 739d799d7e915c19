"""The record formats (docs/formats.md): build, validate, clean, name, find.

Every field that reaches disk goes through `_text`/`_line`: invisible and control characters
removed (sanitize.clean), likely secrets redacted (redact.redact), limits checked. The
defaults live here, so the API and the CLI store the same record for the same input.

Stdlib only: save_fact.py imports this and must stay fast.
"""
from __future__ import annotations

import os
from datetime import timezone

from .config import iso, now
from .errors import UserError
from .redact import redact
from .sanitize import clean

MEMORY_TYPES = ("W", "B", "O")  # World fact, Biographical (what happened), Opinion/preference
FACT_TYPES = MEMORY_TYPES + ("S",)  # facts.jsonl also holds facts drawn from Summaries
KINDS = ("fact", "preference", "action")  # daily lines that are memories
EVENTS = ("session_start", "session_end", "transcript")  # daily lines that are not
FORGET = "forget"  # a tombstone: the record it names is no longer true (never an edit)
SEARCH_TYPES = KINDS + ("session_summary", "core", "transcript")

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


def default_kind(memory_type: str) -> str:
    """O (an opinion) is a preference; W and B are facts."""
    return "preference" if memory_type == "O" else "fact"


def default_confidence(kind: str) -> float:
    return 0.8 if kind == "preference" else 1.0


def _text(value, field: str, limit: int = MAX_CONTENT, *, one_line: bool = False) -> str:
    """Validated, cleaned and with likely secrets redacted: nothing unredacted reaches disk."""
    if not isinstance(value, str):
        raise UserError(f"{field} must be text")
    if "\x00" in value:
        raise UserError(f"{field} contains a NUL byte")
    text = clean(value, one_line=one_line).strip()
    if not text:
        raise UserError(f"{field} is empty" + (" (only invisible characters)" if value.strip() else ""))
    if len(text) > limit:
        raise UserError(f"{field} is {len(text)} characters; the limit is {limit}")
    return redact(text)


def _line(value, field: str, limit: int) -> str:
    return _text(value, field, limit, one_line=True)


def _entities(values) -> list:
    if values is None:
        return []
    if isinstance(values, str):
        values = values.split(",")
    if not isinstance(values, (list, tuple)):
        raise UserError("entities must be a list of words")
    out: list = []
    for v in values:
        if not isinstance(v, str):
            raise UserError("entities must be text")
        if not clean(v, one_line=True).strip():
            continue
        v = _line(v, "an entity", MAX_ENTITY * 4)
        if len(v) > MAX_ENTITY:
            raise UserError(f"entity {v[:20]!r}... is longer than {MAX_ENTITY} characters")
        if v not in out:
            out.append(v)
    if len(out) > MAX_ENTITIES:
        raise UserError(f"{len(out)} entities; the limit is {MAX_ENTITIES}")
    return out


def _confidence(value, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool):
        raise UserError(f"confidence must be a number from 0 to 1, not {value!r}")
    try:
        c = float(value)
    except (TypeError, ValueError, OverflowError):
        raise UserError(f"confidence must be a number from 0 to 1, not {str(value)[:20]!r}") from None
    if not 0.0 <= c <= 1.0:
        raise UserError(f"confidence must be from 0 to 1, not {str(value)[:20]}")
    return c


def _items(values, field: str) -> list:
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, (list, tuple)):
        raise UserError(f"{field}s must be a list of texts")
    items = [_line(v, field, MAX_CONTENT) for v in values
             if not (isinstance(v, str) and not clean(v).strip())]
    if len(items) > MAX_ITEMS:
        raise UserError(f"{len(items)} {field}s; the limit is {MAX_ITEMS}")
    return items


def _session(value) -> str | None:
    if value is None or value == "":
        return None
    return _line(value, "session id", 200)


def ref_list(values) -> list:
    """An API caller's `refs` as a list of strings: one string is one reference, a path is a
    file reference; anything else is a clear UserError."""
    import os
    if values is None:
        return []
    if isinstance(values, (str, os.PathLike)):
        values = [values]
    if not isinstance(values, (list, tuple)):
        raise UserError(f"refs must be a list of references such as file:src/a.ts, not {values!r:.40}")
    out = []
    for v in values:
        if isinstance(v, os.PathLike):
            v = "file:" + os.fspath(v)
        if not isinstance(v, str):
            raise UserError(f"a reference must be text such as file:src/a.ts, not {v!r:.40}")
        out.append(v)
    return out


def refs_of(values) -> list:
    """Validated, canonical `kind:target` references, redacted (a url may carry a password
    or a token in its query)."""
    from .refs import RefError, canonical
    try:
        refs = canonical(clean(v, one_line=True) for v in ref_list(values))
    except RefError as e:
        raise UserError(str(e)) from None
    return list(dict.fromkeys(redact(r) for r in refs))


def _source(value) -> dict:
    """An API caller's `source`: a small object of plain values, strings redacted."""
    if not isinstance(value, dict) or len(value) > 20:
        raise UserError("source must be an object of at most 20 plain values")
    out = {}
    for k, v in value.items():
        if not isinstance(k, str) or not (v is None or isinstance(v, (str, int, float, bool))):
            raise UserError("source values must be text, numbers, true/false or null")
        out[_line(k, "a source key", 100)] = _line(v, "a source value", 1000) if isinstance(v, str) else v
    return out


def record_id(value, field: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 200 or "\n" in value:
        raise UserError(f"{field} must be a memory id such as log-20261015-093000-3f9a1c02be")
    return value.strip()


def fact(content, *, memory_type=None, kind=None, entities=None, confidence=None,
         session_id=None, source=None, refs=None, supersedes=None) -> dict:
    """A daily `fact`/`preference`/`action` line, optionally pointing at files (`refs`) or
    replacing an earlier fact that is no longer true (`supersedes`). Defaults: type W; kind
    preference for O, else fact; confidence 0.8 for a preference, else 1.0."""
    memory_type = "W" if memory_type is None else memory_type
    if memory_type not in MEMORY_TYPES:
        raise UserError(f"type must be W (world fact), B (what happened) or O (opinion/"
                        f"preference), not {str(memory_type)[:20]!r}")
    kind = default_kind(memory_type) if kind is None else kind
    if kind not in KINDS:
        raise UserError(f"kind must be one of {', '.join(KINDS)}, not {str(kind)[:20]!r}")
    record = {
        "id": new_id("log"),
        "type": kind,
        "memory_type": memory_type,
        "content": _text(content, "content"),
        "entities": _entities(entities),
        "confidence": _confidence(confidence, default_confidence(kind)),
        "timestamp": iso(now()),
    }
    session = _session(session_id)
    if session:
        record["session_id"] = session
    if source is not None:
        record["source"] = _source(source)
    elif session:
        record["source"] = {"session": session}
    if refs:
        record["refs"] = refs_of(refs)
    if supersedes is not None:
        record["supersedes"] = record_id(supersedes, "--supersedes")
    return record


def forget(target, reason=None) -> dict:
    """A tombstone for the record `target` (append-only: nothing is edited or deleted)."""
    record = {"id": new_id("log"), "type": FORGET, "target": record_id(target, "the id"),
              "timestamp": iso(now())}
    if reason is not None and clean(str(reason)).strip():
        record["reason"] = _line(reason, "reason", MAX_TOPIC)
    return record


def summary(topic, summary_text, *, decisions=None, todos=None, session_id=None,
            refs=None) -> dict:
    """A sessions.jsonl line."""
    record = {
        "id": new_id("sum"),
        "session_id": _session(session_id) or "unknown",
        "topic": _line(topic, "topic", MAX_TOPIC),
        "summary": _text(summary_text, "summary"),
        "decisions": _items(decisions, "decision"),
        "todos": _items(todos, "todo"),
        "timestamp": iso(now()),
    }
    if refs:
        record["refs"] = refs_of(refs)
    return record


def event(kind: str, **fields) -> dict:
    """A daily line that is not a memory: session_start, session_end, transcript. Text
    fields are cleaned and redacted like a fact's (a transcript turn is redacted before it
    is cut to length: see transcript.turns)."""
    if kind not in EVENTS:
        raise UserError(f"unknown event type {kind!r}")
    record = {"id": new_id("log"), "type": kind, "timestamp": iso(now())}
    for key, value in fields.items():
        if value is None:
            continue
        if isinstance(value, str):
            value = redact(clean(value, one_line=key != "content"))
        record[key] = value
    return record


# --- finding records ---------------------------------------------------------------------------

def find(root, record_id: str) -> dict | None:
    """The record with this id from the files (not the index), or None. Cheap: a daily
    line's id names its day."""
    import re
    from pathlib import Path

    from .jsonl import parse

    root = Path(root)
    needle = f'"id":"{record_id}"'.encode("utf-8")
    if record_id.startswith("fact-"):
        files = [root / "facts.jsonl"]
    elif record_id.startswith("sum-"):
        files = [root / "sessions.jsonl"]
    else:
        daily = sorted((root / "daily").glob("*.jsonl")) if (root / "daily").is_dir() else []
        m = re.match(r"log-(\d{4})(\d\d)(\d\d)-", record_id)
        if m:
            from datetime import date, timedelta
            try:
                day = date(*map(int, m.groups()))
                near = {f"{day + timedelta(days=k)}.jsonl" for k in (-1, 0, 1)}
                daily = [p for p in daily if p.name in near] + [p for p in daily if p.name not in near]
            except ValueError:
                pass
        files = daily
    found = None
    for path in files:
        if not path.is_file() or path.is_symlink():
            continue
        with open(path, "rb") as f:
            for raw in f:
                if needle in raw.replace(b" ", b""):
                    rec = parse(raw.rstrip(b"\n"))[0]
                    if rec and rec.get("id") == record_id:
                        found = rec  # the last version wins (facts.jsonl)
        if found is not None:
            return found
    return None


def must_exist(found: dict | None, record_id: str, verb: str) -> None:
    """UserError unless `found` is a record that can be forgotten or superseded."""
    if record_id.startswith("MEMORY.md"):
        raise UserError(f"MEMORY.md is yours to edit: change the file instead of trying to {verb} {record_id}")
    if found is None:
        raise UserError(f"no memory has the id {record_id} (search shows ids)")
    if found.get("type") == FORGET:
        raise UserError(f"{record_id} is itself a correction; nothing to {verb}")


# --- search filters ----------------------------------------------------------------------------

def _listed(value) -> list | None:
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()] or None
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise UserError(f"expected a name or a list of names, not {value!r:.40}")
    return [str(v) for v in value] or None


def search_types(value) -> list | None:
    """`--type`: record types (fact, preference, action, session_summary, core,
    transcript). W/B/O/S are memory types: a clear error says to use --memory-type."""
    types = _listed(value)
    for t in types or []:
        if t in FACT_TYPES:
            raise UserError(f"--type takes a record type ({', '.join(SEARCH_TYPES)}); "
                            f"{t} is a memory type: use --memory-type {t}")
        if t not in SEARCH_TYPES:
            raise UserError(f"unknown record type {t!r}: use {', '.join(SEARCH_TYPES)}")
    return types


def memory_types(value) -> list | None:
    """`--memory-type`: W, B, O, S."""
    types = _listed(value)
    for t in types or []:
        if t not in FACT_TYPES:
            raise UserError(f"unknown memory type {t!r}: use W, B, O or S")
    return types
