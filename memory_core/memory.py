"""`Memory`: the one object the CLIs, hooks and benchmarks use.

Writing touches only the JSONL files (and imports no sqlite, numpy or fastembed); the index
is opened only by sync, search and the commands that read it.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from . import jsonl, records
from .config import MemoryError, date_bound, today

NOTICE_PREFIX = "cursor-memory:"


def notice(message: str) -> None:
    print(f"{NOTICE_PREFIX} {message}", file=sys.stderr)


class Memory:
    """A memory folder (seed 003 §1): MEMORY.md, daily/, facts.jsonl, sessions.jsonl, and
    the derived index.sqlite."""

    def __init__(self, path, *, project=None):
        self.root = Path(path)
        _make_private_dir(self.root)
        _make_private_dir(self.root / "daily")
        self._project = Path(project) if project else None
        self._embedder = None
        self._embedder_tried = False
        self._index = None

    @property
    def project(self) -> Path | None:
        """The project this memory belongs to (file references are relative to it): the
        folder holding .cursor/skills/memory-data, else CURSOR_PROJECT_DIR, else unknown."""
        if self._project is None:
            from .refs import project_of
            self._project = project_of(self.root)
        return self._project

    def __repr__(self):
        return f"Memory({str(self.root)!r})"

    # --- writing: JSONL only -----------------------------------------------------------

    def daily_path(self, day=None) -> Path:
        return self.root / "daily" / f"{(day or today()).isoformat()}.jsonl"

    def save_fact(self, content, memory_type="W", *, kind="fact", entities=None,
                  confidence=None, session_id=None, source=None, refs=None,
                  supersedes=None) -> dict:
        """Append a fact/preference/action to today's daily file; returns the record.
        `refs`: files and artifacts it is about (those written in the text are found too);
        `supersedes`: the id of an earlier fact this one replaces."""
        record = records.fact(content, memory_type=memory_type, kind=kind, entities=entities,
                              confidence=confidence, session_id=session_id, source=source,
                              refs=self._with_found_refs(content, refs), supersedes=supersedes)
        if supersedes is not None:
            self._must_exist(record["supersedes"], "supersede")
        jsonl.append(self.daily_path(), record)
        return record

    def save_summary(self, topic, summary, decisions=None, todos=None, *, session_id=None,
                     refs=None) -> dict:
        """Append a session summary to sessions.jsonl; returns the record."""
        text = " ".join([str(topic), str(summary), *map(str, decisions or []), *map(str, todos or [])])
        record = records.summary(topic, summary, decisions=decisions, todos=todos,
                                 session_id=session_id, refs=self._with_found_refs(text, refs))
        jsonl.append(self.root / "sessions.jsonl", record)
        return record

    def forget(self, record_id: str, reason=None) -> dict:
        """Append a tombstone: search and the session context stop showing the record (and
        the fact consolidated from it). Nothing is edited or deleted."""
        record = records.forget(record_id, reason)
        self._must_exist(record["target"], "forget")
        jsonl.append(self.daily_path(), record)
        return record

    def _with_found_refs(self, text, refs):
        from .refs import extract
        found = extract(text, self.project) if isinstance(text, str) else []
        return list(refs or []) + found

    def _must_exist(self, record_id: str, verb: str) -> None:
        if record_id.startswith("MEMORY.md"):
            raise MemoryError(f"MEMORY.md is yours to edit: change the file instead of trying to {verb} {record_id}")
        found = self.find(record_id)
        if found is None:
            raise MemoryError(f"no memory has the id {record_id} (search shows ids)")
        if found.get("type") == records.FORGET:
            raise MemoryError(f"{record_id} is itself a correction; nothing to {verb}")

    def find(self, record_id: str) -> dict | None:
        """The record with this id from the files (not the index), or None. Cheap: a daily
        line's id names its day."""
        import re
        needle = f'"id":"{record_id}"'.encode("utf-8")
        if record_id.startswith("fact-"):
            files = [self.root / "facts.jsonl"]
        elif record_id.startswith("sum-"):
            files = [self.root / "sessions.jsonl"]
        else:
            m = re.match(r"log-(\d{4})(\d\d)(\d\d)-", record_id)
            daily = sorted((self.root / "daily").glob("*.jsonl"))
            if m:
                from datetime import date, timedelta
                day = date(*map(int, m.groups()))
                near = {f"{day + timedelta(days=k)}.jsonl" for k in (-1, 0, 1)}
                daily = [p for p in daily if p.name in near] + [p for p in daily if p.name not in near]
            files = daily
        found = None
        for path in files:
            if not path.exists():
                continue
            with open(path, "rb") as f:
                for raw in f:
                    if needle in raw.replace(b" ", b""):
                        rec = jsonl._parse(raw.rstrip(b"\n"))[0]
                        if rec and rec.get("id") == record_id:
                            found = rec  # the last version wins (facts.jsonl)
            if found is not None:
                return found
        return None

    def log_event(self, kind: str, **fields) -> dict:
        """Append a session_start / session_end / transcript line to today's daily file."""
        record = records.event(kind, **fields)
        jsonl.append(self.daily_path(), record)
        return record

    # --- the index ---------------------------------------------------------------------

    @property
    def index(self):
        if self._index is None:
            from .index import Index
            self._index = Index(self.root)
        return self._index

    def embedder(self, *, quiet: bool = False):
        """The embedding model, loaded once from local files; None when there is none."""
        if not self._embedder_tried:
            from . import embeddings
            self._embedder = embeddings.load(self.root, quiet=quiet)
            self._embedder_tried = True
        return self._embedder

    def _run(self, fn, *, vectors: bool = False):
        """Run fn(conn) on the index; a broken or outdated index is rebuilt once, with one
        line of notice, and fn runs again."""
        from .index import NeedsRebuild

        for attempt in (1, 2):
            try:
                with self.index.connect(vectors=vectors) as conn:
                    return fn(conn)
            except NeedsRebuild as e:
                reason = str(e)
            except Exception as e:  # noqa: BLE001 - only corruption is handled here
                if not _is_corruption(e):
                    raise
                reason = f"damaged ({e})"
            if attempt == 2:
                raise MemoryError(f"index.sqlite is still unusable after a rebuild: {reason}")
            notice(f"index.sqlite {reason}; rebuilding it from the files")
            self._rebuild_text()

    def sync(self, *, embed: bool = True, progress=None, deadline: float | None = None):
        """Bring the index in line with the files; with `embed`, also make the missing
        vectors when a model is available. Returns a SyncReport."""
        from .sync import sync_text

        report = self._run(lambda conn: sync_text(conn, self.root))
        for line in report.skipped:
            notice(f"skipped {line}")
        if embed:
            embedder = self.embedder()
            if embedder is None:
                report.notes.append("no embedding model: vectors not made")
            else:
                report.embedded = self._fill_vectors(embedder, progress=progress,
                                                     deadline=deadline)
        return report

    def _fill_vectors(self, embedder, *, limit=None, progress=None, deadline=None,
                      quiet=False, tidy=True) -> int:
        """Embed chunks that have no current vector, in batches, outside any lock. With
        `tidy` (sync), also drop vectors whose chunk is gone; a search skips that, and when
        nothing is pending it costs one indexed lookup."""
        from . import vectors

        dims = embedder.dims or len(embedder.embed_query("dimension probe"))

        def todo(conn):
            if not conn.vec and _vector_store(conn) == "vec0":
                return None
            if tidy or not vectors.ready(conn, embedder.identity, dims):
                with conn.transaction():
                    vectors.prepare(conn, embedder.identity, dims)
                    if tidy:
                        vectors.remove_orphans(conn)
            return vectors.pending(conn, limit) or []

        items = self._run(todo, vectors=True)
        if items is None:
            if not quiet:
                notice("this index keeps vectors in sqlite-vec, which this Python cannot load; "
                       "vectors not made (`cursor-memory rebuild` makes an index this Python "
                       "can use)")
            return 0
        if not items:
            return 0
        from .embeddings import BATCH, WORKERS

        done = 0
        batch = BATCH * WORKERS
        for start in range(0, len(items), batch):
            part = items[start:start + batch]
            vecs = embedder.embed([text for _, _, text in part])

            def write(conn, part=part, vecs=vecs):
                with conn.transaction():
                    vectors.prepare(conn, embedder.identity, dims)
                    return vectors.store(conn, [(pk, h, v) for (pk, h, _), v in zip(part, vecs)])

            done += self._run(write, vectors=True)
            if progress:
                progress(min(start + batch, len(items)), len(items))
            if deadline is not None and time.monotonic() > deadline:
                break  # the rest waits for the next sync
        return done

    def search(self, query: str, limit: int = 10, mode: str = "hybrid", *, type=None,
               memory_type=None, since=None, until=None, ref=None, history: bool = False,
               sync: bool = True):
        """Search memory. `mode`: hybrid (keywords + vectors, fused), fts, or vector.
        Filters: type (fact/preference/action/session_summary/core; transcript, the archived
        turns, only when asked for), memory_type (W/B/O/S),
        since/until (a date or ISO time), ref (a file path, also under the names git says it
        had, or a url / category:id: what do we know about it), history (also show forgotten
        and superseded records, with their status). Returns a list of Hits with `.notes`."""
        from . import temporal, vectors
        from .config import now
        from .search import (MODES, Filters, Results, collapse, fts_candidates, fuse, load_hits,
                             rerank, vector_candidates)

        if mode not in MODES:
            raise MemoryError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if not isinstance(limit, int) or limit < 1:
            raise MemoryError("limit must be a positive whole number")
        filters = Filters(_as_list(type), _as_list(memory_type),
                          date_bound(since) if since else None,
                          date_bound(until, end=True) if until else None,
                          self._ref_targets(ref) if ref else None, history)
        notes = []
        embedder = self.embedder(quiet=True) if mode != "fts" else None
        if mode != "fts" and embedder is None:
            notes.append("no embedding model available: keyword results only "
                         "(see `cursor-memory model download`)")
        depth = max(50, 5 * limit)

        def nearest():  # the model, numpy and SQLite all release the GIL
            v = embedder.embed_query(query)
            return v, vectors.warm_nearest(self.index.path, v, depth)

        # The query is embedded, and in a warm process its nearest vectors found, while the
        # index is brought up to date and searched by keyword: at 100k records ~15 ms saved.
        qvec = _in_background(nearest) if embedder is not None and query.strip() else None
        if sync:
            report = self.sync(embed=False)
            if report.skipped:
                notes.append(f"{len(report.skipped)} malformed lines skipped")
        if embedder is not None:
            self._fill_vectors(embedder, limit=512, quiet=True, tidy=False)  # just saved
        fusion = self._fusion()
        hint = temporal.parse(query, now())

        def run(conn):
            fts = fts_candidates(conn, query, filters, depth) if mode != "vector" else []
            vec = []
            if qvec is not None:
                if vectors.usable(conn, embedder.identity):
                    v, early = qvec()
                    vec = vector_candidates(conn, v, filters, depth, early)
                else:
                    notes.append("vectors are not available in this index yet: keyword results only")
            dated = []
            if hint.start is not None and mode != "vector":  # the days the query names
                dated = fts_candidates(conn, query, filters.within(hint.start, hint.end), depth)
            ranked = fuse(fts, vec, *fusion, dated=dated)
            if filters.ref_targets and not query.strip():  # everything about it, newest first
                ranked = _newest(conn, filters, depth)
            hits = collapse(load_hits(conn, ranked, self.project))
            return rerank(conn, hits, hint, hint.rest(query))[:limit]

        return Results(self._run(run, vectors=qvec is not None), notes)

    def _ref_targets(self, ref: str) -> list:
        from .refs import RefError, former_names, parse
        try:
            kind, target = parse(ref if ":" in ref.split("/")[0] else f"file:{ref}")
        except RefError as e:
            raise MemoryError(str(e)) from None
        return former_names(target, self.project) if kind == "file" else [target]

    def _fusion(self):
        """(RRF k, vector weight): config.json keys `rrf_k` and `vector_weight`."""
        from .config import load_config
        from .search import RRF_K, VECTOR_WEIGHT

        cfg = load_config(self.root)
        try:
            return float(cfg.get("rrf_k", RRF_K)), float(cfg.get("vector_weight", VECTOR_WEIGHT))
        except (TypeError, ValueError):
            notice("config.json: rrf_k and vector_weight must be numbers; using the defaults")
            return RRF_K, VECTOR_WEIGHT

    def context(self, *, search_command: str | None = None) -> str:
        """The sessionStart context (MEMORY.md, recent facts by seed 004's decay policy, the
        last summary), fenced as data and within `context_budget` characters."""
        from .context import build

        self.sync(embed=False)
        return build(self, search_command=search_command)

    # --- maintenance -------------------------------------------------------------------

    def rebuild(self, *, embed: bool = True, progress=None):
        """Rebuild index.sqlite from the files into a temp file and swap it in; vectors of
        unchanged chunks are carried over, the rest are made when `embed` is on."""
        report = self._rebuild_text()
        if embed:
            embedder = self.embedder()
            if embedder is not None:
                report.embedded = self._fill_vectors(embedder, progress=progress)
        return report

    def _rebuild_text(self):
        from .index import ensure_schema, open_connection
        from .locks import LockFile, remove_stale_temps
        from .sync import sync_text

        with LockFile(self.root / "rebuild.lock"):
            remove_stale_temps(self.root)
            carried = self._old_vectors()
            tmp = self.index.temp_path()
            conn = open_connection(tmp, vectors=bool(carried))
            try:
                conn.execute("PRAGMA journal_mode=DELETE")
                ensure_schema(conn)
                report = sync_text(conn, self.root)
                if carried:
                    _carry_vectors(conn, *carried)
                conn.execute("PRAGMA journal_mode=WAL")
            finally:
                conn.close()
            self.index.swap_in(tmp)
        return report

    def _old_vectors(self):
        """(model, dims, {(id, hash): vector}) from the index being replaced, when it can
        still be read and its vectors are of the configured model."""
        from . import embeddings, vectors
        from .index import get_meta, open_connection

        if not self.index.path.exists():
            return None
        try:
            conn = open_connection(self.index.path, vectors=True)
        except Exception:  # noqa: BLE001 - unreadable: nothing to carry
            return None
        try:
            if (get_meta(conn, "embedding_model") != embeddings.model_identity(self.root)
                    or not vectors.table_exists(conn)
                    or (get_meta(conn, "vector_store") == "vec0" and not conn.vec)):
                return None
            return (get_meta(conn, "embedding_model"), int(get_meta(conn, "embedding_dims")),
                    vectors.read_all(conn))
        except Exception:  # noqa: BLE001 - a damaged index: start without its vectors
            return None
        finally:
            conn.close()

    def stats(self) -> dict:
        """Counts and settings, for `cursor-memory stats`."""
        from . import embeddings, vectors
        from .index import get_meta, vector_driver
        from .sync import PART

        def run(conn):
            whole = f"instr(id, '{PART}') = 0"  # records, not the line-parts indexed with them
            by_type = dict(conn.execute(f"SELECT type, count(*) FROM chunks WHERE {whole} "
                                        "GROUP BY type"))
            total = sum(by_type.values())
            with_vec = conn.execute(f"SELECT count(*) FROM chunks WHERE vec_hash = hash AND {whole}"
                                    ).fetchone()[0]
            skipped = conn.execute("SELECT count(*) FROM skipped").fetchone()[0]
            return {
                "memory_dir": str(self.root),
                "chunks": total,
                "by_type": by_type,
                "vectors": with_vec,
                "pending_vectors": total - with_vec - by_type.get("transcript", 0),
                "hidden": conn.execute("SELECT count(*) FROM chunks WHERE hidden = 1 AND "
                                       f"{whole}").fetchone()[0],
                "skipped_lines": skipped,
                "index_bytes": self.index.path.stat().st_size,
                "vector_store": get_meta(conn, "vector_store"),
                "vector_driver": vector_driver(),
                "index_model": vectors.model_of(conn),
                "configured_model": embeddings.describe(self.root),
            }

        self.sync(embed=False)
        return self._run(run)


