"""The four lifecycle hooks, on the protocol Cursor and Claude Code really implement
(../shared/docs/cursor-hooks.md), not the one the seeds assumed:

- preCompact's output reaches only the user, so it cannot ask the agent to save anything:
  it archives the transcript itself and marks the conversation "flush pending";
- stop's follow-up message is how the agent is asked to save (a summary and its facts);
- sessionStart's additional_context can be dropped by a race in the IDE, so the same text
  also goes into an alwaysApply rules file.

A memory hook never breaks the user's session: on any error it logs to hooks.log in the
memory folder, prints {} and exits 0. Events can arrive twice (Cursor also runs
.claude/settings.json hooks), so every handler is idempotent.
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path

from .config import DATA_SUBDIR

LOG_FILE = "hooks.log"
LOG_MAX_BYTES = 1_000_000
CONTEXT_CACHE = "context.cache.json"
SESSION_END_SECONDS = 40  # embedding work per sessionEnd; the rest waits for the next one


# --- protocol ----------------------------------------------------------------------------

def read_payload(stream) -> tuple[dict, str | None]:
    """(payload, problem): tolerates a UTF-8 BOM, empty input, invalid JSON, non-objects."""
    try:
        raw = stream.read() if stream is not None and not stream.isatty() else b""
    except (OSError, ValueError):
        return {}, "stdin could not be read"
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogateescape")
    text = raw.decode("utf-8-sig", errors="replace").strip()
    if not text:
        return {}, "empty stdin"
    try:
        data = json.loads(text)
    except ValueError as e:
        return {}, f"stdin is not JSON ({e})"
    if not isinstance(data, dict):
        return {}, "stdin is not a JSON object"
    return data, None


def host_of(payload: dict) -> str:
    """'claude' for Claude Code's PascalCase events, else 'cursor'."""
    name = payload.get("hook_event_name")
    return "claude" if isinstance(name, str) and name[:1].isupper() else "cursor"


def project_of(payload: dict) -> Path:
    """CURSOR_PROJECT_DIR, else workspace_roots[0] (Cursor sends no cwd), else cwd."""
    env = os.environ.get("CURSOR_PROJECT_DIR")
    if env:
        return Path(env)
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0]:
        root = roots[0]
        if len(root) > 2 and root[0] == "/" and root[2] == ":":  # /C:/... on Windows
            root = root[1:]
        return Path(root)
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and cwd:
        return Path(cwd)
    env = os.environ.get("CLAUDE_PROJECT_DIR")
    return Path(env) if env else Path.cwd()


def memory_dir_of(project: Path) -> Path:
    env = os.environ.get("CURSOR_MEMORY_DIR")
    return Path(env).expanduser() if env else Path(project) / DATA_SUBDIR


def conversation_of(payload: dict) -> str:
    for key in ("conversation_id", "session_id"):
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:200]
    return "unknown"


