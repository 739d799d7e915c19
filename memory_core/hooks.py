"""The lifecycle hooks, on the protocol Cursor and Claude Code really implement
(docs/hosts.md):

- preCompact's output reaches only the user, so it cannot ask the agent to save anything:
  it archives the transcript itself and marks the conversation "flush pending";
- stop's follow-up message is how the agent is asked to save (a summary and its facts);
- sessionStart's context can be dropped by a race in the IDE, so the same text also goes
  into an alwaysApply rules file.

A memory hook never breaks the user's session: on any error it logs to hooks.log in the
memory folder (the user cache's when that folder cannot take it), prints {} and exits 0.
Events can arrive twice (Cursor also runs .claude/settings.json hooks), so every handler is
idempotent.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from . import log

# sessionStart has 10 s: at most this long on a first sync of a big store (it goes on next
# time), the context then comes from the files.
SESSION_START_SYNC_SECONDS = 4.0
# sessionEnd has 60 s: everything it does is done by then; what is left (vectors of a large
# burst, their consolidation) waits for the next sessionEnd, search, or `cursor-memory embed`.
SESSION_END_SECONDS = 45.0
SESSION_END_EMBED_SHARE = 0.75  # of that time for vectors; the rest consolidates and prunes


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
    except (ValueError, RecursionError) as e:
        return {}, f"stdin is not JSON ({str(e)[:100]})"
    if not isinstance(data, dict):
        return {}, "stdin is not a JSON object"
    return data, None


def host_of(payload: dict, environ=os.environ) -> str:
    """'cursor' or 'claude'. Cursor sets CURSOR_VERSION for every hook it runs, including
    the .claude/settings.json hooks it also runs; so the environment decides first, then the
    event name's casing (Claude Code's are PascalCase)."""
    if environ.get("CURSOR_VERSION"):
        return "cursor"
    name = payload.get("hook_event_name")
    if isinstance(name, str) and name[:1].isupper():
        return "claude"
    if environ.get("CLAUDECODE") or environ.get("CLAUDE_CODE_ENTRYPOINT"):
        return "claude"
    return "cursor"


def project_of(payload: dict) -> Path:
    """CURSOR_PROJECT_DIR, else workspace_roots[0] (Cursor sends no cwd), else cwd, else
    CLAUDE_PROJECT_DIR, else the process's cwd. Not yet checked (see config.check_project)."""
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


def conversation_of(payload: dict) -> str:
    for key in ("conversation_id", "session_id"):
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            from .sanitize import clean
            return clean(value.strip()[:200], one_line=True) or "unknown"
    return "unknown"


def run(event: str, stdin=None, stdout=None, *, detach: bool = False) -> int:
    """Entry point of every hook: handle one event, print its answer, exit 0. `detach`:
    sessionEnd leaves its cleanup to a worker process and returns at once."""
    from .config import memory_dir_for
    from .errors import UserError

    stdin = stdin if stdin is not None else getattr(sys.stdin, "buffer", sys.stdin)
    stdout = stdout or sys.stdout
    started = time.perf_counter()
    where: dict = {"root": None}
    log.route_to_file(lambda: where["root"], event)
    out: dict | str = {}
    try:
        payload, problem = read_payload(stdin)
        if problem:
            log.note(f"{problem}; continuing with defaults")
        project = project_of(payload)
        try:
            root = memory_dir_for(project)
        except UserError as e:
            log.note(f"no memory here: {e}")
            return _answer(stdout, {})
        where["root"] = root
        from .memory import Memory
        handler = HANDLERS.get(event) or HANDLERS.get(_CLAUDE_NAMES.get(event, ""))
        if handler is None:
            log.note(f"unknown hook event {event[:40]!r}: nothing to do")
            return _answer(stdout, {})
        extra = {"detach": True} if detach and handler is session_end else {}
        out = handler(Memory(root, project=project), payload, host_of(payload), Path(project),
                      **extra)
        if out is None:
            out = {}
        log.note(f"ok in {time.perf_counter() - started:.3f}s")
    except BaseException as e:  # noqa: BLE001 - a hook never breaks the session
        import traceback
        log.note(f"error {type(e).__name__}: {e} | "
                 + " / ".join(traceback.format_exc().strip().splitlines()[-4:]))
        out = {}
    return _answer(stdout, out)


def _answer(stdout, out) -> int:
    """Print the answer: a JSON object, or plain text (Claude Code's PreCompact takes
    plain text), or nothing for ""."""
    try:
        if isinstance(out, str):
            if out:
                stdout.write(out + "\n")
        else:
            stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        stdout.flush()
    except Exception:  # noqa: BLE001
        pass
    return 0


# --- what each event does ----------------------------------------------------------------

