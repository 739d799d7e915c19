"""Time words in queries: the days they name and the newest/oldest intent."""
from datetime import date, datetime, timedelta, timezone

import pytest

from memory_core.temporal import NEWEST, OLDEST, Anchor, anchor, mentions, parse
from storeutil import days as stretch, named_days

NOW = datetime(2026, 10, 15, 12, 0, tzinfo=timezone.utc)  # a Thursday


def days(query, now=NOW):
    return stretch(query, now)


@pytest.mark.parametrize("query, first, after_last", [
    ("昨天复盘时说了什么", "2026-10-14", "2026-10-15"),
    ("what did we decide yesterday", "2026-10-14", "2026-10-15"),
    ("前天的部署", "2026-10-13", "2026-10-14"),
    ("今天改了什么", "2026-10-15", "2026-10-16"),
    ("上周数据库迁移停机了多久", "2026-10-05", "2026-10-12"),  # the calendar week before
    ("what broke last week", "2026-10-05", "2026-10-12"),
    ("上周三的会议", "2026-10-07", "2026-10-08"),
    ("上个月的事故", "2026-09-01", "2026-10-01"),
    ("this month's releases", "2026-10-01", "2026-10-16"),
    ("What did we add on Sept 12?", "2026-09-12", "2026-09-13"),
    ("changes on 24 September 2026", "2026-09-24", "2026-09-25"),
    ("9月12号周六用户说了什么", "2026-09-12", "2026-09-13"),
    ("10月3号发的热修复", "2026-10-03", "2026-10-04"),
    ("2026-09-12 的限流", "2026-09-12", "2026-09-13"),
    ("3天前的提交", "2026-10-12", "2026-10-13"),
    ("three days ago", "2026-10-12", "2026-10-13"),
    ("最近7天的告警", "2026-10-08", "2026-10-16"),
    ("昨晚的告警", "2026-10-14", "2026-10-15"),
    ("上星期的发布", "2026-10-05", "2026-10-12"),
    # said on a Thursday, "last Monday" is this week's to some and last week's to others
    ("what did we ship last monday", "2026-10-05", "2026-10-13"),
    ("what did we ship last friday", "2026-10-09", "2026-10-10"),  # only last week's
    ("上周一发了什么", "2026-10-05", "2026-10-06"),  # always last week's
])
def test_relative_and_absolute_dates_become_local_day_ranges(query, first, after_last):
    assert days(query) == (first, after_last)


@pytest.mark.parametrize("query, first, after_last", [
    ("最近两周改了什么", "2026-10-01", "2026-10-16"),
    ("近一周的告警", "2026-10-08", "2026-10-16"),
    ("过去三个月做了哪些迁移", "2026-07-15", "2026-10-16"),
    ("最近一个月 Redis 改过几次？", "2026-09-15", "2026-10-16"),
    ("what changed in the past 2 weeks", "2026-10-01", "2026-10-16"),
    ("what did we ship in the last week?", "2026-10-08", "2026-10-16"),  # not last week's
    ("outages over the past month", "2026-09-15", "2026-10-16"),
    ("last 3 months of releases", "2026-07-15", "2026-10-16"),
])
def test_the_weeks_or_months_up_to_today_are_one_stretch(query, first, after_last):
    """"最近两周", "in the past month" were no time at all ("最近" only asked for the newest
    first); "in the last week" is the seven days to today, "last week" the calendar's."""
    assert days(query) == (first, after_last)


@pytest.mark.parametrize("query, expected", [
    ("将近两个月前 Redis 缓存 TTL 是多少？", ("2026-08-01", "2026-09-01")),  # two months ago
    ("what shipped in the last three months of 2025?", ("2025-01-01", "2026-01-01")),
    ("in the last week's retro", ("2026-10-05", "2026-10-12")),  # the calendar's last week
    ("最近两周年的纪念活动", None),  # an anniversary
    ("最近一个周期的指标", None),
    ("最近两个月饼卖得怎么样", None),
    ("over the past month's budget", None),
])
def test_words_that_only_look_like_the_weeks_up_to_today(query, expected):
    """A hostile review's cases."""
    assert days(query) == expected


@pytest.mark.parametrize("query, first, after_last", [
    ("what shipped from March to May 2026?", "2026-03-01", "2026-06-01"),  # was May alone
    ("what changed between March and May?", "2026-03-01", "2026-06-01"),  # was no time
    ("from November to February 2026", "2025-11-01", "2026-03-01"),  # the year is the end's
])
def test_a_range_of_months_is_one_stretch(query, first, after_last):
    assert days(query) == (first, after_last)


def test_months_back_from_a_31st_end_on_a_shorter_months_last_day():
    assert days("最近一个月", "2026-03-31T12:00:00Z") == ("2026-02-28", "2026-04-01")
    assert days("过去三个月", "0001-02-03T12:00:00Z") is None  # before the calendar


def test_a_date_without_a_year_is_the_last_one_up_to_today():
    assert days("on Dec 24") == ("2025-12-24", "2025-12-25")
    assert days("on Oct 1") == ("2026-10-01", "2026-10-02")


def test_the_narrowest_date_named_wins():
    assert days("昨天复盘时说这个月最耗时的是什么") == ("2026-10-14", "2026-10-15")


@pytest.mark.parametrize("query, back_then", [
    ("当时因为隧道老是假离线，离线阈值放宽到了多少", True),
    ("15 秒上报那阵子一台车每月流量多少", True),
    ("那会儿用的是哪个库", True),
    ("what was the limit back then?", True),
    ("at the time, which ORM did we use?", True),
    ("At the time of the outage, what was the limit?", False),  # an event, read as one
    ("到时候再说", False), ("当时间到了以后怎么办", False),
    ("现在还是当时那个值吗", False),  # asks about now
])
def test_back_then_is_a_past_time_without_a_day(query, back_then):
    hint = parse(query, NOW)
    assert (hint.back_then, hint.asks_past() and hint.start is None and hint.anchor is None
            and hint.order is None) == (back_then, back_then)


@pytest.mark.parametrize("query, day", [
    # asked on Thursday 2026-10-15: two weeks back is the week of Monday 09-28
    ("two weeks ago on thursday we changed the access token lifetime to what?", "2026-10-01"),
    ("Thursday two weeks ago", "2026-10-01"),
    ("on Tue. two weeks ago", "2026-09-29"),
    ("we met monday, three weeks ago, to plan", "2026-09-21"),
    ("a week ago Friday", "2026-10-09"),
    ("两周前的周四", "2026-10-01"),
    # counted back in that day's name: the last Tuesday before today is one ago
    ("two Tuesdays ago", "2026-10-06"),
    ("what did we ship two Thursdays ago", "2026-10-01"),  # today, a Thursday, is none ago
    ("the Monday before last", "2026-10-05"),
])
def test_a_weekday_weeks_ago_is_that_one_day(query, day):
    """"two weeks ago on Thursday" was read as "on Thursday" (today), and "Thursday two
    weeks ago" as the fortnight's stretch; the Chinese 两周前的周四 was one day already."""
    assert days(query) == (day, (date.fromisoformat(day) + timedelta(days=1)).isoformat())


@pytest.mark.parametrize("query, order", [
    ("Redis 缓存 TTL 现在是多少？", NEWEST), ("目前用的是什么", NEWEST),
    ("What's the current pool size?", NEWEST), ("the latest Lighthouse score", NEWEST),
    ("最早的时候 TTL 设的是多少", OLDEST), ("what was the port originally", OLDEST),
    ("what is the cache TTL", None), ("May I ask about the May release", None),
])
def test_newest_and_oldest_intent(query, order):
    assert parse(query, NOW).order == order


def test_time_words_are_not_mistaken_in_ordinary_words():
    assert not parse("nowhere currentness 3个月的计划 user@host", NOW).start
    assert not parse("the knowledge base", NOW)


def test_a_conversation_has_no_time_hint():
    talk = '<A>:"我今天去公园了"\n<B>:"现在还在吗"\n<A>:"昨天也去了"'
    assert not parse(talk, NOW)


def test_a_prompt_of_several_lines_that_no_speakers_say_is_read_for_its_time():
    """Only a conversation's time words are the speakers'. A prompt whose question is on a
    line of its own got no hint at all; its asking line's time words now scope it, and
    the other lines' do not (as for the sentences of one line)."""
    hint = parse("昨天部署的脚本报错了\n上周我们把 Redis TTL 改成多少了？", NOW)
    assert (hint.start.date().isoformat(), hint.end.date().isoformat()) == ("2026-10-05", "2026-10-12")
    assert not parse("昨天部署的脚本报错了\n怎么回滚到上一个版本？", NOW)


@pytest.mark.parametrize("prompt", [
    "2026-10-14 10:00:01 INFO redis ttl reload\n2026-10-14 10:00:02 ERROR cache miss storm\n"
    "what is the Redis cache TTL",
    "Last week we had an outage\nwhat's the Redis cache TTL now",
    "上周部署出了问题，回滚了\nRedis 缓存 TTL 是多少",
    "```\n[2026-10-05 09:00] redis: ttl=3600\n```\nwhat should the Redis cache TTL be",
])
def test_a_prompt_of_several_lines_that_asks_nothing_is_asked_on_its_last_line(prompt):
    """A hostile review: with no "?" anywhere, every line's time words scoped the search, a
    pasted log's dates included, and a replaced value came first."""
    assert parse(prompt, NOW).start is None


