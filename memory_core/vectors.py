"""Vectors in the index, and the loop that makes them.

Storage: a sqlite-vec `vec0` table when the extension loads, else float32 BLOBs searched by
numpy. Both live in `chunks_vec`, keyed by chunks.pk.

A vector belongs to a text: `chunks.embed_hash` is the hash of what the model sees,
`vec_text` the hash of the text the stored vector was made from, and `vec_want`/`vec_have`
the whole vector row (text plus the metadata vec0 filters on). So:
- a chunk whose text changed is re-embedded and its stale vector never returned;
- a chunk whose text was embedded anywhere before (the consolidated fact of a daily line,
  a record moved by a git merge, an index rebuilt) gets that vector copied, not the model;
- `fill` embeds what is left in batches of similar length, checking a deadline or a time
  budget after every batch, so a hook or a search never waits on a backlog
  (docs/benchmarks.md "Production model").
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import NamedTuple

from .index import chunks_passing, get_meta, set_meta


def _np():
    import numpy as np
    return np


# vec0 stores vectors in fixed blocks, allocated whole: a small block wastes little on a small
# store and scans a big one no slower than vec0's default (docs/benchmarks.md).
CHUNK_SIZE = 256
CURRENT = "c.vec_text = c.embed_hash"  # the stored vector is of the chunk's present text


def table_exists(conn) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name='chunks_vec'").fetchone() is not None


def model_of(conn) -> str | None:
    return get_meta(conn, "embedding_model")


def usable(conn, identity: str) -> bool:
    """Can this connection search vectors made by `identity`?"""
    if not table_exists(conn) or model_of(conn) != identity:
        return False
    return get_meta(conn, "vector_store") == "blob" or conn.vec


def reset(conn, identity: str, dims: int) -> None:
    """(Re)create an empty vector table for a model; every chunk becomes pending."""
    old = model_of(conn)
    if old and old != identity:
        from .log import note
        note(f"index vectors were made by {old}; re-embedding with {identity}")
    conn.execute("DROP TABLE IF EXISTS chunks_vec")
    if get_meta(conn, "vector_store") == "vec0":
        conn.execute(
            f"CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[{int(dims)}] "
            f"distance_metric=cosine, type text, memory_type text, ts text, src text, "
            f"chunk_size={CHUNK_SIZE})")
    else:
        conn.execute("CREATE TABLE chunks_vec (pk INTEGER PRIMARY KEY, embedding BLOB NOT NULL)")
    conn.execute("UPDATE chunks SET vec_have=NULL, vec_text=NULL WHERE vec_have IS NOT NULL "
                 "OR vec_text IS NOT NULL")
    set_meta(conn, "embedding_model", identity)
    set_meta(conn, "embedding_dims", dims)
    _bump(conn)


def prepare(conn, identity: str, dims: int) -> None:
    """Make sure the table holds vectors of this model and size (else start it afresh)."""
    if not ready(conn, identity, dims):
        reset(conn, identity, dims)


def ready(conn, identity: str, dims: int) -> bool:
    """Does the table hold vectors of this model and size? (Read-only: searches ask it.)"""
    return (table_exists(conn) and model_of(conn) == identity
            and str(get_meta(conn, "embedding_dims")) == str(dims))


def embed_text(content: str, context: str | None, ctype: str | None = None) -> str:
    """What the model sees: for a MEMORY.md section or a session summary, the heading path
    or topic, then the text; for a daily line, the text alone (its context is the line
    before it, which is keyword context only: embedding it blurred the line's own meaning,
    docs/retrieval.md)."""
    if ctype in ("core", "session_summary") and context:
        return f"{context}\n{content}"
    return content


@dataclass
class Pending:
    """A chunk waiting for its vector row."""
    pk: int
    embed_hash: str
    vec_want: str
    text: str


_PENDING_SQL = ("SELECT pk, embed_hash, vec_want, content, context, type FROM chunks "
                "WHERE vec_have IS NOT vec_want")  # the chunks_pending index: O(pending)


def pending(conn, limit: int | None = None, *, newest: bool = False) -> list:
    """Chunks without their vector row ([Pending]), oldest first (newest with `newest`)."""
    sql = _PENDING_SQL + (" ORDER BY pk DESC" if newest else " ORDER BY pk") + (
        f" LIMIT {int(limit)}" if limit else "")
    return [Pending(pk, eh, want, embed_text(content, context, ctype))
            for pk, eh, want, content, context, ctype in conn.execute(sql)]


def count_pending(conn) -> int:
    return conn.execute("SELECT count(*) FROM chunks WHERE vec_have IS NOT vec_want").fetchone()[0]


class VecMeta(NamedTuple):
    """The filter columns a vec0 row carries beside its vector."""
    type: str
    memory_type: str
    ts: str
    src: str


def _meta_if_current(conn, item: Pending) -> VecMeta | None:
    """The chunk's filter columns, or None when its text changed since `item` was read."""
    from .sync import source_kind
    row = conn.execute("SELECT type, memory_type, timestamp, source_file, embed_hash "
                       "FROM chunks WHERE pk=?", (item.pk,)).fetchone()
    if row is None or row[4] != item.embed_hash:
        return None
    return VecMeta(row[0] or "", row[1] or "", row[2] or "", source_kind(row[3] or ""))


