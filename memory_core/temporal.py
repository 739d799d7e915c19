"""Time in a query, in Chinese or English: the days it names ("昨天", "上周", "last month",
"on Sept 12", "9月12日", "2026-09-12"), a time named by an event ("the day before launch",
"上线当天", "迁库之后": see `Anchor`), and whether it asks for the newest or the oldest
version of something ("现在", "currently", "latest"; "最早", "originally").

Search prefers records from the named days and, for "what is X now", the newest records
(see search.rerank). Dates are calendar days in the local time zone of `config.now()`,
which honours CURSOR_MEMORY_NOW. Stdlib only and cheap: it runs on every search.
"""
from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from .text import asking, asks_in, blanked, chat_of, folded, lines, own_lines, sentences

NEWEST, OLDEST = "newest", "oldest"


# "the week of X" / "X那周": the Monday-Sunday week that holds X (Anchor.stretch); a stretch
# no other relation has, so an anchor carries it as (first, last) like the others
WEEK_OF = (-6, 6)


@dataclass
class Anchor:
    """A time named by an event rather than the calendar ("the day before launch", "上线当天",
    "迁库之后那天", "after Caroline's trip"): the event's words, and the stretch around the
    event's day in days (-1, -1: the day before; None: open-ended). Only the store knows
    the event's day (search.event_day)."""
    event: str
    first: int | None
    last: int | None
    weekday: int | None = None  # "上线前那周的周一", "the Friday after launch": that day of it
    until: str | None = None  # "between the load test and the phase-2 one": the second event
    days: int = 1  # from the weekday: 2 for a weekend ("上线后第一个周末": Saturday, Sunday)
    workday: bool = False  # "the first workday after the outage", "上线前最后一个工作日": the
    # nearest Monday-Friday day of the stretch's one day (a Saturday outage: the Monday)

    def stretch(self, first_day: date, last_day: date, now: datetime) -> tuple:
        """(start, end), aware local midnights, of the stretch around an event that took
        first_day .. last_day ("国庆前一天" counts from its first day, "节后" from its last)."""
        a, b = self.first, self.last
        if (a, b) == WEEK_OF:  # "the week of the launch", "上线那周": its calendar week,
            monday = first_day - timedelta(days=first_day.weekday())  # or a day of it
            first = monday if self.weekday is None else monday + timedelta(days=self.weekday)
            days = 7 if self.weekday is None else self.days
            return _local_midnight(first), _local_midnight(first + timedelta(days=days))
        first = (date(1970, 1, 1) if a is None else
                 first_day + timedelta(days=a) if a <= 0 else last_day + timedelta(days=a))
        last = (now.astimezone().date() if b is None else
                last_day + timedelta(days=b) if b >= 0 else first_day + timedelta(days=b))
        if self.weekday is not None:  # the week's stretch holds one such day (or weekend)
            first += timedelta(days=(self.weekday - first.weekday()) % 7)
            last = first + timedelta(days=self.days - 1)
        elif self.workday and (a or 0) > 0:
            while first.weekday() >= 5:
                first += timedelta(days=1)
            last = first
        elif self.workday:
            while last.weekday() >= 5:
                last -= timedelta(days=1)
            first = last
        return _local_midnight(first), _local_midnight(max(first, last) + timedelta(days=1))


@dataclass
class TimeHint:
    start: datetime | None = None  # aware, inclusive
    end: datetime | None = None  # aware, exclusive
    order: str | None = None  # NEWEST / OLDEST
    anchor: Anchor | None = None  # only when the query names no calendar day
    back_then: bool = False  # "当时", "那阵子", "back then": some past time, no day named

    def __bool__(self):
        return (self.start is not None or self.order is not None or self.anchor is not None
                or self.back_then)

    def asks_past(self) -> bool:
        """Does the question ask what was true at some time ("上周定的超时是多少", "before the
        audit", "originally")? Then a record superseded since is an answer: it was true then."""
        return (self.order == OLDEST or self.start is not None or self.anchor is not None
                or self.back_then)


_MONTHS = {m: i for i, names in enumerate((
    "jan january", "feb february", "mar march", "apr april", "may", "jun june", "jul july",
    "aug august", "sep sept september", "oct october", "nov november", "dec december"), 1)
    for m in names.split()}
_MONTH = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAYS_EN = {d: i for i, d in enumerate(
    "monday tuesday wednesday thursday friday saturday sunday".split())}
# How people shorten them in a chat ("last wed", "this Thurs.", "the Fri before the launch"):
# read after this / last / next / on and before before / after (_WD_EN_SHORT), and not "sat"
# or "sun", which are words too ("when we last sat down", "this Sun JDK").
_WEEKDAYS_EN |= {a: i for i, names in enumerate(
    ("mon", "tue tues", "wed weds", "thu thur thurs", "fri")) for a in names.split()}
_WEEKDAYS_ZH = {c: i for i, c in enumerate("一二三四五六日")} | {"天": 6}
_ZH_NUM = {c: i for i, c in enumerate("零一二三四五六七八九十", 0)} | {"两": 2}
_EN_NUM = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())} | {"a": 1, "an": 1}


