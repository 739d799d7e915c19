"""Hostile review (2026-11-28, by a helper who had not written the code) of two changes:
now-questions judged across languages when a question's own words do not say what it is
about (search.promote_by_time, idf_coverage, either_language), and recall's candidates and
coverage through the glossary's other-language words (recall.candidates at 2827765). The
second was taken back after this review: the recall tests below that name a defect now
guard against its return, and recall across languages is a strict xfail.
xfail(strict): a defect found; the rest: behaviour that holds."""
import pytest

from storeutil import BILINGUAL_BACKGROUND, daily_line

NOW = "2026-10-15T12:00:00Z"
# Other subjects in both languages, so idf means something (about 40 records with the lines of a test)
BACKGROUND = list(BILINGUAL_BACKGROUND) + [
    "Postgres 16 is the main database", "数据库连接池大小设为 20", "CI runs on GitHub Actions with a pnpm cache",
    "发版窗口是每周二和周四", "Sentry collects errors from the API", "日志统一输出 JSON 格式",
    "The API rate limit is 100 requests per minute", "Redis 缓存 TTL 设为 3600 秒",
    "Staging runs on a single VM for now", "告警走钉钉群和短信", "Docker images are built multi-stage",
    "登录用手机号加短信验证码", "Secrets management moves to Vault", "Access logs are kept for 30 days",
    "订单状态用枚举表示", "权限管理放在 admin 后台"]


def store(mem, lines) -> dict:
    """The background (August) and `lines` [(text, day)]; {text: id}."""
    for i, text in enumerate(BACKGROUND):
        daily_line(mem, text, f"2026-08-{1 + i % 28:02d}", f"bg{i}")
    saved = {text: daily_line(mem, text, day, f"s{i}")["id"] for i, (text, day) in enumerate(lines)}
    mem.sync(embed=False)  # recall syncs with a deadline of 80 ms: a fresh store would be half read
    return saved


def first(mem, query, mode):
    hits = mem.search(query, limit=5, mode=mode)
    return hits[0].content if hits else None


# --- now-questions ----------------------------------------------------------------------------

MQ = [("消息队列先用 RabbitMQ", "2026-09-01"), ("消息队列换成 Kafka，吞吐更高", "2026-09-20"),
      ("消息队列最后定为 Redis Streams", "2026-10-10"), ("消息推送走极光", "2026-10-12")]
NIGHTLY = [("每晚备份在 02:00 运行", "2026-09-01"), ("每晚备份改到 03:30", "2026-09-20"),
           ("接口超时时间改成 10 秒", "2026-10-12")]


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_guard_a_mixed_question_finds_the_newest_chinese_value(mem, monkeypatch, mode):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    store(mem, MQ)
    assert first(mem, "我们现在用哪个 message queue", mode) == "消息队列最后定为 Redis Streams"


@pytest.mark.xfail(strict=True, reason="an English line with 'use' holds all of `whole` (message/"
                   "queue are only in Chinese): the gate stays shut and 'use' decides")
@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_which_x_do_we_use_now_finds_the_chinese_answer_beside_english_lines_with_use(mem, monkeypatch, mode):
    """The change's own case, "Which message queue do we use now?" to a store that says 消息队列,
    fails as soon as the store also holds ordinary English notes with "use" ("We use pnpm
    workspaces", "Use conventional commits"): the question's only word the store holds in
    English is "use", the newest such note is put first. tests/test_search.py passes because
    its store for this question has no English line."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    store(mem, MQ)
    assert first(mem, "Which message queue do we use now?", mode) == "消息队列最后定为 Redis Streams"


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_guard_a_mixed_question_its_own_words_answer_ignores_a_newer_line_sharing_broad_words(
        mem, monkeypatch, mode):
    """"order service" in English is in the answers; the newer 订单服务 line shares only that."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    store(mem, [("Order service is on Kafka 3.5", "2026-09-01"), ("Order service upgraded to Kafka 3.7", "2026-09-20"),
                ("订单服务日志改成 JSON", "2026-10-12")])
    for query in ("现在 order service 用哪个 Kafka 版本", "Which Kafka version is the order service on now?"):
        assert first(mem, query, mode) == "Order service upgraded to Kafka 3.7"


