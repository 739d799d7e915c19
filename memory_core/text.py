"""Text for FTS5 in Chinese and English, token counts, and normalisation for dedup.

FTS5's unicode61 tokenizer keeps an unspaced Chinese run as one token, so `缓存` is not found
in `决定使用 Redis 作为会话缓存`, and ASCII glued to Chinese (`使用sqlite-vec做索引`) vanishes
with it. We therefore hand FTS5 text that is already cut: ASCII/Latin words as they are,
each Chinese/Japanese run as its overlapping bigrams (so every word of two or more characters
is a phrase of bigrams), then the run's single characters (so one-character words are found
too). Queries are cut the same way and joined with OR, so one missing term never zeroes a
query. Why bigrams and not word segmentation: docs/retrieval.md "Chinese tokenization
options". A small word list (zh_words.txt) cuts queries into words only to judge what a
hit is about (`words`).
"""
from __future__ import annotations

import math
import os
import re
import unicodedata
from dataclasses import dataclass

TOKENIZER_VERSION = "2"  # 2: normalize keeps what separates digits; full-width folded (NFKC)

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
_CJK_RUN = re.compile(rf"[{_CJK}]+")
# An identifier: words joined by - _ / . : @ # with no spaces (sqlite-vec, JWT_SECRET,
# src/auth/jwt.ts, user@host). It is searched as a phrase of its parts. It starts where a
# word does: tried from inside a long word, each start re-read the rest of it (8,000
# letters: 1.4 s).
_IDENT = re.compile(rf"(?<![^\W{_CJK}])[^\W{_CJK}]+(?:[-_/.:@#+][^\W{_CJK}]+)+")

# Words too common to carry meaning in a query; dropped unless nothing else is left.
# "currently still nowadays anymore presently" frame a question about now (temporal reads
# them), as 现在 目前 还 do in Chinese: as keywords they matched the newest line that said
# "still" (docs/retrieval.md "Events across languages, and plans a quarter ahead").
STOPWORDS_EN = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves did does what's let's
i'm it's don't can't 's s t d ll re ve m per via
currently still nowadays anymore presently
""".split())
STOPWORDS_ZH = frozenset("""
的 了 是 在 和 与 及 也 都 就 很 还 又 这 那 有 没 不 吗 呢 吧 啊 呀 哦 嗯 着 过 得 地 么 把 被 给 对 我 你 他 她 它
们 个 之 其 而 或 但 让 从 向 于 为 以 将 会 能 要 可 该 去 来 上 下 中 说 什么 怎么 怎样 如何 哪些 哪个 哪里 为什么
是否 有没有 是不是 我们 你们 他们 她们 它们 这个 那个 这些 那些 一个 一下 现在 当时 时候 的话 就是 还是 或者 然后
所以 因为 如果 可以 已经 之前 以后 一些 以及 多少 几个 吗 呢 那边 这边 那里 这里 目前 当前 如今
""".split())


def blanked(text: str, spans) -> str:
    """The text with these (start, end) spans turned to spaces: what is left once the words
    read as something are taken out ("all of it a time?", "all of it glossary words?")."""
    out = list(text)
    for a, b in spans:
        out[a:b] = " " * (b - a)
    return "".join(out)


def folded(text: str) -> str:
    """NFKC: full-width letters and digits ("ＴＴＬ是３６００秒") as the ASCII ones, so the
    keyword side matches what duplicate detection (normalize) already treats as equal."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def index_terms(text: str) -> str:
    """The text as FTS5 should index it (see the module docstring)."""
    if not text:
        return ""
    text = folded(text)
    out: list[str] = []
    singles: list[str] = []
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if _CJK_RUN.match(tok):
            if len(tok) == 1:
                out.append(tok)
            else:
                out.extend(tok[i:i + 2] for i in range(len(tok) - 1))
                singles.extend(tok)
        else:
            out.append(tok.lower())
    if singles:
        seen = set(out)
        for ch in singles:
            if ch not in seen:
                seen.add(ch)
                out.append(ch)
    return " ".join(out)