def test_code_and_sql_question_marks_do_not_ask():
    """`open(url)?;` and `id = ?` took the place of the question: "last week" was lost."""
    hint = parse("let c = redis::Client::open(url)?;\nwhat was the redis pool size last week", NOW)
    assert hint.start is not None and hint.start.date().isoformat() == "2026-10-05"
    hint = parse("SELECT * FROM users WHERE id = ?\n上周 Redis TTL 改成多少了", NOW)
    assert hint.start is not None and hint.start.date().isoformat() == "2026-10-05"


def test_full_width_note_labels_are_labels_for_the_time_too():
    """weighted_terms read "ＴＯＤＯ：" folded (a label), parse raw (a speaker): the prompt was
    sentences for its terms and a conversation, with no time, for its time."""
    hint = parse("ＴＯＤＯ：修复登录\nＮＯＴＥ：周五不发版\n上周 Redis 缓存 TTL 最后定的多少？", NOW)
    assert hint.start is not None


@pytest.mark.parametrize("query, expected", [
    # small talk before the question: its 今天/最近 are not the question's
    ("今天天气真好，阳光明媚。最近也挺忙的。我想问的是：那个规模是三千人的活动，地点是什么？", None),
    ("The build broke again today. What did we decide about the cache last week?",
     ("2026-10-05", "2026-10-12")),
    ("昨天又下雨了。上周三的会议定了什么？", ("2026-10-07", "2026-10-08")),
    # one sentence, or no sentence that asks: every time word counts
    ("昨天我们讨论了缓存，最后决定用什么方案？", ("2026-10-14", "2026-10-15")),
    ("昨天的部署。", ("2026-10-14", "2026-10-15")),
    # a link's "?" asks nothing: yesterday's run is small talk here
    ("yesterday the run https://ci.example/x?job=3 failed. what broke last week?",
     ("2026-10-05", "2026-10-12")),
])
def test_time_words_count_in_the_sentence_that_asks(query, expected):
    assert days(query) == expected


def test_newest_intent_in_small_talk_is_not_the_questions():
    assert parse("最近天气变化真大。那个职业是医生的人，邮箱地址是什么？", NOW).order is None
    assert parse("天气变化真大。那个医生现在的邮箱是什么？", NOW).order == NEWEST


def test_the_clock_comes_from_cursor_memory_now(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    from memory_core.config import now
    assert days("昨天") == ("2026-10-14", "2026-10-15")
    assert parse("昨天", now()).start.date().isoformat() == "2026-10-14"


# --- paraphrases written before the rules (issue #16): how people name days -------------------------

@pytest.mark.parametrize("query, first, after_last", [
    ("月初定的方案是什么", "2026-10-01", "2026-10-11"),
    ("上个月初的事故", "2026-09-01", "2026-09-11"),
    ("上个月底发布了什么", "2026-09-21", "2026-10-01"),
    ("月底那次回滚", "2026-09-21", "2026-10-01"),  # this month's end is still ahead: last month's
    ("9月中旬的压测", "2026-09-11", "2026-09-21"),
    ("九月下旬", "2026-09-21", "2026-10-01"),
    ("上周末谁值班", "2026-10-10", "2026-10-12"),
    ("周末的告警", "2026-10-10", "2026-10-12"),
    ("what happened last weekend", "2026-10-10", "2026-10-12"),
    ("前几天说的那个 bug", "2026-10-10", "2026-10-15"),
    ("a few days ago", "2026-10-10", "2026-10-15"),
    ("周二出了什么事", "2026-10-13", "2026-10-14"),
    ("what did we decide on Tuesday", "2026-10-13", "2026-10-14"),
    ("两个月前", "2026-08-01", "2026-09-01"),
    ("2 months ago", "2026-08-01", "2026-09-01"),
    ("今天早上的部署", "2026-10-15", "2026-10-16"),
    ("this morning's deploy", "2026-10-15", "2026-10-16"),
    ("去年冬天", "2025-12-01", "2026-03-01"),
    ("last summer", "2026-06-01", "2026-09-01"),  # the most recent summer that is over
    ("三月份的预算", "2026-03-01", "2026-04-01"),
    ("十月初", "2026-10-01", "2026-10-11"),
    ("国庆期间谁在线", "2026-10-01", "2026-10-08"),
    ("earlier this week", "2026-10-12", "2026-10-15"),
    ("本周早些时候", "2026-10-12", "2026-10-15"),
    ("in early October", "2026-10-01", "2026-10-11"),
    ("late September", "2026-09-21", "2026-10-01"),
    ("mid-September", "2026-09-11", "2026-09-21"),
    ("三周前", "2026-09-21", "2026-09-28"),
])
def test_more_ways_of_naming_days(query, first, after_last):
    assert days(query) == (first, after_last)


@pytest.mark.parametrize("query", ["two weeks ago", "两周前", "2 weeks ago"])
def test_n_weeks_ago_holds_that_day_and_its_calendar_week(query):
    """Both helpers who wrote bench/data/time-phrases read "two weeks ago" as the Monday-Sunday
    week; others mean the day give or take a few. Asked on a Monday (2026-10-12), the day is
    Monday 09-28: its week runs to Sunday 10-04, three days either side start on 09-25."""
    monday = datetime(2026, 10, 12, 9, 0, tzinfo=timezone.utc)
    assert days(query, monday) == ("2026-09-25", "2026-10-05")


@pytest.mark.parametrize("query, order", [
    ("are we still on Redis for sessions?", NEWEST), ("还在用 Jest 吗", NEWEST),
    ("TTL 后来改成多少了", NEWEST), ("最后定的端口是哪个", NEWEST),
    ("what did we end up using for the ORM", NEWEST), ("as of now, which queue", NEWEST),
    ("目前部署在哪个集群", NEWEST), ("right now the pool size is", NEWEST),
    ("which CI do we use nowadays", NEWEST), ("我们现在的 CI 是什么", NEWEST),
    ("一开始用的哪个 ORM", OLDEST), ("what did we use at first", OLDEST),
    ("最初的方案", OLDEST), ("the original plan for auth", OLDEST),
    ("still image pipeline docs", None), ("the finally block in Python", None),
])
def test_more_ways_of_asking_for_the_newest_or_the_oldest(query, order):
    assert parse(query, NOW).order == order


@pytest.mark.parametrize("name", ["tune", "heldout"])
def test_nine_in_ten_of_each_paraphrase_set_are_read_as_labelled(name):
    """bench/data/order-intent: 150 questions each, written by helpers that read no code
    (the rules were written from `tune`'s misses; `heldout` was only measured). Each label
    (newest, oldest, neither: hard negatives such as "现在既然上了 k8s" or "the current
    user" included) is read right at least nine times in ten; before these rules, 44 of
    tune's 70 newest and 21 of heldout's 30 oldest were."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "bench" / "data" / "order-intent" / f"{name}.jsonl"
    tally: dict = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        right, total = tally.get(q["order"], (0, 0))
        tally[q["order"]] = (right + (parse(q["q"], NOW).order == q["order"]), total + 1)
    assert all(right >= 0.9 * total for right, total in tally.values()), tally


@pytest.mark.parametrize("query, order", [
    ("数据库迁移工具换了没？换成啥了", NEWEST), ("灰度比例调到多少了", NEWEST),
    ("是不是还用 Jenkins 跑 CI", NEWEST), ("日志还是发到 ELK 吗", NEWEST),
    ("We don't use Travis anymore, right?", NEWEST), ("Is the Redis TTL still 3600?", NEWEST),
    ("what did we settle on for the queue", NEWEST), ("as of today, what's the rate limit", NEWEST),
    ("原来的限流阈值是多少来着", OLDEST), ("What was the initial Redis TTL?", OLDEST),
    ("To begin with, what port did the API use?", OLDEST), ("第一版的鉴权怎么做的", OLDEST),
    ("现在开始写测试要注意什么", None), ("我现在要加一个接口，放哪个模块", None),
    ("Now that we have the logs, how do I find the slow query?", None),
    ("Why is the build still slow?", None), ("当前目录下有哪些 Makefile target", None),
    ("how do I get the current user in the admin API", None), ("最终一致性怎么保证", None),
    ("目前为止遇到过哪些 OOM", None), ("原来如此，那 CI 怎么配", None),
    ("我现在的吉他课是怎么上的？", NEWEST), ("你现在用的是哪个模型", NEWEST),
    ("我本来想说的是，那个活动的地点是什么？", None), ("原来打算用哪个队列", None),
    ("本来的超时是多少", OLDEST), ("原本的端口是几", OLDEST),
    ("Which Node version are they running in CI?", NEWEST), ("which queue are we on for email jobs", NEWEST),
    ("Does the feed show the latest posts first?", None), ("列表能按最新创建时间排序吗", None),
])
def test_the_current_or_first_value_is_asked_in_many_words_and_not_by_every_now(query, order):
    assert parse(query, NOW).order == order


@pytest.mark.parametrize("text, written, day", [
    ("上周二压测挂了", "2026-10-14T09:00:00Z", "2026-10-06"),
    ("yesterday we rolled back the release", "2026-10-09T09:00:00Z", "2026-10-08"),
    ("前天体检，一切正常", "2026-10-09T09:00:00Z", "2026-10-07"),
    ("月初定的方案是蓝绿发布", "2026-10-20T09:00:00Z", "2026-10-01"),
    ("Last Friday's outage was the DNS", "2026-10-14T09:00:00Z", "2026-10-09"),
    ("10月3号发了热修复", "2026-10-14T09:00:00Z", "2026-10-03"),
])
def test_days_a_record_names_are_read_from_its_own_time(text, written, day):
    from memory_core.temporal import mentions
    from memory_core.config import parse_time
    spans = mentions(text, parse_time(written))
    first, last = min(spans, key=lambda d: d[1] - d[0])  # the narrowest stretch it names
    assert first <= datetime.fromisoformat(day).date() <= last


def test_a_record_is_found_by_the_day_it_names(mem, monkeypatch):
    """Written on the 14th about "last Tuesday": asked for the 6th, it comes first."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-14T09:00:00Z")
    wanted = mem.save_fact("上周二压测挂了，连接池打满")
    mem.save_fact("连接池扩容到 200，压测通过")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-06T09:00:00Z")
    mem.save_fact("周二例会讨论了发布流程")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T09:00:00Z")
    hits = mem.search("10月6号压测出了什么问题", limit=3)
    assert hits[0].id == wanted["id"]


