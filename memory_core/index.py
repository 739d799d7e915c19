"""index.sqlite: schema, connections, what its errors mean, and rebuild by atomic swap.

The index is derived (docs/formats.md "The index"): anything wrong with it (garbage,
truncation, an older schema, another tokenizer, a symbolic link or a folder where the file
should be) is answered by rebuilding it from the files. A full disk, an I/O error or a
read-only folder is not damage and never starts a rebuild.

Every operation holds a shared lock on `index.lock` while its connection is open; the swap
takes it exclusively, so no connection ever sees the old file's WAL applied to the new one.
In a read-only memory folder (a read-only mount, files of another user) the index is opened
read-only without a lock, and searches answer from what is there.

The SQLite driver is chosen here and its exceptions never leave this module unclassified:
`classify` sorts sqlite3's and sqlean's errors by SQLite result code.
"""
from __future__ import annotations

import errno
import functools
import importlib.util
import os
import re
import sqlite3
import stat
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .chunking import CHUNKER_VERSION
from .errors import IndexError_, NeedsRebuild, StorageError
from .locks import LockFile, pid_alive
from .text import TOKENIZER_VERSION, index_terms

SCHEMA_VERSION = "7"  # 5: change detection by prefix hash, evidence table, vectors by content; 6: hidden 1 forgotten / 2 superseded, mentions.ahead; 7: chunks_place
INDEX_FILE = "index.sqlite"
LOCK_TIMEOUT = 60.0
VEC0_MAX_K = 4096  # sqlite-vec refuses a larger k

FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"
FTS_ENTITIES = "cm_terms({0}.entities || ' ' || coalesce({0}.context, ''))"
_EVIDENCE_ROWS = ("INSERT INTO evidence(item, pk) SELECT value, new.pk FROM json_each(new.evidence) "
                  "WHERE json_array_length(new.evidence) > 1 "
                  "OR json_extract(new.evidence, '$[0]') IS NOT new.id")
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
    hash TEXT NOT NULL,                    -- of everything indexed: a change means re-index
    line_offset INTEGER,                   -- byte offset of the record's line in source_file
    embed_hash TEXT,                       -- of the text the model sees (NULL: not embedded)
    vec_want TEXT,                         -- the vector row this chunk should have
    vec_have TEXT,                         -- vec_want of the row it has (NULL: none)
    vec_text TEXT,                         -- embed_hash of the vector it has: reusable by others
    hidden INTEGER NOT NULL DEFAULT 0      -- 1 forgotten, 2 superseded (corrections.apply)
);
-- a file's rows, and the next line of a conversation (search.with_replies)
CREATE INDEX IF NOT EXISTS chunks_place ON chunks(source_file, source_id, line_offset);
CREATE INDEX IF NOT EXISTS chunks_time ON chunks(timestamp);
CREATE INDEX IF NOT EXISTS chunks_norm ON chunks(norm);
-- the chunks waiting for a vector: every search asks, so it must not scan the table
CREATE INDEX IF NOT EXISTS chunks_pending ON chunks(pk) WHERE vec_have IS NOT vec_want;
-- a vector already made for the same text is copied, not embedded again
CREATE INDEX IF NOT EXISTS chunks_vec_text ON chunks(vec_text) WHERE vec_text IS NOT NULL;
-- the hidden chunks: every sync that changes something recomputes them (corrections.apply)
CREATE INDEX IF NOT EXISTS chunks_hidden ON chunks(id) WHERE hidden != 0;
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    content, entities, type,
    content='chunks', content_rowid='pk',
    tokenize='{FTS_TOKENIZER}'
);
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, content, entities, type)
    VALUES (new.pk, cm_terms(new.content), {FTS_ENTITIES.format('new')}, new.type);
END;
-- only facts and parts have evidence other than themselves: a string test spares the rest
CREATE TRIGGER IF NOT EXISTS chunks_evidence_ai AFTER INSERT ON chunks
WHEN new.evidence IS NOT '["' || new.id || '"]' BEGIN
    {_EVIDENCE_ROWS};
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, content, entities, type)
    VALUES ('delete', old.pk, cm_terms(old.content), {FTS_ENTITIES.format('old')}, old.type);
    DELETE FROM refs WHERE pk = old.pk;
    DELETE FROM evidence WHERE pk = old.pk;
    DELETE FROM decisions WHERE pk = old.pk;
    DELETE FROM mentions WHERE pk = old.pk;
