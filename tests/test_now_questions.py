"""What a question about the current value (or the first one) answers: a hostile review of
6ddd76c (a question about now also shows the values it replaced, "the first hit is then
never a superseded record") and 4ff5afa (the rewritten `_NEWEST` / `_OLDEST` rules), by a
helper who had not written them. Every test here failed when written; the docstrings say
how, and name the functions of that commit (`_current`, `current_version`), since replaced
by `search.with_current` and `corrections.current_versions`."""
import json
import os
import threading
from datetime import datetime, timezone

import pytest

from memory_core import Memory, records
from memory_core.temporal import NEWEST, OLDEST, parse

from storeutil import at, ids


# --- 6ddd76c: the current value first --------------------------------------------------------

@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_after_consolidation_superseding_a_saved_id_still_answers_now_with_the_current_value(
        mem, monkeypatch, mode):
    """The everyday flow: a value is changed (v2 supersedes v1), sessionEnd consolidates it
    into a fact, then it is changed again with the id save_fact returned for v2. The fact
    made from v2 is hidden as superseded, but `corrections.history` has no row for the fact
    itself, so `current_version` finds no chain from it: "现在是多少" puts the stale 86400
    first (keyword mode does not find the current value at all), until the next
    consolidation."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    v1 = mem.save_fact("缓存 3600")
    at(monkeypatch, "2026-09-05T10:00:00Z")
    v2 = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-09-06T10:00:00Z")
    mem.consolidate(embed=False)
    at(monkeypatch, "2026-10-02T10:00:00Z")
    v3 = mem.save_fact("过期时间改成 21600 秒", supersedes=v2["id"])
    at(monkeypatch, "2026-10-05T10:00:00Z")
    hits = mem.search("Redis 缓存 TTL 现在是多少", mode=mode)
    assert hits and hits[0].id == v3["id"], [(h.status, h.content) for h in hits]


def replaced_last_week_and_this_week(mem, monkeypatch) -> dict:
    """3600 (10-05), replaced by 86400 last week (10-14), replaced by 21600 this week
    (10-21); today is 10-23. The value true at the end of last week: 86400, returned."""
    at(monkeypatch, "2026-10-05T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-10-14T10:00:00Z")
    v2 = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-10-21T10:00:00Z")
    mem.save_fact("缓存过期时间改成 21600 秒", supersedes=v2["id"])
    at(monkeypatch, "2026-10-23T10:00:00Z")
    return v2


def test_a_past_stretch_asked_for_its_last_value_is_not_answered_with_todays(mem, monkeypatch):
    """"上周 … 最后定的多少": the value true at the end of last week (86400, replaced only
    this week). `_current` swaps every superseded record for the end of its chain even when
    the question names a past stretch, so this week's 21600 goes first. Before 6ddd76c the
    answer was 86400."""
    v2 = replaced_last_week_and_this_week(mem, monkeypatch)
    for question in ("上周 Redis 缓存 TTL 最后定的多少", "上周 Redis 缓存 TTL 最终改成多少了"):
        hits = mem.search(question, mode="fts")
        assert hits[0].id == v2["id"], (question, [h.content for h in hits])


def test_a_prompt_of_several_lines_asking_about_last_week_gets_last_weeks_value(mem, monkeypatch):
    """A question on a line of its own under another line ("帮我查一下" then the question) was
    read as a conversation and got no time: last week's 86400 stayed hidden behind this
    week's 21600."""
    v2 = replaced_last_week_and_this_week(mem, monkeypatch)
    hits = mem.search("帮我查一下缓存的事\n上周 Redis 缓存 TTL 最后定的多少？", mode="fts")
    assert hits[0].id == v2["id"], [h.content for h in hits]
    # and the line before a question that names no time does not scope it
    hits = mem.search("上周部署出了问题，回滚了\nRedis 缓存 TTL 是多少", mode="fts")
    assert hits[0].content == "缓存过期时间改成 21600 秒", [h.content for h in hits]


LAST_WEEK = "上周 Redis 缓存 TTL 最后定的多少？"