@pytest.mark.parametrize("query", ["最近两周改了什么", "what changed in the past two weeks?"])
def test_a_question_about_the_last_weeks_lists_their_records(mem, monkeypatch, query):
    """It found nothing: no stretch was read and no keyword matched."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-08-10T09:00:00Z")
    old = mem.save_fact("Redis 缓存 TTL 设为 3600 秒")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-10T09:00:00Z")
    new = mem.save_fact("Redis 缓存 TTL 改成 7200 秒", supersedes=old["id"])
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-20T09:00:00Z")
    found = [h.id for h in mem.search(query, limit=5, mode="fts")]
    assert new["id"] in found and old["id"] not in found


def test_a_question_of_only_time_words_lists_that_days_records(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-13T10:00:00Z")
    a = mem.save_fact("合并了订单服务的重构")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-12T10:00:00Z")
    mem.save_fact("周一只开了例会")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    hits = mem.search("周二出了什么事", limit=3)
    assert hits and hits[0].id == a["id"]


@pytest.mark.parametrize("query, first, after_last", [
    ("上上周二为上线做了哪些准备", "2026-09-29", "2026-09-30"),
    ("三周前的周五升级了什么", "2026-09-25", "2026-09-26"),
    ("一个月前的今天做了什么", "2026-09-15", "2026-09-16"),
    ("上个月14号上午为什么换了框架", "2026-09-14", "2026-09-15"),
    ("What did we do this Monday?", "2026-10-12", "2026-10-13"),
    ("两周前的周三", "2026-09-30", "2026-10-01"),
    ("上上上周做了什么", "2026-09-21", "2026-09-28"),  # not 上上周: each 上 is a week
    ("上上上周二开会说了啥", "2026-09-22", "2026-09-23"),
    ("上上上个月的账单", "2026-07-01", "2026-08-01"),
])
def test_compound_day_expressions_are_read_whole(query, first, after_last):
    assert days(query) == (first, after_last)


def test_a_record_that_names_a_month_is_not_about_every_day_of_it():
    from memory_core.config import parse_time
    from memory_core.temporal import mentions
    assert mentions("月度复盘：本月最耗时的是 ORM 迁移", parse_time("2026-10-14T09:00:00Z")) == []
    assert mentions("上周二压测挂了", parse_time("2026-10-14T09:00:00Z"))


def test_a_named_day_brings_its_work_beside_lines_that_share_the_word(mem, monkeypatch):
    """"上周四都干了啥" finds last Thursday's work even where a line says 周四. (Time words
    are also matched as keywords: taking them out scored lower on both halves of the
    benchmarks, docs/retrieval.md.)"""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-08T10:00:00Z")
    mem.save_summary("数据库迁移", "把生产库迁到 RDS，停机 38 分钟", session_id="s1")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-09-04T10:00:00Z")
    mem.save_fact("测试同学每周四做一次回归测试")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    hits = mem.search("上周四都干了啥？", limit=3, mode="fts")  # the vectors alone find it too
    assert "session_summary" in [h.type for h in hits]


def test_a_day_named_brings_that_days_summary_even_in_other_words(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-09-24T10:00:00Z")
    s = mem.save_summary("安全加固", "密码哈希换成 argon2id，token 有效期改为 30 分钟", session_id="s1")
    mem.save_fact("Added helmet to the API")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    assert s["id"] in [h.id for h in mem.search("On Sept 24, what security changes went in?", limit=3,
                                                 mode="fts")]  # the vectors alone find it too


# --- times named by events (issue #16: "before the launch") ----------------------------------

@pytest.mark.parametrize("query, expected", [
    ("the day before launch, why did the cache TTL get shortened?", Anchor("launch", -1, -1)),
    ("How many people signed up on launch day?", Anchor("launch", 0, 0)),
    ("上线当天遇到了哪些问题", Anchor("上线", 0, 0)),
    ("我们上线那天出了什么状况", Anchor("上线", 0, 0)),
    ("发布会前一天定了什么", Anchor("发布会", -1, -1)),
    ("迁库之后那天出了什么事", Anchor("迁库", 1, 1)),
    ("上线前一周做了哪些准备", Anchor("上线", -7, -1)),
    ("demo 当天谁演示的", Anchor("demo", 0, 0)),
    ("what was the pool size before the load test?", Anchor("load test", None, 0)),
    ("What did Melanie do the week after her camping trip?", Anchor("camping trip", 1, 7)),
    ("What did Caroline do after Melanie's wedding?", Anchor("Melanie wedding", 0, None)),
    ("What did Jon do the week before his dance studio's grand opening?",
     Anchor("dance studio grand opening", -7, -1)),
    ("right after the outage what did we change", Anchor("outage", 0, 2)),
    ("Olivia 交安全报告的那天，连接池怎么调的？", Anchor("Olivia 交安全报告", 0, 0)),
    ("压测把 RDS 连接数打满之前 max_conns 是多少", Anchor("RDS 连接数打满", None, 0)),
    ("为什么要在上线前一天改配置", Anchor("上线", -1, -1)),
    ("试点上线两天后改了什么", Anchor("试点上线", 2, 2)),
    ("上线三天前定了什么", Anchor("上线", -3, -3)),
    ("上线后第三天出了什么问题", Anchor("上线", 3, 3)),
    ("发版一周后回滚了吗", Anchor("发版", 4, 10)),
    ("two days after the launch, what changed?", Anchor("launch", 2, 2)),
    ("What debounce did we use on the day we launched the pilot?", Anchor("launched pilot", 0, 0)),
    ("what broke the night the pilot went live", Anchor("pilot live", 0, 1)),
    ("试点上线前那一周的周一改了什么", Anchor("试点上线", -7, -1, weekday=0)),
    ("What shipped the Friday after the launch?", Anchor("launch", 1, 7, weekday=4)),
    # an adverb or "第一个" between the day and the event (devmem-third's tune half: the
    # first was read as "right after", the second as a Saturday counted from today)
    ("The Saturday right after CBT opened - what broke?", Anchor("CBT opened", 1, 7, weekday=5)),
    ("the day just before the launch", Anchor("launch", -1, -1)),
    ("the week right after the outage", Anchor("outage", 1, 7)),
    ("封测开服后第一个周六出了什么问题", Anchor("封测开服", 1, 7, weekday=5)),
])
def test_an_event_can_name_the_time(query, expected):
    assert parse(query, NOW).anchor == expected


# "那次" / "那回" between the event and the time (2026-11-27): before, "queue backlog 那次之前"
# was read as the event "backlog 那次"; of 55 such questions a helper wrote without reading
# the code none was read whole (14 gave no event); now 37 are (docs/retrieval.md).
@pytest.mark.parametrize("query, expected", [
    ("email worker 的 concurrency 在 queue backlog 那次之前是多少？", Anchor("queue backlog", None, 0)),
    ("Redis 挂掉那次之后加了什么告警", Anchor("Redis 挂掉", 0, None)),
    ("压测的那回之前连接池上限是多少？", Anchor("压测", None, 0)),
    ("支付回调大面积超时的那次，前一天谁动过网关配置？", Anchor("支付回调大面积超时", -1, -1)),
    ("迁库那次的前一天谁改了配置", Anchor("迁库", -1, -1)),
    ("上次迁库那次之前一周有谁改过表结构", Anchor("迁库", -7, -1)),  # 上次 is not the event's
    ("K8s 在升级那天为什么 Pod 全部重启了", Anchor("K8s 在升级", 0, 0)),  # K8s was upgraded
    ("IT 部门搬机房那天 VPN 断了多久", Anchor("IT 部门搬机房", 0, 0)),  # IT is no "it"
    ("check the nginx access log for OOM 那次之前的请求", Anchor("OOM", None, 0)),
    ("SSL 到期那天谁在值班", Anchor("SSL 到期", 0, 0)),  # 到 / 对 open words, not a phrase
    ("API 对接那天出了什么问题", Anchor("API 对接", 0, 0)),
    ("Redis 在线迁移那天出了什么问题", Anchor("Redis 在线迁移", 0, 0)),
    ("MySQL 从库切换那天", Anchor("MySQL 从库切换", 0, 0)),
    ("自从迁库之后慢查询多了吗", Anchor("迁库", 0, None)),  # 自从 is not the event's
])
def test_that_time_between_the_event_and_the_relation_is_read_through(query, expected):
    assert parse(query, NOW).anchor == expected


@pytest.mark.parametrize("query", ["上线三天前定了什么", "试点上线前那一周的周一改了什么",
                                   "上线两天后改了什么"])
def test_days_counted_from_an_event_are_not_counted_from_today(query):
    """"三天前" and "周一" here are the event's, not the calendar's."""
    assert days(query) is None


@pytest.mark.parametrize("query, expected", [
    ("上线后第一个周末出了什么事", Anchor("上线", 1, 7, weekday=5, days=2)),
    ("上线前的那个周末谁值班", Anchor("上线", -7, -1, weekday=5, days=2)),
    ("what broke the weekend after the launch", Anchor("launch", 1, 7, weekday=5, days=2)),
])
def test_a_weekend_around_an_event_is_its_saturday_and_sunday(query, expected):
    """Was one to three days after it ("the weekend after") or last weekend ("上线后第一个周末")."""
    assert parse(query, NOW).anchor == expected
    launch = date(2027, 3, 30)  # a Tuesday
    start, end = expected.stretch(launch, launch, NOW)
    assert (end - start).days == 2 and start.weekday() == 5


def test_the_first_weekend_after_a_calendar_day_is_its_saturday_and_sunday():
    """"8月3日后第一个周末" was that Saturday alone (8月3日后的周末 was both already)."""
    assert days("8月3日后第一个周末谁值班") == days("8月3日后的周末谁值班") == ("2026-08-08", "2026-08-10")


def test_a_weekday_of_the_week_around_an_event_is_that_one_day():
    launch = date(2027, 3, 29)  # a Monday
    monday_before = Anchor("launch", -7, -1, weekday=0).stretch(launch, launch, NOW)
    friday_after = Anchor("launch", 1, 7, weekday=4).stretch(launch, launch, NOW)
    assert [d.date().isoformat() for d in monday_before] == ["2027-03-22", "2027-03-23"]
    assert [d.date().isoformat() for d in friday_after] == ["2027-04-02", "2027-04-03"]


@pytest.mark.parametrize("query, event, after, day", [
    # an outage on Saturday 2028-03-25: the first workday after it is Monday 03-27
    ("first workday after the EMQX outage — what did we decide about the buffer?", "EMQX outage", True, "2028-03-27"),
    ("the first working day after the outage", "outage", True, "2028-03-27"),
    ("the next business day after the outage", "outage", True, "2028-03-27"),
    ("故障后的第一个工作日定了什么", "故障", True, "2028-03-27"),
    ("迁库之后的首个工作日", "迁库", True, "2028-03-27"),
    ("the last business day before the outage", "outage", False, "2028-03-24"),
    ("审计前最后一个工作日改了什么", "审计", False, "2028-03-24"),
])
def test_a_workday_around_an_event_skips_the_weekend(query, event, after, day):
    """"The day after" a Saturday outage is Sunday; "the first workday after" it was read as
    every day after it. It is the first Monday-Friday day after, or the last one before."""
    found = anchor(query)
    assert (found.event, found.workday) == (event, True)
    outage = date(2028, 3, 25)
    start, end = found.stretch(outage, outage, NOW)
    assert (start.date().isoformat(), (end - start).days) == (day, 1)
    assert anchor("the day after the outage").stretch(outage, outage, NOW)[0].date() == date(2028, 3, 26)


def test_a_workday_after_a_calendar_day_is_read_too():
    assert days("3月25日之后的第一个工作日做了什么", "2028-04-21T02:00:00Z") == ("2028-03-27", "2028-03-28")
    assert days("10月9日后的第一个工作日") == ("2026-10-12", "2026-10-13")  # a Friday


@pytest.mark.parametrize("query", [
    "之前用的是什么",  # "before" with no event
    "钱文老师以前是做什么的",  # 以前: "formerly", not "before 钱文老师"
    "What did Caroline find during her walk?",  # during: the topic, not a time
    "what did we do the other day",
    "Which day did we deploy?",
    "What was the closed beta's day-7 retention?",  # was the event "s" (devmem-third)
    "before we switched to Drizzle what did we use",  # no event phrase after "before"
    "Redis TTL 现在是多少？",
    "那次数据库迁移是谁负责的？",  # the event asked about, not a time around it
    "OOM 那次的根因最后查清楚了吗？",
    "这次以后都用 pnpm",  # 以后 is "from now on" unless an event's 那次 stands before it
    "上次以后没再出过问题",
    # found by hostile reviews: 以前 / 以后 after 次 / 回, or after 那次 ("since that time")
    "自从那次以后，Redis 的 maxmemory 是不是就改成 4G 了",
    "TTL 那次以后改成多少了",
    "自从那次之后就没人敢周五发版了",  # "since that time": 自从 is no event
    "还记得那次之后谁接手了支付模块吗",
    "每次发版之前要跑哪些检查？",  # before every release: no one day
    "在每次上线之前都要通知谁",
    "第三次以后重试间隔是多少",
    "登录失败五次以后账号会锁定吗",
    "消息撤回以后对方还能看到吗",
    "这一回以后都用 uv 管理依赖",
    "你说的那次以前我们用的什么方案",
    "上线那次，之前说好的回滚方案执行了吗",  # 之前 after a comma: "agreed earlier"
])
def test_words_like_before_or_that_day_alone_name_no_event(query):
    assert anchor(query) is None


@pytest.mark.parametrize("query", [
    "What's the difference between our liveness and readiness endpoints?",
    "how do we choose between Kafka and NATS for the settlement events?",
    "the relationship between rooms and battle processes",
    "压测和上线之间的区别是什么", "lobby 和 match 之间的调用走 gRPC 吗",
    "who looks after our servers, and which city do they work from?",
    "the cluster was named after the launch codename", "A 和 B 之间有什么区别", "A 和 B 之间怎么选",
])
def test_things_compared_or_a_verb_s_after_name_no_event(query):
    """"the difference between liveness and readiness" was a stretch from one event to the
    other, and "who looks after our servers" the days after "servers": each then kept only
    the records of a stretch the store dated by those words."""
    assert anchor(query) is None


@pytest.mark.parametrize("query, event, until", [
    ("what happened between the launch and the outage?", "launch", "outage"),
    ("how much traffic between the launch and the outage?", "launch", "outage"),
    ("压测和上线之间改了什么", "压测", "上线"),
    ("从上线到故障之间的流量变化", "上线", "故障"),  # 到: a span, whatever follows 之间
])
def test_a_stretch_between_two_events_is_still_read(query, event, until):
    a = anchor(query)
    assert (a.event, a.until) == (event, until)


@pytest.mark.parametrize("query, first, after_last", [
    ("节后第一天迁库，实际停机了多久？", "2026-10-08", "2026-10-09"),  # after 国庆 (10-01..07)
    ("国庆前一天上线了什么", "2026-09-30", "2026-10-01"),
    ("清明前最后一天做了啥", "2026-04-03", "2026-04-04"),
    ("the day after Christmas", "2025-12-27", "2025-12-28"),
    ("去年清明节后第一天", "2025-04-07", "2025-04-08"),  # 2025: 4-4 (Fri) .. 4-6
])
def test_a_holiday_as_the_event_is_dated_by_the_calendar(query, first, after_last):
    assert days(query) == (first, after_last)
    assert parse(query, NOW).anchor is None


@pytest.mark.parametrize("query, first, after_last", [
    ("What did John do the week before August 3, 2026 with his kids?", "2026-07-27", "2026-08-03"),
    ("Where was Tim in the week before 16 September 2026?", "2026-09-09", "2026-09-16"),
    ("what did we ship the day after Sept 30", "2026-10-01", "2026-10-02"),
    ("the puppy she got two weeks before August 11, 2026", "2026-07-25", "2026-08-01"),
    ("上周三之前一周做了什么", "2026-09-30", "2026-10-07"),  # 上周三: 10-07
    ("7月20号之后那天发生了什么", "2026-07-21", "2026-07-22"),
    ("2026年9月30日前一天改了什么", "2026-09-29", "2026-09-30"),
])
def test_a_day_the_calendar_names_can_be_the_event(query, first, after_last):
    """"the week before August 3": the days around a date, not the date (which read as an
    event named "August", or as the day itself, before)."""
    assert days(query) == (first, after_last)
    assert parse(query, NOW).anchor is None


def test_a_week_before_an_event_in_chinese_reads_with_zhi():
    """"上线之前一周" is the week before launch, not everything before it."""
    assert parse("上线之前一周做了什么", NOW).anchor == Anchor("上线", -7, -1)


def test_the_week_before_a_date_finds_what_was_said_of_that_week(mem, monkeypatch):
    """A line written on the 3rd says "last week": asked for the week before the 3rd, it
    comes first, above a line that shares more of the question's words on another day."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-08-03T18:00:00Z")
    wanted = mem.save_fact("John: Last week we took the kids to the military memorial")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-06-12T18:00:00Z")
    mem.save_fact("John: this week the kids did so much, it involved the whole family in August")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-08-20T12:00:00Z")
    hits = mem.search("What did John do the week before August 3, 2026 involving his kids?",
                      limit=3, mode="fts")
    assert hits[0].id == wanted["id"], [h.content for h in hits]