def test_guard_these_days_finds_the_chinese_answer_the_old_code_missed(mem, monkeypatch):
    """Before the change "CI runs on GitHub Actions" (sharing "run") came first."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    store(mem, NIGHTLY)
    assert first(mem, "When does the nightly backup run these days?", "fts") == "每晚备份改到 03:30"
    assert first(mem, "现在每晚备份几点跑", "fts") == "每晚备份改到 03:30"


@pytest.mark.parametrize("query", [
    "What is the zookeeper quorum size now?", "现在 Flink checkpoint 间隔多少", "now", "现在",
    '"state management" now', "state* management now?", "NEAR(state management) now", "state -management now",
    "{content}: 状态管理 现在", "state AND management OR now", '现在 "" ** ::', "😀 状态管理 现在 🚀",
    "现在 ❤️\u200d🔥 🇨🇳", "C++ 现在用哪个标准", "what is `state` now", "now:state", '"', "(", "NOT now",
    "still NEAR/3 state", "state\x00management now", "ＳＴＡＴＥ management now", "what's --max-old-space-size now?",
    "now " + "状态管理 " * 300, "these days " + "x" * 3000, "现在 " + "'\"\\ " * 50])
def test_guard_odd_now_questions_answer_without_raising(mem, monkeypatch, query):
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    store(mem, [("App 状态管理先用 GetX", "2026-09-01"), ("现在 App 状态管理统一用 flutter_bloc", "2026-10-10"),
                ('He said "state" is NEAR the top: use * carefully', "2026-10-11")])
    for mode in ("fts", "hybrid"):
        assert len(mem.search(query, limit=5, mode=mode)) <= 5


@pytest.mark.xfail(strict=True, reason="the cross-language judging is skipped when a stale "
                   "record states the old value in the question's own words")
@pytest.mark.parametrize("query, lines, answer", [
    ("What does the order service run its tests against now?",
     [("The order service runs its tests against SQLite", "2026-09-10"),
      ("订单服务测试改用 Testcontainers 跑 Postgres", "2026-10-01")], "订单服务测试改用 Testcontainers 跑 Postgres"),
    ("订单服务现在用什么跑测试",
     [("订单服务测试用 SQLite 跑", "2026-09-10"),
      ("Order service tests now run against Postgres via Testcontainers", "2026-10-01")],
     "Order service tests now run against Postgres via Testcontainers"),
    ("What is the cache TTL now?",  # the old value said in both languages
     [("cache TTL 设为 3600 秒（Redis 缓存）", "2026-09-01"), ("缓存 TTL 改成 86400 秒", "2026-10-10")],
     "缓存 TTL 改成 86400 秒"),
])
def test_a_value_changed_later_in_the_other_language_is_the_current_one(mem, monkeypatch, query, lines, answer):
    """The most common bilingual history: a value first noted in one language, changed later
    in the other. The old record holds every word of the question, so the gate ("no record
    holds half the question's weight in its own words") never opens; the newer record holds
    too little in the question's language (at most a name such as TTL) to be "about" it: the
    stale value is answered as the current one, the case this change was made for."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    store(mem, lines)
    assert first(mem, query, "fts") == answer


@pytest.mark.parametrize("query, mode", [
    # The store says time/backup only in Chinese, so `whole` is "nightly" + "run"; "The
    # nightly job writes to the reports bucket" holds over half of it, the gate stays shut,
    # and the newest English line with "run" ("CI runs on GitHub Actions with a pnpm cache",
    # August) is put first.
    pytest.param("What time does the nightly backup run now?", "fts", marks=pytest.mark.xfail(strict=True, reason=(
        "`whole` leaves out the words the store holds only in the other language: two "
        "English words shut the gate and decide"))),
    # "days" opens the gate, and across languages "接口超时时间改成 10 秒" (API timeout is 10 s)
    # holds "time" — rare, so over half of what the answers hold — and is the newest: the API
    # timeout is answered as the backup's time. (Before the change an English "run" line came
    # first: wrong too, but no invented link.)
    *(pytest.param("What time does the nightly backup run these days?", mode, marks=pytest.mark.xfail(strict=True, reason=(
        "new: 'time' bridges to 时间, the last two characters of 超时时间 (timeout), and the "
        "timeout line is newest"))) for mode in ("fts", "hybrid")),
    # "Access logs are kept for 30 days" comes first: it holds "days", the question's rarest
    # word in English. Old and new alike.
    pytest.param("What time is the nightly backup these days?", "fts", marks=pytest.mark.xfail(strict=True, reason=(
        "pre-existing: 'days' of the marker 'these days' is read as a subject word (and the "
        "glossary adds 天数)"))),
])
def test_the_nightly_backup_time_is_answered_by_the_backup_line(mem, monkeypatch, query, mode):
    """Three ways of asking when the nightly backup runs, to a store that says it in Chinese
    beside a newer API timeout (超时时间) and English lines with "nightly", "run", "days"."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    store(mem, NIGHTLY)
    assert first(mem, query, mode) == "每晚备份改到 03:30"


@pytest.mark.xfail(strict=True, reason="a bridged two-word term counts as two units: a record "
                   "with one of its words is exactly half of the answer, so 'about'")
@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_a_newer_line_with_one_word_of_the_term_is_not_the_subject(mem, monkeypatch, mode):
    """"What's the state management solution these days?" to a store whose answers say 状态管理:
    "state" and "management" are each covered by 状态管理 (2 units), a newer English line with
    "state" alone holds 1 unit of the same weight, exactly ABOUT_SHARE of the best, and being
    newest it is put first over "现在 App 状态管理统一用 flutter_bloc"."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    store(mem, [("App 状态管理先用 GetX", "2026-09-01"), ("App 状态管理改用 Riverpod 2", "2026-09-20"),
                ("现在 App 状态管理统一用 flutter_bloc", "2026-10-10"),
                ("Redux DevTools only read global state in debug builds", "2026-10-12")])
    assert first(mem, "What's the state management solution these days?", mode) \
        == "现在 App 状态管理统一用 flutter_bloc"


