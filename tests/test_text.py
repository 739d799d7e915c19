"""Tokenizing Chinese, English and identifiers for FTS5; counting tokens."""
import sqlite3

import pytest

from memory_core.text import count_tokens, index_terms
from queryutil import match_expression, query_terms  # noqa: E402


def test_chinese_runs_become_bigrams_then_single_characters():
    assert index_terms("会话缓存") == "会话 话缓 缓存 会 话 缓 存"


def test_ascii_glued_to_chinese_is_split_out():
    terms = index_terms("使用sqlite-vec做索引").split()
    assert "sqlite" in terms and "vec" in terms and "索引" in terms


def test_identifiers_are_one_phrase_in_queries():
    assert query_terms("JWT_SECRET") == ["jwt secret"]
    assert query_terms("src/auth/jwt.ts") == ["src auth jwt ts"]
    assert query_terms("sqlite-vec 缓存") == ["sqlite vec", "缓存"]


def test_stopwords_are_dropped_unless_nothing_else_is_left():
    assert query_terms("what is the cache") == ["cache"]
    assert query_terms("the") == ["the"]
    assert "的" not in query_terms("项目的数据库")


HOSTILE = ['"', '""', "'", "-", "--x", ":", "a:b", "*", "**", "(", ")", "((a)", "AND", "OR",
           "NOT", "NEAR", "NEAR(a b)", "a AND", "OR b", "^", "{", "}", "{content}: x", "🙂",
           "\x00", "\\", "列表。，！", "   ", "", "col:val AND -x*", "NOT NOT NOT"]


@pytest.mark.parametrize("query", HOSTILE)
def test_no_query_string_breaks_fts5(query):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(content, entities)")
    db.execute("INSERT INTO f VALUES (?, ?)", (index_terms("some text 一些文字"), ""))
    expr = match_expression(query)
    if expr:
        db.execute("SELECT * FROM f WHERE f MATCH ?", (expr,)).fetchall()


def test_chinese_token_estimate_is_not_characters_over_four():
    text = "决定使用 Redis 作为会话缓存，缓存失效时间为二十四小时。" * 10
    assert count_tokens(text) >= len(text) * 0.8


def test_token_estimate_is_close_to_the_real_tokenizer():
    from tokenizers import Tokenizer
    from offline_model import HERE
    tok = Tokenizer.from_file(str(HERE / "tokenizer.json"))
    tok.no_padding()
    text = ("The API listens on port 3000 and uses Express with TypeScript; sessions are "
            "cached in Redis with a TTL of 21600 seconds, and migrations run with Drizzle.")
    mixed = "pnpm db:generate && pnpm db:migrate  # Drizzle 生成并执行迁移，决定使用 Redis 作为会话缓存"
    for t in (text, mixed):
        real = len(tok.encode(t, add_special_tokens=False).ids)
        assert 0.75 * real <= count_tokens(t) <= 1.25 * real



@pytest.mark.parametrize("query, asks_why", [
    ("Why did we move the database to RDS?", True),
    ("and why not Kafka", True),
    ("What actually caused the OOM?", True),
    ("为什么结算消息不用 Redis Streams 了", True),
    ("这个为啥报错", True),
    ("為什麼要改", True),
    ("how do I configure why-did-you-render?", False),  # a package
    ("the five whys of the outage", False),
    ("Where did we move the database?", False),
    ("原因是什么", False),  # looks for the reason word already
    ("Why did we move to RDS, what was the reason?", False),
    ("what does src/why.ts export?", False),  # a file
    ("How come the build is slow?", True),
    ("干嘛要重启", True),
    ("Ｗｈｙ is it slow？", True),  # typed full-width
    ("", False),
])
def test_a_question_that_asks_why_also_looks_for_the_word_for_a_reason(query, asks_why):
    from memory_core.text import REASON_WORD, with_reason
    assert (with_reason(query) != query) is asks_why
    if asks_why:
        assert with_reason(query).endswith(REASON_WORD)
