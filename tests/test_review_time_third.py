"""Hostile review of f4deb43 (temporal: yday, 'last wk', 'N days back', 'late last month',
'Last summer', 6月1号到10号, slash dates after on/since/from…, a holiday's own day, named days,
a capitalised weekday after a past verb or opening the text, 每周二 and the like).

Each case states what a careful reader takes the question to mean. Marks:
  REGRESSION  the parent (f4deb43~1) read it right, the reviewed commit reads it wrong
  NEW-FALSE   a new rule reads a stretch the words do not name, or the wrong one
  GAP         neither reads it right (lower priority)
  HOSTILE-INPUT  crash / slowness guards (expected to pass)

test_parent_reads_the_regressions_right runs the REGRESSION cases against the parent's code
(exported read-only with `git archive f4deb43~1`), so a REGRESSION mark is checked, not claimed.

"now" is Thursday 2026-10-15 12:00 UTC (conftest pins TZ=UTC) unless a case says otherwise."""
import importlib
import importlib.util
import io
import subprocess
import sys
import tarfile
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from memory_core import temporal

NOW = datetime(2026, 10, 15, 12, tzinfo=timezone.utc)  # a Thursday
EARLY_OCT = datetime(2026, 10, 5, 12, tzinfo=timezone.utc)  # a Monday
TODAY = date(2026, 10, 15)
ROOT = Path(__file__).resolve().parent.parent
PARENT = "f4deb43~1"


def d(s):
    return date.fromisoformat(s)


def span(hint):
    """(first day, last day) inclusive of the hint's stretch, or None."""
    if hint.start is None:
        return None
    return hint.start.date(), (hint.end - timedelta(days=1)).date()


# --- what a case expects ------------------------------------------------------------------
# ("none",)            no stretch and no event anchor: the words name no time
# ("nocal",)           no calendar stretch (an event anchor may be read)
# ("days", a, b)       exactly the days a..b
# ("anchor", words)    no calendar stretch; an event anchor whose words hold `words`
# ("covers", day)      a stretch holding that day
# ("same_as", query)   what the same code reads for the words written out ("since June 1")
# ("not_before", day)  no stretch, or one starting on or after `day` (not last month's)

def check(mod, query, expect, now=NOW):
    hint = mod.parse(query, now)
    got = span(hint)
    kind = expect[0]
    if kind == "none":
        assert got is None and hint.anchor is None, (got, hint.anchor)
    elif kind == "nocal":
        assert got is None, got
    elif kind == "days":
        assert got == (d(expect[1]), d(expect[2])), got
    elif kind == "anchor":
        assert got is None and hint.anchor is not None and expect[1] in hint.anchor.event, (
            got, hint.anchor)
    elif kind == "covers":
        assert got is not None and got[0] <= d(expect[1]) <= got[1], got
    elif kind == "same_as":
        want = span(mod.parse(expect[1], now))
        assert want is not None and got == want, (got, want)
    elif kind == "not_before":
        assert got is None or got[0] >= d(expect[1]), got
    else:  # pragma: no cover
        raise AssertionError(kind)


def P(mark, query, *expect, now=NOW):
    return pytest.param(mark, query, expect, now, id=f"{mark}:{query[:48]}")


