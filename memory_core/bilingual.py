"""A keyword bridge between Chinese and English: a question in one language finds a note
written in the other ("设备的密钥多久轮换一次" → "Device secrets are rotated every 90 days").

The keyword side matches words, and the offline test model reads only English, so before
this a cross-lingual question was found by the vectors of a bilingual model or not at all.
A glossary of terms engineers use in notes (zh_en_terms.txt, one concept a line) gives the
query's words their words in the other language (`concepts`); search finds the records
they are in and scores every record by the query's concepts in either language
(search.across_languages). Only the other language: a word's synonyms in its own language
are not added. docs/retrieval.md "Across languages" has the figures.
"""
from __future__ import annotations

import os
import re
from typing import NamedTuple

from . import text
from .text import STOPWORDS_EN, folded

_TERMS_FILE = "zh_en_terms.txt"
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# What a query is read as, left to right: a link, a `code span`, a run of Chinese, or an
# ASCII word with what joins it to others (sqlite-vec, CORS_ORIGINS, on-call, src/app.py,
# R&D). Every alternative ends where its characters do, so one pass is linear in the query.
_PIECE = re.compile(rf"https?://\S+|`[^`\n]*`|[{_CJK}]+|[A-Za-z0-9_.~:@#+\\/-]+(?:&[A-Za-z0-9]+)*")
_ZH_RUN = re.compile(rf"[{_CJK}]+")
_JOINERS = re.compile(r"[-_.:@#+]")
# The longest English term, in words, and Chinese term, in characters, the file may hold.
_EN_MAX_WORDS = 4
_ZH_MAX_CHARS = 9
# The last words of a phrasal verb, whose first word is looked up in its base form too
# (signed up: sign up); not of other phrases ("the following users" is no "follow user").
_PARTICLES = frozenset("up down in out on off back over away through".split())
# A query's bridge terms are capped: each costs a posting walk like any query term.
MAX_TERMS = 12

_STOP_WORDS = {(w,) for w in STOPWORDS_EN}  # a stopword alone is no term ("on", "up")

_glossary: tuple[dict, dict] | None = None


def bridge_terms(query: str) -> list[tuple[str, int]]:
    """FTS5 phrases, weight 1, for the other-language words of the query's glossary terms."""
    return other_terms(concepts(query))


def other_terms(found: list) -> list[tuple[str, int]]:
    """FTS5 phrases, weight 1, for the other-language words of these concepts, at most
    MAX_TERMS. English is matched in its forms by the index's Porter stemmer (rotate:
    rotated, rotation); a Chinese word of three or more characters is the phrase of its
    bigrams, as text.index_terms cuts it."""
    found = [t for concept in found for t in concept.other]
    return [(t, 1) for t in _one_per_stem(found)][:MAX_TERMS]


class Concept(NamedTuple):
    """A glossary term of the query: `own`, the query's keyword phrases that may say it
    (text.weighted_terms: its English words, or all of them as one phrase where they are a
    name like on-call; the bigrams of a Chinese word), `other`, its words in the other
    language as FTS5 phrases, and `phrase`, the query's words as one FTS5 phrase."""
    own: tuple
    other: tuple
    phrase: str


def concepts(query: str) -> list[Concept]:
    """The query's glossary terms, in the order they come, with their words in the other
    language."""
    if not query:
        return []
    zh_to_en, en_to_zh = _load()
    if not zh_to_en:
        return []
    out: list[Concept] = []
    english: list[tuple | None] = []  # the words English terms are looked up in; None: a break
    for m in _PIECE.finditer(folded(query)):
        piece = m.group()
        if _ZH_RUN.fullmatch(piece):
            english.append(None)
            for word in _zh_words(piece, zh_to_en):
                other = tuple(dict.fromkeys(t for t in zh_to_en[word] if not _all_stopwords(t)))
                if other:
                    phrase = text.bigram_phrase(word)  # what weighted_terms cuts it into, as a phrase
                    out.append(Concept(tuple(phrase.split()), other, phrase))
            continue
        if _name(piece, m):
            english.append(None)
            continue
        piece = piece.strip("_.~:@#+-").lower()
        if piece.isalnum():
            english.append((piece,))
        else:  # a name; one the glossary lists as a term ("on-call", "e-mail"), or as part
            # of one ("single sign-on", "blue-green deployment"), is words
            words = tuple(_JOINERS.split(piece))
            english.append(words if words in en_to_zh or words in _term_parts(en_to_zh) else None)
    for said, term in _en_words(english, en_to_zh):
        out.append(Concept(said + (" ".join(said),) if len(said) > 1 else said,
                           tuple(dict.fromkeys(text.bigram_phrase(w) for w in en_to_zh[term])),
                           " ".join(said)))
    # a word the glossary lists in two forms (logging: log, logging) is one concept
    merged: dict[tuple, Concept] = {}
    for c in out:
        was = merged.get(c.own)
        merged[c.own] = c._replace(other=tuple(dict.fromkeys(was.other + c.other))) if was else c
    return list(merged.values())


def _name(piece: str, m) -> bool:
    """A link, code, a path, a --flag, a word in capitals longer than an acronym (TIMEOUT,
    MAX_RETRIES) or one being set (NAME=): a name, never translated."""
    return (piece.startswith(("http", "`", "-")) or "/" in piece or "\\" in piece
            or (piece.isupper() and len(piece) > 4) or m.string.startswith("=", m.end()))


