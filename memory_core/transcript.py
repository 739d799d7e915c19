"""Reading the host's conversation transcript, incrementally, whatever its exact shape.

Cursor writes `{"role": "user", "message": {"content": [{"type": "text", "text": "<user_query>
…</user_query>"}]}}`; Claude Code writes `{"type": "user", "message": {"role": "user",
"content": "…" | [blocks]}, "timestamp": …}` with tool calls and results as blocks. Both
are one JSON object a line; we keep the user's and the assistant's words and drop tools and
thinking.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

MAX_TURN_CHARS = 16_000  # a longer turn is archived cut, with a marker
MAX_READ_BYTES = 32_000_000  # of new transcript per flush: a hook must finish in its timeout
MAX_ARCHIVE_CHARS = 2_000_000  # of turns per flush; the newest are kept

_WRAPPER = re.compile(r"</?user_query>")
_NOISE = re.compile(r"<(system-reminder|command-[a-z-]+|local-command-stdout|bash-input|bash-stdout|"
                    r"bash-stderr)>.*?</\1>", re.S)


def allowed(path: str, project: Path) -> str | None:
    """Why this transcript path must not be read, or None when it may be: it must be a
    regular file under the user's home or the project (a hook must not be steered into
    reading /etc/shadow)."""
    if not path:
        return "no transcript_path"
    p = Path(path[1:] if re.match(r"^/[A-Za-z]:[/\\]", path) else path).expanduser()
    try:
        real = p.resolve(strict=True)
    except (OSError, RuntimeError):
        return f"transcript {path} does not exist"
    if not real.is_file():
        return f"transcript {path} is not a file"
    roots = [Path.home().resolve(), Path(project).resolve()]
    if not any(real == r or r in real.parents for r in roots):
        return f"transcript {path} is outside the home folder and the project"
    return None


def turns(path: str, offset: int = 0):
    """([(role, text)], new offset, note) for the complete lines after `offset`. Bounded:
    past MAX_READ_BYTES of new data, or MAX_ARCHIVE_CHARS of text, the oldest part is left
    out (the transcript itself stays on disk) and `note` says so."""
    size = os.path.getsize(path)
    if offset > size:  # the file was replaced: start again
        offset = 0
    note = None
    start = offset
    if size - offset > MAX_READ_BYTES:
        start = size - MAX_READ_BYTES
        note = f"transcript has {size - offset} new bytes; archived the last {MAX_READ_BYTES}"
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(size - start)
    if start != offset:  # begin at a line boundary
        data = data[data.find(b"\n") + 1:]
    end = data.rfind(b"\n") + 1
    out = [t for t in map(_turn, data[:end].splitlines()) if t]
    total = 0
    for i in range(len(out) - 1, -1, -1):
        total += len(out[i][1])
        if total > MAX_ARCHIVE_CHARS:
            note = f"archived the newest {len(out) - i - 1} of {len(out)} turns (size cap)"
            out = out[i + 1:]
            break
    return out, size - (len(data) - end), note


def _turn(raw: bytes):
    """(role, text) of a transcript line, the text cleaned and redacted before it is cut to
    MAX_TURN_CHARS (cutting first would keep a prefix of a token that ended the turn)."""
    from .redact import redact
    from .sanitize import clean
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or obj.get("isMeta") is True or obj.get("isCompactSummary") is True:
        return None  # Claude Code's own notices and the summaries of earlier compactions
    msg = obj.get("message") if isinstance(obj.get("message"), dict) else {}
    role = obj.get("role") or msg.get("role") or obj.get("type")
    if role not in ("user", "assistant"):
        return None
    content = msg.get("content", obj.get("content", obj.get("text")))
    text = _text(content)
    text = redact(clean(_NOISE.sub("", _WRAPPER.sub("", text)))).strip()
    if not text:
        return None
    if len(text) > MAX_TURN_CHARS:
        text = text[:MAX_TURN_CHARS] + f" …[{len(text) - MAX_TURN_CHARS} characters cut]"
    return role, text


def _text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content
                         if isinstance(b, dict) and b.get("type") == "text"
                         and isinstance(b.get("text"), str))
    return ""
