"""Each hook fed the payload shapes of docs/hosts.md, for Cursor and for Claude Code."""
import json
import threading

import pytest

from hookutil import call, claude, cursor
from memory_core import Memory


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.delenv("CURSOR_PROJECT_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    proj = tmp_path / "proj"
    proj.mkdir()
    return proj


def mem_of(project):
    return Memory(project / ".cursor/skills/memory-data")


def daily_lines(project):
    out = []
    for p in sorted((project / ".cursor/skills/memory-data/daily").glob("*.jsonl")):
        out += [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()]
    return out


def transcript(path, turns):
    with open(path, "a", encoding="utf-8") as f:
        for role, text in turns:
            wrapped = f"<user_query>\n{text}\n</user_query>" if role == "user" else text
            f.write(json.dumps({"role": role, "message": {"content": [
                {"type": "text", "text": wrapped}]}}, ensure_ascii=False) + "\n")
    return str(path)


# --- sessionStart ------------------------------------------------------------------------

def test_session_start_gives_memory_as_context_and_as_a_rules_file(project):
    mem = mem_of(project)
    (mem.root / "MEMORY.md").write_text("# 核心记忆\n\n## 项目背景\n- 数据库：PostgreSQL 16\n",
                                        encoding="utf-8")
    mem.save_fact("会话缓存使用 Redis", entities=["redis"])
    out = call("sessionStart", cursor("sessionStart", project))
    text = out["additional_context"]
    assert "PostgreSQL 16" in text and "会话缓存使用 Redis" in text
    rules = (project / ".cursor/rules/memory-context.mdc").read_text(encoding="utf-8")
    assert rules.startswith("---\n") and "\nalwaysApply: true\n" in rules
    # the rule is short: MEMORY.md and how to search; the full context is additional_context
    from memory_core.context import RULES_BUDGET
    assert "PostgreSQL 16" in rules and "search_memory.py" in rules
    assert "会话缓存使用 Redis" not in rules and len(rules) < RULES_BUDGET + 300
    starts = [r for r in daily_lines(project) if r["type"] == "session_start"]
    assert len(starts) == 1 and starts[0]["session_id"] == "conv-1"
    assert starts[0]["workspace"] == str(project)


def test_session_start_twice_for_one_event_logs_one_start(project):
    call("sessionStart", cursor("sessionStart", project))
    call("sessionStart", cursor("sessionStart", project))
    assert len([r for r in daily_lines(project) if r["type"] == "session_start"]) == 1


def test_session_start_answers_claude_code_in_its_format(project):
    mem_of(project).save_fact("The API listens on port 3000")
    out = call("sessionStart", claude("SessionStart", project, source="startup"))
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "port 3000" in out["hookSpecificOutput"]["additionalContext"]
    assert "additional_context" not in out


def test_the_project_comes_from_env_then_workspace_roots_then_cwd(project, tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.setenv("CURSOR_PROJECT_DIR", str(other))
    call("sessionStart", cursor("sessionStart", project))
    assert (other / ".cursor/skills/memory-data/daily").is_dir()
    monkeypatch.delenv("CURSOR_PROJECT_DIR")
    call("sessionStart", cursor("sessionStart", project))
    assert (project / ".cursor/skills/memory-data/daily").is_dir()
    third = tmp_path / "third"
    third.mkdir()
    call("sessionStart", claude("SessionStart", third))
    assert (third / ".cursor/skills/memory-data/daily").is_dir()


def test_session_start_never_loads_the_model(project):
    import subprocess
    import sys
    from conftest import ROOT
    payload = json.dumps(cursor("sessionStart", project))
    out = subprocess.run([sys.executable, "-X", "importtime", str(ROOT / "scripts/hook.py"), "sessionStart"],
                         input=payload, capture_output=True, text=True)
    assert out.returncode == 0 and json.loads(out.stdout)["additional_context"]
    imported = {line.split("|")[-1].strip() for line in out.stderr.splitlines() if "|" in line}
    assert not imported & {"numpy", "fastembed", "onnxruntime", "sqlean"}


# --- bad input ---------------------------------------------------------------------------

@pytest.mark.parametrize("raw", [b"", b"   ", b"not json", b"[1, 2]", b"\xef\xbb\xbf{",
                                 b"\xff\xfe\x00garbage"])
@pytest.mark.parametrize("event", ["sessionStart", "preCompact", "stop", "sessionEnd"])
def test_bad_stdin_never_breaks_a_hook(project, monkeypatch, raw, event):
    monkeypatch.chdir(project)
    out = call(event, raw=raw)
    assert out == {} or "additional_context" in out


def test_a_bom_before_the_json_is_accepted(project):
    raw = b"\xef\xbb\xbf" + json.dumps(cursor("sessionStart", project)).encode()
    assert "additional_context" in call("sessionStart", raw=raw)


def test_errors_are_logged_and_answered_with_an_empty_object(project, monkeypatch):
    from memory_core import hooks
    monkeypatch.setitem(hooks.HANDLERS, "stop", lambda *a: 1 / 0)
    assert call("stop", cursor("stop", project, status="completed", loop_count=0)) == {}
    log = (project / ".cursor/skills/memory-data/hooks.log").read_text()
    assert "ZeroDivisionError" in log


# --- preCompact --------------------------------------------------------------------------

def test_pre_compact_archives_new_turns_once_and_marks_flush_pending(project, tmp_path):
    path = transcript(tmp_path / "t.jsonl", [("user", "我们的会话缓存用什么？"),
                                             ("assistant", "决定使用 Redis，TTL 6 小时。")])
    out = call("preCompact", cursor("preCompact", project, transcript_path=path, trigger="auto",
                                    context_usage_percent=85))
    assert "2 turns" in out["user_message"]
    transcript(tmp_path / "t.jsonl", [("user", "那权限缓存呢？")])
    call("preCompact", cursor("preCompact", project, transcript_path=path))
    call("preCompact", cursor("preCompact", project, transcript_path=path))  # nothing new
    lines = [r for r in daily_lines(project) if r["type"] == "transcript"]
    assert [(r["role"], r["content"]) for r in lines] == [
        ("user", "我们的会话缓存用什么？"), ("assistant", "决定使用 Redis，TTL 6 小时。"),
        ("user", "那权限缓存呢？")]
    state = json.loads((project / ".cursor/skills/memory-data/state.json").read_text())
    assert state["conversations"]["conv-1"]["flush_pending"] is True


def test_archived_transcripts_are_searchable_by_type(project, tmp_path):
    path = transcript(tmp_path / "t.jsonl", [("user", "deploy window question"),
                                             ("assistant", "Deploys happen on Thursday evenings")])
    call("preCompact", cursor("preCompact", project, transcript_path=path))
    mem = mem_of(project)
    assert not [h for h in mem.search("Thursday deploys") if h.type == "transcript"]
    hits = mem.search("Thursday deploys", type="transcript")
    assert hits and hits[0].content == "Deploys happen on Thursday evenings"


def test_claude_code_transcripts_keep_text_and_drop_tools(project, tmp_path):
    path = tmp_path / "claude.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "Where do sessions live?"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "Sessions live in Redis."},
            {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "content": "file1"}]}},
        {"type": "summary", "summary": "x"},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = call("preCompact", claude("PreCompact", project, transcript_path=str(path),
                                    trigger="auto", custom_instructions=None))
    from memory_core.hooks import COMPACT_INSTRUCTIONS
    assert out == COMPACT_INSTRUCTIONS  # instructions for the compaction summary, plain text
    got = [(r["role"], r["content"]) for r in daily_lines(project) if r["type"] == "transcript"]
    assert got == [("user", "Where do sessions live?"), ("assistant", "Sessions live in Redis.")]


