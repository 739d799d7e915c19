"""Review of "a word the talk repeats" (text.REPEATED_WEIGHT, commit 3a87204): a word or
bigram two or more of a chat's lines say counts double; not single characters, not the
speakers' names that open the lines, not under a question of the user's own.

Tests that fail on 3a87204 show a defect; the others pin down behaviour worth keeping."""
import random
import time

import pytest

from memory_core import text
from memory_core.text import ASKING_WEIGHT, chat_of, folded, lines, weighted_terms

from storeutil import ids


def w(query: str) -> dict:
    return dict(weighted_terms(query))


# --- what works and should stay so ------------------------------------------------------

def test_an_english_chat_doubles_what_it_repeats_and_not_who_speaks():
    talk = ("Caroline: I went to the LGBTQ support group yesterday\n"
            "Melanie: That support group sounds great\n"
            "Caroline: the group meets weekly")
    got = w(talk)
    assert got["support"] == 2 and got["group"] == 2
    assert got["lgbtq"] == 1 and got["weekly"] == 1
    assert got["caroline"] == 1 and got["melanie"] == 1


@pytest.mark.parametrize("talk", [
    "**Bart**: skate park\n**Lisa**: jazz\n**Bart**: skate more",
    "**Bart:** skate park\n**Lisa:** jazz\n**Bart:** skate more",
    "> Bart: skate park\n> Lisa: jazz\n> Bart: skate more",
    '"Bart: skate park"\n"Lisa: jazz"\n"Bart: skate more"',
    "[22/10/2026, 10:32:01] Bart: skate park\n[22/10/2026, 10:33:01] Lisa: jazz\n"
    "[22/10/2026, 10:34:01] Bart: skate more",
    "10/22/26, 10:32 PM - Bart: skate park\n10/22/26, 10:33 PM - Lisa: jazz\n"
    "10/22/26, 10:34 PM - Bart: skate more",
    "[10:32] Bart: skate park\n[10:33] Lisa: jazz\n[10:34] Bart: skate more",
    "Bart: skate park\n\n\nLisa: jazz\n\nBart: skate more",
])
def test_one_word_speaker_openings_are_stripped_in_every_chat_format(talk):
    got = w(talk)
    assert got["skate"] == 2
    assert got["bart"] == 1 and got["lisa"] == 1 and got["park"] == 1


def test_identifiers_with_dashes_and_slashes_repeated_across_lines_count_double():
    got = w("Bart: src/auth/jwt.ts is broken\nLisa: src/auth/jwt.ts again\n"
            "Bart: and sqlite-vec too\nLisa: sqlite-vec crashed")
    assert got["src auth jwt ts"] == 2 and got["sqlite vec"] == 2


def test_a_question_of_the_users_own_above_or_below_the_chat_keeps_chat_words_at_one():
    chat = "小王：redis 挂了\n小李：redis 重启好了\n"
    below, above = w(chat + "上周的 TTL 是多少？"), w("上周的 TTL 是多少？\n" + chat)
    assert below["redis"] == 1 and below["ttl"] == ASKING_WEIGHT
    assert above["redis"] == 1 and above["ttl"] == ASKING_WEIGHT


def test_stopwords_and_speaker_only_lines_do_not_break_it():
    assert set(w("A: the\nB: the").values()) == {1}
    assert w("Bart:\nLisa:") == {"bart": 1, "lisa": 1}
    assert w("<Bart>:\"\"\n<Lisa>:\"好\"\n<Bart>:\"\"") .get("bart") == 1


def _generated_queries(n=3000, seed=7):
    pieces = ["Bart:", "Lisa:", "小王：", "TODO:", "INFO:", "注意：", "[10:32]", "10:32", "昨天 14:32",
              "> ", "**Bart**:", "Q:", "A:", "From:", "https://x.com/a?b=1", "redis", "魔术", "表演",
              "好", "TTL", "src/a.ts", "JWT_SECRET", "是多少？", "why?", "the", "deploy", "。", "！",
              "\n", "\n", "\n", "Bart Simpson:", "小王 10:32", "请问：", "我想问：", "deploy deploy"]
    rnd = random.Random(seed)
    return [" ".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 14))) for _ in range(n)]


