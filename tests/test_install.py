"""One-command install into a project, idempotent, merged with the user's settings, commands
that run in every shell the hosts use, and an uninstall that removes exactly what it added."""
import json
import re
import sys

import pytest

from conftest import ROOT
from memory_core import install

EVENTS = [h.cursor for h in install.HOOKS]


@pytest.fixture
def project(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".cursor").mkdir(parents=True)
    (proj / ".cursor/hooks.json").write_text(json.dumps({"version": 1, "hooks": {
        "stop": [{"command": "./my-own-stop.sh"}],
        "afterFileEdit": [{"command": "npx prettier --write"}]}}))
    (proj / ".gitignore").write_text("node_modules/\n")
    (proj / ".claude").mkdir()
    (proj / ".claude/settings.json").write_text(json.dumps(
        {"permissions": {"allow": ["Bash(ls:*)"]},
         "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "echo hi"}]}]}}))
    return proj


def snapshot(proj):
    return {str(p.relative_to(proj)): p.read_bytes() for p in sorted(proj.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def test_install_merges_hooks_keeping_the_users_own(project):
    install.install(project, claude=True, mcp=False)
    hooks = json.loads((project / ".cursor/hooks.json").read_text())["hooks"]
    assert hooks["afterFileEdit"] == [{"command": "npx prettier --write"}]
    assert hooks["stop"][0] == {"command": "./my-own-stop.sh"}
    ours = hooks["stop"][1]
    assert ours == {"command": f"{sys.executable} -m memory_core hook stop", "timeout": 10,
                    "loop_limit": 1}
    for event in EVENTS:
        assert hooks[event][-1]["command"].endswith(f"-m memory_core hook {event}")
    settings = json.loads((project / ".claude/settings.json").read_text())
    assert settings["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert len(settings["hooks"]["Stop"]) == 2
    assert set(settings["hooks"]) == {"SessionStart", "UserPromptSubmit", "PreCompact", "Stop",
                                      "SessionEnd"}
    # the same command string in both files: Cursor, which also runs .claude/settings.json,
    # sees one hook per event
    claude_cmds = {g["hooks"][0]["command"] for groups in settings["hooks"].values()
                   for g in groups if "memory_core" in g["hooks"][0]["command"]}
    assert claude_cmds == {hooks[e][-1]["command"] for e in EVENTS}


def test_the_skill_goes_where_both_hosts_read_it_once(project):
    install.install(project, mcp=False)
    skill = project / ".cursor/skills/cursor-memory/SKILL.md"
    text = skill.read_text(encoding="utf-8")
    front = text.split("---")[1]
    assert "\nname: cursor-memory\n" in front and "\ndescription: " in front
    description = re.search(r"\ndescription: (.*)\n", front).group(1)
    assert 1 <= len(description) <= 1024
    for word in (f"{sys.executable} -m memory_core search", "save-fact --type W", "--type B",
                 "--type O", "例", "--supersedes"):
        assert word in text
    assert not (project / ".cursor/skills/cursor-memory/scripts").exists()  # no generated code
    install.install(project, claude=True, mcp=False)  # Claude Code reads only .claude/skills
    assert (project / ".claude/skills/cursor-memory/SKILL.md").read_text(encoding="utf-8") == text
    assert not (project / ".cursor/skills/cursor-memory").exists()  # Cursor reads .claude/skills too


def test_git_settings_and_the_memory_folder(project):
    install.install(project, mcp=False)
    gitignore = (project / ".gitignore").read_text()
    assert gitignore.startswith("node_modules/\n")
    assert ".cursor/skills/memory-data/index.sqlite*" in gitignore
    assert ".cursor/rules/memory-context.mdc" in gitignore
    assert "daily/*.jsonl merge=union" in (project / ".gitattributes").read_text()
    assert (project / ".cursor/skills/memory-data/daily").is_dir()


def test_install_twice_changes_nothing(project):
    install.install(project, claude=True, mcp=True)
    first = snapshot(project)
    install.install(project, claude=True, mcp=True)
    assert snapshot(project) == first


def test_uninstall_removes_exactly_what_install_added(project):
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    before = snapshot(project)
    install.install(project, claude=True, mcp=True)
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["cursor-memory"]["args"] == [
        "-m", "memory_core", "mcp", "--project", str(project)]
    (project / ".cursor/skills/memory-data/MEMORY.md").write_text("# keep me\n")
    install.uninstall(project)
    after = snapshot(project)
    data = {k: v for k, v in after.items() if k.startswith(".cursor/skills/memory-data/")}
    assert ".cursor/skills/memory-data/MEMORY.md" in data  # the memory is the user's
    assert {k: v for k, v in after.items() if k not in data} == before


def test_uninstall_of_a_fresh_install_leaves_only_the_memory(tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    install.install(proj, mcp=True)
    install.uninstall(proj)
    left = [str(p.relative_to(proj)) for p in proj.rglob("*") if p.is_file()]
    assert all(p.startswith(".cursor/skills/memory-data/") for p in left), left


def test_installed_hooks_run(project):
    import os
    import subprocess
    install.install(project, mcp=False)
    cmd = json.loads((project / ".cursor/hooks.json").read_text())["hooks"]["sessionStart"][-1]["command"]
    payload = json.dumps({"hook_event_name": "sessionStart", "conversation_id": "c",
                          "workspace_roots": [str(project)]})
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(cmd, shell=True, cwd=project, input=payload, capture_output=True,
                         text=True, env=env, timeout=60)
    assert out.returncode == 0 and "additional_context" in json.loads(out.stdout)


def hooks_json(command_prefix):
    """A Cursor hooks.json whose commands are `<command_prefix><event>`."""
    return {"version": 1, "hooks": {h.cursor: [dict({"command": command_prefix + h.cursor,
                                                      "timeout": h.timeout}, **h.extra)]
                                    for h in install.HOOKS}}


def test_the_repository_is_its_own_install():
    assert json.loads((ROOT / ".cursor/hooks.json").read_text()) == hooks_json(
        "python3 scripts/hook.py ")
    assert json.loads((ROOT / "hooks.json").read_text()) == hooks_json(
        'python3 "${CURSOR_PLUGIN_ROOT}/scripts/hook.py" ')
    assert (ROOT / ".cursor/skills/cursor-memory/SKILL.md").read_text(encoding="utf-8") == \
        install.skill_text("python3 -m memory_core")


def test_a_broken_hooks_json_is_refused_untouched(tmp_path):
    from memory_core import UserError
    proj = tmp_path / "p"
    (proj / ".cursor").mkdir(parents=True)
    (proj / ".cursor/hooks.json").write_text("{ not json")
    with pytest.raises(UserError, match="not valid JSON"):
        install.install(proj, mcp=False)
    assert (proj / ".cursor/hooks.json").read_text() == "{ not json"


def test_install_refuses_the_root_and_the_home_folder(tmp_path, monkeypatch):
    from memory_core import UserError
    monkeypatch.setenv("HOME", str(tmp_path))
    for where in ("/", tmp_path, tmp_path / "missing"):
        with pytest.raises(UserError):
            install.install(where, mcp=False)
    assert not (tmp_path / ".cursor").exists()


# --- Windows: the strings we generate, checked against how each host runs them -----------------
# Windows cannot run here; these test the exact strings install writes for win32 against the
# rules of docs/hosts.md "Commands on Windows": Cursor runs a command inside PowerShell
# (`Get-Content ... | & { $input | <command> }`), where a command that starts with a quoted
# path is a ParserError and `$NAME` is a PowerShell variable; Claude Code runs shell-form
# commands in Git Bash or PowerShell, so it gets the exec form (no shell).

WIN_PYTHON = r"C:\Users\Zhang Wei\proj\.venv\Scripts\python.exe"


def powershell_command_ok(command: str) -> bool:
    """A PowerShell statement that runs a program: the call operator `&` then a quoted path,
    or a bare word; no variables, no `&&`/`||` (PowerShell 5.1), no line breaks, no URL."""
    if "\n" in command or "\r" in command or "$" in command or "`" in command:
        return False
    if "&&" in command or "||" in command or re.search(r"https?://", command):
        return False
    if command.startswith('"') or command.startswith("'"):
        return False  # an expression, not a command: ParserError on the next token
    m = re.match(r'^& "([^"]+)"((?: [A-Za-z0-9_.-]+)*)$', command)
    return bool(m) or bool(re.match(r"^[A-Za-z0-9_.-]+(?: [A-Za-z0-9_./:-]+)*$", command))


def test_windows_hook_commands_parse_in_powershell(project):
    install.install(project, claude=True, mcp=False, python=WIN_PYTHON, platform="win32")
    hooks = json.loads((project / ".cursor/hooks.json").read_text())["hooks"]
    for event in EVENTS:
        command = hooks[event][-1]["command"]
        assert powershell_command_ok(command), command
        assert command == f'& "{WIN_PYTHON}" -m memory_core hook {event}'
    settings = json.loads((project / ".claude/settings.json").read_text())
    for groups in settings["hooks"].values():
        entry = groups[-1]["hooks"][0]
        if "args" in entry:  # exec form: one argument each, no shell on any platform
            assert entry["command"] == WIN_PYTHON and entry["args"][:3] == ["-m", "memory_core", "hook"]
            assert not any("$" in a or " " in a for a in entry["args"])
    skill = (project / ".claude/skills/cursor-memory/SKILL.md").read_text(encoding="utf-8")
    assert f'& "{WIN_PYTHON}" -m memory_core search' in skill


def test_the_commands_that_break_powershell_are_the_ones_we_reject():
    """The failing shapes reported by others (context-mode#993, superpowers#1751,
    openwolf#77) fail the rule; ours pass it."""
    for bad in ('"C:/node.exe" "C:/x/script.mjs"', '"${CLAUDE_PLUGIN_ROOT}/hooks/run-hook.cmd" session-start',
                "node %CLAUDE_PROJECT_DIR%/x.js", 'python3 "$CLAUDE_PROJECT_DIR"/x.py && echo ok'):
        assert not powershell_command_ok(bad.replace("%", "$")), bad
    assert powershell_command_ok(install.hook_command(WIN_PYTHON, "stop", "win32"))
    assert install.hook_command("/usr/bin/python3", "stop", "linux") == "/usr/bin/python3 -m memory_core hook stop"
    assert install.hook_command("/opt/my py/bin/python", "stop", "linux") == \
        '"/opt/my py/bin/python" -m memory_core hook stop'