def session_start(mem, payload: dict, host: str, project: Path) -> dict:
    """A bounded text-only sync, a session_start line, and the context (never the model)."""
    from . import state
    from .context import write_rules_file

    from .errors import StorageError

    conv = conversation_of(payload)
    deadline = time.monotonic() + SESSION_START_SYNC_SECONDS
    context = mem.session_context(search_command=script_command("search_memory.py"), deadline=deadline)
    text = context.text
    if mem.index.read_only:
        log.note("the memory folder is read-only: context from what is there, nothing written")
    else:
        try:  # bookkeeping: a full disk must not cost the session its context
            with state.conversation(mem.root, conv) as st:
                first = not state.seen_before(
                    st, f"start:{payload.get('generation_id') or payload.get('source') or ''}")
                st["shown"] = context.ids[-200:]
            if first:
                mem.log_event("session_start", session_id=conv, workspace=str(project),
                              source=payload.get("source") if host == "claude" and isinstance(
                                  payload.get("source"), str) else None)
            write_rules_file(project, rules_text(mem))
        except StorageError as e:
            log.note(f"{e}; the context is given, the session start is not recorded")
    if host == "claude":
        return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    return {"additional_context": text}


def before_submit_prompt(mem, payload: dict, host: str, project: Path):
    """Recall: the memories this prompt is about, added to this turn (recall.py). Each
    conversation gets a memory once; an event delivered twice (both hooks files) answers
    once."""
    import hashlib

    from . import state
    from .errors import StorageError

    prompt = payload.get("prompt")
    conv = conversation_of(payload)
    answer_none = {"continue": True} if host == "cursor" else {}
    if not isinstance(prompt, str):
        return answer_none
    key = payload.get("generation_id") or payload.get("prompt_id") or hashlib.sha1(
        prompt.encode("utf-8", "replace")).hexdigest()[:16]
    shown: list = []
    if not mem.index.read_only:
        try:
            with state.conversation(mem.root, conv) as st:
                if state.seen_before(st, f"prompt:{key}"):
                    return answer_none
                shown = list(st.get("shown", [])) + list(st.get("recalled", []))
        except StorageError as e:
            log.note(f"{e}; recalling without this conversation's history")
    text, ids = mem.recall(prompt, shown)
    if ids:
        try:
            with state.conversation(mem.root, conv) as st:
                st["recalled"] = (list(st.get("recalled", [])) + ids)[-200:]
        except StorageError:
            pass
    if not text:
        return answer_none
    if host == "claude":
        return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}
    return {"continue": True, "additional_context": text}


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
            key = str(Path(path).expanduser().resolve())  # "~/.claude/…" as allowed() reads it
            offsets = st.setdefault("transcripts", {})
            turns, offsets[key], note = transcript.turns(key, int(offsets.get(key, 0)))
            records = [_transcript_record(conv, role, text, key) for role, text in turns]
            if records:
                from . import jsonl
                from .files import make_private_dir
                make_private_dir(mem.daily_path().parent)
                jsonl.append(mem.daily_path(), records)
            archived = len(records)
        st["flush_epoch"] = int(st.get("flush_epoch", 0)) + 1
        st["flush_pending"] = True
        st["flush_at"] = time.time()
    if note:
        log.note(note)
    if host == "claude":
        # Claude Code takes a PreCompact hook's plain stdout (exit 0) as instructions for the
        # compaction summary (docs/hosts.md "PreCompact"): not JSON, which it would reject.
        return COMPACT_INSTRUCTIONS
    if not archived:
        return {}
    return {"user_message": f"cursor-memory: checkpointed {archived} turns before compaction."}


COMPACT_INSTRUCTIONS = (
    "When summarising this conversation, keep every cursor-memory id it mentions (log-…, "
    "fact-…, sum-…) next to what it refers to, and every decision made, with its id when it "
    "has one: the next part of the session finds them again by those ids.")