CASES = [
    # --- 5. slash M/D after on/by/from/until/between, or as a range: fractions, ratios, scores
    P("NEW-FALSE", "what broke on 2/3 nodes", "none"),  # two of three nodes
    P("NEW-FALSE", "the job fails on 9/10 runs, is it flaky?", "none"),  # nine runs in ten
    P("NEW-FALSE", "failed on 3/5 retries", "none"),
    P("NEW-FALSE", "we cut costs by 1/3, which change did it?", "none"),  # a third
    P("NEW-FALSE", "approved by 2/3 majority", "none"),
    P("NEW-FALSE", "we moved from 1/2 to 2/3 of traffic on the canary", "none"),  # the "of" guard
    # looks only after the first number
    P("NEW-FALSE", "score went from 7/10 to 9/10", "none"),
    P("NEW-FALSE", "wait until 3/3 pods are Ready", "none"),  # kubectl READY column
    P("NEW-FALSE", "pods went from 1/3 to 3/3 ready", "none"),
    P("NEW-FALSE", "between 1/4 and 1/2 of requests time out", "none"),
    P("NEW-FALSE", "we tested with 1/2 and 2/3 of the cluster", "none"),  # "and" joins a "range"
    P("NEW-FALSE", "1/2-1/3 of the budget goes to CI", "none"),
    P("NEW-FALSE", "Pod 从 1/2 到 2/2 Ready 用了多久", "none"),  # read as Jan 2 .. Feb 2
    P("NEW-FALSE", "进度从 1/4 到 3/4 花了几天", "none"),  # progress 1/4 -> 3/4, read Jan 4 .. Mar 4
    P("NEW-FALSE", "the pod restarts after 1/2 hour, why?", "nocal"),  # half an hour, read Jan 2
    # a fraction outranks the time the question does name (the narrowest stretch wins)
    P("REGRESSION", "yesterday we lost quorum on 2/3 nodes", "days", "2026-10-14", "2026-10-14"),
    P("REGRESSION", "last week the error rate dropped by 1/3", "days", "2026-10-05", "2026-10-11"),
    P("REGRESSION", "last month the canary went from 1/2 to 2/3 of traffic",
      "days", "2026-09-01", "2026-09-30"),
    P("REGRESSION", "in August we reduced p99 by 1/3", "days", "2026-08-01", "2026-08-31"),
    P("REGRESSION", "去年灰度比例从 1/2 到 2/3 花了多久", "days", "2025-01-01", "2025-12-31"),
    P("REGRESSION", "latency improved by 3/4 after the cache change", "anchor", "cache change"),

    # --- 5. slash dates that are dates, read as the wrong stretch --------------------------
    # "since"/"after"/"before" are swallowed into the date's words and the event-anchor rule
    # drops the relation: the day itself is read, unlike the same words with a month name
    P("NEW-FALSE", "what changed since 6/1?", "same_as", "what changed since June 1?"),
    P("NEW-FALSE", "what changed after 6/1?", "same_as", "what changed after June 1?"),
    P("NEW-FALSE", "what changed before 6/1?", "same_as", "what changed before June 1?"),
    # a range with from/between: only its first day is read
    P("NEW-FALSE", "deploys from 6/1 to 6/10", "days", "2026-06-01", "2026-06-10"),
    P("NEW-FALSE", "between 6/1 and 6/10", "days", "2026-06-01", "2026-06-10"),
    P("NEW-FALSE", "from 6/1 through 6/10", "days", "2026-06-01", "2026-06-10"),
    # the year written after it is dropped (read 2026-06-01)
    P("NEW-FALSE", "on 6/1, 2025 what happened", "days", "2025-06-01", "2025-06-01"),
    # a deadline in October for 11/30 is this coming one, not last year's (read 2025-11-30)
    P("NEW-FALSE", "what do we need to ship by 11/30?", "not_before", "2026-01-01"),

    # --- 4. Chinese range to a bare day: the second number is an hour ---------------------
    P("NEW-FALSE", "6月1号到12点服务还没恢复", "days", "2026-06-01", "2026-06-01"),  # read Jun 1..12
    # an hour below the day makes the "range" backwards and the whole date is dropped
    P("REGRESSION", "6月5号到3点才恢复", "days", "2026-06-05", "2026-06-05"),
    # a range into the next month written short (Sep 28 .. Oct 3): now nothing at all
    P("REGRESSION", "9月28号到3号的值班记录", "covers", "2026-09-28"),

    # --- 1. "N days/weeks back": a displacement, not a time -------------------------------
    P("NEW-FALSE", "pushed the deadline 3 days back, who asked for it?", "none"),
    P("NEW-FALSE", "the date picker jumps a day back in UTC-5, where did we note the fix?", "none"),
    P("NEW-FALSE", "two days back-to-back deploys failed, why?", "none"),
    P("NEW-FALSE", "we went 2 days back and forth on the schema", "none"),
    P("REGRESSION", "timestamps are shifted one day back after the DST change", "anchor", "DST"),
    P("REGRESSION", "in August we shipped 3 days back-to-back", "days", "2026-08-01", "2026-08-31"),
    P("REGRESSION", "last month we pushed the launch 2 weeks back", "days", "2026-09-01", "2026-09-30"),

    # --- 1. "yday" as a method / field name (Ruby Date#yday, struct tm yday) ---------------
    P("NEW-FALSE", "how does Date#yday handle leap years", "none"),
    P("NEW-FALSE", "Ruby Time#yday off by one in our parser", "none"),
    P("NEW-FALSE", "what does date.yday return?", "none"),

    # --- 7. capitalised weekday after "…ed ": a schedule, a name, or ahead -----------------
    P("NEW-FALSE", "scheduled Friday deploys keep failing, why?", "none"),  # a recurring one
    P("NEW-FALSE", "we disabled Sunday backups, where is the cron?", "none"),
    P("NEW-FALSE", "we renamed Sunday to Weekend in the enum", "none"),  # an enum member
    P("NEW-FALSE", "we built a Slack bot called Friday, where is its config", "none"),  # a name
    P("NEW-FALSE", "what do we need Friday for the demo?", "none"),  # "need" ends in "ed"; ahead
    P("NEW-FALSE", "the migration is scheduled Friday, who owns it?", "none"),  # ahead
    P("REGRESSION", "this week we added Saturday support", "days", "2026-10-12", "2026-10-15"),
    P("REGRESSION", "in September we scheduled Friday deploys, why?", "days", "2026-09-01", "2026-09-30"),
    P("REGRESSION", "last month we added Saturday support to the scheduler",
      "days", "2026-09-01", "2026-09-30"),
    # --- 7. a weekday opening the text --------------------------------------------------------
    P("NEW-FALSE", "Monday the 5th, what did we deploy?", "days", "2026-10-05", "2026-10-05"),  # read Oct 12
    P("NEW-FALSE", "Friday the 13th edge case in cron parsing", "none"),
    P("NEW-FALSE", "Friday I'm out, who covers oncall?", "none"),  # ahead
    P("NEW-FALSE", "Monday we ship v2, what's left on the checklist?", "none"),  # ahead
    P("NEW-FALSE", "Friday we always freeze deploys, where is that policy?", "none"),  # a habit

    # --- 2. early/mid/late this month, when that part is still ahead: last month's is read --
    P("REGRESSION", "what's planned for late this month?", "not_before", "2026-10-01"),  # read Sep 21..30
    P("REGRESSION", "what's planned for mid this month?", "not_before", "2026-10-01", now=EARLY_OCT),
    P("GAP", "what's planned for the end of this month?", "not_before", "2026-10-01"),  # same, older

    # --- 6. holidays ----------------------------------------------------------------------------
    P("NEW-FALSE", "the team working on Halloween landing page", "none"),  # "on" = working on
    P("NEW-FALSE", "focus on Valentine's Day promo copy", "none"),
    # this year's 双11 is ahead, so the whole reading (this year) is dropped
    P("REGRESSION", "今年双11的压测计划", "days", "2026-01-01", "2026-10-15"),
    P("GAP", "what broke on Valentine\u2019s Day", "days", "2026-02-14", "2026-02-14"),  # typographic '

    # --- 8. recurring days the new 每 rule still reads ----------------------------------------
    P("GAP", "每两周的周五发版", "none"),
    P("GAP", "每月中旬对账的脚本", "none"),  # 每月初 / 每月底 are handled, 每月中旬 not
    P("GAP", "每到周五就告警", "none"),

    # --- seasons as developer words (not this commit, but what a developer types) ----------
    P("GAP", "how did we configure spring security", "none"),
    P("GAP", "we fall back to sqlite when redis is down, where?", "none"),
]


