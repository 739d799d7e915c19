"""Run a hook in-process the way Cursor or Claude Code would: JSON in, JSON out."""
import io
import json

from memory_core import hooks





def call(event, payload=None, raw=None):
    data = raw if raw is not None else json.dumps(payload or {}).encode("utf-8")
    out = io.StringIO()
    code = hooks.run(event, stdin=io.BytesIO(data), stdout=out)
    assert code == 0
    text = out.getvalue()
    if not text.startswith("{"):  # Claude Code's PreCompact answers in plain text
        return text.strip()
    assert text.endswith("\n") and len(text.strip().splitlines()) == 1
    return json.loads(text)


def cursor(event, project, conv="conv-1", **fields):
    """A Cursor payload (docs/hosts.md) for `event`."""
    base = {"conversation_id": conv, "generation_id": fields.pop("generation_id", "gen-1"),
            "model": "claude-sonnet-4", "hook_event_name": event, "cursor_version": "3.18.25",
            "workspace_roots": [str(project)], "user_email": "me@example.com",
            "transcript_path": None}
    if event in ("sessionStart", "sessionEnd"):
        base.update(session_id=conv, is_background_agent=False)
    if event == "sessionStart":
        base["composer_mode"] = "agent"
    base.update(fields)
    return base


def claude(event, project, session="sess-1", **fields):
    """A Claude Code payload (docs/hosts.md) for `event`."""
    base = {"session_id": session, "transcript_path": fields.pop("transcript_path", None),
            "cwd": str(project), "hook_event_name": event, "permission_mode": "default"}
    base.update(fields)
    return base
