"""`cursor-memory install` / `uninstall`: wire a project up in one command, and unwire it
exactly (docs/hosts.md "Install").

Writes, merging with what the user has: .cursor/hooks.json (and with --claude the same hooks
in .claude/settings.json), the skill (one copy: .claude/skills/cursor-memory with --claude,
which Cursor reads too, else .cursor/skills/cursor-memory), .gitignore and .gitattributes
entries, and with the [mcp] extra .cursor/mcp.json (and .mcp.json). Every hook is one entry
point, `<python> -m memory_core hook <event>`, so no code is generated. What was added is
recorded in the skill folder's install.json, which is what uninstall undoes.
"""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import NamedTuple

from .config import DATA_SUBDIR
from .errors import UserError

SKILL = "cursor-memory"
SKILL_DIRS = {"cursor": Path(".cursor") / "skills" / SKILL, "claude": Path(".claude") / "skills" / SKILL}
MANIFEST = "install.json"

class Hook(NamedTuple):
    cursor: str  # the Cursor event
    claude: str  # Claude Code's name for it
    timeout: int  # seconds the host allows
    extra: dict  # more keys of Cursor's entry


HOOKS = [
    Hook("sessionStart", "SessionStart", 10, {}),
    Hook("beforeSubmitPrompt", "UserPromptSubmit", 5, {}),
    Hook("preCompact", "PreCompact", 30, {}),
    Hook("stop", "Stop", 10, {"loop_limit": 1}),
    Hook("sessionEnd", "SessionEnd", 60, {}),
]
# The events each host knows (docs/hosts.md "Events"). Cursor's CLI ignores a hooks.json
# holding one unknown name, so doctor fails on those; Claude Code keeps adding events, so an
# unknown name there is a note.
CURSOR_EVENTS = frozenset("""sessionStart sessionEnd preToolUse postToolUse postToolUseFailure
subagentStart subagentStop beforeShellExecution afterShellExecution beforeMCPExecution
afterMCPExecution beforeReadFile afterFileEdit beforeSubmitPrompt preCompact stop
afterAgentResponse afterAgentThought beforeTabFileRead afterTabFileEdit workspaceOpen""".split())
CLAUDE_EVENTS = frozenset("""SessionStart Setup UserPromptSubmit UserPromptExpansion PreToolUse
PermissionRequest PermissionDenied PostToolUse PostToolUseFailure PostToolBatch Notification
MessageDisplay SubagentStart SubagentStop TaskCreated TaskCompleted Stop StopFailure TeammateIdle
InstructionsLoaded ConfigChange CwdChanged DirectoryAdded FileChanged WorktreeCreate
WorktreeRemove PreCompact PostCompact PreModelSwitch PostModelSwitch Elicitation
ElicitationResult SessionEnd""".split())
GITIGNORE = [
    f"{DATA_SUBDIR.as_posix()}/index.sqlite*",
    f"{DATA_SUBDIR.as_posix()}/*.lock",
    f"{DATA_SUBDIR.as_posix()}/*.tmp",
    f"{DATA_SUBDIR.as_posix()}/state.json",
    f"{DATA_SUBDIR.as_posix()}/hooks.log*",
    ".cursor/rules/memory-context.mdc",
]
GITATTRIBUTES = [
    f"{DATA_SUBDIR.as_posix()}/daily/*.jsonl merge=union",
    f"{DATA_SUBDIR.as_posix()}/sessions.jsonl merge=union",
]


# --- commands ------------------------------------------------------------------------------------

_SAFE = re.compile(r"^[A-Za-z0-9_./:+=-]+$")


def _quote(arg: str) -> str:
    return arg if _SAFE.match(arg) else '"' + arg.replace('"', '') + '"'


def hook_command(python: str, event: str, platform: str = sys.platform) -> str:
    """The command string a hooks file runs for `event` (Cursor's camelCase name, the same
    string in both hosts' files on POSIX, so Cursor, which also runs .claude/settings.json,
    sees one hook). On Windows, Cursor runs commands inside PowerShell, where a command that
    starts with a quoted path is a ParserError: the call operator `&` is put first."""
    args = f"-m memory_core hook {event}"
    if platform == "win32":
        return f'& "{python}" {args}'
    return f"{_quote(python)} {args}"


