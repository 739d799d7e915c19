"""The plain baseline every retrieval table carries: textbook BM25 (SQLite FTS5's bm25())
over each record's own text, Chinese cut into overlapping bigrams, English Porter-stemmed,
the query's terms (stopwords removed) OR-joined. None of cursor-memory's rules: no neighbour
context, no parts, no entity field, no conversation weighting, no fusion, no rerank.
"""
from __future__ import annotations

import json
import re
import sqlite3
from collections import namedtuple
from pathlib import Path

Hit = namedtuple("Hit", "id evidence source_file section content")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")


def terms(text: str) -> list:
    out = []
    for m in _TOKEN.finditer(text or ""):
        tok = m.group()
        if re.match(rf"[{_CJK}]", tok):
            out += [tok] if len(tok) == 1 else [tok[i:i + 2] for i in range(len(tok) - 1)]
        else:
            out.append(tok.lower())
    return out


def records(root: Path):
    """(id, source_file, section, text) of every searchable record of a store."""
    for path in sorted((root / "daily").glob("*.jsonl")):
        for line in open(path, encoding="utf-8"):
            r = json.loads(line)
            if r.get("type") in ("fact", "preference", "action") and isinstance(r.get("content"), str):
                yield r["id"], f"daily/{path.name}", None, r["content"]
    if (root / "sessions.jsonl").exists():
        for line in open(root / "sessions.jsonl", encoding="utf-8"):
            r = json.loads(line)
            text = " ".join([r.get("topic", ""), r.get("summary", ""), *r.get("decisions", []),
                             *r.get("todos", [])])
            yield r["id"], "sessions.jsonl", None, text
    if (root / "MEMORY.md").exists():
        section, lines = "", []
        for line in (root / "MEMORY.md").read_text(encoding="utf-8").splitlines() + ["# end"]:
            m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                if section and "".join(lines).strip():
                    yield f"MEMORY.md#{section}", "MEMORY.md", section, section + "\n" + "\n".join(lines)
                section, lines = m.group(1), []
            else:
                lines.append(line)


class Index:
    def __init__(self, root: Path):
        from memory_core.text import STOPWORDS_EN, STOPWORDS_ZH
        self.stop = STOPWORDS_EN | STOPWORDS_ZH
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61')")
        self.rows = {}
        for n, (rid, source, section, text) in enumerate(records(Path(root)), 1):
            self.rows[n] = Hit(rid, [rid], source, section, text)
            self.db.execute("INSERT INTO t(rowid, body) VALUES (?, ?)", (n, " ".join(terms(text))))

    def search(self, query: str, k: int = 10) -> list:
        words = [t for t in dict.fromkeys(terms(query)) if t not in self.stop]
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', "") + '"' for w in words)
        rows = self.db.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?",
                               (match, k)).fetchall()
        return [self.rows[r[0]] for r in rows]
