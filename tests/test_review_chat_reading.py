"""Second review of reading a chat in a query (text._spoken, text.weighted_terms): each chat
line is cut into its opening (who speaks, and when) and what it says, tokenized apart; a
word two or more turns say counts double (text.REPEATED_WEIGHT).

Tests that fail show a defect; the others pin down behaviour worth keeping.
tests/test_review_repeated_words.py holds the first review's tests."""
import random
import time

import pytest

from memory_core.text import weighted_terms

from storeutil import ids


def w(query: str) -> dict:
    return dict(weighted_terms(query))


# --- what works and should stay so ------------------------------------------------------

@pytest.mark.parametrize("talk, phrases", [
    ("Bart: meet at 10:32 tomorrow\nLisa: ok", {"10 32", "meet", "tomorrow"}),
    ("Bart: see https://x.com/a?b=1 now\nLisa: ok", {"https", "x com a", "b"}),
    ("小王：配置: redis: 1\n小李：好", {"配置", "redis", "1"}),
    ("**Bart:** `redis:6379` refused\nLisa: ok", {"redis 6379", "refused"}),
    ("Bart: 🚀 deploy 😀\nLisa: ok 👍", {"deploy", "ok"}),
    ('<Bart>:"redis: 1"\n<Lisa>:"ok"', {"redis", "1"}),
    ("Q: what port?\nA: redis:6379", {"redis 6379", "port"}),
])
def test_what_a_speaker_says_after_the_opening_is_read_as_before(talk, phrases):
    """Times, links, colons, code and emoji after "Bart:" keep the reading they had when
    the whole line was tokenized at once."""
    assert phrases <= set(w(talk))


def test_windows_line_endings_read_as_newlines():
    talk = "Bart: redis is down\nLisa: restart redis\nBart: ok"
    assert weighted_terms(talk.replace("\n", "\r\n")) == weighted_terms(talk)
    assert w(talk)["redis"] == 2


def test_a_chat_apps_message_over_two_lines_is_one_turn():
    assert w("小王 10:32\n部署 redis\nredis 日志\n小李 10:50\n好")["redis"] == 1
    assert w("小王 10:32\n部署 redis\n小李 10:50\nredis 好了")["redis"] == 2


def test_random_mixes_never_raise_and_stay_fast():
    pieces = ["Bart:", "小王：", "Tom：", "INFO:", "[10:32]", "10:32", "昨天 14:32", "> ", "**Bart:**",
              "**Bart Simpson:**", "Q:", "A:", "From:", "https://x.com/a?b=1", "localhost:8080", "redis",
              "魔术", "`code:x`", "😀", "\n", "\n", "\r\n", "小王 10:32", "yesterday", "*", "_", "：",
              "[22/10/2026, 10:32:01]", "Bart — Today at 10:32 AM", "\u200e", "是多少？"]
    rnd = random.Random(3)
    start = time.perf_counter()
    for _ in range(3000):
        weighted_terms(" ".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 16))))
    assert time.perf_counter() - start < 10


# --- defects: the opening cut off an identifier -------------------------------------------

@pytest.mark.parametrize("line, phrase", [
    ("localhost:8080 refused", "localhost 8080"),
    ("`redis:6379` refused", "redis 6379"),
    ("env:prod is broken", "env prod"),
    ("app.py:12: KeyError", "app py 12"),
    ("mailto:ops@example.com bounced", "mailto ops example com"),
    ("2026-10-22T10:31:00 redis timeout", "2026 10 22t10 31 00"),
])
def test_an_identifier_that_opens_a_message_line_stays_one_phrase(line, phrase):
    """_spoken cuts at the first colon of any chat line said_by reads as a speaker's, and
    said_by reads "localhost" in localhost:8080 as one: the name is searched as two loose
    words, as it was not when the whole line was tokenized (the same name on the speaker's
    own line, "Lisa: localhost:8080 refused", stays one phrase)."""
    got = w(f"Bart: what is down?\n{line}\nLisa: restart it")
    assert phrase in got


def test_two_lines_of_host_and_port_keep_their_names():
    """Two such lines are a chat to chat_of (speakers "localhost", "redis"): read apart,
    the query loses both names, and "refused" counts double as a word the talk repeats."""
    got = w("localhost:8080 refused\nredis:6379 refused")
    assert "localhost 8080" in got and "redis 6379" in got


def test_search_host_and_port_lines_find_the_record_that_names_them(mem):
    """Before the change the record naming localhost:8080 came first; now one that only
    shares "8080" and the doubled "refused" does."""
    admin = mem.save_fact("The admin UI on localhost:8080 needs a VPN")
    mem.save_fact("Port 8080 connections were refused by the firewall")
    mem.save_fact("Grafana runs on localhost:3000")
    mem.save_fact("Lunch is at noon")
    assert ids(mem.search("localhost:8080 refused\nredis:6379 refused", mode="fts"))[0] == admin["id"]


