"""Records as docs/formats.md defines them, validated on write; ids that never collide."""
import pytest

from memory_core import Memory, UserError


def test_fact_record_has_the_seed_fields(mem):
    r = mem.save_fact("项目使用 PostgreSQL", memory_type="W", entities=["postgresql"],
                      confidence=1.0, session_id="conv-1")
    assert set(r) >= {"id", "type", "memory_type", "content", "entities", "confidence",
                      "timestamp", "source"}
    assert r["type"] == "fact" and r["memory_type"] == "W" and r["source"] == {"session": "conv-1"}
    assert r["id"].startswith("log-") and r["timestamp"].endswith("Z")


def test_summary_record_has_the_seed_fields(mem):
    r = mem.save_summary("Redis 缓存方案", "讨论了缓存选型。", ["用 Redis"], ["连接池"], session_id="c")
    assert r["id"].startswith("sum-")
    assert (r["topic"], r["decisions"], r["todos"], r["session_id"]) == (
        "Redis 缓存方案", ["用 Redis"], ["连接池"], "c")


def test_ids_saved_in_the_same_second_do_not_collide(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    ids = {mem.save_fact(f"fact {i}")["id"] for i in range(2000)}
    assert len(ids) == 2000
    assert all(i.startswith("log-20261015-120000-") for i in ids)


@pytest.mark.parametrize("kwargs, message", [
    (dict(content="   "), "empty"),
    (dict(content="x" * 4001), "limit"),
    (dict(content="ok", memory_type="X"), "type"),
    (dict(content="ok", confidence=1.5), "confidence"),
    (dict(content="ok", confidence="high"), "confidence"),
    (dict(content="ok", kind="rumour"), "kind"),
    (dict(content="ok", entities=["x" * 200]), "entity"),
])
def test_bad_facts_are_refused_and_nothing_is_written(mem, kwargs, message):
    with pytest.raises(UserError, match=message):
        mem.save_fact(**kwargs)
    assert not any(mem.root.joinpath("daily").iterdir())


def test_daily_file_is_named_by_the_local_day(tmp_path, monkeypatch):
    import time
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T20:00:00Z")  # 04:00 on the 16th in Shanghai
    mem = Memory(tmp_path / "m")
    mem.save_fact("late night fact")
    assert (mem.root / "daily" / "2026-10-16.jsonl").exists()


def test_memory_folder_is_created_private(tmp_path):
    import os
    mem = Memory(tmp_path / "new" / "memory-data")
    assert os.stat(mem.root).st_mode & 0o777 == 0o700
    assert (mem.root / "daily").is_dir()