def _num(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if text.lower() in _EN_NUM:
        return _EN_NUM[text.lower()]
    if text and all(c in _ZH_NUM for c in text):  # 三, 十, 十五, 二十
        if "十" not in text:
            return _ZH_NUM[text] if len(text) == 1 else None
        tens, _, ones = text.partition("十")
        if len(tens) > 1 or len(ones) > 1 or "十" in ones:  # "八九十", "十十": no number
            return None
        return (_ZH_NUM[tens] if tens else 1) * 10 + (_ZH_NUM[ones] if ones else 0)
    return None


# Not a stretch of its own when "'s" or an "of" with a time follows: "the past month's
# budget", "the last 3 months of 2025", "… of last year", "… of the quarter" (but "the last 3
# months of releases" is one).
_NOT_OF = r"(?!'s|\s+of\s+(?:\d|(?:the|this|last|next|that|its?)\b))"
_N = (r"(?P<n>\d{1,3}|[一二三四五六七八九十两]{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|"
      r"ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)")
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_CENTURY_YEAR = r"(?P<year>(?:19|20)\d{2})"  # the new patterns' years: not "Q1 1200 orders"
_ZH_MON = r"(?P<mon>1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"  # 9, 09, 九, 十二
_PART_ZH = r"(?P<part>初|中|底|末|上旬|中旬|下旬)"
_YREL = r"(?P<yrel>去年|今年|大前年|(?<![目提以之大年节此前天])前年(?![轻假会报终后龄级纪]))的?"  # the year of a month: "去年八月", "前年3月初"
_LOWER_ABBREV = r"(?-i:may|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)"
# What may follow "in 2025" when it is a year ("in 2025 we moved", not "in 2000 ms")
_AFTER_YEAR = (r"(?:what|when|how|why|who|which|did|do|does|was|were|is|are|have|had|we|i|you|"
               r"they|he|she|it|our|my|the|and|or|but|so|then|for|to|at|on|of|with|about|alone|"
               r"spring|summer|autumn|fall|winter)")
# What may follow "on the 3rd" when it is a day ("on the 3rd, what…", not "the 2nd and 3rd buttons")
_AFTER_DAY = (r"(?:what|when|how|why|who|which|did|do|does|was|were|is|are|have|had|we|i|you|they|he|"
              r"she|it|about|regarding|at|with|to|until|till|through)")
_YEARS_BACK = {"今年": 0, "去年": 1, "前年": 2, "大前年": 3}
_WD_ZH = r"(?P<wd>[一二三四五六日天])"
# "N days back" names a time only opening the text or a clause ("three days back I was…"); in
# a sentence it is as often a shift ("pushed the deadline 3 days back")
_BACK = r"(?:^|(?<=[,;，；:]\s)|(?<=[,;，；:]))\s*"
_WD_EN = r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
# a day's name or its chat form, not the start of a host or a name ("on mon-a", "mon.example.com")
_WD_EN_SHORT = (r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|weds?|"
                r"thu(?:rs?)?|fri)\.?(?![\w-]|\.\w)")
_SEASON = r"(?P<season>春天|夏天|秋天|冬天|春季|夏季|秋季|冬季|spring|summer|autumn|fall|winter)"

AHEAD = "ahead"  # the kind of words that name no day because they name one ahead

# (pattern, kind[, the words it needs[, the words it is read unless]]): _Pattern; the first pattern that matches a stretch of text
# wins it. The same patterns read a query (relative to now) and a record (relative to when
# it was written). Compiled on first need: most texts name no date, and _MAYBE_DATE says so
# cheaply; a pattern with words it needs is compiled only for a text holding one of them
# (lower-cased; tests/test_properties.py checks that every text it matches holds one).
_PATTERN_SOURCES = (
    # words naming a month or year ahead ("下个月底", "明年1月", "next month", "明年上半年",
    # "next quarter"): taken, so that "月底" or "1月" inside them is not read as this month's
    # end or last January; no days
    (r"(?:明年|后年)的?(?:[上下]半年|第?[一二三四1-4]季度|\s*(?-i:[QH])[1-4]|年[初中底末])|下下?个?季度|"
     r"\bnext\s+(?:quarter|year'?s?\s+(?-i:[QH])[1-4])\b|\b(?:first|second)\s+half\s+of\s+next\s+year\b",
     AHEAD, ("明年", "后年", "季度", "next")),
    (r"(?:明年|后年)(?:\s*\d{1,2}\s*月份?(?:\s*\d{1,2}\s*[日号])?)?|下下?个?月(?:份|初|中旬|中|底|末|上旬|下旬|"
     r"\s*\d{1,2}\s*[日号])?|下下个?(?:周|星期|礼拜)[一二三四五六日天]?|\bnext\s+(?:month|year)\b", AHEAD),
    (rf"\b{_YEAR}[-/.](?P<mon>\d{{1,2}})[-/.]{_DAY}(?![0-9A-Za-z])", "ymd"),
    # quarters, halves and parts of a year ("去年 Q4", "第三季度", "上半年", "H1 2025", "end of
    # last year", "年底"); a bare one is this year's, and names nothing until it has begun
    # A bare "Q3" or "H1" is read only after a word that makes it a time ("in Q3", "our H1
    # goals") or beside a year: it is as often a list label ("Q1: …"), a quantisation ("Q4
    # 量化"), a heading or the H2 database. Spaces are bounded (\s{0,3}): a digit followed by
    # thousands of spaces must not cost more than it did.
    (rf"(?<![A-Za-z_\d])(?-i:Q)(?P<q>[1-4])\s{{0,3}}(?:of\s+)?(?:{_CENTURY_YEAR}|(?P<last_year>last\s+year)|"
     r"(?P<this_year>this\s+year))\b", "quarter", ("q1", "q2", "q3", "q4")),
    (rf"(?:{_CENTURY_YEAR}\s{{0,3}}年?\s{{0,3}}的?\s{{0,3}}|{_YREL}\s{{0,3}})(?:(?:第\s{{0,3}})?(?P<q>[1-4一二三四])\s{{0,3}}季度|"
     r"(?-i:Q)(?P<q2>[1-4])(?![0-9A-Za-z_-]))", "quarter", ("季度", "q1", "q2", "q3", "q4")),
    (r"(?<![A-Za-z_\d上下本这每])(?:第\s{0,3})?(?P<q>[1-4一二三四])\s{0,3}季度", "quarter", ("季度",)),
    (r"(?:\b(?:in|during|by|through|throughout|over|across|my|our)\s+(?:the\s+)?|(?<=since\s))"
     r"(?-i:Q)(?P<q>[1-4])(?![0-9A-Za-z_:：.)\]-])(?!\s{0,3}(?:to|vs|of\s+the|quant\w*)\b)(?!\s{0,3}(?:,|and)\s{0,3}(?-i:Q)\d)", "quarter", ("q1", "q2", "q3", "q4")),
    (r"\b(?:the\s+)?(?P<qw>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b(?:\s+of\s+"
     rf"(?:{_CENTURY_YEAR}|(?P<last_year>last\s+year)|(?:the|this)\s+year))?", "quarter", ("quarter",)),
    (r"上上个?季度|\bthe\s+quarter\s+before\s+last\b", "quarter-2", ("季度", "quarter")),
    (r"上一?个?季度|\b(?:last|previous)\s+quarter\b", "quarter-1", ("季度", "quarter")),
    (r"(?:本|这一?个?)季度|\b(?:this|the\s+current)\s+quarter\b", "quarter0", ("季度", "quarter")),
    (rf"(?:{_CENTURY_YEAR}\s{{0,3}}年?\s{{0,3}}的?\s{{0,3}}|{_YREL}\s{{0,3}}|(?<![马剩余一花加用再等过待做学要需]))(?P<half>[上下])半年(?![报后前多左])", "half",
     ("半年",)),
    (rf"(?<![A-Za-z_\d])(?-i:H)(?P<h>[12])\s{{0,3}}(?:of\s+)?(?:{_CENTURY_YEAR}|(?P<last_year>last\s+year)|"
     r"(?P<this_year>this\s+year))\b", "half", ("h1", "h2")),
    (rf"(?:{_CENTURY_YEAR}\s{{0,3}}年?\s{{0,3}}的?\s{{0,3}}|{_YREL}\s{{0,3}}|\b(?:during|throughout|"
     r"over|across|my|our)\s+(?:the\s+)?|(?<=since\s))(?-i:H)(?P<h>[12])(?![0-9A-Za-z_:：.)\]-])"
     r"(?!\s{0,3}(?:tags?|headings?|headers?|titles?|elements?|fonts?|styles?|databases?|db|console|"
     r"drivers?|dialect|to\b|vs\b|标签|标题|数据库))(?!\s{0,3}(?:,|and)\s{0,3}(?-i:H)\d)", "half", ("h1", "h2")),
    (r"\b(?:the\s+)?(?P<hw>first|second|1st|2nd)\s+half\s+of\s+(?:"
     rf"{_CENTURY_YEAR}|(?P<last_year>last\s+year)|(?:the|this)\s+year)\b", "half", ("half",)),
    (r"(?P<yrel>去年|今年|大前年|(?<![目提以之大年节此前天])前年)(?P<ypart>初|底|末)", "year_part", ("年初", "年底", "年末")),
    (rf"(?:{_CENTURY_YEAR}\s{{0,3}}年?\s{{0,3}}|{_YREL}\s{{0,3}}|(?<![\u4e00-\u9fff])|(?<=[在到从于的我们是和]))年"
     r"(?P<ypart>初|中|底|末)(?![秋会终假轻])",
     "year_part", ("年初", "年底", "年末", "年中")),
    (r"\b(?:the\s+)?(?P<ypart>beginning|start|middle|end)\s+of\s+(?:"
     rf"{_CENTURY_YEAR}|(?P<last_year>last\s+year)|(?:the|this)\s+year)\b", "year_part", ("beginning", "start", "middle", "end")),
    (rf"(?<!Pro\s)(?<!Air\s)(?<!Mac\s)(?<!iMac\s)\b(?P<ypart>early|mid|late)[\s-]+(?:{_CENTURY_YEAR}(?!\s+(?:mac|imac|macbook|iphone|ipad|thinkpad|pro|air|model|edition)\b)|(?P<last_year>last\s+year)|this\s+year)\b", "year_part",
     ("early", "mid", "late")),
    # weeks of a month ("九月第一周", "the last week of August", "上个月最后一周")
    (rf"(?:(?:{_YEAR}\s*年\s*|{_YREL}\s*)?{_ZH_MON}\s*月份?|(?P<rel>上上个?|上个?|这个?|本)月)的?"
     r"(?:第\s*(?P<wk>[一二三四1-4])|(?P<wkl>最后一))\s*个?(?:周|星期|礼拜)", "month_week", ("周", "星期", "礼拜")),
    (r"\b(?:the\s+)?(?P<wk>first|second|third|fourth|last|1st|2nd|3rd|4th)\s+week\s+of\s+"
     rf"(?:(?P<rel_en>this|last)\s+month|(?!{_LOWER_ABBREV}\b){_MONTH}(?:,?\s+{_YEAR})?)\b", "month_week", ("week",)),
    # the beginning, middle or end of a named month ("the end of June")
    (r"\b(?:the\s+)?(?P<part>beginning|start|middle|end)\s+of\s+"
     rf"(?!{_LOWER_ABBREV}\b){_MONTH}(?:,?\s+{_YEAR})?\b", "month_part", ("beginning", "start", "middle", "end")),
    # a day of this month ("on the 15th", "since the 3rd", "from the 5th to the 12th")
    (r"\b(?:from|between)\s+the\s+(?P<day>[12]?\d|3[01])(?:st|nd|rd|th)\s+(?:to|and|until|till|through)"
     rf"\s+(?:the\s+)?(?P<day2>[12]?\d|3[01])(?:st|nd|rd|th)\b(?=\s*(?:$|[,.;:!?)]|{_AFTER_DAY}\b))", "month_days", ("from", "between")),
    (r"\bthe\s+(?P<day>[12]?\d|3[01])(?:st|nd|rd|th)\s+of\s+(?P<rel_en>last|this)\s+month\b", "month_days",
     ("month",)),
    (r"(?:\b(?:on|from)\s+|(?<=\bsince\s))the\s+(?P<day>[12]?\d|3[01])(?:st|nd|rd|th)\b"
     rf"(?=\s*(?:$|[,.;:!?)]|{_AFTER_DAY}\b))", "month_days", ("the",)),
    (r"\bthe\s+(?P<day>[12]?\d|3[01])(?:st|nd|rd|th)(?=\s{0,3}(?:那次|那天|当天|那一天))", "month_days", ("the",)),
    (rf"(?:{_YEAR}\s*年\s*|{_YREL}\s*)?{_ZH_MON}\s*月\s*(?P<day>\d{{1,2}}|[一二三]?十[一二三四五六七八九]?|"
     r"[一二三四五六七八九])\s*[日号](?:\s{0,3}(?:到|至|~|-|–)\s{0,3}(?P<day2>\d{1,2})\s{0,3}[日号])?", "ymd"),
    (rf"(?:{_YEAR}\s*年\s*|{_YREL}\s*)?(?<![\d个]){_ZH_MON}\s*月份?\s*{_PART_ZH}", "month_part"),
    (rf"{_YREL}\s*{_ZH_MON}\s*月份?", "ym"),
    (r"(?:(?P<rel>上上个?|上个?|这个?|本)|(?<![每逢])(?<!每个))月(?P<part>初|中|底|末)(?![份])", "rel_month_part"),
    (r"(?:(?P<rel>上上个?|上个?|这个?|本)|(?<![每逢])(?<!每个))月?(?<!每月)(?<!每个月)(?P<part>上旬|中旬|下旬)", "rel_month_part"),
    (rf"\b(?P<part>early|mid|late)[\s-]+{_MONTH}", "month_part"),
    (r"\b(?:the\s+)?(?P<part>beginning|start|end)\s+of\s+this\s+month\b", "this_month_part", ("this",)),
    (r"\b(?:the\s+)?(?P<part>beginning|start|end)\s+of\s+(?:the\s+)?month\b", "rel_month_part"),
    (r"\b(?:the\s+)?(?P<part>beginning|start|end)\s+of\s+last\s+month\b", "last_month_part"),
    (r"\b(?P<part>early|mid|late)[\s-]+last\s+month\b", "last_month_part", ("last",)),
    (r"\b(?P<part>early|mid|late)[\s-]+this\s+month\b", "this_month_part", ("this",)),
    (rf"{_YEAR}\s*年\s*的?\s*{_ZH_MON}\s*月份?", "ym"),
    (rf"(?<![\d个上下本这]){_ZH_MON}\s*月份", "ym"),
    (rf"(?<![\d个上下本这一二三四五六七八九十两几]){_ZH_MON}月(?![\d份初中底末号日]|[上下]旬)", "ym"),
    # a range of months ("from March to May 2026", "between March and May"): one stretch,
    # read before "May 2026" alone is
    (rf"\b(?:from|between)\s+(?!{_LOWER_ABBREV}\b){_MONTH}\s+(?:to|and|through|until|till|[-–])\s+"
     rf"(?!{_LOWER_ABBREV}\b){_MONTH.replace('mon>', 'mon2>')}(?:,?\s+{_YEAR})?\b(?!'s|\s+\d)", "ym"),
    (rf"\b{_MONTH}\s+{_DAY}(?![0-9A-Za-z])(?:,?\s*{_YEAR}(?![0-9A-Za-z]))?", "ymd"),
    (rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b(?:,?\s*{_YEAR}\b)?", "ymd"),
    (rf"\b(?:in\s+)?{_MONTH}\s+{_YEAR}\b", "ym"),
    # a month without a day, only after a word that makes it one ("in May", not "you may"),
    # not lower-case "may" or a lower-case abbreviation ("in dec"), nor a name ("in June's
    # absence"); a list or range of months ("in June or July", "March to May") is one stretch
    (rf"\b(?!{_LOWER_ABBREV}\b){_MONTH}\s+(?P<last_year>last\s+year)\b", "ym"),  # "July last year"
    (rf"\b(?:(?P<rel_en>last|this)\s+|(?:in|during|throughout|from)\s+(?:the\s+month\s+of\s+)?|(?<=since\s))"
     rf"(?!{_LOWER_ABBREV}\b){_MONTH}\b(?!'s)"
     rf"(?:(?:\s*,\s*|\s+(?:and|or|to|through|until|till)\s+|\s*[-–]\s*)(?:and\s+|or\s+)?"
     rf"(?!{_LOWER_ABBREV}\b){_MONTH.replace('mon>', 'mon2>')}\b(?!'s))*"
     rf"(?:\s+(?:of\s+)?(?:(?P<last_year>last\s+year)|(?P<this_year>this\s+year))\b)?(?![\s,]*\d)", "ym"),
    # a year: "2025年" (not "2025年8月", read above, nor 年代), "in 2025" (not "in 2000 ms")
    (rf"(?<![\d.#]){_YEAR}\s*年(?!\s*(?:\d|[一二三四五六七八九十])\s*月|代)|"
     rf"(?:\b(?:in|during|throughout|of)\s+|(?<=\bsince\s)){_YEAR.replace('year', 'year_en')}"
     rf"(?:\s*(?:-|–|to|through|and|or)\s*(?P<year2>\d{{4}}))?\b(?![-/.:]\d)"
     rf"(?=\s*(?:$|[,.;:!?)，。；：！？]|{_AFTER_YEAR}\b))", "year_abs"),
    # a day that is its date every year names that day where the words make it one ("去年双十一",
    # "双十一那天", "on Halloween"), not as a topic ("双十一礼包", "what Tim loves during Halloween")
    (r"(?P<rel>去年|今年)?(?P<hol>国庆节?|元旦|五一|劳动节|清明节?|圣诞节?)(?P<theday>那天|当天|那一天)?|"
     r"(?:(?P<rel2>去年|今年)(?P<hol2>平安夜|情人节|万圣节|双十一|双11|双十二|双12)(?P<theday2>那天|当天|那一天)?|"
     r"(?P<hol3>平安夜|情人节|万圣节|双十一|双11|双十二|双12)(?P<theday3>那天|当天|那一天))|"
     r"\b(?P<hol_en>christmas\s+eve|christmas(?:\s+(?P<theday_en>day))?)\b|"
     r"(?<=\bon\s)(?P<hol_on>new\s+year['’]s\s+day|valentine['’]s\s+day|halloween|independence\s+day)\b"
     r"(?!\s+(?:landing|pages?|promos?|promotions?|campaigns?|sales?|themes?|banners?|specials?|events?|"
     r"editions?|party|parties|costumes?|cards?|gifts?|posts?|emails?|templates?|features?|skins?|"
     r"bundles?|packs?|offers?|discounts?|ads?|copy|assets?|sprites?|logos?|doodles?))|"
     r"\b(?P<hol_then>new\s+year['’]s\s+day|valentine['’]s\s+day|halloween|independence\s+day)"
     r"(?=\s{0,3}(?:那天|当天|那一天))", "holiday"),
    (rf"(?:(?P<rel>去年|今年)\s*|\b(?P<rel_en>last|this)\s+|(?<![a-z])){_SEASON}(?![a-z])", "season"),
    (rf"(?P<three>上)?上上(?:个)?(?:周|星期|礼拜){_WD_ZH}", "last2_wd"),
    (rf"{_N}\s*(?:个)?(?:周|星期|礼拜)(?:之|以)?前的?(?:周|星期|礼拜){_WD_ZH}", "n_weeks_ago_wd"),
    # "two weeks ago on Thursday", "Thursday two weeks ago": that week's Thursday, as 两周前的周四
    # (read before "on Thursday" and "two weeks ago" alone, each of which it holds)
    # (one space pattern between the words: "\s*,?\s+" backtracked quadratically over spaces)
    (rf"(?<!-)\b{_N}\s+(?:weeks?|wks?)\s+ago(?:\s*,\s*|\s+)(?:on\s+)?{_WD_EN_SHORT}", "n_weeks_ago_wd"),
    (rf"\b(?:on\s+)?{_WD_EN_SHORT}(?:\s*,\s*|\s+)(?<!-){_N}\s+(?:weeks?|wks?)\s+ago\b", "n_weeks_ago_wd"),
    # "two Thursdays ago", "the Thursday before last": counted back in Thursdays
    (rf"(?<!-)\b{_N}\s+{_WD_EN}s\s+ago\b", "n_wds_ago"),
    # (not "the Friday before last year's audit", "… before last night's outage", "… before
    # last-minute changes": there "last" starts the next words)
    (rf"\b(?:the\s+)?{_WD_EN}\s+before\s+last\b(?![-'’]|\s+(?:night|year|month|week|weekend|"
     rf"time|quarter|sprint|release|season|spring|summer|autumn|fall|winter|[\w-]+['’]s)\b)",
     "n_wds_ago", ("before",)),
    (rf"{_N}\s*个月(?:之|以)?前的今天", "n_months_ago_today"),
    (rf"{_N}\s*年(?:之|以)?前的今天", "n_years_ago_today"),
    (rf"\b{_N}\s+years?\s+ago\s+today\b", "n_years_ago_today", ("today",)),
    (rf"\b{_N}\s+months?\s+ago\s+today\b", "n_months_ago_today", ("today",)),
    (r"(?P<rel>上上个?|上个?|这个?|本)月\s*(?P<day>\d{1,2})\s*[日号]", "rel_month_day"),
    (r"(?<![\d.月第])(?P<day>[12]?\d|3[01])\s{0,3}号(?=那天|那次|当天|的(?:笔记|记录|日志|会议?|事|消息|聊天|对话|讨论|总结|安排|纪要|评审|复盘|发布|上线|部署|故障|事故|告警|变更|改动)|以来|至今|到现在|之前|之后|以前|以后|前后|开始|起|"
     r"晚上|上午|下午|早上|中午|凌晨|傍晚|$|[\s，。？！,.?!、])", "month_days", ("号",), ("月", "国庆", "节")),
    (rf"\bthis\s+{_WD_EN_SHORT}\b", "this_en_wd"),
    # ahead of when a record was written ("下周三出报告", "tomorrow we ship"): records only
    (r"大后天", "3"), (r"(?<!大)后天|\bthe\s+day\s+after\s+tomorrow\b", "2"),
    (r"明天|明日|明早|明晚|\btomorrow\b", "1"),
    (r"下(?:个)?周末|\bnext\s+weekend\b", "next_weekend"),
    (rf"下(?:个)?(?:周|星期|礼拜){_WD_ZH}", "next_wd"), (rf"\bnext\s+{_WD_EN_SHORT}\b", "next_wd"),
    (r"下(?:个)?(?:周|星期|礼拜)|\bnext\s+week\b", "next_week"),
    (r"大前天", "-3"), (r"前天|the day before yesterday", "-2"),
    (r"昨天|昨日|昨晚|\byesterday\b|(?<![#.\w])yday\b(?!\s*\()|\blast\s+night\b", "-1"),
    (r"今天|今日|今晚|今早|今天早上|今天上午|今天下午|\btoday\b|\btonight\b|\bthis\s+(?:morning|afternoon|evening)\b", "0"),
    (r"上上个?周末|\bthe\s+weekend\s+before\s+last\b", "weekend-2", ("上上", "weekend")),
    (r"上个?周末|\b(?:last|this\s+past)\s+weekend\b", "last_weekend"),
    (r"(?:这个?|本|(?<![每逢])(?<!每个))周末|\b(?:this|the)\s+weekend\b|\bover\s+the\s+weekend\b", "weekend"),
    (r"本周早些时候|这周早些时候|这周前几天|\bearlier\s+this\s+week\b", "earlier_this_week"),
    (r"前几天|前些天|(?:(?<![\u4e00-\u9fff])|(?<=[我你他她们就在是的也还都说]))前一?两天|\ba\s+few\s+days\s+ago\b|\bthe\s+other\s+day\b|\bfew\s+days\s+back\b|"
     r"\b(?:a\s+)?couple\s+(?:of\s+)?days\s+(?:ago|back)\b", "few_days_ago"),
    (r"\b(?:the\s+)?(?:last|past)\s+(?:few|couple(?:\s+of)?)\s+days\b", "last_few_days", ("few", "couple")),
    # hours back ("in the last 48 hours", "过去72小时"): every calendar day they touch
    (rf"(?<![将接])(?:最近|过去|近)\s*{_N}\s*个?(?:小时|钟头)", "last_n_hours", ("小时", "钟头")),
    (rf"\b(?:last|past)\s+{_N}\s+hours\b", "last_n_hours", ("hours",)),
    (r"这几天|这两天", "these_days"),
    # the weeks or months up to today ("最近两周", "过去三个月", "in the past month"), before
    # the calendar's ("last week" is the week before this one; "in the last week" is not)
    # (not "将近两个月前", nearly two months ago; "最近两周年", an anniversary; "近三个周期";
    # "the last 3 months of 2025", "the past month's budget")
    (rf"(?<![将接])(?:最近|过去|近)\s*{_N}\s*(?:个)?(?:周|星期|礼拜)(?![期年]|\s*(?:之|以)?前)",
     "last_n_weeks"),
    (rf"\b(?:last|past)\s+{_N}\s+weeks\b{_NOT_OF}", "last_n_weeks"),
    (rf"(?<![将接])(?:最近|过去|近)\s*{_N}\s*个月(?![饼份]|\s*(?:之|以)?前)", "last_n_months"),
    (rf"\b(?:last|past)\s+{_N}\s+months\b{_NOT_OF}", "last_n_months"),
    (rf"\b(?:in|over|during|within)\s+the\s+(?:last|past)\s+week\b{_NOT_OF}", "last_n_weeks"),
    (rf"\bthe\s+past\s+week\b{_NOT_OF}", "last_n_weeks", ("past",)),
    (rf"\bthe\s+past\s+month\b{_NOT_OF}", "last_n_months", ("past",)),
    (rf"(?<![将接])(?:最近|过去|近)\s*半年|半年(?:来|以来)|这半年|\b(?:the\s+)?(?:last|past)\s+(?:six|6)\s+months\b{_NOT_OF}",
     "last_half_year", ("半年", "month")),
    (rf"(?<![将接])(?:最近|过去|近)\s*{_N}\s*年(?![前级龄代度])", "last_n_years", ("年",)),
    (rf"\b(?:last|past)\s+{_N}\s+years\b{_NOT_OF}|\b(?:in|over|during|within)\s+the\s+(?:last|past)\s+year\b{_NOT_OF}|"
     rf"\bthe\s+past\s+year\b{_NOT_OF}", "last_n_years", ("year",)),
    (rf"\b(?:in|over|during|within)\s+the\s+(?:last|past)\s+month\b{_NOT_OF}", "last_n_months"),
    (rf"(?:上|上个)(?:周|星期|礼拜){_WD_ZH}", "last_wd"),
    (rf"\bthis\s+past\s+{_WD_EN_SHORT}\b", "past_wd", ("past",)),
    (rf"(?<!\bthe\s)\blast\s+{_WD_EN_SHORT}\b", "last_wd"),
    (r"上上上(?:个)?(?:周|星期|礼拜)", "week-3"),
    (r"上上(?:个)?(?:周|星期|礼拜)|\bthe\s+(?:week|wk)\s+before\s+last\b", "week-2"),
    (r"上(?:个)?(?:周|星期|礼拜)|\blast\s+(?:week|wk)\b", "week-1"),
    (rf"(?<![上这本下每逢])(?<!每个)(?<!每到)(?:周|星期|礼拜){_WD_ZH}", "recent_wd"),
    (rf"(?:\bon\s+|(?<=\bsince\s)){_WD_EN_SHORT}\b", "recent_wd"),
    (rf"\b{_WD_EN}'s\b", "recent_wd"),
    (rf"(?<!every\s)(?<!each\s)\b{_WD_EN}\s+(?:morning|afternoon|evening|night)\b", "recent_wd", ("morning", "afternoon", "evening", "night")),
    (rf"(?:这|本)(?:个)?(?:周|星期|礼拜){_WD_ZH}", "this_wd"),
    (r"(?:这|本)(?:个)?(?:周|星期|礼拜)|\bthis\s+(?:week|wk)\b", "week0"),
    (r"上上上(?:个)?月", "month-3"),
    (r"上上(?:个)?月|\bthe\s+month\s+before\s+last\b", "month-2"),
    (r"上(?:个)?月|\blast\s+month\b", "month-1"),
    (r"(?:这|本)(?:个)?月|\bthis\s+month\b", "month0"),
    (r"大前年", "year-3", ("大前年",)), (r"(?<![目提以之大年节此前天])前年(?![轻假会报终后龄级纪])|\bthe\s+year\s+before\s+last\b", "year-2", ("前年", "before")),
    (r"去年|\blast\s+year\b", "year-1"), (r"今年|\bthis\s+year\b", "year0"),
    (rf"(?:最近|过去|近)\s*{_N}\s*(?:天|日)", "last_n_days"),
    (rf"\b(?:last|past)\s+{_N}\s+days\b", "last_n_days"),
    (rf"{_N}\s*(?:天|日)(?:之|以)?前", "n_days_ago"), (rf"\b{_N}\s+days?\s+ago\b", "n_days_ago"),
    (rf"{_BACK}{_N}\s+days?\s+back\b(?![-\s]+(?:to|and)\b)", "n_days_ago"),
    (rf"{_N}\s*(?:个)?(?:周|星期|礼拜)(?:之|以)?前", "n_weeks_ago"),
    (rf"\b{_N}\s+(?:weeks?|wks?)\s+ago\b", "n_weeks_ago"),
    (rf"{_BACK}{_N}\s+(?:weeks?|wks?)\s+back\b(?![-\s]+(?:to|and)\b)", "n_weeks_ago"),
    (rf"{_N}\s*个月(?:之|以)?前", "n_months_ago"), (rf"\b{_N}\s+months?\s+ago\b", "n_months_ago"),
    (rf"{_BACK}{_N}\s+months?\s+back\b(?![-\s]+(?:to|and)\b)", "n_months_ago"),
    (r"半年(?:之|以)?前(?![端台])", "half_year_ago", ("半年",)),
    (rf"{_N}\s*年(?:之|以)?前(?![端台])", "n_years_ago", ("年",)),
    (rf"\b{_N}\s+years?\s+ago\b", "n_years_ago", ("year",)),
    (rf"{_BACK}{_N}\s+years?\s+back\b(?![-\s]+(?:to|and)\b)", "n_years_ago", ("year",)),
)


@dataclass
class _Pattern:
    """One of _PATTERN_SOURCES: compiled on first use, and only for a text that holds one of
    the words it `needs` (when it lists any) and none of those it is read `unless` ("月":
    "8月的周会，3号那次" names its month another way). Each compile costs ~0.5 ms."""
    source: str
    kind: str
    needs: tuple = ()
    unless: tuple = ()
    compiled: re.Pattern | None = None

    def for_text(self, folded: str) -> re.Pattern | None:
        if self.needs and not any(w in folded for w in self.needs) or any(
                w in folded for w in self.unless):
            return None
        if self.compiled is None:
            self.compiled = re.compile(self.source, re.I)
        return self.compiled


_patterns: list = []
_MAYBE_DATE = re.compile(  # every pattern above contains one of these
    r"\d|[天日号月周年礼拜晚期旬初底末节旦春夏秋冬早季时]|day|night|week|month|year|ago|morning|quarter|hour|"
    r"afternoon|evening|spring|summer|autumn|fall|winter|christmas|early|mid|late|end|tomorrow|wk|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|国庆|五一|清明|圣诞|平安夜|情人|万圣|双十|双1|"
    r"halloween|\b(?:mon|tue|wed|thu|fri)", re.I)
# A record is read for dates only when it holds a time word (a port or a version number
# alone does not make it one): this runs for every line sync reads.
_ZH_RECORD_DATE = re.compile(  # the lookahead makes most positions fail at one class test
    r"(?=[昨前今明后上中下这本月旬周几两期拜国元圣去春夏秋冬一二三四五六七八九十\d])(?:"
    r"昨|前天|今[天早晚]|明[天日早晚]|后天|下周|下个?星期|下个?礼拜|上周|上个?星期|上个?礼拜|上个?月|这个?月|本月|月[初底末中]|[上中下]旬|周末|"
    r"前几天|这几天|这两天|[周期拜][一二三四五六日天]|\d\s*[月号日]|[一二三四五六七八九十]月|国庆|元旦|"
    r"五一|圣诞|去年|今年|[春夏秋冬][天季]|\d[/-]\d)")
_EN_RECORD_DATE = re.compile(
    r"(?=[yatwlomejfsndYATWLOMEJFSND])\b(?:yesterday|today|tomorrow|tonight|ago|weekend|next\s+(?:week|mon|tue|wed|thu|fri|sat|sun)|last\s+(?:week|month|year|night|mon|tue|wed|thu|"
    r"fri|sat|sun)|this\s+(?:week|month|morning|afternoon|evening|year|mon|tue|wed|thu|fri|saturday|"
    r"sunday)|on\s+(?:mon|tue|wed|thu|fri|saturday|sunday)|(?:mon|tues|wednes|thurs|fri|satur|sun)day\s+before\s+last|(?:early|mid|late)[\s-]+[a-z]{3}|(?:jan|feb|mar|apr|"
    r"may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d)", re.I)


def names_a_day(text: str) -> bool:
    """Could this record name a day? A cheap test that runs for every line sync reads; a port
    or a version number alone does not make a line one."""
    return bool(_ZH_RECORD_DATE.search(text) or _EN_RECORD_DATE.search(text))


# "Now" and "originally" in the words people use (bench/data/order-intent), and not where the
# same words mean something else: "现在开始写测试", "我们现在要上线", "目前为止", "当前目录",
# "the current user", "datetime.now()", "now that…", "how do I switch to…", "最终一致性",
# "原来是缓存的问题" (it turns out), "我本来想说的是" (I meant), "getting started with",
# "at the beginning of a list", "the initial value of a hook".
_NEWEST = re.compile(
    r"(?<![我你们])现在(?!开始|准备|打算|为止)|"
    r"[我你]们?现在(?![要想得该]|开始|准备|打算|需要|正在|为止)|目前(?!为止)|"
    r"当前(?!目录|路径|用户|分支|页|行|文件|窗口|时间|日期|线程|进程)|如今|眼下|这会儿|"
    r"(?:至今|迄今)(?!为止)|最新|最近|还在用|还在|仍然|依然|仍(?:在|是|用)|后来|是不是还|"
    r"还(?:是|用|维持|保持|跑|留)[^。？?！!，,]{0,30}[吗么嘛]|"
    r"已经(?:换|改|调|升|切|迁)[^。，,]{0,30}[吗么嘛]|"
    r"(?:改|换|调|升|降|扩|缩|涨|切|迁)(?:到|成)了?(?:多少|几|啥|什么|哪)|"
    r"(?:改|换|调|升)了?(?:没有?|吗|么)\s*(?:[？?，,。]|$)|最后定|最终(?!一致)|"
    r"(?<!\.)\bnow\b(?!\s+that\b|\s*\()|\blatest\b|\bnowadays\b|\bthese\s+days\b|"
    r"\bcurrent(?:ly)?\b(?![\s-]+(?:user|directory|dir|branch|working|page|limiting|file|line"
    r"|window|time|date|thread|process)\b)|"
    r"\bat\s+(?:the\s+)?(?:moment|present)\b|\bas\s+of\s+(?:now|today|right\s+now)\b|"
    r"\bat\s+this\s+point\b|\bmost\s+recent(?:ly)?\b|\brecently\b|\bend(?:ed)?\s+up\b|"
    r"\bsettled?\s+on\b|\b(?:did\s+(?:we|they|you)\s+switch|switched)\s+(?:over\s+)?to\b|"
    r"\b(?:get|got|been|was|were)\s+changed\s+to\b|"
    r"\bfinal\s+(?:decision|choice|call|value|setting|answer)\b|\banymore\b|"
    r"\bany\s+more\s*(?:[?,.!]|$)", re.I)
# "which DB are we using", "what Node version we're on": the present tense asks the current
# value, unless another word asks for the first one ("…in the first version") or it asks what
# for ("what are we using this queue for?").
_PRESENT = re.compile(r"\b(?:which|what)\b[^.?!。？]{0,50}?\b(?:are\s+(?:we|they)|we're|they're)\s+"
                      r"(?:on|using|running)\b(?![^.?!。？]*\bfor\s*[?？.]?\s*$)", re.I)
# "latest first", "按最新时间倒序": an order to sort by, not a question about the newest value.
# (A word's hyphens are its own, not separators: with "-" in both, a run of dashes could be
# split in every way, and "latest" + 300 dashes took minutes.)
_SORT_ORDER = re.compile(r"\b(?:latest|newest|most[\s-]+recent)(?:\s+\w+(?:-\w+)*){0,2}?[\s-]+first"
                         r"(?=\s*(?:[?.!,;)]|$|(?:in|on|by|when|and|or|please|order)\b))|"
                         r"\b(?:sort|order)(?:ed)?\s+(?:[\w-]+\s+){0,3}?by\s+(?:the\s+)?(?:most\s+recent|latest|newest)\b|"
                         r"按最新(?:的)?(?:时间|日期|创建时间|更新时间)?(?:倒序|排序|排列|排(?=[吗呢么？?，,。！!]|$))|"
                         r"最新(?:的)?(?:在前(?!端)|排在?(?:前面|最前))", re.I)
# "still" asks about now unless the question asks why ("why is the pod still pending").
_STILL = re.compile(
    r"\b(?:are|is|do|does|am|were)\s+(?:[\w.`'-]+\s+){1,4}still\b|"
    r"\bstill\s+(?:on|using|use|in|at|the\s+same)\b", re.I)
_WHY = re.compile(r"\bwhy\b|\bhow\s+come\b|为什么|为啥|怎么还", re.I)
# A past time the question names no day of ("当时放宽到了多少", "15 秒上报那阵子一台车多少流量",
# "what was the limit back then"): a value replaced since is an answer, as it is for a day.
# Not inside other words (适当时候, 每当时钟, 相当时髦, 当时间到了, 那会不会, 那会话), nor a time
# ahead ("到时候", "等那阵子忙完了再改", "那时候见"), nor "rolled back then", "at the time you
# run it" (when), "at the time of X" (an event, read as one).
_BACK_THEN = re.compile(
    r"(?<![适相每正应充恰妥得担便勾家典理])当时(?![间钟髦代期机效长序区速刻差段])|"
    r"(?<![到等])那(?:个)?时候|(?<![到等])那会儿|(?<![到等])那阵子|彼时|"
    r"\b(?P<verb>\w+\s+)?back\s+then\b|\bat\s+that\s+time\b|"
    r"\bat\s+(?:the\s+time|that\s+point(?:\s+in\s+time)?)\b(?=\s*(?:[,.;:!?)，。？！]|$))|"
    r"\bin\s+those\s+days\b", re.I)
_AHEAD_AFTER = re.compile(r"[^，。？！,.?!\n]{0,12}?(?:再|见|就要)")
# "rolled back then", "go back then": "back" belongs to the verb before it
_BACK_VERBS = frozenset("""roll rolls rolling go goes going went come comes coming came get gets
getting got set sets setting scroll step fall falls fell call calls write wrote push put bring
brought turn look switch revert move moving fail pull dial scale flip""".split())


def _back_then(query: str) -> bool:
    """Does the question ask about some past time without naming its day (_BACK_THEN)?"""
    for m in _BACK_THEN.finditer(query):
        verb = (m["verb"] or "").strip().lower()
        if verb and (verb in _BACK_VERBS or verb.endswith("ed")):
            continue
        if not m.group().isascii() and _AHEAD_AFTER.match(query, m.end()):
            continue
        return True
    return False


# "initial" asks for the first value unless the question asks how to set one.
_INITIAL = re.compile(r"\binitial\b", re.I)
_HOW_TO = re.compile(r"\bhow\s+(?:do|does|can|should|to)\b|\bset(?:ting)?\s+(?:the|an?)\s+initial\b", re.I)
_OLDEST = re.compile(
    r"最早|最初|起初|起先|一开始|刚开始|最开始|当初|初版|第一版|原先|"
    r"(?:原来|原本|本来)(?!如此|是这样|[想要以就]|打算|准备|是想|是(?!多少|几|哪|什么|谁))|"
    r"刚(?:起步|立项)|\boriginally\b|\binitially\b|\bat\s+first\b|\bearliest\b|"
    r"\bin\s+the\s+beginning\b(?!\s+of\b)|\boriginal\b|\bto\s+begin\s+with\b|\bvery\s+first\b|"
    r"\b(?:back\s+)?at\s+the\s+(?:very\s+)?(?:start|beginning|outset)\b(?!\s+of\b)|"
    r"\bfirst\s+version\b|\bstart(?:ed)?\s+out\b|\bbefore\s+any\s+(?:of\s+the\s+)?changes?\b",
    re.I)


# Of a query, the first this many characters are read (for time here, and by search.run
# for everything): the event patterns cost ~10 ms per 1,000 characters, keyword search of
# a pasted 100,000-character Chinese page 8 s (10,000: 0.9 s); the longest benchmark
# question is 386 characters, and the model reads fewer tokens than this.
MAX_QUERY_CHARS = 2000


def asked(query: str) -> str:
    """The sentences of a query that ask (end in "?" or "？"): a question's time words scope
    it, not the small talk around it ("今天天气真好。…那个规模是三千人的活动，地点是什么？").
    A line ends a sentence. When none asks, a query of several lines is asked on its last
    line (the lines before are what it is about: a pasted log, a note), one line whole."""
    rows = lines(query)
    parts = [part for line in rows for part in sentences(line, clauses=True)]
    asks = [p for p in parts if asking(p)]
    if asks and len(parts) > 1:
        return " ".join(asks)
    return rows[-1] if len(rows) > 1 else query


def parse(query: str, now: datetime) -> TimeHint:
    """The time hint of a query ('' and queries without time words give an empty hint),
    read from the sentences that ask (see `asked`). A chat's lines (`text.chat_of`) give
    none: their "今天" and "最近" are the speakers', not the search's; only the user's own
    lines around it are read, and a chat alone, or one whose question is the only one, has
    no hint."""
    hint = TimeHint()
    if not query:
        return hint
    read = lines(folded(query))
    chat = chat_of(read)
    if chat.lines:
        own = own_lines(read, chat)
        if not own:
            return hint
        if not asks_in(read[i] for i in own) and asks_in(read[i] for i in chat.lines):
            return hint  # the question is the chat's ("这是上周的群聊记录" above it): its time too
        raw = lines(query)  # as written; NFKC keeps a text's lines (every code point checked)
        query = "\n".join((raw if len(raw) == len(read) else read)[i] for i in own)
    query = asked(query)[:MAX_QUERY_CHARS]
    today = now.astimezone().date()
    if not in_calendar(today):
        return hint
    named = list(zip(*_spans(query, today)))  # [(days, where the words are)]
    calendar = _calendar_anchor(query, named)
    found = calendar[:3] if calendar else _anchor(query)
    if found and not calendar:
        (a, b), (e, f) = found[1], found[2]
        seam = e if a < e else a  # where the relation's words meet the event's
        if any(c < seam < d or c <= e and max(b, f) <= d and query[min(a, c):c].strip().lower()
               in ("", "on", "the", "on the") for _, (c, d) in named):
            found = None  # time words across it, or around all of it, are the calendar's own
            # phrase: "the day before yesterday", "the week before last", "(on) Christmas Day"
    event = found[0] if found else None
    holiday = _holiday(event.event, today) if event and not calendar else None
    dated = calendar[3] if calendar else None
    if found:  # "上线两天前", "上线前那周的周一" count from the event, not from today
        (a, b), (e, f) = found[1], found[2]
        if dated is None and not (event.until or holiday):
            dated = _event_day(query, named, e, f, event, (a, e) if a < e else (a, b))
        named = [(s, (c, d)) for s, (c, d) in named
                 if not (c < b and a < d or dated and c < f and e < d)]
    named = [(s, at) for s, at in named if s[0] <= today]  # a question asks what happened
    spans = [s for s, _ in named]
    if dated or holiday:  # "国庆前一天", "the week before August 3, 2023", "8月3日发布的前一天":
        try:  # the calendar knows the event's days
            hint.start, hint.end = so_far(*event.stretch(*(dated or holiday), now), now)
        except OverflowError:  # a stretch past the calendar's ends ("0001年1月1日前一天")
            pass
    elif spans:
        best = _range(query, named) or _in_named_year(min(spans, key=lambda d: d[1] - d[0]),
                                                      spans, today)
        # else the narrowest: "昨天复盘时说这个月…", in the year named apart ("last year in August")
        hint.start, hint.end = so_far(_local_midnight(best[0]),
                                      _local_midnight(best[1] + timedelta(days=1)), now)
    else:
        hint.anchor = event
    asks = _SORT_ORDER.sub(" ", query)  # "latest first", "按最新时间倒序": how to sort, not when
    if _NEWEST.search(asks) or _STILL.search(asks) and not _WHY.search(asks):
        hint.order = NEWEST
    elif _OLDEST.search(query) or _INITIAL.search(query) and not _HOW_TO.search(query):
        hint.order = OLDEST
    elif _PRESENT.search(asks) and hint.start is None and hint.anchor is None:
        hint.order = NEWEST  # "what tests are we running on August 3?" asks about that day
    hint.back_then = hint.order is None and _back_then(query)
    return hint


def _event_day(query: str, named: list, e: int, f: int, event: Anchor, rel: tuple) -> tuple | None:
    """The days of an event the query dates itself: a day named among the event's words or
    right after them ("the day before the August 3 release", "8月3日发布的前一天", "the week
    before the launch on 2025-08-03"), two joined as a range ("the day after his trip from
    August 3 to August 10"), or a stretch that is all of its words ("the week before
    August"). A longer stretch among other words only says around when the event was ("after
    his trip in August", "last year's audit", "spring break"): the store dates that event.
    Open-ended from a day without a number ("周三之前") is no stretch: as often a deadline."""
    named = [(s, (c, d)) for s, (c, d) in named if not (c < rel[1] and rel[0] < d)]  # "上线三天前"
    inside = [(s, (c, d)) for s, (c, d) in named if (c < f and e < d or f <= c <= f + 1)
              and (s[0] == s[1] or c <= e and d >= f - (query[f - 1:f] == "的"))]
    if not inside or (event.first is None or event.last is None) and not any(
            ch.isdigit() for _, (c, d) in inside for ch in query[c:d]):
        return None
    run = _side_by_side(query, named, inside)
    first = _said_at_length(run)
    hi = max(d for _, (c, d) in run)
    for s, (c, d) in named:
        if s[0] == s[1] and c > hi and _RANGE_JOIN.fullmatch(query[hi:c]) and s[0] > first[1]:
            return first[0], s[1]
    return first


def _in_named_year(best: tuple, spans: list, today: date) -> tuple:
    """The narrowest stretch a query names, moved into the year it names apart from it
    ("last year in August", "in the summer of 2025", "July last year"): read alone, "August"
    and "summer" are the latest ones."""
    years = [s for s in spans if s != best and s[0].month == s[0].day == 1
             and s[0].year == s[1].year and (s[1] == date(s[0].year, 12, 31) or s[1] == today)]
    if len(years) != 1 or years[0][0] <= best[0] and best[1] <= years[0][1]:
        return best
    shift = years[0][0].year - best[0].year
    try:
        return best[0].replace(year=best[0].year + shift), best[1].replace(year=best[1].year + shift)
    except ValueError:  # Feb 29
        return best


# What joins the two ends of a stretch: "between Aug 11 and Aug 15", "10月1日到10月7日",
# "from Sept 3 to Sept 9", "9月3日和9月9日之间", "上周一到上周三". Two compared are both
# asked about, in either order ("上半年 vs 下半年", "8月或7月", "Q2 2024 vs Q2 2025"):
# _EITHER_JOIN, the stretch from the earlier to the later (two years at most).
_RANGE_JOIN = re.compile(r"\s{0,3}(?:and|to|until|till|through|thru|-|–|—|~|～|到|至|和|与|跟)\s{0,3}", re.I)
_EITHER_JOIN = re.compile(r"\s{0,3}(?:or|vs\.?|versus|或者?|还是|、|比|对比)\s{0,3}", re.I)


def _range(query: str, named: list):
    """(first, last) day of two named days joined as a range ([(days, where)]), else None."""
    if len(named) != 2:
        return None
    (one, (_, b)), (other, (c, d)) = sorted(named, key=lambda n: n[1])
    if _EITHER_JOIN.fullmatch(query[b:c]) or _RANGE_JOIN.fullmatch(query[b:c]) and query[d:].lstrip(
            ).startswith(("比", "对比", "相比")):  # "今年上半年和去年上半年比"
        first, last = min(one[0], other[0]), max(one[1], other[1])
        return (first, last) if (last - first).days <= 731 else None
    if not _RANGE_JOIN.fullmatch(query[b:c]):
        return None
    # each end is read as its last past day: "11月1日到11月30日" asked on the 26th put the
    # 30th a year back, so a second end before the first is taken a year on (so_far then
    # cuts it at today); ends still in the wrong order are no range
    last = other[1]
    if one[0] > last:
        try:
            last = last.replace(year=last.year + 1)
        except ValueError:  # Feb 29
            return None
    if one[0] > last or (last - one[0]).days > 366:
        return None
    return one[0], last


def so_far(start: datetime, end: datetime, now: datetime) -> tuple:
    """The part of [start, end) up to the end of today, (None, None) when it is all ahead:
    "节后第一天" asked on the last day of the holiday, "fall" asked in October, "the day after
    launch" asked on launch day name nothing that has happened yet."""
    tomorrow = _local_midnight(now.astimezone().date() + timedelta(days=1))
    return (start, min(end, tomorrow)) if start < tomorrow else (None, None)


def _months_back(day: date, n: int) -> date | None:
    """The same day n months before (the month's last day when it has no such day); None
    before the calendar's start."""
    year, month = divmod(day.year * 12 + day.month - 1 - n, 12)
    if year < 1:
        return None
    first = date(year, month + 1, 1)
    return min(first + timedelta(days=day.day - 1), _month_end(first))


def _spans(text: str, today: date, ahead: int = 0) -> tuple:
    """([(first day, last day)], [(start, end) of the words]) of the days a text names."""
    if not _MAYBE_DATE.search(text):
        return [], []
    if not _patterns:
        _patterns.extend(_Pattern(*source) for source in _PATTERN_SOURCES)
    folded = text.casefold()  # as re.I matches: "ſ" is an "s"
    taken: list = []  # where each span was read, in step with spans
    ahead_words: list = []
    spans: list = []
    for entry in _patterns:
        pattern, kind = entry.for_text(folded), entry.kind
        if pattern is None:
            continue
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken + ahead_words):
                continue
            if kind == AHEAD:
                ahead_words.append(m.span())
                continue
            days = _days(kind, m, today, ahead)
            if days is None:
                continue
            taken.append(m.span())
            spans.append(days)
            if len(spans) == MAX_NAMED:  # "周一周一周一…": each match is checked against these
                return spans, taken
    return spans, taken


# Days one text is read for: a line naming more pins nothing, and each match is checked
# against those taken (a 4,000-character line of "周一" took seconds to sync).
MAX_NAMED = 32


MAX_MENTION_DAYS = 11  # a week or a part of a month pins a time; a month ("本月") does not
# A record may name days ahead of it ("下周三出报告", "launch is next Monday", "试点 3 月 29
# 日上线" written March 10): the day an event was planned for is how the store dates it
# (search.event_day). A query names none. A date without a year up to a quarter ahead is
# that plan, not the same day of the year before (14 days read "3 月 29 日" written March 10
# as a year ago: every one of 13 such readings in the benchmark stores was wrong).
AHEAD_DAYS = 92
# A line that says its date is past ("12月20日那次宕机", "自 1 月 5 日以来", "上次 12 月 20 日",
# "the Dec 20 outage last year", "since Jan 5"): the date is the one before, not a plan.
_SAYS_PAST = re.compile(r"以来|上一?次|那一?[次回]|去年|(?i:\blast\s+(?:year|jan|feb|mar|apr|may|jun|"
                        r"jul|aug|sep|oct|nov|dec)|\bsince\b|\bago\b)")


def mentions(text: str, written: datetime) -> list:
    """Every day or stretch (up to MAX_MENTION_DAYS) a record names, as (first, last) days."""
    if not text or not names_a_day(text):
        return []
    try:
        today = written.astimezone().date()
    except OverflowError:  # 9999-12-31T23:00Z east of UTC
        return []
    if not in_calendar(today):
        return []
    out = []
    for line in text.splitlines():
        spans, _ = _spans(line, today, 0 if _SAYS_PAST.search(line) else AHEAD_DAYS)
        out += [s for s in spans if (s[1] - s[0]).days < MAX_MENTION_DAYS
                and s[0] <= today + timedelta(days=AHEAD_DAYS)]
        if len(out) >= MAX_NAMED:
            break
    return list(dict.fromkeys(out))


# Days far enough from the calendar's ends that a stretch around them (a year either side at
# most) and a local midnight exist: "0001-01-01" or a record stamped 9999-12-25 names none.
_CALENDAR = (date.min + timedelta(days=400), date.max - timedelta(days=400))


def in_calendar(day: date) -> bool:
    return _CALENDAR[0] <= day <= _CALENDAR[1]


def _local_midnight(day: date) -> datetime:
    """That day's local midnight, at that day's own UTC offset: in now's offset, a midnight
    across a daylight-saving change was 23:00 of the day before, and the stretch's first
    day (`Filters.within`) one day early (found by a hostile review)."""
    return datetime(day.year, day.month, day.day).astimezone()


def _days(kind: str, m, today: date, ahead: int = 0):
    """(first day, last day) a match names, or None when it names no real date. Days that
    are still ahead are never named: a question asks about what happened."""
    g = m.groupdict()
    try:
        span = _span(kind, g, today, ahead)
    except (ValueError, KeyError, OverflowError):
        return None
    return span if span is None or in_calendar(span[0]) and in_calendar(span[1]) else None


def _month_number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if text.lower().rstrip(".") in _MONTHS:
        return _MONTHS[text.lower().rstrip(".")]
    return _num(text)


_PARTS = {"初": (1, 10), "上旬": (1, 10), "early": (1, 10), "beginning": (1, 10), "start": (1, 10),
          "中": (11, 20), "中旬": (11, 20), "mid": (11, 20),
          "middle": (11, 20),
          "底": (21, 31), "末": (21, 31), "下旬": (21, 31), "late": (21, 31), "end": (21, 31)}
# Parts of a year, as (first month, last month): "年初" and "the beginning of the year" say
# its first weeks, "年底" and "the end of …" its last month; "early 2025" is a third of it.
_YEAR_PARTS = {"初": (1, 2), "beginning": (1, 2), "start": (1, 2), "中": (6, 7),
               "middle": (6, 7), "底": (12, 12), "末": (12, 12), "end": (12, 12),
               "early": (1, 4), "mid": (5, 8), "late": (9, 12)}
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4,
             "4th": 4, "一": 1, "二": 2, "三": 3, "四": 4, "1": 1, "2": 2, "3": 3, "4": 4}