def claude_hook(python: str, event: str, timeout: int, platform: str = sys.platform) -> dict:
    """A Claude Code hook entry. On Windows the exec form (`args`, no shell), since Claude
    Code runs shell-form commands in Git Bash or PowerShell, which quote differently."""
    if platform == "win32":
        return {"type": "command", "command": python,
                "args": ["-m", "memory_core", "hook", event], "timeout": timeout}
    return {"type": "command", "command": hook_command(python, event, platform), "timeout": timeout}


def agent_command(python: str, command: str, platform: str = sys.platform) -> str:
    """How the skill tells the agent to run a command (`save-fact`, `search`, ...)."""
    if platform == "win32":
        return f'& "{python}" -m memory_core {command}'
    return f"{_quote(python)} -m memory_core {command}"


def _ours(entry) -> bool:
    """Is a hooks-file entry one of ours (any version of cursor-memory)?"""
    text = json.dumps(entry)
    return ("memory_core" in text and "hook" in text) or f"skills/{SKILL}/scripts/" in text.replace(
        "\\\\", "/") or "scripts/hook.py" in text


# --- the skill -------------------------------------------------------------------------------

def skill_text(run: str) -> str:
    """SKILL.md; `run` is how to call a command, e.g. `/venv/bin/python -m memory_core`."""
    return f"""---
name: {SKILL}
description: Long-term project memory across sessions and context compactions. Use when the user states a decision, preference or fact worth keeping, or asks what was decided, done or preferred before (之前/上次/决定/偏好/记得). 跨会话的项目记忆：保存和检索。
---
# cursor-memory: the project's long-term memory

Memory is plain files in `{DATA_SUBDIR.as_posix()}/` (daily JSONL logs, facts.jsonl,
sessions.jsonl and MEMORY.md, which the user edits). At session start you were given
MEMORY.md, the last week's facts and the last session summary; for some prompts, memories
relevant to them are added too. Search for anything older. When memory tools
(`memory_search`, `memory_save_fact`, ...) are available, prefer them to these commands.

## Search before answering questions about earlier work

    {run} search "Redis 缓存 TTL"
    {run} search "why did we drop Prisma" --limit 5
    {run} search "部署" --type session_summary --since 2026-10-01

Chinese, English or both in one query. Options: `--limit N`, `--mode hybrid|fts|vector`,
`--type fact,preference,action,session_summary,core,transcript`, `--memory-type W,B,O,S`,
`--since`/`--until DATE`, `--history`, `--json`.

## Save when something durable is said, decided or learned

    {run} save-fact --type W --content "API 默认监听 3000 端口" --entities api,port
    {run} save-fact --type B --content "Migrated the database to RDS PostgreSQL 16 on 2026-10-08"
    {run} save-fact --type O --content "用户偏好两个空格缩进" --confidence 0.9

- **W** (world): a fact about the project or its tools. 例：「项目使用 PostgreSQL 16」
- **B** (biographical): something that happened. 例：「2026-10-08 完成数据库迁移」
- **O** (opinion): a preference or judgement, with `--confidence` below 1 when unsure.
  例：「用户不喜欢 default export」

One sentence per fact, in the user's language, specific (names, numbers, paths). When a fact
changes, save the new one with `--supersedes <id of the old one>` (ids are shown in the
session context and in search results). Never save passwords, tokens or keys (they are
redacted anyway) or what the code already says plainly.

## At the end of a task

The stop hook asks for a summary once per conversation:

    {run} save-summary --topic "Redis 缓存方案" --summary "100-200 字：做了什么，为什么" --decision "TTL 6 小时" --todo "连接池监控"
"""


# --- files -------------------------------------------------------------------------------------

