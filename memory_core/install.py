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
    # two clones that both consolidated would otherwise always conflict here, and picking one
    # side drops the other's facts once their days are pruned
    f"{DATA_SUBDIR.as_posix()}/facts.jsonl merge=union",
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
    """Is a hooks-file entry one of ours (any version of cursor-memory)? Only our exact
    forms: `-m memory_core hook <event>` (also as exec-form args), the wrappers of old
    versions in our skill folder, or a `scripts/hook.py` that sits beside a memory_core
    package. A user's own `./scripts/hook.py notify` is not ours."""
    if not isinstance(entry, dict):
        return False
    words = [str(entry.get("command", ""))] + [str(a) for a in entry.get("args", [])
                                                if isinstance(entry.get("args"), list)]
    text = " ".join(words).replace("\\", "/")
    if re.search(r"-m\s+memory_core\s+hook\b", text) or f"skills/{SKILL}/scripts/" in text:
        return True
    for script in re.findall(r"[^\s\"'&]*scripts/hook\.py", text):  # ours were absolute
        if os.path.isabs(script) and os.path.isdir(
                os.path.join(os.path.dirname(os.path.dirname(script)), "memory_core")):
            return True
    return False


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
A question about the current value ("…现在是多少", "are we still on X?") also shows the values
it replaced, marked `(superseded by …)`, after the current ones: answer from the first hit.

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
    """Write a project file atomically, keeping the mode it had (0644 for a new one): these
    are the user's files, not the memory's private ones."""
    from .files import write_atomic
    try:
        mode = os.stat(path).st_mode & 0o7777
    except OSError:
        mode = 0o644 & ~_umask()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
    try:
        os.chmod(path, mode)
    except OSError:
        pass


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _text(path: Path) -> str | None:
    """A project file's exact text (BOM and line endings kept), None when missing; one-line
    UserError when it is not UTF-8 or is a link (install replaces files, never links)."""
    if os.path.islink(path):
        raise UserError(f"{path} is a symbolic link: cursor-memory never writes through links")
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise UserError(f"{path} is not UTF-8 text; fix it, then install again") from None
    except OSError as e:
        raise UserError(f"cannot read {path}: {e.strerror}") from None


def _read_json(path: Path, lists_under: str | None = None, objects_under: str | None = None) -> dict:
    """A JSON object file ({} when missing), its shape checked before anything is written:
    `lists_under` ("hooks") must map names to lists, `objects_under` ("mcpServers") must be
    an object. One-line UserError otherwise."""
    text = _text(path)
    if text is None:
        return {}
    try:
        data = json.loads(text.lstrip("\ufeff") or "{}")
    except ValueError as e:
        raise UserError(f"{path} is not valid JSON ({e}); fix it, then install again") from None
    if not isinstance(data, dict):
        raise UserError(f"{path} is not a JSON object; fix it, then install again")
    if lists_under and lists_under in data and not (
            isinstance(data[lists_under], dict)
            and all(isinstance(v, list) for v in data[lists_under].values())):
        raise UserError(f"{path}: `{lists_under}` must map event names to lists; fix it, then install again")
    if objects_under and objects_under in data and not isinstance(data[objects_under], dict):
        raise UserError(f"{path}: `{objects_under}` must be an object; fix it, then install again")
    return data


def _block(text: str | None, lines: list) -> tuple:
    """(the lines of `lines` the file lacks, the exact text install appends for them): in
    the file's own line endings, after a blank line, behind a `# cursor-memory` marker."""
    body = text or ""
    nl = "\r\n" if "\r\n" in body else "\n"
    new = [line for line in lines if line not in body.splitlines()]
    if not new:
        return [], ""
    sep = (nl if body and not body.endswith(("\n", "\r")) else "") + (nl if body else "")
    return new, sep + "# cursor-memory" + nl + nl.join(new) + nl


def _remove_block(path: Path, block: str | None, lines: list, created: bool) -> None:
    """Take out what install appended: the exact block when it is still the file's end (the
    file is then byte for byte as before), else our lines one by one."""
    text = _text(path) if path.exists() or path.is_symlink() else None
    if text is None:
        return
    if block and text.endswith(block):
        rest = text[:-len(block)]
        if not rest and created:
            path.unlink()
        else:
            _write(path, rest)
        return
    if not lines:
        return
    nl = "\r\n" if "\r\n" in text else "\n"
    kept = [line for line in text.splitlines() if line not in lines and line != "# cursor-memory"]
    while kept and not kept[-1].strip():
        kept.pop()
    if kept:
        _write(path, nl.join(kept) + nl)
    else:
        path.unlink()


