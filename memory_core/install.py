"""`cursor-memory install` / `uninstall`: wire a project up in one command, and unwire it
exactly.

Writes (merging with what the user has): .cursor/hooks.json, the skill folder
.cursor/skills/cursor-memory/ (SKILL.md and the scripts), .gitignore and .gitattributes
entries, and with --claude the same hooks in .claude/settings.json. What was added is
recorded in the skill folder's install.json, which is what uninstall undoes.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from .config import DATA_SUBDIR, MemoryError

SKILL = "cursor-memory"
SKILL_DIR = Path(".cursor") / "skills" / SKILL
MANIFEST = "install.json"

# The hook template. The repository's top-level hooks.json is this, with the commands as a
# checkout runs them; tests keep the two identical.
HOOKS = [
    # (Cursor event, Claude Code event, script, timeout seconds, extra keys)
    ("sessionStart", "SessionStart", "load_memory.py", 10, {}),
    ("preCompact", "PreCompact", "flush_memory.py", 30, {}),
    ("stop", "Stop", "prompt_session_save.py", 10, {"loop_limit": 1}),
    ("sessionEnd", "SessionEnd", "sync_and_cleanup.py", 60, {}),
]
SCRIPTS = {
    "save_fact.py": ("cli", "save_fact_main", "Save one durable fact to memory."),
    "save_summary.py": ("cli", "save_summary_main",
                        "Save this session's summary (topic, summary, decisions, todos) to memory."),
    "search_memory.py": ("cli", "search_main", "Search memory in Chinese, English or both."),
    "load_memory.py": ("hook", "sessionStart",
                       "sessionStart hook: sync the index (text only) and hand the agent its memory."),
    "flush_memory.py": ("hook", "preCompact",
                        "preCompact hook: archive the transcript turns compaction will drop."),
    "prompt_session_save.py": ("hook", "stop",
                               "stop hook: ask the agent, once, to save a session summary and its facts."),
    "sync_and_cleanup.py": ("hook", "sessionEnd",
                            "sessionEnd hook: sync with embeddings, consolidate facts, prune old days."),
}
GITIGNORE = [
    f"{DATA_SUBDIR.as_posix()}/index.sqlite*",
    f"{DATA_SUBDIR.as_posix()}/*.lock",
    f"{DATA_SUBDIR.as_posix()}/*.tmp",
    f"{DATA_SUBDIR.as_posix()}/state.json",
    f"{DATA_SUBDIR.as_posix()}/context.cache.json",
    f"{DATA_SUBDIR.as_posix()}/hooks.log*",
    ".cursor/rules/memory-context.mdc",
]
GITATTRIBUTES = [
    f"{DATA_SUBDIR.as_posix()}/daily/*.jsonl merge=union",
    f"{DATA_SUBDIR.as_posix()}/sessions.jsonl merge=union",
]


def template(command_prefix: str = "python3 scripts/") -> dict:
    """hooks.json with each command as `<command_prefix><script>`."""
    hooks = {}
    for event, _, script, timeout, extra in HOOKS:
        hooks[event] = [dict({"command": command_prefix + script, "timeout": timeout}, **extra)]
    return {"version": 1, "hooks": hooks}


def script_text(name: str) -> str:
    """The source of a thin script (the repository's scripts/ are exactly these)."""
    kind, target, doc = SCRIPTS[name]
    head = ("#!/usr/bin/env python3\n"
            f'"""{doc}'
            + (" Agent-facing; `--help` for options. Thin over memory_core."
               if kind == "cli" else
               "\n\nReads the hook's JSON on stdin, prints one JSON object, always exits 0. "
               "Thin over memory_core.")
            + '"""\n'
            "import os\nimport sys\n\n"
            "_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n"
            'if os.path.isdir(os.path.join(_root, "memory_core")):\n'
            "    sys.path.insert(0, _root)  # a checkout runs its own code\n\n")
    if kind == "cli":
        return head + (f"from memory_core.cli import {target}  # noqa: E402\n\n"
                       f"sys.exit({target}())\n")
    return head + ("try:\n    from memory_core.hooks import run\n"
                   "except Exception:  # noqa: BLE001 - even a broken install must not break the session\n"
                   '    print("{}")\n    sys.exit(0)\n\n'
                   f'sys.exit(run("{target}"))\n')


def skill_text(run: str) -> str:
    """SKILL.md; `run` is how to call a script, e.g. `python3 .cursor/skills/cursor-memory/scripts/`."""
    return f"""---
name: {SKILL}
description: Long-term project memory across sessions and context compactions. Use when the user states a decision, preference or fact worth keeping, or asks what was decided, done or preferred before (之前/上次/决定/偏好/记得). 跨会话的项目记忆：保存和检索。
---
# cursor-memory: the project's long-term memory

Memory is plain files in `{DATA_SUBDIR.as_posix()}/` (daily JSONL logs, facts.jsonl,
sessions.jsonl and MEMORY.md, which the user edits). At session start you were given
MEMORY.md, the last week's facts and the last session summary. Search for anything older.

## Search before answering questions about earlier work

    {run}search_memory.py "Redis 缓存 TTL"
    {run}search_memory.py "why did we drop Prisma" --limit 5
    {run}search_memory.py "部署" --type session_summary --since 2026-10-01

Chinese, English or both in one query. Options: `--limit N`, `--mode hybrid|fts|vector`,
`--type fact,preference,action,session_summary,core,transcript`, `--since`/`--until DATE`,
`--json`.

## Save when something durable is said, decided or learned

    {run}save_fact.py --type W --content "API 默认监听 3000 端口" --entities api,port
    {run}save_fact.py --type B --content "Migrated the database to RDS PostgreSQL 16 on 2026-10-08"
    {run}save_fact.py --type O --content "用户偏好两个空格缩进" --confidence 0.9

- **W** (world): a fact about the project or its tools. 例：「项目使用 PostgreSQL 16」
- **B** (biographical): something that happened. 例：「2026-10-08 完成数据库迁移」
- **O** (opinion): a preference or judgement, with `--confidence` below 1 when unsure.
  例：「用户不喜欢 default export」

One sentence per fact, in the user's language, specific (names, numbers, paths). When a fact
changes, save the new value; the newest wins. Never save passwords, tokens or keys (they are
redacted anyway) or what the code already says plainly.

## At the end of a task

The stop hook asks for a summary once per conversation:

    {run}save_summary.py --topic "Redis 缓存方案" --summary "100-200 字：做了什么，为什么" --decision "TTL 6 小时" --todo "连接池监控"
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _read_json(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig") or "{}")
    except ValueError as e:
        raise MemoryError(f"{path} is not valid JSON ({e}); fix it, then install again") from None
    if not isinstance(data, dict):
        raise MemoryError(f"{path} is not a JSON object")
    return data


def _ours(command: str) -> bool:
    return f"skills/{SKILL}/scripts/" in command.replace("\\", "/")


def _add_lines(path: Path, lines: list) -> list:
    existing = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    new = [line for line in lines if line not in existing]
    if new:
        body = "\n".join(existing).rstrip("\n")
        body = (body + "\n\n" if body else "") + "# cursor-memory\n" + "\n".join(new) + "\n"
        _write(path, body)
    return new


def _remove_lines(path: Path, lines: list) -> None:
    if not path.exists() or not lines:
        return
    kept = [line for line in path.read_text(encoding="utf-8").splitlines()
            if line not in lines and line != "# cursor-memory"]
    while kept and not kept[-1].strip():
        kept.pop()
    if kept:
        _write(path, "\n".join(kept) + "\n")
    else:
        path.unlink()


def install(project, *, claude: bool = False, python: str | None = None) -> list:
    """Install into a project; returns what was done, a line each. Idempotent."""
    project = Path(project).resolve()
    if not project.is_dir():
        raise MemoryError(f"{project} is not a folder")
    python = python or sys.executable
    skill = project / SKILL_DIR
    manifest = _read_json(skill / MANIFEST)
    done = []
    for name in SCRIPTS:
        _write(skill / "scripts" / name, script_text(name))
    run = f'"{python}" {SKILL_DIR.as_posix()}/scripts/'
    _write(skill / "SKILL.md", skill_text(run))
    done.append(f"skill: {SKILL_DIR.as_posix()}/ (SKILL.md and {len(SCRIPTS)} scripts)")

    hooks_path = project / ".cursor" / "hooks.json"
    created_hooks = manifest.get("created_hooks_json", not hooks_path.exists())
    if "original_hooks_json" not in manifest and hooks_path.exists():
        manifest["original_hooks_json"] = hooks_path.read_text(encoding="utf-8")
    config = _read_json(hooks_path)
    config.setdefault("version", 1)
    events = config.setdefault("hooks", {})
    for event, entries in template(run).get("hooks").items():
        current = [e for e in events.get(event, []) if not _ours(str(e.get("command", "")))]
        events[event] = current + entries
    _write(hooks_path, json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    done.append(f"hooks: .cursor/hooks.json ({', '.join(e for e, *_ in HOOKS)})")

    if claude:
        settings_path = project / ".claude" / "settings.json"
        created_settings = manifest.get("created_claude_settings", not settings_path.exists())
        if "original_claude_settings" not in manifest and settings_path.exists():
            manifest["original_claude_settings"] = settings_path.read_text(encoding="utf-8")
        settings = _read_json(settings_path)
        hooks = settings.setdefault("hooks", {})
        claude_run = f'"{python}" "$CLAUDE_PROJECT_DIR"/{SKILL_DIR.as_posix()}/scripts/'
        for _, event, script, timeout, _ in HOOKS:
            groups = [g for g in hooks.get(event, []) if not any(
                _ours(str(h.get("command", ""))) for h in g.get("hooks", []))]
            groups.append({"matcher": "", "hooks": [
                {"type": "command", "command": claude_run + script, "timeout": timeout}]})
            hooks[event] = groups
        _write(settings_path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
        manifest["created_claude_settings"] = created_settings
        manifest["claude"] = True
        done.append("hooks: .claude/settings.json (SessionStart, PreCompact, Stop, SessionEnd)")

    added = _add_lines(project / ".gitignore", GITIGNORE)
    manifest["gitignore"] = sorted(set(manifest.get("gitignore", [])) | set(added))
    added = _add_lines(project / ".gitattributes", GITATTRIBUTES)
    manifest["gitattributes"] = sorted(set(manifest.get("gitattributes", [])) | set(added))
    done.append(".gitignore: index, locks, state, generated rules; .gitattributes: merge=union")

    from .memory import Memory
    Memory(project / DATA_SUBDIR)
    _compile_package()
    done.append(f"memory: {DATA_SUBDIR.as_posix()}/")
    manifest["created_hooks_json"] = created_hooks
    manifest["python"] = python
    _write(skill / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    return done


def _restore(path: Path, cleaned: dict, original: str | None) -> None:
    """Put the user's file back byte for byte when nothing else changed in it since."""
    try:
        if original is not None and json.loads(original) == cleaned:
            _write(path, original)
            return
    except ValueError:
        pass
    _write(path, json.dumps(cleaned, indent=2, ensure_ascii=False) + "\n")


def _compile_package() -> None:
    """Byte-compile memory_core once: editable installs and PYTHONDONTWRITEBYTECODE leave it
    as source, and every hook and save would then compile it again (~10 ms each)."""
    import compileall
    compileall.compile_dir(str(Path(__file__).resolve().parent), quiet=1)


def uninstall(project) -> list:
    """Remove exactly what install added; the memory data stays."""
    import shutil

    project = Path(project).resolve()
    skill = project / SKILL_DIR
    manifest = _read_json(skill / MANIFEST)
    if not manifest:
        raise MemoryError(f"cursor-memory is not installed in {project}")
    done = []
    hooks_path = project / ".cursor" / "hooks.json"
    config = _read_json(hooks_path)
    events = config.get("hooks", {})
    for event in list(events):
        events[event] = [e for e in events[event] if not _ours(str(e.get("command", "")))]
        if not events[event]:
            del events[event]
    if manifest.get("created_hooks_json") and not events:
        hooks_path.unlink(missing_ok=True)
    elif hooks_path.exists():
        _restore(hooks_path, config, manifest.get("original_hooks_json"))
    done.append("hooks removed from .cursor/hooks.json")
    if manifest.get("claude"):
        settings_path = project / ".claude" / "settings.json"
        settings = _read_json(settings_path)
        hooks = settings.get("hooks", {})
        for event in list(hooks):
            hooks[event] = [g for g in hooks[event] if not any(
                _ours(str(h.get("command", ""))) for h in g.get("hooks", []))]
            if not hooks[event]:
                del hooks[event]
        if not hooks:
            settings.pop("hooks", None)
        if manifest.get("created_claude_settings") and not settings:
            settings_path.unlink(missing_ok=True)
        elif settings_path.exists():
            _restore(settings_path, settings, manifest.get("original_claude_settings"))
        done.append("hooks removed from .claude/settings.json")
    _remove_lines(project / ".gitignore", manifest.get("gitignore", []))
    _remove_lines(project / ".gitattributes", manifest.get("gitattributes", []))
    shutil.rmtree(skill)
    (project / ".cursor" / "rules" / "memory-context.mdc").unlink(missing_ok=True)
    done.append(f"removed {SKILL_DIR.as_posix()}/, .gitignore and .gitattributes entries; "
                f"memory data kept in {DATA_SUBDIR.as_posix()}/")
    return done
