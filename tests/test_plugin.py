"""The repository is a valid plugin for Cursor (.cursor-plugin/plugin.json) and Claude Code
(.claude-plugin/plugin.json, marketplace.json), checked against their documented schemas
(docs/hosts.md "Plugins"), and installed that way it gives keyword memory at once: the hooks
and scripts run on the standard library alone."""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from memory_core.install import CLAUDE_EVENTS, CURSOR_EVENTS, HOOKS, command_problems

# cursor.com/schemas/cursor-plugin/plugin.json: required name; additionalProperties false
CURSOR_KEYS = {"name", "displayName", "description", "version", "minClientVersions", "author",
               "publisher", "homepage", "repository", "license", "logo", "keywords", "category",
               "tags", "commands", "agents", "skills", "rules", "hooks", "variables", "mcpServers"}
NAME = re.compile(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$")
SKILL_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def load(rel):
    return json.loads((ROOT / rel).read_text(encoding="utf-8"))


def check_skills(folder: Path):
    skills = [p for p in folder.iterdir() if p.is_dir()]
    assert skills
    for skill in skills:
        text = (skill / "SKILL.md").read_text(encoding="utf-8")
        front = text.split("---")[1]
        name = re.search(r"\nname: (.*)\n", front).group(1).strip()
        description = re.search(r"\ndescription: (.*)\n", front).group(1).strip()
        assert name == skill.name and SKILL_NAME.match(name) and len(name) <= 64
        assert 1 <= len(description) <= 1024


def test_the_cursor_manifest_follows_the_schema():
    manifest = load(".cursor-plugin/plugin.json")
    assert set(manifest) <= CURSOR_KEYS and NAME.match(manifest["name"])
    assert isinstance(manifest["author"], dict) and set(manifest["author"]) <= {"name", "email"}
    hooks = load(manifest["hooks"])
    assert hooks["version"] == 1 and set(hooks["hooks"]) <= CURSOR_EVENTS
    assert set(hooks["hooks"]) == {h.cursor for h in HOOKS}
    for entries in hooks["hooks"].values():
        for entry in entries:
            assert not command_problems(entry["command"])
            assert '"${CURSOR_PLUGIN_ROOT}/scripts/hook.py"' in entry["command"]
    check_skills(ROOT / manifest["skills"])


def test_the_claude_manifest_hooks_and_marketplace_follow_the_docs():
    manifest = load(".claude-plugin/plugin.json")
    assert NAME.match(manifest["name"])
    for key in ("skills", "hooks"):
        assert manifest[key].startswith("./") and (ROOT / manifest[key]).exists()
    hooks = load(manifest["hooks"])["hooks"]
    assert set(hooks) <= CLAUDE_EVENTS and set(hooks) == {h.claude for h in HOOKS}
    for groups in hooks.values():
        for group in groups:
            for hook in group["hooks"]:  # exec form: no shell, no quoting, on every platform
                assert hook["type"] == "command" and hook["command"] == "python3"
                assert hook["args"][0] == "${CLAUDE_PLUGIN_ROOT}/scripts/hook.py"
    assert hooks["SessionEnd"][0]["hooks"][0]["args"][-1] == "--detach"  # 1.5 s for plugins
    market = load(".claude-plugin/marketplace.json")
    assert market["name"] and market["owner"]["name"]
    assert [p["name"] for p in market["plugins"]] == [manifest["name"]]
    assert all(p["source"] == "./" for p in market["plugins"])
    check_skills(ROOT / manifest["skills"])


@pytest.fixture
def plugin(tmp_path):
    """The repository as a host installs a plugin (its tracked files, no virtualenv), and a
    `python3` that sees no site-packages at all (-S -I): only the standard library."""
    root = tmp_path / "plugin"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True).stdout.split()
    for rel in files:
        if rel.startswith(("tests/", "bench/", "docs/")) or not (ROOT / rel).is_file():
            continue
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, root / rel)
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" -S -I "$@"\n')
    (shim / "python3").chmod(stat.S_IRWXU)
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CURSOR_MEMORY", "PYTHON"))}
    env.update(PATH=f"{shim}:{env['PATH']}", HOME=str(tmp_path), CURSOR_PLUGIN_ROOT=str(root),
               CLAUDE_PLUGIN_ROOT=str(root), CURSOR_MEMORY_MODEL="jinaai/jina-embeddings-v2-base-zh")
    return root, project, env


def cursor_hook(root, event):
    entry = json.loads((root / "hooks.json").read_text())["hooks"][event][0]
    return entry["command"]


def test_installed_as_a_cursor_plugin_it_remembers_with_the_standard_library(plugin):
    root, project, env = plugin
    payload = {"conversation_id": "c1", "generation_id": "g1", "workspace_roots": [str(project)]}

    def run(event, **extra):
        out = subprocess.run(cursor_hook(root, event), shell=True, cwd=project, env=env, text=True,
                             capture_output=True, input=json.dumps(dict(payload, hook_event_name=event, **extra)),
                             timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    assert "No memories yet" in run("sessionStart")["additional_context"]
    saved = subprocess.run(["python3", str(root / "scripts/save_fact.py"), "--content",
                            "发票导出用 wkhtmltopdf 生成 PDF"], cwd=project, env=env,
                           capture_output=True, text=True, timeout=60)
    assert saved.returncode == 0, saved.stderr
    recalled = run("beforeSubmitPrompt", prompt="发票导出用什么生成 PDF？", generation_id="g2")
    assert "wkhtmltopdf" in recalled["additional_context"]
    found = subprocess.run(["python3", str(root / "scripts/search_memory.py"), "发票"], cwd=project,
                           env=env, capture_output=True, text=True, timeout=60)
    assert found.returncode == 0 and "wkhtmltopdf" in found.stdout and "keyword" in found.stderr
    assert run("stop", status="completed", loop_count=0)["followup_message"].startswith("[Session Save]")
    assert run("sessionEnd", reason="user_close") == {}
    facts = (project / ".cursor/skills/memory-data/facts.jsonl").read_text(encoding="utf-8")
    assert "wkhtmltopdf" in facts  # consolidated without numpy or fastembed


def test_installed_as_a_claude_plugin_its_exec_form_hooks_run(plugin):
    root, project, env = plugin
    hooks = json.loads((root / ".claude-plugin/hooks.json").read_text())["hooks"]
    entry = hooks["SessionStart"][0]["hooks"][0]
    argv = [entry["command"]] + [a.replace("${CLAUDE_PLUGIN_ROOT}", str(root)) for a in entry["args"]]
    out = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=60,
                         input=json.dumps({"hook_event_name": "SessionStart", "session_id": "s1",
                                           "cwd": str(project), "source": "startup"}))
    assert out.returncode == 0 and "additionalContext" in json.loads(out.stdout)["hookSpecificOutput"]
