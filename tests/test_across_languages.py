"""One list across languages (search.across_languages: a question's keyword list and the
notes its glossary words find in the other language, scored as one list by BM25 over the
question's concepts in either language; bilingual: a phrasal verb's first word looked up
in its base form), under a hostile review of its first version (3a8d6be). Real stores
through memory_core.Memory, real searches.

Part 1: each case failed on the first version; the comment says what happened then.
Part 2: guards, attacks that did not break it."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from memory_core import bilingual, search
from storeutil import BILINGUAL_BACKGROUND, first, forget_search_caches, ids, saved

BACKGROUND = [
    "Dashboards live in the infra repo", "部署窗口是周五晚上", "Lunch is at noon", "前端用 React 18",
    "The nightly job writes to the reports bucket", "周会改到周三上午",
]
# a wider store of both languages (the finding in test 2 holds with 0, 12, 18 and 24 such
# notes; with exactly the 6 above it happens not to)
WIDER = BILINGUAL_BACKGROUND


# =============================================================================================
# Part 1: what the review found (each failed on 3a8d6be)
# =============================================================================================

# --- 1. a word and its base form are two concepts: the other language is counted twice ----
# bilingual.concepts() gives one Concept per glossary entry the query word reaches
# ("logging" -> log: 日志 and logging: 日志; "cancelled" -> 已取消 and cancel: 取消), both with
# own=("logging",). across_languages strips the second one's own words as `taken`, so it
# lands in the group keyed () whose scale is 1.0: the note in the other language gets the
# concept once as rare as the concept and a second time as rare as its word alone. 52 of the
# test model's vocabulary words do this (testing, running, logging, monitoring, settings,
# pricing, cancelled, loading, routing, ...). A one-word Chinese note then outranks the
# English note that answers in the question's own word (before: the answer first).
# Then: "日志保留七天" 2.42 (0.90 + 1.52 for the duplicate) above the answer's 1.71.

@pytest.mark.parametrize("question, answer, other", [
    ("Where does logging go?", "Logging goes to Loki through the promtail agent", "日志保留七天"),
    ("What was cancelled?", "The Friday demo was cancelled", "订单已取消"),
    ("What about pricing?", "Pricing: the pro plan is 15 dollars per seat", "定价会议推迟到下周"),
])
def test_a_word_and_its_base_form_are_one_concept_counted_once(mem, question, answer, other):
    want, _ = saved(mem, [answer, other])
    saved(mem, BACKGROUND)
    assert first(mem, question) == [want]


# --- 2. BM25's length normalisation favours English notes for a Chinese question ----------
# The index cuts Chinese into bigrams plus single characters, so a Chinese note is ~3x as
# many index tokens as the same note in English. In one list, an English note that shares
# only the question's one translated word outranks the Chinese answer, where the same note
# written in Chinese ranks below it: the other-language note ranks HIGHER than the same
# note in the question's language would (the design's own claim, search.across_languages
# docstring), and the same-language answer loses first place (before: it kept it).
# Then: e.g. "Password fields in the request logs are masked before shipping" 1.99 above
# "密码找回走邮箱验证码，十分钟内有效" 1.85; its Chinese translation ranks second (1.08 / 0.96).

TRANSLATED = [
    ("密码忘了怎么办？", "密码找回走邮箱验证码，十分钟内有效",
     "Password fields in the request logs are masked before shipping",
     "请求日志里的密码字段在发送前会被遮掉"),
    ("回滚怎么做？", "回滚就是重新发布上一个镜像标签",
     "A rollback needs approval from the on-call lead first",
     "回滚之前需要先得到值班负责人的批准"),
    ("索引要怎么建？", "索引统一用迁移脚本建，不要手工加",
     "Index size is shown on the database dashboard in Grafana",
     "Grafana 的数据库看板上可以看到索引大小"),
]


@pytest.mark.parametrize("question, answer, english, chinese", TRANSLATED)
def test_a_note_in_the_other_language_ranks_no_higher_than_the_same_note_in_the_question_s(
        tmp_path, question, answer, english, chinese):
    from memory_core import Memory
    places = {}
    for name, note in (("chinese", chinese), ("english", english)):
        mem = Memory(tmp_path / name)
        want, _ = saved(mem, [answer, note])
        saved(mem, WIDER)
        places[name] = first(mem, question) == [want]
    assert places["chinese"], "control: the same note in Chinese ranks below the answer"
    assert places["english"]  # fails: the English note takes first place


# --- 3. the candidates' lengths, not the store's, normalise every record -----------------
# _term_frequencies scores records in a table of just the candidates, so a long note in the
# other language that the bridge brings in (it says 轮换 once in ~3,900 characters) raises
# the average length, and the order of the same-language notes turns over: a longer note
# that the real index ranks at half the answer's score passes it. Before: the answer first.
# Then: the ops-repo note 19.4 above the answer 18.7 (the index itself: 9.7 against 5.8
# without the long note; with it, the real BM25 still ranks the answer first).

def test_a_long_note_in_the_other_language_does_not_reorder_the_same_language_answers(mem):
    answer, _ = saved(mem, ["Rotate the signing key with make",
                            "The signing key, the rotate script and the deploy key live in the "
                            "ops repo with the release notes and runbooks"])
    saved(mem, [f"note {i} about lunch" for i in range(100)])
    mem.save_fact("会议记录：轮换值班表已更新。"
                  + "，".join(f"第{i}项讨论内容与本问题无关" for i in range(250)))
    assert first(mem, "How do I rotate the signing key?") == [answer]


# --- 4. seconds for a keyword search: every candidate re-tokenised in Python, every round --
# _term_frequencies runs cm_terms (text.index_terms, Python) over every candidate's content
# and builds an FTS5 table of them, on every pass of run()'s loop; when the first lists are
# full of copies (collapse merges them) k grows 50 -> 200 -> 800 -> 3200 -> 4096 and it all
# happens again. 400 copies of a ~3,900-character note, half Chinese: ~1.6-1.9 s a search
# now, 16-31 ms with search.BRIDGE off, 43-66 ms before the change (the bridge then was one
# more FTS query). Distinct long notes: 120 of them, 164 ms against 6 ms; the 100k-record
# perf store at limit 1000: 402 ms p50 against 196 ms before.

def test_a_search_over_many_long_copies_scores_a_bounded_number_of_records(mem, monkeypatch):
    """The count, not the time (no timed tests): every pass of the search scores at most
    BRIDGE_RESCORED records of each list, and a pass that scores the same ones again
    reuses them."""
    zh = ("缓存" + "，".join(f"第{j}条排查记录与缓存无关" for j in range(400)))[:3900]
    en = ("cache " + " ".join(f"entry {j} was checked and found unrelated" for j in range(400)))[:3900]
    (mem.root / "daily").mkdir(parents=True, exist_ok=True)
    with open(mem.root / "daily" / "2026-03-01.jsonl", "w", encoding="utf-8") as f:
        for i in range(400):
            f.write(json.dumps({"id": f"log-20260301-{i:07d}", "type": "fact", "memory_type": "W",
                                "content": zh if i % 2 else en,
                                "timestamp": "2026-03-01T10:00:00Z"}) + "\n")
    mem.sync(embed=False)
    scored = []
    real = search._term_frequencies
    monkeypatch.setattr(search, "_term_frequencies",
                        lambda conn, pks, terms: scored.append(len(pks)) or real(conn, pks, terms))
    for query in ("缓存多久过期", "When does the cache expire?"):
        scored.clear()
        assert mem.search(query, mode="fts", sync=False)
        assert scored and max(scored) <= 2 * search.BRIDGE_RESCORED, scored
        assert sum(scored) <= 4 * search.BRIDGE_RESCORED, scored


# --- 5. a phrasal verb's base form, tried on every first word, brings other senses --------
# _en_words now looks up the first word of any 2-4 word window in its base forms, and
# _same_sense keeps every base form when the words as said are not listed, so:
# "following users" -> "follow user" 关注用户 (and 用户 is lost), "noted working" -> "not
# working" 不生效 (and 工作时间 is lost), "news feature" -> "new feature" 新功能 (the
# "news" -> "new" misreading an earlier review fixed for single words). Before: 用户,
# 工作时间, 功能/特性.

@pytest.mark.parametrize("query, wrong, right", [
    ("The following users need admin access", "关注 注用 用户", "用户"),
    ("I noted working hours in the timesheet", "不生 生效", "工作 作时 时间"),
    ("Who owns the news feature?", "新功 功能", "功能"),
])
def test_a_base_form_of_a_first_word_does_not_bring_another_sense(query, wrong, right):
    got = [t for t, _ in bilingual.bridge_terms(query)]
    assert wrong not in got and right in got, got


@pytest.mark.parametrize("notes, question", [
    (["工作时间是早九晚六", "这个配置改了不生效，要重启服务"],
     "I noted working hours in the timesheet, is that right?"),  # now: only the 不生效 note
    (["活跃用户每天两千左右", "关注用户功能下周上线"],
     "Which of the following users are active?"),  # now: only the follow-user feature note
])
def test_an_everyday_english_phrase_finds_the_note_in_its_own_sense(mem, notes, question):
    want, _ = saved(mem, notes)
    saved(mem, BACKGROUND[:4])
    assert first(mem, question) == [want]


# =============================================================================================
# Part 2: guards, attacks that did not break it
# =============================================================================================

# --- a note that says the thing in both languages does not take first place ---------------
# (the first case failed on the code before the change, fa23bc9: the bilingual note first)

@pytest.mark.parametrize("question, answer, bilingual_note", [
    ("代码冻结什么时候开始", "代码冻结从周五开始，期间只合入修复", "代码冻结 (code freeze) starts Friday"),
    ("When does the code freeze start?", "The code freeze starts on Friday at noon",
     "代码冻结 (code freeze) 从周五开始"),
    ("缓存多久过期", "缓存过期时间是一小时", "缓存 cache 过期 expire 的命名规范见 wiki 页面"),
])
def test_guard_a_note_in_both_languages_does_not_pass_the_same_language_answer(
        mem, question, answer, bilingual_note):
    want, _ = saved(mem, [answer, bilingual_note])
    saved(mem, BACKGROUND)
    assert first(mem, question) == [want]


# --- an other-language note that matches only common translated words --------------------

def test_guard_an_other_language_note_of_common_words_stays_below_a_rare_word_answer(mem):
    want = mem.save_fact("会话过期时间是 30 分钟")["id"]
    mem.save_fact("User login: the user login session flow, user login again")
    saved(mem, [f"用户登录页面第{i}版改了样式" for i in range(8)]
          + [f"user login page tweak number {i}" for i in range(8)])
    assert first(mem, "用户登录后会话多久过期") == [want]


def test_guard_a_common_translated_word_does_not_pass_the_answer_in_english(mem):
    want = mem.save_fact("Batch jobs time out after two hours")["id"]
    mem.save_fact("超时 超时 超时")
    saved(mem, [f"第{i}个接口超时了" for i in range(8)] + [f"timeout number {i} in the api" for i in range(8)])
    assert first(mem, "What is the timeout for batch jobs?") == [want]


# --- search never raises --------------------------------------------------------------------

HOSTILE = [
    "", " ", "?", "？？？", "the of and", "的了是", '"', '"""', "NEAR(a b)", "a AND b OR NOT c", "*",
    "^cache", "(缓存)", "cache*", "缓存 NEAR 过期", "'; DROP TABLE chunks; --",
    "SELECT * FROM chunks_fts WHERE chunks_fts MATCH 'x'", "\x00", "\ud83d", "😀" * 3000,
    "缓存" * 2000, "cache " * 1000, "r&d", "R&D 缓存", "on-call 值班", "signed up", "rolled back",
    "\u200b缓存\u200b", "ｃａｃｈｅ", "㎉", "{content}: cache", "content:cache", "-cache", "NOT", "OR",
    '"cache" OR "缓存"', "%_%", "code code freeze freeze 代码代码冻结冻结", "cancelled canceled cancel 取消",
    "我们昨天开了会。代码冻结什么时候开始？你知道吗。", "用户：缓存多久过期？\n助手：一小时\n用户：那 cache 呢？",
]


