"""Files → index. Incremental per file by byte offset; a file that shrank, changed inode or
changed its first bytes is re-read whole and rows whose ids vanished are removed.
Idempotent: running it twice, or from two processes at once, gives the same rows.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import corrections, jsonl, refs
from .chunking import split_markdown
from .config import normalize_time
from .records import FACT_TYPES, KINDS
from .text import normalize

HEAD_BYTES = 4096
TAIL_BYTES = 65536  # read back before an appended batch to find each thread's last line
# A daily line is indexed with the tail of the line before it in the same session, as
# low-weight keyword context: in a conversation a reply's meaning lives partly in what it
# answers ("I've been playing for about four months" answers "How long have you been
# playing the piano?"): LoCoMo R@5 0.59 -> 0.67. 100 to 300 characters score the same;
# the context makes keyword search ~40% slower on large stores (docs/retrieval.md).
NEIGHBOUR_CHARS = 150
_COLUMNS = ("id", "content", "type", "memory_type", "entities", "confidence", "source_file",
            "source_id", "timestamp", "section", "context", "evidence", "norm", "hash")
_UPSERT = (
    f"INSERT INTO chunks({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))}) "
    "ON CONFLICT(id) DO UPDATE SET "
    + ", ".join(f"{c}=excluded.{c}" for c in _COLUMNS[1:])
    + " WHERE chunks.hash IS NOT excluded.hash OR chunks.source_file IS NOT excluded.source_file"
)


@dataclass
class SyncReport:
    files: int = 0  # files read (in part or whole)
    upserted: int = 0  # chunks added or changed
    removed: int = 0
    skipped: list = field(default_factory=list)  # ["daily/2026-10-01.jsonl:12: not JSON ..."]
    embedded: int = 0
    corrections: int = 0  # tombstones, supersedes and fact statuses read
    notes: list = field(default_factory=list)

    def __str__(self):
        parts = [f"{self.upserted} chunks added or changed", f"{self.removed} removed"]
        if self.embedded:
            parts.append(f"{self.embedded} embedded")
        if self.skipped:
            parts.append(f"{len(self.skipped)} malformed lines skipped")
        return ", ".join(parts)


def source_files(root: Path) -> list[str]:
    """The source of truth, relative to the memory folder, in sync order. (os.scandir, not
    pathlib: sessionStart lists a year of daily files on every start.)"""
    out = [name for name in ("MEMORY.md", "facts.jsonl", "sessions.jsonl")
           if os.path.isfile(os.path.join(root, name))]
    try:
        with os.scandir(os.path.join(root, "daily")) as it:
            out += sorted("daily/" + e.name for e in it
                          if e.name.endswith(".jsonl") and e.is_file())
    except FileNotFoundError:
        pass
    return out


def sync_text(conn, root: Path) -> SyncReport:
    """Bring the chunks (and FTS) in line with the files. One IMMEDIATE transaction, so
    concurrent syncs queue and each sees the other's result."""
    report = SyncReport()
    root = Path(root)
    with conn.transaction():
        state = {r[0]: r for r in conn.execute(
            "SELECT file_path, offset, last_line, size, inode, mtime, head FROM sync_state")}
        current = source_files(root)
        for gone in set(state) - set(current):
            report.removed += conn.execute("DELETE FROM chunks WHERE source_file=?", (gone,)).rowcount
            report.corrections += conn.execute("DELETE FROM corrections WHERE source_file=?",
                                               (gone,)).rowcount
            conn.execute("DELETE FROM sync_state WHERE file_path=?", (gone,))
            conn.execute("DELETE FROM skipped WHERE file_path=?", (gone,))
        for rel in current:
            try:
                if rel == "MEMORY.md":
                    _sync_markdown(conn, root, rel, state.get(rel), report)
                else:
                    _sync_jsonl(conn, root, rel, state.get(rel), report)
            except FileNotFoundError:  # pruned while we looked
                report.removed += conn.execute(
                    "DELETE FROM chunks WHERE source_file=?", (rel,)).rowcount
                conn.execute("DELETE FROM sync_state WHERE file_path=?", (rel,))
        if report.upserted or report.removed or report.corrections:
            corrections.apply(conn)
    return report


