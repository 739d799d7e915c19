"""Hostile review of the event-dating change of 2026-11-28 (AHEAD_DAYS 14 -> 92, the bridge
in search.event_day, a rule that a record speaking of the time before an event does not vote
for its own day, the wider _ZH_ANCHOR, the capitalised English relation at a sentence's
start, 过后), by a helper that had the diff and the parent commit.

A test marked "REGRESSION" failed on the reviewed code and passed on its parent; "BUG"
failed on both. Every regression is fixed (the before-an-event rule was deleted: it also
lost on the tune halves); the bugs left are strict xfails saying why. docs/retrieval.md,
"Events across languages, and plans a quarter ahead"."""
import time
from datetime import date, datetime, timedelta

import pytest

from memory_core.temporal import anchor, parse
from storeutil import daily_line, named_days as named


# --- a date without a year, a quarter ahead: a plan, unless the record says it is past ----

@pytest.mark.parametrize("text, written, expected", [
    # REGRESSION: "last year" is said, in English, next to the date; read as December to come
    ("the Dec 20 outage last year took the API down for 3 hours", "2027-11-01", ["2026-12-20"]),
    ("December 20 last year we had an outage", "2027-11-01", ["2026-12-20"]),
    ("last December 20 we had an outage", "2027-11-01", ["2026-12-20"]),
    # REGRESSION: "since X" / "X 以来" / "自 X 以来" is a day that has passed
    ("自 12 月 20 日以来一直没有宕机", "2027-11-01", ["2026-12-20"]),
    ("1月5日以来 error rate 持平", "2026-11-20", ["2026-01-05"]),
    ("since Jan 5 the error rate has been flat", "2026-11-20", ["2026-01-05"]),
    # REGRESSION: 上次 ("last time") is the past
    ("上次 12 月 20 日宕机，这次要提前扩容", "2027-11-01", ["2026-12-20"]),
    ("上次 1 月 5 日发版出了问题，这次要加灰度", "2026-11-20", ["2026-01-05"]),
])
def test_a_date_the_record_says_is_past_is_not_read_as_a_plan(text, written, expected):
    assert named(text, written) == expected


@pytest.mark.parametrize("text, written, expected", [
    # REGRESSION (debatable: the brief calls this a plan): 那次 + an outage, a postmortem
    ("12月20日那次宕机的复盘", "2027-11-23", ["2026-12-20"]),
    ("复盘：5 月 20 日那次发布回滚的根因是连接池耗尽", "2027-03-10", ["2026-05-20"]),
    ("圣诞节那次宕机影响了 3 小时", "2027-10-01", ["2026-12-24/2026-12-26"]),
    ("元旦那次发布出的事故，这次别再犯", "2026-10-15", ["2026-01-01"]),
])
def test_that_time_an_incident_happened_is_not_a_plan(text, written, expected):
    assert named(text, written) == expected


@pytest.mark.parametrize("text, written, expected", [
    # kept: plans a quarter ahead, and a named year
    ("试点 3 月 29 日上线", "2027-03-10", ["2027-03-29"]),
    ("元旦前上线", "2026-10-15", ["2027-01-01"]),
    ("deadline 12月20日", "2027-11-23", ["2027-12-20"]),
    ("去年 12 月 20 日宕机", "2027-11-01", ["2026-12-20"]),
    ("12月20日那次宕机", "2027-08-01", ["2026-12-20"]),
    ("2月29日", "2027-12-15", ["2028-02-29"]),
    ("2月29日", "2026-12-15", ["2024-02-29"]),
])
def test_a_plan_up_to_a_quarter_ahead_and_a_named_year_still_read_right(text, written, expected):
    assert named(text, written) == expected


# --- "Before/After …" at a sentence's start ---------------------------------------------

NOW = datetime(2027, 11, 20, 12, 0).astimezone()