def _write(conn, pk: int, blob: bytes, vec0: bool, meta: VecMeta) -> None:
    conn.execute("DELETE FROM chunks_vec WHERE rowid=?", (pk,))
    if vec0:
        conn.execute("INSERT INTO chunks_vec(rowid, embedding, type, memory_type, ts, src) "
                     "VALUES (?,?,?,?,?,?)", (pk, blob, *meta))
    else:
        conn.execute("INSERT INTO chunks_vec(pk, embedding) VALUES (?,?)", (pk, blob))


def store(conn, items) -> int:
    """Write [(Pending, vector)], skipping chunks whose text changed meanwhile."""
    vec0 = get_meta(conn, "vector_store") == "vec0"
    n = 0
    for item, vector in items:
        meta = _meta_if_current(conn, item)
        if meta is None:
            continue
        _write(conn, item.pk, _np().asarray(vector, dtype="float32").tobytes(), vec0, meta)
        conn.execute("UPDATE chunks SET vec_have=vec_want, vec_text=embed_hash WHERE pk=?",
                     (item.pk,))
        n += 1
    if n:
        _bump(conn)
    return n


def reuse(conn, items: list) -> tuple:
    """Give every pending chunk whose text already has a vector in the index (its own, with
    stale metadata; or another chunk's) a copy of it, without the model. Returns (the items
    still needing the model, how many were copied)."""
    vec0 = get_meta(conn, "vector_store") == "vec0"
    left, n = [], 0
    for item in items:
        src = conn.execute("SELECT pk FROM chunks WHERE vec_text = ? AND (pk = ? OR vec_have IS "
                           "NOT NULL) ORDER BY pk = ? DESC LIMIT 1",
                           (item.embed_hash, item.pk, item.pk)).fetchone()
        blob = conn.execute("SELECT embedding FROM chunks_vec WHERE rowid=?",
                            (src[0],)).fetchone() if src else None
        meta = _meta_if_current(conn, item) if blob else None
        if meta is None:
            left.append(item)
            continue
        _write(conn, item.pk, bytes(blob[0]), vec0, meta)
        conn.execute("UPDATE chunks SET vec_have=vec_want, vec_text=embed_hash WHERE pk=?",
                     (item.pk,))
        n += 1
    if n:
        _bump(conn)
    return left, n


def remove_orphans(conn) -> int:
    """Vectors whose chunk is gone (a text-only sync cannot touch vec0)."""
    have = conn.execute("SELECT count(*) FROM chunks_vec").fetchone()[0]
    live = conn.execute("SELECT count(*) FROM chunks WHERE vec_have IS NOT NULL").fetchone()[0]
    if have <= live:
        return 0
    _bump(conn)
    return conn.execute("DELETE FROM chunks_vec WHERE rowid NOT IN "
                        "(SELECT pk FROM chunks WHERE vec_have IS NOT NULL)").rowcount


