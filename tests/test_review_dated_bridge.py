"""Review of the dated list taking the glossary bridge (search.dated_candidates(bridged=...)):
a question naming a time also gets that stretch's records said in the other language.
Defects are strict xfails; the rest guard what held. Two defects it found in 15414b4 were
fixed the same day (a stretch whose records match none of the question's own words still
brings them all): their tests are guards now."""
import pytest

from storeutil import BILINGUAL_BACKGROUND, daily_line, ids

NOW = "2026-10-15T12:00:00Z"  # a Thursday; Monday Oct 12, Saturday Oct 10

_LIFE = ["Mom's birthday is in March", "Started learning guitar", "Booked dentist for November",
         "Sarah likes Thai food", "Watched Dune part two", "Paid the electricity bill",
         "Dinner with Tom at the Italian place", "Bought a new rain jacket", "Cat needs vet checkup",
         "Flight to Tokyo booked for December", "妈妈做了红烧肉", "开始学游泳", "和小王一起吃火锅",
         "给猫买了猫粮", "看了一场话剧", "去超市买了水果", "房租涨了两百", "在北京见了大学同学"]


def _background(mem, lines=BILINGUAL_BACKGROUND):
    for i, text in enumerate(lines):
        daily_line(mem, text, f"2026-09-{1 + i % 28:02d}", f"bg{i}")


def _contents(hits):
    return [h.content for h in hits]


# --- defects -------------------------------------------------------------------------------