@pytest.fixture
def bilingual_store(mem):
    saved(mem, ["代码冻结 (code freeze) 从周五开始", "设备密钥每 30 天轮换一次",
                "Device secrets are rotated every 90 days", "缓存过期时间是一小时",
                "The cache expires after one hour", "用户登录 user login 走 SSO",
                "Logging goes to Loki", "订单已取消"] + BACKGROUND)
    return mem


def test_guard_hostile_queries_never_raise_in_keyword_mode(bilingual_store):
    zh, en = bilingual._load()
    glossary = ["".join(list(zh)[:400]), " ".join(" ".join(t) for t in list(en)[:600])]
    for query in HOSTILE + glossary:
        bilingual_store.search(query, mode="fts")


def test_guard_hostile_queries_never_raise_in_hybrid_mode(bilingual_store):
    bilingual_store.sync()
    for query in HOSTILE[::3]:
        bilingual_store.search(query)


# --- filters: forgotten, superseded, time ranges ------------------------------------------

def test_guard_forgotten_and_superseded_notes_stay_hidden_in_either_language(mem):
    v1 = mem.save_fact("缓存过期时间是一小时")
    v2 = mem.save_fact("缓存过期时间改成两小时", supersedes=v1["id"])
    e1 = mem.save_fact("The cache expires after one hour")
    e2 = mem.save_fact("The cache now expires after two hours", supersedes=e1["id"])
    f1 = mem.save_fact("设备密钥每 30 天轮换一次")
    f2 = mem.save_fact("Device secrets are rotated every 90 days")
    mem.forget(f1["id"])
    mem.forget(f2["id"])
    replaced = {v1["id"], e1["id"]}
    for q in ("缓存多久过期", "When does the cache expire?", "缓存", "cache",
              "设备密钥多久轮换一次", "How often are device secrets rotated?"):
        got = set(ids(mem.search(q, mode="fts")))
        assert not got & (replaced | {f1["id"], f2["id"]}), q
    assert {v2["id"], e2["id"]} <= set(ids(mem.search("When does the cache expire?", mode="fts")))
    # "now": the replaced values come marked, after the current ones; a forgotten one never
    hits = mem.search("What is the cache expiry now?", mode="fts")
    assert hits[0].id == e2["id"] and all(h.status != "forgotten" for h in hits)
    assert all(h.status == "superseded" for h in hits if h.id in replaced)
    # history shows each with its status
    statuses = {h.id: h.status for h in mem.search("device secrets rotated", mode="fts", history=True)}
    assert statuses.get(f2["id"]) == "forgotten" and statuses.get(f1["id"]) == "forgotten"