END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE OF content, entities, context, type ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, content, entities, type)
    VALUES ('delete', old.pk, cm_terms(old.content), {FTS_ENTITIES.format('old')}, old.type);
    INSERT INTO chunks_fts(rowid, content, entities, type)
    VALUES (new.pk, cm_terms(new.content), {FTS_ENTITIES.format('new')}, new.type);
END;
CREATE TRIGGER IF NOT EXISTS chunks_evidence_au AFTER UPDATE OF evidence ON chunks BEGIN
    DELETE FROM evidence WHERE pk = old.pk;
    {_EVIDENCE_ROWS};
END;
CREATE TABLE IF NOT EXISTS evidence (      -- record ids merged into a chunk (facts, parts)
    item TEXT NOT NULL, pk INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS evidence_item ON evidence(item);
CREATE INDEX IF NOT EXISTS evidence_pk ON evidence(pk);
CREATE TABLE IF NOT EXISTS decisions (     -- a session summary's decisions, for consolidation
    pk INTEGER NOT NULL, n INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (pk, n)
);
CREATE TABLE IF NOT EXISTS mentions (     -- days a record names ("上周二", "yesterday"), local dates
    pk INTEGER NOT NULL, first TEXT NOT NULL, last TEXT NOT NULL,
    ahead INTEGER NOT NULL DEFAULT 0       -- 1: ahead of when it was written ("下周三出报告")
);
CREATE INDEX IF NOT EXISTS mentions_pk ON mentions(pk);
CREATE INDEX IF NOT EXISTS mentions_first ON mentions(first);
CREATE TABLE IF NOT EXISTS refs (          -- what a chunk points at (docs/formats.md "refs")
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
CREATE INDEX IF NOT EXISTS corrections_by ON corrections(by_id);
CREATE TABLE IF NOT EXISTS sync_state (
    file_path TEXT PRIMARY KEY,            -- relative to the memory folder
    offset INTEGER NOT NULL DEFAULT 0,     -- bytes consumed (complete lines only)
    last_line INTEGER NOT NULL DEFAULT 0,
    size INTEGER, inode INTEGER, mtime INTEGER, ctime INTEGER,
    prefix TEXT,                           -- sha1 of bytes [0, offset): any rewrite changes it
    complete INTEGER NOT NULL DEFAULT 0,   -- the last sync reached the end of the file
    replacing INTEGER NOT NULL DEFAULT 0,  -- a whole re-read is under way (ids in sync_seen)
    synced_at INTEGER
);
CREATE TABLE IF NOT EXISTS sync_seen (     -- ids read so far by a whole re-read in batches
    file_path TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (file_path, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS skipped (       -- malformed lines, for `doctor`
    file_path TEXT NOT NULL, line INTEGER NOT NULL, reason TEXT,
    PRIMARY KEY (file_path, line)
);
"""


# --- which SQLite can load sqlite-vec ---------------------------------------------------

@functools.lru_cache(maxsize=None)  # find_spec walks sys.path, and every connection asks
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
    sqlite3 module), or 'numpy' (float32 BLOBs, brute force). CURSOR_MEMORY_SQLITE forces
    one (tests, doctor)."""
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


# --- what a driver error means ----------------------------------------------------------------

CORRUPT, FULL, IO, READ_ONLY, BUSY, SCHEMA_GONE = "corrupt", "full", "io", "read-only", "busy", "schema"
_CODES = {11: CORRUPT, 26: CORRUPT, 13: FULL, 10: IO, 8: READ_ONLY, 14: READ_ONLY, 3: READ_ONLY,
          23: READ_ONLY, 5: BUSY, 6: BUSY}


def driver_errors() -> tuple:
    """The exception classes of the SQLite modules in use (sqlean's are not sqlite3's)."""
    mods = [sqlite3] + ([sys.modules["sqlean"]] if "sqlean" in sys.modules else [])
    return tuple(m.Error for m in mods)


def classify(e: BaseException) -> str | None:
    """What a driver error means: CORRUPT (rebuild), FULL / IO / READ_ONLY / BUSY (the disk or
    another process: never a rebuild), SCHEMA_GONE (tables missing: rebuild), 'other' (a
    bug or bad SQL), or None when `e` is not a driver error at all."""
    if not isinstance(e, driver_errors()):
        return None
    code = getattr(e, "sqlite_errorcode", None)
    text = str(e).lower()
    if code is not None and (code & 0xFF) in _CODES:
        return _CODES[code & 0xFF]
    if "malformed" in text or "not a database" in text or "file is encrypted" in text:
        return CORRUPT
    if "disk is full" in text:
        return FULL
    if "disk i/o" in text:
        return IO
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return READ_ONLY
    if "locked" in text or "busy" in text:
        return BUSY
    if "no such table" in text or "no such column" in text or "no such module: fts5" in text:
        return SCHEMA_GONE
    if type(e).__name__ == "DatabaseError":
        return CORRUPT
    return "other"


def as_error(e: BaseException, path) -> Exception:
    """A driver error as ours: NeedsRebuild for damage, StorageError for the disk, else
    IndexError_ with the driver's words."""
    kind = classify(e)
    if kind in (CORRUPT, SCHEMA_GONE):
        return NeedsRebuild(f"damaged ({e})")
    if kind == FULL:
        return StorageError(f"cannot write {path}: the disk is full")
    if kind == IO:
        return StorageError(f"cannot use {path}: disk I/O error")
    if kind == READ_ONLY:
        return StorageError(f"cannot write {path}: the memory folder is read-only ({e})")
    if kind == BUSY:
        return StorageError(f"{path} is busy (another process holds it): {e}")
    return IndexError_(f"{path}: {e}")


# --- connections ------------------------------------------------------------------------------

def open_connection(path, *, vectors: bool = False, read_only: bool = False):
    """A connection with our settings and `cm_terms` registered; with `vectors`, sqlite-vec
    loaded when this Python can (`conn.vec` says whether it did). Read-only connections take
    the file as it is (`immutable` when its WAL cannot be read without writing)."""
    mod = _module(vectors)
    if read_only:
        conn = _open_read_only(mod, path)
    else:
        conn = mod.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
        _private(path)
    try:
        conn.execute("PRAGMA busy_timeout=30000")
        if not read_only:
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
                from .log import note
                note(f"sqlite-vec did not load ({e}); vectors unavailable")
        return Conn(conn, loaded, read_only)
    except BaseException:
        conn.close()
        raise


def _open_read_only(mod, path):
    uri = Path(os.path.abspath(path)).as_uri()
    conn = mod.connect(f"{uri}?mode=ro", uri=True, timeout=5, isolation_level=None,
                       check_same_thread=False)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except mod.Error:
        conn.close()
    # a WAL database needs its -shm to be writable even to read; immutable reads the file alone
    return mod.connect(f"{uri}?immutable=1", uri=True, isolation_level=None,
                       check_same_thread=False)


def _private(path) -> None:
    """The index holds the user's memories: 0600 (SQLite gives its -wal and -shm files the
    same mode). Changed through a descriptor that does not follow links."""
    from .files import make_private
    if os.name == "posix":
        try:
            if os.lstat(path).st_mode & 0o077:
                make_private(path)
        except OSError:
            pass


class Conn:
    """A connection that remembers whether sqlite-vec is loaded and whether it may write."""

    def __init__(self, conn, vec: bool, read_only: bool = False):
        self._c = conn
        self.vec = vec
        self.read_only = read_only

    def __getattr__(self, name):
        return getattr(self._c, name)

    @contextmanager
    def transaction(self):
        """BEGIN IMMEDIATE: writers queue here instead of failing half-way."""
        self._c.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            try:
                self._c.execute("ROLLBACK")
            except Exception:  # noqa: BLE001 - the error that got us here matters more
                pass
            raise
        self._c.execute("COMMIT")


def ensure_schema(conn) -> None:
    """Create the schema in an empty file, or check the identity of an existing one."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "meta" not in tables:
        if conn.read_only:
            raise NeedsRebuild("empty")
        with conn.transaction():
            for stmt in _statements(SCHEMA):
                conn.execute(stmt)
            now = str(int(time.time()))
            rows = dict(identity(), vector_store=vector_store(), created_at=now)
            conn.executemany("INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", rows.items())
        return
    meta = dict(conn.execute("SELECT key, value FROM meta"))
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


def set_meta(conn, key: str, value) -> None:
    conn.execute("INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE "
                 "SET value=excluded.value", (key, None if value is None else str(value)))


def chunks_passing(conn, pks, where: str = "", params=()) -> set:
    """The pks among these whose chunk (alias `c`) passes a WHERE fragment such as
    search.Filters.sql() gives: candidates found outside the chunks table (FTS5, vectors)
    are filtered here, once, instead of joining chunks for every match."""
    if not pks:
        return set()
    return {pk for (pk,) in conn.execute(
        f"SELECT c.pk FROM chunks c WHERE c.pk IN ({','.join('?' * len(pks))})"
        + (" AND " + where if where else ""), [*pks, *params])}


def is_read_only_error(e: BaseException) -> bool:
    if isinstance(e, StorageError):
        return "read-only" in str(e) or "permission denied" in str(e)
    return isinstance(e, OSError) and e.errno in (errno.EROFS, errno.EACCES, errno.EPERM)


class Index:
    """index.sqlite in a memory folder (or elsewhere: a scratch index for a read-only folder
    lives in a temp folder): `with index.connect() as conn: ...`."""

    def __init__(self, root, path: Path | None = None, project=None):
        self.root = Path(root)
        self.project = project
        self.path = Path(path) if path else self.root / INDEX_FILE
        self.lock_path = self.path.parent / "index.lock"
        self.read_only = False  # set when the folder turned out to refuse writes
        self.linked = False  # reached through a symbolic link: read, never written

    def _check_file(self) -> None:
        """A symbolic link or a folder where index.sqlite should be is moved out of the way
        (a link is removed, never followed; a folder renamed beside it), and the index is
        made anew from the files."""
        for suffix in ("", "-wal", "-shm", "-journal"):
            p = str(self.path) + suffix
            try:
                mode = os.lstat(p).st_mode
            except FileNotFoundError:
                continue
            except OSError:
                continue
            from .log import note
            if stat.S_ISLNK(mode):
                os.unlink(p)
                note(f"{p} was a symbolic link; removed it (the index is rebuilt from the files)")
            elif not stat.S_ISREG(mode):
                aside = f"{p}.moved-{int(time.time())}"
                os.rename(p, aside)
                note(f"{p} was not a file; moved it to {os.path.basename(aside)} and rebuilt the index")

    def _lock(self):
        """The shared index lock, or None in a folder that refuses writes (read-only), or
        that is reached through a link (read as read-only, never written)."""
        if self.linked:
            self.read_only = True
            return None
        lock = LockFile(self.lock_path, shared=True)
        try:
            if not lock.acquire(timeout=LOCK_TIMEOUT):
                raise StorageError(f"{self.lock_path} is held by another process for over "
                                   f"{LOCK_TIMEOUT:.0f} s (`cursor-memory doctor` says which)")
        except StorageError as e:
            if not is_read_only_error(e) and "symbolic link" not in str(e):
                raise
            self.read_only = True
            return None
        return lock

    @contextmanager
    def connect(self, *, vectors: bool = False):
        """A connection for one operation, under the shared index lock (read-only and
        unlocked when the folder refuses writes; read-only when the disk is full or failing,
        so what is there still answers). Raises NeedsRebuild when the file must be rebuilt
        first, StorageError when the disk is the problem."""
        lock = self._lock()
        read_only = lock is None
        try:
            if not read_only:
                try:
                    self._check_file()
                except OSError as e:
                    raise StorageError(f"cannot repair {self.path}: {e.strerror}") from None
            elif not os.path.isfile(self.path) or os.path.islink(self.path):
                raise IndexError_("the memory folder is read-only and has no usable index")
            conn = self._open(vectors, read_only)
            try:
                yield conn
            finally:
                conn.close()
        finally:
            if lock is not None:
                lock.release()

    def _open(self, vectors: bool, read_only: bool):
        """An open connection with the schema checked; a full or failing disk falls back to
        a read-only one."""
        try:
            conn = open_connection(self.path, vectors=vectors, read_only=read_only)
        except driver_errors() as e:
            if not read_only and classify(e) in (FULL, IO) and os.path.isfile(self.path):
                return self._open(vectors, True)
            raise as_error(e, self.path) from None
        try:
            ensure_schema(conn)
        except driver_errors() as e:
            conn.close()
            if not read_only and classify(e) in (FULL, IO):
                return self._open(vectors, True)
            raise as_error(e, self.path) from None
        except BaseException:
            conn.close()
            raise
        return conn

    def run(self, fn, *, vectors: bool = False):
        """fn(conn) on the index. Damage (NeedsRebuild, a corrupt file) is answered by a
        rebuild from the files (once, with one line of notice) and fn runs again; the disk's
        refusals (full, I/O, read-only) are raised as StorageError, never rebuilt."""
        for attempt in (1, 2):
            try:
                with self.connect(vectors=vectors) as conn:
                    try:
                        return fn(conn)
                    except driver_errors() as e:
                        raise as_error(e, self.path) from None
            except NeedsRebuild as e:
                if self.read_only:
                    raise
                if attempt == 2:
                    raise IndexError_(f"index.sqlite is still unusable after a rebuild: {e}") from None
                from .log import note
                note(f"index.sqlite {e}; rebuilding it from the files")
                self.rebuild()

    def usable(self) -> bool:
        """Whether the index can be opened and read as it is (a read-only folder's may not)."""
        try:
            self.run(lambda conn: None)
            return True
        except IndexError_:
            return False

    def rebuild(self):
        """Rebuild from the files (text, and vectors carried over); returns the SyncReport."""
        return rebuild(self, self.root, project=self.project)

    def swap_in(self, built: Path) -> None:
        """Atomically replace index.sqlite with a finished file, and drop the old file's
        WAL and shared memory so nothing replays them onto the new one."""
        with LockFile(self.lock_path):
            self._check_file()
            os.replace(built, self.path)
            for suffix in ("-wal", "-shm", "-journal"):
                try:
                    os.unlink(str(self.path) + suffix)
                except FileNotFoundError:
                    pass

    def temp_path(self) -> Path:
        """A fresh temp file name for a rebuild; stale ones from dead processes are removed."""
        for p in self.path.parent.glob(INDEX_FILE + ".rebuild-*"):
            m = re.search(r"rebuild-(\d+)", p.name)
            try:
                stale = not m or not pid_alive(int(m.group(1))) or time.time() - p.lstat().st_mtime > 3600
            except OSError:
                continue
            if stale:
                try:
                    p.unlink()
                except OSError:
                    pass
        path = self.path.parent / f"{INDEX_FILE}.rebuild-{os.getpid()}"
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.unlink(str(path) + suffix)
            except FileNotFoundError:
                pass
        return path


# --- rebuild and stats ------------------------------------------------------------------------

def rebuild(index: Index, root: Path, *, project=None):
    """Rebuild index.sqlite from the files into a temp file and swap it in; vectors whose
    text is unchanged are carried over. Returns the sync report."""
    from . import vectors
    from .locks import remove_stale_temps
    from .sync import sync_text

    with LockFile(index.path.parent / "rebuild.lock"):
        remove_stale_temps(index.path.parent)
        carried = vectors.read_for_carry(index.path)
        tmp = index.temp_path()
        conn = open_connection(tmp, vectors=carried is not None)
        try:
            conn.execute("PRAGMA journal_mode=DELETE")
            ensure_schema(conn)
            report = sync_text(conn, root, project=project)
            if carried is not None:
                vectors.carry(conn, carried)
            conn.execute("PRAGMA journal_mode=WAL")
        except driver_errors() as e:
            conn.close()
            raise as_error(e, tmp) from None
        finally:
            try:
                conn.close()
            except Exception:  # noqa: BLE001
                pass
        index.swap_in(tmp)
    return report


@dataclass
class Stats:
    memory_dir: str
    chunks: int
    by_type: dict
    vectors: int
    pending_vectors: int
    hidden: int
    skipped_lines: int
    index_bytes: int
    vector_store: str | None
    vector_driver: str
    index_model: str | None
    configured_model: str


def stats(conn, root: Path, index_path: Path, configured_model: str) -> Stats:
    """Counts and settings, for `cursor-memory stats`."""
    from . import vectors
    from .sync import PART

    whole = f"instr(id, '{PART}') = 0"  # records, not the line-parts indexed with them
    by_type = dict(conn.execute(f"SELECT type, count(*) FROM chunks WHERE {whole} GROUP BY type"))
    with_vec = conn.execute(f"SELECT count(*) FROM chunks WHERE vec_have IS NOT NULL AND "
                            f"vec_have = vec_want AND {whole}").fetchone()[0]
    pending = conn.execute(f"SELECT count(*) FROM chunks WHERE vec_have IS NOT vec_want AND "
                           f"{whole}").fetchone()[0]
    return Stats(
        memory_dir=str(root), chunks=sum(by_type.values()), by_type=by_type, vectors=with_vec,
        pending_vectors=pending,
        hidden=conn.execute(f"SELECT count(*) FROM chunks WHERE hidden != 0 AND {whole}").fetchone()[0],
        skipped_lines=conn.execute("SELECT count(*) FROM skipped").fetchone()[0],
        index_bytes=index_path.stat().st_size if index_path.exists() else 0,
        vector_store=get_meta(conn, "vector_store"), vector_driver=vector_driver(),
        index_model=vectors.model_of(conn), configured_model=configured_model)