@pytest.mark.parametrize("query, answer", [
    ("环境：prod\n集群：cache-02\n" + LAST_WEEK, "86400"),  # values pasted above the question
    ("Expected: 86400\nActual: 21600\n" + LAST_WEEK, "86400"),
    ("INFO: redis connected\n[WRN]: ttl reloaded\n" + LAST_WEEK, "86400"),  # a log
    (LAST_WEEK + "\n环境：prod\n集群：cache-02", "86400"),  # or below it
    ("小王：TTL 是不是又改了？\n小李：好像改过两次\n" + LAST_WEEK, "86400"),  # a chat it asks about
    ("小王：昨天群里说 TTL 又改了？\n小李：对\n" + LAST_WEEK, "86400"),  # the chat's 昨天 is theirs
    ("小王：上周 Redis 缓存 TTL 是多少？\n小李：86400 吧\n那现在 Redis 缓存 TTL 是多少？", "21600"),
    ("小王：上周 Redis 缓存 TTL 改成多少了？\n小李：我查一下\n帮我回复小王", "21600"),
    # a second review: a Q&A pasted, names with a dot or a space, a label amid key-values,
    # one message quoted above the question, a log's timestamps
    ("问：上周 Redis 缓存 TTL 是多少？\n答：86400 吧\n那现在 Redis 缓存 TTL 是多少？", "21600"),
    ("Q: what was the Redis cache TTL last week?\nA: 86400 I think\n"
     "what is the Redis cache TTL now?", "21600"),
    ("zhang.san：上周 Redis 缓存 TTL 是多少？\nli.si：86400\n那现在 Redis 缓存 TTL 是多少？", "21600"),
    ("Tony Wang：上周 Redis 缓存 TTL 是多少？\n小李：86400\n小张：好像又改了\n"
     "那现在 Redis 缓存 TTL 是多少？", "21600"),
    ("**环境**：prod\n**问题**：" + LAST_WEEK + "\n**版本**：v2.3", "86400"),
    ("小王：上周 Redis 缓存 TTL 是多少？\n那现在 Redis 缓存 TTL 是多少？", "21600"),
    ("2026-10-22T10:00:01Z redis reconnect\n2026-10-22T10:00:02Z ttl reload\n" + LAST_WEEK
     + "\n环境：prod", "86400"),
    ("昨天 14:32\n小王：Redis 缓存 TTL 现在是多少？\n小李：我查一下", "21600"),  # a chat app's time
    # a third review: the user's own line opening "我想问：", "另外：", "Follow-up:"; a caption
    # dating a chat whose question is the only one
    ("我想问：" + LAST_WEEK + "\n谢谢", "86400"),
    ("帮我看下这个配置有没有问题。\n另外：" + LAST_WEEK, "86400"),
    ("这是上周的群聊记录\n王总：Redis 缓存 TTL 现在是多少？\n小李：我查下", "21600"),
    # a fourth review: a lead-in with a second question; an email's body under its headers
    ("请教一下：" + LAST_WEEK + "\n是谁改的？", "86400"),
    ("From: ops@corp.com\nTo: dev@corp.com\nSubject: Redis TTL\n"
     "上周我们把 TTL 改成 86400，大家确认一下？\n那现在 Redis 缓存 TTL 是多少？", "21600"),
    # chat apps that put the speaker and the time on a line of their own
    ("小王 10:32\n上周 Redis 缓存 TTL 是多少？\n小李 10:33\n86400 吧\n那现在 Redis 缓存 TTL 是多少？",
     "21600"),
    ("Bart Simpson  10:32 AM\n上周 Redis 缓存 TTL 是多少？\nLisa — Today at 10:33 AM\n86400\n"
     + LAST_WEEK.replace("上周", "那这周"), "21600"),
    ("部署 10:32\n成功\n回滚 10:45\n" + LAST_WEEK, "86400"),  # a list of times, a note under each
    # chat exports that stamp each message with its day (WhatsApp, Teams, Feishu)
    ("[22/10/2026, 10:32:01] 小王: 上周 Redis 缓存 TTL 是多少？\n[22/10/2026, 10:33:05] 小李: 86400\n"
     "那现在 Redis 缓存 TTL 是多少？", "21600"),
    ("10/22/26, 10:32 PM - Tony: what was the Redis cache TTL last week?\n"
     "10/22/26, 10:33 PM - Lisa: 86400\n那现在 Redis 缓存 TTL 是多少？", "21600"),
    ("[10:32 AM] Tony Wang: Redis 缓存 TTL 现在是多少？\n[10:33 AM] Bart Simpson: 昨天还是 3600？\n"
     + LAST_WEEK, "86400"),
    ("小王 10月22日 10:32\n上周 Redis 缓存 TTL 是多少？\n小李 10月22日 10:33\n86400 吧\n"
     "那现在 Redis 缓存 TTL 是多少？", "21600"),
    ("小王, [22.10.26 10:32]\n上周 Redis 缓存 TTL 是多少？\n小李, [22.10.26 10:33]\n86400 吧\n"
     "那现在 Redis 缓存 TTL 是多少？", "21600"),  # Telegram
    ("[2026-10-22 10:32:01] production.INFO: cache ttl reloaded\n" + LAST_WEEK  # a log around it
     + "\n[2026-10-23 09:00:00] production.INFO: cache ttl reloaded", "86400"),
])
def test_only_the_users_own_lines_around_a_paste_give_the_time(mem, monkeypatch, query, answer):
    """Lines that open "名字：" / "Key:" were read as a conversation, whose time words are the
    speakers': "上周" under pasted values was dropped and this week's 21600 came first. Then
    (09d4ec3) a prompt not ending in a speaker's line was read as sentences, the chat's
    included, so the chat's "上周" or "昨天" scoped the user's question. Now only the user's
    own lines, before or after the chat, are read for time and for what they ask."""
    replaced_last_week_and_this_week(mem, monkeypatch)
    hits = mem.search(query, mode="fts")
    assert answer in hits[0].content, [h.content for h in hits]


@pytest.mark.parametrize("filters", [
    {"until": "2026-09-30"}, {"since": "2026-09-01", "until": "2026-09-02"},
    {"type": "preference"}, {"memory_type": "B"},
])
def test_the_current_version_brought_in_for_a_now_question_keeps_the_search_filters(
        mem, monkeypatch, filters):
    """`_current` loads the end of a chain with `load_hits` and never checks the request's
    filters: a search limited to September, to preferences or to type B answers with a
    fact of type W saved in October, as its first hit."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 设成 3600 秒", "B", kind="preference")
    at(monkeypatch, "2026-10-05T10:00:00Z")
    v2 = mem.save_fact("缓存过期时间改成 21600 秒", "W", kind="fact", supersedes=v1["id"])
    at(monkeypatch, "2026-10-20T10:00:00Z")
    hits = mem.search("Redis 缓存 TTL 现在是多少", mode="fts", **filters)
    assert v2["id"] not in ids(hits), filters


def test_a_second_correction_of_a_value_whose_first_was_forgotten_is_its_current_version(
        mem, monkeypatch):
    """v2 supersedes v1, v2 is forgotten ("记错了"), v3 supersedes v1 again. v1 has two
    replacements; `corrections.history` keeps the first row (the forgotten v2), so
    `current_version` ends in a forgotten record: the stale 3600 is the first hit, shown as
    "superseded by" an id that is forgotten, ahead of the current 7200."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-09-05T10:00:00Z")
    v2 = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    mem.forget(v2["id"], reason="记错了")
    at(monkeypatch, "2026-09-06T10:00:00Z")
    v3 = mem.save_fact("缓存过期时间定为 7200 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-10-01T10:00:00Z")
    hits = mem.search("Redis 缓存 TTL 现在是多少", mode="fts")
    assert hits[0].id == v3["id"], [(h.status, h.superseded_by, h.content) for h in hits]
    assert all(h.superseded_by != v2["id"] for h in hits)  # no pointer to a forgotten record


