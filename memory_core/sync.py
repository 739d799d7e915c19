"""Files → index, incrementally, resumably, whatever the files hold.

Change detection (docs/formats.md "Sync"): a file whose size, inode, mtime and ctime are what
the last sync saw is skipped. Otherwise its bytes up to where the last sync stopped are hashed
and compared with the hash kept then: equal means lines were only appended and reading goes on
from there; different means something already synced changed (a `git pull --rebase` that put
the other side's lines first, a same-size rewrite, a compaction) and the file is read again
whole, its vanished ids removed.

Work is committed in slices of SLICE_LINES records, each in its own transaction with the
file's progress, so a sync killed at any moment (a hook's timeout) resumes where it stopped,
and a `deadline` makes it stop between slices and say so (`SyncReport.complete`). A whole
re-read in slices remembers the ids it has seen in `sync_seen`, so a kill half-way cannot
lose the removal of vanished ids.

A line that is not a record we can index, whatever it contains, is skipped and reported as
`file:line: why`; the rest syncs. Symbolic links in the memory folder are neither read nor
written (doctor lists them).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import corrections, jsonl, refs
from .chunking import split_markdown
from .config import normalize_time
from .records import FACT_TYPES, KINDS
from .text import normalize, said_by

SLICE_LINES = 2000  # records per transaction: what a kill can lose
# With a deadline, a slice is smaller: its length is how far past the deadline a sync can
# run, and a session summary is several rows (its sentences, decisions and todos), so 2,000
# of them took 4-8 s where sessionStart had 4.
DEADLINE_SLICE_LINES = 250
MAX_CORE_BYTES = 256_000  # of MEMORY.md indexed (~64k tokens); session start reads the file
# A line of a conversation (it and the line before it in its session both name a speaker)
# is indexed with that line's tail as low-weight keyword context: a reply's meaning lives
# partly in what it answers. Saved facts, which name no speaker, are statements of their
# own and get none (docs/retrieval.md "MemDaily" and "Neighbour context").
NEIGHBOUR_CHARS = 150


@dataclass
class SyncReport:
    files: int = 0  # files read (in part or whole)
    upserted: int = 0  # chunks added or changed
    removed: int = 0
    skipped: list = field(default_factory=list)  # ["daily/2026-10-01.jsonl:12: not JSON ..."]
    embedded: int = 0  # vectors made by the model
    reused: int = 0  # vectors copied from a chunk with the same text
    corrections: int = 0  # tombstones, supersedes and fact statuses read
    complete: bool = True  # False: stopped at the deadline, `pending_files` left for later
    pending_files: int = 0
    pending_vectors: int = 0
    private_problems: list = field(default_factory=list)

    def add_vectors(self, fill) -> None:
        """Count a vectors.FillReport (None: no model) into this report."""
        if fill is not None:
            self.embedded, self.reused, self.pending_vectors = fill.embedded, fill.reused, fill.left

    def __str__(self):
        parts = [f"{self.upserted} chunks added or changed", f"{self.removed} removed"]
        if self.embedded or self.reused:
            parts.append(f"{self.embedded} embedded" + (f", {self.reused} reused" if self.reused else ""))
        if self.skipped:
            parts.append(f"{len(self.skipped)} malformed lines skipped")
        if not self.complete:
            parts.append(f"{self.pending_files} files left for the next sync")
        if self.pending_vectors:
            parts.append(f"{self.pending_vectors} vectors left for later")
        return ", ".join(parts)


# --- the rows -------------------------------------------------------------------------------

_COLUMNS = ("id", "content", "type", "memory_type", "entities", "confidence", "source_file",
            "source_id", "timestamp", "section", "context", "evidence", "norm", "hash",
            "line_offset", "embed_hash", "vec_want")
_UPSERT = (
    f"INSERT INTO chunks({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))}) "
    "ON CONFLICT(id) DO UPDATE SET "
    + ", ".join(f"{c}=excluded.{c}" for c in _COLUMNS[1:] if c != "line_offset")
    + " WHERE chunks.hash IS NOT excluded.hash OR chunks.source_file IS NOT excluded.source_file"
)
_SOURCE_KIND = {"facts.jsonl": "facts", "sessions.jsonl": "sessions", "MEMORY.md": "core"}


def source_kind(source_file: str) -> str:
    """facts / sessions / core / daily: what vec0 filters on (consolidation asks for facts)."""
    return _SOURCE_KIND.get(source_file, "daily")


@dataclass
class ChunkRow:
    """One row of `chunks`, as sync writes it. Made with `ChunkRow.make`, which fills the
    derived fields."""
    id: str
    content: str
    type: str
    memory_type: str | None
    entities: list
    confidence: float
    source_file: str
    source_id: str | None
    timestamp: str | None
    section: str | None
    context: str | None
    evidence: list
    line_offset: int | None = None
    norm: str = ""
    hash: str = ""
    embed_hash: str | None = None
    vec_want: str | None = None

    @classmethod
    def make(cls, *args, **kwargs) -> "ChunkRow":
        row = cls(*args, **kwargs)
        row.norm = hashlib.sha1(normalize(row.content).encode()).hexdigest()[:16]
        # \x1f (unit separator) between the fields: cheaper than JSON, unambiguous for text
        row.hash = hashlib.sha1("\x1f".join(
            [row.content, str(row.type), str(row.memory_type), "\x1e".join(row.entities),
             repr(row.confidence), str(row.timestamp), str(row.section), str(row.context),
             "\x1e".join(row.evidence)]).encode()).hexdigest()
        if row.type != "transcript":  # archived turns are keyword-only
            from .vectors import embed_text
            row.embed_hash = hashlib.sha1(
                embed_text(row.content, row.context, row.type).encode()).hexdigest()
            row.vec_want = hashlib.sha1("\x1f".join(
                [row.embed_hash, str(row.type), str(row.memory_type), str(row.timestamp),
                 source_kind(row.source_file)]).encode()).hexdigest()
        return row

    def values(self) -> tuple:
        return (self.id, self.content, self.type, self.memory_type,
                json.dumps(self.entities, ensure_ascii=False), self.confidence, self.source_file,
                self.source_id, self.timestamp, self.section, self.context,
                json.dumps(self.evidence, ensure_ascii=False), self.norm, self.hash,
                self.line_offset, self.embed_hash, self.vec_want)


# --- which files -----------------------------------------------------------------------------

def source_files(root: Path) -> list[str]:
    """The source of truth, relative to the memory folder, in sync order: MEMORY.md, the
    summaries, the facts, then the daily files newest first (a sync cut short by its deadline
    has indexed what a session most likely asks about). Regular files only: a symbolic link
    is never read. (os.scandir, not pathlib: sessionStart lists a year of files each start.)"""
    out = [name for name in ("MEMORY.md", "sessions.jsonl", "facts.jsonl")
           if _regular(os.path.join(root, name))]
    daily = os.path.join(root, "daily")
    if os.path.islink(daily):  # a link in place of daily/ is neither read nor written
        return out
    try:
        with os.scandir(daily) as it:
            out += sorted(("daily/" + e.name for e in it
                           if _DAILY_NAME.match(e.name) and e.is_file(follow_symlinks=False)),
                          reverse=True)
    except (FileNotFoundError, NotADirectoryError):
        pass
    return out


RACY_NS = 2_000_000_000
# A daily file's name is shown to agents as where a memory came from: letters, digits, dots,
# dashes and underscores only (ours are YYYY-MM-DD.jsonl); any other file is not read.
_DAILY_NAME = re.compile(r"[\w.\-]{1,120}\.jsonl\Z", re.ASCII)


def stamp(root, index_path) -> tuple | None:
    """What a long-lived process compares to skip a sync: every source file's inode, size,
    mtime and ctime, and the index file's inode (a rebuild or a deletion replaces it). Equal
    stamps mean no byte of the sources changed since the sync that recorded it: the same
    test the sync applies file by file, at one lstat per file. None when a file changed in
    the last RACY_NS (its next change might not show)."""
    out = []
    for rel in ["MEMORY.md", "sessions.jsonl", "facts.jsonl", "daily", os.fspath(index_path)]:
        try:
            st = os.lstat(os.path.join(root, rel))
            out.append((rel, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode))
        except OSError:
            out.append((rel, None))
    try:
        with os.scandir(os.path.join(root, "daily")) as it:
            for e in it:
                st = e.stat(follow_symlinks=False)
                out.append(("daily/" + e.name, st.st_ino, st.st_size, st.st_mtime_ns,
                            st.st_ctime_ns, st.st_mode))
    except OSError:
        pass
    out[4] = out[4][:2]  # the index: which file, not its writes
    # File times tick coarsely (a few ms): a file changed just now could change again
    # without its stamp changing ("racy git"). Such a stamp is not trusted.
    recent = time.time_ns() - RACY_NS
    if any(len(x) > 2 and x[4] >= recent for x in out):
        return None
    return tuple(sorted(out, key=lambda x: x[0]))


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


# --- sync ----------------------------------------------------------------------------------

class _Tx:
    """One IMMEDIATE transaction kept open across small files and committed every
    SLICE_LINES records, so a first sync of 366 small daily files is a few commits, not
    366, and a big file is still committed in slices (a kill loses at most one). `epoch`
    counts commits: after one, a file's progress is read again (another process may have
    gone on with it)."""

    def __init__(self, conn):
        self.conn = conn
        self.open = False
        self.work = 0
        self.epoch = 0

    def begin(self) -> None:
        if not self.open:
            self.conn.execute("BEGIN IMMEDIATE")
            self.open = True

    def done(self, n: int) -> None:
        self.work += n
        if self.work >= SLICE_LINES:
            self.commit()

    def commit(self) -> None:
        if self.open:
            self.conn.execute("COMMIT")
            self.open = False
            self.work = 0
            self.epoch += 1

    def rollback(self) -> None:
        if self.open:
            try:
                self.conn.execute("ROLLBACK")
            except Exception:  # noqa: BLE001 - the error that got us here matters more
                pass
            self.open = False


def sync_text(conn, root: Path, *, project=None, deadline: float | None = None,
              fix_modes: bool = True) -> SyncReport:
    """Bring the chunks (and FTS, refs, corrections) in line with the files, committing as
    it goes; with `deadline` (time.monotonic()), stop between slices once it has passed."""
    from .files import private_problems

    report = SyncReport()
    root = Path(root)
    if fix_modes:
        report.private_problems = private_problems(str(root))
    if project is None:
        from .config import project_of_memory
        project = project_of_memory(root)
    current = source_files(root)
    tx = _Tx(conn)
    try:
        tx.begin()
        known = {r[0] for r in conn.execute("SELECT file_path FROM sync_state")}
        for gone in known - set(current):
            _forget_file(conn, gone, report)
        for n, rel in enumerate(current):
            if deadline is not None and time.monotonic() > deadline:
                tx.commit()
                report.complete = False
                report.pending_files = sum(1 for r in current[n:] if not _is_current(conn, root, r))
                break
            try:
                if rel == "MEMORY.md":
                    _sync_markdown(conn, tx, root, rel, report, project)
                elif not _sync_jsonl(conn, tx, root, rel, report, project, deadline):
                    tx.commit()
                    report.complete = False
                    report.pending_files = 1 + sum(1 for r in current[n + 1:]
                                                   if not _is_current(conn, root, r))
                    break
            except FileNotFoundError:  # pruned while we looked
                tx.begin()
                _forget_file(conn, rel, report)
        tx.begin()
        if get_dirty(conn):
            corrections.apply(conn)
            conn.execute("DELETE FROM meta WHERE key='corrections_dirty'")
        tx.commit()
    except BaseException:
        tx.rollback()
        raise
    return report


def refresh(index, root: Path, *, project=None, deadline: float | None = None, last=None) -> tuple:
    """Sync `index` with the files unless no source file changed since the complete sync
    whose stamp is `last` (a long-lived process syncing before every search). Returns
    (SyncReport, the stamp to pass next time)."""
    before = stamp(root, index.path)
    if before is not None and before == last:
        return SyncReport(), last
    done = []

    def text(conn):
        if conn.read_only:
            if not index.read_only:  # the folder is writable, its disk is not
                from .log import note
                note("the disk refuses writes (full, or failing): the index is used as it is")
            return SyncReport()
        report = sync_text(conn, root, project=project, deadline=deadline)
        done.append(report.complete)
        return report

    report = index.run(text)
    return report, (before if done == [True] else last)


def get_dirty(conn) -> bool:
    return conn.execute("SELECT 1 FROM meta WHERE key='corrections_dirty'").fetchone() is not None


def _mark_dirty(conn) -> None:
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('corrections_dirty', '1')")


def _forget_file(conn, rel: str, report: SyncReport) -> None:
    report.removed += conn.execute("DELETE FROM chunks WHERE source_file=?", (rel,)).rowcount
    report.corrections += conn.execute("DELETE FROM corrections WHERE source_file=?",
                                       (rel,)).rowcount
    for table in ("sync_state", "skipped", "sync_seen"):
        conn.execute(f"DELETE FROM {table} WHERE file_path=?", (rel,))
    _mark_dirty(conn)


@dataclass
class _State:
    offset: int = 0
    last_line: int = 0
    size: int | None = None
    inode: int | None = None
    mtime: int | None = None
    ctime: int | None = None
    prefix: str | None = None
    complete: int = 0
    replacing: int = 0


def _state(conn, rel: str) -> _State | None:
    row = conn.execute("SELECT offset, last_line, size, inode, mtime, ctime, prefix, complete, "
                       "replacing FROM sync_state WHERE file_path=?", (rel,)).fetchone()
    return _State(*row) if row else None


def _same(state: _State | None, st) -> bool:
    return (state is not None and state.complete == 1 and not state.replacing
            and (state.size, state.inode, state.mtime, state.ctime)
            == (st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns))


def _is_current(conn, root: Path, rel: str) -> bool:
    try:
        return _same(_state(conn, rel), os.lstat(os.path.join(root, rel)))
    except OSError:
        return True


def _save_state(conn, rel, st, offset, line_no, prefix, complete, replacing) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO sync_state(file_path, offset, last_line, size, inode, mtime, "
        "ctime, prefix, complete, replacing, synced_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (rel, offset, line_no, st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, prefix,
         int(complete), int(replacing), int(time.time())))


def _read(path: str):
    """(bytes, stat of those bytes) of a regular file; FileNotFoundError for a link."""
    from .files import NOFOLLOW
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | getattr(os, "O_BINARY", 0))
    except OSError as e:
        raise FileNotFoundError(path) from e
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise FileNotFoundError(path)
        return f.read(), st


def _sync_jsonl(conn, tx: _Tx, root: Path, rel: str, report: SyncReport, project,
                deadline: float | None) -> bool:
    """Sync one JSONL file in slices; False when the deadline stopped it before the end."""
    path = os.path.join(root, rel)
    tx.begin()
    state = _state(conn, rel)
    try:
        if _same(state, os.lstat(path)):
            return True
    except OSError:
        raise FileNotFoundError(path) from None
    data, st = _read(path)
    data = jsonl.settled_tail(data, st.st_mtime)
    end = data.rfind(b"\n") + 1  # complete lines only
    report.files += 1
    fresh = state is None  # a file never synced: nothing of it to replace or re-point
    if fresh:
        offset, line_no, replacing, digest = 0, 0, False, hashlib.sha1()
    else:
        old = hashlib.sha1(data[:state.offset]) if state.offset <= len(data) else None
        if old is not None and old.hexdigest() == state.prefix:
            offset, line_no, replacing, digest = state.offset, state.last_line, bool(state.replacing), old
        else:  # bytes already synced changed: read it all again, then drop vanished ids
            offset, line_no, replacing, digest = 0, 0, True, hashlib.sha1()
            for table in ("skipped", "sync_seen"):
                conn.execute(f"DELETE FROM {table} WHERE file_path=?", (rel,))
            report.corrections += corrections.forget_file(conn, rel)
            _save_state(conn, rel, st, 0, 0, digest.hexdigest(), False, True)
            _mark_dirty(conn)
    daily = rel.startswith("daily/")
    before = _Threads(conn, data, rel, offset)  # daily files: each thread's last line so far
    epoch = tx.epoch
    while True:
        tx.begin()
        if tx.epoch != epoch:  # committed since we looked: has another process gone on?
            now_state = _state(conn, rel)
            if now_state is None or now_state.offset != offset or now_state.prefix != digest.hexdigest():
                return _sync_jsonl(conn, tx, root, rel, report, project, deadline)
            epoch = tx.epoch
            fresh = False  # another process could have written rows of this file meanwhile
        batch = jsonl.read(path, offset, line_no, data=data,
                           limit=SLICE_LINES if deadline is None else DEADLINE_SLICE_LINES)
        digest.update(data[offset:batch.offset])
        at_end = batch.offset >= end
        _store_batch(conn, rel, batch, report, project, before if daily else None, replacing, fresh)
        if replacing and at_end:
            report.removed += conn.execute(
                "DELETE FROM chunks WHERE source_file=? AND id NOT IN "
                "(SELECT id FROM sync_seen WHERE file_path=?)", (rel, rel)).rowcount
            conn.execute("DELETE FROM sync_seen WHERE file_path=?", (rel,))
            replacing = False
        _save_state(conn, rel, st, batch.offset, batch.line_no, digest.hexdigest(), at_end, replacing)
        offset, line_no = batch.offset, batch.line_no
        tx.done(len(batch.lines) + len(batch.skipped) + 1)
        if at_end:
            return True
        if deadline is not None and time.monotonic() > deadline:
            return False


def _store_batch(conn, rel: str, batch, report: SyncReport, project, before, replacing,
                 fresh: bool = False) -> None:
    """Write one slice's chunks, refs, decisions and corrections; skipped lines noted."""
    chunks: dict = {}
    records: dict = {}
    decisions: dict = {}
    good = []
    for ln in batch.lines:
        record = ln.record
        try:
            thread = _thread(record) if before is not None else None
            speaker = speaker_of(record) if thread else None
            row = to_chunk(rel, record, _answered(before.get(thread), speaker) if thread else None,
                           ln.offset)
            found = refs.of_record(record, row.content, project) if row is not None else []
            fixes = corrections.rows_of(rel, record)
        except Exception as e:  # noqa: BLE001 - whatever a line holds, it is skipped, not fatal
            batch.skipped.append((ln.number, _reason(e)))
            continue
        good.append(record)
        report.corrections += len(fixes)
        if fixes or rel == "facts.jsonl":  # a fact's new version replaces its old status
            corrections.store_rows(conn, rel, record, fixes)
        if row is None:
            continue
        chunks[row.id] = row  # a later line with the same id is a newer version
        records[row.id] = found
        if rel == "sessions.jsonl":
            chunks.update((p.id, p) for p in parts(row))
            decisions[row.id] = [d for d in record.get("decisions") or [] if isinstance(d, str)]
        if thread:
            before[thread] = (row.content, speaker)
    for n, reason in batch.skipped:
        report.skipped.append(f"{rel}:{n}: {reason}")
    if batch.skipped:
        conn.executemany("INSERT OR REPLACE INTO skipped(file_path, line, reason) VALUES (?,?,?)",
                         [(rel, n, reason) for n, reason in batch.skipped])
    if chunks:
        report.upserted += conn.executemany(_UPSERT, [c.values() for c in chunks.values()]).rowcount
        if not fresh:  # an insert set it; an update (the same id again) keeps the old one
            conn.executemany("UPDATE chunks SET line_offset=? WHERE id=? AND line_offset IS NOT ?",
                             [(c.line_offset, c.id, c.line_offset) for c in chunks.values()
                              if c.line_offset is not None])
        refs.store(conn, list(records.items()), fresh=fresh)
        if decisions:
            _store_decisions(conn, decisions)
        _store_mentions(conn, [c for cid, c in chunks.items() if cid in records], fresh)
        if replacing:
            conn.executemany("INSERT OR IGNORE INTO sync_seen(file_path, id) VALUES (?,?)",
                             [(rel, cid) for cid in chunks])
    if chunks or good:
        _mark_dirty(conn)


