"""Search through the public API, on a real index with the real offline model."""
import json

import pytest

from memory_core import Memory

from storeutil import daily_line, ids


@pytest.fixture
def project(mem):
    mem.save_fact("决定使用 Redis 作为会话缓存", entities=["redis", "session"])
    mem.save_fact("使用sqlite-vec做向量索引，FTS5负责BM25混合检索", entities=["sqlite-vec"])
    mem.save_fact("JWT_SECRET lives in src/auth/jwt.ts and is rotated monthly", entities=["jwt"])
    mem.save_fact("分布式锁用 Redlock 实现", entities=["lock"])
    mem.save_fact("The user prefers two-space indentation", memory_type="O", kind="preference")
    mem.save_summary("Redis 缓存方案", "讨论了会话缓存的技术选型，决定采用 Redis 替代内存存储。",
                     ["使用 Redis"], ["实现连接池"])
    (mem.root / "MEMORY.md").write_text(
        "# 核心记忆\n\n## 项目背景\n- 数据库：PostgreSQL 16\n- 部署在阿里云 ACK\n", encoding="utf-8")
    return mem


@pytest.mark.parametrize("query, needle", [
    ("缓存", "会话缓存"),          # a two-character word inside an unspaced run
    ("锁", "分布式锁"),            # a one-character word
    ("向量索引", "sqlite-vec"),    # Chinese next to glued ASCII
    ("sqlite-vec", "sqlite-vec"),
    ("BM25", "BM25"),
    ("JWT_SECRET", "JWT_SECRET"),
    ("src/auth/jwt.ts", "jwt.ts"),
    ("数据库", "PostgreSQL"),
])
def test_keyword_search_finds_words_in_mixed_chinese_and_english(project, query, needle):
    hits = project.search(query, mode="fts", limit=3)
    assert hits and needle in hits[0].content


def test_one_missing_term_does_not_zero_a_query(project):
    hits = project.search("Redis 缓存 kubernetes-operator 不存在的词", mode="fts")
    assert any("会话缓存" in h.content for h in hits)


@pytest.mark.parametrize("query", ['"', "AND", "NOT x", "NEAR(a b)", "a:b", "*", "(", "🙂",
                                   "", "   ", "{content}: x", '"unterminated'])
def test_hostile_queries_answer_without_raising(project, query):
    for mode in ("fts", "hybrid", "vector"):
        project.search(query, mode=mode)


def test_a_fact_saved_a_moment_ago_is_found_by_the_next_search(project):
    project.search("anything")  # the index exists and is in sync
    project.save_fact("新的事实：部署窗口改到周四晚上", entities=["deploy"])
    assert "部署窗口" in project.search("部署窗口", mode="fts")[0].content
    assert "部署窗口" in project.search("部署窗口", mode="hybrid")[0].content


def test_vectors_find_what_keywords_cannot(mem):
    mem.save_fact("We keep user login sessions in Redis with a six hour expiry")
    mem.save_fact("The frontend is built with React and Vite")
    mem.save_fact("Invoices are exported as PDF every month")
    mem.sync()  # every note with its vector (a search embeds pending ones for 0.2 s only)
    query = "where do we persist the signed-in state of accounts"
    assert not mem.search(query, mode="fts")
    hits = mem.search(query, mode="hybrid", limit=1)
    assert "Redis" in hits[0].content and hits[0].vec_rank == 1 and hits[0].fts_rank is None


def test_hits_carry_every_field_the_api_promises(project):
    hit = project.search("缓存", limit=10)[0]
    d = hit.to_dict()
    for key in ("id", "content", "type", "memory_type", "entities", "confidence", "source_file",
                "timestamp", "score", "fts_rank", "fts_score", "vec_rank", "vec_score",
                "evidence", "section"):
        assert key in d
    json.dumps(d)
    core = [h for h in project.search("数据库 PostgreSQL") if h.type == "core"][0]
    assert core.section == "项目背景" and core.id == "MEMORY.md#项目背景"
    assert core.source_file == "MEMORY.md"


def test_the_title_over_memory_md_matches_no_section_of_it(mem):
    # "# Orbit 项目记忆" is every section's heading path: before, a question naming the
    # project put every section among the hits on that word alone
    (mem.root / "MEMORY.md").write_text(
        "# Orbit 项目记忆\n\n## 技术栈\n- PostgreSQL 16\n\n## 团队\n- 张伟：后端\n\n"
        "## 常用命令\n- make up\n", encoding="utf-8")
    mem.save_fact("Orbit 的 staging 地址是 staging.orbit.dev")
    hits = mem.search("orbit staging 地址", mode="fts", limit=10)
    assert "staging.orbit.dev" in hits[0].content
    assert [h.id for h in hits if h.type == "core"] == []
    assert mem.search("团队", mode="fts", limit=1)[0].section == "团队"


def test_record_ids_are_kept_as_hit_ids(project):
    saved = project.save_fact("Grafana dashboards live in the infra repo")
    assert project.search("Grafana dashboards", limit=1)[0].id == saved["id"]