@pytest.mark.parametrize("query, first, last", [
    # REGRESSION: the sentence-initial "Before/After" now makes a season an event to look
    # up in the store; before, the season was read as the time it is
    ("Before the summer, which DB did we use?", "2027-06-01", "2027-08-31"),
    ("After the winter, which DB did we use?", "2026-12-01", "2027-02-28"),
])
def test_a_season_after_a_capitalised_relation_is_a_time_not_an_event(query, first, last):
    h = parse(query, NOW)
    assert h.anchor is None
    assert (h.start.date(), (h.end - timedelta(days=1)).date()) == (date.fromisoformat(first),
                                                                   date.fromisoformat(last))


@pytest.mark.parametrize("query", [
    "After Q3, what changed?",  # REGRESSION (lowercase "after Q3" was already an event: BUG)
    "After H1, what changed?",  # REGRESSION
    "After all, which database did we pick?",  # REGRESSION: an idiom, event "all"
    # REGRESSION: event "two weeks the pilot" (the length-of-time rule reads the last word
    # only; lowercase "after two weeks the pilot …" was already read so)
    "After two weeks the pilot was stable; what did we change next?",
])
def test_a_capitalised_relation_before_a_time_or_an_idiom_names_no_event(query):
    a = anchor(query)
    assert a is None, a


@pytest.mark.parametrize("query, event, first, last", [
    ("Before the RDS migration, which Postgres did we run?", "RDS migration", None, 0),
    ("Right before the launch, what did we change?", "launch", -3, -1),  # old: (None, 0)
    ("Just after launch, what did we fix?", "launch", 0, 2),  # old: (0, None)
    ("在 k8s 升级之前用的什么版本", "k8s 升级", None, 0),
    ("被 Docker Hub rate limit 卡住的那天", "Docker Hub rate limit 卡住", 0, 0),
    ("压测过后两天", "压测", 1, 3),  # old: "压测过"
])
def test_event_phrases_the_change_got_right(query, event, first, last):
    a = anchor(query)
    assert (a.event, a.first, a.last) == (event, first, last)


# --- cost ------------------------------------------------------------------------------