def _store_decisions(conn, decisions: dict) -> None:
    ids = list(decisions)
    pks = dict(conn.execute(f"SELECT id, pk FROM chunks WHERE id IN ({','.join('?' * len(ids))})",
                            ids))
    for rid, items in decisions.items():
        pk = pks.get(rid)
        if pk is None:
            continue
        conn.execute("DELETE FROM decisions WHERE pk=?", (pk,))
        conn.executemany("INSERT OR REPLACE INTO decisions(pk, n, text) VALUES (?,?,?)",
                         [(pk, n, text.strip()) for n, text in enumerate(items, 1) if text.strip()])


def _store_mentions(conn, rows: list, fresh: bool = False) -> None:
    """The days each record names, read from the time it was written (temporal.mentions):
    a question about a day finds a record that talks about it, whenever it was saved; a
    day named ahead (a plan) only dates an event (search.event_day), it is not what
    happened that day."""
    from .config import parse_time
    from .temporal import mentions

    found = []
    for row in rows:
        if row.timestamp is None or row.type == "transcript":
            continue
        written = parse_time(row.timestamp)
        spans = mentions(row.content, written)
        if spans:
            day = written.astimezone().date()
            found.append((row.id, [(a, b, int(a > day)) for a, b in spans]))
    ids = [r.id for r in rows] if not fresh else [cid for cid, _ in found]
    if not ids:
        return
    pks = dict(conn.execute(f"SELECT id, pk FROM chunks WHERE id IN ({','.join('?' * len(ids))})", ids))
    if not fresh:
        conn.executemany("DELETE FROM mentions WHERE pk=?", [(pk,) for pk in pks.values()])
    conn.executemany("INSERT INTO mentions(pk, first, last, ahead) VALUES (?,?,?,?)",
                     [(pks[cid], a.isoformat(), b.isoformat(), ahead) for cid, spans in found
                      if cid in pks for a, b, ahead in spans])