def test_guard_time_filters_hold_for_notes_the_bridge_finds(mem):
    saved(mem, ["缓存过期时间是一小时", "The cache expires after one hour"])
    assert mem.search("When does the cache expire?", mode="fts", until="2020-01-01") == []
    assert mem.search("缓存多久过期", mode="fts", until="2020-01-01") == []
    assert len(mem.search("缓存多久过期", mode="fts", since="2020-01-01")) == 2
    assert [h.type for h in mem.search("cache", mode="fts", type="preference")] == []


# --- deterministic ----------------------------------------------------------------------------

_RUN = """
import json, sys
from memory_core import Memory
m = Memory(sys.argv[1])
out = {q: [(h.id, h.fts_score) for h in m.search(q, mode="fts", sync=False)]
       for q in ["When does the cache expire?", "缓存多久过期", "Where does logging go?",
                 "设备密钥多久轮换一次", "cancelled canceled 取消 已取消"]}
print(json.dumps(out))
"""


def test_guard_results_and_scores_are_the_same_under_any_hash_seed(bilingual_store):
    bilingual_store.sync(embed=False)
    runs = set()
    for seed in ("1", "2", "987"):
        res = subprocess.run([sys.executable, "-c", _RUN, str(bilingual_store.root)],
                             capture_output=True, text=True, timeout=120,
                             env=dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT)))
        assert res.returncode == 0, res.stderr
        runs.add(res.stdout)
    assert len(runs) == 1