# --- the embed loop -------------------------------------------------------------------------

@dataclass
class FillReport:
    embedded: int = 0  # vectors the model made
    reused: int = 0  # vectors copied from a chunk with the same text
    left: int = 0  # chunks still without their vector (the deadline or budget came first)
    store_unavailable: bool = False  # the index keeps vec0 and this Python cannot load it


def fill(index, embedder, *, deadline: float | None = None, budget: float | None = None,
         limit: int | None = None, progress=None, tidy: bool = True,
         newest: bool = False) -> FillReport:
    """Give pending chunks their vectors: copies first (free), then the model, in batches of
    similar length, each embedded outside any lock and stored in a short transaction.
    Stops between batches at `deadline` (time.monotonic()) or after `budget` seconds; what
    is left waits for the next call (nothing is done twice). `tidy` (sync) also drops
    vectors whose chunk is gone."""
    from .embeddings import plan_batches

    report = FillReport()
    dims = embedder.dims or len(embedder.embed_query("dimension probe"))  # also warms the model
    started = time.monotonic()
    stop = min(x for x in (deadline, started + budget if budget is not None else None,
                           float("inf")) if x is not None)

    def todo(conn):
        if not conn.vec and get_meta(conn, "vector_store") == "vec0":
            return None
        with conn.transaction():
            prepare(conn, embedder.identity, dims)
            if tidy:
                remove_orphans(conn)
            items = pending(conn, limit, newest=newest)
            left, report.reused = reuse(conn, items) if items else ([], 0)
        return left

    items = index.run(todo, vectors=True)
    if items is None:
        report.store_unavailable = True
        return report
    total = len(items)
    done = 0
    if budget is not None:  # a search: newest first, in rounds sized by the measured speed
        rounds = _budget_rounds(items, embedder.workers, started, stop)
    else:
        rounds = _planned_rounds(items, plan_batches([it.text for it in items], embedder.workers),
                                 embedder.workers, stop)
    for group in rounds:
        vecs = embedder.embed_batches([[it.text for it in b] for b in group])
        pairs = [(it, v) for b, m in zip(group, vecs) for it, v in zip(b, m)]

        def write(conn, pairs=pairs):
            with conn.transaction():
                prepare(conn, embedder.identity, dims)
                return store(conn, pairs)

        report.embedded += index.run(write, vectors=True)
        done += len(pairs)
        if progress:
            progress(done, total)
    report.left = total - done
    return report


def _planned_rounds(items, batches, workers, stop):
    """Groups of `workers` length-sorted batches (run in parallel), until `stop`."""
    for start in range(0, len(batches), max(1, workers)):
        if time.monotonic() > stop:
            return
        yield [[items[i] for i in b] for b in batches[start:start + workers]]


def _budget_rounds(items, workers, started, stop):
    """Rounds for a small time budget: first one text per core, then as many texts as the
    speed measured so far says fit in the time left (one batch per core)."""
    pos, per_text = 0, None
    while pos < len(items):
        now = time.monotonic()
        if now > stop:
            return
        if per_text is None:
            n = max(1, workers)
        else:
            n = int((stop - now) / per_text)
            if n < 1:
                return
        chunk = items[pos:pos + min(n, 64)]
        round_started = time.monotonic()
        yield [chunk[k::max(1, workers)] for k in range(max(1, workers)) if chunk[k::max(1, workers)]]
        elapsed = time.monotonic() - round_started
        per_text = max(elapsed / len(chunk), 1e-4)
        pos += len(chunk)


# --- carrying vectors across a rebuild --------------------------------------------------------

