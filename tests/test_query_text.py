"""How queries are cut into FTS5 terms and into words (memory_core.text)."""
import pytest

from memory_core.text import ASKING_WEIGHT, chat_of, segment, weighted_terms, words
from queryutil import match_expression, query_terms  # noqa: E402


def conversation(lines: list[str]) -> bool:
    """A query that is a chat and nothing else: read with its lines alike and no time."""
    chat = chat_of(lines)
    return chat.talk and len(chat.lines) == len(lines)


def test_contraction_pieces_and_per_are_stopwords():
    assert query_terms("What's the current pg pool max per pod?") == [
        "current", "pg", "pool", "max", "pod"]


def test_a_conversation_adds_characters_and_weighs_its_lines_alike():
    talk = '<A>:"我们今天打篮球"\n<B>:"好玩吗"\n<A>:"小乌龟生病了"'
    w = dict(weighted_terms(talk))
    assert w["乌龟"] == 1 and w["篮球"] == 1  # the last line is not the only one that matters
    assert w["龟"] == 1 and w["篮"] == 1  # single characters, for related words
    assert match_expression(talk).count('"乌龟"') == 1


def test_a_word_two_lines_of_a_chat_say_counts_double():
    """What the talk is about is what it says again (BM25's query term frequency, capped);
    a word said once, a single character and the name that opens every line are not."""
    talk = ('<Bart>:"元旦晚会我要表演魔术！"\n<Assistant>:"魔术？太棒了，观众一定喜欢"\n'
            '<Bart>:"我有点紧张，魔术道具还没买齐"')
    w = dict(weighted_terms(talk))
    assert w["魔术"] == 2
    assert w["晚会"] == 1 and w["紧张"] == 1  # said once
    assert w["bart"] == 1  # opens two lines: who speaks, not what about
    assert w["魔"] == 1  # a single character repeats by chance
    assert match_expression(talk).count('"魔术"') == 2
    # a prompt of several lines that no speakers say is no chat: its words count once
    assert dict(weighted_terms("魔术道具\n魔术表演"))["魔术"] == 1
    # under a pasted chat, the user's own question leads; the chat's words count once
    asked = dict(weighted_terms('小王：redis 挂了\n小李：redis 重启好了\n上周的 TTL 是多少？'))
    assert asked["redis"] == 1 and asked["ttl"] == ASKING_WEIGHT


def test_a_word_one_message_says_on_two_of_its_lines_counts_once():
    """A turn is a speaker's message, its lines together: the talk repeats a word when two
    turns say it, not when one message runs over two lines."""
    assert dict(weighted_terms("小王：redis 挂了\nredis 日志在这\n小李：好的"))["redis"] == 1
    assert dict(weighted_terms("小王：redis 挂了\n小李：redis 重启一下"))["redis"] == 2


@pytest.mark.parametrize("line", ["Thursday " * 200, "yesterday " * 200, "daydayday" * 100,
                                  "t" * 300 + " 10:32x"])
def test_a_line_of_day_words_above_a_chat_is_read_in_one_pass(line):
    """A chat's time header ("[Tuesday 10:32 AM]", "2026-10-22T10:32") is looked for above
    its first speaker: a day word matched two ways ("thursday" as itself and as "t" of an
    ISO stamp + "hursday") made a line of them take longer with every word (200: minutes).
    A blow-up guard, not a timing."""
    import time
    weighted_terms("warm up\nBart: hi\nLisa: yo")
    start = time.perf_counter()
    weighted_terms(line + "\nBart: hi\nLisa: yo")
    assert time.perf_counter() - start < 2


def test_a_prompt_of_several_lines_without_speakers_is_sentences_not_a_conversation():
    w = dict(weighted_terms("部署脚本报错了\n怎么回滚到上一个版本？"))
    assert "报" not in w and "滚" not in w  # no single characters
    assert w["回滚"] == ASKING_WEIGHT and w["部署"] == 1  # the line that asks leads


@pytest.mark.parametrize("question", [
    "Would Caroline likely have Dr. Seuss books on her bookshelf?",
    "Would Tim enjoy reading books by C. S. Lewis or John Greene?",
    "What J.K. Rowling quote does Tim resonate with?",
    "Has Mr. Li been to the U.S. before this trip?",
    "Which cache did we pick, e.g. Redis or Memcached?",
])
def test_an_initial_or_a_title_ends_no_sentence(question):
    """"Dr. Seuss" is one sentence that asks, not "Would Caroline likely have Dr." and a
    sentence that asks after it, whose words would count double."""
    assert set(dict(weighted_terms(question)).values()) == {1}


