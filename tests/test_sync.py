"""Files → index: incremental, idempotent, rebuildable, and embeddings only for what changed."""
import json
import os
import sqlite3

import pytest

from memory_core import Memory


def rows(mem):
    db = sqlite3.connect(mem.root / "index.sqlite")
    try:
        return sorted(db.execute(
            "SELECT id, content, type, memory_type, entities, confidence, source_file, "
            "timestamp, section, evidence, hash FROM chunks"))
    finally:
        db.close()


def fts_rows(mem, term):
    db = sqlite3.connect(mem.root / "index.sqlite")
    try:
        return db.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
                          (f'"{term}"',)).fetchone()[0]
    finally:
        db.close()


# What `filled` indexes: 20 facts, 2 MEMORY.md sections, 1 summary, and the summary's two
# lines as parts (sync.parts: long records are also indexed by their lines).
ROWS = 25


@pytest.fixture
def filled(mem):
    for i in range(20):
        mem.save_fact(f"事实 {i}: service-{i} 使用端口 {3000 + i}", entities=[f"svc{i}"])
    mem.save_summary("部署", "上线了 v1.0", ["用 Helm"], [])
    (mem.root / "MEMORY.md").write_text("# 记忆\n\n## 偏好\n- 中文回复\n\n## 背景\n- Orbit 项目\n",
                                        encoding="utf-8")
    return mem


def test_sync_is_idempotent(filled):
    first = filled.sync()
    assert first.upserted == ROWS and first.embedded == ROWS
    again = filled.sync()
    assert (again.upserted, again.removed, again.embedded) == (0, 0, 0)


def test_deleting_the_index_gives_the_same_rows_and_results(filled):
    filled.sync()
    filled.save_fact("后来加的事实 added later")
    filled.sync()
    before = rows(filled)
    results = [h.to_dict() for h in filled.search("端口 3005 service", limit=5)]
    os.unlink(filled.root / "index.sqlite")
    fresh = Memory(filled.root)
    fresh.sync()
    assert rows(fresh) == before
    assert [h.to_dict() for h in fresh.search("端口 3005 service", limit=5)] == results


def test_appended_lines_are_read_from_where_the_last_sync_stopped(filled):
    filled.sync()
    filled.save_fact("one more")
    report = filled.sync()
    assert (report.files, report.upserted, report.embedded) == (1, 1, 1)


def test_a_rewritten_file_is_reread_and_vanished_rows_removed(filled):
    facts = filled.root / "facts.jsonl"
    recs = [{"id": f"fact-{i}", "type": "W", "content": f"fact number {i}", "entities": [],
             "confidence": 1.0, "created_at": "2026-10-01T00:00:00Z",
             "updated_at": "2026-10-01T00:00:00Z"} for i in range(3)]
    facts.write_text("".join(json.dumps(r) + "\n" for r in recs))
    filled.sync()
    # compaction: a new file renamed over the old one, without fact-1
    tmp = filled.root / "facts.jsonl.tmp"
    tmp.write_text(json.dumps(recs[0]) + "\n" + json.dumps(recs[2]) + "\n")
    os.replace(tmp, facts)
    report = filled.sync()
    assert report.removed == 1
    assert {r[0] for r in rows(filled) if r[6] == "facts.jsonl"} == {"fact-0", "fact-2"}


def test_a_file_rewritten_in_place_with_other_content_is_reread(filled):
    filled.sync()
    path = next((filled.root / "daily").iterdir())
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[1:]) + "\n")  # shrank, same inode
    assert filled.sync().removed == 1


def test_a_warm_process_skips_a_sync_only_when_no_source_changed(filled, monkeypatch):
    from memory_core import sync
    monkeypatch.setattr(sync, "RACY_NS", 0)  # trust stamps at once (else: 2 s after a write)
    filled.sync()
    filled.sync()  # the first one made the index file: its stamp is the one to keep
    calls = []
    real = sync.sync_text
    monkeypatch.setattr(sync, "sync_text", lambda *a, **k: calls.append(1) or real(*a, **k))
    filled.sync()
    assert calls == []  # nothing changed: no sync, not even a connection
    filled.save_fact("appended meanwhile by a hook")
    assert filled.sync().upserted == 1 and calls == [1]
    path = next((filled.root / "daily").iterdir())
    os.replace(path, path.with_suffix(".old"))  # pruned
    assert filled.sync().removed > 0
    os.unlink(filled.root / "index.sqlite")  # deleted under a warm process: rebuilt, not skipped
    assert [h.id for h in filled.search("appended meanwhile")] != []