# --- a long question of many glossary terms --------------------------------------------------

def test_guard_a_question_of_many_glossary_terms_asks_for_at_most_max_terms(bilingual_store):
    """A 2,000-character question of glossary words answers, and its bridge asks the index
    for at most bilingual.MAX_TERMS phrases (the count, not the time)."""
    zh, en = bilingual._load()
    query = "".join(w for w in list(zh)[:300] if len(w) == 2)[:2000]
    assert len(bilingual.bridge_terms(query)) <= bilingual.MAX_TERMS
    bilingual_store.search(query, mode="fts")


# --- the sample's tables, kept between searches ----------------------------------------------

def _bigger_than_the_sample(root, n=3 * search.SAMPLE_ROWS):
    """A store of n notes in both languages, written as a day's file (saving them one by one
    takes seconds), so that most candidates are not in the sample."""
    daily = root / "daily"
    daily.mkdir(parents=True)
    topics = ["缓存过期时间是 {} 分钟", "The cache expires after {} minutes", "部署在第 {} 个窗口",
              "Deploys go out in window {}", "日志保留 {} 天", "Logs are kept for {} days"]
    with open(daily / "2026-03-01.jsonl", "w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"log-20260301-{i:07d}", "type": "fact", "memory_type": "W",
                                "content": topics[i % len(topics)].format(i),
                                "timestamp": "2026-03-01T10:00:00Z"}, ensure_ascii=False) + "\n")


def test_a_search_scores_as_in_a_fresh_process_after_other_searches(tmp_path):
    """The sample's tables are kept between searches and each search's candidates are added
    inside a savepoint: what one search added must be gone for the next."""
    from memory_core import Memory
    _bigger_than_the_sample(tmp_path / "memory-data")
    mem = Memory(tmp_path / "memory-data")
    mem.sync(embed=False)

    def scores(q):
        return [(h.id, h.fts_score) for h in mem.search(q, mode="fts", sync=False, limit=20)]

    for q in ["How long are logs kept?", "部署窗口", "缓存多久过期"]:
        scores(q)
    after_others = scores("When does the cache expire?")
    forget_search_caches()
    assert scores("When does the cache expire?") == after_others
    (sample,) = search._samples.values()
    sizes = {chinese: share.table.execute("SELECT count(*) FROM c").fetchone()[0]
             for chinese, share in sample.items() if share.table is not None}
    assert sizes == {chinese: len(share.rows) for chinese, share in sample.items() if chinese in sizes}
