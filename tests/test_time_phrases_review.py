"""Hostile review of the quarter / half / part-of-year / day-of-month / comparison change to
memory_core/temporal.py (a8d9874). Tests marked "# WRONG:" failed on the reviewed code and
describe a misreading and the right reading (fixed since, or an xfail saying why not); the
rest pin behaviour that held.

"now" is Friday 2025-09-19 15:00 local unless a test says otherwise."""
import time
from datetime import date, datetime, timedelta

import pytest

from memory_core.temporal import parse

NOW = datetime(2025, 9, 19, 15, 0).astimezone()


def days(query, now=NOW):
    """(first day, last day) of the hint's stretch, or None."""
    h = parse(query, now)
    if h.start is None:
        return None
    return h.start.date(), (h.end - timedelta(days=1)).date()


def d(s):
    return date.fromisoformat(s)


# --- false positives: a time named where the query names none -----------------------------

@pytest.mark.parametrize("query", [
    "5号电池还是7号电池",  # WRONG: reads 2025-09-05 (AA / AAA batteries); right: no time
    "3号会议室的投影仪",  # WRONG: reads 2025-09-03 (meeting room 3); right: no time
    "1号节点挂了怎么办",  # WRONG: reads 2025-09-01 (node 1); right: no time
    "2号方案和1号方案哪个好",  # WRONG: reads 2025-09-02 (plan no. 2); right: no time
    "9号文档在哪个目录",  # WRONG: reads 2025-09-09 (document no. 9); right: no time
])
def test_numbered_labels_with_hao_are_not_days(query):
    assert days(query) is None


@pytest.mark.parametrize("query", [
    "年前年后的安排是什么",  # WRONG: "年前" (before Spring Festival) + "年后": reads 前年 = 2023; right: no year
    "此前年报披露的数据",  # WRONG: 此前 + 年报: reads 2023; right: no time
    "春节前年假怎么请",  # WRONG: 春节前 + 年假: reads 2023; right: no time
    "年前年会定在哪天",  # WRONG: 年前 + 年会: reads 2023; right: no time
])
def test_qiannian_inside_other_words_is_not_the_year_before_last(query):
    assert days(query) is None


def test_ten_years_ago_young_people_is_not_2023():
    # WRONG: "十年前年轻人…" reads 前年 (2023) and drops "十年前"; right: around 2015
    got = days("十年前年轻人买房容易吗")
    assert got is None or got[0].year == 2015


def test_half_a_year_ago_year_end_bonus_is_not_2023():
    # WRONG: "半年前年终奖" reads 前年 (2023); right: half a year ago (March 2025)
    got = days("半年前年终奖发了多少")
    assert got is None or got[0] == d("2025-03-01")


def test_end_of_the_year_three_years_ago():
    # WRONG: "三年前年底" reads 前年底 = 2023-12; right: the end of 2022 (or no reading)
    got = days("三年前年底的架构")
    assert got is None or got[0].year == 2022


def test_mid_autumn_is_not_mid_year():
    # WRONG: "2024年中秋节" reads 年中 = 2024-06-01..07-31 (the old code read 2024); right:
    # 2024, or around Mid-Autumn (2024-09-17) - a stretch holding that day
    got = days("2024年中秋节的活动")
    assert got is not None and got[0] <= d("2024-09-17") <= got[1]


@pytest.mark.parametrize("query", [
    "那年中秋我们做了什么",  # WRONG: reads 2025-06..07 (年中 of 那年中秋); right: no time
    "青年初创企业扶持政策",  # WRONG: reads 2025-01..02 (年初 of 青年初创); right: no time
    "童年初恋的故事",  # WRONG: reads 2025-01..02 (年初 of 童年初恋); right: no time
])
def test_nian_zhong_nian_chu_inside_other_words(query):
    assert days(query) is None


def test_in_the_past_ten_years():
    # WRONG: "过去十年中" reads 年中 = 2025-06-01..07-31; right: the last ten years (from 2015-09)
    got = days("过去十年中最大的事故")
    assert got is not None and got[0] <= d("2015-10-01")


