"""Property-based tests: the JSONL writer/reader round trip, the CJK/ASCII tokenizer and the
query parser hold for any input hypothesis can think of."""
import re
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memory_core import Memory, jsonl, sanitize
from memory_core.text import index_terms
from queryutil import match_expression, query_terms  # noqa: E402

# any text: CJK, ASCII punctuation, emoji, combining marks, control characters (no lone
# surrogates: they are not valid in UTF-8 files)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=200)
MIXED = st.text(st.sampled_from(list("缓存会话决定使用数据库迁移锁 abcRedisJWT_-/.:0123456789\"'()*^{}")),
                max_size=60)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=12)
RECORDS = st.lists(st.dictionaries(TEXT, JSON, max_size=6), min_size=1, max_size=8)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(RECORDS)
def test_jsonl_round_trip(records):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.jsonl"
        for r in records:
            jsonl.append(path, r)
        batch = jsonl.read(path)
    assert not batch.skipped
    assert [r for r in batch.records] == records


def _fts():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(content, entities, "
               "tokenize='porter unicode61 remove_diacritics 2')")
    return db


@settings(max_examples=300)
@given(TEXT | MIXED)
def test_any_query_gives_an_expression_fts5_accepts(query):
    query_terms(query)
    expr = match_expression(query)
    if expr:
        _fts().execute("SELECT * FROM f WHERE f MATCH ?", (expr,)).fetchall()


@settings(max_examples=300)
@given(TEXT | MIXED)
def test_a_text_is_always_found_by_searching_for_itself(text):
    terms = index_terms(text)
    expr = match_expression(text)
    if not expr:
        return
    db = _fts()
    db.execute("INSERT INTO f VALUES (?, '')", (terms,))
    assert db.execute("SELECT count(*) FROM f WHERE f MATCH ?", (expr,)).fetchone()[0] == 1


_MEM = None


def _memory():
    global _MEM
    if _MEM is None:
        _MEM = Memory(Path(tempfile.mkdtemp()) / "m")
        _MEM.save_fact("决定使用 Redis 作为会话缓存 (JWT_SECRET in src/auth/jwt.ts)")
        _MEM.sync(embed=False)
    return _MEM


@settings(max_examples=200, deadline=None)
@given(TEXT | MIXED)
def test_search_never_raises(query):
    _memory().search(query, mode="fts", sync=False)


# --- any value in any field: skipped, never fatal (issue #13, finding 4) ----------------------------