def _zh_words(run: str, zh_to_en: dict) -> list[str]:
    """The glossary words in a run of Chinese, as the run is best cut into words (a glossary
    word never straddles two: 工作日志 is 工作 + 日志, not 工作日 + 志): text.cut, with the
    glossary's words as words too."""
    words = text.cut(run, zh_to_en, _ZH_MAX_CHARS)
    # a glossary term may be two words of the cut (代码 + 冻结: 代码冻结)
    out, i = [], 0
    while i < len(words):
        joined, longest = "", None
        for j in range(i, len(words)):
            joined += words[j]
            if len(joined) > _ZH_MAX_CHARS:
                break
            if joined in zh_to_en:
                longest = (joined, j + 1)
        if longest:
            out.append(longest[0])
            i = longest[1]
        else:
            i += 1
    return out


def _en_words(tokens: list, en_to_zh: dict) -> list[tuple[tuple, tuple]]:
    """The glossary terms among the query's English words (`tokens`: a word, or a listed
    term like on-call, as a tuple of words; None where a name or Chinese breaks the
    sentence), longest first at each place; a last word is looked up as itself and in its
    base forms (cancelled: cancelled, cancel), and so is the first of a phrasal verb
    (signed up: sign up, rolled back: roll back). Each as (the query's words, the term)."""
    out, i = [], 0
    while i < len(tokens):
        for n in range(min(_EN_MAX_WORDS, len(tokens) - i), 0, -1):
            words = tokens[i:i + n]
            if None in words or (n == 1 and words[0] in _STOP_WORDS):
                continue
            flat = tuple(w for token in words for w in token)
            firsts = _bases(flat[0]) if len(flat) > 1 and flat[-1] in _PARTICLES else [()]
            forms = [((lead,) if lead else ()) + flat[1 if lead else 0:-1] + (base,)
                     for lead in firsts for base in _bases(flat[-1])]
            found = [f for f in forms if f in en_to_zh]
            if found:
                out += [(flat, term) for term in _same_sense(found, flat, en_to_zh)]
                i += n
                break
        else:
            i += 1
    return out


def _same_sense(found: list, said: tuple, en_to_zh: dict) -> list:
    """The word as listed, and of its base forms only those the glossary gives a Chinese
    word sharing a character with the word's own (cancelled: 已取消, cancel: 取消), not a
    base with a sense of its own (mapping: 映射, map: 地图; adding: 添加, ad: 广告)."""
    first = found[0]
    if first != said:  # the words are not listed: their base forms are all there is
        return found
    own = set("".join(en_to_zh[first]))
    return [first] + [f for f in found[1:] if own & set("".join(en_to_zh[f]))]


def _bases(word: str) -> list[str]:
    """The forms a glossary may list an English word under: itself, then without its
    inflection (trucks, rotated, caching, retries, stopped)."""
    out = [word]
    if len(word) > 4 and word.endswith(("ies", "ied")):
        out.append(word[:-3] + "y")
    if len(word) > 3 and word.endswith("es"):
        out.append(word[:-2])
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        out.append(word[:-1])
    if len(word) > 4 and word.endswith("ed"):
        out += [word[:-2], word[:-1]]
        if len(word) > 5 and word[-3] == word[-4]:
            out.append(word[:-3])  # stopped: stop, not "added": ad
    if len(word) > 5 and word.endswith("ing"):
        out += [word[:-3], word[:-3] + "e"]
        if len(word) > 6 and word[-4] == word[-5]:
            out.append(word[:-4])  # running: run, not "adding": ad
    return out


def _all_stopwords(term: str) -> bool:
    return all(w in STOPWORDS_EN for w in term.split())


def _one_per_stem(terms: list[str]) -> list[str]:
    """The terms, without a second English form the index's stemmer reads as the first
    (cache / caching, log / logging): each would walk the same postings and count twice."""
    out, seen = [], set()
    for t in terms:
        key = " ".join(_stem(w) for w in t.split()) if t.isascii() else t
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s", "e"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[:-len(suffix)]
            break
    return word[:-1] if len(word) > 3 and word[-1] == word[-2] else word


_parts: tuple | None = None  # (the glossary they are of, its terms' runs of 2+ words)


def _term_parts(en_to_zh: dict) -> frozenset:
    """Every run of two or more words inside an English term of the glossary (the words of
    "single sign-on": single sign, sign on, single sign on)."""
    global _parts
    if _parts is None or _parts[0] is not en_to_zh:
        _parts = (en_to_zh, frozenset(t[i:j] for t in en_to_zh for i in range(len(t))
                                      for j in range(i + 2, len(t) + 1)))
    return _parts[1]


def _load() -> tuple[dict, dict]:
    """zh word → English terms, English term (a tuple of words; "on-call" is on + call) →
    Chinese words. The file's form (tabs, lowercase, word lengths) is checked by
    tests/test_bilingual.py, not here: this runs in every search process. A file that cannot
    be read is no glossary: search goes on without the bridge."""
    global _glossary
    if _glossary is None:
        zh_to_en: dict[str, list[str]] = {}
        en_to_zh: dict[tuple, list[str]] = {}
        try:
            with open(os.path.join(os.path.dirname(__file__), _TERMS_FILE), encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeError):
            lines = []
        for line in lines:
            zh_side, tab, en_side = line.partition("\t")
            if not tab or line.startswith("#"):
                continue
            zh, en = zh_side.split("|"), en_side.split("|")
            for w in zh:
                zh_to_en.setdefault(w, []).extend(en)
            for t in en:
                key = tuple((_JOINERS.sub(" ", t) if "-" in t or "." in t else t).split())
                en_to_zh.setdefault(key, []).extend(zh)
        _glossary = zh_to_en, en_to_zh
    return _glossary