def read_for_carry(path):
    """(model, dims, {embed_hash: vector bytes}) from the index being replaced, when it can
    still be read, this Python can open its vectors and they are of the configured model's
    identity recorded there; else None."""
    from .index import open_connection

    if not os.path.isfile(path) or os.path.islink(path):
        return None
    try:
        conn = open_connection(path, vectors=True)
    except Exception:  # noqa: BLE001 - unreadable: nothing to carry
        return None
    try:
        if not table_exists(conn) or (get_meta(conn, "vector_store") == "vec0" and not conn.vec):
            return None
        model, dims = get_meta(conn, "embedding_model"), int(get_meta(conn, "embedding_dims"))
        sql = ("SELECT c.vec_text, v.embedding FROM chunks c JOIN chunks_vec v ON v.rowid = c.pk "
               "WHERE c.vec_text IS NOT NULL")
        return model, dims, {h: bytes(b) for h, b in conn.execute(sql)}
    except Exception:  # noqa: BLE001 - a damaged or older index: start without its vectors
        return None
    finally:
        conn.close()


def carry(conn, carried) -> int:
    """Store carried vectors for every chunk of a new index whose text has one."""
    model, dims, old = carried
    if not old:
        return 0
    with conn.transaction():
        prepare(conn, model, dims)
        items = [(Pending(pk, h, want, ""), old[h]) for pk, h, want in conn.execute(
            "SELECT pk, embed_hash, vec_want FROM chunks WHERE embed_hash IS NOT NULL")
            if h in old]
        np = _np()
        return store(conn, [(it, np.frombuffer(b, dtype=np.float32)) for it, b in items])


# --- search -----------------------------------------------------------------------------------

# A process that searches again and again (an agent's long session, the MCP server, a
# benchmark) keeps the vectors in memory from its second search on: one matrix product is
# several times faster than vec0's scan (docs/benchmarks.md "vec0 and numpy").
# A one-shot CLI never pays the load. Keyed by `vectors_version`, renewed by every write.
WARM_MIN = 5_000  # below this vec0's scan is already quick: not worth the memory
_warm: dict = {}  # db path -> (vectors_version, None | SMALL | (pks, matrix))
SMALL = "small"


def _bump(conn) -> None:
    """A new random version: a counter repeats its values in an index rebuilt from the files,
    where the same pk holds another chunk, and a warm process would keep the old matrix."""
    set_meta(conn, "vectors_version", os.urandom(8).hex())


def _warm_matrix(conn):
    """(pks, matrix) for this index when this process has searched it before, else None."""
    path = _key(conn.execute("PRAGMA database_list").fetchone()[2])
    version = get_meta(conn, "vectors_version", "0")
    entry = _warm.get(path)
    if entry is None or entry[0] != version:  # a first search (at this version) scans
        _warm[path] = (version, None)
        return None
    if entry[1] is None:  # the second loads the matrix, or decides the store is small
        small = conn.execute("SELECT count(*) FROM chunks").fetchone()[0] < WARM_MIN
        _warm[path] = entry = (version, SMALL if small else _load_matrix(conn))
    return _held(entry)


def _held(entry):
    """The (pks, matrix) a _warm entry holds, or None (not searched twice yet, or small)."""
    return entry[1] if entry is not None and isinstance(entry[1], tuple) else None


def _key(path) -> str:
    return os.path.realpath(path) if path else ""


def warm_nearest(path, query_vector, k: int):
    """knn's first step done from this process's in-memory matrix of the index at `path`,
    without SQLite, so it can run on the query's embedding thread beside the keyword search:
    (matrix, ranked) to hand to knn as `early`, or None when there is no matrix yet."""
    held = _held(_warm.get(_key(path)))
    if held is None:
        return None
    return held, _top(*held, _np().asarray(query_vector, dtype="float32"), 4 * k)


def _as_matrix(rows):
    """[(pk, float32 blob)] as (pks, matrix)."""
    np = _np()
    pks = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    return pks, matrix