@pytest.mark.xfail(strict=True, reason="regression: once the gate opens, a newer Chinese line "
                   "sharing only billing/service/database outranks the English ORM answer")
@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_a_broad_words_line_in_the_other_language_does_not_displace_the_answer(mem, monkeypatch, mode):
    """Before the change "Billing moved from Prisma to Drizzle ORM" came first. Now the
    English answers (which say "Billing", not "billing service") leave the gate open, and
    "计费服务数据库连接数上限调到 50" — billing service DB connections, no ORM — holds
    billing+service+database through the glossary, is "about" the question and newest."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    store(mem, [("Billing uses Prisma as its ORM", "2026-09-01"), ("Billing moved from Prisma to Drizzle ORM", "2026-09-20"),
                ("计费服务数据库连接数上限调到 50", "2026-10-12"), ("用户服务的测试数据每天重置", "2026-10-13"),
                ("The order service runs its tests against SQLite", "2026-09-10"),
                ("订单服务测试改用 Testcontainers 跑 Postgres", "2026-10-01"), ("订单服务的数据每天凌晨同步到数仓", "2026-10-11")])
    assert first(mem, "Which ORM does the billing service use for database access now?", mode) \
        == "Billing moved from Prisma to Drizzle ORM"


@pytest.mark.xfail(strict=True, reason="a newer English line sharing the question's broad "
                   "words keeps the gate shut; the Chinese answers hold only 'Kafka'")
def test_chinese_answers_beat_a_newer_english_line_sharing_only_the_service_name(mem, monkeypatch):
    """"Which Kafka version is the order service on now?" with the versions in Chinese and a
    newer "Order service logs are JSON now": the log line is put first."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", NOW)
    store(mem, [("订单服务用 Kafka 3.5", "2026-09-01"), ("订单服务升级到 Kafka 3.7", "2026-09-20"),
                ("Order service logs are JSON now", "2026-10-12")])
    assert first(mem, "Which Kafka version is the order service on now?", "fts") == "订单服务升级到 Kafka 3.7"


# --- recall -----------------------------------------------------------------------------------

RECALL_LINES = [
    "The billing service exports invoices as PDF through wkhtmltopdf", "用户数据每天凌晨备份",
    "周一上午的例会改到周二", "周末值班表在飞书文档里", "今天 staging 又挂了，原因是磁盘满", "团队周报模板更新了",
    "订单服务的测试覆盖率要求 80%", "移动端配置文件在 assets 目录", "新人第一周先看架构文档",
    "修复了导出报表时的时区问题", "会议室预订走飞书", "下班前记得提交日报", "时间戳统一存 UTC",
    "午饭订餐群在企业微信", "问题单统一提到禅道", "代码评审至少一个人通过", "Fixed the login bug in the auth service",
    "支付服务运行在 k8s 上", "The order API paginates with cursors", "订单接口限流 100 QPS",
    "The weather widget calls OpenWeather every 10 minutes",
]


@pytest.fixture
def recalling(mem):
    saved = store(mem, [(t, f"2026-09-{1 + i:02d}") for i, t in enumerate(RECALL_LINES)])

    def recalled(prompt, exclude=()):
        return [next(t for t, i in saved.items() if i == r) for r in mem.recall(prompt, exclude)[1]]
    recalled.saved = saved
    return recalled


ACROSS = pytest.mark.xfail(strict=True, reason="recall in either language was tried and taken "
                           "back: broad glossary senses recalled notes for everyday prompts (below)")


