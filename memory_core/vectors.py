"""Vectors in the index: a sqlite-vec `vec0` table when the extension loads, else float32
BLOBs searched by numpy (seed 001 §6.2). Both live in `chunks_vec`, keyed by chunks.pk.

A vector belongs to the chunk text it was made from: chunks.vec_hash records which, so a
chunk whose text changed is re-embedded and its stale vector is never returned.
"""
from __future__ import annotations

import os
import sys

from .index import chunks_passing, get_meta, set_meta


def _np():
    import numpy as np
    return np


# vec0 stores vectors in fixed blocks, allocated whole: 1024 (its default) x 384 floats is
# 1.5 MB, so a 1,256-vector store's file was two-thirds empty vector space. 256 wastes at
# most 0.4 MB, and scans 120k vectors no slower (docs/benchmarks.md).
CHUNK_SIZE = 256


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
        print(f"cursor-memory: index vectors were made by {old}; re-embedding with {identity}",
              file=sys.stderr)
    conn.execute("DROP TABLE IF EXISTS chunks_vec")
    if get_meta(conn, "vector_store") == "vec0":
        conn.execute(
            f"CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[{int(dims)}] "
            f"distance_metric=cosine, type text, memory_type text, ts text, chunk_size={CHUNK_SIZE})")
    else:
        conn.execute("CREATE TABLE chunks_vec (pk INTEGER PRIMARY KEY, embedding BLOB NOT NULL)")
    conn.execute("UPDATE chunks SET vec_hash=NULL WHERE vec_hash IS NOT NULL")
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


def pending(conn, limit: int | None = None) -> list:
    """Chunks without a current vector: [(pk, hash, text to embed)]. Archived transcript
    turns are not embedded: they are many, long, and searched by keyword on request."""
    sql = ("SELECT pk, hash, content, context, type FROM chunks WHERE vec_hash IS NOT hash "
           "AND type != 'transcript' ORDER BY pk"  # the chunks_pending index: O(pending)
           + (f" LIMIT {int(limit)}" if limit else ""))
    return [(pk, h, embed_text(content, context, ctype))
            for pk, h, content, context, ctype in conn.execute(sql)]


def embed_text(content: str, context: str | None, ctype: str | None = None) -> str:
    """What the model sees: for a MEMORY.md section or a session summary, the heading path
    or topic, then the text; for a daily line, the text alone (its context is the line
    before it, which is keyword context only: embedding it blurred the line's own meaning,
    devmem vector R@5 0.35 -> 0.28)."""
    if ctype in ("core", "session_summary") and context:
        return f"{context}\n{content}"
    return content


def store(conn, items) -> int:
    """Write [(pk, hash, vector)], skipping chunks that changed or vanished meanwhile."""
    vec0 = get_meta(conn, "vector_store") == "vec0"
    n = 0
    for pk, h, vector in items:
        row = conn.execute("SELECT hash, type, memory_type, timestamp FROM chunks WHERE pk=?",
                           (pk,)).fetchone()
        if row is None or row[0] != h:
            continue
        blob = _np().asarray(vector, dtype="float32").tobytes()
        conn.execute("DELETE FROM chunks_vec WHERE rowid=?", (pk,))
        if vec0:
            conn.execute("INSERT INTO chunks_vec(rowid, embedding, type, memory_type, ts) "
                         "VALUES (?,?,?,?,?)", (pk, blob, row[1] or "", row[2] or "", row[3] or ""))
        else:
            conn.execute("INSERT INTO chunks_vec(pk, embedding) VALUES (?,?)", (pk, blob))
        conn.execute("UPDATE chunks SET vec_hash=? WHERE pk=?", (h, pk))
        n += 1
    if n:
        _bump(conn)
    return n


def remove_orphans(conn) -> int:
    """Vectors whose chunk is gone (a text-only sync cannot touch vec0)."""
    have = conn.execute("SELECT count(*) FROM chunks_vec").fetchone()[0]
    live = conn.execute("SELECT count(*) FROM chunks WHERE vec_hash IS NOT NULL").fetchone()[0]
    if have <= live:
        return 0
    _bump(conn)
    return conn.execute("DELETE FROM chunks_vec WHERE rowid NOT IN (SELECT pk FROM chunks)").rowcount


# A process that searches again and again (an agent's long session, a benchmark) keeps the
# vectors in memory from its second search on: one matrix product over 100k x 384 takes
# ~9 ms where vec0's scan takes ~65 ms, and at 12k vectors ~1 ms against 12 ms
# (docs/benchmarks.md, `bench/perf.py --only vectors`). A one-shot CLI never pays the load
# (and its memory). Keyed by `vectors_version`, which every vector write renews.
WARM_MIN = 5_000  # below this vec0 takes a few ms, not worth 1.5 KB a vector of memory
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


def _load_matrix(conn, batch: int = 8192):
    """(pks, matrix) of every stored vector, filled in batches: reading all rows first held
    the vectors twice (3.6 GB of RSS for a 1.8 GB matrix at 1.2M vectors)."""
    np = _np()
    n = conn.execute("SELECT count(*) FROM chunks_vec").fetchone()[0]
    dims = int(get_meta(conn, "embedding_dims", 0) or 0)
    pks, matrix = np.empty(n, dtype=np.int64), np.empty((n, dims), dtype=np.float32)
    cur, filled = conn.execute("SELECT rowid, embedding FROM chunks_vec"), 0
    while filled < n and (rows := cur.fetchmany(batch)):
        rows = rows[:n - filled]
        pks[filled:filled + len(rows)], matrix[filled:filled + len(rows)] = _as_matrix(rows)
        filled += len(rows)
    return pks[:filled], matrix[:filled]


def _top(pks, matrix, q, n):
    np = _np()
    # einsum, not `matrix @ q`: BLAS (OpenBLAS in numpy's wheels) runs the product on a
    # thread pool whose threads spin after it, on 2 cores slowing the keyword search that
    # runs beside it by a third; einsum's single-threaded loop takes 6 ms at 120k vectors.
    sims = np.einsum("ij,j->i", matrix, q)
    n = min(n, len(sims))
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
    q = _np().asarray(query_vector, dtype="float32")
    if get_meta(conn, "vector_store") == "vec0":
        warm = _warm_matrix(conn)
        if warm is not None:
            ranked = early[1] if early is not None and early[0] is warm else _top(*warm, q, 4 * k)
            ok = _passing(conn, [pk for pk, _ in ranked], where, params)
            hits = [(pk, s) for pk, s in ranked if pk in ok][:k]
            if len(hits) >= min(k, len(ok)) and len(hits) >= k // 2:
                return hits
        sql = "SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ?"
        args = [q.tobytes(), int(k)]
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
        "WHERE c.vec_hash = c.hash" + (" AND " + where if where else ""), params).fetchall()
    if not rows:
        return []
    return _top(*_as_matrix(rows), q, k)


def _passing(conn, pks, where, params) -> set:
    """The pks among these whose vector is current and which pass the filters."""
    return chunks_passing(conn, pks, "c.vec_hash = c.hash" + (" AND " + where if where else ""),
                          params)


def read_all(conn):
    """{(chunk id, hash): vector bytes} of every current vector, to carry across a rebuild."""
    sql = ("SELECT c.id, c.hash, v.embedding FROM chunks c JOIN chunks_vec v ON v.rowid = c.pk "
           "WHERE c.vec_hash = c.hash")
    return {(cid, h): blob for cid, h, blob in conn.execute(sql)}
