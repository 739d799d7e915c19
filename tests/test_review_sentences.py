"""Review of text._ABBREVIATION / text._SENTENCE: a full stop after an initial or a title
no longer ends a sentence, unless a question or Chinese follows it. Every case here failed on
the first version of the rule, which looked only at the word before the dot (a hostile
review, 2026-11-28); the word after it settles them."""
import time
from datetime import datetime, timezone

import pytest

from memory_core.temporal import parse
from memory_core.text import ASKING_WEIGHT, sentences, weighted_terms

NOW = datetime(2026, 3, 18, 12, tzinfo=timezone.utc)


def _when(query):
    hint = parse(query, NOW)
    return hint.start, hint.end


def _doubled(query):
    return {t for t, w in weighted_terms(query) if w == ASKING_WEIGHT}


# --- abbreviations inside a sentence: one sentence --------------------------------------

@pytest.mark.parametrize("query", [
    "Would Caroline likely have Dr. Seuss books on her bookshelf?",
    "What did C. S. Lewis and J.K. Rowling say?",
    "What did Prof. Chen and Mrs. Li decide last week?",
    "DR. SEUSS books: which ones did we list last week?",
    "What did we say about Redis vs. Memcached last week?",
    "What did we decide last week on the U.S. rollout, e.g. Redis?",
    "What did we change at 3 p.m. yesterday?",
    "上周和 Dr. Wang 讨论的方案是什么？",
    "Ｄｒ． Ｓｅｕｓｓ books, which did we list last week?",
])
def test_titles_initials_and_latin_abbreviations_keep_a_question_whole(query):
    assert sentences(query) == [query]


def test_a_title_in_the_question_after_small_talk_is_doubled_with_the_rest_of_it():
    assert {"li", "index"} <= _doubled("Long day. What did Dr. Li say about the index?")


@pytest.mark.parametrize("query", ["What did we ship on Jan. 5?",
                                   "What did we decide on Sept. 12 about caching?",
                                   "Jan. 5 那次上线出了什么问题？"])
def test_an_abbreviated_month_keeps_its_day_and_the_date_is_read(query):
    assert _when(query) == _when(query.replace(".", "")) != (None, None)


def test_a_company_suffix_does_not_drop_the_question_time_words():
    q = "What did we decide last week with Acme Inc. about the contract?"
    assert sentences(q) == [q]
    assert _when(q) == _when("What did we decide last week?")


def test_a_numero_abbreviation_keeps_the_question_whole():
    q = "What did we decide last week about ticket No. 5 in the tracker?"
    assert sentences(q) == [q]
    assert _when(q) == _when("What did we decide last week?")


def test_approx_keeps_the_question_whole():
    q = "What did we say last week about approx. 30% latency?"
    assert sentences(q) == [q]
    assert _when(q) == _when("What did we say last week?")


@pytest.mark.parametrize("query", ["What did we agree with Foo Ltd. last month about pricing?",
                                   "What did Smith et al. propose for the cache?",
                                   "What did Gen. Patton say?", "Is it Mt. Everest or K2?",
                                   "How did Fig. 3 change last week?"])
def test_other_common_abbreviations_keep_a_question_whole(query):
    assert sentences(query) == [query]


# --- real sentence ends: still split ----------------------------------------------------

@pytest.mark.parametrize("query, first", [
    ("The build broke in CI. What did we change yesterday?", "The build broke in CI."),
    ("No. What did we decide last week?", "No."),
    ("The deploy was at 9 a.m. yesterday. What broke?", "The deploy was at 9 a.m. yesterday."),
    ("Did we ship v2.0. Why not?", "Did we ship v2.0."),
    ("Hello. 上周 Dr. Li 说了什么？", "Hello."),
])
def test_ordinary_sentence_ends_still_split(query, first):
    assert sentences(query)[0] == first and len(sentences(query)) == 2


def test_a_sentence_ending_in_a_single_letter_still_ends():
    assert sentences("I picked plan B. Why?") == ["I picked plan B.", "Why?"]
    q = "Yesterday I picked plan B. Why did we drop plan A last week?"
    assert _when(q) == _when("Why did we drop plan A last week?")


def test_a_sentence_ending_in_etc_still_ends():
    q = "Yesterday we benchmarked Redis, Memcached, etc. Which one did we pick last month?"
    assert len(sentences(q)) == 2
    assert _when(q) == _when("Which one did we pick last month?")


@pytest.mark.parametrize("small_talk, question", [
    ("Yesterday I moved to the U.S.", "What changed for the deploy last week?"),  # an initialism
    ("Yesterday the alert fired at 3 p.m.", "What did we change last week?"),
    ("昨天我们换了 plan B.", "上周为什么放弃了 plan A？"),  # a Latin letter, then Chinese
])
def test_a_sentence_ending_in_an_abbreviation_still_ends_before_a_question(small_talk, question):
    assert _when(f"{small_talk} {question}") == _when(question)


def test_a_sentence_ending_in_the_pronoun_i_still_ends():
    assert {"drop"} <= _doubled("Alice liked it and so did I. Why did we drop it?")


def test_a_sentence_ending_in_a_street_still_ends():
    assert len(sentences("I live on Main St. Where did we put the Redis config?")) == 2


# --- pathological input -----------------------------------------------------------------

@pytest.mark.parametrize("text", ["a. " * 1667, "a." * 2500, "." * 5000, "Dr. " * 1250,
                                  "U.S." * 1250, "a. " + " " * 5000 + "x", "?" * 5000])
def test_five_thousand_characters_of_dots_read_fast(text):
    for read in (sentences, weighted_terms, lambda q: parse(q, NOW)):
        t = time.perf_counter()
        read(text)
        assert time.perf_counter() - t < 1  # a slip into backtracking takes seconds
