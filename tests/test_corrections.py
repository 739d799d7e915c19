"""Corrections without rewriting history: forget and supersede append records; search, the
session context, consolidation and a rebuild from scratch all honour them."""
import json
import os

import pytest

from memory_core import Memory, UserError
from memory_core.consolidate import read_facts

from storeutil import at, ids


def lines(mem):
    return [json.loads(x) for p in sorted((mem.root / "daily").glob("*.jsonl"))
            for x in p.read_text(encoding="utf-8").splitlines()]


def test_a_forgotten_fact_disappears_from_search_and_context(mem):
    wrong = mem.save_fact("部署窗口是周五晚上")
    mem.save_fact("Grafana 看板在 infra 仓库")
    assert ids(mem.search("部署窗口", mode="fts")) == [wrong["id"]]
    before = [json.dumps(r, sort_keys=True) for r in lines(mem)]
    tomb = mem.forget(wrong["id"], reason="记错了，是周四")
    after = [json.dumps(r, sort_keys=True) for r in lines(mem)]
    assert after[:len(before)] == before  # nothing edited: one line appended
    assert lines(mem)[-1] == tomb and tomb["target"] == wrong["id"] and tomb["type"] == "forget"
    assert wrong["id"] not in ids(mem.search("部署窗口"))
    assert "周五晚上" not in mem.session_context().text
    old = mem.search("部署窗口", history=True)
    assert old[0].id == wrong["id"] and old[0].status == "forgotten"


def test_a_superseded_fact_gives_way_to_its_newest_version(mem):
    v1 = mem.save_fact("Redis 缓存 TTL 是 3600 秒")
    v2 = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    v3 = mem.save_fact("Redis 缓存 TTL 改成 21600 秒", supersedes=v2["id"])
    assert ids(mem.search("Redis 缓存 TTL", mode="fts")) == [v3["id"]]
    chain = {h.id: (h.status, h.superseded_by)
             for h in mem.search("Redis 缓存 TTL", history=True, mode="fts")}
    assert chain == {v3["id"]: ("active", None), v2["id"]: ("superseded", v3["id"]),
                     v1["id"]: ("superseded", v2["id"])}
    context = mem.session_context().text
    assert "21600" in context and "3600 秒" not in context and "86400" not in context