def test_a_now_question_never_puts_a_superseded_record_first_when_its_replacement_was_forgotten(
        mem, monkeypatch):
    """docs/formats.md: "the first hit is then never a superseded record". A correction
    that is forgotten again (v2) leaves v1 superseded with no live end of chain; `_current`
    drops it from the candidates, `promote_by_time` returns the hits unchanged, and the
    superseded 3600 is the first (and only) hit, "superseded by" the forgotten v2."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-09-05T10:00:00Z")
    v2 = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    mem.forget(v2["id"], reason="记错了")
    at(monkeypatch, "2026-10-01T10:00:00Z")
    hits = mem.search("Redis 缓存 TTL 现在是多少", mode="fts")
    assert not hits or hits[0].status == "active", [(h.status, h.superseded_by) for h in hits]


def test_a_now_question_without_content_words_does_not_put_the_replaced_value_first(
        mem, monkeypatch):
    """"现在呢？" / "目前呢" / "these days?": no dictionary word, so `promote_by_time`
    returns at once, and the nearest vector (the superseded 3600) is the first hit."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-09-05T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-10-05T10:00:00Z")
    for question in ("现在呢？", "目前呢", "these days?"):
        hits = mem.search(question, mode="hybrid")
        assert not hits or hits[0].status == "active", (question, [h.content for h in hits])


def test_a_loop_of_supersedes_does_not_put_a_superseded_record_first(mem, monkeypatch):
    """Hand-edited (or merged) files: A supersedes B and B supersedes A. `current_version`
    stops (good), but both hits stay, a superseded one first."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    a = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-09-02T10:00:00Z")
    b = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=a["id"])
    for f in (mem.root / "daily").glob("*.jsonl"):
        out = []
        for line in f.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r.get("id") == a["id"]:
                r["supersedes"] = b["id"]
            out.append(json.dumps(r, ensure_ascii=False))
        f.write_text("\n".join(out) + "\n", encoding="utf-8")
    mem.rebuild(embed=False)
    at(monkeypatch, "2026-10-01T10:00:00Z")
    hits = mem.search("Redis 缓存 TTL 现在是多少", mode="fts")
    assert not hits or hits[0].status == "active", [(h.status, h.content) for h in hits]


def test_the_current_version_is_not_shown_twice_once_it_is_consolidated(mem, monkeypatch):
    """v3 supersedes the consolidated fact of v2, then v3 is consolidated too: the hits
    already hold v3's fact (its daily line collapsed into it), `_current` looks v3's own
    id up among the hit ids, misses, loads the daily line again: the same value twice."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-09-05T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-09-06T10:00:00Z")
    mem.consolidate(embed=False)
    fact = mem.search("Redis 缓存 TTL 是多少", mode="fts")[0]
    assert fact.id.startswith("fact-")
    at(monkeypatch, "2026-10-02T10:00:00Z")
    mem.save_fact("缓存过期时间改成 21600 秒", supersedes=fact.id)
    at(monkeypatch, "2026-10-03T10:00:00Z")
    mem.consolidate(embed=False)
    at(monkeypatch, "2026-10-05T10:00:00Z")
    hits = mem.search("Redis 缓存 TTL 现在是多少", mode="fts")
    contents = [h.content for h in hits]
    assert contents.count("缓存过期时间改成 21600 秒") == 1, [(h.id, h.content) for h in hits]