def _reason(e: Exception) -> str:
    if isinstance(e, ValueError) and type(e) is ValueError:
        return str(e)[:200]
    if isinstance(e, RecursionError):
        return "nested too deeply"
    return f"{type(e).__name__}: {str(e)[:160]}"


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


def speaker_of(record: dict) -> str | None:
    """Who said a line: a transcript turn's role, `source.speaker`, or a "Name:" / "名字："
    opening its content; None for a saved fact that names no one."""
    source = record.get("source") if isinstance(record.get("source"), dict) else {}
    for who in (record.get("role"), source.get("speaker")):
        if isinstance(who, str) and who.strip():
            return who.strip().casefold()
    return said_by(record["content"]) if isinstance(record.get("content"), str) else None


def _answered(previous, speaker: str | None) -> str | None:
    """The line before (content, its speaker) as context for a line of `speaker`, when both
    are lines of a conversation: both name a speaker."""
    if previous is None or previous[1] is None or speaker is None:
        return None
    return previous[0]


class _Threads(dict):
    """{thread: (content, speaker) of its last line so far}. A thread's last line before
    `offset` (the bytes synced before) is found in the index and read from the file when
    first asked for, however far back it is, so that an appended line gets the context a
    full read gives it (and a reply is found by its question either way)."""

    def __init__(self, conn, data: bytes, rel: str, offset: int):
        super().__init__()
        self._conn, self._data, self._rel, self._offset = conn, data, rel, offset
        self._looked: set = set()

    def get(self, thread, default=None):
        if thread in self or thread in self._looked or not self._offset:
            return super().get(thread, default)
        self._looked.add(thread)
        row = self._conn.execute(
            "SELECT line_offset FROM chunks WHERE source_file = ? AND source_id = ? "
            "AND line_offset < ? AND (type = 'transcript') = ? ORDER BY line_offset DESC LIMIT 1",
            (self._rel, thread[0], self._offset, thread[1])).fetchone()
        if row is None or row[0] is None:
            return default
        end = self._data.find(b"\n", row[0])
        record, _ = jsonl.parse(self._data[row[0]:end if end >= 0 else None])
        if isinstance(record, dict) and _thread(record) == thread and isinstance(record.get("content"), str):
            self[thread] = (record["content"], speaker_of(record))
        return super().get(thread, default)