@pytest.mark.parametrize("query", ["the day we " + "ab " * 5000, "Olivia " * 3000 + "那天",
                                   "上线前" + "那的一个" * 2000 + "周一", "two days after " * 2000,
                                   "the monday before " * 2000, "a" + " " * 5000 + "上线那天",
                                   "The day " * 3000, "那次" * 5000 + "之前", "ab 那次，" * 2000 + "前一天"])
def test_a_long_repetitive_query_names_a_short_event_in_one_pass(query):
    """Every part of an event is bounded (words, the spaces between them, the words of a
    clause): a query of thousands of repeats gives an event of a few words, if any."""
    found = anchor(query)
    assert found is None or len(found.event) < 100


@pytest.mark.parametrize("text, named", [
    ("外部安全审计是 Olivia 做的，她下周三出报告", ["2027-03-24"]),
    ("launch is next Monday", ["2027-03-22"]),
    ("tomorrow we ship", ["2027-03-20"]),
    ("后天发版", ["2027-03-21"]),
    ("试点 3 月 29 日上线", ["2027-03-29"]),  # ahead of the record: this year's
    ("下周开始压测", ["2027-03-22/2027-03-28"]),
])
def test_a_record_can_name_a_day_ahead_of_it(text, named):
    assert named_days(text, "2027-03-19") == named  # a Friday