def test_during_this_half_year():
    # WRONG: "这半年中" reads 年中 = 2025-06-01..07-31; right: the last six months (2025-03-19..)
    got = days("这半年中我们做了什么")
    assert got is not None and got[0] <= d("2025-04-01") and got[1] == d("2025-09-19")


@pytest.mark.parametrize("query", [
    "我有3年前端经验",  # WRONG: "3 years of front-end" reads 3年前 = 2022-08..10; right: no time
    "做了5年前端开发",  # WRONG: reads 2020-08..10; right: no time
    "学了半年前端",  # WRONG: "studied front-end for half a year" reads 2025-03; right: no time
])
def test_years_of_frontend_experience_are_not_years_ago(query):
    assert days(query) is None


@pytest.mark.parametrize("query", [
    "帮我看一下半年报的数据",  # WRONG: 一下 + 半年报 reads 下半年 (2025-07..); right: no time
    "花上半年时间做这个值得吗",  # WRONG: 花上 + 半年 reads 上半年; right: no time
    "加上半年的奖金是多少",  # WRONG: 加上 + 半年 reads 上半年; right: no time
    "考虑一下半年后的规划",  # WRONG: 一下 + 半年后 reads 下半年; right: no time (ahead)
    pytest.param("谁的生日在下半年", marks=pytest.mark.xfail(strict=True, reason=(
        "known: a time that is the question's subject, not when it happened, is still read "
        "(docs/retrieval.md 'Time phrases written by others')"))),
])
def test_shang_xia_ban_nian_across_words(query):
    assert days(query) is None


@pytest.mark.parametrize("query", [
    "use llama.cpp for Q3 quantization",  # WRONG: reads Q3 2025; a quantisation level
    "for Q2, what was the answer",  # WRONG: reads Q2 2025; question 2 of a list
    "in Q3 of the survey what did people say",  # WRONG: reads Q3 2025; survey question 3
    "the title in H1 is too big",  # WRONG: reads H1 2025; an HTML heading
    "set the font size for H1, H2 and H3",  # WRONG: reads H1 2025; headings
])
def test_q_and_h_labels_after_a_preposition(query):
    assert days(query) is None


@pytest.mark.parametrize("query", [
    "Q1 1200 orders, Q2 1500 orders: which grew?",  # WRONG: reads 1200-01-01..03-31
    "loss at the end of 1000 epochs",  # WRONG: reads 1000-12-01..12-31
    "the first half of 1024 bytes",  # WRONG: reads 1024-01-01..06-30
])
def test_counts_after_quarter_half_and_end_of_are_not_years(query):
    # right: no time (year_abs keeps to 1900-2100; the new year-part patterns take any 4 digits)
    assert days(query) is None


@pytest.mark.parametrize("query", [
    "late 2019 MacBook Pro keyboard issue",  # WRONG: reads 2019-09..12; a model name
    "my MacBook Pro mid 2015 won't boot",  # WRONG: reads 2015-05..08; a model name
])
def test_model_year_names_are_not_parts_of_a_year(query):
    assert days(query) is None


@pytest.mark.parametrize("query", [
    "we upgraded VS from 2019 to 2022, what broke?",  # WRONG: reads 2019-01-01..2022-12-31
    "upgrade Windows Server from 2016 to 2022",  # WRONG: reads 2016-01-01..2022-12-31
])
def test_from_version_year_to_version_year(query):
    # right: no time: product versions (the new "from" in year_abs)
    assert days(query) is None


@pytest.mark.parametrize("query", [
    "the difference between the 1st and 2nd approach",  # WRONG: reads 2025-09-01..02
    "data from the 3rd and 4th columns",  # WRONG: reads 2025-09-03..04
    "click on the 2nd and 3rd buttons",  # WRONG: reads 2025-09-02
])
def test_ordinals_of_things_are_not_days_of_this_month(query):
    assert days(query) is None