def test_a_question_about_a_past_time_finds_what_was_true_then(mem, monkeypatch):
    """A superseded record was true until it was replaced: "what was the TTL before the
    launch" / "上周" find it (marked superseded); "what is it" alone, and a forgotten record
    in any question, do not. Default search: hybrid, the real offline model."""
    at(monkeypatch, "2026-09-21T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    wrong = mem.save_fact("Redis 缓存 TTL 设成 60 秒")
    mem.forget(wrong["id"], reason="记错了")
    at(monkeypatch, "2026-09-28T10:00:00Z")
    mem.save_fact("launch day: the new site went live")
    at(monkeypatch, "2026-09-29T10:00:00Z")
    v2 = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-10-02T10:00:00Z")
    assert v1["id"] not in ids(mem.search("Redis 缓存 TTL 是多少"))
    for question in ("上周 Redis 缓存 TTL 是多少", "Redis 缓存 TTL before the launch?",
                     "上线前一天 Redis 缓存 TTL 是多少"):
        hits = {h.id: h for h in mem.search(question)}
        assert hits[v1["id"]].status == "superseded", question
        assert hits[v1["id"]].superseded_by == v2["id"]
        assert wrong["id"] not in hits, question


def test_a_question_about_back_then_finds_what_was_true_then(mem, monkeypatch):
    """"当时", "那阵子", "back then" name a past time without its day: the value replaced
    since answers it, as it does for "上周" (it was hidden: only a named day or event let a
    replaced value back in). "到时候" and "当时间到了" name no past."""
    at(monkeypatch, "2026-09-21T10:00:00Z")
    v1 = mem.save_fact("离线判定从 3 分钟放宽到 10 分钟，隧道里假离线太多")
    at(monkeypatch, "2026-10-05T10:00:00Z")
    v2 = mem.save_fact("离线判定从 10 分钟改回 5 分钟", supersedes=v1["id"])
    for question in ("当时因为隧道假离线，离线判定放宽到了多少", "隧道假离线那阵子离线判定是几分钟",
                     "what was the offline cutoff back then, with the tunnels? 离线判定"):
        hits = {h.id: h for h in mem.search(question)}
        assert hits[v1["id"]].status == "superseded" and v2["id"] in hits, question
    for question in ("离线判定放宽到了多少", "到时候离线判定放宽到多少", "当时间到了离线判定放宽到多少"):
        assert v1["id"] not in ids(mem.search(question)), question


def test_a_question_about_now_puts_the_current_value_first_and_marks_what_it_replaced(
        mem, monkeypatch):
    """"Redis 缓存 TTL 现在是多少" / "still": the current value first; the values it replaced
    come too, marked superseded (the history a "还是 X 吗" asks about, issue #16's
    latest-value questions), and are never the first hit, however well they match. A
    question that names no time still shows only the current value; a forgotten record
    shows in neither."""
    at(monkeypatch, "2026-09-21T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    wrong = mem.save_fact("Redis 缓存 TTL 设成 60 秒")
    mem.forget(wrong["id"], reason="记错了")
    at(monkeypatch, "2026-09-29T10:00:00Z")
    v2 = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-10-02T10:00:00Z")
    v3 = mem.save_fact("缓存过期时间改成 21600 秒", entities=["redis"], supersedes=v2["id"])
    at(monkeypatch, "2026-10-05T10:00:00Z")
    for question in ("Redis 缓存 TTL 现在是多少", "Is the TTL still 86400 秒 on the Redis 缓存?",
                     "what is the Redis 缓存 TTL now?"):
        for mode in ("fts", "hybrid"):
            hits = mem.search(question, mode=mode)
            assert hits[0].status == "active", (question, mode, hits[0].content)
            found = {h.id: h for h in hits}
            assert found[v2["id"]].status == "superseded", (question, mode)
            assert found[v2["id"]].superseded_by == v3["id"]
            assert found[v1["id"]].superseded_by == v2["id"]
            assert wrong["id"] not in found, (question, mode)
    assert ids(mem.search("Redis 缓存 TTL 是多少", mode="fts")) == [v3["id"]]


def test_unknown_ids_are_refused_and_nothing_is_written(mem):
    mem.save_fact("x")
    n = len(lines(mem))
    with pytest.raises(UserError, match="no memory has the id"):
        mem.forget("log-20990101-000000-0000000000")
    with pytest.raises(UserError, match="no memory has the id"):
        mem.save_fact("y", supersedes="fact-doesnotexist")
    with pytest.raises(UserError, match="MEMORY.md is yours"):
        mem.forget("MEMORY.md#偏好")
    assert len(lines(mem)) == n


def test_forget_and_supersede_from_the_command_line(cli, mem):
    a = mem.save_fact("the staging host is staging.old.example.com")
    out = cli("save_fact.py", "--content", "the staging host is staging.orbit.example.com",
              "--supersedes", a["id"], "--memory-dir", mem.root, "--json")
    assert out.returncode == 0, out.stderr
    b = json.loads(out.stdout)
    assert b["supersedes"] == a["id"]
    forget = cli("cursor-memory", "forget", b["id"], "--reason", "host retired",
                 "--memory-dir", mem.root)
    assert forget.returncode == 0 and "forgot" in forget.stdout
    assert ids(mem.search("staging host", mode="fts")) == []
    bad = cli("save_fact.py", "--content", "x", "--supersedes", "nope", "--memory-dir", mem.root)
    assert bad.returncode == 2 and "no memory has the id" in bad.stderr


def test_consolidation_honours_forget_and_supersede(mem):
    keep = mem.save_fact("API 默认监听 3000 端口")
    gone = mem.save_fact("前端用 Redux Toolkit")
    old = mem.save_fact("ORM 用 Prisma")
    mem.consolidate()
    mem.forget(gone["id"])
    new = mem.save_fact("ORM 从 Prisma 换成 Drizzle", supersedes=old["id"])
    mem.consolidate()
    facts = {f["content"]: f for f in read_facts(mem.root).values()}
    assert facts["API 默认监听 3000 端口"].get("status", "active") == "active"
    assert facts["前端用 Redux Toolkit"]["status"] == "forgotten"
    assert facts["ORM 用 Prisma"]["status"] == "superseded"
    assert facts["ORM 用 Prisma"]["superseded_by"] == facts["ORM 从 Prisma 换成 Drizzle"]["id"]
    assert facts["ORM 从 Prisma 换成 Drizzle"]["supersedes"] == facts["ORM 用 Prisma"]["id"]
    assert mem.consolidate().new == 0  # idempotent
    shown = ids(mem.search("ORM Prisma Drizzle Redux 端口"))
    assert facts["ORM 从 Prisma 换成 Drizzle"]["id"] in shown
    for hidden in (gone["id"], old["id"], facts["ORM 用 Prisma"]["id"], facts["前端用 Redux Toolkit"]["id"]):
        assert hidden not in shown
    assert keep["id"] in str([h.evidence for h in mem.search("3000 端口")])
    assert new["id"] in str([h.evidence for h in mem.search("Drizzle")])


def test_forgetting_a_consolidated_fact_hides_the_lines_it_came_from(mem):
    a = mem.save_fact("部署在阿里云 ACK")
    b = mem.save_fact("部署在阿里云 ACK。")
    mem.consolidate()
    fact = next(iter(read_facts(mem.root)))
    assert ids(mem.search("阿里云 ACK", mode="fts")) == [fact]
    mem.forget(fact)
    assert mem.search("阿里云 ACK", mode="fts") == []
    assert set(ids(mem.search("阿里云 ACK", history=True))) >= {fact}
    assert a["id"] and b["id"]


def test_corrections_survive_a_rebuild_from_scratch(mem):
    v1 = mem.save_fact("the deploy window is Friday evening")
    v2 = mem.save_fact("the deploy window is Thursday evening", supersedes=v1["id"])
    wrong = mem.save_fact("the on-call phone is 555-0100")
    mem.forget(wrong["id"])
    mem.consolidate()
    expected = ids(mem.search("deploy window on-call phone"))
    os.unlink(mem.root / "index.sqlite")
    fresh = Memory(mem.root)
    assert ids(fresh.search("deploy window on-call phone")) == expected
    assert v1["id"] not in str(expected) and wrong["id"] not in str(expected)
    assert any(v2["id"] in h.evidence for h in fresh.search("deploy window"))
    fresh.rebuild()
    assert ids(Memory(mem.root).search("deploy window on-call phone")) == expected


def test_forgetting_a_consolidated_summary_hides_the_facts_of_its_decisions(mem, monkeypatch):
    """A fact made from a summary's decision has evidence "sum-X#d1", not "sum-X": forgotten
    after consolidation, the summary took nothing with it, and the decision stayed in every
    search, past-time questions and a rebuild included (found by a hostile review).
    Forgotten before consolidation the decision is never folded in: both orders agree now."""
    at(monkeypatch, "2026-10-10T10:00:00Z")
    s = mem.save_summary("数据库迁移", "讨论了迁移方案", decisions=["迁移窗口定在周六凌晨"])
    at(monkeypatch, "2026-10-10T11:00:00Z")
    mem.consolidate()
    assert any("#" in e for f in read_facts(mem.root).values() for e in f.get("evidence") or [])
    mem.forget(s["id"], reason="wrong session")
    at(monkeypatch, "2026-10-15T10:00:00Z")
    for query in ("迁移窗口", "10月10日 迁移窗口", "最早的迁移窗口"):
        assert mem.search(query, mode="fts") == [], query
    mem.rebuild(embed=False)
    assert mem.search("迁移窗口", mode="fts") == []
    old = mem.search("迁移窗口", mode="fts", history=True)
    assert old and "active" not in {h.status for h in old}
    assert {h.status for h in old if h.id == s["id"]} == {"forgotten"}


@pytest.mark.parametrize("query", ["上周 Redis 缓存 TTL 是多少", "what was the Redis 缓存 TTL yesterday",
                                   "今天 Redis 缓存 TTL 是多少", "这周 Redis 缓存 TTL 是多少"])
def test_a_value_replaced_before_the_time_asked_about_is_not_an_answer(mem, monkeypatch, query):
    """A superseded value answers a question about a time when it was still true; replaced
    on 09-01, it was not true last week, yesterday or today (found by a hostile review)."""
    at(monkeypatch, "2026-08-01T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 是 3600 秒")
    at(monkeypatch, "2026-09-01T10:00:00Z")
    v2 = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-10-15T10:00:00Z")
    assert ids(mem.search(query, mode="fts")) == [v2["id"]]
    assert v1["id"] in ids(mem.search("8月 Redis 缓存 TTL 是多少", mode="fts"))


def test_a_consolidated_value_replaced_before_the_time_asked_about_is_not_an_answer(mem, monkeypatch):
    """The same through facts.jsonl: the daily line is dated by the fact it went into."""
    at(monkeypatch, "2026-08-01T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 是 3600 秒")
    mem.consolidate()
    at(monkeypatch, "2026-09-01T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    mem.consolidate()
    at(monkeypatch, "2026-10-15T10:00:00Z")
    assert not any("3600" in h.content for h in mem.search("上周 Redis 缓存 TTL 是多少", mode="fts"))
    assert any("3600" in h.content for h in mem.search("8月 Redis 缓存 TTL 是多少", mode="fts"))


@pytest.mark.parametrize("with_index", [True, False])
def test_a_forgotten_session_summary_is_not_the_last_session_in_the_context(mem, monkeypatch, with_index):
    """The context's last session summary was read from sessions.jsonl without a look at
    tombstones: a summary forgotten for what it leaked opened the next session (found by a
    hostile review). With the index and without it (read from the files)."""
    from memory_core import context

    at(monkeypatch, "2026-10-09T10:00:00Z")
    mem.save_summary("发布", "发布流程走了一遍")
    at(monkeypatch, "2026-10-10T10:00:00Z")
    s = mem.save_summary("数据库迁移", "讨论了迁移方案，密码改为 hunter2-example")
    mem.forget(s["id"], reason="leaked")
    at(monkeypatch, "2026-10-11T10:00:00Z")
    text = (mem.session_context().text if with_index else context.build(mem.root).text)
    assert "迁移方案" not in text and "发布流程走了一遍" in text


def test_a_value_true_all_month_answers_for_that_month_after_any_consolidation(mem, monkeypatch):
    """A consolidated fact's superseded status carried the fact's own first time (July), so
    after the next consolidation "8月 TTL" lost the value that was true all of August; the
    replacement's time is that of the record replacing it (found by a second hostile review)."""
    at(monkeypatch, "2026-07-20T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 是 3600 秒")
    mem.consolidate()
    at(monkeypatch, "2026-09-01T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    mem.consolidate()
    at(monkeypatch, "2026-10-15T10:00:00Z")
    assert any("3600" in h.content for h in mem.search("8月 Redis 缓存 TTL 是多少", mode="fts"))
    assert not any("3600" in h.content for h in mem.search("上周 Redis 缓存 TTL 是多少", mode="fts"))


def test_a_decision_of_a_replaced_summary_is_no_answer_after_it_was_replaced(mem, monkeypatch):
    """The fact made from a decision ("sum-X#d1") had no replacement time of its own, so
    every past-time question returned it (found by a second hostile review)."""
    at(monkeypatch, "2026-07-01T10:00:00Z")
    s = mem.save_summary("缓存方案", "讨论了缓存", decisions=["Redis 缓存 TTL 定为 3600 秒"])
    mem.consolidate()
    at(monkeypatch, "2026-07-10T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 定为 86400 秒", supersedes=s["id"])
    mem.consolidate()
    at(monkeypatch, "2026-10-15T10:00:00Z")
    for query in ("上周 Redis 缓存 TTL 是多少", "9月 Redis 缓存 TTL 是多少"):
        assert not any("3600" in h.content for h in mem.search(query, mode="fts")), query
    assert any("3600" in h.content for h in mem.search("7月 Redis 缓存 TTL 是多少", mode="fts"))


@pytest.mark.parametrize("consolidate_first", [True, False])
def test_replacing_one_copy_of_a_fact_saved_twice_replaces_the_fact(mem, monkeypatch, consolidate_first):
    """Consolidation marks a fact superseded when any source is, the index hid it only
    when all were: the old value stayed a current answer, and for good when no
    consolidation had run first (found by a second hostile review)."""
    at(monkeypatch, "2026-10-01T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 是 3600 秒")
    at(monkeypatch, "2026-10-02T10:00:00Z")
    b = mem.save_fact("Redis 缓存 TTL 是 3600 秒")
    if consolidate_first:
        mem.consolidate()
    at(monkeypatch, "2026-10-03T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=b["id"])
    for step in ("now", "consolidated", "rebuilt"):
        if step == "consolidated":
            mem.consolidate()
        if step == "rebuilt":
            mem.rebuild(embed=False)
        got = [h.content for h in mem.search("Redis 缓存 TTL 是多少", mode="fts")]
        assert got == ["Redis 缓存 TTL 改成 86400 秒"], step


@pytest.mark.parametrize("consolidate_first", [True, False])
def test_forgetting_a_fact_forgets_the_copy_saved_again_before(mem, monkeypatch, consolidate_first):
    at(monkeypatch, "2026-10-01T10:00:00Z")
    mem.save_fact("部署窗口是周五晚上")
    mem.consolidate()
    fact = next(h for h in mem.search("部署窗口", mode="fts") if h.id.startswith("fact-"))
    at(monkeypatch, "2026-10-02T10:00:00Z")
    mem.save_fact("部署窗口是周五晚上")
    if consolidate_first:
        mem.consolidate()
    at(monkeypatch, "2026-10-03T10:00:00Z")
    mem.forget(fact.id, reason="记错了")
    assert mem.search("部署窗口", mode="fts") == []
    mem.consolidate()
    assert mem.search("部署窗口", mode="fts") == []


def test_a_value_restored_by_a_supersede_is_current(mem, monkeypatch):
    """3600 → 86400 → 3600 again: the last is a value of its own, not a copy of the first."""
    at(monkeypatch, "2026-10-01T10:00:00Z")
    a = mem.save_fact("Redis 缓存 TTL 是 3600 秒")
    at(monkeypatch, "2026-10-02T10:00:00Z")
    b = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=a["id"])
    at(monkeypatch, "2026-10-03T10:00:00Z")
    c = mem.save_fact("Redis 缓存 TTL 是 3600 秒", supersedes=b["id"])
    assert ids(mem.search("Redis 缓存 TTL 是多少", mode="fts")) == [c["id"]]
    mem.consolidate()
    assert [h.content for h in mem.search("Redis 缓存 TTL 是多少", mode="fts")] == ["Redis 缓存 TTL 是 3600 秒"]


def test_a_value_first_saved_after_the_time_asked_about_is_not_an_answer(mem, monkeypatch):
    """"去年 TTL 是多少": a value saved this year and replaced since was never last year's
    (found by a second hostile review)."""
    at(monkeypatch, "2026-03-01T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 是 3600 秒")
    at(monkeypatch, "2026-05-01T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-10-15T10:00:00Z")
    assert v1["id"] not in ids(mem.search("去年 Redis 缓存 TTL 是多少", mode="fts"))
    assert v1["id"] in ids(mem.search("3月 Redis 缓存 TTL 是多少", mode="fts"))


@pytest.mark.parametrize("consolidate_between", [True, False])
def test_a_value_true_all_month_and_said_again_answers_for_that_month(mem, monkeypatch, consolidate_between):
    """Saved Jul 1, said again Aug 5, replaced Aug 10: true all of July. "First saved" was
    read from the hit's own time, the last save (found by a third hostile review)."""
    at(monkeypatch, "2026-07-01T10:00:00Z")
    mem.save_fact("TTL 是 3600 秒")
    at(monkeypatch, "2026-08-05T10:00:00Z")
    b = mem.save_fact("ttl 是 3600 秒")
    if consolidate_between:
        mem.consolidate()
    at(monkeypatch, "2026-08-10T10:00:00Z")
    mem.save_fact("TTL 是 86400 秒", supersedes=b["id"])
    at(monkeypatch, "2026-08-20T10:00:00Z")
    for query in ("7月 TTL 是多少", "7月20日 TTL 是多少", "7月15日到7月20日 TTL"):
        assert any("3600" in h.content for h in mem.search(query, mode="fts")), query


def test_a_value_said_again_after_it_was_replaced_survives_consolidation(mem, monkeypatch):
    """3600, 86400 replacing it, 3600 said again, 86400 said again: the second 3600 is a value
    of its own. A fact's supersede was dated by its updated_at, which moved on as the second
    86400 joined it, so consolidation took the later 3600 for a copy (third hostile review)."""
    for day, text, sup in ((1, "TTL 是 3600 秒", None), (2, "TTL 是 86400 秒", 0),
                           (3, "TTL 是 3600 秒", None), (4, "TTL 是 86400 秒", None)):
        at(monkeypatch, f"2026-07-0{day}T10:00:00Z")
        made = [] if day == 1 else made
        made.append(mem.save_fact(text, supersedes=made[sup]["id"] if sup is not None else None))
    at(monkeypatch, "2026-07-20T10:00:00Z")
    before = sorted(h.content for h in mem.search("TTL 是多少", mode="fts"))
    mem.consolidate()
    assert sorted(h.content for h in mem.search("TTL 是多少", mode="fts")) == before
    assert any("3600" in c for c in before)


def test_forgetting_a_value_restored_later_keeps_the_original(mem, monkeypatch):
    """3600 → 86400 → 3600 again; forgetting the fact of "3600 again" forgot the first 3600
    as one of its copies (third hostile review)."""
    from memory_core.consolidate import read_facts
    at(monkeypatch, "2026-07-01T10:00:00Z")
    a = mem.save_fact("TTL 是 3600 秒")
    at(monkeypatch, "2026-07-02T10:00:00Z")
    b = mem.save_fact("TTL 是 86400 秒", supersedes=a["id"])
    at(monkeypatch, "2026-07-03T10:00:00Z")
    c = mem.save_fact("TTL 是 3600 秒", supersedes=b["id"])
    mem.consolidate()
    again = next(k for k, v in read_facts(mem.root).items() if c["id"] in v["evidence"])
    at(monkeypatch, "2026-07-10T10:00:00Z")
    mem.forget(again, reason="never happened")
    assert any("3600" in h.content for h in mem.search("7月1日 TTL 是多少", mode="fts"))


def test_the_context_from_files_shows_no_summary_older_than_the_tombstones_it_reads(mem, monkeypatch):
    """Without an index the context reads a week of tombstones, so a summary forgotten two
    weeks ago came back from sessions.jsonl (third hostile review)."""
    import time
    at(monkeypatch, "2026-07-02T10:00:00Z")
    s = mem.save_summary("泄露", "SECRETLEAK 数据库密码是 hunter2")
    mem.forget(s["id"], reason="leaked a password")
    at(monkeypatch, "2026-07-15T09:00:00Z")
    assert "SECRETLEAK" not in mem.session_context().text
    (mem.root / "index.sqlite").unlink()
    assert "SECRETLEAK" not in Memory(mem.root).session_context(deadline=time.monotonic()).text


def test_a_summary_line_with_a_list_for_an_id_does_not_stop_the_context(mem):
    """Found by the property test: the hidden-summary check hashed the id."""
    from memory_core import context
    mem.save_summary("发布", "发布流程走了一遍")
    with open(mem.root / "sessions.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps({"id": ["x"], "summary": "s", "timestamp": "2026-10-01T00:00:00Z"}) + "\n")
    assert "发布流程走了一遍" in mem.session_context().text
    assert "发布流程走了一遍" in context.build(mem.root, None).text