def test_a_full_stop_after_a_word_still_ends_a_sentence():
    w = dict(weighted_terms("The build broke again today. What did we decide about the cache?"))
    assert w["cache"] == ASKING_WEIGHT and w["build"] == 1


@pytest.mark.parametrize("lines", [
    ['<Bart>:"今天打篮球了"', '<Assistant>:"赢了吗？"'],
    ["Caroline: I went to the support group", "Melanie: How was it?"],
    ["用户：帮我看看这个报错", "助手：好的"],
    ["  [小雨]：我好紧张", "[Assistant]: 别怕"],
    ["[10:32] 小明: 我下午去踢球了", "[10:33] 助手: 好玩吗"],
    ["> 小明：我下午去踢球了", "> 助手：好玩吗"],
    ["[10:32 AM] Bart: did we deploy?", "[10:33 AM] Lisa: yes"],
    ["**Bart**: did we deploy?", "**Lisa**: yes"],
    ["Q: 上周的 TTL 是多少？", "A: 86400"],  # a Q&A pasted
    ["zhang.san：上周的 TTL 是多少？", "li.si：86400"],
    ["小王 10:32", "今天打篮球了", "小李 10:33", "赢了，好开心"],  # speaker and time above the message
    ["Bart Simpson  10:32 AM", "did we deploy?", "Lisa — Today at 10:33 AM", "yes"],
    ["[22/10/2026, 10:32:01] Bart: did we deploy?", "[22/10/2026, 10:33:05] Lisa: yes"],  # WhatsApp
    ["10/22/26, 10:32 PM - Bart: did we deploy?", "10/22/26, 10:33 PM - Lisa: yes"],  # its Android export
    ["\u200e[22/10/2026, 10:32:01] Bart: \u200eimage omitted", "[22/10/2026, 10:32:40] Lisa: nice"],
    ["[10/22/2026 10:32 AM] Bart Simpson: did we deploy?", "[10/22/2026 10:33 AM] Lisa: yes"],  # Teams
    ["小王 10月22日 10:32", "今天打篮球了", "小李 10月22日 10:33", "赢了"],  # Feishu
    ["Bart, [22.10.26 10:32]", "did we deploy?", "Lisa, [22.10.26 10:33]", "yes"],  # Telegram
    ["Bart — 10/22/2026 10:32 AM", "did we deploy?", "Lisa — 10/22/2026 10:33 AM", "yes"],  # Discord
])
def test_lines_that_start_with_a_speakers_tag_are_a_conversation(lines):
    assert conversation(lines)


@pytest.mark.parametrize("lines", [
    ["部署脚本报错了", "怎么回滚到上一个版本？"],
    ["https://example.com/a", "https://example.com/b"],
    ["TODO: 修复登录", "注意：周五不发版"],
    ["10:30 开会", "11:00 上线"],
    ["Caroline: one speaker tag", "is not a conversation"],
    ["环境：prod", "版本：v2.3", "上周 Redis TTL 改成多少了？"],  # values above a question
    ["小明：明天开会吗？", "小红：开", "他们定的是几点？"],  # a question about a chat
    ["帮我看看这段对话", "小明：明天开会吗？", "小红：开"],
    ["INFO: server started", "[WRN]: connecting to redis", "hint: use --force"],  # a log
    ["app.py:12:1: F401 'os' imported but unused", "java.lang.NullPointerException: x"],
    ["**问题**：上周上线后登录变慢", "**注意**：prod"],  # labels in bold
    ["上周部署时的配置是什么？配置如下：", "Q: 为什么？"],  # a sentence, the user's own label
    ["2026-10-22T10:00:01Z redis reconnect", "2026-10-22T10:00:02Z ttl reload"],
    ["2026-10-22 10:32:01 worker: job failed", "2026-10-22 10:32:02 worker: retry"],  # a log
    # a seventh review: logs, a calendar and an agenda stamped like chat exports
    ["[2026-10-22 10:32:01] production.INFO: ttl set", "[2026-10-22 10:32:02] production.INFO: reload"],
    ["2026-10-22 10:32:01 - celery.worker: Task failed", "2026-10-23 09:00:00 - celery.worker: ok"],
    ["10/22/2026 10:00 AM - Standup: 15 min", "10/22/2026 2:00 PM - Retro: 1h"],
    ["09:30 Daily Standup: Zoom", "14:00 Design Review: room 5"],
    ["[10/22/2026 10:32:01 AM] Unhandled Exception: Timeout", "[10/23/2026 9:12 AM] Build Failed: 137"],
])
def test_other_lines_are_not_a_conversation(lines):
    assert not conversation(lines)


def test_a_question_under_pasted_values_leads_and_matches_no_single_character():
    w = dict(weighted_terms("环境：prod\n版本：v2.3\n部署后缓存命中率为什么下降了？"))
    assert w["命中"] == ASKING_WEIGHT and w["prod"] == 1
    assert "缓" not in w


