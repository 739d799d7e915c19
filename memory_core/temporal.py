"""Time in a query, in Chinese or English: the days it names ("昨天", "上周", "last month",
"on Sept 12", "9月12日", "2026-09-12") and whether it asks for the newest or the oldest
version of something ("现在", "currently", "latest"; "最早", "originally").

Search prefers records from the named days and, for "what is X now", the newest records
(see search.rerank). Dates are calendar days in the local time zone of `config.now()`,
which honours CURSOR_MEMORY_NOW. Stdlib only and cheap: it runs on every search.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

NEWEST, OLDEST = "newest", "oldest"


@dataclass
class TimeHint:
    start: datetime | None = None  # aware, inclusive
    end: datetime | None = None  # aware, exclusive
    order: str | None = None  # NEWEST / OLDEST
    spans: list = field(default_factory=list)  # (start, end) of the time words in the query

    def __bool__(self):
        return self.start is not None or self.order is not None

    def rest(self, query: str) -> str:
        """The query without its time words (they are matched by date, not by keyword)."""
        out, pos = [], 0
        for a, b in sorted(self.spans):
            if a >= pos:
                out.append(query[pos:a])
                pos = b
        out.append(query[pos:])
        return " ".join(p for p in out if p.strip()) or query


_MONTHS = {m: i for i, names in enumerate((
    "jan january", "feb february", "mar march", "apr april", "may", "jun june", "jul july",
    "aug august", "sep sept september", "oct october", "nov november", "dec december"), 1)
    for m in names.split()}
_MONTH = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAYS_EN = {d: i for i, d in enumerate(
    "monday tuesday wednesday thursday friday saturday sunday".split())}
_WEEKDAYS_ZH = {c: i for i, c in enumerate("一二三四五六日")} | {"天": 6}
_ZH_NUM = {c: i for i, c in enumerate("零一二三四五六七八九十", 0)} | {"两": 2}
_EN_NUM = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten".split())} | {"a": 1, "an": 1}


def _num(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if text.lower() in _EN_NUM:
        return _EN_NUM[text.lower()]
    if text and all(c in _ZH_NUM for c in text):  # 三, 十, 十五, 二十
        if "十" not in text:
            return _ZH_NUM[text] if len(text) == 1 else None
        tens, _, ones = text.partition("十")
        return (_ZH_NUM[tens] if tens else 1) * 10 + (_ZH_NUM[ones] if ones else 0)
    return None


_N = r"(?P<n>\d{1,3}|[一二三四五六七八九十两]{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"

# (pattern, kind); the first pattern that matches a stretch of the query wins it. Compiled
# on first need (~8 ms): most queries name no date, and _MAYBE_DATE says so cheaply.
_PATTERN_SOURCES = (
    (rf"\b{_YEAR}[-/.](?P<mon>\d{{1,2}})[-/.]{_DAY}\b", "ymd"),
    (rf"(?:{_YEAR}\s*年\s*)?(?P<mon>\d{{1,2}})\s*月\s*(?P<day>\d{{1,2}})\s*[日号]", "ymd"),
    (rf"{_YEAR}\s*年\s*(?P<mon>\d{{1,2}})\s*月份?", "ym"),
    (r"(?<![\d个])(?P<mon>\d{1,2})\s*月份", "ym"),
    (rf"\b{_MONTH}\s+{_DAY}\b(?:,?\s*{_YEAR}\b)?", "ymd"),
    (rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b(?:,?\s*{_YEAR}\b)?", "ymd"),
    (rf"\b{_MONTH}\s+{_YEAR}\b", "ym"),
    (r"大前天", "-3"), (r"前天|the day before yesterday", "-2"),
    (r"昨天|昨日|昨晚|\byesterday\b", "-1"), (r"今天|今日|今晚|\btoday\b|\btonight\b", "0"),
    (r"(?:上|上个)(?:周|星期|礼拜)(?P<wd>[一二三四五六日天])", "last_wd"),
    (r"\blast\s+(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", "last_wd"),
    (r"上上(?:个)?(?:周|星期|礼拜)|\bthe\s+week\s+before\s+last\b", "week-2"),
    (r"上(?:个)?(?:周|星期|礼拜)|\blast\s+week\b", "week-1"),
    (r"(?:这|本)(?:个)?(?:周|星期|礼拜)|\bthis\s+week\b", "week0"),
    (r"上上(?:个)?月|\bthe\s+month\s+before\s+last\b", "month-2"),
    (r"上(?:个)?月|\blast\s+month\b", "month-1"),
    (r"(?:这|本)(?:个)?月|\bthis\s+month\b", "month0"),
    (r"去年|\blast\s+year\b", "year-1"), (r"今年|\bthis\s+year\b", "year0"),
    (rf"(?:最近|过去|近)\s*{_N}\s*(?:天|日)", "last_n_days"),
    (rf"\b(?:last|past)\s+{_N}\s+days\b", "last_n_days"),
    (rf"{_N}\s*(?:天|日)(?:之|以)?前", "n_days_ago"), (rf"\b{_N}\s+days?\s+ago\b", "n_days_ago"),
    (rf"{_N}\s*(?:个)?(?:周|星期|礼拜)(?:之|以)?前", "n_weeks_ago"),
    (rf"\b{_N}\s+weeks?\s+ago\b", "n_weeks_ago"),
)
_patterns: list = []
_MAYBE_DATE = re.compile(  # every pattern above contains one of these
    r"\d|[天日号月周年礼拜晚期]|day|tonight|week|month|year|ago|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", re.I)

_NEWEST = re.compile(
    r"现在|目前|当前|如今|眼下|最新|最近|\bnow\b|\bcurrent(?:ly)?\b|\blatest\b|\bnowadays\b|"
    r"\bthese\s+days\b|\bat\s+(?:the\s+)?(?:moment|present)\b|\bmost\s+recent(?:ly)?\b|"
    r"\brecently\b", re.I)
_OLDEST = re.compile(
    r"最早|最初|起初|一开始|刚开始|当初|\boriginally\b|\binitially\b|\bat\s+first\b|"
    r"\bearliest\b|\bin\s+the\s+beginning\b", re.I)


def parse(query: str, now: datetime) -> TimeHint:
    """The time hint of a query ('' and queries without time words give an empty hint).
    A query of several lines is a conversation: its "今天" and "最近" are the speakers',
    not the search's, so it gets none."""
    hint = TimeHint()
    if not query or len([line for line in query.splitlines() if line.strip()]) > 1:
        return hint
    today = now.astimezone().date()
    taken: list[tuple[int, int]] = []
    best = None
    if _MAYBE_DATE.search(query) and not _patterns:
        _patterns.extend((re.compile(p, re.I), kind) for p, kind in _PATTERN_SOURCES)
    for pattern, kind in (_patterns if _MAYBE_DATE.search(query) else ()):
        for m in pattern.finditer(query):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            days = _days(kind, m, today)
            if days is None:
                continue
            taken.append(m.span())
            if best is None or days[1] - days[0] < best[1] - best[0]:
                best = days  # the narrowest: "昨天复盘时说这个月…" is about yesterday
    if best is not None:
        hint.start = _local_midnight(best[0], now)
        hint.end = _local_midnight(best[1] + timedelta(days=1), now)
    hint.spans = taken
    for pattern, order in ((_NEWEST, NEWEST), (_OLDEST, OLDEST)):
        m = pattern.search(query)
        if m and hint.order is None:
            hint.order = order
            hint.spans.append(m.span())
    return hint


