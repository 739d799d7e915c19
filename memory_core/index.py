"""index.sqlite: schema (seed 001), connections, identity, and rebuild by atomic swap.

The index is derived: anything wrong with it (garbage, truncation, an older schema, another
tokenizer, a vector store this Python cannot open) is answered by rebuilding it from the
files into a temp file and swapping that in.

Every operation holds a shared lock on `index.lock` while its connection is open; the swap
takes it exclusively, so no connection ever sees the old file's WAL applied to the new one.
"""
from __future__ import annotations

import functools
import importlib.util
import os
import re
import sqlite3
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from .chunking import CHUNKER_VERSION
from .locks import LockFile, pid_alive
from .text import TOKENIZER_VERSION, index_terms

SCHEMA_VERSION = "4"  # 4: chunks_hidden
INDEX_FILE = "index.sqlite"
LOCK_TIMEOUT = 60.0

_FTS_ENTITIES = "cm_terms({0}.entities || ' ' || coalesce({0}.context, ''))"
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS chunks (
    pk INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, so a stale vector row cannot alias
    id TEXT NOT NULL UNIQUE,               -- the record id from the JSONL (or MEMORY.md#heading)
    content TEXT NOT NULL,
    type TEXT,                             -- fact / preference / action / session_summary / core
    memory_type TEXT,                      -- W / B / O / S
    entities TEXT,                         -- JSON array
    confidence REAL DEFAULT 0.8,
    source_file TEXT,
    source_id TEXT,
    timestamp TEXT,                        -- UTC, ISO 8601
    section TEXT,                          -- MEMORY.md heading
    context TEXT,                          -- heading path or session topic: indexed, not shown
    evidence TEXT,                         -- JSON array of record ids merged into this one
    norm TEXT,                             -- hash of the normalised content, for dedup
    hash TEXT NOT NULL,                    -- of everything indexed: changes mean re-embed
    vec_hash TEXT,                         -- `hash` when the vector was made
    hidden INTEGER NOT NULL DEFAULT 0      -- forgotten or superseded (corrections.apply)
);
CREATE INDEX IF NOT EXISTS chunks_source ON chunks(source_file);
CREATE INDEX IF NOT EXISTS chunks_time ON chunks(timestamp);
CREATE INDEX IF NOT EXISTS chunks_norm ON chunks(norm);
-- the chunks waiting for a vector: every search asks, so it must not scan the table
CREATE INDEX IF NOT EXISTS chunks_pending ON chunks(pk)
    WHERE vec_hash IS NOT hash AND type != 'transcript';
-- the hidden chunks: every sync that changes something recomputes them (corrections.apply)
CREATE INDEX IF NOT EXISTS chunks_hidden ON chunks(id) WHERE hidden = 1;
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    content, entities, type,
    content='chunks', content_rowid='pk',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, content, entities, type)
    VALUES (new.pk, cm_terms(new.content), {_FTS_ENTITIES.format('new')}, new.type);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, content, entities, type)
    VALUES ('delete', old.pk, cm_terms(old.content), {_FTS_ENTITIES.format('old')}, old.type);
    DELETE FROM refs WHERE pk = old.pk;
END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE OF content, entities, context, type ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, content, entities, type)
    VALUES ('delete', old.pk, cm_terms(old.content), {_FTS_ENTITIES.format('old')}, old.type);
    INSERT INTO chunks_fts(rowid, content, entities, type)
    VALUES (new.pk, cm_terms(new.content), {_FTS_ENTITIES.format('new')}, new.type);