# --- defects: full names in bold ----------------------------------------------------------

def test_bold_full_name_speakers_are_who_speaks():
    """chat_of reads "**Bart Simpson:**" through its emphasis; _spoken tries _full_name on
    the raw "**Bart Simpson:** …", which fails: the names are what the talk says, doubled."""
    got = w("[10:32 AM] **Bart Simpson:** I want to skate today\n[10:33 AM] **Lisa Simpson:** nice\n"
            "[10:34 AM] **Bart Simpson:** skate with me")
    assert got["skate"] == 2
    assert got["bart"] == 1 and got["simpson"] == 1


def test_bold_full_name_speakers_each_open_a_turn():
    """Not cut, "**Marge Simpson:**" opens no turn: Homer's and Marge's lines are one turn
    with Lisa's, and the donut both say is not doubled."""
    got = w("Bart: hi\nLisa: yo\n**Homer Simpson:** the donut\n**Marge Simpson:** the donut again")
    assert got["donut"] == 2


# --- defects: turns --------------------------------------------------------------------

@pytest.mark.parametrize("log", [
    "10:31 redis timeout\n10:32 redis restarted",
    "[10:31] redis timeout\n[10:32] redis restarted",
    "INFO: redis timeout\nWARN: redis restarted",
    "hint: redis timeout\nhint: redis restarted",
    "2026-10-22T10:31:00 redis timeout\n2026-10-22T10:32:00 redis restarted",
])
def test_a_log_pasted_in_one_message_is_one_turn(log):
    """A line with a speaker opening starts a turn, others continue it. A log line's time
    or level is no speaker (chat_of: _NOT_SPEAKERS, _DATED, a time without a name), yet any
    colon in the opening starts a turn: one message that pastes a log "repeats" its words."""
    assert w(f"Bart: the deploy log\n{log}\nLisa: ok")["redis"] == 1
    assert w("Bart: the deploy log\nredis timeout\nredis restarted\nLisa: ok")["redis"] == 1


def test_search_a_pasted_log_does_not_outweigh_what_the_talk_repeats(mem):
    """The talk is about the deploy (three turns); redis is in the log Bart pastes. With
    plain log lines the deploy record comes first; with time-stamped ones, Redis does."""
    deploy = mem.save_fact("The deploy pipeline takes ten minutes")
    mem.save_fact("Redis is the session cache")
    mem.save_fact("Lunch is at noon")
    talk = ("Bart: the deploy log\n10:31 redis timeout\n10:32 redis restarted\n"
            "Lisa: the deploy is done?\nBart: deploy done")
    assert ids(mem.search(talk, mode="fts"))[0] == deploy["id"]


def test_a_message_line_ending_in_a_time_does_not_hide_a_word_the_talk_repeats():
    """"the class starts 18:30" under Caroline's line matches _SPEAKER_ABOVE (a chat app's
    "Bart Simpson 10:32"): its words go to `who`, and "class", which three turns say, is
    never doubled; "发布时间 21:00" does the same to 发布."""
    got = w("Caroline: the pottery class is on Friday\nthe class starts 18:30\n"
            "Melanie: the class sounds fun\nCaroline: the class is small")
    assert got["class"] == 2
    assert w("小王：上线计划\n发布时间 21:00\n小李：发布前先备份\n小王：好，发布后通知")["发布"] == 2


def test_a_message_line_ending_in_a_time_does_not_start_a_turn():
    """The same line also starts a turn: a word one message says above and below it
    counts double."""
    assert w("Caroline: pottery class today\nstarts at 18:30\npottery is fun\nMelanie: nice")["pottery"] == 1


def test_a_chat_apps_message_opening_with_a_word_and_colon_is_what_the_speaker_says():
    """In a chat app's layout the speaker is the line above ("小李 10:33"); chat_of reads
    "redis: 重启好了" as no speaker, but _spoken puts "redis" in `who`, so what both
    messages say is never doubled."""
    assert w("小王 10:32\nredis 挂了\n小李 10:33\nredis: 重启好了")["redis"] == 2


# --- defects: time ---------------------------------------------------------------------

def test_a_chat_line_of_repeated_day_words_stays_fast():
    """_TIME_HEADER, once tried only on the line above a chat, now runs on every chat line;
    "yesterday" matches two of its alternatives (yesterday, [a-z]{3,6}day), so a line of
    them backtracks exponentially: 22 take seconds, each more doubles it."""
    talk = "Bart: hi\n" + "yesterday " * 22 + "x\nLisa: yo"
    start = time.perf_counter()
    weighted_terms(talk)
    assert time.perf_counter() - start < 0.5