def test_filters_by_type_memory_type_and_time(project, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2020-01-01T00:00:00Z")
    old = project.save_fact("Redis 旧的缓存配置 from 2020")
    monkeypatch.delenv("CURSOR_MEMORY_NOW")
    assert {h.type for h in project.search("Redis", type="session_summary")} == {"session_summary"}
    assert {h.memory_type for h in project.search("indentation Redis", memory_type="O")} == {"O"}
    assert old["id"] not in ids(project.search("Redis 缓存", since="2021-01-01"))
    assert ids(project.search("Redis 缓存", until="2020-12-31")) == [old["id"]]
    for mode in ("vector", "hybrid"):
        assert ids(project.search("Redis", until="2020-12-31", mode=mode)) == [old["id"]]


def test_the_same_fact_saved_twice_appears_once_with_both_as_evidence(mem):
    a = mem.save_fact("项目使用 PostgreSQL 16")
    b = mem.save_fact("项目使用 PostgreSQL 16。")
    hits = mem.search("PostgreSQL")
    assert len(hits) == 1 and set(hits[0].evidence) == {a["id"], b["id"]}


def test_a_daily_line_and_the_fact_consolidated_from_it_appear_once(mem):
    line = mem.save_fact("API 默认监听 3000 端口")
    fact = {"id": "fact-abc", "type": "W", "content": "API 默认监听 3000 端口（apps/api）",
            "entities": [], "confidence": 1.0, "evidence": [line["id"]],
            "source": {"file": "daily/x.jsonl", "id": line["id"]},
            "created_at": line["timestamp"], "updated_at": line["timestamp"]}
    (mem.root / "facts.jsonl").write_text(json.dumps(fact, ensure_ascii=False) + "\n")
    hits = mem.search("3000 端口")
    assert len(hits) == 1
    assert hits[0].id == "fact-abc" and hits[0].evidence == [line["id"]]


def test_without_a_model_search_answers_with_keywords_and_says_so(tmp_path, no_model):
    mem = Memory(tmp_path / "m")
    mem.save_fact("决定使用 Redis 作为会话缓存")
    hits = mem.search("缓存")
    assert hits and hits[0].fts_rank == 1 and hits[0].vec_rank is None
    assert any("no embedding model" in n for n in hits.notes)
    assert mem.sync().embedded == 0


def test_vectors_missing_for_lack_of_a_model_are_made_later(tmp_path, monkeypatch):
    from memory_core import embeddings
    real = dict(CURSOR_MEMORY_MODEL=__import__("os").environ["CURSOR_MEMORY_MODEL"],
                CURSOR_MEMORY_MODEL_PATH=__import__("os").environ["CURSOR_MEMORY_MODEL_PATH"])
    monkeypatch.setenv("CURSOR_MEMORY_MODEL_PATH", str(tmp_path / "nowhere"))
    embeddings._LOADED.clear()
    mem = Memory(tmp_path / "m")
    mem.save_fact("We keep user login sessions in Redis")
    assert mem.sync().embedded == 0
    for k, v in real.items():
        monkeypatch.setenv(k, v)
    assert Memory(mem.root).sync().embedded == 1


# --- what goes into a chunk --------------------------------------------------------------

def test_a_reply_is_found_by_the_question_it_answers(mem):
    daily_line(mem, "Mia: How long have you been playing the piano?", "2026-03-01", "chat-1")
    reply = daily_line(mem, "Leo: About four months now, every evening.", "2026-03-01", "chat-1")
    daily_line(mem, "Mia: What did you do at the weekend?", "2026-03-02", "chat-2")
    elsewhere = daily_line(mem, "Leo: About four months now, most evenings.", "2026-03-02", "chat-2")
    hits = mem.search("How long has Leo been playing the piano?", mode="fts", limit=3)
    found = ids(hits)
    assert reply["id"] in found  # it shares no word with the question; its context does
    assert elsewhere["id"] not in found or found.index(reply["id"]) < found.index(elsewhere["id"])
    assert next(h for h in hits if h.id == reply["id"]).content == reply["content"]


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_a_reply_comes_just_above_the_question_it_answers(mem, mode):
    """The question holds the query's words, the reply the answer (LoCoMo: "How often does
    John work out with his family?" is labelled with "Three times a week")."""
    daily_line(mem, "Leo: We work out with the kids at the park most weekends.", "2026-03-01", "chat-1")
    asked = daily_line(mem, "Mia: How often do you and the kids work out together?", "2026-03-01", "chat-1")
    reply = daily_line(mem, "Leo: Three times a week; it keeps us on track.", "2026-03-01", "chat-1")
    daily_line(mem, "Mia: My kids love the park too.", "2026-03-02", "chat-2")
    found = ids(mem.search("How often does Leo work out with his kids?", mode=mode, limit=5))
    assert found.index(reply["id"]) == found.index(asked["id"]) - 1


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
@pytest.mark.parametrize("says, reply, query", [
    ("Mia: Guess what I did this week? I applied to three adoption agencies!",
     "Leo: Congrats, Mia! How does it feel?", "When did Mia apply to adoption agencies?"),
    ("用户：你猜我这周干嘛了？我报名了杭州马拉松！", "助手：太棒了！最近练得怎么样？",
     "我什么时候报名的杭州马拉松？"),
])
def test_a_line_that_says_the_answer_stays_above_the_reply_to_its_question(mem, mode, says,
                                                                           reply, query):
    """The query's words are in what the line says, not in what it asks: the line is the
    answer, and the reply to its question comes just below it (LoCoMo: "When did Caroline
    apply to adoption agencies?" is labelled "… Guess what I did this week? I applied to
    adoption agencies", whose reply "congrats! How does it feel?" came first)."""
    said = daily_line(mem, says, "2026-03-01", "chat-1")
    answer = daily_line(mem, reply, "2026-03-01", "chat-1")
    daily_line(mem, says.split("：" if "：" in says else ":")[0] + "：周末去爬山了。", "2026-03-02", "chat-2")
    found = ids(mem.search(query, mode=mode, limit=5))
    assert found.index(answer["id"]) == found.index(said["id"]) + 1


@pytest.mark.parametrize("asks, reply, query", [
    ("User: The deploy failed again with exit code 137. What does that mean?",
     "Assistant: 137 is SIGKILL: the container ran out of memory.", "what does exit code 137 mean"),
    ("用户：CI 上 mypy 报 missing stub for requests。怎么解决？",
     "助手：pip install types-requests，再加进 dev 依赖。", "mypy missing stub requests 怎么解决"),
])
def test_a_short_question_about_what_the_line_says_still_has_its_answer_above_it(mem, asks,
                                                                                  reply, query):
    """A hostile review's case: the question asks about the statement before it ("What
    does that mean?", "怎么解决？"), so the reply is the answer, although most of the
    query's words are in the statement."""
    asked = daily_line(mem, asks, "2026-03-01", "chat-1")
    answer = daily_line(mem, reply, "2026-03-01", "chat-1")
    daily_line(mem, asks.split("：" if "：" in asks else ":")[0] + ": lunch at noon", "2026-03-02", "chat-2")
    found = ids(mem.search(query, mode="fts", limit=5))
    assert found.index(answer["id"]) == found.index(asked["id"]) - 1


def test_a_name_the_line_calls_out_is_not_what_it_says(mem):
    """"Wow Leo, same here!" names the one spoken to, not the topic: the line asks about
    styles, so its reply (the answer) still comes above it."""
    asked = daily_line(mem, "Mia: Wow Leo, same here! Got any fave styles?", "2026-03-01", "chat-1")
    reply = daily_line(mem, "Leo: Contemporary is my top pick, so expressive.", "2026-03-01", "chat-1")
    daily_line(mem, "Leo: See you at the studio on Friday.", "2026-03-02", "chat-2")
    found = ids(mem.search("What is Leo's favorite style of dancing?", mode="fts", limit=5))
    assert found.index(reply["id"]) == found.index(asked["id"]) - 1


def test_a_reply_is_brought_in_even_when_no_list_found_it(mem):
    """A reply's own context keeps only the question's last 150 characters: a long
    question's first words reach the reply only through the question."""
    asked = daily_line(mem, "Mia: About the Lisbon trip with the travel agent: after all the back and forth "
                       "about dates, the flights that moved twice, the hotel that lost our booking and "
                       "the rain on the last day, honestly, would you go again?", "2026-03-01", "chat-1")
    reply = daily_line(mem, "Leo: Only in summer, and never with that agency.", "2026-03-01", "chat-1")
    found = ids(mem.search("Lisbon trip travel agent", mode="fts", limit=5))
    assert found[:2] == [reply["id"], asked["id"]]


def test_only_a_question_lifts_the_line_after_it(mem):
    said = daily_line(mem, "Mia: The piano lessons start in April.", "2026-03-01", "chat-1")
    after = daily_line(mem, "Leo: Great, see you then.", "2026-03-01", "chat-1")
    found = ids(mem.search("When do the piano lessons start?", mode="fts", limit=5))
    assert found[0] == said["id"]
    assert after["id"] not in found[:1]


def test_a_question_mark_in_a_link_does_not_ask(mem):
    said = daily_line(mem, "Mia: The billing dashboard is at https://grafana.local/d/billing?orgId=1",
                      "2026-03-01", "chat-1")
    after = daily_line(mem, "Leo: Thanks, bookmarked it.", "2026-03-01", "chat-1")
    found = ids(mem.search("billing dashboard grafana", mode="fts", limit=5))
    assert found[0] == said["id"]
    assert after["id"] not in found[:1]


def test_a_consolidated_question_still_brings_its_reply(mem):
    """sessionEnd folds daily lines into facts.jsonl, and search shows the fact in the line's
    place: the fact asks through the line it was made from."""
    pad = " and so on" * 20
    asked = daily_line(mem, f"Mia: About the zebra trip{pad}, which month did we pick?", "2026-03-01", "A")
    reply = daily_line(mem, "Leo: Only in May, never with that agency.", "2026-03-01", "A")
    daily_line(mem, "Mia: the zebra trip budget is fine.", "2026-03-01", "B")
    mem.consolidate()
    hits = mem.search("zebra trip", mode="fts", limit=5)
    at = {e: i for i, h in enumerate(hits) for e in h.evidence}
    assert at[reply["id"]] == at[asked["id"]] - 1
    assert hits[at[reply["id"]]].reply_to == hits[at[asked["id"]]].id


def test_a_reply_appended_far_from_its_question_is_found_as_after_a_rebuild(mem):
    """An appended line's context is its thread's last line, however far back (another
    session's 64 KB in between): an incremental index answers as a rebuilt one."""
    asked = daily_line(mem, "Mia: Which month did we pick for the zebra trip?", "2026-03-01", "A")
    mem.sync(embed=False)
    for i in range(400):
        daily_line(mem, f"Ann: line {i} of another chat about the weather " + "x" * 150, "2026-03-01", "B")
    mem.sync(embed=False)
    reply = daily_line(mem, "Leo: Only in May, never with that agency.", "2026-03-01", "A")
    mem.sync(embed=False)
    incremental = ids(mem.search("zebra trip month", mode="fts", limit=3))
    (mem.root / "index.sqlite").unlink()
    rebuilt = ids(Memory(mem.root).search("zebra trip month", mode="fts", limit=3))
    assert incremental[:2] == rebuilt[:2] == [reply["id"], asked["id"]]


def test_a_transcript_turn_between_does_not_hide_the_reply(mem):
    asked = daily_line(mem, "Mia: Which month did we pick for the zebra trip?", "2026-03-01", "A")
    daily_line(mem, "user: run the tests please", "2026-03-01", "A", type="transcript", role="user")
    reply = daily_line(mem, "Leo: Only in May, never with that agency.", "2026-03-01", "A")
    found = ids(mem.search("zebra trip month", mode="fts", limit=3))
    assert found[:2] == [reply["id"], asked["id"]]


@pytest.mark.parametrize("asks, after", [
    ("TODO: should we shard the billing database before the sale?", "Note: the office moves in May."),
    ("09:15 is the billing database backup running tonight?", "09:20 lunch order placed for the team."),
    ("问题：账单库要不要在大促前分库？", "本周总结：办公室五月搬家。"),
])
def test_notes_opening_with_a_label_or_a_time_are_not_a_conversation(mem, asks, after):
    asked = daily_line(mem, asks, "2026-03-01", "s1")
    later = daily_line(mem, after, "2026-03-01", "s1")
    found = ids(mem.search(asks[asks.index(" ") + 1 if " " in asks else 3:][:40], mode="fts", limit=5))
    assert found[0] == asked["id"] and later["id"] not in found[:1]


def test_a_question_said_in_many_chats_brings_one_reply(mem):
    """Copies of one line are one hit (collapse): its copies' replies do not all come up."""
    replies = []
    for i in range(6):
        daily_line(mem, "助手：在的～今天过得怎么样？", f"2026-03-0{i + 1}", f"chat-{i}")
        replies.append(daily_line(mem, f"用户：第{i}件小事", f"2026-03-0{i + 1}", f"chat-{i}")["id"])
    hits = mem.search("今天过得怎么样", mode="fts", limit=10)
    assert len([h for h in hits if h.reply_to]) == 1


def test_a_reply_the_filters_exclude_is_not_brought_in(mem):
    asked = daily_line(mem, "Mia: Which database did we pick for billing?", "2026-03-01", "chat-1")
    reply = daily_line(mem, "Leo: PostgreSQL 16.", "2026-03-01", "chat-1", type="action")
    found = ids(mem.search("billing database", mode="fts", type="fact", limit=5))
    assert asked["id"] in found and reply["id"] not in found
    mem.forget(reply["id"], reason="wrong")
    assert reply["id"] not in ids(mem.search("billing database", mode="fts", limit=5))


def test_saved_facts_are_not_replies_to_each_other(mem):
    """Facts saved one after another name no speaker: a fact that asks is not answered by
    the next one (sync.to_chunk gives them no context)."""
    asked = daily_line(mem, "Open question: do we shard the billing database?", "2026-03-01", "s1")
    later = daily_line(mem, "Deploys go out on Thursday evenings", "2026-03-01", "s1")
    found = ids(mem.search("shard billing database", mode="fts", limit=5))
    assert found[0] == asked["id"] and later["id"] not in found


def test_the_line_before_is_context_only_within_the_same_session(mem):
    daily_line(mem, "We picked PostgreSQL 16 for the billing database", "2026-03-01", "s1")
    other = daily_line(mem, "The office moves to the fifth floor", "2026-03-01", "s2")
    hits = mem.search("PostgreSQL billing database", mode="fts")
    assert other["id"] not in ids(hits)


def test_a_saved_fact_does_not_carry_the_words_of_the_fact_before_it(mem):
    """Facts saved one after another are statements of their own: a small-talk line after
    a fact must not be found by the fact's words (MemDaily, docs/retrieval.md)."""
    fact = daily_line(mem, "我的上司挺喜欢登山的", "2026-03-01", "s1")
    chat = daily_line(mem, "谢谢你陪我聊天", "2026-03-01", "s1")
    found = ids(mem.search("上司喜欢什么运动？登山吗", mode="fts", limit=5))
    assert fact["id"] in found
    assert chat["id"] not in found


def test_in_a_conversation_a_line_keeps_the_line_before_as_context(mem):
    daily_line(mem, "用户：我周末去杭州见了老同学", "2026-03-01", "s1", source={"session": "s1", "speaker": "user"})
    said = daily_line(mem, "用户：他现在在阿里做算法", "2026-03-01", "s1", source={"session": "s1", "speaker": "user"})
    found = ids(mem.search("杭州的老同学", mode="fts", limit=5))
    assert said["id"] in found  # a spoken line continues the one before it


def test_an_appended_line_gets_the_same_context_as_in_a_full_read(mem):
    import sqlite3
    daily_line(mem, "Mia: Which cache do we use for sessions?", "2026-03-01", "chat-1")
    mem.sync(embed=False)
    daily_line(mem, "Leo: Redis, with a six hour TTL.", "2026-03-01", "chat-1")
    mem.sync(embed=False)  # reads only the appended line

    def contexts(root):
        db = sqlite3.connect(root / "index.sqlite")
        try:
            return sorted(db.execute("SELECT id, context FROM chunks"))
        finally:
            db.close()

    incremental = contexts(mem.root)
    (mem.root / "index.sqlite").unlink()
    Memory(mem.root).sync(embed=False)
    assert contexts(mem.root) == incremental
    assert any(c and "Which cache" in c for _, c in incremental)


def test_a_long_section_is_found_by_one_of_its_lines_and_comes_back_whole(mem):
    lines = [f"- 服务 {i}：端口 {4000 + i}，负责模块 m{i}" for i in range(30)]
    lines[17] = "- 灰度发布先切 5% 流量，观察 30 分钟再全量"
    (mem.root / "MEMORY.md").write_text("# 核心记忆\n\n## 部署约定\n" + "\n".join(lines) + "\n",
                                        encoding="utf-8")
    for i in range(5):
        mem.save_fact(f"发布流程第 {i} 步已经写进文档")
    hits = mem.search("灰度发布 流量", limit=3)
    assert hits[0].id == "MEMORY.md#部署约定" and hits[0].section == "部署约定"
    assert "灰度发布先切 5% 流量" in hits[0].content and "端口 4003" in hits[0].content
    assert not any("#part-" in h.id for h in mem.search("端口 服务 模块", limit=20))


def test_a_session_summary_rises_with_the_lines_of_its_session(mem):
    mem.save_fact("Failed email jobs retry 3 times with exponential backoff", session_id="c9")
    ours = mem.save_summary("邮件队列", "新增 BullMQ 邮件队列，失败任务进入死信队列。", session_id="c9")
    other = mem.save_summary("看板拖拽", "实现看板列之间拖拽任务，失败时回滚。", session_id="c8")
    mem.save_fact("Email templates are written in MJML", session_id="c8")
    mem.sync()  # every vector made: this is about ranking, not the backlog
    found = ids(mem.search("exponential backoff for failed email jobs", limit=4))
    assert ours["id"] in found[:3]
    assert other["id"] not in found or found.index(ours["id"]) < found.index(other["id"])


def _load_test_session(mem, session="s1"):
    for i in range(12):  # other work, so that 压测 and partition are rare words
        mem.save_fact(f"服务 m{i} 的日志级别改成 info，告警阈值 {i * 10} 条", session_id=f"f{i}")
    line = mem.save_fact("telemetry.raw.v1 扩到 12 个 partition，alerting 起 6 个 replica",
                         session_id=session)
    mem.save_fact("压测脚本放在 tests/load/telemetry.js", session_id=session)
    summary = mem.save_summary("第一次压测：consumer lag", "压测 500 台车时 consumer lag 持续上涨。",
                               ["telemetry.raw.v1 扩到 12 个 partition", "alerting 6 个副本"],
                               ["观察扩容后的 rebalance"], session_id=session)
    return line, summary


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_a_summary_part_that_repeats_a_line_gives_the_line_its_place(mem, mode):
    """The decision "telemetry.raw.v1 扩到 12 个 partition" is short and carries its summary's
    topic (压测), so it outranked the line it digests; the line is the record that has a time
    and can be superseded, and the summary still comes (anchored-heldout's "first load test
    ... 有几个 partition")."""
    line, summary = _load_test_session(mem)
    before = mem.save_fact("telemetry.raw.v1 先建 6 个 partition", session_id="s0")
    mem.sync()
    found = ids(mem.search("第一次压测的时候 telemetry.raw.v1 有几个 partition？", mode=mode, limit=5))
    assert found.index(line["id"]) <= 1 and found.index(line["id"]) < found.index(before["id"])
    assert summary["id"] in found[:2]


def test_a_part_gives_way_only_to_a_line_of_its_own_session(mem):
    _load_test_session(mem, session="s1")
    elsewhere = mem.save_fact("telemetry.raw.v1 扩到 12 个 partition，alerting 起 6 个 replica",
                              session_id="s2")
    found = ids(mem.search("第一次压测的时候 telemetry.raw.v1 有几个 partition？", mode="fts", limit=5))
    assert found[0] != elsewhere["id"]


def _cache_session(mem, decision, *lines):
    """Other work, then session s1: its lines and a summary deciding `decision`."""
    for i in range(12):
        mem.save_fact(f"service m{i} log level set to info, alert threshold {i * 10}",
                      session_id=f"f{i}")
    saved = [mem.save_fact(text, session_id="s1") for text in lines]
    summary = mem.save_summary("Redis cache tuning", "Tuned the cache. Profiled the hot paths. "
                               "Measured p99 latency. Wrote it up.",
                               [decision, "keep the eviction policy"], session_id="s1")
    return saved, summary


@pytest.mark.parametrize("line, decision", [
    ("Set the Redis TTL to 60 seconds for the session keys",     # another value
     "Set the Redis TTL to 600 seconds for the session keys"),
    ("We will use Redis for the session cache layer of the API",  # the opposite
     "We will not use Redis for the session cache layer of the API"),
])
def test_a_part_keeps_its_place_over_a_line_that_says_something_else(mem, line, decision):
    (said,), summary = _cache_session(mem, decision, line)
    found = ids(mem.search("what did the redis cache tuning decide for the session keys",
                           mode="fts", limit=3))
    assert found.index(summary["id"]) < found.index(said["id"])


def test_a_part_gives_its_place_to_the_line_it_repeats_not_to_a_near_one(mem):
    (old, new), summary = _cache_session(
        mem, "Set the Redis TTL to 600 seconds for the session keys",
        "Set the Redis TTL to 60 seconds for the session keys",
        "Set the Redis TTL to 600 seconds for the session keys")
    found = ids(mem.search("what Redis TTL did the cache tuning settle on for session keys?",
                           mode="fts", limit=3))
    assert found.index(new["id"]) < found.index(old["id"])


def test_a_forgotten_line_does_not_take_a_parts_place_in_the_history(mem):
    (line,), summary = _cache_session(mem, "Set the Redis TTL to 600 seconds for the session keys",
                                      "Set the Redis TTL to 600 seconds for the session keys")
    mem.forget(line["id"], "wrong, never applied")
    hits = mem.search("redis cache tuning ttl", mode="fts", limit=2, history=True)
    assert hits[0].id == summary["id"] and hits[0].status == "active"


def test_a_summary_saved_without_a_session_keeps_its_parts(mem):
    """Such a summary is its own source, and so are the facts consolidation makes of its
    decisions: they are copies of it, not lines it digests."""
    from memory_core.search import Filters, fts_candidates, lines_over_parts
    for i in range(12):
        mem.save_fact(f"service m{i} log level set to info, alert threshold {i * 10}",
                      session_id=f"f{i}")
    mem.save_summary("Queue migration", "Moved the jobs off the old queue.",
                     ["Use RabbitMQ quorum queues for the billing jobs", "retry three times"],
                     session_id=None)
    mem.consolidate()
    mem.sync()

    def lists(conn):
        found = fts_candidates(conn, "queue migration: which queues for the billing jobs?",
                               Filters(), 50)
        return found, lines_over_parts(conn, found)
    before, after = mem.index.run(lists)
    assert after == before


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_a_long_record_whose_lines_all_match_does_not_crowd_out_the_others(mem, mode):
    """Its parts filled every candidate slot and came back as a few hits: `limit=10` gave 7."""
    lines = [f"- deploy step {i}: run the deploy script for shard {i}" for i in range(120)]
    (mem.root / "MEMORY.md").write_text("# 核心记忆\n\n## Deploy\n" + "\n".join(lines) + "\n",
                                        encoding="utf-8")
    saved = [mem.save_fact(f"deploy of service s{i} moved to Tuesdays") for i in range(12)]
    mem.sync()
    found = ids(mem.search("deploy", mode=mode, limit=10))
    assert len(found) == 10 and any(i.startswith("MEMORY.md#Deploy") for i in found)
    assert set(found) & {r["id"] for r in saved}


# --- time in the query -------------------------------------------------------------------

def test_what_is_x_now_puts_the_newest_value_first(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    daily_line(mem, "Redis 缓存 TTL 先设为 3600 秒", "2026-09-08", "a")
    daily_line(mem, "Redis 缓存 TTL 从 3600 改成 86400 秒", "2026-09-15", "b")
    newest = daily_line(mem, "Redis TTL stays at 21600s, no change planned", "2026-10-14", "c")
    daily_line(mem, "用户希望缓存 key 统一加 orbit: 前缀", "2026-10-15", "d")  # newer, other subject
    for query in ("Redis 缓存 TTL 现在是多少？", "What is the Redis TTL now?"):
        assert mem.search(query, limit=5)[0].id == newest["id"]
    assert mem.search("Redis 缓存 TTL 是多少？", limit=5)[0].id != newest["id"]  # no "now"


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
@pytest.mark.parametrize("query, chain, others", [
    ("What does the app use for state management these days?",
     ["App 状态管理先用 GetX", "App 状态管理改用 Riverpod 2", "现在 App 状态管理统一用 flutter_bloc"],
     ["Redis only holds short-lived state; we use it for login sessions",
      "We use pnpm workspaces for the monorepo"]),
    ("前端现在状态管理用的是什么",
     ["Frontend state management starts with Redux", "Frontend state management moves to MobX",
      "Frontend state management is Zustand from now on"],
     ["前端的 lint 规则统一用 eslint flat config", "现在前端构建用 Vite 5"]),
])
def test_a_question_about_now_finds_the_newest_value_said_in_the_other_language(
        mem, monkeypatch, mode, query, chain, others):
    """Which records are about the question was judged by its own words only: an English
    question's Chinese answers shared only "app" with it, so a line sharing "use" and
    "state" (or, newer, "use" alone) was taken for the subject and put first."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    days = ("2026-09-01", "2026-09-20", "2026-10-10")
    saved = [daily_line(mem, text, day, f"s{i}") for i, (text, day) in enumerate(zip(chain, days))]
    for i, text in enumerate(others):
        daily_line(mem, text, ("2026-09-05", "2026-10-12")[i], f"o{i}")
    for i, text in enumerate(_OTHER_SUBJECTS):  # a store of some size, so rarity means something
        daily_line(mem, text, f"2026-09-{10 + i}", f"f{i}")
    assert mem.search(query, limit=5, mode=mode)[0].id == saved[-1]["id"]


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_a_question_about_now_none_of_whose_words_the_store_holds_is_judged_across_languages(
        mem, monkeypatch, mode):
    """An English question to a store that says everything in Chinese: no record held any
    of its words, so none was about it and the newest-first rule let relevance decide."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    days = ("2026-09-01", "2026-09-20", "2026-10-10")
    chain = ("消息队列先用 RabbitMQ", "消息队列换成 Kafka，吞吐更高", "消息队列最后定为 Redis Streams，运维更省事")
    saved = [daily_line(mem, text, day, f"s{i}") for i, (text, day) in enumerate(zip(chain, days))]
    for i, text in enumerate(t for t in _OTHER_SUBJECTS if not t.isascii()):
        daily_line(mem, text, f"2026-09-{10 + i}", f"f{i}")
    assert mem.search("which message queue do we use now?", limit=5, mode=mode)[0].id \
        == saved[-1]["id"]


def test_a_question_its_own_words_answer_is_not_judged_across_languages(mem, monkeypatch):
    """Counting the glossary's words every time took a newer line that shares only
    "base image" (as 基础镜像) for the subject of "Dockerfile 的 base image 现在是哪个"."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    daily_line(mem, "Dockerfile base image is node:18-alpine", "2026-09-10", "a")
    answer = daily_line(mem, "Switched the Dockerfile base image from node:18-alpine to node:20-alpine",
                        "2026-09-25", "b")
    daily_line(mem, "CI 拉基础镜像时被 Docker Hub 限流", "2026-09-28", "c")
    for i, text in enumerate(_OTHER_SUBJECTS):
        daily_line(mem, text, f"2026-09-{10 + i}", f"f{i}")
    assert mem.search("Dockerfile 的 base image 现在是哪个", limit=5)[0].id == answer["id"]


_OTHER_SUBJECTS = ("Postgres 16 is the main database", "数据库连接池大小设为 20",
                   "CI runs on GitHub Actions with a pnpm cache", "发版窗口是每周二和周四",
                   "Sentry collects errors from the API", "日志统一输出 JSON 格式",
                   "The API rate limit is 100 requests per minute", "Redis 缓存 TTL 设为 3600 秒",
                   "Staging runs on a single VM for now", "告警走钉钉群和短信",
                   "Docker images are built multi-stage", "登录用手机号加短信验证码",
                   "Secrets management moves to Vault", "Access logs are kept for 30 days",
                   "订单状态用枚举表示", "权限管理放在 admin 后台")


def test_originally_puts_the_oldest_value_first(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    first = daily_line(mem, "worker concurrency 设为 5", "2026-09-16", "a")
    daily_line(mem, "worker concurrency 从 5 提到 10", "2026-10-09", "b")
    assert mem.search("最早的时候 worker concurrency 是多少", limit=3)[0].id == first["id"]


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
@pytest.mark.parametrize("query, answer, near", [
    ("What did we change about the gateway port on Oct 12?", "网关端口从 9090 改成 8443，走 TLS",
     "Port-forwarding notes updated for the new laptops"),
    ("10月12号网关的端口改成了什么", "Gateway port moved from 9090 to 8443 with TLS",
     "笔记本的端口转发说明更新了"),
])
def test_a_named_day_brings_its_records_said_in_the_other_language(mem, monkeypatch, mode, query,
                                                                    answer, near):
    """The dated list held the day's keyword matches in the question's language only: with
    one of them that day ("Port-forwarding notes…"), the answer in the other language was
    left to the whole store's list, where thirty notes about the gateway port on other days
    outranked it."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    for i in range(30):
        day = f"2026-09-{1 + i % 28:02d}"
        daily_line(mem, f"Gateway port check {i}: the gateway still answers on its port", day, f"g{i}")
        daily_line(mem, f"网关端口巡检 {i}：网关端口正常", day, f"z{i}")
    daily_line(mem, near, "2026-10-12", "n")
    said = daily_line(mem, answer, "2026-10-12", "a")
    for i, text in enumerate(_OTHER_SUBJECTS):
        daily_line(mem, text, "2026-10-12", f"f{i}")
    assert said["id"] in ids(mem.search(query, limit=5, mode=mode))


def test_a_named_day_brings_that_days_records_forward(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    for day in ("2026-09-10", "2026-09-11", "2026-09-13", "2026-09-14"):
        daily_line(mem, f"Rate limit for the public API reviewed, no change ({day})", day, day)
    that_day = daily_line(mem, "Added a global rate limit of 100 requests per minute", "2026-09-12", "x")
    for query in ("What rate limit did we add on Sept 12?", "9月12号加的 rate limit 是多少",
                  "rate limit 2026-09-12"):
        assert mem.search(query, limit=3)[0].id == that_day["id"]
    yesterday = daily_line(mem, "Rate limit dashboards moved to Grafana", "2026-10-14", "y")
    assert mem.search("what happened to the rate limit yesterday", limit=3)[0].id == yesterday["id"]


def test_an_event_named_as_the_time_is_dated_by_the_records_about_it(mem, monkeypatch):
    """"The day before launch": the store says when the launch was (the day most of its
    records about it were written or name), and that day's records come forward."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    daily_line(mem, "Sentry is postponed until after launch", "2026-09-11", "a")
    daily_line(mem, "上线目标日期定在9月30日", "2026-09-18", "b")
    for i, text in enumerate(("v1.0.0 上线了", "上线后办公室的同事被限流", "上线当天注册用户127个")):
        daily_line(mem, text, "2026-09-30", f"c{i}")
    for day in ("2026-09-15", "2026-10-05", "2026-10-10"):
        daily_line(mem, f"Redis cache TTL reviewed, unchanged ({day})", day, day)
    before = daily_line(mem, "Redis cache TTL shortened from 86400 to 21600 for the launch", "2026-09-29", "d")
    assert mem.search("the day before launch, why did the cache TTL change?", limit=3)[0].id \
        == before["id"]
    assert mem.search("上线前一天 Redis cache TTL 为什么改了", limit=3)[0].id == before["id"]
    hits = mem.search("上线当天有多少用户注册", limit=3)
    assert hits[0].content == "上线当天注册用户127个"


def test_an_event_planned_ahead_is_dated_by_the_day_it_was_planned_for(mem, monkeypatch):
    """"她下周三出报告", written on a Friday, dates the report to the Wednesday after; the
    day the plan was written is not the event's."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2027-04-10T12:00:00Z")
    daily_line(mem, "外部安全审计是 Olivia 做的，她下周三出安全报告", "2027-03-19", "a")  # a Friday
    daily_line(mem, "数据库连接池 max_conns 先设 10", "2027-03-19", "b")
    that_day = daily_line(mem, "数据库连接池 max_conns 从 40 降到 25", "2027-03-24", "c")
    daily_line(mem, "数据库连接池 max_conns 调回 30", "2027-04-02", "d")
    hits = mem.search("Olivia 出安全报告那天，数据库连接池怎么调的？", limit=4)
    assert [h.id for h in hits if "连接池" in h.content][0] == that_day["id"]


def test_an_event_named_in_one_language_is_dated_by_notes_in_the_other(mem, monkeypatch):
    """"The Friday before the pilot launch": the notes say 试点上线 (docs/retrieval.md
    "Events across languages"); the English ones name the pilot, never its launch."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2027-04-15T12:00:00Z")
    daily_line(mem, "鲜达要求试点在 3 月 29 日上线，先跑 40 台车", "2027-03-10", "a")
    daily_line(mem, "v1.0.0 试点上线 prod，09:00 先接入 10 台车", "2027-03-29", "b")
    daily_line(mem, "试点上线后 40 台车全部在线", "2027-03-29", "c")
    decided = daily_line(mem, "Go/no-go: we decided to go, with helm rollback as the fallback",
                         "2027-03-26", "d")
    daily_line(mem, "Pilot success criteria: 99% of telemetry points arrive within 2 minutes",
               "2027-03-01", "e")
    daily_line(mem, "We decided to shard the ingest topic by region", "2027-04-09", "f")
    for i, topic in enumerate(("Redis TTL", "Kafka partitions", "JWT audience", "报表 API",
                               "告警 debounce", "Timescale retention", "App 状态管理", "CI runner",
                               "ERP webhook", "OSS 归档", "设备固件", "pgxpool")):
        daily_line(mem, f"{topic} reviewed, no change", f"2027-03-{i + 12:02d}", f"x{i}")
    hits = mem.search("What did we decide on the Friday before the pilot launch?", limit=3,
                      mode="fts")
    assert hits[0].id == decided["id"]


def test_the_start_of_the_project_is_the_stores_first_day(mem, monkeypatch):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", "2026-10-15T12:00:00Z")
    first = daily_line(mem, "数据库选 PostgreSQL 16，ORM 用 Prisma", "2026-09-01", "a")
    daily_line(mem, "数据库 ORM 重新选了：从 Prisma 换成 Drizzle", "2026-09-21", "b")
    daily_line(mem, "数据库 ORM 选 Drizzle", "2026-09-23", "c")
    hits = mem.search("项目刚开始那周数据库和 ORM 选的什么？", limit=3)
    assert hits[0].id == first["id"] and hits[0].score > hits[1].score


# --- long conversation queries -----------------------------------------------------------

def test_in_a_conversation_the_first_and_the_last_line_find_their_memories(mem):
    early = mem.save_fact("Bart 在公园和朋友踢足球")
    late = mem.save_fact("Bart 在家里给小乌龟换水")
    mem.save_fact("项目周会改到周三下午")
    talk = '<Bart>:"今天在公园踢足球了"\n<Assistant>:"真不错"\n<Bart>:"回家后我给小乌龟换水"'
    assert set(ids(mem.search(talk, mode="fts", limit=2))) == {early["id"], late["id"]}


def test_in_small_talk_around_a_question_the_question_counts_most(mem):
    """MemDaily's noisy questions: the small talk shares more words with chit-chat lines
    than the question does with its answer."""
    for chat in ["今天走了好多路，腿好酸", "那个湖的颜色真美", "排队排了好久才吃上", "今天天气真好",
                 "小吃真是太好吃了", "下次还想再来"]:
        mem.save_fact(chat)
    fact = mem.save_fact("建筑招聘会的地点是广东深圳")
    found = ids(mem.search("今天走了好多路，那个湖的颜色真美，小吃也太好吃了，排队排了好久。"
                           "对了，建筑招聘会在哪里举行？", mode="fts", limit=3))
    assert found[0] == fact["id"]


def test_a_query_of_questions_only_weighs_them_alike():
    from memory_core.text import ASKING_WEIGHT, weighted_terms
    assert {w for _, w in weighted_terms("Redis 的 TTL 是多少？为什么改？")} == {1}
    assert {w for _, w in weighted_terms("TTL 改过。Redis 的 TTL 是多少？")} == {1, ASKING_WEIGHT}
    # the "?" of a link's query string ends no sentence: nothing here asks
    assert {w for _, w in weighted_terms("see https://x.com/api?user=1 for the output")} == {1}


def test_a_prompt_of_several_lines_is_no_conversation_and_matches_no_single_character(mem):
    """Single characters are for a conversation's related words; a prompt of several lines
    that no speakers say ("报错了" then the question) matched "报名截止到周五" by its 报."""
    rollback = mem.save_fact("回滚用 kubectl rollout undo deployment/api")
    unrelated = mem.save_fact("报名截止到周五")
    found = ids(mem.search("部署脚本报错了\n怎么回滚到上一个版本？", mode="fts"))
    assert found[0] == rollback["id"] and unrelated["id"] not in found


def test_in_a_conversation_the_word_it_repeats_outweighs_words_said_once(mem):
    """A dialogue about a magic show that mentions a hall and Friday once each: the memory
    of the magic is what it is about, not the one that shares two passing words."""
    magic = mem.save_fact("Bart 看了一场魔术表演")
    passing = mem.save_fact("Bart 周五在礼堂参加合唱比赛")
    mem.save_fact("项目周会改到周三下午")
    talk = ('<Bart>:"我最近在练魔术"\n<Assistant>:"魔术很酷！练的是哪一个？"\n'
            '<Bart>:"纸牌魔术，周五要在礼堂演"')
    found = ids(mem.search(talk, mode="fts", limit=3))
    assert found[:2] == [magic["id"], passing["id"]]


def test_a_conversation_also_matches_single_characters(mem):
    related = mem.save_fact("Bart 参加了篮球比赛，得了第二名")
    mem.save_fact("项目周会改到周三下午")
    talk = '<Bart>:"我们今天打篮球赛了"\n<Assistant>:"结果怎么样？"\n<Bart>:"我们赢了！"'
    assert mem.search(talk, mode="fts", limit=1)[0].id == related["id"]


def test_past_the_postings_budget_the_most_common_words_are_dropped(mem, monkeypatch):
    """A query of one rare and one common word over a store where the common word is
    everywhere: the rare word decides, the common one is not scored at all."""
    from memory_core import search
    from memory_core.text import weighted_terms

    for i in range(30):
        mem.save_fact(f"deploy note {i}: the deploy went fine")
    mem.save_fact("deploy of the zanzibar gateway failed twice")
    mem.sync(embed=False)

    def terms(query):
        return mem.index.run(lambda conn: search.affordable(conn, weighted_terms(query)))

    assert terms("deploy zanzibar") == [("deploy", 1), ("zanzibar", 1)]  # within budget
    monkeypatch.setattr(search, "POSTINGS_BUDGET", 10)
    assert terms("deploy zanzibar") == [("zanzibar", 1)]
    assert terms("deploy") == [("deploy", 1)]  # the rarest term always stays
    hits = mem.search("deploy zanzibar", mode="fts", limit=5)
    assert [h.content for h in hits] == ["deploy of the zanzibar gateway failed twice"]


def test_forgotten_records_at_the_top_of_the_keyword_list_do_not_crowd_out_live_ones(mem):
    """Keyword candidates are ranked in the FTS table alone and filtered afterwards; when the
    best-ranked rows are all hidden, the filtered query still finds the live ones."""
    dead = [mem.save_fact("quokka quokka quokka quokka habitat survey") for _ in range(12)]
    for record in dead:
        mem.forget(record["id"])
    live = mem.save_fact("one quokka was seen near the river, among many other animals")
    hits = mem.search("quokka", mode="fts", limit=2)
    assert [h.id for h in hits] == [live["id"]]
    assert len(mem.search("quokka", mode="fts", limit=2, history=True)) == 2


def test_documents_embedded_in_parallel_batches_come_back_in_order(mem):
    import numpy as np

    from memory_core import embeddings
    embedder = mem.embedder()
    # of different lengths, so batches (grouped by length) do not follow the input order
    texts = [f"note {i}: 第{i}次部署 used port {8000 + i}" + " and more" * (i % 7)
             for i in range(2 * embeddings.MAX_BATCH + 5)]
    together = embedder.embed(texts)
    assert together.shape == (len(texts), embedder.dims)
    for i in (0, 5, embeddings.MAX_BATCH, len(texts) - 1):
        assert np.allclose(together[i], embedder.embed([texts[i]])[0], atol=1e-5)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def test_a_model_loaded_with_a_thread_per_core_gives_the_same_vectors(tmp_path):
    """The MCP server loads the model with several threads per call (a lone query's
    embedding is its wait); the vectors must be those every other process makes."""
    import numpy as np

    from memory_core import Memory, embeddings
    single = Memory(tmp_path / "a").embedder()
    threaded = Memory(tmp_path / "b").embedder(threads=2)
    assert threaded is not single
    assert threaded.model.model.model.get_session_options().intra_op_num_threads == 2
    assert threaded.workers == 1  # batches in turn: each already has every core
    texts = ["deploy window is Friday", "决定使用 Redis 作为会话缓存", "x" * 300]
    assert np.allclose(threaded.embed(texts), single.embed(texts), atol=1e-5)
    assert np.allclose(threaded.embed_query(texts[0]), single.embed_query(texts[0]), atol=1e-5)
    assert embeddings.load(tmp_path / "a", threads=2) is threaded  # loaded once per process


def test_a_pasted_page_is_searched_by_its_first_2000_characters_and_says_so(mem):
    """A 100,000-character Chinese query cost 8 s of keyword search (the MCP server holds
    its lock meanwhile); it is read for its first 2,000 characters, with a note."""
    wanted = mem.save_fact("接口超时设置为 15 秒")
    page = "接口超时是多少？" + "这是一段粘贴进来的长文。" * 9000
    hits = mem.search(page, mode="fts")
    assert hits[0].id == wanted["id"]
    assert any("first 2,000 characters" in n for n in hits.notes)
    assert not mem.search("接口超时是多少？", mode="fts").notes


def test_the_2000_characters_are_counted_as_read_after_full_width_folding(mem):
    """"㎉" reads as "kcal": 2,000 of them were 8,000 characters past the cap, and a long
    word was re-read from each of its letters (8,000: 1.4 s; found by a hostile review)."""
    mem.save_fact("接口超时设置为 15 秒")
    hits = mem.search("\u3389" * 600, mode="fts")  # 600 characters, 2,400 as read
    assert any("first 2,000 characters" in n for n in hits.notes)


def test_full_width_letters_and_digits_match_their_ascii_forms(mem):
    """"ＴＴＬ是３６００秒" was found by neither "TTL" nor "3600", though duplicate detection
    already took it for "TTL是3600秒" (found by a hostile review)."""
    wide = mem.save_fact("ＴＴＬ是３６００秒")
    redis = mem.save_fact("Redis TTL 是 60 秒")
    assert wide["id"] in [h.id for h in mem.search("TTL", mode="fts")]
    assert [h.id for h in mem.search("3600", mode="fts")] == [wide["id"]]
    assert [h.id for h in mem.search("ＲＥＤＩＳ", mode="fts")] == [redis["id"]]


@pytest.mark.parametrize("mode", ["hybrid", "vector", "fts"])
def test_half_an_emoji_in_a_query_is_searched_not_raised_on(mem, mode):
    """A lone surrogate (half an emoji, as JSON.stringify cuts them) reached the model's
    tokenizer through the Python API and raised TypeError (found by a hostile review; the
    CLI and MCP server already guarded against it). It reads as U+FFFD now."""
    wanted = mem.save_fact("Redis TTL is 60 seconds")
    assert ids(mem.search("Redis\udfff TTL", mode=mode))[:1] == [wanted["id"]]
    mem.search("\ud800", mode=mode)  # answers


def test_a_name_written_with_underscores_is_found_as_written_before_its_parts(mem):
    """"what's HARBOR_BATTLE": the index reads the name as harbor + battle, which every line
    about the harbor-battle service shares, so the one line holding the stream's name came
    fifth behind notes that say harbor-battle twice (devmem-third's tune half)."""
    mem.save_fact("harbor-battle is the battle server; harbor-battle runs one process per node")
    mem.save_fact("CLS topics are harbor-battle-prod and harbor-lobby-prod; harbor-battle logs go there")
    mem.save_fact("The harbor-battle image is pre-pulled: harbor-battle:v1.0.0 on every node")
    mem.save_fact("Settlement events go over NATS JetStream: stream HARBOR_BATTLE, durable consumer lobby")
    for mode in ("fts", "hybrid"):
        hits = mem.search("what's HARBOR_BATTLE", limit=3, mode=mode)
        assert "stream HARBOR_BATTLE" in hits[0].content, mode


@pytest.mark.parametrize("query, names", [
    ("what's HARBOR_BATTLE", ["harbor_battle"]),
    ("src/app.py 里的 TODO", ["src/app.py"]),
    ("alert:state:<vehicle_id> 存的什么", ["alert:state", "vehicle_id"]),
    ("real-time on-call e.g. 10:30 v1.0 MEMORY.md", []),  # words, an abbreviation, a time, a version, a file
])
def test_written_names_are_those_with_underscores_dots_slashes_or_colons(query, names):
    from memory_core.text import written_names
    assert written_names(query) == names


# --- lines that say nothing ----------------------------------------------------------------

@pytest.mark.parametrize("mode", ["fts", "hybrid", "vector"])
def test_a_line_that_says_nothing_does_not_answer_a_question_sharing_its_word(mem, mode):
    """"收到" shares a word with "手机上收到的提醒" and, being short, outscored the line the
    question is about (devmem-fourth's tune half); the test model also puts every short
    Chinese line near every Chinese query."""
    for day, said in [("2026-03-01", "收到"), ("2026-03-02", "ok 收到"), ("2026-03-03", "好的 收到"),
                      ("2026-03-04", "好的好的"), ("2026-03-05", "周末愉快")]:
        daily_line(mem, said, day, f"chat-{day}")
    sms = daily_line(mem, "短信提醒的模板改一个字都要重新审核，一般 1 到 2 个工作日", "2026-03-06", "chat-6")
    hits = mem.search("手机上收到的短信提醒，模板想调整，要等多久？", mode=mode, limit=5)
    assert ids(hits)[0] == sms["id"]
    assert all(h.content == sms["content"] for h in hits)


def test_a_query_that_says_nothing_finds_the_lines_that_say_it(mem):
    said = daily_line(mem, "收到", "2026-03-01", "chat-1")
    daily_line(mem, "短信提醒的模板改一个字都要重新审核", "2026-03-02", "chat-2")
    assert ids(mem.search("收到", mode="fts", limit=5))[0] == said["id"]


def test_a_line_that_says_nothing_still_answers_the_question_before_it(mem):
    """"Sure, see you then!" is the answer to "Can you come on Friday?"."""
    asked = daily_line(mem, "Mia: Can you come to the dance studio on Friday?", "2026-03-01", "chat-1")
    reply = daily_line(mem, "Leo: Sure, see you then!", "2026-03-01", "chat-1")
    found = ids(mem.search("Will Leo come to the dance studio on Friday?", mode="fts", limit=5))
    assert found.index(reply["id"]) == found.index(asked["id"]) - 1


def test_two_words_with_a_slash_find_a_record_that_says_them_apart(mem):
    wanted = daily_line(mem, "Truck hardware and the on-board agent: one T-Box and three probes",
                        "2026-03-01", "s-1")
    for i, said in enumerate(["Escalation goes to the duty agent first",
                              "New hardware arrives on Monday"], 2):
        daily_line(mem, said, f"2026-03-0{i}", f"s-{i}")
    assert ids(mem.search("notes on the hardware/agent", mode="fts", limit=5))[0] == wanted["id"]


# --- a question that asks why ----------------------------------------------------------------

@pytest.mark.parametrize("reason, other, query", [
    ("Redis Streams 的 pending 列表一直涨，原因是 XCLAIM 的逻辑太绕",
     "Redis Streams 的监控面板在 Grafana 上", "为什么结算消息不用 Redis Streams 了？"),
    ("The reason lobby login p99 blew up: the SSO callback was synchronous",
     "lobby login p99 is on the Grafana board", "Why did lobby login p99 blow up?"),
])
@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_a_question_that_asks_why_puts_the_line_that_gives_the_reason_above(mem, mode, reason,
                                                                             other, query):
    """Both lines are about the question and the other is shorter (BM25 puts it above); the
    one that says it is a reason (原因, "reason") answers why."""
    said = daily_line(mem, reason, "2026-03-01", "s-1")
    plain = daily_line(mem, other, "2026-03-02", "s-2")
    daily_line(mem, "结算服务的消息量每天大约两百万条", "2026-03-03", "s-3")
    found = ids(mem.search(query, mode=mode, limit=5))
    assert found.index(said["id"]) < found.index(plain["id"])


@pytest.mark.parametrize("query", ["Why does the build take so long?", "为什么 build 这么慢"])
def test_a_line_that_gives_a_reason_for_something_else_is_no_answer_to_why(mem, query):
    """"原因：磁盘满了" says nothing of the build: a reason only ranks the lines about the
    question (the first version put such lines first: 原因 is rarer than "build")."""
    for i, said in enumerate(["the build uses a remote cache", "build artifacts go to S3",
                              "原因：磁盘满了", "原因未知，重启后恢复了", "Reason: the cert expired"], 1):
        daily_line(mem, said, f"2026-03-0{i}", f"s-{i}")
    assert all("build" in h.content for h in mem.search(query, mode="fts", limit=5))