# A query of several sentences, some of which ask, is small talk around a question
# ("今天走了好多路…这个活动的地点是什么？"): the asking sentences' terms count three times
# (twice until 2026-11-28; docs/retrieval.md "The sentence that asks", "A second chit-chat
# pool").
ASKING_WEIGHT = 3
# A "?" that asks: not the one of a link's query string ("api?user=1") or a regex.
_IN_CODE_AFTER = "A-Za-z0-9_=&/%#+-"  # what follows such a "?" ("-" last: not a range)
_NOT_ASKING = rf"(?![{_IN_CODE_AFTER}])"
ASKS = re.compile(rf"？|\?{_NOT_ASKING}")
# A sentence also goes on past a "?" before ";" (Rust's `open(url)?;`), and past the full
# stop of an initial or an abbreviation ("Dr. Seuss", "C. S. Lewis", "J.K. Rowling", "the
# U.S. market", "e.g. Redis", "Jan. 5", "Acme Inc. about", "ticket No. 5"), unless a
# question or Chinese follows it ("I picked plan B. Why?", "…Memcached, etc. Which one…",
# "…at 3 p.m. What…", "plan B. 上周…"): the word before a dot cannot tell "plan B." from
# "C. S.", the word after it can. An auxiliary starts a question only capitalised: "the U.S.
# has John been to…" goes on.
_ABBREVIATION = (r"(?<!\b[A-Za-z]\.)(?<!\b(?i:dr|mr|ms|st|jr|sr|vs|no|mt|al)\.)"
                 r"(?<!\b(?i:mrs|etc|inc|ltd|gen|fig|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)\.)"
                 r"(?<!\b(?i:prof|sept|corp)\.)(?<!\b(?i:approx)\.)")
_STARTS_A_QUESTION = (r"(?=(?i:what|why|how|when|where|which|who|whom|whose)\b|[\u4e00-\u9fff]"
                      r"|(?:Did|Do|Does|Is|Are|Was|Were|Can|Could|Should|Would|Will|Has|Have|Had)\b)")
_SENTENCE = re.compile(rf"(?<=[。！？!])|(?<=\?)(?![;{_IN_CODE_AFTER}])"
                       rf"|(?<=[.])(?:{_ABBREVIATION}\s+|\s+{_STARTS_A_QUESTION})")
_CLAUSE = re.compile(_SENTENCE.pattern + r"|(?<=[;；])\s+")
# The lines of a chat in a query (MADial's dialogues, a pasted chat: at least two lines
# that open with a speaker, `<Bart>:`, `Caroline:`, `用户：`, `chat_of`) also match single
# Chinese characters, a kind of stemming for related words (篮球赛 / 篮球比赛). Other lines
# do not, a prompt of several lines included: there the characters only add noise. A
# chat's lines count alike: doubling the last one helped only the dialogues it was chosen
# on (docs/retrieval.md "A MADial-shaped store nobody tuned on").
CONVERSATION_CHARS = True
# A word two or more of a chat's turns say is what the talk is about (元旦晚会 … 魔术 …
# "表演魔术的时候…"): it counts double, as BM25's query term frequency would count it. Its
# words and bigrams only (a single character repeats by chance), not the words that say who
# speaks and when (the lines' openings, a chat app's "小王 10:32" lines, "Melanie" said to
# her), and only in a query that is a chat and nothing else (lines of the user's own, a
# question or a request, lead). docs/retrieval.md "A word the talk repeats".
REPEATED_WEIGHT = 2
# A question that asks why is answered by the line that gives the reason ("why did lobby
# login p99 blow up" / "Root cause: the SSO callback called Passport synchronously"; "为什么
# 不用 Redis Streams 了" / "Redis Streams 的 pending 列表一直涨，原因是…"): the keyword side also
# looks for 原因, which the glossary takes to "reason" and "cause". It is added as a sentence
# of its own that does not ask, so it counts once where the words of a question that reads
# as one count ASKING_WEIGHT times, and it only ranks the lines that hold the question's own
# words: a line that says nothing but "原因：磁盘满了" answers no question about the build
# (search.run drops such keyword candidates). Not "why-did-you-render" nor src/why.ts.
# docs/retrieval.md "A question that asks why".
_WHY = re.compile(r"(?<![\w/.-])(?i:why)(?![\w-]|\.\w)|\b(?i:what)\s+(?:(?i:actually|really)\s+)?"
                  r"(?i:caused)\b|\b(?i:how\s+come)\b|为什么|為什麼|为啥|為啥|为何|為何|干[嘛吗]要")
REASON_WORD = "原因"
_SAYS_REASON = re.compile(r"原因|\b(?i:reasons?|causes?)\b")  # the question looks for it already


def with_reason(query: str) -> str:
    """The query the keyword side reads: with REASON_WORD when it asks why."""
    if not query:
        return query
    text = folded(query)
    return f"{query}。{REASON_WORD}" if _WHY.search(text) and not _SAYS_REASON.search(text) else query


# A line a speaker says opens with their name or role and ":" / "：" (not the one of a link,
# "https://"). The commonest openings of a saved note name what it is, not who said it (a
# Chinese label also ends a longer one: 告警规则, 本周总结, 迁移计划).
_SPEAKER = re.compile(r"\s*([^\s:：/]{1,30})\s?[:：](?!//)")
NOTE_LABELS = frozenset(
    "todo note notes nb fyi ps update fix fixed bug issue decision reason cause result summary "
    "status action next done context problem solution idea tip important".split())
