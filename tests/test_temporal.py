"""Time words in queries: the days they name and the newest/oldest intent."""
from datetime import datetime, timezone

import pytest

from memory_core.temporal import NEWEST, OLDEST, parse

NOW = datetime(2026, 10, 15, 12, 0, tzinfo=timezone.utc)  # a Thursday


def days(query):
    h = parse(query, NOW)
    return (h.start.date().isoformat(), h.end.date().isoformat()) if h.start else None


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
    ("what did we ship last monday", "2026-10-05", "2026-10-06"),
])
def test_relative_and_absolute_dates_become_local_day_ranges(query, first, after_last):
    assert days(query) == (first, after_last)


def test_a_date_without_a_year_is_the_last_one_up_to_today():
    assert days("on Dec 24") == ("2025-12-24", "2025-12-25")
    assert days("on Oct 1") == ("2026-10-01", "2026-10-02")


def test_the_narrowest_date_named_wins():
    assert days("昨天复盘时说这个月最耗时的是什么") == ("2026-10-14", "2026-10-15")


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


def test_rest_drops_the_time_words():
    h = parse("上周数据库迁移停机了多久", NOW)
    assert h.rest("上周数据库迁移停机了多久") == "数据库迁移停机了多久"


def test_the_clock_comes_from_cursor_memory_now(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    from memory_core.config import now
    assert days("昨天") == ("2026-10-14", "2026-10-15")
    assert parse("昨天", now()).start.date().isoformat() == "2026-10-14"