@pytest.mark.parametrize("prompt, said", [
    pytest.param("发票怎么导出成 PDF？", "The billing service exports invoices as PDF through wkhtmltopdf",
                 marks=ACROSS),
    pytest.param("user data backup", "用户数据每天凌晨备份", marks=ACROSS),
    ("how does the order API paginate?", "The order API paginates with cursors"),
])
def test_guard_a_prompt_recalls_its_memory_in_the_other_language(recalling, prompt, said):
    assert recalling(prompt)[:1] == [said]


@pytest.mark.parametrize("prompt", [
    "how was your weekend?", "have a great weekend, see you monday", "good morning team!",
    "sounds good, thanks team", "let me know when you're done", "see you next week", "today is my first day",
    "what's the plan for today?", "happy friday everyone", "is it lunch time yet?", "thanks, that fixed it!",
    "我今天好累", "周末愉快", "今天几号", "你好，今天过得怎么样", "谢谢，问题解决了", "好的，我们开会吧", "今天天气真好啊",
    "what is the capital of Mongolia and its population", "explain quicksort to me like I'm five"])
def test_guard_small_talk_recalls_nothing(recalling, prompt):
    assert recalling(prompt) == []


@pytest.mark.parametrize("prompt", [
    "", "   ", "🙂🙂🙂 👍", '"*" NEAR(a b) -x: col:foo', "NEAR NEAR NEAR AND OR NOT", 'invoice" OR "x',
    "发票 * 导出 : PDF -", "{content entities}: 发票", "a" * 5000, "数据 " * 2000, "invoice PDF " * 1500,
    "发票\x00导出 PDF", "state\nmanagement\tnow", "ＰＤＦ 发票"])
def test_guard_odd_prompts_recall_without_raising(recalling, prompt):
    assert len(recalling(prompt)) <= 3


def test_guard_a_memory_already_shown_is_not_recalled_again_in_either_language(recalling):
    invoice = recalling.saved["The billing service exports invoices as PDF through wkhtmltopdf"]
    assert recalling("发票怎么导出成 PDF？", exclude=[invoice]) == []


def test_in_order_to_does_not_recall_the_order_service(recalling):
    """A prompt any coding session may send, "in order to test it, what should I do first?",
    got (2827765) "订单服务的测试覆盖率要求 80%" (order service test coverage) injected: order → 订单,
    test → 测试 cover 2 of its 3 words. Before and since: nothing."""
    assert "订单服务的测试覆盖率要求 80%" not in recalling("in order to test it, what should I do first?")


def test_having_time_does_not_recall_timestamps(recalling):
    """"do you have time to review this?" recalled (2827765) "时间戳统一存 UTC" (and two review rules):
    time → 时间 matches the first two characters of 时间戳, and the prompt has only two words.
    Before and since: nothing."""
    assert "时间戳统一存 UTC" not in recalling("do you have time to review this?")


def test_moving_a_file_does_not_recall_the_mobile_client(recalling):
    """"I moved the config file to the root, can you check?" recalled (2827765) "移动端配置文件在 assets
    目录" (the mobile client's config file): moved → 移动, config → 配置, file → 文件."""
    assert "移动端配置文件在 assets 目录" not in recalling("I moved the config file to the root, can you check?")


@pytest.mark.parametrize("prompt", ["please fix this issue", "fix the problem"])
def test_a_generic_fix_request_recalls_no_past_fix(recalling, prompt):
    """The commonest prompt to a coding agent recalled (2827765) "修复了导出报表时的时区问题" (a fixed
    timezone bug in report export): fix → 修复, issue/problem → 问题. Before and since: nothing."""
    assert "修复了导出报表时的时区问题" not in recalling(prompt)


@pytest.mark.parametrize("prompt", ["how's the weather today?", "any problems today?"])
def test_small_talk_about_today_recalls_no_incident(recalling, prompt):
    """"how's the weather today?" recalled (2827765) "今天 staging 又挂了，原因是磁盘满" (a disk-full
    incident): today ↔ 今天 is half of a two-word prompt. "any problems today?" got it with
    two more. Before and since, "today", never said in English, keeps both prompts silent."""
    assert "今天 staging 又挂了，原因是磁盘满" not in recalling(prompt)


@pytest.mark.parametrize("prompt, unrelated", [
    ("服务还在运行吗", "Fixed the login bug in the auth service"),
    ("how does the order API paginate?", "订单接口限流 100 QPS"),
])
def test_recall_brings_no_unrelated_record_in_the_other_language(recalling, prompt, unrelated):
    """"服务还在运行吗" also recalled (2827765) "Fixed the login bug in the auth service", which says
    only "service"; "how does the order API paginate?" also got the order API's rate limit
    (订单 + 接口, no 分页). Neither comes without the bridge (2827765 recalled both); each took one of three slots."""
    assert unrelated not in recalling(prompt)