def _sync_markdown(conn, tx: _Tx, root: Path, rel: str, report: SyncReport, project) -> None:
    path = os.path.join(root, rel)
    tx.begin()
    state = _state(conn, rel)
    if _same(state, os.lstat(path)):
        return
    raw, st = _read(path)
    report.files += 1
    if len(raw) > MAX_CORE_BYTES:
        from .log import note
        note(f"MEMORY.md is {len(raw) / 1e6:.1f} MB; its first {MAX_CORE_BYTES // 1000} KB are "
             "searchable (session start reads it from the file)")
        raw = raw[:MAX_CORE_BYTES]
    text = raw.decode("utf-8", errors="replace")
    # Core memory is curated, not dated: a chunk gets no timestamp (the file's mtime would
    # change every chunk's hash, and so re-embed every section, on any edit).
    chunks: dict = {}
    for c in split_markdown(text, rel):
        row = ChunkRow.make(c.id, c.content, "core", None, [], 1.0, rel, f"{rel}:{c.line}",
                            None, c.section, " / ".join(c.path), [c.id])
        chunks[row.id] = row
        chunks.update((p.id, p) for p in parts(row))
    tx.begin()
    if chunks:
        report.upserted += conn.executemany(_UPSERT, [c.values() for c in chunks.values()]).rowcount
        refs.store(conn, [(cid, refs.extract(c.content, project)) for cid, c in chunks.items()
                          if parent_of(cid, c.evidence) is None])  # not the parts
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS keep_ids(id TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM keep_ids")
    conn.executemany("INSERT OR IGNORE INTO keep_ids VALUES (?)", [(k,) for k in chunks])
    report.removed += conn.execute(
        "DELETE FROM chunks WHERE source_file=? AND id NOT IN (SELECT id FROM keep_ids)",
        (rel,)).rowcount
    conn.execute("DELETE FROM keep_ids")
    _save_state(conn, rel, st, st.st_size, text.count("\n"), None, True, False)
    _mark_dirty(conn)
    tx.done(len(chunks))


# --- long records are also indexed by their parts ----------------------------------------

# A MEMORY.md section or a session summary holds many facts in one long chunk: BM25 ranks it
# low for its length and a small embedding model reads only its first tokens. So each of its
# lines (a summary: sentences, decisions, todos) is indexed as well, as a part: a row with id
# `<parent id>#part-<n>` and the parent's id as its evidence. Search shows the parent in a
# part's place (search.load_hits). docs/retrieval.md "Parts of long records".
PART = "#part-"
_PIECES = re.compile(r"\n|(?<=[。；;！？!?])|(?<=\.)\s+|(?:Decisions|Todos): ")


def parts(row: ChunkRow) -> list:
    """The part rows of a MEMORY.md chunk or session summary row (none when it has only
    one line worth indexing: then the row is its own part)."""
    pieces = []
    for piece in _PIECES.split(row.content):
        for text in (piece.split("; ") if row.type == "session_summary" else (piece,)):
            text = text.strip(" -*|>#;；\t")
            if sum(ch.isalnum() for ch in text) >= 4:
                pieces.append(text)
    if len(pieces) < 2:
        return []
    return [ChunkRow.make(f"{row.id}{PART}{n}", text, row.type, row.memory_type, [],
                          row.confidence, row.source_file, row.source_id, row.timestamp,
                          row.section, row.context, [row.id], row.line_offset)
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


def safe_id(value) -> bool:
    """An id as agents are shown it: 1-200 characters, none of them white space, a control,
    or markup (`<`, `>`, a backtick): a pulled line cannot make its id a heading or a fence."""
    return isinstance(value, str) and bool(_SAFE_ID.match(value))


_SAFE_ID = re.compile(r"[^\s<>`\x00-\x1f\x7f-\x9f\u2028\u2029]{1,200}\Z")


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
        raise ValueError(f"confidence {str(value)[:40]} is not a number from 0 to 1")
    return float(value)


def _timestamp(record: dict, *keys) -> str:
    for key in keys:
        if key in record:
            stamp = normalize_time(record[key])
            if stamp is None:
                raise ValueError(f"{key!r} {str(record[key])[:60]!r} is not an ISO 8601 time")
            return stamp
    raise ValueError(f"missing {keys[0]!r}")


def to_chunk(rel: str, record: dict, neighbour: str | None = None,
             offset: int | None = None) -> ChunkRow | None:
    """The index row for a record, None for a record that is not searchable (a session
    event), or ValueError naming what is wrong with it. `neighbour`: the content of the
    line before it in the same session (daily lines), kept as context. A daily line's or a
    summary's source_id is its session, when it names one (search lets a summary share in
    the score of its session's lines); otherwise the record's id."""
    rid = record.get("id")
    if not safe_id(rid):
        raise ValueError("missing or invalid 'id'")
    if rel == "sessions.jsonl":
        topic = _need_text(record, "topic")
        summary = _need_text(record, "summary")
        decisions = _str_list(record, "decisions")
        todos = _str_list(record, "todos")
        lines = [topic, summary]
        if decisions:
            lines.append("Decisions: " + "; ".join(decisions))
        if todos:
            lines.append("Todos: " + "; ".join(todos))
        return ChunkRow.make(rid, "\n".join(lines), "session_summary", "S", [], 1.0, rel,
                             session_of(record) or rid, _timestamp(record, "timestamp"), None,
                             topic, [rid], offset)
    if rel == "facts.jsonl":
        content = _need_text(record, "content")
        memory_type = record.get("type")
        if memory_type not in FACT_TYPES:
            raise ValueError(f"'type' must be one of {'/'.join(FACT_TYPES)}, not {str(memory_type)[:20]!r}")
        kind = record.get("kind", "fact")
        evidence = _str_list(record, "evidence") or [rid]
        if not all(safe_id(e) for e in evidence):
            raise ValueError("'evidence' must be a list of ids")
        source = record.get("source") if isinstance(record.get("source"), dict) else {}
        source_id = source.get("id")
        return ChunkRow.make(rid, content, kind if kind in KINDS else "fact", memory_type,
                             _str_list(record, "entities"), _confidence(record, 1.0), rel,
                             source_id if isinstance(source_id, str) else rid,
                             _timestamp(record, "updated_at", "created_at", "timestamp"), None,
                             None, evidence, offset)
    kind = record.get("type")
    if not isinstance(kind, str):
        raise ValueError("missing 'type'")
    if kind == "transcript":  # archived turns: keyword-searchable on request, never embedded
        return ChunkRow.make(rid, _need_text(record, "content"), "transcript", None, [], 1.0,
                             rel, session_of(record) or rid, _timestamp(record, "timestamp"),
                             None, tail_of(neighbour), [rid], offset)
    if kind not in KINDS:
        return None  # session events are not memories to search
    memory_type = record.get("memory_type")
    if memory_type is not None and not isinstance(memory_type, str):
        raise ValueError("'memory_type' must be text")
    return ChunkRow.make(rid, _need_text(record, "content"), kind, memory_type,
                         _str_list(record, "entities"),
                         _confidence(record, 0.8 if kind == "preference" else 1.0),
                         rel, session_of(record) or rid, _timestamp(record, "timestamp"), None,
                         tail_of(neighbour), [rid], offset)


def tail_of(text: str | None) -> str | None:
    """The end of the line before (a question ends where it asks), NEIGHBOUR_CHARS at most."""
    if not text or NEIGHBOUR_CHARS <= 0:
        return None
    return text if len(text) <= NEIGHBOUR_CHARS else "…" + text[-NEIGHBOUR_CHARS:]