def test_queries_that_are_no_chat_read_exactly_as_before(monkeypatch):
    """With REPEATED_WEIGHT = 1 the weights are as before the change (a chat line's opening
    is now read apart from what it says, which no query here tells apart); anything not a
    chat is unchanged, order included, and in a chat only weights 1 -> 2 move."""
    queries = _generated_queries() + [
        "魔术道具\n魔术表演", "deploy failed\ndeploy again\nwhy?", "TODO: redis\nTODO: redis",
        "INFO: redis up\nINFO: redis down", "Redis 的 TTL 是多少？为什么改？", "配置如下：\nredis: 1\nredis: 2"]
    now = [weighted_terms(q) for q in queries]
    monkeypatch.setattr(text, "REPEATED_WEIGHT", 1)
    before = [weighted_terms(q) for q in queries]
    for q, a, b in zip(queries, before, now):
        if a == b:
            continue
        assert chat_of(lines(folded(q)) or [q]).talk, q
        assert [t for t, _ in a] == [t for t, _ in b], q
        assert all(x == y or (x, y) == (1, 2) for (_, x), (_, y) in zip(a, b)), q


def test_a_chat_of_thousands_of_lines_stays_fast():
    rnd = random.Random(1)
    vocab = "魔术 晚会 表演 礼堂 周五 紧张 道具 redis deploy src/auth/jwt.ts MAX_RETRIES".split()
    talk = "\n".join(f'<{"Bart" if i % 2 else "Assistant"}>:"' + " ".join(rnd.choice(vocab) for _ in range(12))
                     + '"' for i in range(5000))
    start = time.perf_counter()
    got = w(talk)
    assert time.perf_counter() - start < 5
    assert got["魔术"] == 2 and got["bart"] == 1


def test_search_a_repeated_english_word_outweighs_words_said_once(mem):
    pottery = mem.save_fact("Caroline signed up for a pottery workshop")
    passing = mem.save_fact("Melanie went camping at the lake with the kids last weekend")
    mem.save_fact("Lunch is at noon")
    talk = ("Caroline: I started pottery classes\nMelanie: pottery sounds relaxing!\n"
            "Caroline: pottery and a camping trip to the lake are my plans")
    assert ids(mem.search(talk, mode="fts", limit=3))[:2] == [pottery["id"], passing["id"]]


# --- defects ---------------------------------------------------------------------------

def test_full_name_speakers_are_not_counted_double():
    """chat_of reads "Bart Simpson:" as a speaker (_FULL_NAME), but _unspoken strips only what
    said_by reads (one word before the colon): the names count double."""
    for talk in ("[10:32 AM] Bart Simpson: I want to skate today\n[10:33 AM] Lisa Simpson: nice\n"
                 "[10:34 AM] Bart Simpson: lets go",
                 "Bart: hi\nLisa: hello\nHomer Simpson: the donut\nMarge Simpson: the donut again"):
        got = w(talk)
        assert got["simpson"] == 1, talk
        assert got.get("bart", 1) == 1


@pytest.mark.parametrize("mark", ["", "**"])
def test_search_full_name_speakers_do_not_pull_up_memories_about_the_family(mem, mark):
    """The same chat with one-word names finds the skate ramp and not Homer; with full names
    (plain, or in bold, "**Bart Simpson:**", as chat_of reads them through the emphasis: the
    second review) the doubled "simpson" puts Homer's nap above the skate ramp."""
    ramp = mem.save_fact("Springfield opened a skate ramp")
    homer = mem.save_fact("Homer Simpson naps at the plant")
    for note in ("Lunch is at noon", "Standup is at ten", "The API uses REST", "Tickets go to Jira"):
        mem.save_fact(note)
    talk = (f"[10:32 AM] {mark}Bart Simpson:{mark} I want to skate today\n"
            f"[10:33 AM] {mark}Lisa Simpson:{mark} nice\n[10:34 AM] {mark}Bart Simpson:{mark} lets go")
    found = ids(mem.search(talk, mode="fts", limit=5))
    assert ramp["id"] in found
    assert homer["id"] not in found or found.index(ramp["id"]) < found.index(homer["id"])