@pytest.mark.parametrize("text, written, named", [
    # a plan up to a quarter ahead is this year's (14 days read these as a year ago)
    ("鲜达要求试点在 3 月 29 日上线", "2027-03-10", ["2027-03-29"]),
    ("产品经理要求 v1.1 在 11 月 10 日前上线", "2026-10-15", ["2026-11-10"]),
    ("约了5月9号拔牙", "2025-04-17", ["2025-05-09"]),
    ("吴楠实习延长到六月底", "2027-04-01", ["2027-06-21/2027-06-30"]),
    ("目标 12 月 21 日", "2027-11-23", ["2027-12-21"]),
    ("元旦打算去哈尔滨，12月31号走", "2025-12-10", ["2025-12-31", "2026-01-01"]),
    ("国庆跟子航去大理", "2025-09-26", ["2025-10-01/2025-10-07"]),
    # further ahead than a quarter: a day that has passed
    ("12月20日那次宕机", "2027-08-01", ["2026-12-20"]),
    ("国庆那天值班", "2027-05-01", ["2026-10-01"]),
])
def test_a_date_without_a_year_in_a_record_is_the_nearest_plan_up_to_a_quarter_ahead(
        text, written, named):
    assert named_days(text, written) == named


@pytest.mark.parametrize("query", ["明天要做什么", "下周三的会议", "what is due next Monday"])
def test_a_question_names_no_day_ahead(query):
    assert days(query) is None


@pytest.mark.parametrize("query", ["上线八九十天后", "上线十十天前", "发版二三四周后改了啥"])
def test_a_count_that_is_no_number_names_no_time(query):
    h = parse(query, NOW)
    assert h.start is None and h.anchor is None


@pytest.mark.parametrize("now, first, last", [
    ("2027-04-16", "2027-04-03", "2027-04-05"),  # 4-5 is a Monday: the weekend before
    ("2023-05-01", "2023-04-05", "2023-04-05"),  # a Wednesday: the day alone
    ("2026-10-15", "2026-04-04", "2026-04-06"),  # a Sunday: Saturday to Monday
])
def test_qingming_follows_the_sun_and_the_weekend(now, first, last):
    h = parse("清明假期做了什么", datetime.fromisoformat(now + "T12:00:00+00:00"))
    assert (h.start.date().isoformat(), (h.end.date() - timedelta(days=1)).isoformat()) == (first, last)


@pytest.mark.parametrize("query", ["x" * 5000, "x" * 5000 + " 当天", "a" * 5000 + " day",
                                   "ab " * 5000, "天" * 5000])
def test_a_long_run_of_letters_is_read_in_one_pass(query):
    """An event's words are bounded: with unbounded ones, a 1,000-letter word took the
    Chinese event pattern 11 s (2,000 letters: 81 s; the work grew with the cube)."""
    assert anchor(query) is None
    assert parse(query, NOW).anchor is None


@pytest.mark.parametrize("query", ["latest " + "-" * 300, "newest " + "-" * 300,
                                   "most recent " + "- " * 300 + "x",
                                   ("between a" + "-" * 190) * 10, "latest " + "a-" * 1000 + "first"])
def test_a_run_of_dashes_is_read_in_one_pass(query):
    """A hyphen was both part of a word and a separator between words in the sort-order and
    "between X and Y" patterns, so a run of dashes could be split in every way: "latest"
    + 300 dashes did not finish in a minute, each "between a-----…" cost 5 s, in every
    search (found by a hostile review). Words now split at spaces only."""
    assert parse(query, NOW).anchor is None


@pytest.mark.parametrize("query", ["list the latest build-id first", "newest-first please",
                                   "show the most recent deploy logs first"])
def test_a_sort_order_with_hyphens_is_still_an_order_not_a_question(query):
    assert parse(query, NOW).order is None


@pytest.mark.parametrize("query", ["0001-01-01 发生了什么", "Jan 1, 0001 deploy",
                                   "0001年1月1日 deploy", "what happened on 0001-01-02"])
def test_a_day_at_the_end_of_the_calendar_names_no_time(query):
    """A local midnight of year 1 does not exist west of UTC: such a day is no stretch, not
    an error out of every search that names it (found by a hostile review)."""
    h = parse(query, NOW)
    assert h.start is None and h.end is None


def test_a_record_stamped_at_the_end_of_the_calendar_names_no_day():
    assert mentions("deploy 昨天上线", datetime(9999, 12, 25, tzinfo=timezone.utc)) == []
    assert mentions("deploy 昨天上线", datetime(1, 1, 2, tzinfo=timezone.utc)) == []


def test_a_hand_written_line_stamped_in_year_9999_breaks_no_search(mem, monkeypatch):
    """One imported line stamped 9999-12-25 that names a day used to raise OverflowError
    out of every sync, so every search of the store failed; now it is indexed like any
    line and names no day."""
    import json

    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-01T10:00:00Z")
    good = mem.save_fact("deploy notes for the release")
    daily = next((mem.root / "daily").glob("*.jsonl"))
    with open(daily, "a", encoding="utf-8") as f:
        f.write(json.dumps({"id": "log-99991225-000000-aaaaaaaaaa", "type": "fact",
                            "memory_type": "W", "content": "deploy 昨天上线", "entities": [],
                            "confidence": 1.0, "timestamp": "9999-12-25T00:00:00Z"}) + "\n")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T10:00:00Z")
    assert good["id"] in [h.id for h in mem.search("deploy", mode="fts")]
    assert good["id"] in [h.id for h in mem.search("the day before the deploy", mode="fts")]
    mem.rebuild(embed=False)
    assert good["id"] in [h.id for h in mem.search("0001-01-01 deploy", mode="fts")]


def test_an_event_still_ahead_dates_no_question(mem, monkeypatch):
    """"活动当天穿什么？" about a summit next week: nothing has happened that day, so the
    question is not confined to it and older values stay hidden."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-10T10:00:00Z")
    mem.save_fact("医疗创新高峰会的时间是 10 月 20 日")
    old = mem.save_fact("参会的着装要求是正装")
    mem.save_fact("参会的着装要求改成商务休闲", supersedes=old["id"])
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T10:00:00Z")
    h = parse("高峰会当天的着装要求是什么？", datetime(2026, 10, 15, 10, tzinfo=timezone.utc))
    assert h.anchor is not None and h.anchor.event == "高峰会"
    hits = mem.search("高峰会当天的着装要求是什么？", mode="fts")
    assert old["id"] not in [h.id for h in hits]
    assert any("商务休闲" in h.content for h in hits)


def test_a_record_naming_a_day_thousands_of_times_names_it_once():
    """Each day a text names is checked against those already taken: a 4,000-character line
    of "周一" made thousands of matches, each checked against all before it (seconds of sync
    per record) and stored as thousands of rows of the same day."""
    written = datetime(2026, 10, 1, 10, tzinfo=timezone.utc)
    assert mentions("周一" * 2000, written) == [(date(2026, 9, 28), date(2026, 9, 28))]
    assert len(mentions("\n".join(f"{d} 号上线" for d in range(1, 31)) * 50, written)) <= 32


@pytest.mark.parametrize("query", ["下个月底的计划是什么", "下个月初的计划", "下月中要做什么", "明年1月的预算",
                                   "下个月", "明年", "what is planned for next month"])
def test_a_month_or_year_ahead_names_no_time(query):
    """"下个月底" was read as "月底" without its "下个", and this month's end being ahead, as
    last month's: the opposite direction (found by a hostile review)."""
    h = parse(query, NOW)
    assert h.start is None and not h.asks_past()


def test_a_record_planning_next_month_names_no_day_of_this_one():
    assert mentions("下个月底上线支付模块", datetime(2026, 10, 14, 10, tzinfo=timezone.utc)) == []
    assert mentions("明年1月再说", datetime(2026, 10, 14, 10, tzinfo=timezone.utc)) == []


@pytest.mark.parametrize("query, first", [("国庆的发布", "2026-10-01"), ("五一的值班", "2026-05-01"),
                                          ("清明的值班", "2026-04-04")])
def test_a_holiday_named_alone_is_its_days(query, first):
    """The cheap check for time words knew no holiday's characters, so "国庆" alone (without
    节 or 期间) named nothing (found by a hostile review)."""
    assert days(query)[0] == first


@pytest.mark.parametrize("query, now, expected", [
    ("节后第一天改了什么", "2026-10-03T10:00:00Z", None),  # the holiday is not over yet
    ("元旦后一天", "2027-01-01T10:00:00Z", None),
    ("what did we do this fall", "2026-10-15T12:00:00Z", ("2026-09-01", "2026-10-16")),
    ("冬天的事故", "2026-12-31T10:00:00Z", ("2026-12-01", "2027-01-01")),
])
def test_a_stretch_ends_today_at_the_latest(query, now, expected):
    """A question asks what happened: the part of a named stretch still ahead is cut off,
    and a stretch all ahead names nothing (found by a hostile review)."""
    assert days(query, now) == expected


@pytest.mark.parametrize("text, named", [
    ("本周五发版", [("2026-10-16", "2026-10-16")]),  # written on Wednesday: two days ahead
    ("这周一改了超时", [("2026-10-12", "2026-10-12")]),
    ("下周末上线", [("2026-10-24", "2026-10-25")]),  # the weekend, not all of next week
    ("下下周上线", []),  # not next week
])
def test_a_record_names_this_weeks_weekdays_and_next_weekend(text, named):
    """"本周五" was read as this week so far, "下周末" as all of next week, "下下周" as next
    week (found by a hostile review)."""
    got = mentions(text, datetime(2026, 10, 14, 9, tzinfo=timezone.utc))
    assert [(a.isoformat(), b.isoformat()) for a, b in got] == named