@pytest.mark.parametrize("settings, changes, limit", [
    (("Redis 配置：端口 6380", "Redis 配置：maxmemory 2gb", "Redis 配置：密码放在 vault"), 8, 5),
    (("Redis 配置：端口 6380，绑定 127.0.0.1", "Redis 配置：maxmemory 2gb，淘汰策略 allkeys-lru"), 20, 10),
])
def test_replaced_values_do_not_push_current_records_out_of_a_now_answer(
        mem, monkeypatch, settings, changes, limit):
    """"Redis 现在的配置是什么": the plain question shows every current Redis setting. The first
    review: with 8 TTL changes and limit=5 the "now" question showed the TTL's replaced values
    ahead of a current setting (the vault password location) and cut it off. The second:
    with 20 changes and limit=10, `with_current` put all 19 replaced TTLs right after the
    current one and `promote_by_time` reordered only its first 2 * ABOUT_DEPTH hits, so the
    port and maxmemory settings came 21st and 22nd."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    current = [mem.save_fact(t)["id"] for t in settings]
    prev = None
    for i in range(changes):
        at(monkeypatch, f"2026-09-{2 + i:02d}T10:00:00Z")
        prev = mem.save_fact(f"Redis 配置：TTL 改成 {3600 * (i + 1)} 秒", supersedes=prev)["id"]
    current.append(prev)
    at(monkeypatch, "2026-10-05T10:00:00Z")
    assert set(current) <= set(ids(mem.search("Redis 配置是什么", mode="fts", limit=limit)))
    hits = mem.search("Redis 现在的配置是什么", mode="fts", limit=limit)
    assert set(current) <= set(ids(hits)), [(h.status, h.content) for h in hits]

def test_a_value_replaced_a_thousand_times_answers_now_with_the_last(mem, monkeypatch):
    """A status line updated every session for years: the chain is walked once per search
    in three queries (`corrections.current_versions`), with no recursion to run out of;
    the last value comes first and the ones it replaced after it. (Its cost, timed outside
    the tests: docs/retrieval.md "What is X now".)"""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    prev = None
    for i in range(1000):
        prev = mem.save_fact(f"Redis 缓存 TTL 改成 {1000 + i} 秒", supersedes=prev)["id"]
    hits = mem.search("Redis 缓存 TTL 现在是多少", mode="fts")
    assert hits[0].id == prev and hits[0].content.endswith("1999 秒")
    assert [h.status for h in hits[1:]] == ["superseded"] * (len(hits) - 1)


# --- 4ff5afa: the rewritten order rules --------------------------------------------------------

NOW = datetime(2026, 10, 15, 12, tzinfo=timezone.utc)


@pytest.mark.parametrize("query", [
    # how-to questions the new "now" alternatives fired in (none read a time before 4ff5afa)
    "how do I switch to another branch in git",
    "How to switch to the dev profile in Spring Boot?",
    "Are there any more TODOs in the auth module?",
    "what changed to cause the regression",
    "迄今为止遇到过哪些 OOM",  # 目前为止 is excluded, its synonyms are new and not
    "至今为止踩过哪些坑",
    "改了没提交的文件怎么恢复",
    "我已经改了配置，为什么还不生效",
    "已经切到新分支了，怎么看 diff",
    # the same exclusions the commit made, in their next most common wording
    "我们现在要上线一个新服务，要注意什么",  # 我现在要 is excluded
    "Python 怎么获取当前时间",  # 当前用户 / 当前目录 are excluded
    "How do I get the current time in Python?",  # "the current user" is excluded
    "datetime.now() returns a naive datetime, why?",
    "After the fix, why is the test still failing?",  # "Why is the build still slow?" is excluded
    "Why is the pod still in Pending state?",
    # how-to questions not asking for the first value
    "Getting started with pytest fixtures?",
    "How do I get started with the codebase?",
    "how to insert at the beginning of a list in python",
    "what runs at the start of each test?",
    "How do I set the initial value of a useState hook?",
    "原来是缓存的问题，那怎么清缓存？",  # 原来 = "it turns out"; only 原来如此/原来是这样 are excluded
    "刚建的表怎么查不到数据",  # 刚建 = "just created"
    "这个接口本来就不支持分页吗",
])
def test_how_to_questions_and_other_senses_of_now_and_first_ask_for_no_order(query):
    assert parse(query, NOW).order is None


@pytest.mark.parametrize("question", [
    "How do I get started with the 本地开发环境?",
    "原来是环境问题，本地开发环境怎么搭建？",
    "刚建的本地开发环境怎么搭建",
])
def test_a_how_to_question_does_not_answer_with_replaced_instructions(mem, monkeypatch, question):
    """What a false "oldest" costs since 4ff5afa: the question is taken to ask about the
    past, searches superseded records and puts the oldest first: the setup steps that were
    replaced (make bootstrap, deleted) come before the current ones."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    v1 = mem.save_fact("本地开发环境搭建：先跑 make bootstrap 再 make dev")
    at(monkeypatch, "2026-09-20T10:00:00Z")
    v2 = mem.save_fact("本地开发环境搭建改成 uv sync，make bootstrap 已删除", supersedes=v1["id"])
    at(monkeypatch, "2026-10-05T10:00:00Z")
    assert mem.search(question, mode="fts")[0].id == v2["id"]


@pytest.mark.parametrize("query, order", [
    ("Is the Redis cache TTL still 3600?", NEWEST),  # four words between "is" and "still"
    ("Is the payment service timeout still 30s?", NEWEST),
    ("CI 仍在用 Jenkins 吗", NEWEST),  # 仍然 and 还在用 are read, 仍在 is not
    ("TTL 仍是 3600 吗", NEWEST),
    ("Redis TTL 改了吗", NEWEST),  # 改了没 is read, 改了吗 is not
])
def test_plain_ways_of_asking_for_the_current_value_are_read(query, order):
    assert parse(query, NOW).order == order


def test_a_stretch_asked_for_what_a_value_was_changed_to_gets_the_change_made_within_it(
        mem, monkeypatch):
    """"上周 Redis 缓存 TTL 改成了多少": the replacement saved last week answers, in whatever
    words it says so, and not the one saved since (the value the stretch ended with:
    `corrections.current_versions(before=…)`)."""
    at(monkeypatch, "2026-10-05T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-10-14T10:00:00Z")
    v2 = mem.save_fact("过期时间调成 86400 秒，3600 太短", supersedes=v1["id"])
    at(monkeypatch, "2026-10-21T10:00:00Z")
    mem.save_fact("过期时间再调到 21600 秒", supersedes=v2["id"])
    at(monkeypatch, "2026-10-23T10:00:00Z")
    for mode in ("fts", "hybrid"):
        hits = mem.search("上周 Redis 缓存 TTL 改成了多少", mode=mode)
        assert hits[0].id == v2["id"], (mode, [(h.status, h.content) for h in hits])


