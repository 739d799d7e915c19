"""Text for FTS5 in Chinese and English, token counts, and normalisation for dedup.

FTS5's unicode61 tokenizer keeps an unspaced Chinese run as one token, so `缓存` is not found
in `决定使用 Redis 作为会话缓存`, and ASCII glued to Chinese (`使用sqlite-vec做索引`) vanishes
with it. We therefore hand FTS5 text that is already cut: ASCII/Latin words as they are,
each Chinese/Japanese run as its overlapping bigrams (so every word of two or more characters
is a phrase of bigrams), then the run's single characters (so one-character words are found
too). Queries are cut the same way and joined with OR, so one missing term never zeroes a
query. Why bigrams and not word segmentation: see docs/benchmarks.md "Chinese tokenization".
"""
from __future__ import annotations

import re
import unicodedata

TOKENIZER_VERSION = "1"

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
_CJK_RUN = re.compile(rf"[{_CJK}]+")
# An identifier: words joined by - _ / . : @ # with no spaces (sqlite-vec, JWT_SECRET,
# src/auth/jwt.ts, user@host). It is searched as a phrase of its parts.
_IDENT = re.compile(rf"[^\W{_CJK}]+(?:[-_/.:@#+][^\W{_CJK}]+)+")

# Words too common to carry meaning in a query; dropped unless nothing else is left.
STOPWORDS_EN = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves did does what's let's
i'm it's don't can't 's
""".split())
STOPWORDS_ZH = frozenset("""
的 了 是 在 和 与 及 也 都 就 很 还 又 这 那 有 没 不 吗 呢 吧 啊 呀 哦 嗯 着 过 得 地 么 把 被 给 对 我 你 他 她 它
们 个 之 其 而 或 但 让 从 向 于 为 以 将 会 能 要 可 该 去 来 上 下 中 说 什么 怎么 怎样 如何 哪些 哪个 哪里 为什么
是否 有没有 是不是 我们 你们 他们 她们 它们 这个 那个 这些 那些 一个 一下 现在 当时 时候 的话 就是 还是 或者 然后
所以 因为 如果 可以 已经 之前 以后 一些 以及 多少 几个 吗 呢
""".split())


def index_terms(text: str) -> str:
    """The text as FTS5 should index it (see the module docstring)."""
    if not text:
        return ""
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


def query_terms(query: str) -> list[str]:
    """A query as FTS5 phrases (each a space-joined token list), most specific first.

    - an identifier (`sqlite-vec`, `src/auth/jwt.ts`) is one phrase of its parts;
    - a Chinese run of one or two characters is itself; a longer run gives its bigrams;
    - other words are themselves;
    - stopwords go unless nothing else is left; duplicates go.
    """
    if not query:
        return []
    terms: list[tuple[str, bool]] = []  # (phrase, is_stopword)
    pos = 0
    for m in _IDENT.finditer(query):
        _plain_terms(query[pos:m.start()], terms)
        parts = [p.lower() for p in _TOKEN.findall(m.group())]
        terms.append((" ".join(parts), False))
        pos = m.end()
    _plain_terms(query[pos:], terms)
    kept = [t for t, stop in terms if not stop] or [t for t, _ in terms]
    seen: set[str] = set()
    out = []
    for t in kept:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def _plain_terms(text: str, terms: list) -> None:
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if _CJK_RUN.match(tok):
            if len(tok) <= 2:
                terms.append((tok, tok in STOPWORDS_ZH))
            else:
                for i in range(len(tok) - 1):
                    bigram = tok[i:i + 2]
                    terms.append((bigram, bigram in STOPWORDS_ZH or _all_stop_chars(bigram)))
        else:
            low = tok.lower()
            terms.append((low, low in STOPWORDS_EN))


def _all_stop_chars(s: str) -> bool:
    return all(ch in STOPWORDS_ZH for ch in s)


def match_expression(query: str, columns: str = "content entities") -> str:
    """An FTS5 MATCH string that cannot fail to parse: every term is a quoted phrase of
    tokens we produced ourselves, OR-joined, limited to `columns`."""
    terms = query_terms(query)
    if not terms:
        return ""
    phrases = " OR ".join('"' + t.replace('"', "") + '"' for t in terms)
    return "{" + columns + "}: (" + phrases + ")"


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
    spacing removed."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if ch.isalnum())
