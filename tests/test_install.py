"""One-command install into a project, idempotent, merged with the user's settings, and an
uninstall that removes exactly what it added."""
import json
import sys

import pytest

from conftest import ROOT
from memory_core import install


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
    return {str(p.relative_to(proj)): p.read_bytes() for p in sorted(proj.rglob("*")) if p.is_file()}


def test_install_merges_hooks_keeping_the_users_own(project):
    install.install(project, claude=True)
    hooks = json.loads((project / ".cursor/hooks.json").read_text())["hooks"]
    assert hooks["afterFileEdit"] == [{"command": "npx prettier --write"}]
    assert hooks["stop"][0] == {"command": "./my-own-stop.sh"}
    ours = hooks["stop"][1]
    assert ours["loop_limit"] == 1 and ours["timeout"] == 10
    assert ours["command"].startswith(f'"{sys.executable}" ')  # absolute interpreter
    assert ours["command"].endswith(".cursor/skills/cursor-memory/scripts/prompt_session_save.py")
    for event in ("sessionStart", "preCompact", "sessionEnd"):
        assert len(hooks[event]) == 1
    settings = json.loads((project / ".claude/settings.json").read_text())
    assert settings["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert len(settings["hooks"]["Stop"]) == 2
    assert set(settings["hooks"]) == {"SessionStart", "PreCompact", "Stop", "SessionEnd"}


def test_install_writes_the_skill_scripts_and_git_settings(project):
    install.install(project)
    skill = (project / ".cursor/skills/cursor-memory/SKILL.md").read_text(encoding="utf-8")
    front = skill.split("---")[1]
    assert "\nname: cursor-memory\n" in front and "\ndescription: " in front
    for word in ("search_memory.py", "save_fact.py", "--type W", "--type B", "--type O", "例"):
        assert word in skill
    scripts = project / ".cursor/skills/cursor-memory/scripts"
    assert {p.name for p in scripts.iterdir()} == set(install.SCRIPTS)
    gitignore = (project / ".gitignore").read_text()
    assert gitignore.startswith("node_modules/\n")
    assert ".cursor/skills/memory-data/index.sqlite*" in gitignore
    assert ".cursor/rules/memory-context.mdc" in gitignore
    assert "daily/*.jsonl merge=union" in (project / ".gitattributes").read_text()
    assert (project / ".cursor/skills/memory-data/daily").is_dir()


def test_install_twice_changes_nothing(project):
    install.install(project, claude=True)
    first = snapshot(project)
    install.install(project, claude=True)
    assert snapshot(project) == first


def test_uninstall_removes_exactly_what_install_added(project):
    before = snapshot(project)
    install.install(project, claude=True)
    (project / ".cursor/skills/memory-data/MEMORY.md").write_text("# keep me\n")
    install.uninstall(project)
    after = snapshot(project)
    data = {k: v for k, v in after.items() if k.startswith(".cursor/skills/memory-data/")}
    assert ".cursor/skills/memory-data/MEMORY.md" in data  # the memory is the user's
    assert {k: v for k, v in after.items() if k not in data} == before


def test_uninstall_of_a_fresh_install_leaves_only_the_memory(tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    install.install(proj)
    install.uninstall(proj)
    assert [str(p.relative_to(proj)) for p in proj.rglob("*") if p.is_file()] == []


def test_installed_hooks_run(project, tmp_path):
    import subprocess
    install.install(project)
    cmd = json.loads((project / ".cursor/hooks.json").read_text())["hooks"]["sessionStart"][0]["command"]
    payload = json.dumps({"hook_event_name": "sessionStart", "conversation_id": "c",
                          "workspace_roots": [str(project)]})
    import os
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(cmd, shell=True, cwd=project, input=payload, capture_output=True,
                         text=True, env=env, timeout=60)
    assert out.returncode == 0 and "additional_context" in json.loads(out.stdout)


def test_the_repository_uses_its_own_template():
    template = install.template()
    assert json.loads((ROOT / "hooks.json").read_text()) == template
    assert json.loads((ROOT / ".cursor/hooks.json").read_text()) == template
    assert (ROOT / ".cursor/skills/cursor-memory/SKILL.md").read_text(encoding="utf-8") == \
        install.skill_text("python3 scripts/")
    for name in install.SCRIPTS:
        assert (ROOT / "scripts" / name).read_text() == install.script_text(name), name


def test_a_broken_hooks_json_is_refused_untouched(tmp_path):
    from memory_core import MemoryError
    proj = tmp_path / "p"
    (proj / ".cursor").mkdir(parents=True)
    (proj / ".cursor/hooks.json").write_text("{ not json")
    with pytest.raises(MemoryError, match="not valid JSON"):
        install.install(proj)
    assert (proj / ".cursor/hooks.json").read_text() == "{ not json"