_SEASONS = {"春": 3, "spring": 3, "夏": 6, "summer": 6, "秋": 9, "autumn": 9, "fall": 9,
            "冬": 12, "winter": 12}
_HOLIDAYS = {"国庆": ((10, 1), (10, 7)), "元旦": ((1, 1), (1, 1)), "五一": ((5, 1), (5, 5)),
             "清明": ((4, 4), (4, 6)),
             "劳动": ((5, 1), (5, 5)), "圣诞": ((12, 24), (12, 26)), "christmas": ((12, 24), (12, 26))}
# A holiday's own day, when the words name the day ("国庆那天", "Christmas Day"), not its break
_HOLIDAY_DAY = {"国庆": (10, 1), "五一": (5, 1), "劳动": (5, 1), "圣诞": (12, 25), "christmas": (12, 25)}
# Days that are their date every year and no break: "节后" never means after Valentine's Day
_NAMED_DAYS = {"平安夜": (12, 24), "christmas eve": (12, 24), "情人": (2, 14), "valentine's day": (2, 14),
               "万圣": (10, 31), "halloween": (10, 31), "双十一": (11, 11), "双11": (11, 11),
               "双十二": (12, 12), "双12": (12, 12), "new year's day": (1, 1), "independence day": (7, 4)}


def _holiday_days(key: str, year: int) -> tuple:
    """(first, last) day of a holiday in a year. 清明 follows the sun (April 4 or 5) and its
    three days take in the nearest weekend: Mon/Tue → the weekend before, Thu to Sat → the
    two days after, Sun → Sat to Mon, Wed → the day alone (2018-2027 as announced)."""
    if key == "清明" and 2000 <= year < 2100:
        day = _qingming(year)
        before, after = ((2, 0), (2, 0), (0, 0), (0, 2), (0, 2), (0, 2), (1, 1))[day.weekday()]
        return day - timedelta(days=before), day + timedelta(days=after)
    (m1, d1), (m2, d2) = _HOLIDAYS[key]
    return date(year, m1, d1), date(year, m2, d2)