def _mk(unit, n=2000):
    return (unit * (n // len(unit) + 1))[:n]


@pytest.mark.parametrize("text, bound", [
    # REGRESSION: twice the parent's time in the reviewed version (a Latin letter then
    # Chinese, words of 40); fixed: the words after the first are ASCII only, and the parent
    # and this code take the same (53-55 ms, best of 15, side by side on 2 shared cores).
    # The bounds guard against a blow-up; they are no budget.
    (_mk("a" + "中" * 39 + " "), 0.15),
    # ~130-190 ms reviewed, ~50-75 ms on the parent and now
    (_mk("a" + "前的" * 20 + " "), 0.15),
    (_mk("a" + "的" * 39 + " "), 0.15),
])
def test_long_mixed_queries_stay_cheap(text, bound):
    parse("warm 上线前 Docker Hub 卡住的那天", NOW)
    best = min(_timed(text) for _ in range(3))
    assert best < bound, f"{best * 1000:.1f} ms"


def _timed(text):
    t = time.perf_counter()
    parse(text, NOW)
    return time.perf_counter() - t


@pytest.mark.xfail(strict=True, reason="过后 as 之后 in every relation (之后的那个周末, 之后两天) "
                   "needs 过 beside 之/以 in each of them; added as a bare 'after' it took "
                   "'压测过后两天' from its count (tried 2026-11-28, taken back)")
def test_bare_guo_hou_is_after_as_zhi_hou_is():
    # BUG (both): only a count or a day after 过后 reads it ("压测过后两天"); 之后 alone does
    a = anchor("压测过后发现了什么")
    assert a is not None and (a.event, a.first, a.last) == ("压测", 0, None)


# --- search: the day of an event, as the store tells it ----------------------------------

_FILLER = ("Redis TTL", "Kafka partitions", "JWT audience", "报表 API", "告警 debounce",
           "Timescale retention", "App 状态管理", "CI runner", "ERP webhook", "OSS 归档",
           "设备固件", "pgxpool", "Grafana 面板", "Nginx 日志", "S3 lifecycle")


def _filler(mem, month="2027-02"):
    for i, topic in enumerate(_FILLER):
        daily_line(mem, f"{topic} reviewed, no change", f"{month}-{i + 10:02d}", f"x{i}")


def test_a_record_written_on_the_event_day_still_dates_it_when_it_names_another_before_zh(
        mem, monkeypatch):
    """REGRESSION (the rule is deleted): a note written the day of the migration that
    mentions some "before" (迁库之前做了备份, demo 之前补监控) did not vote for its day, so
    one note written four days later ("迁库后…") dated the migration."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2027-04-15T12:00:00Z")
    _filler(mem)
    daily_line(mem, "RDS 迁库完成，迁库之前做了全量备份", "2027-03-20", "a")
    daily_line(mem, "迁库顺利，demo 之前要把监控补上", "2027-03-20", "b")
    that_day = daily_line(mem, "连接池 max_conns 调到 50", "2027-03-20", "c")
    daily_line(mem, "迁库后慢查询少了一半", "2027-03-24", "d")
    daily_line(mem, "连接池 max_conns 调回 30", "2027-03-24", "e")
    hits = mem.search("迁库当天连接池怎么调的？", limit=3, mode="fts")
    assert [h.id for h in hits if "连接池" in h.content][0] == that_day["id"]


def test_a_record_written_on_the_event_day_still_dates_it_when_it_names_another_before_en(
        mem, monkeypatch):
    """REGRESSION (the rule is deleted): "RDS migration done; prior to cutover we froze
    writes" and "… need dashboards before the demo", both written that day, did not vote."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2027-04-15T12:00:00Z")
    _filler(mem)
    daily_line(mem, "RDS migration done; prior to cutover we froze writes for 20 minutes",
               "2027-03-20", "a")
    daily_line(mem, "RDS migration went fine, we need dashboards before the demo", "2027-03-20", "b")
    that_day = daily_line(mem, "connection pool max_conns set to 50", "2027-03-20", "c")
    daily_line(mem, "After the RDS migration slow queries halved", "2027-03-24", "d")
    daily_line(mem, "connection pool max_conns back to 30", "2027-03-24", "e")
    hits = mem.search("What was the connection pool max_conns on the day of the RDS migration?",
                      limit=3, mode="fts")
    assert [h.id for h in hits if "max_conns" in h.content][0] == that_day["id"]


@pytest.mark.xfail(strict=True, reason="the glossary gives launch both 上线 and 启动 (a "
                   "process starting): the bridge cannot tell which an event means")
def test_launch_is_not_dated_by_notes_about_a_service_starting(mem, monkeypatch):
    """BUG (new path; the parent could not date "launch" from Chinese notes at all, and
    answered with the same wrong record, newest first): The glossary gives "launch" 上线 and 启动; 启动 in a dev note is mostly a process
    starting ("worker 启动慢"), and three such notes on one day outvote the launch."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2027-04-15T12:00:00Z")
    _filler(mem)
    day_before = daily_line(mem, "Redis 缓存 TTL 从 24h 改成 6h", "2027-03-28", "a")
    daily_line(mem, "v1.0.0 试点上线 prod", "2027-03-29", "b")
    daily_line(mem, "上线后 40 台车全部在线", "2027-03-29", "c")
    for i, text in enumerate(("worker 启动时加载配置慢", "容器启动失败，OOMKilled",
                              "启动脚本加了健康检查")):
        daily_line(mem, text, "2027-04-02", f"d{i}")
    daily_line(mem, "Redis 缓存 TTL 改回 24h", "2027-04-01", "e")
    hits = mem.search("What did we change in the Redis cache TTL the day before launch?",
                      limit=3, mode="fts")
    assert [h.id for h in hits if "TTL" in h.content][0] == day_before["id"]