def log(root: Path | None, message: str) -> None:
    """One line in hooks.log (the memory folder's, else the user cache's). Never raises."""
    try:
        folder = Path(root) if root and Path(root).is_dir() else (
            Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cursor-memory")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / LOG_FILE
        if path.exists() and path.stat().st_size > LOG_MAX_BYTES:
            os.replace(path, folder / (LOG_FILE + ".1"))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as f:
            f.write(f"{stamp} {message}\n")
    except Exception:  # noqa: BLE001 - logging must not be what breaks a hook
        pass


def run(event: str, stdin=None, stdout=None) -> int:
    """Entry point of every hook script: handle one event, print one JSON object, exit 0."""
    import io

    stdin = stdin if stdin is not None else getattr(sys.stdin, "buffer", sys.stdin)
    stdout = stdout or sys.stdout
    root = None
    out: dict = {}
    started = time.perf_counter()
    notes, real_stderr = io.StringIO(), sys.stderr
    sys.stderr = notes  # notices go to hooks.log, not to the IDE's hook output
    try:
        payload, problem = read_payload(stdin)
        project = project_of(payload)
        root = memory_dir_of(project)
        if problem:
            log(root, f"{event}: {problem}; continuing with defaults")
        from .memory import Memory
        mem = Memory(root)
        out = HANDLERS[event](mem, payload, host_of(payload), project) or {}
        log(root, f"{event}: ok in {time.perf_counter() - started:.3f}s")
    except BaseException as e:  # noqa: BLE001 - a hook never breaks the session
        if isinstance(e, KeyboardInterrupt):
            out = {}
        log(root, f"{event}: error {type(e).__name__}: {e} | "
                  + " / ".join(traceback.format_exc().strip().splitlines()[-4:]))
        out = {}
    finally:
        sys.stderr = real_stderr
        for line in notes.getvalue().splitlines():
            log(root, f"{event}: {line}")
    try:
        stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        stdout.flush()
    except Exception:  # noqa: BLE001
        pass
    return 0


# --- what each event does ----------------------------------------------------------------

def session_start(mem, payload: dict, host: str, project: Path) -> dict:
    """Text-only sync, a session_start line, and the context (never the model)."""
    from . import state

    mem.sync(embed=False)
    conv = conversation_of(payload)
    with state.conversation(mem.root, conv) as st:
        first = not state.seen_before(st, f"start:{payload.get('generation_id') or payload.get('source') or ''}")
    if first:
        mem.log_event("session_start", session_id=conv, workspace=str(project),
                      source=payload.get("source") if host == "claude" else None)
    text = context_text(mem)
    from .context import write_rules_file
    write_rules_file(project, text)
    if host == "claude":
        return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    return {"additional_context": text}


def pre_compact(mem, payload: dict, host: str, project: Path) -> dict:
    """Archive the turns compaction will drop, as transcript lines, and mark the
    conversation flush-pending so stop asks the agent to save its facts."""
    from . import state, transcript

    conv = conversation_of(payload)
    path = payload.get("transcript_path") or os.environ.get("CURSOR_TRANSCRIPT_PATH") or ""
    archived, note = 0, None
    with state.conversation(mem.root, conv) as st:
        problem = transcript.allowed(str(path), project) if path else "transcripts are off"
        if problem:
            note = problem
        else:
            key = str(Path(path).resolve())
            offsets = st.setdefault("transcripts", {})
            turns, offsets[key], note = transcript.turns(key, int(offsets.get(key, 0)))
            records = [_transcript_record(conv, role, text, key) for role, text in turns]
            if records:
                from . import jsonl
                jsonl.append(mem.daily_path(), records)
            archived = len(records)
        st["flush_epoch"] = int(st.get("flush_epoch", 0)) + 1
        st["flush_pending"] = True
        st["flush_at"] = time.time()
    if note:
        log(mem.root, f"preCompact: {note}")
    if host == "claude" or not archived:
        return {}
    return {"user_message": f"cursor-memory: checkpointed {archived} turns before compaction."}


def _transcript_record(conv: str, role: str, text: str, path: str) -> dict:
    from . import records
    from .redact import redact
    return records.event("transcript", session_id=conv, role=role, content=redact(text),
                         source={"transcript": os.path.basename(path)})


def prompt_session_save(mem, payload: dict, host: str, project: Path) -> dict:
    """Ask the agent, once per conversation (again after each compaction), to save a
    summary and its durable facts. The follow-up's own stop never asks again."""
    from . import state

    if host == "claude":
        if payload.get("stop_hook_active") is True:
            return {}
    else:
        if payload.get("status") != "completed" or payload.get("loop_count") not in (0, None):
            return {}
    conv = conversation_of(payload)
    with state.conversation(mem.root, conv) as st:
        generation = payload.get("generation_id")
        if generation and state.seen_before(st, f"stop:{generation}"):
            return {}
        epoch = int(st.get("flush_epoch", 0))
        if st.get("prompted_epoch") == epoch:
            return {}
        if st.get("flush_pending") is not True and _summary_saved(mem.root, conv):
            return {}
        st["prompted_epoch"] = epoch
        st["flush_pending"] = False
    message = save_instructions(conv)
    if host == "claude":
        return {"decision": "block", "reason": message}
    return {"followup_message": message}


def _summary_saved(root: Path, conv: str) -> bool:
    path = Path(root) / "sessions.jsonl"
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return False
    needle = json.dumps(conv, ensure_ascii=False).encode("utf-8")
    with open(path, "rb") as f:
        f.seek(max(0, size - 1_000_000))
        return any(b'"session_id":' + needle in line for line in f)


def session_end(mem, payload: dict, host: str, project: Path) -> dict:
    """A session_end line; then, one at a time per memory folder: full sync with
    embeddings, consolidation into facts.jsonl, retention, and the next context."""
    from . import consolidate, state
    from .locks import LockFile

    conv = conversation_of(payload)
    with state.conversation(mem.root, conv) as st:
        first = not state.seen_before(st, "end")
    if first:
        duration = payload.get("duration_ms")
        mem.log_event("session_end", session_id=conv,
                      reason=payload.get("reason") if isinstance(payload.get("reason"), str) else None,
                      duration_ms=duration if isinstance(duration, (int, float)) else None)
    lock = LockFile(mem.root / "cleanup.lock")
    if not lock.acquire(timeout=SESSION_END_SECONDS):
        log(mem.root, "sessionEnd: another cleanup held the lock too long; skipped")
        return {}
    try:
        from .locks import remove_stale_temps
        remove_stale_temps(mem.root)
        deadline = time.monotonic() + SESSION_END_SECONDS
        mem.sync(embed=True, deadline=deadline)
        report = consolidate.consolidate(mem, mem.embedder(quiet=True))
        if report.new or report.merged:
            mem.sync(embed=True, deadline=deadline)
        report.pruned, report.kept = consolidate.prune(mem)
        if report.pruned:
            mem.sync(embed=False)
        log(mem.root, f"sessionEnd: {report.new} new facts, {report.merged} merged, "
                      f"pruned {report.pruned or 'nothing'}, kept {report.kept or 'nothing'}")
        text = context_text(mem, fresh=True)
        from .context import write_rules_file
        write_rules_file(project, text)
    finally:
        lock.release()
    return {}


HANDLERS = {
    "sessionStart": session_start,
    "preCompact": pre_compact,
    "stop": prompt_session_save,
    "sessionEnd": session_end,
}


# --- helpers -----------------------------------------------------------------------------

def context_text(mem, *, fresh: bool = False) -> str:
    """The sessionStart context: the one sessionEnd precomputed when nothing it was made
    from has changed since (same day, same files), else built now."""
    from .context import build

    cache = mem.root / CONTEXT_CACHE
    signature = _signature(mem.root)
    if not fresh:
        try:
            data = json.loads(cache.read_text(encoding="utf-8"))
            if data.get("signature") == signature and isinstance(data.get("text"), str):
                return data["text"]
        except (OSError, ValueError):
            pass
    text = build(mem, search_command=script_command("search_memory.py"))
    try:
        tmp = cache.with_name(f"{CONTEXT_CACHE}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"signature": signature, "text": text}, f, ensure_ascii=False)
        os.replace(tmp, cache)
    except OSError:
        pass
    return text


def _signature(root: Path) -> list:
    """What the context is made from: the day, config.json, MEMORY.md, facts.jsonl,
    sessions.jsonl and the last week's daily files (sizes and mtimes)."""
    from datetime import timedelta

    from .config import today

    day = today()
    names = ["config.json", "MEMORY.md", "facts.jsonl", "sessions.jsonl"] + [
        f"daily/{day - timedelta(days=k)}.jsonl" for k in range(8)]
    sig: list = [day.isoformat()]
    for rel in names:
        try:
            st = os.stat(os.path.join(root, rel))
            sig.append([rel, st.st_size, st.st_mtime_ns])
        except FileNotFoundError:
            pass
    return sig


def script_command(name: str) -> str:
    """How the agent runs one of our scripts: this interpreter and the scripts folder the
    hook runs from (the project's skill folder once installed)."""
    here = Path(sys.argv[0]).resolve().parent if sys.argv and sys.argv[0] else None
    if here is None or not (here / name).exists():
        here = Path(__file__).resolve().parent.parent / "scripts"
    return f'"{sys.executable}" "{here / name}"'


def save_instructions(conv: str) -> str:
    fact = script_command("save_fact.py")
    summary = script_command("save_summary.py")
    return (
        "[Session Save] Before you finish, save what this conversation should leave behind "
        "for the next session (cursor-memory). Do it silently, then stop; reply only "
        "\"memory saved\".\n"
        "1. One summary:\n"
        f"   {summary} --session {conv} --topic \"<the session in one line>\" "
        "--summary \"<100-200 characters: what was done and why>\" "
        "--decision \"<a decision>\" (repeat for each) --todo \"<an open task>\" (repeat)\n"
        "2. One save per durable fact worth knowing next time (skip what memory already "
        "has):\n"
        f"   {fact} --session {conv} --type W|B|O --content \"<one sentence>\" "
        "[--entities a,b] [--confidence 0.8] [--ref file:<path>]\n"
        "   When a remembered fact changed, save the new one with --supersedes <its id> (the "
        "id is in brackets after each fact in the session context, and in search results); "
        f"to drop one that is simply wrong: \"{sys.executable}\" -m memory_core forget <id>.\n"
        "   W = a fact about the project or world, e.g. \"API 默认监听 3000 端口\" / "
        "\"The API listens on port 3000\"\n"
        "   B = something that happened, e.g. \"2026-10-08 把数据库迁到了 RDS PostgreSQL 16\" / "
        "\"Migrated the database to RDS on 2026-10-08\"\n"
        "   O = an opinion or preference, e.g. \"用户偏好两个空格缩进\" / "
        "\"The user prefers two-space indentation\" (confidence below 1 when unsure)\n"
        "Write the summary and the facts in the language the user writes in. "
        "Never include passwords, tokens or keys."
    )