def _unchanged(st, row) -> bool:
    return row is not None and row[3] == st.st_size and row[4] == st.st_ino and row[5] == st.st_mtime_ns


def _head(path: Path, upto: int) -> str:
    with open(path, "rb") as f:
        return hashlib.sha1(f.read(min(upto, HEAD_BYTES))).hexdigest()


def _sync_jsonl(conn, root: Path, rel: str, row, report: SyncReport) -> None:
    st = os.stat(os.path.join(root, rel))  # every search asks this of every file: no pathlib
    if _unchanged(st, row):
        return
    path = root / rel
    offset, line_no = (row[1], row[2]) if row else (0, 0)
    whole = (row is None or st.st_ino != row[4] or st.st_size < offset
             or (offset and _head(path, offset) != row[6]))
    # A file never indexed has nothing in the index to replace (a first sync or a rebuild
    # meets hundreds of them: the deletes below were a third of a 1k-record rebuild).
    replace = whole and row is not None
    if whole:
        offset, line_no = 0, 0
    if replace:
        conn.execute("DELETE FROM skipped WHERE file_path=?", (rel,))
    batch = jsonl.read(path, offset, line_no)
    report.files += 1
    chunks, records = {}, {}
    daily = rel.startswith("daily/")
    before: dict = {}  # thread -> content of its last line so far
    if daily and offset:
        wanted = {t for _, r in batch.records if (t := _thread(r))}
        before = _last_in_threads(path, rel, offset, wanted) if wanted else {}
    for n, record in batch.records:
        thread = _thread(record) if daily else None
        try:
            chunk = to_chunk(rel, record, before.get(thread) if thread else None)
        except ValueError as e:
            batch.skipped.append((n, str(e)))
            continue
        if chunk is not None:
            chunks[chunk[0]] = chunk  # a later line with the same id is a newer version
            records[chunk[0]] = record
            if rel == "sessions.jsonl":
                chunks.update((p[0], p) for p in parts(chunk))
            if thread:
                before[thread] = chunk[1]
    for n, reason in batch.skipped:
        report.skipped.append(f"{rel}:{n}: {reason}")
    if batch.skipped:
        conn.executemany("INSERT OR REPLACE INTO skipped(file_path, line, reason) VALUES (?,?,?)",
                         [(rel, n, reason) for n, reason in batch.skipped])
    if chunks:
        report.upserted += conn.executemany(_UPSERT, list(chunks.values())).rowcount
        refs.store(conn, [(cid, refs.of_record(records[cid], chunks[cid][1], None))
                          for cid in chunks if cid in records])  # parts point nowhere
    report.corrections += corrections.store(conn, rel, [r for _, r in batch.records], whole=replace)
    if replace:
        report.removed += _remove_vanished(conn, rel, chunks)
    last_id = batch.records[-1][1].get("id") if batch.records else None
    conn.execute(
        "INSERT OR REPLACE INTO sync_state(file_path, offset, last_line, last_id, size, inode, "
        "mtime, head, synced_at) VALUES (?,?,?,?,?,?,?,?,?)",
        (rel, batch.offset, batch.line_no, last_id, st.st_size, st.st_ino, st.st_mtime_ns,
         _head(path, batch.offset) if batch.offset else None, int(time.time())))


def session_of(record: dict) -> str | None:
    """The conversation a record came from (`session_id`, or `source.session`), if it names one."""
    source = record.get("source") if isinstance(record.get("source"), dict) else {}
    session = record.get("session_id") or source.get("session")
    if not isinstance(session, str) or not session.strip() or session == "unknown":
        return None
    return session


def _thread(record: dict):
    """Which conversation a daily line continues: its session (transcript turns and memories
    apart), or None when it names none."""
    session = session_of(record)
    return (session, record.get("type") == "transcript") if session else None


def _last_in_threads(path: Path, rel: str, offset: int, wanted: set) -> dict:
    """{thread: content of its last indexed line} for the wanted threads, from the lines
    just before `offset` (read backwards, at most TAIL_BYTES), so that an appended line gets
    the same context as in a full read."""
    start = max(0, offset - TAIL_BYTES)
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(offset - start)
    lines = data.split(b"\n")
    if start:
        lines = lines[1:]  # the first one is cut
    out: dict = {}
    for raw in reversed(lines):
        if len(out) == len(wanted):
            break
        try:
            record = json.loads(raw)
            thread = _thread(record) if isinstance(record, dict) else None
            if thread in wanted and thread not in out and to_chunk(rel, record) is not None:
                out[thread] = record["content"]
        except (ValueError, KeyError):
            continue
    return out