@pytest.mark.parametrize("where", ["missing", "directory", "outside", "null"])
def test_pre_compact_refuses_bad_transcript_paths(project, tmp_path, where):
    target = {"missing": str(tmp_path / "nope.jsonl"), "directory": str(tmp_path),
              "outside": "/etc/passwd", "null": None}[where]
    assert call("preCompact", cursor("preCompact", project, transcript_path=target)) == {}
    assert not [r for r in daily_lines(project) if r["type"] == "transcript"]
    if where != "null":
        assert "preCompact:" in (project / ".cursor/skills/memory-data/hooks.log").read_text()


def test_two_pre_compacts_at_once_archive_each_turn_once(project, tmp_path):
    path = transcript(tmp_path / "t.jsonl", [("user", f"question {i}") for i in range(200)])
    threads = [threading.Thread(target=call, args=("preCompact", cursor(
        "preCompact", project, transcript_path=path))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = [r["content"] for r in daily_lines(project) if r["type"] == "transcript"]
    assert sorted(lines) == sorted(f"question {i}" for i in range(200))


def test_secrets_in_transcripts_are_redacted_before_they_touch_disk(project, tmp_path):
    path = transcript(tmp_path / "t.jsonl", [("assistant", "export GITHUB_TOKEN=ghp_" + "a1B2" * 9)])
    call("preCompact", cursor("preCompact", project, transcript_path=path))
    raw = "".join(p.read_text() for p in (project / ".cursor/skills/memory-data/daily").glob("*"))
    assert "ghp_a1B2" not in raw and "[REDACTED" in raw


# --- stop --------------------------------------------------------------------------------

def stop(project, **kw):
    kw.setdefault("status", "completed")
    kw.setdefault("loop_count", 0)
    return call("stop", cursor("stop", project, **kw))


def test_stop_asks_once_for_a_summary_and_facts(project):
    out = stop(project)
    msg = out["followup_message"]
    assert msg.startswith("[Session Save]")
    assert "save_summary.py" in msg and "save_fact.py" in msg and "--session conv-1" in msg
    for word in ("W =", "B =", "O =", "language the user writes in"):
        assert word in msg
    assert stop(project, generation_id="gen-2") == {}  # asked already in this conversation


def test_the_follow_ups_own_stop_never_triggers_another(project):
    assert "followup_message" in stop(project)
    assert stop(project, generation_id="gen-2", loop_count=1) == {}


@pytest.mark.parametrize("status", ["aborted", "error"])
def test_stop_says_nothing_unless_the_turn_completed(project, status):
    assert stop(project, status=status) == {}


def test_the_same_stop_event_twice_asks_once(project):
    assert "followup_message" in stop(project, generation_id="g9")
    assert stop(project, generation_id="g9") == {}


def test_a_saved_conversation_is_not_asked_again_until_a_flush(project, tmp_path):
    mem_of(project).save_summary("t", "s", session_id="conv-1")
    assert stop(project) == {}
    path = transcript(tmp_path / "t.jsonl", [("user", "hi")])
    call("preCompact", cursor("preCompact", project, transcript_path=path))
    assert "followup_message" in stop(project, generation_id="gen-3")
    assert stop(project, generation_id="gen-4") == {}


def test_claude_stop_blocks_with_instructions_guarded_by_stop_hook_active(project):
    out = call("stop", claude("Stop", project, stop_hook_active=False,
                              last_assistant_message="Done."))
    assert out["decision"] == "block" and out["reason"].startswith("[Session Save]")
    assert call("stop", claude("Stop", project, stop_hook_active=True)) == {}
    assert call("stop", claude("Stop", project, stop_hook_active=False)) == {}  # our own guard


# --- sessionEnd --------------------------------------------------------------------------

def test_session_end_syncs_consolidates_and_logs_the_end(project):
    mem = mem_of(project)
    mem.save_fact("The API listens on port 3000")
    mem.save_fact("The API listens on port 3000.")
    out = call("sessionEnd", cursor("sessionEnd", project, reason="user_close",
                                    duration_ms=45000, final_status="completed"))
    assert out == {}
    ends = [r for r in daily_lines(project) if r["type"] == "session_end"]
    assert ends[0]["reason"] == "user_close" and ends[0]["duration_ms"] == 45000
    facts = [json.loads(x) for x in (mem.root / "facts.jsonl").read_text().splitlines()]
    assert len(facts) == 1 and len(facts[0]["evidence"]) == 2
    assert mem.stats().pending_vectors == 0
    assert "alwaysApply: true" in (project / ".cursor/rules/memory-context.mdc").read_text()


def test_claude_session_end(project):
    mem_of(project).save_fact("x marks the spot")
    assert call("sessionEnd", claude("SessionEnd", project, reason="prompt_input_exit")) == {}
    assert (mem_of(project).root / "facts.jsonl").exists()


# --- recall on every prompt (beforeSubmitPrompt / UserPromptSubmit) -----------------------------

@pytest.fixture
def remembered(project):
    mem = mem_of(project)
    mem.save_fact("会话缓存用 Redis，TTL 为 21600 秒", entities=["redis"])
    mem.save_fact("The billing service exports invoices as PDF through wkhtmltopdf")
    mem.sync(embed=False)  # as sessionStart leaves it; the next line is new for recall's sync
    mem.save_fact("Kubernetes 部署用 Helm chart，values 按环境拆分")
    return mem


def test_a_prompt_about_a_memory_gets_it_for_that_turn(project, remembered):
    out = call("beforeSubmitPrompt", cursor("beforeSubmitPrompt", project, prompt="how do we export invoices to PDF?"))
    assert out["continue"] is True
    text = out["additional_context"]
    assert "wkhtmltopdf" in text and text.startswith("<cursor-memory data=") and text.endswith(">")
    assert len(text) <= 1500 and text.count("\n- ") <= 3 and "Redis" not in text


def test_claude_code_gets_recall_as_additional_context(project, remembered):
    out = call("beforeSubmitPrompt", claude("UserPromptSubmit", project, prompt="Redis 缓存 TTL 设的多少？"))
    assert "21600" in out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"


@pytest.mark.parametrize("prompt", ["ok", "继续", "thanks!", "好的",
                                    "<task-notification>job 3 finished</task-notification>",
                                    "what is the capital of Mongolia and its population"])
def test_short_unrelated_or_host_prompts_add_nothing(project, remembered, prompt):
    assert call("beforeSubmitPrompt", cursor("beforeSubmitPrompt", project, prompt=prompt)) == {"continue": True}


def test_one_prompt_delivered_twice_recalls_once(project, remembered):
    """Cursor also runs .claude/settings.json hooks: the same event arrives twice."""
    payload = cursor("beforeSubmitPrompt", project, prompt="how do we export invoices to PDF?",
                     generation_id="g-7")
    first = call("beforeSubmitPrompt", payload)
    assert "wkhtmltopdf" in first["additional_context"]
    assert call("beforeSubmitPrompt", payload) == {"continue": True}


def test_memories_already_in_the_conversation_are_not_repeated(project, remembered):
    start = call("sessionStart", cursor("sessionStart", project))
    assert "wkhtmltopdf" in start["additional_context"]  # shown at the start...
    out = call("beforeSubmitPrompt", cursor("beforeSubmitPrompt", project,
                                           prompt="how do we export invoices to PDF?"))
    assert "additional_context" not in out  # ...so not again in this conversation
    other = call("beforeSubmitPrompt", cursor("beforeSubmitPrompt", project, conv="conv-2",
                                             prompt="how do we export invoices to PDF?"))
    assert "wkhtmltopdf" in other["additional_context"]


def test_recall_can_be_switched_off(project, remembered):
    (remembered.root / "config.json").write_text('{"recall": false}')
    assert call("beforeSubmitPrompt", cursor("beforeSubmitPrompt", project,
                                             prompt="how do we export invoices to PDF?")) == {"continue": True}


def test_the_host_is_known_by_its_environment_first(project, remembered, monkeypatch):
    """Cursor runs Claude-format hooks too and sets CURSOR_VERSION: it gets Cursor's answer."""
    monkeypatch.setenv("CURSOR_VERSION", "3.20.17")
    out = call("beforeSubmitPrompt", claude("UserPromptSubmit", project, prompt="how do we export invoices to PDF?"))
    assert "wkhtmltopdf" in out["additional_context"] and out["continue"] is True


def test_claude_pre_compact_answers_in_plain_text():
    import subprocess
    import sys
    from conftest import ROOT
    out = subprocess.run([sys.executable, str(ROOT / "scripts/hook.py"), "preCompact"],
                         input=json.dumps({"hook_event_name": "PreCompact", "session_id": "s",
                                           "cwd": "/tmp", "trigger": "auto"}),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and not out.stdout.startswith("{") and "cursor-memory id" in out.stdout
