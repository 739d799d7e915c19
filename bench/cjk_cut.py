#!/usr/bin/env python3
"""Chinese tokenization options for the keyword index, compared on the Chinese stores with
plain BM25 (FTS5, one index per store, the query's terms OR-joined, flat weights): how the
text is cut decides what a query can match, before any of search's other levers.

    python bench/cjk_cut.py            # madial-zh and devmem (~20 s)

Options: overlapping bigrams; single characters; both (what memory_core indexes; a query
is cut into bigrams, or into both for a conversation: "query both"); the words of the
shipped word list (memory_core/zh_words.txt, the same cut as text.words);
SQLite's trigram tokenizer; and jieba's search-engine cut when jieba is installed (a
reference only: 0.8 s to load, far over a hook's budget). Latin words are kept whole
(lower-cased, porter-stemmed) in every option.
"""
from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
from pathlib import Path

import retrieval  # puts the repo first on sys.path

from memory_core.chunking import split_markdown  # noqa: E402
from memory_core.text import STOPWORDS_EN, STOPWORDS_ZH, segment  # noqa: E402

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[^\W_\u3400-\u9fff]+")


def cut(text: str, how: str, query: bool = False) -> list[str]:
    out = []
    for m in TOKEN.finditer(text):
        tok = m.group()
        if not CJK.fullmatch(tok):
            low = tok.lower()
            if not (query and low in STOPWORDS_EN):
                out.append(low)
            continue
        if how == "bigrams":
            grams = [tok] if len(tok) == 1 else [tok[i:i + 2] for i in range(len(tok) - 1)]
        elif how == "chars":
            grams = list(tok)
        elif how in ("chars+bigrams", "chars+bigrams, query both"):
            both = not query or len(tok) == 1 or how.endswith("both")
            grams = ([tok[i:i + 2] for i in range(len(tok) - 1)] if len(tok) > 1 else []) + (
                list(tok) if both else [])
        elif how == "word list":
            grams = segment(tok)
        elif how == "jieba":
            import jieba
            grams = list(jieba.cut_for_search(tok))
        else:
            raise ValueError(how)
        out += [g for g in grams if not (query and (g in STOPWORDS_ZH or all(
            c in STOPWORDS_ZH for c in g)))]
    return out


def docs_of(folder: Path) -> list[tuple[str, str]]:
    docs = []
    for f in sorted((folder / "daily").glob("*.jsonl")):
        for line in open(f, encoding="utf-8"):
            r = json.loads(line)
            if r.get("content") and r.get("type") in ("fact", "preference", "action"):
                docs.append((r["id"], r["content"]))
    if (folder / "sessions.jsonl").exists():
        for line in open(folder / "sessions.jsonl", encoding="utf-8"):
            r = json.loads(line)
            docs.append((r["id"], "\n".join([r["topic"], r["summary"], *r.get("decisions", []),
                                             *r.get("todos", [])])))
    if (folder / "MEMORY.md").exists():
        for c in split_markdown((folder / "MEMORY.md").read_text(encoding="utf-8")):
            docs.append((f"MEMORY.md#{c.section}", " / ".join(c.path) + "\n" + c.content))
    return docs


def run(folder: Path, how: str) -> dict:
    db = sqlite3.connect(":memory:")
    trigram = how == "trigram"
    db.execute("CREATE VIRTUAL TABLE f USING fts5(id UNINDEXED, t, tokenize='"
               + ("trigram" if trigram else "porter unicode61 remove_diacritics 2") + "')")
    db.executemany("INSERT INTO f VALUES (?, ?)", [
        (i, text.lower() if trigram else " ".join(cut(text, how))) for i, text in docs_of(folder)])
    rows = []
    for line in open(folder / "queries.jsonl", encoding="utf-8"):
        q = json.loads(line)
        if not q.get("evidence_ids"):
            continue
        if trigram:  # every three-character window of the query (shorter words cannot match)
            terms = {w[i:i + 3] for w in TOKEN.findall(q["question"].lower())
                     for i in range(len(w) - 2)}
        else:
            terms = set(cut(q["question"], how, query=True))
        expr = " OR ".join('"' + t.replace('"', "") + '"' for t in terms)
        hits = [r[0] for r in db.execute(
            "SELECT id FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT 10", (expr,))] if expr else []

        class H:  # what retrieval.score expects of a hit
            def __init__(self, i):
                self.id, self.evidence = i, [i]
                self.source_file = "MEMORY.md" if i.startswith("MEMORY.md#") else ""
                self.section = i.split("#", 1)[1] if self.source_file else None
        rows.append(retrieval.score(q["evidence_ids"], [H(i) for i in hits]))
    n = len(rows)
    return {m: sum(r[m] for r in rows) / n for m in ("r5", "r10", "mrr")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("datasets", nargs="*", default=["madial-zh", "devmem"])
    ap.add_argument("--data", type=Path, default=retrieval.DEFAULT_DATA)
    args = ap.parse_args(argv)
    options = ["bigrams", "chars", "chars+bigrams", "chars+bigrams, query both", "word list",
               "trigram"]
    try:
        import jieba
        jieba.setLogLevel(60)
        options.append("jieba")
    except ImportError:
        pass
    stores = retrieval.find_stores(args.data, args.datasets)
    print("| index cut | " + " | ".join(f"{s} R@5 / R@10 / MRR" for s, _ in stores) + " |")
    print("|---|" + "---|" * len(stores))
    for how in options:
        cells = [run(folder, how) for _, folder in stores]
        print(f"| {how} | " + " | ".join(
            f"{c['r5']:.3f} / {c['r10']:.3f} / {c['mrr']:.3f}" for c in cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