def _load_matrix(conn, batch: int = 8192, where: str = ""):
    """(pks, matrix) of the stored vectors (of chunks passing `where`, alias c), filled in
    batches: reading all rows first held the vectors twice."""
    np = _np()
    join = ("SELECT v.rowid, v.embedding FROM chunks_vec v JOIN chunks c ON c.pk = v.rowid"
            + (f" WHERE {where}" if where else ""))
    n = conn.execute(f"SELECT count(*) FROM ({join})").fetchone()[0]
    dims = int(get_meta(conn, "embedding_dims", 0) or 0)
    pks, matrix = np.empty(n, dtype=np.int64), np.empty((n, dims), dtype=np.float32)
    cur, filled = conn.execute(join), 0
    while filled < n and (rows := cur.fetchmany(batch)):
        rows = rows[:n - filled]
        pks[filled:filled + len(rows)], matrix[filled:filled + len(rows)] = _as_matrix(rows)
        filled += len(rows)
    return pks[:filled], matrix[:filled]


def _top(pks, matrix, q, n):
    np = _np()
    # einsum, not `matrix @ q`: BLAS runs the product on a thread pool whose threads spin
    # after it, taking the cores the keyword search beside it needs.
    sims = np.einsum("ij,j->i", matrix, q)
    n = min(n, len(sims))
    if n <= 0:
        return []
    top = np.argpartition(-sims, n - 1)[:n] if n < len(sims) else np.arange(len(sims))
    top = top[np.argsort(-sims[top])]
    return [(int(pks[i]), float(sims[i])) for i in top]


def knn(conn, query_vector, k: int, where: str = "", params=(), vec_filters=None, early=None):
    """[(pk, cosine similarity)] of the k nearest current vectors that pass the filters.

    vec0: the type/memory_type/time filters are applied during the scan (metadata columns),
    so a selective filter still yields k results; the rest in SQL on what it returns. A warm
    process uses its in-memory matrix instead (falling back to vec0 when the filters leave
    too few). `early`: warm_nearest's answer, used when the matrix is still the same.
    numpy store: the filters are applied in SQL, then one matrix product."""
    from .index import VEC0_MAX_K

    q = _np().asarray(query_vector, dtype="float32")
    k = max(1, min(int(k), VEC0_MAX_K))
    if get_meta(conn, "vector_store") == "vec0":
        warm = _warm_matrix(conn)
        if warm is not None:
            ranked = early[1] if early is not None and early[0] is warm else _top(*warm, q, 4 * k)
            ok = _passing(conn, [pk for pk, _ in ranked], where, params)
            hits = [(pk, s) for pk, s in ranked if pk in ok][:k]
            if len(hits) >= min(k, len(ok)) and len(hits) >= k // 2:
                return hits
        sql = "SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ?"
        args = [q.tobytes(), k]
        for clause, values in (vec_filters or []):
            sql += " AND " + clause
            args += list(values)
        rows = conn.execute(sql, args).fetchall()
        if not rows:
            return []
        current = _passing(conn, [r[0] for r in rows], where, params)
        return [(pk, 1.0 - dist) for pk, dist in rows if pk in current]
    rows = conn.execute(
        "SELECT v.pk, v.embedding FROM chunks_vec v JOIN chunks c ON c.pk = v.pk "
        f"WHERE {CURRENT}" + (" AND " + where if where else ""), params).fetchall()
    if not rows:
        return []
    return _top(*_as_matrix(rows), q, k)


def _passing(conn, pks, where, params) -> set:
    """The pks among these whose vector is of their present text and which pass the filters."""
    return chunks_passing(conn, pks, CURRENT + (" AND " + where if where else ""), params)


def vector_of(conn, pk: int):
    """The stored vector of a chunk (of its present text), or None."""
    row = conn.execute(f"SELECT v.embedding FROM chunks_vec v JOIN chunks c ON c.pk = v.rowid "
                       f"WHERE v.rowid = ? AND {CURRENT}", (pk,)).fetchone()
    return _np().frombuffer(bytes(row[0]), dtype=_np().float32) if row else None