@pytest.mark.parametrize("talk, apparatus", [
    ("小王 10:32\n部署失败了\n小李 10:33\n我看看日志\n小王 10:35\n好了，重启就行", "小王"),
    ("Bart — Today at 10:32 AM\nskate park\nLisa — Today at 10:33 AM\njazz\n"
     "Bart — Today at 10:35 AM\nskate more", "bart"),
    ("Bart — Today at 10:32 AM\nskate park\nLisa — Today at 10:33 AM\njazz\n"
     "Bart — Today at 10:35 AM\nskate more", "today"),
    ("Bart, [22.10.26 10:32]\nskate park\nLisa, [22.10.26 10:33]\njazz\n"
     "Bart, [22.10.26 10:35]\nskate more", "bart"),
    ("Bart, [22.10.26 10:32]\nskate park\nLisa, [22.10.26 10:33]\njazz\n"
     "Bart, [22.10.26 10:35]\nskate more", "22 10 26"),
    ("小王 2026-10-22 10:32:01\n部署失败了\n小李 2026-10-22 10:33:01\n我看看日志", "2026 10 22"),
    ("小王 10:32\n部署失败了\n小李 10:32\n我看看日志", "10 32"),
    ("昨天 14:32\n小王：部署失败了\n小李：我看看\n昨天 15:10\n小王：好了", "昨天"),
])
def test_a_chat_apps_speaker_and_time_lines_are_not_what_the_talk_repeats(talk, apparatus):
    """A chat app's "小王 10:32" / "Bart — Today at 10:32 AM" line and its time header are the
    app's, like "<Bart>:": who spoke and when, not what about. _unspoken leaves them whole."""
    got = w(talk)
    assert got[apparatus] == 1


def test_snake_case_identifiers_repeated_across_lines_count_double():
    """_unspoken returns _opening's text, which dropped "_" and "*" from the first 40
    characters: JWT_SECRET is counted as "jwtsecret", never matches the phrase "jwt secret",
    and is not doubled (sqlite-vec and src/auth/jwt.ts are; so is JWT_SECRET past column 40)."""
    assert w("Bart: JWT_SECRET leaked\nLisa: rotate JWT_SECRET now")["jwt secret"] == 2
    assert w("小王：MAX_RETRIES 改成 5\n小李：MAX_RETRIES 不要改")["max retries"] == 2
    assert w("Bart: the auth_token expired\nLisa: auth_token refresh fails")["auth token"] == 2


def test_a_single_character_the_lines_say_is_not_counted_double():
    """"Not single characters": a one-character run ("好！", "好，") is one all the same."""
    got = w("A：好！周五见\nB：好，周五见")
    assert got["周五"] == 2
    assert got["好"] == 1


@pytest.mark.parametrize("own", ["帮我查一下 TTL", "TTL 是多少", "tell me the TTL"])
def test_the_users_own_request_without_a_question_mark_still_leads(own):
    """The user's own line under a chat is what they ask even without "？" (a request,
    a question typed without its mark): the chat's words should not outweigh it."""
    got = w("小王：redis 挂了\n小李：redis 重启好了\n" + own)
    assert got["redis"] <= got["ttl"]


def test_search_a_request_under_a_chat_finds_what_it_asks_first(mem):
    """Before the change the puppy came first; now the chat's repeated "pottery" does, though
    the user asked about the puppy (with "?" at the end it still comes first)."""
    puppy = mem.save_fact("Melanie adopted a puppy named Oscar")
    mem.save_fact("Caroline bought a pottery wheel")
    for note in ("Lunch is at noon", "Standup is at ten"):
        mem.save_fact(note)
    talk = "Caroline: the pottery class was fun\nMelanie: pottery is relaxing\n"
    assert ids(mem.search(talk + "Tell me the name of the puppy?", mode="fts"))[0] == puppy["id"]
    assert ids(mem.search(talk + "Tell me the name of the puppy", mode="fts"))[0] == puppy["id"]


def test_a_speakers_name_said_to_them_is_still_who_not_what():
    """Melanie opens a line, so her name is who speaks; Caroline addressing her twice makes
    it count double all the same."""
    got = w("Caroline: Melanie, I went to a support group\nMelanie: Caroline, that is great\n"
            "Caroline: Melanie, thanks")
    assert got["melanie"] == 1 and got["caroline"] == 1


@pytest.mark.xfail(strict=True, reason="older than the repeat rule: folded, 'Tom：redis' is "
                   "'tom:redis', which reads as the identifier 'localhost:8080' does; cutting a "
                   "line at its speaker's colon fixed this and split host:port names (the "
                   "second review), so a line is read whole again. Needs the colon as typed.")
def test_an_english_name_before_a_full_width_colon_does_not_swallow_the_repeated_word():
    """"Tom：redis" folds to "tom:redis", read as one identifier ("tom redis"), so "redis",
    which both lines say, is neither a term of its own nor doubled."""
    got = w("Tom：redis 挂了\nJerry：redis 重启了")
    assert got.get("redis") == 2