# Not read, after the review (strict: a fix makes them pass and must remove them from here).
_SLASH = ("slash dates are not read at all since the review: '2/3 nodes', 'by 1/3', 'from 1/2 "
          "to 2/3 of traffic' are commoner in a developer's text than a date written 6/1")
KNOWN_GAPS = {
    "what changed since 6/1?": _SLASH, "what changed after 6/1?": _SLASH,
    "what changed before 6/1?": _SLASH, "deploys from 6/1 to 6/10": _SLASH,
    "between 6/1 and 6/10": _SLASH, "from 6/1 through 6/10": _SLASH,
    "on 6/1, 2025 what happened": _SLASH,
    "Monday the 5th, what did we deploy?": "a weekday without 'on' is not read; 'the 5th' only "
                                           "after on/from/since or before 那次/那天",
    "每两周的周五发版": "每 two words before the weekday: 的周五 alone cannot tell a schedule from 上周的周五",
    "how did we configure spring security": "a season word is read wherever it stands",
    "we fall back to sqlite when redis is down, where?": "a season word is read wherever it stands",
}
CASES = [pytest.param(*c.values, id=c.id, marks=pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[c.values[1]]))
         if c.values[1] in KNOWN_GAPS else c for c in CASES]


@pytest.mark.parametrize("mark,query,expect,now", CASES)
def test_reviewed_reading(mark, query, expect, now):
    check(temporal, query, expect, now)