END;
CREATE TABLE IF NOT EXISTS refs (          -- what a chunk points at (seed 002)
    pk INTEGER NOT NULL,                   -- chunks.pk
    ref TEXT NOT NULL,                     -- file:src/a.ts#L3, url:..., artifact:abc123
    kind TEXT NOT NULL,                    -- file, url, or a category
    target TEXT NOT NULL                   -- the path (without #L), url or id
);
CREATE INDEX IF NOT EXISTS refs_pk ON refs(pk);
CREATE INDEX IF NOT EXISTS refs_target ON refs(kind, target);
CREATE TABLE IF NOT EXISTS corrections (   -- tombstones, supersedes, fact statuses
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, target TEXT NOT NULL, by_id TEXT, reason TEXT,
    timestamp TEXT, source_file TEXT
);
CREATE INDEX IF NOT EXISTS corrections_target ON corrections(target);
CREATE TABLE IF NOT EXISTS sync_state (
    file_path TEXT PRIMARY KEY,            -- relative to the memory folder
    offset INTEGER NOT NULL DEFAULT 0,     -- bytes consumed (complete lines only)
    last_line INTEGER NOT NULL DEFAULT 0,
    last_id TEXT,
    size INTEGER, inode INTEGER, mtime INTEGER,
    head TEXT,                             -- hash of the first bytes: a rewrite changes it
    synced_at INTEGER
);
CREATE TABLE IF NOT EXISTS skipped (       -- malformed lines, for `doctor`
    file_path TEXT NOT NULL, line INTEGER NOT NULL, reason TEXT,
    PRIMARY KEY (file_path, line)
);
"""


class NeedsRebuild(Exception):
    """The index cannot be used as it is; the message says why (one line)."""


# --- which SQLite can load sqlite-vec ---------------------------------------------------

@functools.lru_cache(maxsize=None)  # find_spec walks sys.path: ~0.3 ms, twice a connection
def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@functools.lru_cache(maxsize=None)
def vec_extension_path() -> str | None:
    """sqlite-vec's loadable file, found without importing the package (it imports numpy)."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], "vec0")


def vector_driver() -> str:
    """How vectors are searched here: 'stdlib' or 'sqlean' (sqlite-vec loaded into that
    sqlite3 module), or 'numpy' (float32 BLOBs, brute force; seed 001 §6.2).
    CURSOR_MEMORY_SQLITE forces one (tests, doctor)."""
    forced = os.environ.get("CURSOR_MEMORY_SQLITE")
    if forced:
        return forced
    if vec_extension_path():
        if hasattr(sqlite3.Connection, "enable_load_extension"):
            return "stdlib"
        if _has("sqlean"):
            return "sqlean"
    return "numpy"


def vector_store() -> str:
    """What the index stores vectors in, given the driver: a vec0 table, or BLOBs."""
    return "blob" if vector_driver() == "numpy" else "vec0"


def identity() -> dict:
    """What an index must have been built with to be used as it is. (The vector store is
    chosen when the index is made and kept: a Python that cannot load sqlite-vec still
    uses the text of a vec0 index, and leaves its vectors to one that can.)"""
    return {
        "schema_version": SCHEMA_VERSION,
        "tokenizer_version": TOKENIZER_VERSION,
        "chunker_version": CHUNKER_VERSION,
    }


def _module(vectors: bool):
    if vectors and vector_driver() == "sqlean":
        import sqlean
        return sqlean
    return sqlite3


def open_connection(path, *, vectors: bool = False, fresh_ok: bool = True):
    """A connection with our settings and `cm_terms` registered; with `vectors`, sqlite-vec
    loaded when this Python can (`conn.vec` says whether it did)."""
    mod = _module(vectors)
    conn = mod.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
    _private(path)
    try:
        conn.execute("PRAGMA busy_timeout=30000")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.create_function("cm_terms", 1, index_terms, deterministic=True)
        loaded = False
        if vectors and vector_driver() in ("stdlib", "sqlean"):
            try:
                conn.enable_load_extension(True)
                conn.load_extension(vec_extension_path())
                conn.enable_load_extension(False)
                loaded = True
            except Exception as e:  # noqa: BLE001 - any failure means: no vec0 here
                print(f"cursor-memory: sqlite-vec did not load ({e}); vectors unavailable",
                      file=sys.stderr)
        return _Conn(conn, loaded)
    except BaseException:
        conn.close()
        raise


def _private(path) -> None:
    """The index holds the user's memories: 0600 (SQLite gives its -wal and -shm files the
    same mode)."""
    if os.name == "posix":
        try:
            if os.stat(path).st_mode & 0o077:
                os.chmod(path, 0o600)
        except OSError:
            pass


class _Conn:
    """A thin wrapper that remembers whether sqlite-vec is loaded."""

    def __init__(self, conn, vec: bool):
        self._c = conn
        self.vec = vec

    def __getattr__(self, name):
        return getattr(self._c, name)

    @contextmanager
    def transaction(self):
        """BEGIN IMMEDIATE: writers queue here instead of failing half-way."""
        self._c.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            self._c.execute("ROLLBACK")
            raise
        self._c.execute("COMMIT")


def ensure_schema(conn) -> None:
    """Create the schema in an empty file, or check the identity of an existing one."""
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as e:
        raise NeedsRebuild(f"unreadable ({e})") from None
    if "meta" not in tables:
        with conn.transaction():
            for stmt in _statements(SCHEMA):
                conn.execute(stmt)
            now = str(int(time.time()))
            rows = dict(identity(), vector_store=vector_store(), created_at=now)
            conn.executemany("INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", rows.items())
        return
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
    except sqlite3.DatabaseError as e:
        raise NeedsRebuild(f"unreadable ({e})") from None
    for key, want in identity().items():
        if meta.get(key) != want:
            raise NeedsRebuild(f"built with {key}={meta.get(key)}, need {want}")


def _statements(script: str):
    """Split SCHEMA into statements (triggers contain semicolons; sqlite3.complete_statement
    knows where they end)."""
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                yield buf
            buf = ""


def get_meta(conn, key: str, default=None):
    row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return row[0] if row else default


def chunks_passing(conn, pks, where: str = "", params=()) -> set:
    """The pks among these whose chunk (alias `c`) passes a WHERE fragment such as
    search.Filters.sql() gives: candidates found outside the chunks table (FTS5, vectors)
    are filtered here, once, instead of joining chunks for every match."""
    if not pks:
        return set()
    return {pk for (pk,) in conn.execute(
        f"SELECT c.pk FROM chunks c WHERE c.pk IN ({','.join('?' * len(pks))})"
        + (" AND " + where if where else ""), [*pks, *params])}


def set_meta(conn, key: str, value) -> None:
    conn.execute("INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE "
                 "SET value=excluded.value", (key, None if value is None else str(value)))


class Index:
    """index.sqlite in a memory folder: `with index.connect() as conn: ...`."""

    def __init__(self, root):
        self.root = Path(root)
        self.path = self.root / INDEX_FILE
        self.lock_path = self.root / "index.lock"

    @contextmanager
    def connect(self, *, vectors: bool = False):
        """A connection for one operation, under the shared index lock. Raises NeedsRebuild
        when the file must be rebuilt first."""
        lock = LockFile(self.lock_path, shared=True)
        if not lock.acquire(timeout=LOCK_TIMEOUT):
            raise TimeoutError(f"{self.lock_path} is held by another process")
        try:
            try:
                conn = open_connection(self.path, vectors=vectors)
            except sqlite3.DatabaseError as e:
                raise NeedsRebuild(f"unreadable ({e})") from None
            try:
                ensure_schema(conn)
                yield conn
            finally:
                conn.close()
        finally:
            lock.release()

    def swap_in(self, built: Path) -> None:
        """Atomically replace index.sqlite with a finished file, and drop the old file's
        WAL and shared memory so nothing replays them onto the new one."""
        with LockFile(self.lock_path):
            os.replace(built, self.path)
            for suffix in ("-wal", "-shm", "-journal"):
                try:
                    os.unlink(str(self.path) + suffix)
                except FileNotFoundError:
                    pass

    def temp_path(self) -> Path:
        """A fresh temp file name for a rebuild; stale ones from dead processes are removed."""
        for p in self.root.glob(INDEX_FILE + ".rebuild-*"):
            m = re.search(r"rebuild-(\d+)", p.name)
            try:
                stale = not m or not pid_alive(int(m.group(1))) or time.time() - p.stat().st_mtime > 3600
            except OSError:
                continue
            if stale:
                try:
                    p.unlink()
                except OSError:
                    pass
        path = self.root / f"{INDEX_FILE}.rebuild-{os.getpid()}"
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.unlink(str(path) + suffix)
            except FileNotFoundError:
                pass
        return path