def test_every_monday_morning_is_a_habit():
    # WRONG: reads 2025-09-15; "every Monday morning" names no one Monday
    assert days("every Monday morning we have standup") is None


# --- wrong stretches ----------------------------------------------------------------------

def test_day_number_after_a_named_month():
    # WRONG: "8月的周会，3号那次" reads 2025-09-03 (this month's 3rd; old: August);
    # right: August 3 (at least a stretch inside August)
    got = days("8月的周会，3号那次说了什么")
    assert got is not None and d("2025-08-01") <= got[0] <= got[1] <= d("2025-08-31")


def test_day_numbers_after_a_holiday():
    # WRONG: "国庆去大理，1号飞6号回" reads 2025-09-01 (old: 国庆 2024-10-01..07);
    # right: inside 国庆 2024 (October 1 to 6)
    got = days("国庆去大理，1号飞6号回")
    assert got is not None and d("2024-10-01") <= got[0] <= got[1] <= d("2024-10-07")


@pytest.mark.parametrize("query, first, last", [
    # WRONG: reads 2025-09-18..09-19 (today, not the day before yesterday)
    ("昨天或者前天", "2025-09-17", "2025-09-18"),
    # WRONG: reads 2025-09-08..09-19 (this week too, not the week before last)
    ("上周还是上上周定的", "2025-09-01", "2025-09-14"),
    # WRONG: reads 2025-08-01..09-19 (September, not July)
    ("8月或7月的账单", "2025-07-01", "2025-08-31"),
    # WRONG: reads 2025-09-08..09-19
    ("last week or the week before last", "2025-09-01", "2025-09-14"),
    # WRONG: reads 2025-01-01..09-19 (last year's H2 lost, this year's H2 added)
    ("上半年还是去年下半年", "2024-07-01", "2025-06-30"),
])
def test_compared_in_reverse_order(query, first, last):
    # _range moves a second end before the first a year on ("11月1日到11月30日"), which is
    # wrong for "或/还是/or/vs": two compared are in either order
    assert days(query) == (d(first), d(last))


@pytest.mark.parametrize("query", [
    "今年上半年和去年上半年比",  # WRONG: reads 2025-01..06 only
    "Q2 2024 vs Q2 2025",  # WRONG: reads 2024-04..06 only
])
def test_year_on_year_comparison_keeps_both(query):
    # over 366 days, so _range gives up and the first / narrowest is taken alone;
    # right: a stretch holding both
    got = days(query)
    assert got is not None and got[0] <= d("2024-06-30") and got[1] >= d("2025-04-01")


@pytest.mark.parametrize("query, first, last", [
    # WRONG: "前两天" here is "the first two days": reads 2025-09-14..18 (old: 2025-09-01..19)
    ("9月前两天的记录", "2025-09-01", "2025-09-02"),
    # WRONG: reads 2025-09-14..18 (old: this week 09-15..19); right: Monday and Tuesday
    ("这周前两天做了什么", "2025-09-15", "2025-09-16"),
])
@pytest.mark.xfail(strict=True, reason="known: '前两天' after a month or week reads that month or "
                   "week so far (a stretch holding the first two days), as before the change")
def test_the_first_two_days_of(query, first, last):
    assert days(query) == (d(first), d(last))


def test_a_day_or_two_before_launch_is_an_event_anchor():
    # WRONG: "上线前一两天" reads 2025-09-14..18 (a few days ago); right: the anchor
    # 上线 (-2..-1), as "上线前两天" is; at least no calendar stretch
    h = parse("上线前一两天", NOW)
    assert h.start is None


@pytest.mark.xfail(strict=True, reason="chosen: 'N小时内' is as often a requirement ('24小时内回复') "
                   "as a window; '过去/最近 N 小时' and 'the last N hours' are read")
def test_within_24_hours():
    # WRONG (a gap of the new feature, bench/data/time-phrases/second.json): "24小时内" is
    # not read; right: yesterday and today
    assert days("24小时内我记了什么") == (d("2025-09-18"), d("2025-09-19"))