# === A second hostile review (of c2dbad9: `corrections.current_versions`, `search.with_current`,
# `versions`, a stretch's `ended`), by another helper who had not written it. Every test below
# failed when written; the docstrings say how.

# --- a stretch asked for its last value ---------------------------------------------------------

@pytest.mark.parametrize("mode", ["fts", "hybrid"])
@pytest.mark.parametrize("question", [
    "上周 Redis 缓存 TTL 最后定的多少", "上周 Redis 缓存 TTL 最终改成多少了", "上周 Redis 缓存 TTL 改成了多少"])
def test_a_stretch_asked_for_its_last_value_is_not_answered_with_a_value_saved_after_it(
        mem, monkeypatch, question, mode):
    """The review-1 test of this passes only because this week's value was worded
    differently ("缓存过期时间改成 21600 秒"). Said in the same words, the value saved this
    week (after the stretch ended) is an active hit, `promote_by_time` counts it "about"
    the question (`current.get(h.id, h)` keeps it) and picks the newest: "last week's final
    TTL" is answered with this week's 21600, the right 86400 second."""
    at(monkeypatch, "2026-10-05T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-10-14T10:00:00Z")
    v2 = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-10-21T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 21600 秒", supersedes=v2["id"])
    at(monkeypatch, "2026-10-23T10:00:00Z")
    hits = mem.search(question, mode=mode)
    assert hits[0].id == v2["id"], [(h.status, h.timestamp, h.content) for h in hits]


# --- a now question: the other current records ----------------------------------------------------


def test_many_short_histories_do_not_push_current_records_out_of_a_now_answer(mem, monkeypatch):
    """Twelve services, each timeout changed once: "超时配置现在是多少" with limit=12 shows
    ten current timeouts, then two replaced ones, and cuts the last two current timeouts
    off; each replaced value follows its own current version, and only the first
    2 * ABOUT_DEPTH hits are reordered, so a replaced value comes before current records
    about the question (the plain question shows all twelve current ones)."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    current = []
    for i in range(12):
        old = mem.save_fact(f"服务{i} 的 超时 配置 是 {10 + i} 秒")
        current.append(mem.save_fact(f"服务{i} 的 超时 配置 改成 {30 + i} 秒",
                                     supersedes=old["id"])["id"])
    at(monkeypatch, "2026-10-05T10:00:00Z")
    assert set(current) <= set(ids(mem.search("超时 配置 是多少", mode="fts", limit=12)))
    hits = mem.search("超时 配置 现在是多少", mode="fts", limit=12)
    assert set(current) <= set(ids(hits)), [(h.status, h.content) for h in hits]


def test_a_long_history_does_not_keep_a_current_record_out_of_the_candidates(mem, monkeypatch):
    """A now question searches superseded records too, with the same depth (50 keyword
    candidates): 60 replaced TTL lines, shorter and so better by BM25, fill it, the current
    "密码放在 vault" is never a candidate, and the answer (limit=4) shows three current
    settings and a replaced TTL instead of it. The plain question finds it."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    current = [mem.save_fact(t)["id"] for t in (
        "Redis 配置：端口 6380", "Redis 配置：maxmemory 2gb", "Redis 配置：密码放在 vault")]
    prev = None
    for i in range(60):
        prev = mem.save_fact(f"Redis 配置：TTL 改成 {3600 + i} 秒", supersedes=prev)["id"]
    current.append(prev)
    at(monkeypatch, "2026-10-05T10:00:00Z")
    assert set(current) <= set(ids(mem.search("Redis 配置是什么", mode="fts", limit=4)))
    hits = mem.search("Redis 现在的配置是什么", mode="fts", limit=4)
    assert set(current) <= set(ids(hits)), [(h.status, h.content) for h in hits]


# --- what a replaced value says replaced it ------------------------------------------------------

def test_superseded_by_never_names_a_forgotten_branch(mem, monkeypatch):
    """v2 and v3 both replace v1; v3, the later, is then forgotten ("记错了"). `history`
    now takes the latest replacement by time without asking whether it still stands: the
    3600 shown after the current 86400 is "superseded by" the forgotten v3, an id no
    search without --history can show (review 1 asserted no such pointer)."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-09-05T10:00:00Z")
    v2 = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-09-06T10:00:00Z")
    v3 = mem.save_fact("Redis 缓存 TTL 改成 7200 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-09-07T10:00:00Z")
    mem.forget(v3["id"], reason="记错了")
    at(monkeypatch, "2026-10-01T10:00:00Z")
    hits = mem.search("Redis 缓存 TTL 现在是多少", mode="fts")
    assert ids(hits) == [v2["id"], v1["id"]]
    assert hits[1].superseded_by == v2["id"], [(h.status, h.superseded_by) for h in hits]


def test_a_consolidated_fact_replaced_through_its_line_says_what_replaced_it(mem, monkeypatch):
    """The everyday flow: a value is saved and consolidated (sessionEnd), then replaced
    with the id save_fact returned (the line's). Until the next consolidation the fact is
    the hit, hidden as superseded through its line, but `history` has no row for the fact
    itself: the now answer shows "(superseded)" with `superseded_by` None, though the
    replacement is known and shown right above it."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-09-01T18:00:00Z")
    mem.consolidate()
    at(monkeypatch, "2026-09-05T10:00:00Z")
    v2 = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-10-01T10:00:00Z")
    hits = mem.search("Redis 缓存 TTL 现在是多少", mode="fts")
    assert hits[0].id == v2["id"] and hits[1].status == "superseded"
    assert hits[1].superseded_by == v2["id"], [(h.id, h.status, h.superseded_by) for h in hits]