# --- the store's side: a record's line is read by the same patterns (temporal.mentions) ----

@pytest.mark.parametrize("text", [
    "the job fails on 2/3 nodes",  # NEW-FALSE: a record mentioning Feb 3
    "we cut costs by 1/3",  # NEW-FALSE: Jan 3
    "CI passes on 9/10 runs",  # NEW-FALSE: Sep 10
])
def test_record_fraction_is_no_mention(text):
    assert temporal.mentions(text, NOW) == []


# --- HOSTILE-INPUT: crash / slowness (generous bounds) ------------------------------------

@pytest.mark.parametrize("query", [
    "on 1/1 " * 5000,
    "1/" * 20000,
    "6/1-" * 5000,
    "6/1 到 " * 5000,
    "6月1号到" * 3000,
    "on " + "12/12/" * 10000,
    "we pushed " * 3000 + "Wednesday",
    "每" * 20000 + "周二",
    "3 days back " * 3000,
    "the 15th 那次 " * 5000,
    "on 1/1?\n" * 5000,
])
def test_hostile_query_is_quick(query):  # HOSTILE-INPUT
    t = time.perf_counter()
    temporal.parse(query, NOW)
    assert time.perf_counter() - t < 2.0


@pytest.mark.parametrize("text", ["1/" * 20000, "on 1/2 of " * 4000, "6/1" + " ~ " * 12000])
def test_hostile_record_line_is_quick(text):  # HOSTILE-INPUT: mentions() reads a whole line
    t = time.perf_counter()
    temporal.mentions(text, NOW)
    assert time.perf_counter() - t < 2.0


# --- the REGRESSION marks, checked against the parent's code --------------------------------

@pytest.fixture(scope="session")
def parent_temporal(tmp_path_factory):
    root = tmp_path_factory.mktemp("parent")
    try:
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", PARENT, "memory_core"],
                             check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:  # no git, or a shallow copy
        pytest.skip(f"parent not available: {e}")
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(root)
    name = "parent_memory_core"
    spec = importlib.util.spec_from_file_location(
        name, root / "memory_core" / "__init__.py", submodule_search_locations=[str(root / "memory_core")])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return importlib.import_module(name + ".temporal")


@pytest.mark.parametrize("mark,query,expect,now", [c for c in CASES if c.values[0] == "REGRESSION"])
def test_parent_reads_the_regressions_right(parent_temporal, mark, query, expect, now):
    check(parent_temporal, query, expect, now)
