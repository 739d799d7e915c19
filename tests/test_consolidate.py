"""Daily lines and decisions → facts.jsonl: one fact per fact, evidence kept, ids stable,
append-only with atomic compaction; retention that never drops an unconsolidated day."""
import json
import multiprocessing
import os

from memory_core import Memory, jsonl
from memory_core.consolidate import compact_if_needed, fact_id, read_facts


def facts(mem):
    return list(read_facts(mem.root).values())


def test_the_same_fact_saved_twice_becomes_one_fact_with_both_as_evidence(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-01T09:00:00Z")
    a = mem.save_fact("项目使用 PostgreSQL 16", entities=["postgresql"])
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-03T09:00:00Z")
    b = mem.save_fact("项目使用 PostgreSQL 16。", entities=["database"], confidence=0.9)
    report = mem.consolidate()
    assert (report.new, report.merged) == (1, 1)
    [f] = facts(mem)
    assert f["id"] == fact_id(a["id"])  # from its first line: ids are never reused
    assert f["evidence"] == [a["id"], b["id"]]
    assert f["entities"] == ["postgresql", "database"]
    assert (f["created_at"], f["updated_at"]) == ("2026-10-01T09:00:00Z", "2026-10-03T09:00:00Z")
    assert f["type"] == "W" and f["source"]["id"] == a["id"]


def test_consolidation_is_idempotent(mem):
    mem.save_fact("a fact")
    mem.consolidate()
    size = (mem.root / "facts.jsonl").stat().st_size
    assert mem.consolidate().new == 0
    assert (mem.root / "facts.jsonl").stat().st_size == size


def test_session_decisions_become_facts(mem):
    s = mem.save_summary("t", "s", decisions=["会话缓存用 Redis", "TTL 6 小时"])
    mem.consolidate()
    got = {f["content"]: f for f in facts(mem)}
    assert set(got) == {"会话缓存用 Redis", "TTL 6 小时"}
    assert got["会话缓存用 Redis"]["evidence"] == [f"{s['id']}#d1"]
    assert got["会话缓存用 Redis"]["type"] == "S"


def test_near_duplicates_merge_by_embedding_above_the_threshold(mem):
    mem.save_fact("The local Postgres listens on port 5433 because Homebrew uses 5432")
    mem.save_fact("Local Postgres uses port 5433 since Homebrew's Postgres already takes 5432")
    mem.sync()
    assert mem.consolidate().new == 2  # 0.95 default: a paraphrase is kept apart
    (mem.root / "facts.jsonl").unlink()
    (mem.root / "config.json").write_text('{"dedup_threshold": 0.8}')
    report = Memory(mem.root).consolidate()
    assert (report.new, report.merged) == (1, 1)


def test_different_numbers_are_never_the_same_fact(mem):
    (mem.root / "config.json").write_text('{"dedup_threshold": 0.5}')
    mem.save_fact("Redis cache TTL is 3600 seconds")
    mem.save_fact("Redis cache TTL is 86400 seconds")
    mem.sync()
    assert mem.consolidate().new == 2


def test_search_shows_the_fact_once_after_consolidation(mem):
    mem.save_fact("API 默认监听 3000 端口")
    mem.save_fact("API 默认监听 3000 端口！")
    mem.consolidate()
    hits = mem.search("3000 端口")
    assert len(hits) == 1 and hits[0].source_file == "facts.jsonl" and len(hits[0].evidence) == 2


def test_compaction_folds_versions_atomically_and_keeps_every_fact(mem):
    path = mem.root / "facts.jsonl"
    base = {"type": "W", "entities": [], "confidence": 1.0, "created_at": "2026-10-01T00:00:00Z"}
    for version in range(30):
        jsonl.append(path, [dict(base, id=f"fact-{i}", content=f"fact {i} v{version}",
                                 updated_at=f"2026-10-01T00:00:{version:02d}Z") for i in range(5)])
    mem.sync()
    assert compact_if_needed(mem.root)
    lines = path.read_text().splitlines()
    assert len(lines) == 5 and all(json.loads(x)["content"].endswith("v29") for x in lines)
    assert mem.sync().upserted == 0  # the same facts, re-read from the new file
    assert {h.content for h in mem.search("fact", limit=10)} == {f"fact {i} v29" for i in range(5)}


def _append_many(path, n):
    for i in range(n):
        jsonl.append(path, {"id": f"w{os.getpid()}-{i}", "type": "W", "content": f"c{i}",
                            "created_at": "2026-10-01T00:00:00Z", "updated_at": "2026-10-01T00:00:00Z"})


def test_appends_racing_a_compaction_are_not_lost(mem):
    path = mem.root / "facts.jsonl"
    jsonl.append(path, [{"id": "old", "type": "W", "content": f"v{i}"} for i in range(100)])
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_append_many, args=(path, 300)) for _ in range(3)]
    for p in procs:
        p.start()
    for _ in range(30):
        compact_if_needed(mem.root, force=True)
    for p in procs:
        p.join()
    compact_if_needed(mem.root, force=True)
    ids = [json.loads(x)["id"] for x in path.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 1 + 3 * 300


def test_retention_prunes_old_consolidated_days_only(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-06-01T12:00:00Z")
    mem.save_fact("old and consolidated")
    mem.log_event("session_start", session_id="x")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-06-02T12:00:00Z")
    mem.consolidate()
    mem.save_fact("old and not consolidated yet")
    mem.save_summary("t", "s")
    (mem.root / "MEMORY.md").write_text("# m\n")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    mem.save_fact("recent")
    r = mem.prune()
    pruned, kept = r.pruned, r.kept
    assert pruned == ["2026-06-01.jsonl"] and kept == ["2026-06-02.jsonl"]
    assert {p.name for p in (mem.root / "daily").iterdir()} == {"2026-06-02.jsonl", "2026-10-15.jsonl"}
    for name in ("facts.jsonl", "sessions.jsonl", "MEMORY.md"):
        assert (mem.root / name).exists()
    assert [f["content"] for f in facts(mem)] == ["old and consolidated"]


def test_retention_keeps_the_only_copy_of_a_value_replaced_before_consolidation(mem, monkeypatch):
    """A line superseded before any consolidation is never folded into facts.jsonl (only
    visible lines are), so its day file is the only copy of what was true then: retention
    deleted it as 'settled', and "最早 TTL 是多少" lost its answer (found by a hostile review)."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-01-05T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 是 3600 秒")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-01-06T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    mem.consolidate()
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-05-01T10:00:00Z")
    assert "2026-01-05.jsonl" in mem.prune().kept
    mem.rebuild(embed=False)
    assert v1["id"] in [h.id for h in mem.search("最早 Redis 缓存 TTL 是多少", mode="fts")]


def test_retention_is_configurable(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-01T12:00:00Z")
    mem.save_fact("ten days old")
    mem.consolidate()
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-11T12:00:00Z")
    assert (mem.prune().pruned, mem.prune().kept) == ([], [])
    (mem.root / "config.json").write_text('{"retention_days": 7}')
    assert mem.prune().pruned == ["2026-10-01.jsonl"]


def test_values_that_differ_only_in_a_decimal_point_are_two_facts(mem, monkeypatch):
    """Exact duplicates were spotted with all punctuation removed, so "1.5 秒" and "15 秒"
    were one fact showing the first line's text: forgetting the wrong value left it on
    show (found by a second hostile review)."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-01T10:00:00Z")
    wrong = mem.save_fact("接口超时设置为 1.5 秒")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-02T10:00:00Z")
    mem.save_fact("接口超时设置为 15 秒")
    assert len(mem.search("接口超时", mode="fts")) == 2
    mem.consolidate()
    mem.forget(wrong["id"], reason="记错了，是 15 秒")
    mem.consolidate()
    assert [h.content for h in mem.search("接口超时", mode="fts")] == ["接口超时设置为 15 秒"]