@pytest.mark.parametrize("then", [None, "saved", "consolidated"])
@pytest.mark.parametrize("history", [False, True])
def test_superseded_by_names_the_fact_the_replacement_was_consolidated_into(
        mem, monkeypatch, then, history):
    """3600 (v1) -> 86400 (v2, a line consolidated into a fact at sessionEnd): search shows
    the fact in v2's place, so v1 is "superseded by" that fact, the record the reader sees,
    not a line id found nowhere in the answer. Also when the fact was replaced since by 7200
    (v3, `then` saved or consolidated too; found by a review: only a fact still current was
    named)."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    v1 = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-09-05T10:00:00Z")
    v2 = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=v1["id"])
    at(monkeypatch, "2026-09-05T18:00:00Z")
    mem.consolidate(embed=False)
    if then:
        at(monkeypatch, "2026-09-10T10:00:00Z")
        mem.save_fact("Redis 缓存 TTL 改成 7200 秒", supersedes=v2["id"])
    if then == "consolidated":
        at(monkeypatch, "2026-09-10T18:00:00Z")
        mem.consolidate(embed=False)
    at(monkeypatch, "2026-10-01T10:00:00Z")
    hits = mem.search("Redis 缓存 TTL 现在是多少", mode="fts", history=history)
    old = next(h for h in hits if h.id == v1["id"])
    middle = next(h for h in hits if v2["id"] in h.evidence)
    assert middle.id.startswith("fact-") and v2["id"] not in ids(hits)
    if then is None:
        assert hits[0] is middle and hits[1] is old
    assert old.superseded_by == middle.id, [(h.id, h.status, h.superseded_by) for h in hits]


# --- the session context --------------------------------------------------------------------------

def test_the_context_from_files_leaves_out_a_line_whose_fact_was_replaced(mem, monkeypatch):
    """sessionStart without a ready index reads the week's daily files: a `supersedes`
    hides only the id it names. Replacing a value by the id search shows once it is
    consolidated (fact-…) leaves its daily line in, and the context presents the replaced
    3600 as a current fact next to the 86400 (from the index it is left out)."""
    from memory_core import context
    at(monkeypatch, "2026-09-01T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-09-01T18:00:00Z")
    mem.consolidate()
    fact = mem.search("Redis 缓存 TTL", mode="fts")[0]
    assert fact.id.startswith("fact-")
    at(monkeypatch, "2026-09-02T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=fact.id)
    at(monkeypatch, "2026-09-02T12:00:00Z")
    assert "3600" not in mem.session_context().text
    assert "3600" not in context.build(mem.root, None).text


# --- the documentation -----------------------------------------------------------------------------

def test_the_corrections_doc_names_functions_that_exist():
    """docs/formats.md "Corrections" says a replaced value "stands for the record at the end
    of its chain (`search.current_version`)": c2dbad9 removed that function
    (corrections.current_versions, search.with_current replaced it)."""
    import re
    from pathlib import Path

    from memory_core import corrections, search
    text = (Path(__file__).resolve().parent.parent / "docs" / "formats.md").read_text(encoding="utf-8")
    named = {(m, f) for m, f in re.findall(r"`(search|corrections)\.([a-z_]+)`", text) if f != "py"}
    missing = [f"{m}.{f}" for m, f in named if not hasattr({"search": search,
                                                            "corrections": corrections}[m], f)]
    assert not missing, missing


# --- consolidation's status lines -------------------------------------------------------------------

def test_consolidation_does_not_record_a_forgotten_correction_as_what_replaced_a_fact(
        mem, monkeypatch):
    """F1 is replaced by v2, v2 is forgotten ("记错了"), v3 replaces F1 again; sessionEnd
    consolidates. `_statuses` takes the first `superseded` row it reads
    (`superseded.setdefault`), forgotten or not: facts.jsonl, the file a rebuild trusts,
    says F1 was superseded by the forgotten v2 (search hides it only because `history`
    sorts that row, stamped with F1's own time, first)."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-09-01T18:00:00Z")
    mem.consolidate()
    f1 = mem.search("Redis 缓存 TTL", mode="fts")[0].id
    at(monkeypatch, "2026-09-05T10:00:00Z")
    v2 = mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=f1)
    at(monkeypatch, "2026-09-05T11:00:00Z")
    mem.forget(v2["id"], reason="记错了")
    at(monkeypatch, "2026-09-06T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 7200 秒", supersedes=f1)
    at(monkeypatch, "2026-09-06T18:00:00Z")
    mem.consolidate()
    versions = [json.loads(x) for x in (mem.root / "facts.jsonl").read_text(encoding="utf-8").splitlines()]
    last = [v for v in versions if v["id"] == f1][-1]
    assert last.get("status") == "superseded"
    assert last.get("superseded_by") != v2["id"], last


# === A third review (of 5151b23, the second review's fixes), by a third helper. Every test
# below failed when written (the first three kinds on 5151b23 only); the docstrings say how.

# --- a stretch asked for its last value: `before` ------------------------------------------------

