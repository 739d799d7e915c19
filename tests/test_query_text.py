"""How queries are cut into FTS5 terms and into words (memory_core.text)."""
from memory_core.text import segment, weighted_terms, words
from queryutil import match_expression, query_terms  # noqa: E402


def test_contraction_pieces_and_per_are_stopwords():
    assert query_terms("What's the current pg pool max per pod?") == [
        "current", "pg", "pool", "max", "pod"]


def test_a_conversation_adds_characters_and_weighs_its_lines_alike():
    talk = '<A>:"我们今天打篮球"\n<B>:"好玩吗"\n<A>:"小乌龟生病了"'
    w = dict(weighted_terms(talk))
    assert w["乌龟"] == 1 and w["篮球"] == 1  # the last line is not the only one that matters
    assert w["龟"] == 1 and w["篮"] == 1  # single characters, for related words
    assert match_expression(talk).count('"乌龟"') == 1


def test_a_one_line_query_has_no_weights_or_characters():
    w = dict(weighted_terms("小乌龟生病了怎么办"))
    assert set(w.values()) == {1} and "龟" not in w


def test_chinese_is_cut_into_dictionary_words():
    assert segment("性能分现在是多少") == ["性能", "分", "现在", "是", "多少"]
    assert segment("密码哈希") == ["密码", "哈希"]  # 哈希 is not listed: loose characters join
    assert words("Lighthouse 性能分现在是多少？") == ["lighthouse", "性能", "分"]
    assert words("JWT_SECRET 没配置会怎样") == ["jwt secret", "配置"]