def test_last_saturday_keeps_that_days_english_records_when_a_chinese_line_says_zhouliu(
        mem, monkeypatch):
    """"What did I do last Saturday?": no English line of Oct 10 says "Saturday", so the
    old dated list fell back to all of that day's records (hiking, ramen). Now the bridge
    finds the Chinese lines saying 周六, the dated list is no longer empty, and the fallback
    (all the day's records) is skipped: the English records of the day vanish from a keyword
    search. Old code returned all four. A user asking what they did on a day loses half
    their day because another note happens to name the weekday in Chinese."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    _background(mem, BILINGUAL_BACKGROUND + _LIFE)
    hike = daily_line(mem, "Went hiking at Mount Tam with Sarah", "2026-10-10", "s1")
    ramen = daily_line(mem, "Tried the new ramen place in Oakland", "2026-10-10", "s2")
    daily_line(mem, "周六早上去菜市场买了菜", "2026-10-10", "s3")
    daily_line(mem, "周六下午在家看了一部电影", "2026-10-10", "s4")
    got = ids(mem.search("What did I do last Saturday?", limit=5, mode="fts"))
    assert hike["id"] in got and ramen["id"] in got


def test_what_did_i_do_today_keeps_todays_english_record(mem, monkeypatch):
    """"what did I do today": Chinese day notes say 今天 all the time; the bridge ("today"
    -> 今天) makes them the whole dated list and the English record of today ("Pottery
    class…") is no longer in it. Old code returned it (third). The most common personal
    memory question loses the day's notes in the question's own language."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    _background(mem, BILINGUAL_BACKGROUND + _LIFE)
    daily_line(mem, "Went to the climbing gym with Priya", "2026-10-14", "y1")
    daily_line(mem, "今天下雨，没出门跑步", "2026-10-14", "y2")
    pottery = daily_line(mem, "Pottery class, made a lopsided bowl", "2026-10-15", "t1")
    daily_line(mem, "今天终于把护照续签了", "2026-10-15", "t2")
    assert pottery["id"] in ids(mem.search("what did I do today", limit=5, mode="fts"))


_BUSY_ZH = ["今天修复了打印机的问题", "今天的会议时间改到下午三点", "今天用新的数据看板跑了一遍",
            "服务器机房今天停电检修", "今天上海下雨了", "今天午饭吃了牛肉面", "问题单今天清零了",
            "今天运行了一次全量备份"]
_BUSY_EN = ["Standup ran long", "Merged the docs PR", "Reviewed Q4 roadmap slides",
            "Coffee machine broke again"]


def _busy_monday(mem):
    """A store where login is talked about every day, and a busy Monday (Oct 12) of chat in
    both languages; the answer: the one login line of that day, said in its own words."""
    _background(mem)
    for i in range(20):
        daily_line(mem, f"Login flow reviewed again, ticket {i}", f"2026-09-{1 + i:02d}", f"l{i}")
        daily_line(mem, f"登录流程第{i}次评审", f"2026-09-{1 + i:02d}", f"m{i}")
    for i, text in enumerate(_BUSY_ZH + _BUSY_EN):
        daily_line(mem, text, "2026-10-12", f"d{i}")
    return daily_line(mem, "Login bug: OAuth callback dropped the state param, patched in auth "
                      "middleware", "2026-10-12", "ans")


@pytest.mark.xfail(strict=True, reason="broad glossary words (fix, issue, time) of the day's "
                   "Chinese chat push the answer out of the top 5: the dated list scores both "
                   "languages as one (putting the question's own matches first fixed this and "
                   "lost most of what the bridge gained, docs/retrieval.md)")
@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_busy_day_broad_words_do_not_evict_the_login_answer(mem, monkeypatch, mode):
    """"Which login issue did we fix on Oct 12 and what time?": the Chinese chat of that day
    holds 修复/问题/时间 (fix, issue, time: glossary words with broad senses), none of it
    about login. Scored together with the own-language match, those lines take the dated
    list's head and the English answer (the only line of the day about login) falls out of
    the top 5 in both modes. Old code ranked it first. The printer and meeting lines answer
    nothing about login."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    answer = _busy_monday(mem)
    got = ids(mem.search("Which login issue did we fix on Oct 12 and what time?", limit=5,
                         mode=mode))
    assert answer["id"] in got


@pytest.mark.xfail(strict=True, reason="printer fix in Chinese outranks the login answer")
@pytest.mark.parametrize("query", ["What was the login issue we fixed on Monday?",
                                   "login issue fixed last Monday"])
def test_busy_day_login_answer_stays_first(mem, monkeypatch, query):
    """Same busy Monday: "今天修复了打印机的问题" (fix + issue, no login) and "问题单今天清零了"
    now rank above the only login line of the day. Old code put the login line first. The
    user asked about login; the top hit is about a printer."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    answer = _busy_monday(mem)
    assert ids(mem.search(query, limit=5, mode="fts"))[0] == answer["id"]


# --- guards: what held ---------------------------------------------------------------------

def _gateway_store(mem, answer, day="2026-10-12"):
    _background(mem)
    for i in range(20):
        day_i = f"2026-09-{1 + i:02d}"
        daily_line(mem, f"Gateway port check {i}: the gateway still answers on its port", day_i, f"g{i}")
        daily_line(mem, f"网关端口巡检 {i}：网关端口正常", day_i, f"z{i}")
    for i, text in enumerate(["今天改了午饭时间", "今天的会议改到周五", "数据服务今天重启了一次",
                              "今天修了一个样式问题", "Lunch order changed today", "Ran the data backfill"]):
        daily_line(mem, text, day, f"x{i}")
    return daily_line(mem, answer, day, "ans")


_SAME = [("What did we change about the gateway port on Oct 12?", "Gateway port changed from 9090 to 8443 with TLS"),
         ("10月12号网关的端口改成了什么", "网关端口从 9090 改成 8443"),
         ("10月12号 gateway port 改成了什么", "网关端口从 9090 改成 8443")]
_ACROSS = [("What did we change about the gateway port on Oct 12?", "网关端口从 9090 改成 8443，走 TLS"),
           ("10月12号网关的端口改成了什么", "Gateway port moved from 9090 to 8443 with TLS"),
           ("上周一 gateway 的端口改了啥", "Gateway port moved from 9090 to 8443 with TLS")]


def _ask(mem, monkeypatch, query, answer, mode):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    said = _gateway_store(mem, answer, day="2026-10-05" if query.startswith("上周一") else "2026-10-12")
    return said["id"], ids(mem.search(query, limit=5, mode=mode))


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
@pytest.mark.parametrize("query, answer", _SAME)
def test_the_days_answer_beats_broad_word_lines_of_that_day(mem, monkeypatch, mode, query, answer):
    """A day with lines in both languages sharing change/today/time/service/data/fix with
    the question: the gateway-port line of that day in the question's language (or, asked
    in mixed words, in Chinese) still comes first."""
    said, got = _ask(mem, monkeypatch, query, answer, mode)
    assert got[0] == said


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
@pytest.mark.parametrize("query, answer", _ACROSS)
def test_the_days_answer_in_the_other_language_is_in_the_top_five(mem, monkeypatch, mode, query,
                                                                  answer):
    """The change's point, with broad-word lines on the day: found (the old code missed the
    first two entirely)."""
    said, got = _ask(mem, monkeypatch, query, answer, mode)
    assert said in got


@pytest.mark.xfail(strict=True, reason="a line of the day sharing only 'change' ranks first")
@pytest.mark.parametrize("mode", ["fts", "hybrid"])
@pytest.mark.parametrize("query, answer", _ACROSS)
def test_the_days_answer_in_the_other_language_comes_first(mem, monkeypatch, mode, query, answer):
    """Pre-existing in kind, not made by the change: "Lunch order changed today" (or
    今天改了午饭时间) ranks above the other-language gateway-port answer of the same day,
    and for "10月12号…" so do 团建定在下个月 (names October) and a 巡检 line of Sept 12 (its
    "12"). The concept scoring counts gateway/port as rare as they are in either language
    (40 notes), so the one broad word 'change' (改), rare in the store, outweighs both. The
    old code did no better (it missed the answer or ranked the same lines first), but the
    change's own example stops putting the answer first as soon as the day holds any other
    'change' note, which a real day of notes does."""
    said, got = _ask(mem, monkeypatch, query, answer, mode)
    assert got[0] == said


def test_the_day_before_the_launch_finds_the_english_answer_first(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    _background(mem)
    daily_line(mem, "v2 上线了", "2026-09-30", "L1")
    daily_line(mem, "The launch went smoothly, v2 is live", "2026-09-30", "L2")
    daily_line(mem, "上线当天注册用户300个", "2026-09-30", "L3")
    daily_line(mem, "今天修复了上线前的一个问题", "2026-09-29", "E1")
    daily_line(mem, "今天的会议时间改了", "2026-09-29", "E2")
    pre = daily_line(mem, "Rolled back the payment webhook retry change before launch", "2026-09-29", "E3")
    for query in ("What did we roll back the day before the launch?",
                  "上线前一天 payment webhook 怎么了", "What changed the day before the launch?"):
        assert ids(mem.search(query, limit=5, mode="fts"))[0] == pre["id"], query


def test_a_trip_day_answer_with_a_name_stays_first(mem, monkeypatch):
    """Personal memory: the day's Chinese lines say 上海/今天; the question names dumplings."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    _background(mem, BILINGUAL_BACKGROUND + _LIFE)
    for i, text in enumerate(["今天上海下雨了", "上海的地铁很挤", "今天在酒店休息了一下午",
                              "Took the maglev from the airport"]):
        daily_line(mem, text, "2026-10-03", f"d{i}")
    said = daily_line(mem, "Had xiaolongbao at Din Tai Fung with Lily, best dumplings of the trip",
                      "2026-10-03", "ans")
    for mode in ("fts", "hybrid"):
        assert ids(mem.search("Who did I have dumplings with on Oct 3?", limit=5, mode=mode))[0] \
            == said["id"]


def test_a_day_without_the_other_language_keeps_its_fallback(mem, monkeypatch):
    """No glossary word of the question in any line of the day: all the day's records, as before."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    _background(mem, BILINGUAL_BACKGROUND + _LIFE)
    got = [daily_line(mem, t, "2026-10-14", f"y{i}")["id"] for i, t in enumerate(
        ["Went to the climbing gym with Priya", "Finished reading Project Hail Mary", "今天下雨，没出门跑步"])]
    for query in ("What did I do yesterday?", "What did I get up to on Oct 14?"):
        assert set(got) <= set(ids(mem.search(query, limit=5, mode="fts"))), query


@pytest.mark.parametrize("query", [
    '"gateway" port* on Oct 12', "gateway NEAR port on Oct 12", "gateway -port : on Oct 12",
    "NEAR(gateway port) 10月12号", 'gateway: port" on Oct 12 😀🚀', '上周一 网关 "端口" AND OR NOT *',
    "port:8443 on Oct 12", "网关^端口 10月12号", "gateway's port (TLS) on 2026-10-12?",
    "on Oct 12 " + "gateway port change 网关端口 " * 300,
])
@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_fts_syntax_and_odd_input_with_a_named_day(mem, monkeypatch, query, mode):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    _background(mem)
    daily_line(mem, "Gateway port check: still 9090", "2026-09-12", "b")
    said = daily_line(mem, "网关端口从 9090 改成 8443，走 TLS", "2026-10-12", "a")
    if query.startswith("上周一"):  # Oct 5: not that day; only that it does not crash
        mem.search(query, limit=3, mode=mode)
        return
    assert said["id"] in ids(mem.search(query, limit=3, mode=mode))


@pytest.mark.parametrize("query", ['"', "*", "Oct 12", "10月12号", "上周一", "😀 last Monday", "NEAR"])
def test_dates_and_syntax_alone_do_not_crash(mem, monkeypatch, query):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    _background(mem)
    daily_line(mem, "网关端口从 9090 改成 8443，走 TLS", "2026-10-12", "a")
    for mode in ("fts", "hybrid"):
        assert len(mem.search(query, limit=3, mode=mode)) <= 3