def _qingming(year: int) -> date:
    """清明's own day: the sun's term, April 4 or 5 (the formula holds for 2000-2099)."""
    y = year % 100
    return date(year, 4, int(y * 0.2422 + 4.81) - y // 4)


def _holiday_day(key: str, year: int) -> date:
    """The one day a holiday's words name ("国庆那天", "Christmas Day", "双十一"), not its break."""
    if key in _NAMED_DAYS:
        return date(year, *_NAMED_DAYS[key])
    if key in _HOLIDAY_DAY:
        return date(year, *_HOLIDAY_DAY[key])
    return _qingming(year) if key == "清明" else _holiday_days(key, year)[0]


def _month_part(year: int, month: int, part: str):
    lo, hi = _PARTS[part]
    first = date(year, month, lo)
    return first, min(_month_end(first), date(year, month, min(hi, 28)) if hi < 28 else _month_end(first))


def _latest_year(month: int, day: int, today: date) -> int:
    """The year of the last (month, day) on or before today (a Feb 29: of a leap year)."""
    year = today.year if (month, day) <= (today.month, today.day) else today.year - 1
    while (month, day) == (2, 29) and not calendar.isleap(year) and year > 1:
        year -= 1
    return year


def _named_year(g: dict, today: date) -> int | None:
    """The year a date's own words name: "2025年8月", "去年八月"; None when they name none."""
    if g.get("year"):
        return int(g["year"])
    return today.year - _YEARS_BACK[g["yrel"]] if g.get("yrel") else None


def _span(kind: str, g: dict, today: date, ahead: int = 0):
    if kind == "this_en_wd":  # "this Friday": in a question the last one (questions name no
        # day ahead); in a record this week's, ahead or past, as 本周五 is
        kind = "this_wd" if ahead else "recent_wd"
    if kind in ("quarter", "half", "year_part"):
        return _part_of_year(kind, g, today)
    if kind.startswith("quarter"):  # "上季度", "this quarter"
        q = (today.month - 1) // 3 + int(kind[7:])
        year, q = today.year + q // 4, q % 4
        first = date(year, 3 * q + 1, 1)
        return first, _month_end(date(year, 3 * q + 3, 1))
    if kind == "month_week":
        if g.get("mon"):
            month = _month_number(g["mon"])
            first = date(_named_year(g, today) or _latest_year(month, 1, today), month, 1)
        else:
            rel = g.get("rel") or g.get("rel_en") or ""
            first = _months_back(today.replace(day=1), rel.count("上") + (rel.lower() == "last"))
        wk = (g.get("wk") or "").lower()
        if g.get("wkl") or wk == "last":
            end = _month_end(first)
            return end - timedelta(days=6), end
        n = _ORDINALS[wk]
        return first + timedelta(days=7 * (n - 1)), first + timedelta(days=7 * n - 1)
    if kind == "month_days":  # this month's, or the last month's when still ahead
        day, day2 = int(g["day"]), int(g.get("day2") or g["day"])
        back = (g.get("rel_en") or "").lower() == "last" or day > today.day and not g.get("rel_en")
        first = _months_back(today.replace(day=1), int(back))
        if day2 < day:
            return None
        return first.replace(day=day), first.replace(day=day2)
    if kind == "last_few_days":
        return today - timedelta(days=4), today
    if kind == "last_n_hours":
        n = _num(g.get("n") or "")
        return None if n is None or n > 24 * 366 else (today - timedelta(days=-(-n // 24)), today)
    if kind in ("last_half_year", "last_n_years"):
        n = 1 if kind == "last_n_years" and not g.get("n") else _num(g.get("n") or "")
        months = 6 if kind == "last_half_year" else n * 12 if n is not None and n <= 50 else None
        start = _months_back(today, months) if months else None
        return (start, today) if start else None
    if kind == "half_year_ago":  # "半年前": that month
        first = _months_back(today.replace(day=1), 6)
        return first, _month_end(first)
    if kind == "n_years_ago":  # around the same month that many years back
        n = _num(g.get("n") or "")
        if n is None or n > 200:
            return None
        month = _months_back(today.replace(day=1), 12 * n)
        if month is None:
            return None
        return _months_back(month, 1), _month_end(_months_back(month, -1))
    if kind == "past_wd":  # "this past Monday": the last one before today
        target = _WEEKDAYS_EN[g["wd"].lower()]
        d = today - timedelta(days=(today.weekday() - target - 1) % 7 + 1)
        return d, d
    if kind == "year_abs":
        years = sorted(int(y) for y in (g.get("year") or g["year_en"], g.get("year2")) if y)
        if not 1900 <= years[0] <= years[-1] <= 2100:
            return None
        last = date(years[-1], 12, 31)
        return date(years[0], 1, 1), min(today, last) if years[0] <= today.year else last
    if kind in ("ymd", "ym"):
        month = _month_number(g["mon"])
        year = _named_year(g, today)
        if kind == "ym" and year is None:
            rel = (g.get("rel_en") or "").lower()
            if g.get("last_year"):  # "July last year"
                year = today.year - 1
            elif g.get("this_year") or rel == "this":  # "this December" in October: ahead
                year = today.year
            elif rel == "last":  # "last August": before this month
                year = today.year if month < today.month else today.year - 1
        if kind == "ym":
            year = year or _latest_year(month, 1, today)
            first = date(year, month, 1)
            if g.get("mon2"):  # "June or July", "November to February"
                until = _month_number(g["mon2"])
                if until < month and g.get("year"):  # "from November to February 2026"
                    year -= 1
                    first = date(year, month, 1)
                end = _month_end(date(year + (until < month), until, 1))
            else:
                end = _month_end(first)
            return first, min(today, end) if first <= today else end
        day = _num(g["day"])
        if day is None or day > 31:
            return None
        # a record's "3 月 29 日上线" may be ahead of it (by up to `ahead` days)
        d = date(year or _latest_year(month, day, today + timedelta(days=ahead)), month, day)
        if g.get("day2"):  # "6月1号到10号", "6/1 到 6/10"
            day2 = int(g["day2"])
            if not 1 <= day2 <= 31:
                return d, d
            if day2 >= day:
                return d, date(d.year, month, day2)
            after = _month_end(d) + timedelta(days=1)  # "9月28号到3号": into October
            return d, after.replace(day=min(day2, _month_end(after).day))
        return d, d
    if kind == "month_part":
        month = _month_number(g["mon"])
        part = g["part"].lower()
        year = _named_year(g, today) or _latest_year(
            month, _PARTS[part][0], today + timedelta(days=ahead))  # "1月初" written Dec 28
        return _month_part(year, month, part)
    if kind == "this_month_part":  # "late this month" while it is ahead: the month so far
        span = _month_part(today.year, today.month, g["part"].lower())
        return (span[0], min(span[1], today)) if span[0] <= today else (today.replace(day=1), today)
    if kind in ("rel_month_part", "last_month_part"):
        part = g["part"].lower()
        rel = g.get("rel") or ""
        back = 1 if kind == "last_month_part" else rel.count("上")
        first = today.replace(day=1)
        for _ in range(back):
            first = (first - timedelta(days=1)).replace(day=1)
        span = _month_part(first.year, first.month, part)
        if not rel and span[0] > today:  # "月底" in the middle of a month: the last one's
            prev = (first - timedelta(days=1)).replace(day=1)
            span = _month_part(prev.year, prev.month, part)
        return span[0], min(span[1], today) if span[0] <= today else span[1]
    if kind == "holiday":
        # the pattern's alternatives name their groups hol, hol2, … and theday, theday2, …
        said = next((v for k, v in g.items() if k.startswith("hol") and v), "")
        name = " ".join(said.lower().replace("’", "'").split())
        key = next((k for k in (*_NAMED_DAYS, *_HOLIDAYS) if name.startswith(k)))
        the_day = key in _NAMED_DAYS or any(v for k, v in g.items() if k.startswith("theday"))

        def days(year: int) -> tuple:
            return (_holiday_day(key, year),) * 2 if the_day else _holiday_days(key, year)
        rel = g.get("rel") or g.get("rel2")
        if rel in ("去年", "今年"):
            span = days(today.year - (rel == "去年"))
            if g.get("rel2") == "今年" and span[0] > today:  # "今年双11的压测计划" in October:
                return date(today.year, 1, 1), today  # this year so far, as 今年 alone reads
            return span
        # the latest that has begun, or that a record may name ahead of it ("元旦去哈尔滨"
        # written December 10: the coming one)
        horizon = today + timedelta(days=ahead)
        span = days(horizon.year)
        return span if span[0] <= horizon else days(horizon.year - 1)
    if kind == "season":
        name = g["season"].lower()
        start_month = next(v for k, v in _SEASONS.items() if name.startswith(k))
        rel = g.get("rel") or (g.get("rel_en") or "").lower()  # "Last summer we…"
        # the season that starts in `year` (winter: December of `year` to February)
        if rel == "去年":
            year = today.year - 1
        elif rel in ("今年", "this"):
            year = today.year if start_month != 12 or today.month == 12 else today.year - 1
        else:  # "last winter", "冬天": the most recent one that has begun (and, for "last", ended)
            year = today.year
            while True:
                first = date(year, start_month, 1)
                end = date(year + (start_month == 12), (start_month + 2) % 12 + 1, 1) - timedelta(days=1)
                if first <= today and (rel != "last" or end < today):
                    break
                year -= 1
        first = date(year, start_month, 1)
        last = date(year + (start_month == 12), (start_month + 2) % 12 + 1, 1) - timedelta(days=1)
        return first, last
    if kind.lstrip("-").isdigit():
        d = today + timedelta(days=int(kind))
        return d, d
    if kind in ("last_weekend", "weekend", "weekend-2"):
        saturday = today - timedelta(days=(today.weekday() - 5) % 7)
        if kind == "weekend" and today.weekday() >= 5:
            return saturday, today
        if saturday + timedelta(days=1) >= today:  # this weekend is not over: the one before
            saturday -= timedelta(days=7)
        if kind == "weekend-2":  # "上上个周末": the one before that
            saturday -= timedelta(days=7)
        return saturday, saturday + timedelta(days=1)
    if kind == "earlier_this_week":
        monday = today - timedelta(days=today.weekday())
        return (monday, today - timedelta(days=1)) if today > monday else None
    if kind == "few_days_ago":
        return today - timedelta(days=5), today - timedelta(days=1)
    if kind == "these_days":
        return today - timedelta(days=2), today
    if kind == "n_wds_ago":  # the last such day before today is one ago
        target = _WEEKDAYS_EN[g["wd"].lower()]
        n = _num(g.get("n") or "") if g.get("n") else 2  # "the Thursday before last"
        if n is None or not 0 < n <= 520:
            return None
        d = today - timedelta(days=(today.weekday() - target - 1) % 7 + 1 + 7 * (n - 1))
        return d, d
    if kind in ("last2_wd", "n_weeks_ago_wd"):
        target = _WEEKDAYS_EN.get(g["wd"].lower().rstrip("."), _WEEKDAYS_ZH.get(g["wd"]))
        weeks = (3 if g.get("three") else 2) if kind == "last2_wd" else _num(g.get("n") or "")
        if target is None or weeks is None:
            return None
        monday = today - timedelta(days=today.weekday() + 7 * weeks)
        d = monday + timedelta(days=target)
        return d, d
    if kind in ("n_months_ago_today", "n_years_ago_today"):
        n = _num(g.get("n") or "")
        if n is None:
            return None
        months = n * (12 if kind == "n_years_ago_today" else 1)
        year, month = divmod(today.year * 12 + today.month - 1 - months, 12)
        d = date(year, month + 1, min(today.day, _month_end(date(year, month + 1, 1)).day))
        return d, d
    if kind == "rel_month_day":
        first = today.replace(day=1)
        for _ in range(g["rel"].count("上")):
            first = (first - timedelta(days=1)).replace(day=1)
        d = first.replace(day=int(g["day"]))
        return d, d
    if kind in ("next_wd", "next_week", "next_weekend", "this_wd"):
        monday = today - timedelta(days=today.weekday()) + timedelta(days=7 * (kind != "this_wd"))
        if kind == "next_week":
            return monday, monday + timedelta(days=6)
        if kind == "next_weekend":
            return monday + timedelta(days=5), monday + timedelta(days=6)
        target = _WEEKDAYS_EN.get(g["wd"].lower(), _WEEKDAYS_ZH.get(g["wd"]))
        return (monday + timedelta(days=target),) * 2 if target is not None else None
    if kind in ("last_wd", "recent_wd"):
        wd = g["wd"].lower()
        target = _WEEKDAYS_EN.get(wd, _WEEKDAYS_ZH.get(wd))
        if target is None:
            return None
        if kind == "recent_wd":  # the last such day up to today
            d = today - timedelta(days=(today.weekday() - target) % 7)
            return d, d
        monday = today - timedelta(days=today.weekday() + 7)
        d = monday + timedelta(days=target)
        if wd in _WEEKDAYS_EN and target < today.weekday():  # "last Monday" said on a Friday:
            return d, d + timedelta(days=7)  # this week's to some, last week's to others
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
    n = _num(g.get("n") or "1")  # "in the past week" names no count: one
    if n is None or n > 3660:
        return None
    if kind == "last_n_days":
        return today - timedelta(days=n), today
    if kind == "last_n_weeks":
        return (today - timedelta(weeks=n), today) if n <= 520 else None
    if kind == "last_n_months":
        start = _months_back(today, n) if n <= 120 else None
        return (start, today) if start else None
    if kind == "n_days_ago":
        d = today - timedelta(days=n)
        return d, d
    if kind == "n_weeks_ago":  # that day give or take three, and its Monday-Sunday week:
        d = today - timedelta(weeks=n)  # people mean either (bench/data/time-phrases)
        monday = d - timedelta(days=d.weekday())
        return min(d - timedelta(days=3), monday), max(d + timedelta(days=3), monday + timedelta(days=6))
    if kind == "n_months_ago":
        first = today.replace(day=1)
        for _ in range(n):
            first = (first - timedelta(days=1)).replace(day=1)
        return first, _month_end(first)
    return None


def _part_of_year(kind: str, g: dict, today: date):
    """A quarter, a half or a part of a year ("去年 Q4", "上半年", "the end of last year"),
    as (first day, last day); a year named by "last year" or a number, else this year."""
    year = _named_year(g, today)
    if year is None:
        year = today.year - 1 if g.get("last_year") else today.year
    if kind == "quarter":
        q = _ORDINALS[(g.get("q") or g.get("q2") or g.get("qw")).lower()]
        first_month, last_month = 3 * q - 2, 3 * q
    elif kind == "half":
        h = 1 if (g.get("half") == "上" or g.get("h") == "1"
                  or (g.get("hw") or "").lower() in ("first", "1st")) else 2
        first_month, last_month = 6 * h - 5, 6 * h
    else:
        first_month, last_month = _YEAR_PARTS[g["ypart"].lower()]
    return date(year, first_month, 1), _month_end(date(year, last_month, 1))


def _month_end(first: date) -> date:
    return (first.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)


# --- times named by events ---------------------------------------------------------------
# The stretch around the event's day each relation names, in days (None: open-ended).
_STRETCH = {"on": (0, 0), "day before": (-1, -1), "day after": (1, 1), "week before": (-7, -1),
            "week after": (1, 7), "week of": WEEK_OF, "days before": (-3, -1),
            "days after": (1, 3), "before": (None, 0), "after": (0, None), "since": (0, None),
            "just before": (-3, -1), "just after": (0, 2), "workday before": (-1, -1),
            "workday after": (1, 1)}
_EN_UNIT_REL = {("day", "before"): "day before", ("night", "before"): "day before",
                ("evening", "before"): "day before", ("morning", "before"): "day before",
                ("day", "after"): "day after", ("morning", "after"): "day after",
                ("week", "before"): "week before", ("week", "after"): "week after",
                ("week", "of"): "week of"}
_EN_REL = {"before": "before", "prior to": "before", "ahead of": "before", "after": "after",
           "following": "after", "since": "since", "right before": "just before",
           "just before": "just before", "right after": "just after", "just after": "just after",
           "at the time of": "on", "on the day of": "on"}
_OWNER = r"(?:the|our|my|his|her|their|its|(?P<owner>[A-Z][a-z]+)'s)"
# Words are bounded ({0,40}) so a long run of letters costs a pass, not one per position.
_EV_EN = (r"(?P<ev>(?:(?:\d{4}|\d{1,2}[/.]\d{1,2}(?:[/.]\d{2,4})?)\s+(?=[A-Za-z]))?"  # a year or a date,
          r"[A-Za-z][\w.-]{0,40}(?:'s)?"  # not "after 40 min"; "dance studio's grand
          r"(?:[ -][A-Za-z][\w.-]{0,40}(?:'s)?){0,3})")  # opening", "the 2025 audit", "the 9/30 release"
_RIGHT = r"(?:right|just|immediately|directly)"
# "the first workday / next business day / last working day": a weekday of the stretch
# (Anchor.workday); "first/last/next" or "the" make one ("our workday after the reorg" is none)
_WORKDAY = r"(?:(?:first|last|next)\s+|(?<=\bthe\s))(?:work(?:ing)?[\s-]?day|business[\s-]day)"


def _is_workday(unit: str) -> bool:
    return "work" in unit.lower() or "business" in unit.lower()


_EN_ANCHORS = (
    # "two days after the launch", "a week before her wedding"
    re.compile(rf"\b{_N}\s+(?P<unit>days?|weeks?)\s+(?P<rel>before|after|ahead\s+of|prior\s+to)\s+(?:{_OWNER}\s+)?{_EV_EN}",
               re.I),
    # "the Monday before the launch", "on the Friday after Melanie's wedding"
    # ("the Saturday right after CBT opened": an adverb changes nothing after "the"; "last
    # Friday right after lunch" is last Friday, "on Monday right after the standup" Monday)
    re.compile(rf"\b(?:(?P<the>the)\s+)?{_WD_EN_SHORT}\s+(?(the)(?:{_RIGHT}\s+)?)(?P<rel>before|after)\s+"
               rf"(?:{_OWNER}\s+)?{_EV_EN}", re.I),
    re.compile(r"\b(?:(?P<the>the)\s+)?(?P<unit>day|night|evening|morning|week|weekend|"
               + _WORKDAY + r")\s+(?(the)(?:"
               + _RIGHT + r"\s+)?)(?P<rel>before|after|of)\s+(?:" + _OWNER + r"\s+)?" + _EV_EN, re.I),
    re.compile(r"\b(?P<rel>(?i:right\s+before|just\s+before|right\s+after|just\s+after|before|after|"
               r"prior\s+to|ahead\s+of|following|since|at\s+the\s+time\s+of|on\s+the\s+day\s+of))"
               rf"\s+(?:(?P<det>{_OWNER})\s+)?{_EV_EN}"),  # "before the launch", "before launch"
    # (not the "s" of "the closed beta's day-7 retention", nor a "day-7" count)
    re.compile(r"\b(?:on\s+)?(?:(?:the|our|my|his|her|their)\s+)?(?<!['’])(?P<ev>[a-z][\w-]{0,40})\s+day\b(?!-\d)", re.I),
    # "on the day we launched the pilot", "the night the pilot went live": a clause, its
    # subject a pronoun, a name or "the <noun>" (case matters: "the day before" is no clause)
    re.compile(r"\b[Tt]he\s+(?P<unit>day|night|morning|evening|week)\s+(?:(?:that|when)\s+)?"
               r"(?P<subj>we|I|they|he|she|you|(?!The\b)[A-Z][a-z]{1,40}|the\s+[a-z][\w-]{0,40})\s+"
               r"(?P<ev>[a-z][\w-]{0,40}(?:\s+[A-Za-z][\w.-]{0,40}){0,5})"),
)
# "the day/night/week we launched": a night runs into the next day, a week is the week of it
_CLAUSE_STRETCH = {"day": (0, 0), "morning": (0, 0), "evening": (0, 0), "night": (0, 1),
                   "week": (-3, 3)}
_DURATION = re.compile(r"(?i)(?:second|minute|hour|day|week|month|year)s")
# Words an English event phrase stops before (a phrase ends where the question goes on).
_EN_STOP = frozenset("""what why how when where who which whom whose did do does was were is are
am be been had has have we i you they he she it and or but so to of in on at for with from by
that this there then than as if did didn't wasn't anything something everything""".split())
# Words of an event clause that say nothing of the event ("the day we finally got the pilot
# live"): skipped, not an end.
_EN_LIGHT = frozenset("""the a an our my his her their its finally first just went got get came
come made make did had""".split())
# "<word> day" that names no event.
_NOT_EVENT_DAY = frozenset("""the a an all one each every other same that this next last first
second third fourth some any whole entire full half single previous following which what
working business school week rainy sunny big long good bad great busy hard nice given
particular certain specific another any""".split())
# Chinese: an event, then where the time stands to it.
_ZH_REL = (
    ("workday before", "(?:之)?前(?:的)?最后一个工作日"),
    ("workday after", "(?:之|以)?后(?:的)?(?:第一个|首个)工作日"),
    ("on", "当天|当日|那天|那一天|那日|当晚|那晚|那天晚上|当天晚上"),
    ("week of", "那周|那一周|那个星期|那星期|那个礼拜"),
    ("day before", "(?:之)?前一天|前一晚|前夕|头一天|(?:之)?前(?:的)?最后一天"),
    ("day after", "(?:之|以)?后(?:的)?第一天|(?<!最)后一天|第二天|次日|(?:之|以)?后(?:的)?那天"),
    ("week before", "(?:之)?前(?:的)?(?:一周|一个?星期|一个?礼拜|那一?周)"),
    ("week after", "(?:之)?后(?:的)?(?:一周|一个?星期|一个?礼拜|那一?周)"),
    ("days before", "(?:之|以)?前(?:的)?(?:几|两)天"),
    ("days after", "(?:之|以)?后(?:的)?(?:几|两)天"),
    ("before", "之前"),  # not 以前 / 以后: "钱文老师以前是做什么的" is "formerly", "自从那次以后"
    ("after", "之后"),  # "since that time" (docs/retrieval.md "Times named by events")
)
_ZH_N = r"(?P<n>\d{1,3}|[一二三四五六七八九十两]{1,3})"
# "上线两天后", "迁库三天前", "上线后第三天", "发版一周后"; "上线前那周的周一", "上线后的周五"
_ZH_COUNTED = (rf"{_ZH_N}\s*(?P<nunit>天|日|周|个星期|个礼拜)(?:之|以)?(?P<ndir>前|后)|"
               rf"(?:之|以)?(?P<cdir>前|后)(?:的)?(?!两[天日]){_ZH_N.replace('<n>', '<n3>')}\s*(?P<cunit>天|日|周|个星期|个礼拜)(?![一二三四五六日天])|"
               rf"(?:之|以)?(?P<ndir2>后)(?:的)?第\s*{_ZH_N.replace('<n>', '<n2>')}\s*天|"
               r"(?<![然最今目提])(?:之|以)?(?P<wdir>前|后)(?:那|的|第一|一|个|周|星期|礼拜){0,6}?(?:周|星期|礼拜)"
               r"(?P<wd>[一二三四五六日天])|"
               r"(?<![然最今目提])(?:之|以)?(?P<edir>前|后)(?:那|的|第一|一|个|这){0,6}?周末")
_EN_JOINS = r"(?i:for|to|of|in|on|at|with|from|by|and|or|the|a|an|is|was|when|after|before)"
_ZH_ANCHOR = re.compile(
    r"(?P<ev>(?<![\w.\-])[A-Za-z][\w.\-]{0,40}(?:\s{0,3}[A-Za-z][\w.\-]{0,40})?|"
    r"(?<![\w.\-])[A-Za-z][\w.\-]{0,40}(?:\s{1,3}(?!" + _EN_JOINS + r"\b)[A-Za-z][A-Za-z0-9_.\-]{0,40}){0,3}"
    r"\s{0,3}[\u4e00-\u9fff]{1,10}?|"  # "Docker Hub rate limit 卡住的那天", not "log for OOM"
    r"[\u4e00-\u9fff]{1,10}?)\s{0,3}的?(?:那一?[次回]的?(?:\s{0,3}[，,]\s{0,3})?)?(?:"
    + _ZH_COUNTED + "|" + "|".join(f"(?P<r{i}>{alt})" for i, (_, alt) in enumerate(_ZH_REL)) + ")")
# Characters that open a Chinese phrase without being the event ("在上线前", "我们上线当天").
# "节后", "假期前": the last holiday of the calendar (_HOLIDAYS) before today.
_BREAKS = {"节", "节日", "假期", "长假", "放假", "节假日", "过节", "假"}
_ZH_LEAD = re.compile(r"^(?:上一?[次回]|[你我他她](?=[说提讲])|自从|自打|早在|相比|除了|说到|[还我]?记得|好像是?|也就是|正是|请问|我们|咱们|你们|他们|大家|就是|就在|正在|刚刚|刚|在|从|到|是|那|这|就|了|和|跟|的|把|给|对|于|当|等|要)+")
# A time, not an event: "三周前的周五", "上周之前"
_TIME_WORDS = re.compile(r"^(?:[\d一二三四五六七八九十两几上下这本前昨今明去]+\s*个?)?(?:天|日|周|星期|礼拜|月|年|周末)$")
# Every time, not one event: "每次发版之前" is before every release, no one day.
_EVERY = re.compile("每一?[次回]")
# A comma between 那次 and 之前 / 之后 leaves no relation: "上线那次，之前说好的方案" is "agreed
# earlier", not "before the launch".
_COMMA = re.compile("[，,]")
# The question before an event ("为什么要在上线前一天…"): the event is what follows it.
_ZH_ASKS = re.compile(r".*(?:为什么|什么|怎么|如何|哪个|哪些|哪天|谁)")


def anchor(query: str) -> Anchor | None:
    """The event a query times itself by, if any ("the day before launch", "上线当天",
    "迁库之后那天", "after Caroline's trip"); None for a query with no such phrase."""
    found = _anchor(query)
    return found[0] if found else None


# Two events as the ends of a stretch: "between the first load test and the phase-2 one",
# "first load test 和二期那次压测之间" (both ends' words bounded: one pass over any text).
# Words are split at spaces only: a "-" both in words and between them let a run of dashes
# be split in every way (about 5 s per "between a-----…").
_EN_BETWEEN = re.compile(r"\bbetween\s+(?:the\s+|our\s+|my\s+)?(?P<ev>[A-Za-z][\w.-]{0,40}(?: [\w.-]{1,40}){0,4}?)"
                         r"\s+and\s+(?:the\s+|our\s+|my\s+)?(?P<ev2>[A-Za-z][\w.-]{0,40}(?: [\w.-]{1,40}){0,4}?)"
                         r"(?=\s*[,?.!;]|\s+(?:what|how|which|who|did|was|were|is|are|do)\b|$)", re.I)
_ZH_EV = r"[^\W\d_和与跟到至][^\W_和与跟到至]{0,30}(?:[ .\-][^\W_和与跟到至]{1,30}){0,3}?"  # no joining word inside
_ZH_BETWEEN = re.compile(rf"(?P<ev>{_ZH_EV})\s{{0,3}}(?:和|与|跟|到|至)\s{{0,3}}(?P<ev2>{_ZH_EV})\s{{0,3}}(?:之间|中间)")


# Words after "before" that name a time of day, not an event ("before noon").
_EN_TIMES_OF_DAY = frozenset("noon midnight dawn dusk soon later".split())


# "Q3", "H1" alone: a quarter or a half of a year, which _spans reads only with a year
_QUARTER_WORD = re.compile(r"(?i)q[1-4]|h[12]")


def _names_a_time(words: str) -> bool:
    """Is this phrase a calendar time rather than an event ("yesterday", "Monday",
    "September", "9月3日", "上周", "noon")?"""
    first = words.split()[0].lower() if words.split() else ""
    return bool(first in _WEEKDAYS_EN or first in _MONTHS or first in _EN_TIMES_OF_DAY
                or _QUARTER_WORD.fullmatch(first)  # "after Q3": a quarter, no event
                or _TIME_WORDS.match(words)
                or _spans(words, date(2000, 12, 31))[0])  # any day: only whether it names
    # one; the year's last, so a quarter or a half ("Q3", "H1") has begun


def _only_a_time(words: str) -> bool:
    """Is all of this phrase a calendar time ("summer", "Q3"), not an event a date names
    ("August 3 release")?"""
    if _QUARTER_WORD.fullmatch(words):
        return True
    spans, taken = _spans(words, date(2000, 12, 31))
    return bool(spans) and not blanked(words, taken).strip()


# "after" as part of a verb, no time: "who looks after our servers" (after who / that /
# which: "how did the dashboard look after the deploy" is a time), "named after", "sought after".
_AFTER_VERBS = frozenset("named sought".split())
_CARE_AFTER = re.compile(r"(?i)\b(?:who|that|which)\s+(?:\w+\s+)?look(?:s|ed|ing)?\s*$")
# Words before "between" that compare or choose, making its ends things, not times: "the
# difference between liveness and readiness", "choose between Kafka and NATS". Not what can
# be measured over a stretch ("traffic between the launch and the outage").
_THINGS_BETWEEN = frozenset(
    "difference differences different diff differ differs distinguish compare compared comparing "
    "comparison contrast choose chose chosen choosing choice pick picked picking decide decided "
    "deciding relationship relation relations distinction tradeoff trade-off tradeoffs mismatch "
    "similarity similarities similar better faster slower cheaper safer".split())
# After 之间 (what joins the ends is 和 / 与 / 跟, not 到 / 至, which make a span of time):
# "A 和 B 之间的区别", "之间有什么区别", "之间是什么关系", "之间的调用", "之间怎么选".
_ZH_THINGS_BETWEEN = re.compile(r"(?:的|有|有什么|有啥|有哪些|是什么|是啥|存在)?(?:区别|差别|差异|不同|关系|联系|关联|对比|"
                                r"比较|取舍|通信|通讯|调用|依赖|延迟|冲突)|(?:怎么|如何|该)选")


def _word_before(text: str, at: int) -> str:
    """The word that ends just before `at` (spaces between), lower-cased; "" if none."""
    m = re.search(r"([\w'-]+)\s*$", text[max(0, at - 40):at])  # a word, not the text before
    return m[1].lower() if m else ""


def _between(query: str):
    """(Anchor with two events, span) or None; not when an end is a calendar time, nor
    when the ends are things compared or joined (_THINGS_BETWEEN)."""
    for pattern, word in ((_EN_BETWEEN, "between"), (_ZH_BETWEEN, "间")):
        for m in pattern.finditer(query) if word in query.lower() else ():
            if (_compares(query, m.start()) if word == "between"
                    else not re.search("[到至]", query[m.end("ev"):m.start("ev2")])
                    and _ZH_THINGS_BETWEEN.match(query, m.end())):
                continue
            ends = [_ZH_LEAD.sub("", _ZH_ASKS.sub("", m[g])).strip() for g in ("ev", "ev2")]
            if any(len(e) < 2 or _names_a_time(e) for e in ends):
                continue
            return Anchor(ends[0], 0, 0, until=ends[1]), m.span(), m.span("ev")
    return None


def _compares(text: str, at: int) -> bool:
    """Does one of the three words before `at` compare or choose ("the difference in
    behaviour between", "choose between")?"""
    return any(w.lower() in _THINGS_BETWEEN for w in re.findall(r"[\w'-]+", text[max(0, at - 60):at])[-3:])


def _anchor(query: str):
    """(Anchor, (start, end) of the words that place the time around the event, (start,
    end) of the event's words) or None."""
    found = _between(query)
    if found:
        return found
    for pattern in _EN_ANCHORS:
        for m in pattern.finditer(query):
            g = m.groupdict()
            clause = g.get("subj") is not None
            words = [] if not clause or g["subj"][0].islower() else [g["subj"]]
            if clause and g["subj"].startswith("the"):
                words = [g["subj"].split()[-1]]
            for w in re.split(r"[ -]", re.sub(r"\s+", " ", g["ev"]).replace("'s", "")):
                if clause and w.lower() in _EN_LIGHT or not words and w.lower() == "the":
                    continue
                if w.lower() in _EN_STOP or len(words) == 4:
                    break
                words.append(w)
            if not words or (not g.get("rel") and not clause
                             and words[0].lower() in _NOT_EVENT_DAY):
                continue
            if not clause and (any(_DURATION.fullmatch(w) for w in words)  # "after the first
                               or len(words) == 1 and words[0].lower() in _NOT_EVENT_DAY):
                continue  # two weeks": a length of time, no event ("before the last 3 months")
            if "det" in g and (  # "before launch", but not "before Monday", "Before the summer"
                    g["det"] is None and (words[0].lower() in _NOT_EVENT_DAY
                                          or _names_a_time(" ".join(words)))
                    or g["det"] is not None and _only_a_time(" ".join(words))):
                continue
            weekday, days, workday = None, 1, False
            if g.get("n"):
                stretch = _counted(g["n"], g["unit"].lower().startswith("week"),
                                   g["rel"].lower() != "after")
            elif g.get("wd"):
                weekday = _WEEKDAYS_EN[g["wd"].lower()]
                stretch = _STRETCH["week " + g["rel"].lower()]
            elif clause:
                stretch = _CLAUSE_STRETCH[g["unit"]]
            elif g.get("unit") and g["unit"].lower() == "weekend" and g["rel"].lower() != "of":
                stretch, weekday, days = _weekend_around(g["rel"].lower() == "before")
            elif g.get("unit") and _is_workday(g["unit"]):
                workday = True
                stretch = _STRETCH.get("workday " + g["rel"].lower())
            elif g.get("unit"):
                stretch = _STRETCH.get(_EN_UNIT_REL.get((g["unit"].lower(), g["rel"].lower())))
            elif g.get("rel"):
                stretch = _STRETCH.get(_EN_REL.get(re.sub(r"\s+", " ", g["rel"].lower())))
            else:
                stretch = _STRETCH["on"]
            if stretch is None:
                continue
            if (g.get("rel") or "").lower() == "after" and (
                    _word_before(query, m.start("rel")) in _AFTER_VERBS
                    or _CARE_AFTER.search(query, max(0, m.start("rel") - 40), m.start("rel"))):
                continue  # "who looks after our servers", "named after the launch": no time
            event = " ".join(([g["owner"]] if g.get("owner") else []) + words)
            return Anchor(event, *stretch, weekday=weekday, days=days, workday=workday), m.span(), m.span("ev")
    for m in _ZH_ANCHOR.finditer(query):
        event = _ZH_LEAD.sub("", _ZH_ASKS.sub("", m["ev"])).strip()
        if event.endswith("过") and query.startswith("后", m.end("ev")):  # "压测过后": 过后 is after
            event = event[:-1]
        first, _, rest = event.partition(" ")
        if rest and first in _EN_STOP:  # "log for OOM 那次之前": OOM (not "IT 部门搬机房")
            event = rest.strip()
        if _zh_rel(m) in ("before", "after") and _COMMA.search(query, m.end("ev"), m.end()):
            continue
        if m.start("ev") and query[m.start("ev") - 1].isdigit():  # "9月30日国庆前一天": the
            digits = re.search(r"\d+$", query[:m.start("ev")])[0]  # date's last character is
            event = (digits + event if event.startswith("年") and len(digits) == 4  # not the
                     else event.lstrip("日号").strip())  # event's; "2025年国庆": the year's
        if (not event or len(event) < 2 and not event.isascii() and event not in _BREAKS
                or _TIME_WORDS.match(event) or _EVERY.match(event)):
            continue
        stretch, weekday, days = _zh_relation(m)
        if stretch is None:
            continue
        return (Anchor(event, *stretch, weekday=weekday, days=days,
                       workday=(_zh_rel(m) or "").startswith("workday")),
                (m.end("ev"), m.end()), m.span("ev"))
    return None


def _zh_relation(m) -> tuple:
    """(stretch, weekday, days from it) of the Chinese words placing a time around an event
    (a match of _ZH_ANCHOR or _ZH_AFTER_DAY); stretch None when a count is no number."""
    if m["n3"]:  # "上线后三天": the three days after it
        return _following(m["n3"], m["cunit"] not in "天日", m["cdir"] == "前"), None, 1
    if m["n"] or m["n2"]:
        return _counted(m["n"] or m["n2"], m["nunit"] is not None and m["nunit"] not in "天日",
                        m["ndir"] == "前"), None, 1
    if m["wd"]:
        return _STRETCH["week before" if m["wdir"] == "前" else "week after"], _WEEKDAYS_ZH[m["wd"]], 1
    if m["edir"]:  # "上线后第一个周末"
        return _weekend_around(m["edir"] == "前")
    return _STRETCH[_zh_rel(m)], None, 1


def _weekend_around(before: bool) -> tuple:
    """(stretch, weekday, days) of the weekend before or after an event: the Saturday and
    Sunday of the week's stretch ("the weekend after the launch", "上线前的那个周末")."""
    return _STRETCH["week before" if before else "week after"], 5, 2


# A day the calendar names, and then where the time stands to it: "8月3日前三天",
# "2026-09-30前一天", "August 3之前一周", "8月3日后的周末", "8月3日以来" (matched where the
# day's words end) ...
_ZH_AFTER_DAY = re.compile(r"\s{0,3}的?(?:" + _ZH_COUNTED + "|" + "|".join(
    f"(?P<r{i}>{alt})" for i, (_, alt) in enumerate(_ZH_REL)) + ")")
_ZH_WEEKEND_OF_DAY = re.compile(r"\s{0,3}的?(?:之|以)?(?P<dir>前|后)的?(?:那个|那一?个|这个)?周末")
_ZH_AROUND_DAY = re.compile(r"\s{0,3}(?:前后|左右)")
_ZH_SINCE_DAY = re.compile(r"\s{0,3}(?:(?P<ever>以来|至今|到现在)|以后|起|开始|后(?![一二三四五六七八九十两\d第的那]))")
# ... or first where it stands, then the day: "the week before August 3, 2023", "two weeks
# before August 11", "the Sunday before October 25", "the day after 2026-09-30", "after
# August 3" (matched where the day's words begin; a weekday may restate the date) ...
_EN_BEFORE_DAY = re.compile(
    rf"(?:\b{_N}\s+(?P<nunit>days?|weeks?|months?)\s+|\b(?:the\s+)?(?P<unit>day|night|evening|morning|week|"
    rf"weekend|{_WORKDAY})\s+|\b(?:the\s+)?{_WD_EN}\s+)?\b(?P<rel>right\s+before|just\s+before|right\s+after|"
    rf"just\s+after|before|after|following|prior\s+to|ahead\s+of|since)\s+(?:the\s+)?"
    rf"(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday),?\s+)?$", re.I)
# ... where the day's words are all there is of it ("the day after August 3?", not "the day
# before the August 3 release", whose date dates the release: see _event_day).
_EN_DAY_ENDS = re.compile(r"\s*(?:$|[,.;:!?，。？！)）\u4e00-\u9fff]|(?:what|how|which|who|whom|did|do|does|was|"
                          r"were|is|are|and|or|to|in|on|at|for|with|when|while|i|we|you|they|he|"
                          r"she|it|involving|about|by)\b)", re.I)
# A count of days from now ("三天前"), not a day said beside a date ("8月3日三天前").
_COUNT_WORDS = re.compile(r"[\d一二三四五六七八九十两]+\s*(?:天|日|周|个星期|个礼拜|个月)(?:之|以)?[前后]$")


def _side_by_side(query: str, named: list, run: list) -> list:
    """`run` and the single days named right beside it ("Monday, August 3", "9月30日（周三）")."""
    run = list(run)
    for _ in range(3):
        more = [(s, (c, d)) for s, (c, d) in named if s[0] == s[1] and (s, (c, d)) not in run
                and not _COUNT_WORDS.match(query[c:d]) and any(
                    0 <= c - d2 <= 3 and not query[d2:c].strip(" ,，()（）") or
                    0 <= c2 - d <= 3 and not query[d:c2].strip(" ,，()（）") for _, (c2, d2) in run)]
        if not more:
            break
        run += more
    return run


def _said_at_length(run: list) -> tuple:
    """Of days named side by side, the one said at length: the date, not its weekday."""
    return max(run, key=lambda x: (x[1][1] - x[1][0], -(x[0][1] - x[0][0]).days))[0]


def _weekend(day: date, after: bool) -> tuple:
    """The Saturday and Sunday after (or before) a day."""
    sat = day + timedelta(days=(5 - day.weekday()) % 7 or 7) if after \
        else day - timedelta(days=(day.weekday() - 6) % 7 or 7) - timedelta(days=1)
    return sat, sat + timedelta(days=1)


def _calendar_anchor(query: str, named: list):
    """Like _anchor, for a time counted from a day the query names by the calendar rather
    than from an event: (Anchor, span of the relation's words, span of the day's words, the
    day as (first, last)) or None. "Before Monday", "周三之前" name no stretch (as often a
    deadline); "since last August", "8月以来" count from a longer stretch's first day."""
    seen: list = []
    for seed in sorted(named, key=lambda x: (x[0][0] != x[0][1], x[1])):
        if seed in seen or _COUNT_WORDS.match(query[seed[1][0]:seed[1][1]]):
            continue
        one = seed[0][0] == seed[0][1]
        run = _side_by_side(query, named, [seed]) if one else [seed]
        seen += run
        day = _said_at_length(run)
        lo, hi = min(x[1][0] for x in run), max(x[1][1] for x in run)
        found = _zh_after_day(query, lo, hi, day, one) or (
            _en_before_day(query, lo, hi, day, one) if _EN_DAY_ENDS.match(query, hi) else None)
        if found:
            return found
    return None


def _zh_rel(m) -> str | None:
    """The name of the _ZH_REL relation a match holds ("before" for 之前), if any."""
    return next((name for i, (name, _) in enumerate(_ZH_REL) if m[f"r{i}"] is not None), None)


def _zh_after_day(query: str, lo: int, hi: int, day: tuple, one: bool):
    """_calendar_anchor's reading of a relation after the day's words ("8月3日前三天")."""
    dated = any(ch.isdigit() for ch in query[lo:hi])  # not "周三之前"
    if "(" in query[lo:hi] or "（" in query[lo:hi]:  # "8月3日（周一）前一天"
        hi += len(query[hi:hi + 2]) - len(query[hi:hi + 2].lstrip(")） "))

    def found(stretch, end, days=day, weekday=None, span=1):
        return (Anchor(query[lo:hi], *stretch, weekday=weekday, days=span,
                       workday=(name or "").startswith("workday")),
                (hi, end), (lo, hi), days)

    weekend, rel = _ZH_WEEKEND_OF_DAY.match(query, hi), _ZH_AFTER_DAY.match(query, hi)
    around, since = _ZH_AROUND_DAY.match(query, hi), _ZH_SINCE_DAY.match(query, hi)
    name = _zh_rel(rel) if rel else None
    if one and weekend:  # "8月3日后的周末"
        return found((0, 0), weekend.end(), _weekend(day[0], weekend["dir"] == "后"))
    if one and rel and (dated or name not in ("before", "after")):
        # a day, unlike an event, is all before or after what it names
        stretch, weekday, span = {"before": ((None, -1), None, 1), "after": ((1, None), None, 1)}.get(
            name) or _zh_relation(rel)
        if stretch is not None:  # ("8月3日后第一个周末": its Saturday and Sunday)
            return found(stretch, rel.end(), weekday=weekday, span=span)
    if one and around:  # "8月3日前后"
        return found((-3, 3), around.end())
    if since and (dated or not one or since["ever"]):  # "8月3日以来", "8月以来", "周三以来"
        # (not "周三以后": as often a deadline)
        return found((0, None), since.end())
    if not one and name == "after":  # "8月之后"
        return found((0, None), rel.end())
    if not one and name in ("workday after", "workday before"):  # "周末后的第一个工作日"
        return found(_STRETCH[name], rel.end())
    return None


def _en_before_day(query: str, lo: int, hi: int, day: tuple, one: bool):
    """_calendar_anchor's reading of a relation before the day's words ("the week before")."""
    m = _EN_BEFORE_DAY.search(query, max(0, lo - 80), lo)  # bounded: a long query, many dates
    if not m:
        return None
    g = m.groupdict()
    rel = re.sub(r"\s+", " ", g["rel"].lower()).replace("following", "after")
    if g["n"] or g["unit"] or g["wd"]:  # "the day right after August 3": the day after
        rel = rel.replace("right ", "").replace("just ", "")
    dated = any(ch.isdigit() for ch in query[lo:hi])  # not "before Monday"
    weekday = None
    if g["unit"] and _is_workday(g["unit"]):  # "the first business day after Oct 3 / the weekend"
        stretch = _STRETCH.get("workday " + rel)
        return (Anchor(query[lo:hi], *stretch, workday=True), (m.start(), hi), (lo, hi), day) \
            if stretch else None
    if not one:
        stretch = _STRETCH["since"] if rel == "since" and not (g["n"] or g["unit"] or g["wd"]) else None
    elif g["n"] and g["nunit"].lower().startswith("month"):  # "a month after": give or take a week
        n = _num(g["n"])
        stretch = None if n is None or n > 12 else (
            (30 * n - 7, 30 * n + 7) if rel == "after" else (-30 * n - 7, -30 * n + 7))
    elif g["n"]:
        stretch = _counted(g["n"], g["nunit"].lower().startswith("week"), rel != "after")
    elif g["wd"]:
        weekday, stretch = _WEEKDAYS_EN[g["wd"].lower()], _STRETCH.get("week " + rel)
    elif g["unit"] and g["unit"].lower() == "weekend" and rel in ("before", "after"):
        return Anchor(query[lo:hi], 0, 0), (m.start(), hi), (lo, hi), _weekend(day[0], rel == "after")
    elif g["unit"]:
        stretch = _STRETCH.get(_EN_UNIT_REL.get((g["unit"].lower(), rel)))
    elif dated or rel == "since":  # a day, unlike an event, is all before or after what it names
        stretch = {"before": (None, -1), "after": (1, None)}.get(_EN_REL.get(rel)) or \
            _STRETCH.get(_EN_REL.get(rel))
    else:
        return None
    if stretch is None:
        return None
    return Anchor(query[lo:hi], *stretch, weekday=weekday), (m.start(), hi), (lo, hi), day


def _days_in(count: str, weeks: bool) -> int | None:
    """Days in "三天" / "two weeks"; None when the count is no number or over a year (the
    calendar's margin, see in_calendar)."""
    n = _num(count)
    if n is None or n > (52 if weeks else 365):
        return None
    return 7 * n if weeks else n


def _following(count: str, weeks: bool, before: bool):
    """The stretch of "后三天" / "前两周" (the days right after / before an event); None when
    the count is no number."""
    n = _days_in(count, weeks)
    return None if n is None else (-n, -1) if before else (1, n)


def _counted(count: str, weeks: bool, before: bool):
    """The stretch of "两天后" / "three days before" / "一周后" (a week give or take three
    days) around an event; None when the count is no number."""
    n = _days_in(count, weeks)
    if n is None:
        return None
    spread = 3 if weeks else 0
    return (-n - spread, -n + spread) if before else (n - spread, n + spread)


def _holiday(event: str, today: date):
    """(first, last) day of the holiday an event names ("国庆", "清明节", "国庆假期",
    "Christmas"; "节" or "假期" alone: the last one that began before today), dated as the
    query's own holiday words are; None when the event is no holiday."""
    if event in _BREAKS:
        began = [s for s in map(lambda k: _holiday(k, today), _HOLIDAYS) if s and s[0] < today]
        return max(began) if began else None
    year, rel, name = re.match(r"(?:(\d{4})\s*年的?)?(去年|今年)?(.*?)节?(?:假期)?$", event.lower()).groups()
    if name not in _HOLIDAYS and name not in _NAMED_DAYS:
        return None
    if year and 1900 <= int(year) <= 2100:  # "2025年国庆"
        return _holiday_days(name, int(year))
    return _span("holiday", {"hol": name, "rel": rel}, today)


_BEGINNING = re.compile(r"^(?:(?:这个)?项目|工程)?(?:刚刚?|最)?(?:开始|启动|开工|立项|起步)$|"
                        r"^(?:the\s+)?(?:project(?:'s)?\s+)?(?:kick-?off|start)$", re.I)


def names_beginning(event: str) -> bool:
    """Is the event the start of it all ("项目刚开始那周", "the week of the kickoff")? Its day is
    the store's first."""
    return bool(_BEGINNING.match(event.strip()))