def _remove_vanished(conn, rel: str, keep: dict) -> int:
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS keep_ids(id TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM keep_ids")
    conn.executemany("INSERT OR IGNORE INTO keep_ids VALUES (?)", [(k,) for k in keep])
    n = conn.execute("DELETE FROM chunks WHERE source_file=? AND id NOT IN (SELECT id FROM keep_ids)",
                     (rel,)).rowcount
    conn.execute("DELETE FROM keep_ids")
    return n


def _sync_markdown(conn, root: Path, rel: str, row, report: SyncReport) -> None:
    st = os.stat(os.path.join(root, rel))
    if _unchanged(st, row):
        return
    path = root / rel
    text = path.read_bytes().decode("utf-8", errors="replace")
    report.files += 1
    # Core memory is curated, not dated: a chunk gets no timestamp (the file's mtime would
    # change every chunk's hash, and so re-embed every section, on any edit).
    stamp = None
    chunks = {}
    for c in split_markdown(text, rel):
        context = " / ".join(c.path)
        chunks[c.id] = _row(c.id, c.content, "core", None, [], 1.0, rel, f"{rel}:{c.line}",
                            stamp, c.section, context, [c.id])
        chunks.update((p[0], p) for p in parts(chunks[c.id]))
    if chunks:
        report.upserted += conn.executemany(_UPSERT, list(chunks.values())).rowcount
        project = refs.project_of(root)
        refs.store(conn, [(cid, refs.extract(c[1], project)) for cid, c in chunks.items()
                          if parent_of(cid, json.loads(c[11])) is None])  # not the parts
    report.removed += _remove_vanished(conn, rel, chunks)
    conn.execute(
        "INSERT OR REPLACE INTO sync_state(file_path, offset, last_line, size, inode, mtime, "
        "synced_at) VALUES (?,?,?,?,?,?,?)",
        (rel, st.st_size, text.count("\n"), st.st_size, st.st_ino, st.st_mtime_ns, int(time.time())))


def _row(cid, content, ctype, memory_type, entities, confidence, source_file, source_id,
         timestamp, section, context, evidence) -> tuple:
    entities_json = json.dumps(entities, ensure_ascii=False)
    evidence_json = json.dumps(evidence, ensure_ascii=False)
    norm = hashlib.sha1(normalize(content).encode()).hexdigest()[:16]
    digest = hashlib.sha1(json.dumps(
        [content, ctype, memory_type, entities, confidence, timestamp, section, context, evidence],
        ensure_ascii=False).encode()).hexdigest()
    return (cid, content, ctype, memory_type, entities_json, confidence, source_file, source_id,
            timestamp, section, context, evidence_json, norm, digest)


# --- long records are also indexed by their parts ----------------------------------------

# A MEMORY.md section or a session summary holds many facts in one long chunk: BM25 ranks it
# low for its length and a small embedding model reads only its first 256 tokens. So each of
# its lines (a summary: sentences, decisions, todos) is indexed as well, as a part: a row
# with id `<parent id>#part-<n>` and the parent's id as its evidence. Search shows the
# parent in a part's place (search.load_hits). devmem hybrid R@5 0.729 -> 0.758, vector
# R@5 0.41 -> 0.51.
PART = "#part-"
_PIECES = re.compile(r"\n|(?<=[。；;！？!?])|(?<=\.)\s+|(?:Decisions|Todos): ")


def parts(row: tuple) -> list:
    """The part rows of a MEMORY.md chunk or session summary row (none when it has only
    one line worth indexing: then the row is its own part)."""
    cid, content, ctype, memory_type, _, confidence, source_file, source_id, timestamp, \
        section, context, _, _, _ = row
    pieces = []
    for piece in _PIECES.split(content):
        for text in (piece.split("; ") if ctype == "session_summary" else (piece,)):
            text = text.strip(" -*|>#;；\t")
            if sum(ch.isalnum() for ch in text) >= 4:
                pieces.append(text)
    if len(pieces) < 2:
        return []
    return [_row(f"{cid}{PART}{n}", text, ctype, memory_type, [], confidence, source_file,
                 source_id, timestamp, section, context, [cid])
            for n, text in enumerate(pieces, 1)]


def parent_of(cid: str, evidence: list) -> str | None:
    """The id of the record a part row stands for, or None for a row that is no part."""
    if len(evidence) == 1 and cid.startswith(evidence[0] + PART) \
            and cid[len(evidence[0]) + len(PART):].isdigit():
        return evidence[0]
    return None


# --- records to chunks --------------------------------------------------------------------

def _need_text(record: dict, key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"missing or empty {key!r}")
    return value


def _str_list(record: dict, key: str) -> list:
    value = record.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{key!r} must be a list of strings")
    return value


def _confidence(record: dict, default: float) -> float:
    value = record.get("confidence", default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"confidence {value!r} is not a number from 0 to 1")
    return float(value)


def _timestamp(record: dict, *keys) -> str:
    for key in keys:
        if key in record:
            stamp = normalize_time(record[key])
            if stamp is None:
                raise ValueError(f"{key!r} {record[key]!r} is not an ISO 8601 time")
            return stamp
    raise ValueError(f"missing {keys[0]!r}")


def to_chunk(rel: str, record: dict, neighbour: str | None = None):
    """The index row for a record, None for a record that is not searchable (a session
    event), or ValueError naming what is wrong with it. `neighbour`: the content of the
    line before it in the same session (daily lines), kept as context. A daily line's or a
    summary's source_id is its session, when it names one (search lets a summary share in
    the score of its session's lines); otherwise the record's id."""
    rid = record.get("id")
    if not isinstance(rid, str) or not rid.strip() or len(rid) > 200:
        raise ValueError("missing or invalid 'id'")
    if rel == "sessions.jsonl":
        topic = _need_text(record, "topic")
        summary = _need_text(record, "summary")
        decisions = _str_list(record, "decisions")
        todos = _str_list(record, "todos")
        parts = [topic, summary]
        if decisions:
            parts.append("Decisions: " + "; ".join(decisions))
        if todos:
            parts.append("Todos: " + "; ".join(todos))
        return _row(rid, "\n".join(parts), "session_summary", "S", [], 1.0, rel,
                    session_of(record) or rid, _timestamp(record, "timestamp"), None, topic, [rid])
    if rel == "facts.jsonl":
        content = _need_text(record, "content")
        memory_type = record.get("type")
        if memory_type not in FACT_TYPES:
            raise ValueError(f"'type' must be one of {'/'.join(FACT_TYPES)}, not {memory_type!r}")
        kind = record.get("kind", "fact")
        evidence = _str_list(record, "evidence") or [rid]
        source = record.get("source") if isinstance(record.get("source"), dict) else {}
        return _row(rid, content, kind if kind in KINDS else "fact", memory_type,
                    _str_list(record, "entities"), _confidence(record, 1.0), rel,
                    str(source.get("id") or rid),
                    _timestamp(record, "updated_at", "created_at", "timestamp"), None, None, evidence)
    kind = record.get("type")
    if not isinstance(kind, str):
        raise ValueError("missing 'type'")
    if kind == "transcript":  # archived turns: keyword-searchable on request, never embedded
        return _row(rid, _need_text(record, "content"), "transcript", None, [], 1.0, rel,
                    session_of(record) or rid, _timestamp(record, "timestamp"), None,
                    _tail(neighbour), [rid])
    if kind not in KINDS:
        return None  # session events are not memories to search
    memory_type = record.get("memory_type")
    if memory_type is not None and not isinstance(memory_type, str):
        raise ValueError("'memory_type' must be text")
    return _row(rid, _need_text(record, "content"), kind, memory_type,
                _str_list(record, "entities"), _confidence(record, 0.8 if kind == "preference" else 1.0),
                rel, session_of(record) or rid, _timestamp(record, "timestamp"), None,
                _tail(neighbour), [rid])


def _tail(text: str | None) -> str | None:
    """The end of the line before (a question ends where it asks), NEIGHBOUR_CHARS at most."""
    if not text or NEIGHBOUR_CHARS <= 0:
        return None
    return text if len(text) <= NEIGHBOUR_CHARS else "…" + text[-NEIGHBOUR_CHARS:]