# --- held ---------------------------------------------------------------------------------

@pytest.mark.parametrize("query", [
    "Q4 quantization of llama weights", "用Q4量化的模型效果怎么样",
    "Q1: how do we configure the cache?", "H2 database settings we chose",
    "the H2 database config", "which H2 tag styles did we use", "3号机器的日志", "3号线的事",
    "the second half of the season", "0号",
])
def test_no_time(query):
    assert days(query) is None


@pytest.mark.parametrize("query, first, last", [
    ("去年Q4的目标", "2024-10-01", "2024-12-31"),
    ("第三季度的销售", "2025-07-01", "2025-09-19"),
    ("上季度的OKR", "2025-04-01", "2025-06-30"),
    ("上半年的总结", "2025-01-01", "2025-06-30"),
    ("H1 2025 planning", "2025-01-01", "2025-06-30"),
    ("first half of last year", "2024-01-01", "2024-06-30"),
    ("去年底的事故", "2024-12-01", "2024-12-31"),
    ("end of last year incidents", "2024-12-01", "2024-12-31"),
    ("九月第一周的会议", "2025-09-01", "2025-09-07"),
    ("last week of August deploy", "2025-08-25", "2025-08-31"),
    ("logs from the 5th to the 12th", "2025-09-05", "2025-09-12"),
    ("1号以来的改动", "2025-09-01", "2025-09-19"),
    ("过去72小时的告警", "2025-09-16", "2025-09-19"),
    ("大前年的预算", "2022-01-01", "2022-12-31"),
    ("上上个周末", "2025-09-06", "2025-09-07"),
    ("a year ago today", "2024-09-19", "2024-09-19"),
    ("since March what changed", "2025-03-01", "2025-09-19"),
    ("上半年 vs 下半年", "2025-01-01", "2025-09-19"),
    pytest.param("8号上线前两天", "2025-09-05", "2025-09-07", marks=pytest.mark.xfail(
        strict=True, reason="known: N号 is read only before words that make it a day (not '3号会议室'): "
                            "here the store dates 上线 instead")),
])
def test_reads(query, first, last):
    assert days(query) == (d(first), d(last))


@pytest.mark.parametrize("query, event, first, last", [
    ("上线前两天", "上线", -3, -1),
    ("上线前两天的配置", "上线", -3, -1),
    ("the day before launch", "launch", -1, -1),
    ("年会前两天", "年会", -3, -1),
    ("发布前两天改了什么", "发布", -3, -1),
])
def test_event_anchors_kept(query, event, first, last):
    h = parse(query, NOW)
    assert h.start is None and h.anchor is not None
    assert (h.anchor.event, h.anchor.first, h.anchor.last) == (event, first, last)


@pytest.mark.parametrize("text", [
    "1" + " " * 1999, ("1 " * 1000), ("Q1 " * 700)[:2000], ("in H1 " * 400)[:2000],
    ("2025   " * 300)[:1998] + "季度", ("第   " * 500)[:1998] + "季度", ("1 号" * 700)[:2000],
    "周" + ("9" + " " * 50) * 39, ("from the 1st " * 200)[:2000], ("前年" * 1000),
    ("年 " * 1000), ("上半年 vs " * 300)[:2000], ("9月、" * 700)[:2000], ("本月的" * 700)[:1996] + "第一周",
    ("a years ago " * 200)[:1995] + "today", ("early " * 400)[:1996] + "2025",
])
def test_long_queries_stay_cheap(text):
    parse("warm 1号 季度 Q1 H1 年底 half quarter week hours", NOW)
    best = min(_timed(text) for _ in range(3))
    # a blow-up guard, no budget: these take 30-55 ms on 2 shared cores with benchmarks
    # running beside them, the base commit the same (tests/test_review_event_dating.py)
    assert best < 0.15, f"{best * 1000:.1f} ms"


def _timed(text):
    t = time.perf_counter()
    parse(text, NOW)
    return time.perf_counter() - t