@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_a_stretch_picks_a_value_restated_after_it_ended(mem, monkeypatch, mode):
    """Last week the TTL went from 3600 to 86400 (no `supersedes`: two plain lines); this
    Monday the agent says 86400 again. The two 86400 lines are one hit (collapse), stamped
    with whichever copy ranks first, and once consolidated the fact's time is its
    updated_at, this week: `before` leaves it out of `about`, and "上周…最后定的多少" is
    answered 3600. Before 5151b23 the answer was 86400."""
    at(monkeypatch, "2026-10-12T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-10-16T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 86400 秒")
    at(monkeypatch, "2026-10-16T18:00:00Z")
    mem.consolidate()
    at(monkeypatch, "2026-10-19T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 86400 秒")
    at(monkeypatch, "2026-10-19T18:00:00Z")
    mem.consolidate()
    at(monkeypatch, "2026-10-23T10:00:00Z")
    hits = mem.search("上周 Redis 缓存 TTL 最后定的多少", mode=mode)
    assert "86400" in hits[0].content, [(h.timestamp, h.content) for h in hits]


# --- the session context from files: `_corrected` -------------------------------------------------

def _week_with_fact_correction(mem, monkeypatch, fact_id="fact-0123456789abcdef"):
    """This week's line and a tombstone naming a consolidated fact."""
    at(monkeypatch, "2026-09-02T10:00:00Z")
    line = mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    mem._append(mem.daily_path(), records.forget(fact_id, "记错了"))  # as `forget` writes it
    at(monkeypatch, "2026-09-02T12:00:00Z")
    return line


def test_the_context_from_files_survives_a_facts_line_with_bad_evidence(mem, monkeypatch):
    """A facts.jsonl line whose `evidence` is not a list (hand-edited, a bad merge) is
    skipped by sync ("'evidence' must be a list of ids"), but `_corrected` iterates it:
    `1 or ()` is 1, and sessionStart without a ready index dies with TypeError."""
    from memory_core import context
    _week_with_fact_correction(mem, monkeypatch)
    (mem.root / "facts.jsonl").write_text(json.dumps(
        {"id": "fact-0123456789abcdef", "type": "W", "content": "x", "evidence": 1}) + "\n",
        encoding="utf-8")
    text = context.build(mem.root, None).text
    assert "3600" in text


def test_the_context_from_files_does_not_read_facts_through_a_symlink(mem, monkeypatch, tmp_path):
    """sync never reads facts.jsonl through a link (sync._read: O_NOFOLLOW), so the index
    knows no such fact and the context from it shows the 3600 line; `_corrected` reads
    the link's target (`read_facts`: plain open) and its evidence hides the line. Linked to
    a directory it raises IsADirectoryError; to a FIFO, sessionStart would hang."""
    from memory_core import context
    line = _week_with_fact_correction(mem, monkeypatch)
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text(json.dumps({"id": "fact-0123456789abcdef", "type": "W", "content": "x",
                                   "evidence": [line["id"]]}) + "\n", encoding="utf-8")
    os.symlink(outside, mem.root / "facts.jsonl")
    assert "3600" in mem.session_context().text  # from the index
    assert "3600" in context.build(mem.root, None).text


def test_the_context_from_files_survives_facts_jsonl_being_a_directory_link(
        mem, monkeypatch, tmp_path):
    from memory_core import context
    _week_with_fact_correction(mem, monkeypatch)
    (tmp_path / "adir").mkdir()
    os.symlink(tmp_path / "adir", mem.root / "facts.jsonl")
    assert "3600" in context.build(mem.root, None).text


def test_the_context_from_files_does_not_hang_on_a_fifo_facts_jsonl(mem, monkeypatch):
    from memory_core import context
    _week_with_fact_correction(mem, monkeypatch)
    os.mkfifo(mem.root / "facts.jsonl")
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("text", context.build(mem.root, None).text),
                         daemon=True)
    t.start()
    t.join(10)
    if t.is_alive():  # unblock the reader so the test process can end
        fd = os.open(mem.root / "facts.jsonl", os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        t.join(5)
        pytest.fail("context.build blocked opening a FIFO facts.jsonl")
    assert "3600" in box["text"]


def test_the_context_from_files_hides_an_unconsolidated_copy_of_a_replaced_fact(mem, monkeypatch):
    """The index hides every copy of a replaced fact saved before the correction
    (`corrections._copies`); the files read only the fact's evidence. The agent says
    "TTL 3600" again this morning (not consolidated yet), then replaces the fact: from the
    index the context leaves 3600 out, from the files it shows it as current."""
    from memory_core import context
    at(monkeypatch, "2026-09-01T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-09-01T18:00:00Z")
    mem.consolidate()
    fact = mem.search("Redis 缓存 TTL", mode="fts")[0]
    assert fact.id.startswith("fact-")
    at(monkeypatch, "2026-09-02T09:00:00Z")
    mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-09-02T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=fact.id)
    at(monkeypatch, "2026-09-02T12:00:00Z")
    assert "3600" not in mem.session_context().text
    assert "3600" not in context.build(mem.root, None).text


# --- consolidation's status lines: `_statuses` ----------------------------------------------------