NOTE_LABELS_ZH = tuple(
    "注意 备注 待办 决定 决策 结论 问题 更新 总结 原因 提示 说明 结果 方案 背景 现象 修复 原则 规则 "
    "待定 进展 风险 影响 计划 目标 顺序 策略 格式 命令 配置".split())


_ERROR_NAMES = ("error", "exception", "warning")  # "TypeError:", "UserWarning:"


def said_by(line: str) -> str | None:
    """Who says a line, by its opening ("Caroline: …", "<Bart>:", "用户：…"), case-folded;
    None when it opens with no name: a note's label ("TODO:", "注意：", "TypeError:"), a
    time ("09:15") or a link."""
    name = _opener(line)
    if name is None or _is_label(name) or not any(c.isalpha() for c in name) \
            or name.endswith(_ERROR_NAMES):
        return None
    return name


def spoken(line: str) -> tuple[str | None, str]:
    """(who says a line, what they say): ("leo", "Great!") for "Leo: Great!", (None, the
    line) when no name opens it (said_by)."""
    name = said_by(line)
    return (name, line[_SPEAKER.match(line).end():].strip()) if name else (None, line)


def characters_and_words(text: str) -> list[str]:
    """A text's Latin words, lowercased, and its Chinese or Japanese characters one by one:
    "好的 OK" is 好, 的, ok."""
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        out.extend(m.group() if _CJK_RUN.match(m.group()) else [m.group().lower()])
    return out


def _opener(line: str) -> str | None:
    """What stands before a line's opening colon, case-folded: a name or a label."""
    m = _SPEAKER.match(line)
    return m.group(1).casefold() if m else None


def _is_label(name: str) -> bool:
    return name in NOTE_LABELS or name.endswith(NOTE_LABELS_ZH) or name == "注"


# A time of day as chats stamp it: "10:32", "10:32:01", "10:32 AM" (matched ignoring case).
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]m)?"
# What may stand before a speaker in a pasted chat: a quote mark, a time ("[10:32] 小明: …",
# "[10:32 AM] Bart: …"), or a chat export's day and time (WhatsApp, Teams: "[22/10/2026,
# 10:32:01] Bart: …", "10/22/26, 10:32 PM - Bart: …", "[10/22/2026 10:32 AM] Bart: …"): the
# day as people write it, bracketed with the time or followed by a comma and ending in a
# dash. A log's, a calendar's or a statement's "[2026-10-22 10:32:01] app.INFO: …",
# "2026-10-22 10:32:01 - worker: …", "10/22/2026 10:00 AM - Standup: …" are none.
_DAY = r"\d{1,2}[/.]\d{1,2}[/.]\d{2,4}"
_EXPORT = rf"(?:\[{_DAY},?\s+{_CLOCK}\]\s*|{_DAY},\s+{_CLOCK}\s+[-–—]\s+)"
# Invisible marks an export may open a line with (WhatsApp's U+200E before "image omitted").
_MARKS = "[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]*"
_CHAT_PREFIX = re.compile(rf"{_MARKS}\s*(?:>\s*)*(?:\[?{_CLOCK}\]?\s+|{_EXPORT})?", re.IGNORECASE)
# A bracketed stamp: a chat's, where an agenda's "09:30 Daily Standup: Zoom" is bare.
_STAMPED = re.compile(rf"{_MARKS}\s*(?:>\s*)*(?:\[{_CLOCK}\]\s*|{_EXPORT})", re.IGNORECASE)


def lines(text: str) -> list[str]:
    """A text's lines that are not blank."""
    return [line for line in text.splitlines() if line.strip()]


# Openings that read as a speaker's name and are not one, in a query: a log's or a tool's
# levels ("INFO: server started", "[WRN]:", "hint:", "remote:"), a sentence before the colon
# ("配置如下：", "为什么？原因："), a file and line ("app.py:12:"), a date ("2026-10-22T10:00").
# Markdown's emphasis is read through ("**问题**：" is a label, "**Bart**:" a speaker). Read
# here only: `said_by` also decides which saved lines are a conversation's, so a change
# there changes the index (chunking.CHUNKER_VERSION).
_NOT_SPEAKERS = frozenset("info inf debug dbg warn wrn err trace fatal critical severe notice "
                          "verbose log panic hint remote".split())
_IN_SENTENCE = re.compile(r"[?？,，。!！;；、]")
_FILE_LINE = re.compile(r"\s*\S+\.\w+:\d")
_DATED = re.compile(r"\d{2,4}[-/.]\d")
_EMPHASIS = re.compile(r"[*_]+")
# "Q: …" is the user labelling their own question, unless "A: …" answers it (a pasted Q&A).
_QUESTION_LABELS = frozenset("q question query 问 提问".split())
_ANSWER_LABELS = frozenset("a answer 答 回答".split())
# The user's lead-in to their own words ("请教一下：", "我想问：", "另外：", "@Claude：", "Re:",
# "Follow-up:"), not a speaker's name.
_LEAD_IN = re.compile(r"@|.*(?:问|请|求|咨询|补充|另外|麻烦|顺便)")
_LEAD_INS = frozenset("re fw fwd follow-up followup doubt btw also".split())
# An email's headers open lines as speakers do; its body follows them, to the user's line.
_MAIL_HEADERS = frozenset("from to cc bcc sent date subject reply-to 发件人 收件人 抄送 主题 "
                          "发送时间".split())
