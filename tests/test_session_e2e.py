"""Two Cursor sessions through the real scripts, as subprocesses, the way Cursor runs them.

Session A: start -> the agent saves facts -> stop asks for a save -> the agent saves a
summary -> end. Session B: start has A's facts and summary in its context; search finds them.
"""
import json
import os
import subprocess
import sys

from conftest import ROOT


def hook(event, payload, env):
    out = subprocess.run([sys.executable, str(ROOT / "scripts/hook.py"), event], input=json.dumps(payload),
                         capture_output=True, text=True, env=env, cwd=payload["workspace_roots"][0],
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def agent(script, *args, env):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_two_sessions_remember_each_other(tmp_path):
    project = tmp_path / "orbit"
    project.mkdir()
    env = dict(os.environ, CURSOR_PROJECT_DIR=str(project), HOME=str(tmp_path))
    common = {"model": "claude-sonnet-4", "cursor_version": "3.18.25",
              "workspace_roots": [str(project)], "user_email": None, "transcript_path": None}

    # --- session A ---
    a = dict(common, conversation_id="conv-A", generation_id="gA1")
    start = hook("sessionStart", dict(a, hook_event_name="sessionStart", session_id="conv-A",
                                        is_background_agent=False, composer_mode="agent"), env)
    assert "No memories yet" in start["additional_context"]
    agent("save_fact.py", "--content", "会话缓存使用 Redis，TTL 为 21600 秒", "--type", "W",
          "--entities", "redis,cache", "--session", "conv-A", env=env)
    agent("save_fact.py", "--content", "The user prefers two-space indentation", "--type", "O",
          "--confidence", "0.9", "--session", "conv-A", env=env)
    stop = hook("stop", dict(a, hook_event_name="stop", status="completed",
                                               loop_count=0), env)
    assert stop["followup_message"].startswith("[Session Save]")
    # the agent follows the instructions it was given
    assert "save_summary.py" in stop["followup_message"] or "save-summary" in stop["followup_message"]
    agent("save_summary.py", "--session", "conv-A", "--topic", "会话缓存方案",
          "--summary", "确定用 Redis 做会话缓存，TTL 6 小时；讨论了失效策略和连接池。",
          "--decision", "会话缓存用 Redis", "--todo", "给连接池加监控", env=env)
    again = hook("stop", dict(a, hook_event_name="stop", generation_id="gA2",
                                                status="completed", loop_count=1), env)
    assert again == {}
    assert hook("sessionEnd", dict(a, hook_event_name="sessionEnd", session_id="conv-A",
                                            reason="user_close", duration_ms=600000,
                                            is_background_agent=False,
                                            final_status="completed"), env) == {}

    # --- session B ---
    b = dict(common, conversation_id="conv-B", generation_id="gB1")
    context = hook("sessionStart", dict(b, hook_event_name="sessionStart", session_id="conv-B",
                                          is_background_agent=False, composer_mode="agent"),
                   env)["additional_context"]
    assert "会话缓存使用 Redis，TTL 为 21600 秒" in context
    assert "two-space indentation" in context
    assert "会话缓存方案" in context and "给连接池加监控" in context
    found = json.loads(agent("search_memory.py", "缓存 TTL", "--json", env=env))["results"]
    assert found[0]["content"] == "会话缓存使用 Redis，TTL 为 21600 秒"
    assert found[0]["source_file"] == "facts.jsonl"  # consolidated at the end of session A
    found = json.loads(agent("search_memory.py", "indentation", "--json", env=env))["results"]
    assert "two-space" in found[0]["content"]
    daily = "".join(p.read_text(encoding="utf-8") for p in
                    (project / ".cursor/skills/memory-data/daily").glob("*.jsonl"))
    events = [json.loads(line)["type"] for line in daily.splitlines()]
    assert events.count("session_start") == 2 and events.count("session_end") == 1