def test_facts_jsonl_does_not_keep_naming_a_forgotten_replacement(mem, monkeypatch):
    """The everyday flow, one consolidation per session: F1 is replaced by v2 (sessionEnd:
    F1 "superseded_by" fact-V2), the user forgets fact-V2 (the id search shows) and
    replaces F1 again with v3. `_statuses` skips F1 (its status is still "superseded"), so
    facts.jsonl, the file a rebuild trusts, goes on saying F1 was replaced by the forgotten
    fact-V2. (Review 2's test forgets v2 before any consolidation, so it passes.)"""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 设成 3600 秒")
    at(monkeypatch, "2026-09-01T18:00:00Z")
    mem.consolidate()
    f1 = mem.search("Redis 缓存 TTL", mode="fts")[0].id
    at(monkeypatch, "2026-09-05T10:00:00Z")
    mem.save_fact("Redis 缓存 TTL 改成 86400 秒", supersedes=f1)
    at(monkeypatch, "2026-09-05T18:00:00Z")
    mem.consolidate()
    v2 = mem.search("Redis 缓存 TTL 86400", mode="fts")[0].id
    assert v2.startswith("fact-")
    at(monkeypatch, "2026-09-06T10:00:00Z")
    mem.forget(v2, reason="记错了")
    v3 = mem.save_fact("Redis 缓存 TTL 改成 7200 秒", supersedes=f1)
    at(monkeypatch, "2026-09-06T18:00:00Z")
    mem.consolidate()
    versions = [json.loads(x) for x in (mem.root / "facts.jsonl").read_text(encoding="utf-8").splitlines()]
    last = [v for v in versions if v["id"] == f1][-1]
    assert last.get("status") == "superseded"
    assert last.get("superseded_by") != v2, last
    hits = mem.search("Redis 缓存 TTL 现在是多少", mode="fts")
    assert hits[0].evidence and v3["id"] in hits[0].evidence


# --- a third review (2026-11-27): an event the store cannot date --------------------------

@pytest.mark.parametrize("mode", ["fts", "hybrid", "vector"])
@pytest.mark.parametrize("question", ["is the Redis TTL still 86400 after the upgrade?",
                                      "升级之后 Redis TTL 还是 86400 秒吗"])
def test_a_question_about_now_that_names_an_undated_event_answers_with_the_current_value(
        mem, monkeypatch, mode, question):
    """"still … after the upgrade", with no record of an upgrade: the event read the
    question as one about a past stretch, none could be found, and the replaced 86400 came
    first. With no stretch to answer in, it is a question about now."""
    at(monkeypatch, "2026-09-01T10:00:00Z")
    v1 = mem.save_fact("Redis TTL is 86400 seconds")
    at(monkeypatch, "2026-10-01T10:00:00Z")
    v2 = mem.save_fact("Redis TTL changed to 21600 seconds", supersedes=v1["id"])
    hits = mem.search(question, mode=mode)
    assert ids(hits)[:2] == [v2["id"], v1["id"]], [(h.status, h.content) for h in hits]


def test_a_question_about_before_an_undated_event_still_finds_the_replaced_value(mem, monkeypatch):
    at(monkeypatch, "2026-09-01T10:00:00Z")
    v1 = mem.save_fact("Redis TTL is 86400 seconds")
    at(monkeypatch, "2026-10-01T10:00:00Z")
    mem.save_fact("Redis TTL changed to 21600 seconds", supersedes=v1["id"])
    assert v1["id"] in ids(mem.search("what was the Redis TTL before the upgrade?", mode="fts"))


@pytest.mark.parametrize("question", ["Is staging still running in Hangzhou?",
                                      "Where does staging currently run?",
                                      "Where is staging running nowadays?"])
def test_still_and_currently_frame_a_question_about_now_and_are_no_topic(mem, monkeypatch, question):
    """English's 还 / 目前: "still", "currently", "nowadays", "anymore", "presently" say the
    question is about now (the temporal reading); as keywords they matched the newest line
    that happened to say "still" ("older loggers still post to 9090", heldout-devmem)."""
    at(monkeypatch, "2027-03-12T02:00:00Z")
    was = mem.save_fact("Marcus moved staging from the single ECS box to ACK in cn-hangzhou")["id"]
    at(monkeypatch, "2027-04-08T07:43:00Z")
    moved = mem.save_fact("staging and prod both move to ACK cn-shanghai for data residency")["id"]
    at(monkeypatch, "2027-04-12T01:51:00Z")
    for line in ("Device firmware 2.3 switches to port 8443; older loggers still post to 9090",
                 "The map screen currently lags on Android 10", "Nobody uses GetX nowadays"):
        mem.save_fact(line)
    at(monkeypatch, "2027-04-15T10:00:00Z")
    assert set(ids(mem.search(question, limit=2))) == {was, moved}


def test_a_question_about_now_is_not_answered_by_a_newer_line_sharing_only_its_function_words(mem, monkeypatch):
    """"lobby 那边还在用 Exposed 吗": 那边 (over there) and 用 (use) are no topic, but rare in a
    small store they weighed as much as "Exposed", so the newest line holding them ("苹果那边
    的构建暂时停掉，软发布用不上") was taken as about the question and put first
    (devmem-third's tune half). Like 现在, 那边 is a stopword now, and so are 目前, 当前, 如今;
    用 alone is no word for aboutness (a stopword character would be cut out of 用例)."""
    from storeutil import at, first
    at(monkeypatch, "2027-10-12T07:35:00Z")
    old = mem.save_fact("harbor-lobby 用 Kotlin 1.9 + Ktor 2.3，ORM 先用 Exposed")["id"]
    at(monkeypatch, "2027-10-19T08:13:00Z")
    new = mem.save_fact("Migrated lobby-db from Exposed to jOOQ; codegen runs against the migrations")["id"]
    at(monkeypatch, "2027-11-04T02:47:00Z")
    mem.save_fact("苹果那边的构建暂时停掉，软发布用不上")
    mem.save_fact("数据库迁移用 Flyway，脚本放在 services/lobby/lobby-db/db/migration")
    at(monkeypatch, "2027-11-26T10:00:00Z")
    assert first(mem, "lobby 那边还在用 Exposed 吗") == [new]
    assert first(mem, "lobby 目前还在用 Exposed 吗") == [new]
    assert old != new