# Once a query holds a chat, a name of two or three capitalised words speaks too ("Bart
# Simpson:", "Tony Wang："); alone it would be a heading ("Expected Result:"), unless a chat
# stamps it in brackets or with its day ("[10/22/2026 10:32 AM] Bart Simpson: …").
_FULL_NAME = re.compile(r"\s*(?:[A-Z][\w'-]*\.?\s){1,2}[A-Z][\w'-]*\s?[:：](?!//)")
# A chat app that puts the speaker and the time on a line of their own, the message below
# (WeChat, Slack, Discord, Feishu: "小王 10:32", "Bart Simpson  10:32 AM", "Bart — Today at
# 10:32 AM", "小王 2026-10-22 10:32:01", "小王 10月22日 10:32", Telegram's "Bart, [22.10.26
# 10:32]", Discord's "Bart — 10/22/2026 10:32 AM").
_SPEAKER_ABOVE = re.compile(
    r"\s*[^\s:：\d\[\]]{1,20}(?:\s[^\s:：\d\[\]]{1,20}){0,2}\s+(?:[—–-]\s*)?\[?(?:(?:today|yesterday|今天|昨天)"
    rf"\s*(?:at\s*)?)?(?:\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}\s+|{_DAY},?\s+|(?:\d{{4}}年)?\d{{1,2}}月\d{{1,2}}[日号]\s*)?"
    rf"{_CLOCK}\]?\s*$",
    re.IGNORECASE)