@pytest.mark.parametrize("query, first, after_last", [
    # said on a Thursday: "last wed" is this week's Wednesday to some, as "last Wednesday" is
    ("last wed how many accounts got banned?", "2026-10-07", "2026-10-15"),
    ("what did we ship last Tues.", "2026-10-06", "2026-10-14"),
    ("last thurs we cut the release, what was in it", "2026-10-08", "2026-10-09"),
    ("this past Fri, who was on call?", "2026-10-09", "2026-10-10"),
    ("what did we decide on weds?", "2026-10-14", "2026-10-15"),
    ("why did the cluster restart on Mon.?", "2026-10-12", "2026-10-13"),
])
def test_a_weekday_shortened_after_last_this_or_on_is_that_day(query, first, after_last):
    """"last wed", "on Mon." named no day: only full names were read."""
    assert days(query) == (first, after_last)


@pytest.mark.parametrize("query", [
    "the last sat down late", "on sun exposure limits", "mon ami", "who sat on the review",
    "the sun came out", "sat/sun schedule", "when we last sat down with design",
    "why has this sat in review so long", "this Sun JDK", "restart the osd on mon-a",
    "what runs on mon.example.com", "last sun the disk filled up",
])
def test_sat_sun_and_mon_as_words_name_no_day(query):
    """"sat" and "sun" are words as often as days: only their full names are read."""
    assert days(query) is None


@pytest.mark.parametrize("text, written, named", [
    ("So much since we talked! Last Fri I finally took my kids to a park",
     "2023-07-14T09:00:00Z", [("2023-07-07", "2023-07-07")]),
    ("I just joined a new activist group last Tues.", "2023-07-20T09:00:00Z",
     [("2023-07-11", "2023-07-18")]),  # a Thursday: this week's Tuesday to some
    ("Wanna see my moves next Fri?", "2023-01-20T09:00:00Z", [("2023-01-27", "2023-01-27")]),
    ("We deployed the hotfix on Saturday", "2026-10-14T09:00:00Z", [("2026-10-10", "2026-10-10")]),
    ("The launch is this Friday", "2026-10-13T09:00:00Z", [("2026-10-16", "2026-10-16")]),  # a plan
    ("this Monday we moved the gateway to 8443", "2026-10-14T09:00:00Z", [("2026-10-12", "2026-10-12")]),
])
def test_a_record_names_a_shortened_weekday(text, written, named):
    """LoCoMo's speakers write "last Fri", "last Tues."; a record's "this Friday" is this
    week's, ahead or past, as 本周五 is (a question's is the last one), and "on Saturday"
    stays read (the review of the first version found the one read as the Friday past, the
    other lost from the quick test of a record's time words)."""
    got = mentions(text, datetime.fromisoformat(written.replace("Z", "+00:00")))
    assert [(a.isoformat(), b.isoformat()) for a, b in got] == named


def test_a_named_day_across_a_daylight_saving_change_is_that_day(monkeypatch):
    """Midnights were expressed in now's UTC offset: asked the Monday after DST ended,
    "昨天" (Sunday) began at 23:00 on Saturday, and a record naming Saturday matched
    (found by a hostile review)."""
    import time

    from memory_core.search import Filters
    monkeypatch.setenv("TZ", "America/Los_Angeles")
    time.tzset()
    h = parse("昨天干了啥", datetime.fromisoformat("2026-11-02T09:00:00-08:00"))
    during = Filters().within(h.start, h.end).during
    assert (during.first_day, during.last_day) == ("2026-11-01", "2026-11-01")
    h = parse("1月5日的事故", datetime.fromisoformat("2026-07-15T09:00:00-07:00"))
    assert Filters().within(h.start, h.end).during.last_day == "2026-01-05"


def test_only_the_start_of_a_long_question_is_read_for_time():
    """The event patterns cost ~10 ms per 1,000 characters: a pasted page is read for its
    first MAX_QUERY_CHARS only (found by a hostile review: 100k characters took a second)."""
    assert days("昨天" + "x" * 5000) == ("2026-10-14", "2026-10-15")
    assert days("x " * 5000 + "昨天") is None


def test_february_29_asked_in_another_year_is_the_last_one():
    assert days("2月29日的事故") == ("2024-02-29", "2024-03-01")


@pytest.mark.parametrize("text", ["1月初上线", "early January launch"])
def test_the_start_of_next_month_written_at_years_end_is_next_year(text):
    """Written on Dec 28, "1月初" is days ahead, not last January (found by a hostile review)."""
    assert mentions(text, datetime(2026, 12, 28, 10, tzinfo=timezone.utc)) == [
        (date(2027, 1, 1), date(2027, 1, 10))]


@pytest.mark.parametrize("query, first, after_last", [
    ("Where was John between Oct 1 and Oct 7?", "2026-10-01", "2026-10-08"),
    ("10月1日到10月7日改了什么", "2026-10-01", "2026-10-08"),
    ("from Sept 3 to Sept 9 what did we change", "2026-09-03", "2026-09-10"),
    ("9月3日和9月9日之间的变更", "2026-09-03", "2026-09-10"),
    ("上周一到上周三做了什么", "2026-10-05", "2026-10-08"),
    ("昨天复盘时说这个月的目标", "2026-10-14", "2026-10-15"),  # two days, no range: the narrowest
])
def test_two_days_joined_as_a_range_are_the_stretch_between(query, first, after_last):
    """"between Aug 11 and Aug 15" was read as Aug 11 alone (the narrower of the two)."""
    assert days(query) == (first, after_last)


@pytest.mark.parametrize("query, event, until", [
    ("first load test 和二期那次压测之间，partition 有几个？", "first load test", "二期那次压测"),
    ("What changed between the launch and the audit?", "launch", "audit"),
    ("在换 Vitest 和决定换 Drizzle 之间，Redis 的 TTL 是多少？", "换 Vitest", "决定换 Drizzle"),
])
def test_two_events_can_be_the_ends_of_a_stretch(query, event, until):
    h = parse(query, NOW)
    assert (h.anchor.event, h.anchor.until) == (event, until)