FIELDS = ["id", "type", "memory_type", "kind", "content", "entities", "confidence", "timestamp",
          "created_at", "updated_at", "session_id", "source", "refs", "supersedes", "target",
          "reason", "evidence", "status", "superseded_by", "topic", "summary", "decisions", "todos"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-10**30, max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=40)
    | st.sampled_from(["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "", "W", "fact",
                       "forget", "superseded", "log-x", "MEMORY.md#x", "\u202e", "sum-1#d1"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hostile=st.dictionaries(st.sampled_from(FIELDS), json_values, min_size=1, max_size=6),
       where=st.sampled_from(["daily", "facts.jsonl", "sessions.jsonl"]))
def test_any_value_in_any_field_never_stops_sync_search_context_or_consolidation(tmp_path_factory, hostile, where):
    import json as _json

    from memory_core import Memory, context, doctor
    root = tmp_path_factory.mktemp("m")
    good = {"daily": {"id": "log-good", "type": "fact", "memory_type": "W", "content": "the good record",
                      "entities": [], "confidence": 1.0, "timestamp": "2026-10-01T00:00:00Z"},
            "facts.jsonl": {"id": "fact-good", "type": "W", "content": "the good record",
                            "evidence": ["log-a"], "created_at": "2026-10-01T00:00:00Z",
                            "updated_at": "2026-10-01T00:00:00Z"},
            "sessions.jsonl": {"id": "sum-good", "session_id": "s", "topic": "the good record",
                               "summary": "s", "decisions": ["d"], "todos": [],
                               "timestamp": "2026-10-01T00:00:00Z"}}[where]
    bad = dict(good, **hostile)
    path = root / ("daily/2026-10-01.jsonl" if where == "daily" else where)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        line = _json.dumps(bad, ensure_ascii=False, allow_nan=True)
    except (ValueError, RecursionError):
        return
    path.write_text(_json.dumps(good) + "\n" + line + "\n" + _json.dumps(dict(good, id=good["id"] + "2")) + "\n",
                    encoding="utf-8")
    mem = Memory(root)
    mem.sync(embed=False)
    ids = {h.id for h in mem.search("good record", mode="fts", limit=20, history=True)}
    assert good["id"] + "2" in ids or any(i.startswith(good["id"]) for i in ids)
    context.build(root, mem.index)
    context.build(root, None)
    mem.consolidate()
    list(doctor.checks(mem, None))


# --- the bridge across languages (bilingual.py) ------------------------------------------------

BRIDGED = st.lists(st.sampled_from(
    ["设备", "密钥", "轮换", "工作日志", "代码冻结", "部署", "缓存", "on-call", "2fa", "cache",
     "rotated", "cancelled", "the", "about", "`x`", "https://a.b/c", "C:\\a\\b", "x-request-id",
     " ", "，", "?", "*", "\"", "-", "_", "a" * 50]), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXT | MIXED | BRIDGED)
def test_the_bridge_gives_few_phrases_fts5_accepts_and_no_function_words(query):
    from memory_core import bilingual
    from memory_core.text import STOPWORDS_EN, match_of
    terms = bilingual.bridge_terms(query)
    assert len(terms) <= bilingual.MAX_TERMS
    assert not any(all(w in STOPWORDS_EN for w in t.split()) for t, _ in terms)
    if terms:
        _fts().execute("SELECT * FROM f WHERE f MATCH ?", (match_of(terms),)).fetchall()


# The fence imitation as one pattern of twelve letter classes (what `sanitize` compiled until
# its compile time, 50-80 ms a process, moved the letters' test into Python): the oracle,
# given what `_imitations` is given (`_plain`'s output; under re.I the old pattern read the
# dotless ı as "i", which the look-alike table now does before the scan).
_OTHER = r"[^\W\d_\x00-\x7f\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]"
_TWELVE_CLASSES = re.compile(
    f"[{sanitize._OPEN}][\\W_]{{0,8}}" + "".join(f"(?:{c}|{_OTHER})" for c in "cursor")
    + r"[\W_]{0,8}" + "".join(f"(?:{c}|{_OTHER})" for c in "memory"), re.I)
FENCE_PIECES = st.lists(st.sampled_from(
    list("<<〈ᐸcursormemoryCURSORсоеѕ-_ /.:1二记ｃ") + ["cursor", "memory", "<cursor-", "-memory"]),
    max_size=24).map("".join).map(sanitize._plain)
# and any character at all between them (letters of every script, marks, digits, CJK)
ANY_AROUND = st.lists(FENCE_PIECES | st.text(st.characters(blacklist_categories=("Cs",)), max_size=3),
                      max_size=8).map("".join).map(sanitize._plain)


@settings(max_examples=400)
@given(FENCE_PIECES | ANY_AROUND)
@example("<memory<cursor-memory")  # a shape that is not the name, holding one that is
def test_fence_imitations_are_found_where_the_twelve_class_pattern_finds_them(text):
    oracle = [m.span() for m in _TWELVE_CLASSES.finditer(text)
              if sum(c.isascii() and c.isalpha() for c in m.group()) >= sanitize.NAME_LATIN]
    assert [m.span() for m in sanitize._imitations(text)] == oracle


def _triggered_patterns():
    from memory_core import temporal
    patterns = [temporal._Pattern(*source) for source in temporal._PATTERN_SOURCES]
    return [(p.source, p.kind, p.needs) for p in patterns if p.needs]


@pytest.mark.parametrize("source, kind, words", _triggered_patterns(),
                         ids=lambda v: v if isinstance(v, str) and len(v) < 20 else None)
def test_a_time_pattern_is_skipped_only_for_texts_it_cannot_match(source, kind, words):
    """A pattern with the words it needs is not even compiled for a text without one of
    them (temporal._spans): any text it matches must hold one, or a time phrase goes
    unread."""
    pattern = re.compile(source, re.I)

    @settings(max_examples=150, suppress_health_check=list(HealthCheck), deadline=None)
    @given(st.from_regex(pattern))
    def holds_a_word(text):
        for m in pattern.finditer(text):
            assert any(w in text.casefold() for w in words), (kind, text)

    holds_a_word()