# A chat app's time above the messages it stamps ("昨天 14:32", "2026-10-22 09:15", "[Tuesday
# 10:32 AM]"): the chat's, so its day is not the user's question's.
_TIME_HEADER = re.compile(
    r"\s*\[?(?:(?:昨天|今天|前天|星期.|周.|[a-z]{2,6}day(?![a-z])|上午|下午|晚上|凌晨|中午"
    rf"|[\d\-/.年月日号]|(?<=\d)t(?=\d))\s*)*{_CLOCK}\]?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Chat:
    """The lines of a query that a chat holds (indexes), and whether two or more of them
    open with a speaker (a conversation's reading: single characters too); who opens which
    (line, name), and a chat app's speaker-and-time lines (`_chat_app`)."""
    lines: tuple[int, ...] = ()
    talk: bool = False
    speakers: tuple[tuple[int, str], ...] = ()
    above: tuple[int, ...] = ()


def chat_of(folded_lines: list[str]) -> Chat:
    """Where a query's lines, folded (ＴＯＤＯ： is TODO:), hold a chat: from the first line
    that opens with a speaker (`said_by`, after a quote mark or a time) to the last, two or
    more, the lines between them included (a turn's later lines) except a line the user
    labels ("问题：…", "Q: …"), and the time a chat app stamps above them ("昨天 14:32"); or
    from the first of two or more lines that hold only a speaker and a time ("小王 10:32",
    the message below) to the message under the last (`_chat_app`).
    One line a speaker opens is a message quoted when another line asks ("小王：上周…是多少？"
    above "那现在呢？"), else the user's own ("我想问：上周…？"). The other lines are the
    user's own (`own_lines`): what they ask, and when."""
    openings = [_opening(line) for line in folded_lines]
    names = [_name(o) for o in openings]
    qa = any(n in _ANSWER_LABELS for n in names)
    said = [i for i, n in enumerate(names) if n and (qa or n not in _QUESTION_LABELS)]
    full = [i for i, o in enumerate(openings) if not names[i] and _full_name(o)]
    said += [i for i in full if _STAMPED.match(folded_lines[i])]  # "[10:32 AM] Bart Simpson: …"
    app, above = _chat_app(folded_lines)

    def read(lines, talk: bool) -> Chat:  # who opens which of them, as read here
        fully = set(full)
        openers = {i: names[i] or _FULL_NAME.match(openings[i]).group() for i in lines
                   if names[i] or i in fully}
        return Chat(lines, talk, tuple(openers.items()), above)

    if len(said) == 1:  # a message quoted above the user's question, or the user's own
        # line ("我想问：…？", "另外：…？")
        others = (line for i, line in enumerate(folded_lines) if i != said[0])
        quoted = (said[0],) if asks_in(others) else ()
        return read(tuple(sorted({*quoted, *app})), bool(app))
    if len(said) < 2:
        return read(app, bool(app))
    said += [i for i in full if i not in said]
    first, last = min(said), max(said)
    while first and _TIME_HEADER.match(folded_lines[first - 1]):
        first -= 1
    if all(names[i] in _MAIL_HEADERS for i in said):  # an email: its body is the email's too,
        # to the end when the user's line is above it, else to the user's last line
        last = max(last, len(folded_lines) - (1 if first == 0 else 0) - 1)
    chat = {i for i in range(first, last + 1) if not _labelled(openings[i], qa)}
    return read(tuple(sorted(chat | set(app))), True)


def _chat_app(folded_lines: list[str]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(The lines of a chat app's paste, its speaker-and-time lines) (`_SPEAKER_ABOVE`):
    from the first speaker line to the last and the message under it, when a message sits
    under every one, unless that message is a question that ends the prompt. Lines that
    hold a few words and a time with nothing under some of them are a list ("部署 10:32" /
    "回滚 10:45" above "昨天为什么回滚了？"), and a question between two is the user's."""
    above = [i for i, line in enumerate(folded_lines) if _SPEAKER_ABOVE.match(line)]
    messaged = all(b - a >= 2 for a, b in zip(above, above[1:] + [len(folded_lines)]))
    if len(above) < 2 or not messaged:
        return (), ()
    last = above[-1] + 1
    if last == len(folded_lines) - 1 and asks_in([folded_lines[last]]):
        last -= 1  # a question that ends the prompt is the user's ("部署 10:32" / "成功" /
        # "回滚 10:45" / "上周五为什么回滚了？"), or one they paste to have answered
    return tuple(range(above[0], last + 1)), tuple(above)


def own_lines(folded_lines: list[str], chat: Chat) -> list[int]:
    """The indexes of a query's lines that are the user's own words, not its chat's: a
    question under a chat, above "环境：prod" / "版本：v2.3" or a log."""
    chat_lines = set(chat.lines)
    return [i for i in range(len(folded_lines)) if i not in chat_lines]


def _opening(folded_line: str) -> str:
    line = _CHAT_PREFIX.sub("", folded_line, count=1)
    return _EMPHASIS.sub("", line[:40]) + line[40:]


# A host and its port, a key and its number ("localhost:8080", "redis:6379"): a colon
# right after a Latin word and before a digit opens no speaker's message.
_PORT = re.compile(r"\s*[A-Za-z][\w.-]*:\d")


def _name(opening: str) -> str | None:
    who = said_by(opening)
    if who is None or who.strip("[]<>()") in _NOT_SPEAKERS or _IN_SENTENCE.search(who) \
            or _FILE_LINE.match(opening) or _DATED.match(who) or _lead_in(who) \
            or _PORT.match(opening):
        return None
    return who


_NOT_NAMES = _ERROR_NAMES + ("failed", "failure", "succeeded", "passed")


def _full_name(opening: str) -> bool:
    """"Bart Simpson:", not "Unhandled Exception:" or "Build Failed:"."""
    m = _FULL_NAME.match(opening)
    return bool(m) and not m.group().rstrip(" :：").casefold().endswith(_NOT_NAMES)


def _lead_in(name: str) -> bool:
    return name not in _QUESTION_LABELS and (name in _LEAD_INS or bool(_LEAD_IN.match(name)))


def _labelled(opening: str, qa: bool) -> bool:
    name = _opener(opening)
    return bool(name) and (_is_label(name) or (name in _QUESTION_LABELS and not qa))


def weighted_terms(query: str) -> list[tuple[str, int]]:
    """A query as FTS5 phrases (each a space-joined token list), most specific first, with a
    weight each (1, or ASKING_WEIGHT for the user's sentences that ask amid others that do
    not or amid a chat; a chat's own questions are the speakers', `chat_of`):
    - an identifier (`sqlite-vec`, `src/auth/jwt.ts`) is one phrase of its parts;
    - a Chinese run of one or two characters is itself; a longer run gives its bigrams;
    - other words are themselves;
    - stopwords go unless nothing else is left; duplicates go."""
    if not query:
        return []
    query = folded(query)
    rows = lines(query) or [query]
    chat = chat_of(rows)
    own = set(own_lines(rows, chat))
    parts = {i: sentences(rows[i]) for i in own}
    asks = {p: asking(p) for ps in parts.values() for p in ps}
    amid = bool(chat.lines) or not all(asks.values())  # a question amid what does not ask
    chars = CONVERSATION_CHARS and chat.talk
    terms: list[tuple[str, bool, int]] = []  # (phrase, is_stopword, weight)
    turns = _turns(rows, chat) if not own else {}  # {line: (turn, words of who and when)}
    turns_saying: dict[str, set] = {}  # a chat's words: the turns that say each
    who: set[str] = set()  # a chat's words that say who speaks, and when
    for i, line in enumerate(rows):
        if i not in own:  # a chat's line: the speakers' words, alike
            said = _line_terms(line, chars=chars)
            terms += [(t, stop, 1) for t, stop in said]
            turn, speaker = turns.get(i, (None, ()))
            who.update(speaker)
            for t, stop in said if turn is not None else ():
                if not stop and len(t) > 1:
                    turns_saying.setdefault(t, set()).add(turn)
            continue
        for sentence in parts[i]:
            weight = ASKING_WEIGHT if asks[sentence] and amid else 1
            said = _line_terms(_REQUEST.sub(_unless_a_name, sentence))
            if all(stop for _, stop in said):  # nothing but the request: its words, as before
                said = _line_terms(sentence)
            terms += [(t, stop, weight) for t, stop in said]
    kept = [t for t in terms if not t[1]] or terms
    out: dict[str, int] = {}
    for t, _, weight in kept:
        out[t] = max(out.get(t, 0), weight)
    if not own:  # a chat and nothing else: with lines of the user's own, those lead
        for t, said_in in turns_saying.items():
            if len(said_in) > 1 and t in out and not who.intersection(t.split()):
                out[t] = max(out[t], REPEATED_WEIGHT)
    return list(out.items())


def _turns(rows: list[str], chat: Chat) -> dict:
    """{index of a chat line: (its turn, the words that say who speaks and when on it)}, as
    `chat_of` read the chat: a line a speaker opens or a chat app's speaker-and-time line
    starts a turn (in a chat app's layout only those: "redis: 重启好了" under "小李 10:33" is
    the message), the lines under it go on with it (a message over two lines, a log pasted
    in one), and the time above the chat is no one's turn."""
    out: dict = {}
    above = set(chat.above)
    openers = {} if above else dict(chat.speakers)
    turn = None
    for i in chat.lines:
        if i in above:
            turn = i
            out[i] = (None, [t for t, _ in _line_terms(rows[i])])
        elif i in openers:
            turn = i
            out[i] = (turn, [t for t, _ in _line_terms(openers[i])])
        elif turn is not None:
            out[i] = (turn, [])
    return out


def sentences(text: str, clauses: bool = False) -> list[str]:
    """A line's sentences (ended by 。！？! , ". " or a "?" that asks), stripped; `clauses`:
    also split at "; " and "；". A link's "api?user=1" ends nothing."""
    return [p.strip() for p in (_CLAUSE if clauses else _SENTENCE).split(text) if p.strip()]


def asks_in(rows) -> bool:
    """Whether any sentence of these lines asks."""
    return any(asking(p) for row in rows for p in sentences(row))


def asked_about(line: str, terms) -> bool:
    """Whether a line that asks is asked about these query phrases: its questions hold one
    of them, or none of its other sentences does. "Mia: How often do you work out
    together?" is (its reply answers it), and so is "The deploy failed with exit code 137.
    What does that mean?" for "what does exit code 137 mean"; "Caroline: Guess what I did
    this week? I applied to adoption agencies!" is not, for "when did Caroline apply to
    adoption agencies": the line says the answer and asks about something else. A question
    that asks about the line's own statement in other words ("What kind is it?", "Any idea
    why?") reads as such a line too. The speaker's opening is not counted."""
    _, line = spoken(folded(line))
    said = False
    for sentence in sentences(line):
        if {t for t, stop in _line_terms(sentence) if not stop}.isdisjoint(terms):
            continue
        if asking(sentence):
            return True
        said = True
    return not said


def asking(sentence: str) -> bool:
    """A sentence ends in "？", or in a "?" after a word: not SQL's `id = ?`."""
    s = sentence.rstrip()
    return s.endswith("？") or (s.endswith("?") and len(s) > 1 and not s[-2].isspace()
                                and s[-2] != "=")


# How a question is put to the agent, not what it is about: "give me the whole team list",
# "tell me about…", "告诉我这个项目有哪些坑", "帮我找一下…". As keywords, "give" found
# "give schedule times in Beijing time" first (docs/retrieval.md "Asked of the agent").
# Chinese ones open a sentence (申请问题, 遇到了什么麻烦, 谁提醒我… are no requests); English
# ones are whole words (get us-east-1, please-wait are names).
_REQUEST = re.compile(r"(?<![\w-])(?:please|pls|(?:can|could|would)\s+you|(?:give|tell|show|remind|send|get|"
                      r"find)\s+(?:me|us)|let\s+me\s+know)(?![\w-])|"
                      r"(?:^|(?<=[\s，。？！；：,.?!;:]))(?:请|你能|能不能|可以|可不可以)?(?:请问|麻烦你?|帮我|帮忙|"
                      r"告诉我|跟我说|提醒我)", re.I)


def _unless_a_name(m) -> str:
    """A request frame taken out, unless it is capitalised inside a sentence: a label ("the
    Remind Me button")."""
    said = m.group()
    before = m.string[:m.start()].rstrip()
    if said[:1].isupper() and said[1:2].islower() and before and before[-1] not in ".?!,;:":
        return said
    return " "


# Two words with a slash between ("hardware/agent", "minor/patch", "artists/bands") say
# either or both, not a name: each is a word of its own (as a phrase, "hardware agent" missed
# "Truck hardware and the on-board agent"). A path or a name has a digit, another joiner, a
# third part or a part under three letters ("src/auth/jwt.ts", "api/v1", "go/no-go", "I/O",
# "CI/CD", "km/h"), or a slash, bracket or dot beside it ("/ws/positions",
# "deploy/env/<env>/values.yaml"; a full stop that ends a sentence is no dot of a path).
_EITHER = re.compile(r"[^\W\d_]{3,}/[^\W\d_]{3,}")
_PATH_EDGE = "/\\<>{}[]*.~$:"
_FULL_STOP = re.compile(r"\.(?:[ \n]|$)")


def _either(m) -> bool:
    """Is this identifier two words with a slash between, standing alone (_EITHER)?"""
    s, a, b = m.string, m.start(), m.end()
    return bool(_EITHER.fullmatch(m.group())) and not (a and s[a - 1] in _PATH_EDGE) \
        and not (b < len(s) and s[b] in _PATH_EDGE and not _FULL_STOP.match(s, b))


def _names_apart(text: str):
    """The text as pieces: (plain text, None), and (None, its phrase) for each identifier
    (`name_phrase`); two words with a slash between (_either) are plain text."""
    pos = 0
    for m in _IDENT.finditer(text):
        yield text[pos:m.start()], None
        yield (m.group(), None) if _either(m) else (None, name_phrase(m.group()))
        pos = m.end()
    yield text[pos:], None


def _line_terms(text: str, chars: bool = False) -> list[tuple[str, bool]]:
    terms: list[tuple[str, bool]] = []
    for plain, name in _names_apart(text):
        if name is None:
            _plain_terms(plain, terms, chars)
        else:
            terms.append((name, False))
    return terms


def _plain_terms(text: str, terms: list, chars: bool = False) -> None:
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if _CJK_RUN.match(tok):
            if len(tok) <= 2:
                terms.append((tok, tok in STOPWORDS_ZH))
            else:
                for i in range(len(tok) - 1):
                    bigram = tok[i:i + 2]
                    terms.append((bigram, bigram in STOPWORDS_ZH or _all_stop_chars(bigram)))
                if chars:
                    terms += [(ch, ch in STOPWORDS_ZH) for ch in tok]
        else:
            low = tok.lower()
            terms.append((low, low in STOPWORDS_EN))


# A clock time is no name ("2:30pm", "10:30am").
_CLOCK = re.compile(r"\d{1,2}(?::\d{2}){1,2}(?:am|pm)?", re.I)
MAX_NAMES = 8  # a query's names looked for as written (each a pass over the first hits)


def written_names(query: str) -> list[str]:
    """The names a query writes out with `_ / : @ #` in them (HARBOR_BATTLE, cheat_flags,
    src/app.py, alert:state), lowercased, at most MAX_NAMES: the index reads them as their
    parts, so `harbor-battle` matches HARBOR_BATTLE there (search.as_written counts the name
    again where it is written so). A hyphen or a dot alone makes none: "real-time" and
    "on-call" are words, "v1.0" a version that "v1.0.1" is not, "MEMORY.md" as often the
    place a question names; nor does a clock time ("2:30pm")."""
    return list(dict.fromkeys(
        m.group().lower() for m in _IDENT.finditer(folded(query))
        if len(m.group()) >= 4 and re.search(r"[_/:@#]", m.group())
        and re.search(r"[^\W\d_]", m.group()) and not _CLOCK.fullmatch(m.group())))[:MAX_NAMES]


def name_phrase(name: str) -> str:
    """A name as the FTS5 phrase of its parts (HARBOR_BATTLE: "harbor battle"), as the
    keyword side and aboutness match an identifier."""
    return " ".join(p.lower() for p in _TOKEN.findall(name))


def _all_stop_chars(s: str) -> bool:
    return all(ch in STOPWORDS_ZH for ch in s)


def match_of(terms: list[tuple[str, int]], columns: str = "content entities") -> str:
    """An FTS5 MATCH string for [(phrase, weight)] that cannot fail to parse: every term is a
    quoted phrase of tokens we produced ourselves, OR-joined, limited to `columns`. A term of
    weight 2 is listed twice: FTS5's bm25() sums over the query's phrases, so it counts
    double."""
    if not terms:
        return ""
    phrases = " OR ".join(" OR ".join(['"' + t.replace('"', "") + '"'] * w) for t, w in terms)
    return "{" + columns + "}: (" + phrases + ")"


# --- words, for judging what a hit is about ------------------------------------------------

_WORDS_FILE = "zh_words.txt"
_word_rank: dict | None = None


def words(text: str) -> list[str]:
    """The content words of a query as FTS5 phrases: English words and identifiers as in
    weighted_terms, Chinese cut into dictionary words (`性能分` is 性能 + 分, where bigrams
    would give 性能 + 能分). Search uses them to ask how much of a question a hit covers
    (search.promote_by_time); keyword matching itself keeps the bigrams, which also find
    partial words. Stopwords and one-letter Latin words are left out."""
    text = folded(text)
    out: list[str] = []
    for plain, name in _names_apart(text):
        if name is None:
            _plain_words(plain, out)
        else:
            out.append(name)
    return list(dict.fromkeys(out))


# A verb that says nothing of what a question is about when it stands alone ("还在用 Exposed
# 吗"): no word for aboutness, though no stopword either, since a stopword character is cut
# out of the words it starts (用例, 用量, 禁用).
_LIGHT_ZH = frozenset({"用"})


def _plain_words(text: str, out: list) -> None:
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if not _CJK_RUN.match(tok):
            low = tok.lower()
            if len(low) > 1 and low not in STOPWORDS_EN:
                out.append(low)
            continue
        for w in segment(tok):
            if w not in STOPWORDS_ZH and w not in _LIGHT_ZH and not _all_stop_chars(w):
                out.append(bigram_phrase(w))


def segment(run: str) -> list[str]:
    """A run of Chinese characters cut into words (`cut`), then neighbouring characters that
    are no word on their own and no stopword joined (`哈希`, `时好时坏` are not in the list)."""
    out, loose = [], ""
    for w in cut(run):
        if len(w) == 1 and w not in STOPWORDS_ZH:
            loose += w
            continue
        if loose:
            out.append(loose)
            loose = ""
        out.append(w)
    if loose:
        out.append(loose)
    return out


def cut(run: str, extra=frozenset(), longest: int = 4) -> list[str]:
    """A run of Chinese characters cut into the words most frequent in the shipped list (a
    unigram model with Zipf costs), up to `longest` characters; words in `extra` and not in
    the list (bilingual.py's glossary) count as middling ones, every other character as a
    word of its own."""
    rank = _load_words()
    single = math.log(len(rank) + 2) + 3
    middling = math.log(len(rank) / 4 + 2)
    best = [0.0] + [math.inf] * len(run)
    back = [0] * (len(run) + 1)
    for i in range(1, len(run) + 1):
        for n in range(1, min(longest, i) + 1):
            w = run[i - n:i]
            if n == 1:
                cost = single
            elif w in rank:
                cost = math.log(rank[w] + 2)
            elif w in extra:
                cost = middling
            else:
                continue
            if best[i - n] + cost < best[i]:
                best[i], back[i] = best[i - n] + cost, n
    words, i = [], len(run)
    while i:
        words.append(run[i - back[i]:i])
        i -= back[i]
    return words[::-1]


def bigram_phrase(word: str) -> str:
    """A Chinese word as the FTS5 phrase of its bigrams, as index_terms cuts it."""
    return " ".join(word[i:i + 2] for i in range(len(word) - 1)) if len(word) > 1 else word


def _load_words() -> dict:
    global _word_rank
    if _word_rank is None:
        path = os.path.join(os.path.dirname(__file__), _WORDS_FILE)
        try:
            with open(path, encoding="utf-8") as f:
                listed = [w for w in f.read().split("\n") if w and not w.startswith("#")]
        except OSError:  # a broken install: every character stands alone, then joins up
            listed = []
        _word_rank = {w: i for i, w in enumerate(listed)}
    return _word_rank


def count_tokens(text: str) -> int:
    """A CJK-aware token estimate for chunking: one per CJK character, about one per four
    letters of other words, one per punctuation mark. Characters/4 would count a Chinese
    paragraph at a quarter of its real size."""
    n = 0
    for m in _TOKEN.finditer(text):
        tok = m.group()
        n += len(tok) if _CJK_RUN.match(tok) else (len(tok) + 3) // 4
    n += sum(1 for ch in text if not ch.isalnum() and not ch.isspace())
    return n


def normalize(text: str) -> str:
    """For spotting the same fact written twice: NFKC, case-folded, punctuation and
    spacing removed, except between digits ("1.5" is not "15", nor "10:30" "1030")."""
    parts = _BETWEEN_DIGITS.split(folded(text).casefold())
    return ".".join(_NOT_ALNUM.sub("", p) for p in parts)


_BETWEEN_DIGITS = re.compile(r"(?<=\d)[\W_]+(?=\d)")


_NOT_ALNUM = re.compile(r"[\W_]+")  # exactly the characters str.isalnum() rejects