def test_a_value_between_two_events_is_what_was_true_then(mem, monkeypatch):
    """"第一次压测和二期压测之间 partition 有几个": 12, set at the first and replaced at the
    second; without the stretch the replaced value was hidden."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-09-01T10:00:00Z")
    twelve = mem.save_fact("第一次压测 consumer lag 上涨，telemetry topic 的 partition 扩到 12")
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-09-20T10:00:00Z")
    mem.save_fact("二期压测失败，telemetry topic 的 partition 扩到 24", supersedes=twelve["id"])
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T10:00:00Z")
    assert twelve["id"] in [h.id for h in mem.search("第一次压测和二期压测之间，partition 有几个？")]
    assert twelve["id"] not in [h.id for h in mem.search("telemetry topic 的 partition 有几个？")]


@pytest.mark.parametrize("query", ["和" * 1997 + "之间", "测试和" * 700 + "之间", "between " * 300])
def test_a_run_of_joining_words_is_read_in_one_pass(query):
    """The ends of "X 和 Y 之间" hold no joining word: with them, "和" * 2,000 took the
    pattern 68 ms (found while writing it)."""
    assert parse(query, NOW).anchor is None


@pytest.mark.parametrize("query, now, expected", [
    ("11月1日到11月30日改了什么", "2026-11-26T10:00:00Z", ("2026-11-01", "2026-11-27")),
    ("between Sept 1 and Nov 30, what changed", "2026-11-26T10:00:00Z", ("2026-09-01", "2026-11-27")),
    ("12月20日到1月5日", "2026-12-25T10:00:00Z", ("2026-12-20", "2026-12-26")),
])
def test_a_range_ending_ahead_runs_to_today(query, now, expected):
    """Each end was read as its last past day, so the 30th of this month was last year's and
    the range ran backwards over a year (found by a third hostile review)."""
    assert days(query, now) == expected


@pytest.mark.parametrize("query, event", [
    ("What was the TTL before launch?", "launch"), ("What happened since the audit?", "audit"),
    ("before Monday", None), ("before September", None), ("since yesterday", None),
    ("before we launched", None), ("before noon", None),
    ("What did she attend a week ahead of the adoption interview?", "adoption interview"),
])
def test_an_event_needs_no_article(query, event):
    """"before launch" was read only as "before the launch" (found by a hostile review); a
    weekday, a month or a calendar word after "before" is no event."""
    h = parse(query, NOW)
    assert (h.anchor.event if h.anchor else None) == event


# Months and years named without a day (2026-11-26): "in August", "去年八月", "in 2025".
@pytest.mark.parametrize("query, first, after_last", [
    ("When did Caroline attend a pride parade in August?", "2026-08-01", "2026-09-01"),
    ("what did we ship during June", "2026-06-01", "2026-07-01"),
    ("What went wrong in October?", "2026-10-01", "2026-10-16"),     # this month, so far
    ("what happened in November", "2025-11-01", "2025-12-01"),       # not yet this year
    ("the outage last August", "2026-08-01", "2026-09-01"),
    ("we moved the cluster in July last year", "2025-07-01", "2025-08-01"),
    ("the incident this March", "2026-03-01", "2026-04-01"),
    ("in the month of May, what did we decide?", "2026-05-01", "2026-06-01"),
    ("去年八月做了什么", "2025-08-01", "2025-09-01"),
    ("去年8月份的事故", "2025-08-01", "2025-09-01"),
    ("前年三月的需求", "2024-03-01", "2024-04-01"),
    ("今年三月上线了什么", "2026-03-01", "2026-04-01"),
    ("去年8月初定的方案", "2025-08-01", "2025-08-11"),
    ("去年12月3日的发布", "2025-12-03", "2025-12-04"),
    ("what did we decide in 2025?", "2025-01-01", "2026-01-01"),
    ("2025年的目标是什么", "2025-01-01", "2026-01-01"),
    ("2026年做了哪些事", "2026-01-01", "2026-10-16"),
    # found by a hostile review of the rule above
    ("what was the timeout in August of last year?", "2025-08-01", "2025-09-01"),
    ("last year in August, what broke?", "2025-08-01", "2025-09-01"),
    ("we moved the cluster July last year", "2025-07-01", "2025-08-01"),
    ("in March this year", "2026-03-01", "2026-04-01"),
    ("2025年的8月", "2025-08-01", "2025-09-01"),
    ("去年的八月", "2025-08-01", "2025-09-01"),
    ("in the summer of 2025", "2025-06-01", "2025-09-01"),
    ("in June or July", "2026-06-01", "2026-08-01"),
    ("in March, April and May", "2026-03-01", "2026-06-01"),
    ("in November to February", "2025-11-01", "2026-03-01"),
    ("in 2023 through 2025", "2023-01-01", "2026-01-01"),
    ("in 2025 we moved to ACK", "2025-01-01", "2026-01-01"),
])
def test_months_and_years_named_without_a_day(query, first, after_last):
    assert days(query) == (first, after_last)


@pytest.mark.parametrize("query", [
    "you may want to check the logs", "in may I suggest a rollback", "we march on", "June said the build is green",
    "the august committee approved it", "May I ask what the TTL is?", "port 2025 is closed",
    "PR #2025 的评审意见", "2025 个请求失败了",
    "this December", "this November",  # ahead of today (2026-10-15): nothing has happened
    "the request finished in 2000 ms", "in 1999 batches", "resize in 1920 px",
    "in June's absence, who approved it?", "in Jan's PR", "print the value in oct",
    "1950年代的设计", "a total of 2025 requests",
])
def test_words_that_only_look_like_months_or_years_name_no_time(query):
    assert days(query) is None


def test_a_hit_found_by_the_days_the_question_names_says_so(mem, monkeypatch):
    """Its text named no rank at all ("score 0.3333 ()"): it matched no keyword."""
    from memory_core.answers import results_text
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-11-26T12:00:00Z")
    mem.save_fact("telemetry.raw.v1 扩到 12 个 partition")
    hits = mem.search("what did we change in November", mode="fts")
    assert hits[0].dated_rank == 1 and hits[0].fts_rank is None
    assert "(days named #1)" in results_text(hits) and "()" not in results_text(hits)


# --- a day the calendar names as the event, under a hostile review (2026-11-27) ---------------
# Each case failed after the first version of the change (83151a6) or before it.

@pytest.mark.parametrize("query, first, after_last", [
    ("what did we do the day before yesterday", "2026-10-13", "2026-10-14"),
    ("what broke the week before last", "2026-09-28", "2026-10-05"),
    ("9月30日周三前一天改了什么", "2026-09-29", "2026-09-30"),  # the date, not its weekday
    ("the week before Monday, August 3, 2026", "2026-07-27", "2026-08-03"),
    ("the day after Thursday, October 1", "2026-10-02", "2026-10-03"),
    ("the day after the 3rd of August", "2026-08-04", "2026-08-05"),
    ("the day after 2026-09-30", "2026-10-01", "2026-10-02"),
    ("the week following August 3", "2026-08-04", "2026-08-11"),
    ("what did we do the weekend after August 3, 2026", "2026-08-08", "2026-08-10"),
    ("what changed since August 3", "2026-08-03", "2026-10-16"),
    ("10月1日后三天发生了什么", "2026-10-02", "2026-10-05"),
    ("10月1日之后三天发生了什么", "2026-10-02", "2026-10-05"),
    ("8月3日前三天改了什么", "2026-07-31", "2026-08-03"),
    ("8月3日发布的前一天改了什么", "2026-08-02", "2026-08-03"),  # a date that dates the event
    ("the day before the August 3 release", "2026-08-02", "2026-08-03"),
    ("2026-09-30前一天改了什么", "2026-09-29", "2026-09-30"),
    ("昨天前一天做了什么", "2026-10-13", "2026-10-14"),
    ("the week before 8月3日", "2026-07-27", "2026-08-03"),  # in either word order
    ("August 3之前一周", "2026-07-27", "2026-08-03"),
])
def test_a_day_named_in_any_shape_dates_the_time_around_it(query, first, after_last):
    assert days(query) == (first, after_last)


@pytest.mark.parametrize("query, word", [
    ("the week before spring break", "break"),
    ("what did we do the day after summer camp", "camp"),
    ("the week after the fall release", "release"),
    ("two days after last year's audit", "audit"),
    ("the day after last month's release", "release"),
    ("the day after last week's demo", "demo"),
    ("after his trip in August 2026, what did he do", "trip"),
])
def test_a_time_word_inside_an_event_leaves_the_event_to_the_store(query, word):
    """"spring break", "last year's audit": a season or a month says around when the event
    was, not its day; the store dates it (the first version counted from the season's end)."""
    h = parse(query, NOW)
    assert h.anchor is not None and word in h.anchor.event, (days(query), h.anchor)


@pytest.mark.parametrize("query", ["周三之前要交什么", "what did we do before Monday?"])
def test_before_a_weekday_alone_names_no_stretch(query):
    """As often a deadline as a stretch: the weekday (or nothing) as before the change."""
    assert days(query) in (None, ("2026-10-14", "2026-10-15"))


@pytest.mark.parametrize("query", ["what did we do 300 weeks before March 1, 0003",
                                   "9998年11月1日365周后", "0001年1月1日前一天改了什么"])
def test_a_count_past_the_calendars_ends_names_no_time_and_does_not_crash(query):
    parse(query, NOW)


def test_a_far_count_from_an_early_date_does_not_break_a_search(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-01T10:00:00Z")
    mem.save_fact("hello world")
    mem.search("what did we do 300 weeks before March 1, 0003", mode="fts")


@pytest.mark.parametrize("query, order", [
    ("按最新的方案，超时设成多少？", NEWEST), ("最新的排序规则是什么？", NEWEST),
    ("最新版本在前端是怎么配置的？", NEWEST),  # 在前 inside 在前端 is no sort order
    ("列表现在还是按最新时间倒序吗？", NEWEST), ("Is the feed currently sorted newest first?", NEWEST),
    ("Do we still show the latest posts first?", NEWEST),  # the sort phrase vetoes only itself
    ("Which of the three queues are they using in the first version?", OLDEST),
    ("Does the API return results latest-first?", None), ("Can we sort the list by most recent?", None),
    ("Remind me which Node version we're on?", NEWEST), ("What are we using this queue for?", None),
])
def test_sort_orders_and_the_present_tense_under_review(query, order):
    assert parse(query, NOW).order == order


# Asked on Thursday 2026-10-15 (Q4; the second half of the year).
@pytest.mark.parametrize("query, first, after_last", [
    ("上季度的 OKR 完成得怎么样", "2026-07-01", "2026-10-01"),
    ("what did we ship last quarter", "2026-07-01", "2026-10-01"),
    ("本季度的目标", "2026-10-01", "2026-10-16"),
    ("去年 Q4 的复盘", "2025-10-01", "2026-01-01"),
    ("2025年第三季度的事故", "2025-07-01", "2025-10-01"),
    ("our Q2 roadmap", "2026-04-01", "2026-07-01"),
    ("上一季度的目标", "2026-07-01", "2026-10-01"),  # not the first quarter
    ("2025上半年的计划", "2025-01-01", "2025-07-01"),
    ("上半年 vs 下半年的收入", "2026-01-01", "2026-10-16"),  # both, so far
    ("what happened in Q1 2025", "2025-01-01", "2025-04-01"),
    ("the first quarter of last year", "2025-01-01", "2025-04-01"),
    ("上半年读了哪些书", "2026-01-01", "2026-07-01"),
    ("去年下半年的计划", "2025-07-01", "2026-01-01"),
    ("H1 2025 planning doc", "2025-01-01", "2025-07-01"),
    ("in the second half of last year", "2025-07-01", "2026-01-01"),
    ("去年年底的总结", "2025-12-01", "2026-01-01"),
    ("去年底定的规矩", "2025-12-01", "2026-01-01"),
    ("what did we plan at the end of last year", "2025-12-01", "2026-01-01"),
    ("late 2025 design notes", "2025-09-01", "2026-01-01"),
    ("九月第一周做了什么", "2026-09-01", "2026-09-08"),
    ("the last week of August", "2026-08-25", "2026-09-01"),
    ("上个月最后一周的告警", "2026-09-24", "2026-10-01"),
    ("what happened at the end of June", "2026-06-21", "2026-07-01"),
    ("since March, what changed in the API", "2026-03-01", "2026-10-16"),
    ("what have we changed since Monday", "2026-10-12", "2026-10-16"),
    ("everything since the 10th", "2026-10-10", "2026-10-16"),
    ("what did I write on the 3rd", "2026-10-03", "2026-10-04"),
    ("notes from the 5th to the 12th", "2026-10-05", "2026-10-13"),
    ("the 20th of last month", "2026-09-20", "2026-09-21"),
    ("8号的笔记", "2026-10-08", "2026-10-09"),
    ("8号那天的会", "2026-10-08", "2026-10-09"),
    ("1号以来的工作日志", "2026-10-01", "2026-10-16"),
    ("上周三以来有什么新想法", "2026-10-07", "2026-10-16"),
    ("anything in the last 48 hours", "2026-10-13", "2026-10-16"),
    ("过去72小时的报错", "2026-10-12", "2026-10-16"),
    ("the past year's performance notes, over the past year", "2025-10-15", "2026-10-16"),
    ("近半年的周报", "2026-04-15", "2026-10-16"),
    ("半年前记的", "2026-04-01", "2026-05-01"),
    ("前年的旅行", "2024-01-01", "2025-01-01"),
    ("大前年在哪家公司", "2023-01-01", "2024-01-01"),
    ("the year before last", "2024-01-01", "2025-01-01"),
    ("上上个周末", "2026-10-03", "2026-10-05"),
    ("the weekend before last", "2026-10-03", "2026-10-05"),
    ("this past weekend", "2026-10-10", "2026-10-12"),
    ("this past Monday", "2026-10-12", "2026-10-13"),
    ("a couple of days ago", "2026-10-10", "2026-10-15"),
    ("我前两天说的那个方案", "2026-10-10", "2026-10-15"),
    ("what did I say a year ago today", "2025-10-15", "2025-10-16"),
    ("Monday morning's deploy", "2026-10-12", "2026-10-13"),
    ("early 2025 I was learning Elixir", "2025-01-01", "2025-05-01"),
    ("compare 上半年还是去年下半年", "2025-07-01", "2026-07-01"),  # compared, in either order
    ("8月或7月的账单", "2026-07-01", "2026-09-01"),
    ("今年上半年和去年上半年比", "2025-01-01", "2026-07-01"),
])
def test_quarters_halves_parts_of_a_year_and_since_are_read(query, first, after_last):
    assert days(query) == (first, after_last)


@pytest.mark.parametrize("query", [
    "the H1 tag on the landing page", "why did we switch from H2 to Postgres", "H2 数据库的配置",
    "ticket H2-123", "H1B visa", "SQ3 规则", "FAQ1 的答案", "section Q3a", "Q4 量化的效果",
    "Q8 还是 Q4", "Q1: 缓存是什么", "Q3 的 OKR",
    "马上半年了", "剩下半年怎么安排", "2024季度报告", "端口 8043 季度",
    "在一年中最忙的时候", "年终奖怎么算", "每年年底做预算吗", "三个季度的数据", "每季度一次",
    "客服要求24小时内回复吗", "1号线地铁", "3号机器挂了", "the 3rd attempt failed",
    "on the 2nd floor", "a quarter of the requests fail", "目前年薪多少",
    # ahead: a question asks about what happened
    "明年上半年的计划", "next quarter's roadmap", "下个季度做什么", "明年初",
])
def test_look_alikes_and_times_ahead_name_no_days(query):
    assert days(query) is None


# bench/data/time-phrases/third.json, written by a helper that read no code, showed these
# unread or misread; NOW is a Thursday, 2026-10-15.
@pytest.mark.parametrize("query, first, after_last", [
    ("yday's deploy to staging failed, why?", "2026-10-14", "2026-10-15"),
    ("yday 的 Jenkins build 为什么挂了", "2026-10-14", "2026-10-15"),
    ("what did we talk about in the sync last wk?", "2026-10-05", "2026-10-12"),
    ("three days back I was debugging a leak", "2026-10-12", "2026-10-13"),
    ("2 wks ago", "2026-09-28", "2026-10-05"),  # like "two weeks ago"
    ("summarize the postgres discussion from late last month", "2026-09-21", "2026-10-01"),
    ("early this month", "2026-10-01", "2026-10-11"),
    ("Last summer we evaluated Terraform Cloud", "2026-06-01", "2026-09-01"),  # was this summer
    ("This winter's outage", "2025-12-01", "2026-03-01"),
    ("从6月1号到10号，我们修了哪些缺陷", "2026-06-01", "2026-06-11"),  # was June 1 alone
    ("6月3号到9号之间的告警记录", "2026-06-03", "2026-06-10"),
    ("国庆那天线上有没有告警", "2026-10-01", "2026-10-02"),  # the day, not the week off
    ("五一那天的紧急修复", "2026-05-01", "2026-05-02"),
    ("国庆期间的值班", "2026-10-01", "2026-10-08"),
    ("Did anyone push to main on Christmas Day?", "2025-12-25", "2025-12-26"),
    ("去年双十一的扩容预案放哪了", "2025-11-11", "2025-11-12"),  # was all of last year
    ("双十一那天上午 lobby 怎么了", "2025-11-11", "2025-11-12"),
    ("Did the on-call get paged on Independence Day?", "2026-07-04", "2026-07-05"),
    ("On New Year's Day the cert expired, how did we fix it?", "2026-01-01", "2026-01-02"),
    ("on Halloween the queue backed up", "2025-10-31", "2025-11-01"),
    ("the design review on Valentine's Day", "2026-02-14", "2026-02-15"),
    ("Independence Day 那天 PagerDuty 响了几次", "2026-07-04", "2026-07-05"),
    ("the week before Halloween", "2025-10-24", "2025-10-31"),
    ("the 15th 那次 config rollout 出了什么事", "2026-10-15", "2026-10-16"),
])
def test_time_phrases_a_third_writer_used_are_read(query, first, after_last):
    assert days(query) == (first, after_last)


@pytest.mark.parametrize("query", [
    "what happened with the CDN purge on 6/28?", "6/1 到 6/10 之间的 release notes",
    "What was the hotfix we pushed Wednesday?", "Sunday the disk filled up on build-03",
])
@pytest.mark.xfail(strict=True, reason="read in f4deb43 and taken back after a hostile review "
                   "(tests/test_review_time_third.py): a slash is a fraction or a ratio ('on 2/3 "
                   "nodes', 'by 1/3') and a bare weekday a schedule or a plan ('scheduled Friday "
                   "deploys', 'need Friday for the demo') more often than a day")
def test_slash_dates_and_bare_weekdays_are_not_read(query):
    assert days(query) is not None


@pytest.mark.parametrize("query", [
    "每周二发版这个规矩是怎么来的", "每周一跑的 cron job 在哪个 repo", "每个周五都不发版吗",
    "逢周五不发版", "每周末的备份脚本", "每月初的对账任务", "每月底结算任务",
    "双十一礼包里面都有啥东西", "What tradition does Tim love during Halloween?",
    "Friday deploys are banned, why?", "the Monday.com integration", "1/2 of the nodes",
    "a 50/50 split", "on 3/4 of the nodes", "src/6/28/index.ts", "Wednesday Addams theme",
])
def test_a_recurring_day_a_topic_or_a_fraction_names_no_day(query):
    assert days(query) is None


@pytest.mark.parametrize("query", ["那个周末", "有个周末突然过期了", "staging 上了 Kubernetes 的那个周末，on-call 是谁？"])
def test_a_weekend_after_ge_is_still_a_weekend(query):
    """每个周末 names none; 那个周末 and 有个周末 still do (a first version read 个 as 每个)."""
    assert days(query) is not None or parse(query, NOW).anchor is not None


@pytest.mark.parametrize("query, first, after_last", [
    ("During the week of June 14, what was blocking the release?", "2026-06-08", "2026-06-15"),
    ("the week of June 20", "2026-06-15", "2026-06-22"),  # a Saturday: its Monday to Sunday
    ("国庆那周的值班表", "2026-09-28", "2026-10-05"),
])
def test_the_week_of_a_day_is_its_monday_to_sunday(query, first, after_last):
    """All three time-phrase writers read "the week of X" as the calendar week that holds X
    (it was X give or take three days, which crosses into the next week after a Thursday)."""
    assert days(query) == (first, after_last)


@pytest.mark.parametrize("query, event, first, last", [
    ("被 Docker Hub rate limit 卡住的那天，镜像 build 时间降到了多少？", "Docker Hub rate limit 卡住", 0, 0),
    ("check the nginx access log for OOM 那次之前的请求", "OOM", None, 0),
    ("Before the pilot launch, what did we load-test?", "pilot launch", None, 0),
    ("At the time of the RDS migration, which Postgres ran locally?", "RDS migration", 0, 0),
    ("After Caroline's trip, what did she paint?", "Caroline trip", 0, None),
])
def test_an_event_keeps_all_its_words_and_a_sentence_may_open_with_the_relation(
        query, event, first, last):
    found = anchor(query)
    assert (found.event, found.first, found.last) == (event, first, last)


@pytest.mark.parametrize("query", ["After the initial five days, how far had the prototype gotten?",
                                   "after the first two weeks what changed",
                                   "before the last 3 months, was it stable?"])
def test_a_length_of_time_is_no_event(query):
    assert anchor(query) is None


@pytest.mark.parametrize("query, event, first, last", [
    ("第一次压测过后两天，发版负责人换成了谁？", "第一次压测", 1, 3),  # 过后 is "after"
    ("迁库过后的那个周末", "迁库", 1, 7),
])
def test_guo_hou_is_after_and_not_part_of_the_event(query, event, first, last):
    found = anchor(query)
    assert (found.event, found.first, found.last) == (event, first, last)


@pytest.mark.parametrize("query, event", [
    ("right before the summer release, what did we cut?", "summer release"),
    ("After the spring cleanup, what changed?", "spring cleanup"),
])
def test_an_event_a_time_word_opens_is_still_an_event(query, event):
    """"Before the summer" names a time; "before the summer release" an event."""
    assert anchor(query).event == event