def _refuse_links(project: Path, rels: list) -> None:
    """UserError naming the link when a folder install would write into is a symbolic link
    inside the project (`.cursor` committed as a link would take the hooks elsewhere)."""
    from .files import link_on_path
    for rel in rels:
        link = link_on_path(Path(project) / rel, project)
        if link is not None and os.path.abspath(link) != os.path.abspath(Path(project) / rel):
            raise UserError(f"{link} is a symbolic link: cursor-memory never writes through "
                            "links (replace it with a folder, or install elsewhere)")


def _write(path: Path, text: str) -> None:
    from .files import write_atomic
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)


def _read_json(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig") or "{}")
    except ValueError as e:
        raise UserError(f"{path} is not valid JSON ({e}); fix it, then install again") from None
    if not isinstance(data, dict):
        raise UserError(f"{path} is not a JSON object")
    return data


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


def _restore(path: Path, cleaned: dict, original: str | None) -> None:
    """Put the user's file back byte for byte when nothing else changed in it since."""
    try:
        if original is not None and json.loads(original) == cleaned:
            _write(path, original)
            return
    except ValueError:
        pass
    _write(path, json.dumps(cleaned, indent=2, ensure_ascii=False) + "\n")


def mcp_available() -> bool:
    import importlib.util
    return importlib.util.find_spec("mcp") is not None


def mcp_entry(python: str, project: Path) -> dict:
    """The server's entry: hosts start it from a folder of their choosing, so the project is
    named (CURSOR_MEMORY_DIR still wins, as for the hooks)."""
    return {"command": python, "args": ["-m", "memory_core", "mcp", "--project", str(project)]}


# --- install / uninstall ------------------------------------------------------------------------

def _manifest_dir(project: Path) -> Path | None:
    for where in ("claude", "cursor"):
        if (project / SKILL_DIRS[where] / MANIFEST).exists():
            return project / SKILL_DIRS[where]
    return None


def install(project, *, claude: bool = False, python: str | None = None, mcp: bool | None = None,
            platform: str = sys.platform) -> list:
    """Install into a project; returns what was done, a line each. Idempotent."""
    from .config import check_project
    from .memory import Memory

    project = check_project(Path(project).resolve())
    _refuse_links(project, [".cursor/hooks.json", (SKILL_DIRS["cursor"] / "x").as_posix(),
                            (SKILL_DIRS["claude"] / "x").as_posix(), ".claude/settings.json",
                            ".cursor/mcp.json", ".cursor/rules/x", DATA_SUBDIR.as_posix() + "/x"])
    python = python or sys.executable
    old_dir = _manifest_dir(project)
    manifest = _read_json(old_dir / MANIFEST) if old_dir else {}
    claude = claude or bool(manifest.get("claude"))
    skill = project / SKILL_DIRS["claude" if claude else "cursor"]
    done = []

    if old_dir is not None and old_dir != skill:
        import shutil
        shutil.rmtree(old_dir)  # one copy of the skill, where both hosts read it
    for stale in ("scripts",):  # generated wrappers of versions before one entry point
        if (skill / stale).is_dir():
            import shutil
            shutil.rmtree(skill / stale)
    run = agent_command(python, "", platform).rstrip()
    _write(skill / "SKILL.md", skill_text(run))
    done.append(f"skill: {skill.relative_to(project).as_posix()}/SKILL.md"
                + (" (Cursor reads it there too)" if claude else ""))

    hooks_path = project / ".cursor" / "hooks.json"
    manifest.setdefault("created_hooks_json", not hooks_path.exists())
    if "original_hooks_json" not in manifest and hooks_path.exists():
        manifest["original_hooks_json"] = hooks_path.read_text(encoding="utf-8")
    config = _read_json(hooks_path)
    config["version"] = 1
    events = config.setdefault("hooks", {})
    for hook in HOOKS:
        current = [e for e in events.get(hook.cursor, []) if not _ours(e)]
        events[hook.cursor] = current + [dict({"command": hook_command(python, hook.cursor, platform),
                                               "timeout": hook.timeout}, **hook.extra)]
    _write(hooks_path, json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    done.append(f"hooks: .cursor/hooks.json ({', '.join(h.cursor for h in HOOKS)})")

    if claude:
        settings_path = project / ".claude" / "settings.json"
        manifest.setdefault("created_claude_settings", not settings_path.exists())
        if "original_claude_settings" not in manifest and settings_path.exists():
            manifest["original_claude_settings"] = settings_path.read_text(encoding="utf-8")
        settings = _read_json(settings_path)
        hooks = settings.setdefault("hooks", {})
        for hook in HOOKS:
            groups = [g for g in hooks.get(hook.claude, []) if not any(
                _ours(h) for h in g.get("hooks", []))]
            groups.append({"matcher": "", "hooks": [claude_hook(python, hook.cursor, hook.timeout,
                                                                platform)]})
            hooks[hook.claude] = groups
        _write(settings_path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
        manifest["claude"] = True
        done.append("hooks: .claude/settings.json (" + ", ".join(h.claude for h in HOOKS) + ")")

    mcp = mcp_available() if mcp is None else mcp
    if mcp:
        targets = [project / ".cursor" / "mcp.json"] + ([project / ".mcp.json"] if claude else [])
        for path in targets:
            rel = path.relative_to(project).as_posix()
            data = _read_json(path)
            created = manifest.setdefault("created_mcp", {}).setdefault(rel, not path.exists())
            if path.exists() and not created:
                manifest.setdefault("original_mcp", {}).setdefault(rel, path.read_text(encoding="utf-8"))
            data.setdefault("mcpServers", {})[SKILL] = mcp_entry(python, project)
            _write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        manifest["mcp"] = [p.relative_to(project).as_posix() for p in targets]
        done.append("mcp: " + ", ".join(manifest["mcp"]) + " (memory as tools)")

    added = _add_lines(project / ".gitignore", GITIGNORE)
    manifest["gitignore"] = sorted(set(manifest.get("gitignore", [])) | set(added))
    added = _add_lines(project / ".gitattributes", GITATTRIBUTES)
    manifest["gitattributes"] = sorted(set(manifest.get("gitattributes", [])) | set(added))
    done.append(".gitignore: index, locks, state, generated rules; .gitattributes: merge=union")

    Memory(project / DATA_SUBDIR).sync(embed=False)
    _compile_package()
    done.append(f"memory: {DATA_SUBDIR.as_posix()}/")
    manifest["python"] = python
    _write(skill / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    return done


def _compile_package() -> None:
    """Byte-compile memory_core once: editable installs and PYTHONDONTWRITEBYTECODE leave it
    as source, and every hook and save would then compile it again."""
    import compileall
    compileall.compile_dir(str(Path(__file__).resolve().parent), quiet=1)


def uninstall(project) -> list:
    """Remove exactly what install added; the memory data stays."""
    import shutil

    project = Path(project).resolve()
    _refuse_links(project, [".cursor/hooks.json", (SKILL_DIRS["cursor"] / "x").as_posix(),
                            (SKILL_DIRS["claude"] / "x").as_posix(), ".claude/settings.json"])
    skill = _manifest_dir(project)
    if skill is None:
        raise UserError(f"cursor-memory is not installed in {project}")
    manifest = _read_json(skill / MANIFEST)
    done = []
    hooks_path = project / ".cursor" / "hooks.json"
    config = _read_json(hooks_path)
    events = config.get("hooks", {})
    for event in list(events):
        events[event] = [e for e in events[event] if not _ours(e)]
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
            hooks[event] = [g for g in hooks[event] if not any(_ours(h) for h in g.get("hooks", []))]
            if not hooks[event]:
                del hooks[event]
        if not hooks:
            settings.pop("hooks", None)
        if manifest.get("created_claude_settings") and not settings:
            settings_path.unlink(missing_ok=True)
        elif settings_path.exists():
            _restore(settings_path, settings, manifest.get("original_claude_settings"))
        done.append("hooks removed from .claude/settings.json")
    for rel in manifest.get("mcp", []):
        path = project / rel
        data = _read_json(path)
        data.get("mcpServers", {}).pop(SKILL, None)
        if not data.get("mcpServers"):
            data.pop("mcpServers", None)
        if not data and manifest.get("created_mcp", {}).get(rel):
            path.unlink(missing_ok=True)
        elif path.exists():
            _restore(path, data, manifest.get("original_mcp", {}).get(rel))
        done.append(f"MCP server removed from {rel}")
    _remove_lines(project / ".gitignore", manifest.get("gitignore", []))
    _remove_lines(project / ".gitattributes", manifest.get("gitattributes", []))
    shutil.rmtree(skill)
    (project / ".cursor" / "rules" / "memory-context.mdc").unlink(missing_ok=True)
    done.append(f"removed {skill.relative_to(project).as_posix()}/, .gitignore and .gitattributes "
                f"entries; memory data kept in {DATA_SUBDIR.as_posix()}/")
    return done


# --- checks (doctor) ---------------------------------------------------------------------------

def command_problems(command: str) -> list:
    """Why a hooks-file command could break a host (docs/hosts.md "Commands"): a URL (the
    Cursor CLI then ignores the whole file), a line break, or, for a command that starts
    with a quoted path, no `&` before it (a PowerShell ParserError on Windows)."""
    problems = []
    if re.search(r"https?://", command):
        problems.append("contains a URL (cursor-agent ignores the whole hooks.json)")
    if "\n" in command or "\r" in command:
        problems.append("contains a line break")
    if sys.platform == "win32" and command.lstrip().startswith('"'):
        problems.append("starts with a quoted path (a PowerShell ParserError): put & first")
    return problems


def check_hook_files(project: Path):
    """doctor's checks of .cursor/hooks.json and .claude/settings.json: (ok, what, detail)."""
    path = project / ".cursor" / "hooks.json"
    if not path.exists():
        yield False, "hooks", f"no {path}: run `cursor-memory install --project '{project}'`"
        return
    try:
        config = json.loads(path.read_text(encoding="utf-8-sig"))
    except ValueError as e:
        yield False, "hooks", f"{path} is not valid JSON ({e})"
        return
    events = config.get("hooks", {}) if isinstance(config, dict) else {}
    bad = [name for name in events if name not in CURSOR_EVENTS]
    if bad:
        yield False, "hooks.json events", (f"unknown event names {', '.join(bad)}: the Cursor CLI "
                                           "ignores a hooks.json with any unknown name")
    if config.get("version") != 1:
        yield False, "hooks.json version", "`version` must be 1"
    for name, entries in events.items():
        for entry in entries if isinstance(entries, list) else []:
            for problem in command_problems(str(entry.get("command", ""))):
                yield False, f"hooks.json {name}", f"`{entry.get('command')}` {problem}"
    missing = [h.cursor for h in HOOKS if not any(_ours(x) for x in events.get(h.cursor, []))]
    if missing:
        yield False, "hooks", f"not installed for {', '.join(missing)}: run `cursor-memory install`"
    else:
        yield True, "hooks", f"{path.relative_to(project)}: every event known, ours installed"
    settings = project / ".claude" / "settings.json"
    if settings.exists():
        try:
            hooks = json.loads(settings.read_text(encoding="utf-8-sig")).get("hooks", {})
        except (ValueError, AttributeError) as e:
            yield False, "claude hooks", f"{settings} is not valid JSON ({e})"
            return
        unknown = [name for name in hooks if name not in CLAUDE_EVENTS]
        if unknown:
            yield None, "claude hooks", f"event names this version does not know: {', '.join(unknown)}"
        for name, groups in hooks.items():
            for group in groups if isinstance(groups, list) else []:
                for entry in group.get("hooks", []) if isinstance(group, dict) else []:
                    for problem in command_problems(str(entry.get("command", ""))):
                        yield False, f"claude {name}", f"`{entry.get('command')}` {problem}"


def hook_command_of(project: Path, event: str) -> str | None:
    """Our command for `event` in .cursor/hooks.json, if installed."""
    try:
        config = json.loads((project / ".cursor" / "hooks.json").read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return None
    for entry in config.get("hooks", {}).get(event, []):
        if _ours(entry):
            return str(entry.get("command", ""))
    return None