def test_a_chats_questions_are_the_speakers_and_do_not_lead():
    w = dict(weighted_terms("小王：上周 Redis 缓存过期时间是多少？\n小李：86400 吧\n帮我回复小王，顺便问下部署时间？"))
    assert w["redis"] == 1 and w["过期"] == 1 and w["上周"] == 1  # the chat's question
    assert w["部署"] == ASKING_WEIGHT  # the user's own
    assert w["缓"] == 1  # a chat's line matches single characters; the user's do not
    assert "署" not in w


def test_a_question_under_lines_of_times_is_the_users_not_a_chat_message():
    """Two lines of a few words and a clock time read as a chat app's speaker lines; the
    line after the last is its message only when the user has a line after it."""
    for prompt in ("部署 10:32\n回滚 10:45\n昨天线上为什么回滚了？",
                   "部署 10:32\n回滚 10:45\n昨天线上为什么回滚了？\n日志如下",  # a line after it
                   "环境：prod\n昨天线上为什么回滚了？\n部署 10:32\n回滚 10:45",
                   "部署 10:32\n昨天线上为什么回滚了？\n回滚 10:45",  # between two times
                   "部署 10:32\n成功\n回滚 10:45\n昨天线上为什么回滚了？"):  # a note under each
        assert dict(weighted_terms(prompt))["线上"] == ASKING_WEIGHT, prompt
    talk = dict(weighted_terms("小王 10:32\n线上怎么了？\n小李 10:45\n回滚了\n帮我查一下原因"))
    assert talk["线上"] == 1 and talk["原因"] == 1  # the chat's question; the user's asks nothing


def test_a_one_line_query_has_no_weights_or_characters():
    w = dict(weighted_terms("小乌龟生病了怎么办"))
    assert set(w.values()) == {1} and "龟" not in w


def test_chinese_is_cut_into_dictionary_words():
    assert segment("性能分现在是多少") == ["性能", "分", "现在", "是", "多少"]
    assert segment("密码哈希") == ["密码", "哈希"]  # 哈希 is not listed: loose characters join
    assert words("Lighthouse 性能分现在是多少？") == ["lighthouse", "性能", "分"]
    assert words("JWT_SECRET 没配置会怎样") == ["jwt secret", "配置"]


@pytest.mark.parametrize("query, kept", [
    ("give me the whole team list with who does what", ["whole", "team", "list"]),
    ("tell me about the release rules", ["release", "rules"]),
    ("Could you show me the deploy steps, please?", ["deploy", "steps"]),
    ("remind me what we decided about Redis", ["decided", "redis"]),
    ("告诉我这个项目有哪些坑", ["个项", "项目", "目有", "有哪", "些坑"]),
])
def test_how_a_question_is_put_to_the_agent_is_no_keyword(query, kept):
    """"give me the whole team list" found "give schedule times in Beijing time" first."""
    assert [t for t, _ in weighted_terms(query)] == kept


@pytest.mark.parametrize("query, kept", [
    ("give me", ["give"]),  # nothing else: the words themselves are searched
    ("the team gave me a laptop", ["team", "gave", "laptop"]),
    ("show metrics for the lobby", ["show", "metrics", "lobby"]),
])
def test_the_same_words_elsewhere_are_still_keywords(query, kept):
    assert [t for t, _ in weighted_terms(query)] == kept


@pytest.mark.parametrize("query, parts", [
    ("give me the rundown of the very first hardware/agent session", ["hardware", "agent"]),
    ("does renovate group minor/patch bumps?", ["minor", "patch"]),
    ("What musical artists/bands has Melanie seen?", ["artists", "bands"]),
])
def test_two_words_with_a_slash_between_are_two_words(query, parts):
    """"hardware/agent" says either or both: as the phrase "hardware agent" it missed "Truck
    hardware and the on-board agent"."""
    terms = [t for t, _ in weighted_terms(query)]
    assert all(p in terms for p in parts) and " ".join(parts) not in terms
    assert all(p in words(query) for p in parts)


@pytest.mark.parametrize("query, name", [
    ("src/auth/jwt.ts 里怎么验签", "src auth jwt ts"),
    ("/ws/positions 是按什么分频道的", "ws positions"),
    ("deploy/env/<env>/values.yaml 是干嘛的", "deploy env"),
    ("what changed in api/v1", "api v1"),
    ("封测 go/no-go 会上说了啥", "go no go"),
])
def test_a_path_or_a_name_with_a_slash_stays_one_phrase(query, name):
    assert name in [t for t, _ in weighted_terms(query)]