def _local_midnight(day: date, now: datetime) -> datetime:
    return datetime(day.year, day.month, day.day).astimezone(now.astimezone().tzinfo)


def _days(kind: str, m, today: date):
    """(first day, last day) a match names, or None when it names no real date."""
    g = m.groupdict()
    try:
        if kind in ("ymd", "ym"):
            mon = g["mon"]
            month = int(mon) if mon.isdigit() else _MONTHS[mon.lower().rstrip(".")]
            year = int(g["year"]) if g.get("year") else None
            if kind == "ym":
                year = year or (today.year if month <= today.month else today.year - 1)
                first = date(year, month, 1)
                return first, _month_end(first)
            day = int(g["day"])
            if year is None:  # the last such day up to today
                year = today.year if (month, day) <= (today.month, today.day) else today.year - 1
            d = date(year, month, day)
            return d, d
    except (ValueError, KeyError):
        return None
    if kind.lstrip("-").isdigit():
        d = today + timedelta(days=int(kind))
        return d, d
    if kind == "last_wd":
        wd = g["wd"].lower()
        target = _WEEKDAYS_EN.get(wd, _WEEKDAYS_ZH.get(wd))
        if target is None:
            return None
        monday = today - timedelta(days=today.weekday() + 7)
        d = monday + timedelta(days=target)
        return d, d
    if kind.startswith("week"):
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=int(kind[4:]))
        return monday, min(today, monday + timedelta(days=6))
    if kind.startswith("month"):
        first = today.replace(day=1)
        for _ in range(-int(kind[5:])):
            first = (first - timedelta(days=1)).replace(day=1)
        return first, min(today, _month_end(first))
    if kind.startswith("year"):
        year = today.year + int(kind[4:])
        return date(year, 1, 1), min(today, date(year, 12, 31))
    n = _num(g.get("n") or "")
    if n is None or n > 3660:
        return None
    if kind == "last_n_days":
        return today - timedelta(days=n), today
    if kind == "n_days_ago":
        d = today - timedelta(days=n)
        return d, d
    if kind == "n_weeks_ago":
        d = today - timedelta(weeks=n)
        return d - timedelta(days=3), d + timedelta(days=3)
    return None


def _month_end(first: date) -> date:
    return (first.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