def _transcript_record(conv: str, role: str, text: str, path: str) -> dict:
    from . import records
    return records.event("transcript", session_id=conv, role=role, content=text,
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
    if mem.link is not None:  # a linked memory folder: every save would be refused
        log.note(f"{mem.link} is a symbolic link: no save asked for (never written through links)")
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
    from . import jsonl
    wanted = {conv, session_arg(conv)}
    return any(r.get("session_id") in wanted for r in jsonl.tail(Path(root) / "sessions.jsonl",
                                                                 1_000_000))


def session_arg(conv: str) -> str:
    """The conversation id as the agent is told to pass it in a shell command: as it is when
    it is plain (ids are UUIDs), else a hash of it, so a hostile id cannot inject a command
    in any shell."""
    import re
    if re.fullmatch(r"[A-Za-z0-9._:-]{1,128}", conv or ""):
        return conv
    import hashlib
    return "conv-" + hashlib.sha1((conv or "").encode("utf-8", "replace")).hexdigest()[:16]


def session_end(mem, payload: dict, host: str, project: Path, *, detach: bool = False) -> dict:
    """A session_end line, then the cleanup: in this process, or with `detach` in a worker
    that outlives the hook (Claude Code gives a plugin's SessionEnd hooks 1.5 s)."""
    from . import state

    conv = conversation_of(payload)
    with state.conversation(mem.root, conv) as st:
        first = not state.seen_before(st, "end")
    if first:
        duration = payload.get("duration_ms")
        mem.log_event("session_end", session_id=conv,
                      reason=payload.get("reason") if isinstance(payload.get("reason"), str) else None,
                      duration_ms=duration if isinstance(duration, (int, float))
                      and not isinstance(duration, bool) else None)
    if detach:
        _spawn_cleanup(mem.root, project)
    else:
        cleanup(mem, project)
    return {}


def cleanup(mem, project: Path) -> None:
    """One at a time per memory folder, within SESSION_END_SECONDS: sync, vectors,
    consolidation into facts.jsonl, retention, and the rules file. Anything cut short is
    picked up next time; nothing is done twice."""
    from .context import write_rules_file
    from .locks import LockFile, remove_stale_temps

    started = time.monotonic()
    end = started + SESSION_END_SECONDS
    lock = LockFile(mem.root / "cleanup.lock")
    if not lock.acquire(timeout=10):
        log.note("another cleanup holds the lock; it will do the work")
        return
    try:
        remove_stale_temps(mem.root)
        report = mem.sync(embed=True, deadline=started + SESSION_END_SECONDS * SESSION_END_EMBED_SHARE)
        if report.complete:
            done = mem.consolidate(deadline=end, embed=False)  # vectors: made just above
            pruned = mem.prune() if time.monotonic() < end else None
            mem.embed(budget=0.0)  # the new facts' vectors are copies of their lines'
            log.note(f"{done.new} new facts, {done.merged} merged, {done.deferred} waiting, "
                     f"{done.statuses} status changes; pruned {pruned.pruned if pruned else 'later'}"
                     + (f", quarantined {pruned.quarantined}" if pruned and pruned.quarantined else "")
                     + (f"; {report.pending_vectors} vectors left for later"
                        if report.pending_vectors else ""))
        else:
            log.note(f"sync stopped at the deadline ({report.pending_files} files to go)")
        if time.monotonic() < end:
            write_rules_file(project, rules_text(mem))
    finally:
        lock.release()


def _spawn_cleanup(root: Path, project: Path) -> None:
    """Run `cleanup` in a detached process (its own session, no terminal, output to
    /dev/null), importing this same copy of memory_core."""
    import subprocess

    package_parent = str(Path(__file__).resolve().parent.parent)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from memory_core.hooks import "
            "cleanup_worker; cleanup_worker(sys.argv[2], sys.argv[3])")
    kwargs = {"start_new_session": True} if os.name == "posix" else {
        "creationflags": getattr(subprocess, "DETACHED_PROCESS", 0)
        | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    subprocess.Popen([sys.executable, "-c", code, package_parent, str(root), str(project)],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, close_fds=True, **kwargs)


def cleanup_worker(root: str, project: str) -> None:
    """The detached cleanup's entry point: logs like a hook, never raises."""
    from .memory import Memory
    log.route_to_file(lambda: root, "sessionEnd cleanup")
    try:
        cleanup(Memory(root, project=project), Path(project))
    except BaseException as e:  # noqa: BLE001 - nobody is listening: log it
        log.note(f"error {type(e).__name__}: {e}")


# Claude Code's names, accepted on the command line too (`hook.py SessionStart`)
_CLAUDE_NAMES = {"SessionStart": "sessionStart", "UserPromptSubmit": "beforeSubmitPrompt",
                 "PreCompact": "preCompact", "Stop": "stop", "SessionEnd": "sessionEnd"}

HANDLERS = {
    "sessionStart": session_start,
    "beforeSubmitPrompt": before_submit_prompt,
    "preCompact": pre_compact,
    "stop": prompt_session_save,
    "sessionEnd": session_end,
}


# --- helpers -----------------------------------------------------------------------------

def rules_text(mem) -> str:
    """The alwaysApply rule, kept short (clients that run sessionStart also get the full
    context; the rule reaches the model on every request): MEMORY.md within a smaller budget,
    and how to search. Cloud agents and `cursor-agent -p`, which run no sessionStart, get
    this."""
    from .context import RULES_BUDGET, build_rules
    return build_rules(mem.root, search_command=script_command("search_memory.py"),
                       budget=RULES_BUDGET)

def script_command(name: str) -> str:
    """How the agent runs one of our scripts: this interpreter and the scripts folder the
    hook runs from (the project's skill folder once installed)."""
    here = Path(sys.argv[0]).resolve().parent if sys.argv and sys.argv[0] else None
    if here is None or not (here / name).exists():
        here = Path(__file__).resolve().parent.parent / "scripts"
    return f'"{sys.executable}" "{here / name}"'


def save_instructions(conv: str) -> str:
    conv = session_arg(conv)
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