def _newest(conn, filters, depth):
    where, params = filters.sql()
    rows = conn.execute(f"SELECT c.pk FROM chunks c WHERE {where or 1} ORDER BY c.timestamp DESC "
                        "LIMIT ?", (*params, depth)).fetchall()
    return [(pk, 1.0 / (i + 1), None, None, None, None) for i, (pk,) in enumerate(rows)]


def _vector_store(conn):
    from .index import get_meta
    return get_meta(conn, "vector_store")


def _carry_vectors(conn, model, dims, old) -> None:
    from . import vectors

    with conn.transaction():
        vectors.prepare(conn, model, dims)
        items = [(pk, h, old[(cid, h)]) for pk, cid, h in conn.execute("SELECT pk, id, hash FROM chunks")
                 if (cid, h) in old]
        import numpy as np
        vectors.store(conn, [(pk, h, np.frombuffer(b, dtype=np.float32)) for pk, h, b in items])


def _as_list(value):
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return list(value)


def _is_corruption(e: Exception) -> bool:
    name = type(e).__name__
    text = str(e).lower()
    if name == "DatabaseError":
        return True
    return name == "OperationalError" and ("malformed" in text or "not a database" in text
                                           or "no such table" in text)


def _make_private_dir(path: Path) -> None:
    """The memory folder holds a user's private notes: 0700 on POSIX."""
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        if os.name == "posix":
            os.chmod(path, 0o700)


def _in_background(fn, *args):
    """Run fn(*args) in a thread; returns a function that waits for and returns its result
    (or raises its error)."""
    import threading

    box: dict = {}

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()

    def result():
        thread.join()
        if "error" in box:
            raise box["error"]
        return box["value"]
    return result