def test_a_same_size_rewrite_right_after_a_sync_is_not_skipped(filled):
    filled.sync()
    path = filled.daily_path()
    text = path.read_text()
    path.write_text(text.replace("端口 3005", "端口 3999"))  # same size, same inode, same tick
    assert [h.content for h in filled.search("3999", mode="fts")][0].endswith("3999")


def test_later_versions_of_a_fact_replace_earlier_ones(mem):
    base = {"id": "fact-x", "type": "W", "entities": [], "confidence": 1.0,
            "created_at": "2026-10-01T00:00:00Z"}
    with open(mem.root / "facts.jsonl", "a") as f:
        f.write(json.dumps(dict(base, content="TTL is 3600", updated_at="2026-10-01T00:00:00Z")) + "\n")
    mem.sync()
    with open(mem.root / "facts.jsonl", "a") as f:
        f.write(json.dumps(dict(base, content="TTL is 21600", updated_at="2026-10-02T00:00:00Z")) + "\n")
    report = mem.sync()
    assert report.upserted == 1 and report.embedded == 1
    assert [r[1] for r in rows(mem)] == ["TTL is 21600"]
    assert fts_rows(mem, "3600") == 0 and fts_rows(mem, "21600") == 1


def test_a_pruned_daily_file_takes_its_rows_with_it(filled):
    filled.sync()
    os.unlink(next((filled.root / "daily").iterdir()))
    assert filled.sync().removed == 20
    assert {r[6] for r in rows(filled)} == {"sessions.jsonl", "MEMORY.md"}


def test_editing_memory_md_re_embeds_only_the_changed_chunks(filled):
    filled.sync()
    md = filled.root / "MEMORY.md"
    md.write_text(md.read_text(encoding="utf-8").replace("Orbit 项目", "Orbit 项目，看板 SaaS"),
                  encoding="utf-8")
    report = filled.sync()
    assert (report.upserted, report.embedded, report.removed) == (1, 1, 0)


def test_malformed_lines_are_skipped_and_the_rest_syncs(mem, caplog):
    path = mem.daily_path()
    mem.save_fact("good one")
    with open(path, "a") as f:
        f.write("not json\n")
        f.write(json.dumps({"id": "x", "type": "fact", "timestamp": "2026-01-01T00:00:00Z"}) + "\n")
        f.write(json.dumps({"id": "y", "type": "fact", "content": "bad confidence",
                            "confidence": 7, "timestamp": "2026-01-01T00:00:00Z"}) + "\n")
        f.write(json.dumps({"id": "z", "type": "fact", "content": "bad time",
                            "timestamp": "yesterday"}) + "\n")
    mem.save_fact("good two")
    report = mem.sync(embed=False)
    assert report.upserted == 2
    name = f"daily/{path.name}"
    assert [s.split(": ")[0] for s in report.skipped] == [f"{name}:2", f"{name}:3", f"{name}:4", f"{name}:5"]
    assert "skipped daily/" in caplog.text
    assert mem.sync(embed=False).skipped == []  # reported once, not on every sync


def test_an_index_from_another_tokenizer_version_is_rebuilt_keeping_vectors(filled, caplog):
    filled.sync()
    db = sqlite3.connect(filled.root / "index.sqlite")
    db.execute("UPDATE meta SET value='0' WHERE key='tokenizer_version'")
    db.commit()
    db.close()
    assert filled.search("端口", limit=1)
    assert "rebuilding" in caplog.text
    assert filled.sync().embedded == 0  # vectors were carried over, not recomputed
    assert filled.stats().pending_vectors == 0


@pytest.mark.parametrize("damage", ["garbage", "truncate", "empty"])
def test_a_damaged_index_is_rebuilt_from_the_files(filled, damage, capsys):
    filled.sync()
    path = filled.root / "index.sqlite"
    for extra in ("-wal", "-shm"):
        if os.path.exists(str(path) + extra):
            os.unlink(str(path) + extra)
    if damage == "garbage":
        path.write_bytes(os.urandom(50_000))
    elif damage == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
    else:
        path.write_bytes(b"")
    hits = filled.search("service-7", limit=1)
    assert hits and "service-7" in hits[0].content
    assert len(rows(filled)) == ROWS


def test_changing_the_model_re_embeds_everything(filled, monkeypatch, caplog):
    filled.sync()
    db = sqlite3.connect(filled.root / "index.sqlite")
    db.execute("UPDATE meta SET value='some/other-model' WHERE key='embedding_model'")
    db.commit()
    db.close()
    assert Memory(filled.root).sync().embedded == ROWS
    assert "re-embedding" in caplog.text