def _restore(path: Path, cleaned: dict, original: str | None) -> None:
    """Put the user's file back byte for byte (BOM, layout, line endings) when nothing else
    changed in it since: the keys install added (`version`, an empty `hooks` or
    `mcpServers`) are taken back out before comparing."""
    if original is not None:
        try:
            before = json.loads(original.lstrip("\ufeff") or "{}")
        except ValueError:
            before = None
        if isinstance(before, dict):
            now = dict(cleaned)
            if "version" not in before and now.get("version") == 1:
                del now["version"]
            for key in ("hooks", "mcpServers"):
                if key not in before and now.get(key) == {}:
                    del now[key]
                elif key in before and before[key] == {} and key not in now:
                    now[key] = {}
            if now == before:
                _write(path, original)
                return
            cleaned = now
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
    mcp = mcp_available() if mcp is None else mcp
    done = []

    # Everything is read and checked before anything is written: a file of an unexpected
    # shape stops the install with one line and leaves the project as it was.
    hooks_path = project / ".cursor" / "hooks.json"
    hooks_text = _text(hooks_path)
    config = _read_json(hooks_path, lists_under="hooks")
    settings_path = project / ".claude" / "settings.json"
    settings_text = _text(settings_path) if claude else None
    settings = _read_json(settings_path, lists_under="hooks") if claude else {}
    mcp_targets = ([project / ".cursor" / "mcp.json"] + ([project / ".mcp.json"] if claude else [])
                   if mcp else [])
    mcp_files = {p: (_text(p), _read_json(p, objects_under="mcpServers")) for p in mcp_targets}
    ignore_path, attrs_path = project / ".gitignore", project / ".gitattributes"
    ignore_text, attrs_text = _text(ignore_path), _text(attrs_path)

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

    manifest.setdefault("created_hooks_json", hooks_text is None)
    if "original_hooks_json" not in manifest and hooks_text is not None:
        manifest["original_hooks_json"] = hooks_text
    config["version"] = 1
    events = config.setdefault("hooks", {})
    for hook in HOOKS:
        current = [e for e in events.get(hook.cursor, []) if not _ours(e)]
        events[hook.cursor] = current + [dict({"command": hook_command(python, hook.cursor, platform),
                                               "timeout": hook.timeout}, **hook.extra)]
    _write(hooks_path, json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    done.append(f"hooks: .cursor/hooks.json ({', '.join(h.cursor for h in HOOKS)})")

    if claude:
        manifest.setdefault("created_claude_settings", settings_text is None)
        if "original_claude_settings" not in manifest and settings_text is not None:
            manifest["original_claude_settings"] = settings_text
        hooks = settings.setdefault("hooks", {})
        for hook in HOOKS:
            groups = [g for g in hooks.get(hook.claude, []) if not (isinstance(g, dict) and any(
                _ours(h) for h in g.get("hooks", []) if isinstance(g.get("hooks"), list)))]
            groups.append({"matcher": "", "hooks": [claude_hook(python, hook.cursor, hook.timeout,
                                                                platform)]})
            hooks[hook.claude] = groups
        _write(settings_path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
        manifest["claude"] = True
        done.append("hooks: .claude/settings.json (" + ", ".join(h.claude for h in HOOKS) + ")")

    if mcp:
        for path, (text, data) in mcp_files.items():
            rel = path.relative_to(project).as_posix()
            created = manifest.setdefault("created_mcp", {}).setdefault(rel, text is None)
            if text is not None and not created:
                manifest.setdefault("original_mcp", {}).setdefault(rel, text)
            data.setdefault("mcpServers", {})[SKILL] = mcp_entry(python, project)
            _write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        manifest["mcp"] = [p.relative_to(project).as_posix() for p in mcp_targets]
        done.append("mcp: " + ", ".join(manifest["mcp"]) + " (memory as tools)")

    for key, path, text, lines in (("gitignore", ignore_path, ignore_text, GITIGNORE),
                                   ("gitattributes", attrs_path, attrs_text, GITATTRIBUTES)):
        added, block = _block(text, lines)
        if added:
            _write(path, (text or "") + block)
            manifest.setdefault(f"created_{key}", text is None)
            manifest[f"{key}_block"] = block if not manifest.get(f"{key}_block") else None
        manifest[key] = sorted(set(manifest.get(key, [])) | set(added))
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
    config = _read_json(hooks_path, lists_under="hooks")
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
        settings = _read_json(settings_path, lists_under="hooks")
        hooks = settings.get("hooks", {})
        for event in list(hooks):
            hooks[event] = [g for g in hooks[event] if not (isinstance(g, dict) and isinstance(
                g.get("hooks"), list) and any(_ours(h) for h in g["hooks"]))]
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
        data = _read_json(path, objects_under="mcpServers")
        data.get("mcpServers", {}).pop(SKILL, None)
        if not data.get("mcpServers"):
            data.pop("mcpServers", None)
        if not data and manifest.get("created_mcp", {}).get(rel):
            path.unlink(missing_ok=True)
        elif path.exists():
            _restore(path, data, manifest.get("original_mcp", {}).get(rel))
        done.append(f"MCP server removed from {rel}")
    for key in ("gitignore", "gitattributes"):
        _remove_block(project / f".{key}", manifest.get(f"{key}_block"), manifest.get(key, []),
                      bool(manifest.get(f"created_{key}")))
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
    """doctor's checks of .cursor/hooks.json and .claude/settings.json: (ok, what, detail).
    A file of an unexpected shape (a list, `hooks` not an object) is one FAIL line."""
    try:
        yield from _check_hook_files(project)
    except (AttributeError, TypeError, KeyError) as e:
        yield False, "hooks", (f"a hook file under {project} has an unexpected shape ({e}): "
                               "`hooks` must map event names to lists of entries")


def _check_hook_files(project: Path):
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
        config = _read_json(project / ".cursor" / "hooks.json", lists_under="hooks")
    except UserError:
        return None
    for entry in config.get("hooks", {}).get(event, []):
        if _ours(entry):
            return str(entry.get("command", ""))
    return None
