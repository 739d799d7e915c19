"""Daily fact/preference lines and session decisions → facts.jsonl, and retention of old
daily files (docs/formats.md "facts.jsonl", "Retention").

facts.jsonl is append-only between compactions: a changed fact is appended as a new version
with the same id, and readers fold by id (the last line wins). Now and then it is compacted
into a temp file renamed over the old one, so git merges and concurrent readers always see
whole lines, never a partial rewrite.

Consolidation reads what it needs from the index, which sessionEnd has just synced: the lines
no fact lists as evidence yet, the corrections, each fact's current version by its byte
offset in facts.jsonl. So its work follows what is new, not the size of the store
(docs/benchmarks.md "Consolidation at scale"). A fact's id is derived from the id of the
first record it was made from, which is unique: a decision changed back to an earlier value
("Redis" → "Memcached" → "Redis") is a new fact with a new id, never the old one revived.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from . import jsonl
from .config import load_config, now, parse_time, setting
from .corrections import standing
from .locks import lock_fd, unlock_fd
from .text import normalize

# Near-duplicates by embedding: cosine at or above this, and the same numbers in both.
# It depends on the model (docs/benchmarks.md "Consolidation: the near-duplicate threshold"):
# `dedup_threshold` in config.json.
DEDUP_THRESHOLD = 0.95
RETENTION_DAYS = 90
KNN_MAX = 32  # up to this many new lines ask vec0 each; more load the facts' vectors once
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
FACTS = "facts.jsonl"


@dataclass
class Report:
    new: int = 0  # facts created
    merged: int = 0  # records that joined an existing fact
    deferred: int = 0  # lines waiting for their vector (or the deadline) before they can join
    statuses: int = 0  # fact versions appended because a status changed
    pruned: list = field(default_factory=list)  # daily files removed
    kept: list = field(default_factory=list)  # old daily files kept: not yet consolidated
    quarantined: list = field(default_factory=list)  # "quarantine/<file> (n lines)"
    compacted: bool = False


@dataclass
class Candidate:
    """A record that should be in facts.jsonl: a daily line or a session decision."""
    item: str  # the evidence id: a line id, or "<summary id>#d<n>"
    content: str
    memory_type: str
    kind: str
    entities: list
    confidence: float
    timestamp: str
    source: dict
    pk: int | None = None  # the chunk of a daily line (its vector), None for a decision
    replaces: str | None = None


def fact_id(item: str) -> str:
    """The id of the fact first made from record `item`: unique because record ids are."""
    return "fact-" + hashlib.sha1(item.encode("utf-8")).hexdigest()[:16]


def norm_hash(text: str) -> str:
    """chunks.norm of a text (sync.ChunkRow): equal for the same fact written twice."""
    return hashlib.sha1(normalize(text).encode()).hexdigest()[:16]


def read_facts(root: Path) -> dict:
    """facts.jsonl folded by id (the last version of each wins), in first-seen order."""
    path = Path(root) / FACTS
    if not path.exists():
        return {}
    folded: dict = {}
    for rec in jsonl.read(path).records:
        if isinstance(rec.get("id"), str) and isinstance(rec.get("content"), str):
            folded[rec["id"]] = rec
    return folded


def _numbers(text: str) -> frozenset:
    return frozenset(_NUMBER.findall(text))


def _conf(value) -> float:
    try:
        c = float(value)
    except (TypeError, ValueError, OverflowError):
        return 1.0
    return min(1.0, max(0.0, c)) if c == c else 1.0


# --- reading the index --------------------------------------------------------------------------

def _candidates(conn) -> list:
    """Daily fact/preference lines and session decisions that no fact lists as evidence yet,
    oldest first, without forgotten or superseded lines."""
    out = []
    for pk, cid, content, mtype, kind, entities, conf, stamp, src in conn.execute(
            "SELECT c.pk, c.id, c.content, c.memory_type, c.type, c.entities, c.confidence, "
            "c.timestamp, c.source_file FROM chunks c "
            "WHERE c.source_file LIKE 'daily/%' AND c.type IN ('fact', 'preference') "
            "AND c.hidden = 0 AND NOT EXISTS (SELECT 1 FROM evidence e WHERE e.item = c.id)"):
        out.append(Candidate(cid, content.strip(), mtype if mtype in ("W", "B", "O") else "W",
                             kind, json.loads(entities or "[]"), _conf(conf), stamp,
                             {"file": src, "id": cid}, pk))
    for sid, stamp, n, text in conn.execute(
            "SELECT c.id, c.timestamp, d.n, d.text FROM decisions d JOIN chunks c ON c.pk = d.pk "
            "WHERE c.hidden = 0 AND NOT EXISTS (SELECT 1 FROM evidence e "
            "WHERE e.item = c.id || '#d' || d.n)"):
        out.append(Candidate(f"{sid}#d{n}", text, "S", "fact", [], 1.0, stamp or "",
                             {"file": "sessions.jsonl", "id": sid}))
    if out:
        replaces = dict(conn.execute(
            "SELECT by_id, target FROM corrections WHERE kind = 'superseded' "
            "AND source_file != 'facts.jsonl' AND by_id IN (%s)" % ",".join("?" * len(out)),
            [c.item for c in out]))
        for c in out:
            c.replaces = replaces.get(c.item)
    out.sort(key=lambda c: (c.timestamp, c.item))
    return out


def _owner(conn, item: str) -> str | None:
    """The fact that lists `item` as evidence."""
    row = conn.execute("SELECT c.id FROM evidence e JOIN chunks c ON c.pk = e.pk "
                       "WHERE e.item = ? AND c.source_file = ? LIMIT 1", (item, FACTS)).fetchone()
    return row[0] if row else None


def _fact_by_norm(conn, norm: str) -> str | None:
    row = conn.execute("SELECT id FROM chunks WHERE norm = ? AND source_file = ? AND hidden = 0 "
                       "AND instr(id, '#part-') = 0 LIMIT 1", (norm, FACTS)).fetchone()
    return row[0] if row else None


class _Facts:
    """The current version of facts, read from facts.jsonl at the offset the index gives
    (or from this run's changes)."""

    def __init__(self, conn, root: Path):
        self.conn = conn
        self.path = Path(root) / FACTS
        self.changed: dict = {}
        self._scanned: dict | None = None

    def get(self, fid: str) -> dict | None:
        if fid in self.changed:
            return self.changed[fid]
        row = self.conn.execute("SELECT line_offset FROM chunks WHERE id = ? AND source_file = ?",
                                (fid, FACTS)).fetchone()
        rec = jsonl.record_at(self.path, row[0], fid) if row and row[0] is not None else None
        if rec is None:  # the index is behind the file: read it once
            if self._scanned is None:
                self._scanned = read_facts(self.path.parent)
            rec = self._scanned.get(fid)
        return dict(rec) if rec is not None else None

    def put(self, f: dict) -> None:
        self.changed[f["id"]] = f


class _Neighbours:
    """Which active fact a new line's vector is nearly equal to: vec0's nearest facts for a
    few lines, one product against every fact's vector for many; and the facts made in this
    run, which the index does not hold yet."""

    def __init__(self, conn, many: bool):
        from . import vectors
        self.conn = conn
        self.vec0 = vectors.get_meta(conn, "vector_store") == "vec0" and conn.vec
        self.matrix = None
        if many or not self.vec0:
            self.matrix = vectors._load_matrix(
                conn, where=f"c.source_file = '{FACTS}' AND c.hidden = 0 AND {vectors.CURRENT}")
        self.new: list = []  # [(fact id, vector, numbers)]

    def nearest(self, v, content: str, threshold: float) -> str | None:
        import numpy as np
        nums = _numbers(content)
        scored: list = []
        if self.matrix is not None:
            pks, m = self.matrix
            if len(pks):
                sims = m @ v
                for i in np.argsort(-sims)[:10]:
                    if sims[i] < threshold:
                        break
                    scored.append((float(sims[i]), int(pks[i])))
        elif self.vec0:
            for pk, dist in self.conn.execute(
                    "SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = 10 "
                    "AND src = 'facts'", (np.asarray(v, dtype=np.float32).tobytes(),)):
                if 1.0 - dist >= threshold:
                    scored.append((1.0 - dist, pk))
        best = None
        for sim, pk in sorted(scored, reverse=True):
            row = self.conn.execute(
                "SELECT id, content FROM chunks WHERE pk = ? AND hidden = 0 AND source_file = ?",
                (pk, FACTS)).fetchone()
            if row and _numbers(row[1]) == nums:
                best = (sim, row[0])
                break
        for fid, vec, numbers in self.new:
            sim = float(vec @ v)
            if sim >= threshold and numbers == nums and (best is None or sim > best[0]):
                best = (sim, fid)
        return best[1] if best else None

    def add(self, fid: str, v, content: str) -> None:
        self.new.append((fid, v, _numbers(content)))


# --- consolidation -----------------------------------------------------------------------------

def consolidate(index, root: Path, *, model: str | None = None, deadline: float | None = None) -> Report:
    """Fold every record not yet consolidated into facts.jsonl, from the index (synced by
    the caller). The same normalised text joins its fact; with a model (`model`: the
    embedder identity whose vectors the index holds), so does a near-duplicate, for which a
    line waits until it has its vector (`Report.deferred`). Tombstones and `supersedes` are
    applied as new versions (status forgotten / superseded). Idempotent once the result is
    synced; stops at `deadline` with the rest left for the next run."""
    import time

    root = Path(root)
    report = Report()
    threshold = setting(load_config(root), "dedup_threshold", DEDUP_THRESHOLD, minimum=0.0,
                        maximum=1.0)

    def work(conn):
        from . import vectors
        facts = _Facts(conn, root)
        todo = _candidates(conn)
        use_vectors = model is not None and vectors.usable(conn, model)
        neighbours = None
        by_norm: dict = {}  # this run's new facts
        owner_now: dict = {}  # item -> fact made or joined in this run
        new_supersedes: dict = {}  # target -> fact id, this run
        for n, cand in enumerate(todo):
            if deadline is not None and n and n % 50 == 0 and time.monotonic() > deadline:
                report.deferred += len(todo) - n
                break
            norm = norm_hash(cand.content)
            fid = None
            if not cand.replaces:
                fid = by_norm.get(norm) or _fact_by_norm(conn, norm)
            v = None
            if fid is None and not cand.replaces and model is not None and cand.pk is not None:
                v = vectors.vector_of(conn, cand.pk) if use_vectors else None
                if v is None:
                    report.deferred += 1  # compared with the facts once it has a vector
                    continue
                if neighbours is None:
                    neighbours = _Neighbours(conn, many=len(todo) > KNN_MAX)
                fid = neighbours.nearest(v, cand.content, threshold)
            f = facts.get(fid) if fid is not None else None
            if f is not None:
                f["evidence"] = list(dict.fromkeys((f.get("evidence") or []) + [cand.item]))
                f["entities"] = list(dict.fromkeys((f.get("entities") or []) + cand.entities))
                f["confidence"] = max(_conf(f.get("confidence")), cand.confidence)
                f["updated_at"] = max(str(f.get("updated_at") or ""), cand.timestamp)
                facts.put(f)
                owner_now[cand.item] = fid
                report.merged += 1
                continue
            fid = fact_id(cand.item)
            f = {"id": fid, "type": cand.memory_type, "kind": cand.kind, "content": cand.content,
                 "entities": cand.entities, "confidence": cand.confidence,
                 "evidence": [cand.item], "source": cand.source, "created_at": cand.timestamp,
                 "updated_at": cand.timestamp}
            if cand.replaces:
                target = owner_now.get(cand.replaces) or _owner(conn, cand.replaces) or cand.replaces
                f["supersedes"] = target
                new_supersedes[target] = fid
            facts.put(f)
            by_norm[norm] = fid
            owner_now[cand.item] = fid
            report.new += 1
            if v is not None and neighbours is not None:
                neighbours.add(fid, v, cand.content)
        report.statuses = _statuses(conn, facts, owner_now, new_supersedes)
        return facts.changed

    changed = index.run(work, vectors=model is not None)
    if changed:
        jsonl.append(root / FACTS, list(changed.values()))
    return report


def _statuses(conn, facts: _Facts, owner_now: dict, new_supersedes: dict) -> int:
    """Append a new version of every fact whose status (active / forgotten / superseded) the
    corrections now give differs from the one it has. Looks only at facts a correction
    names, facts not active now, and facts changed in this run."""
    rows = conn.execute("SELECT kind, target, by_id FROM corrections WHERE instr(id, '!') = 0 "
                        "ORDER BY coalesce(timestamp, ''), id").fetchall()
    forgotten = {target for kind, target, _ in rows if kind == "forgotten"}
    superseded = standing([(target, by) for kind, target, by in rows if kind != "forgotten"],
                          forgotten)
    for target, fid in new_supersedes.items():
        superseded.setdefault(target, fid)
    targets = forgotten | set(superseded)
    current = {fid: kind for fid, kind in conn.execute(
        "SELECT target, kind FROM corrections WHERE source_file = ? AND instr(id, '!') > 0",
        (FACTS,))}
    affected = set(current) | set(facts.changed)
    if targets:
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS status_targets(id TEXT PRIMARY KEY)")
        conn.execute("DELETE FROM status_targets")
        conn.executemany("INSERT OR IGNORE INTO status_targets VALUES (?)", [(t,) for t in targets])
        affected |= {fid for (fid,) in conn.execute(
            "SELECT id FROM chunks WHERE source_file = ? AND id IN (SELECT id FROM status_targets)",
            (FACTS,))}
        affected |= {fid for (fid,) in conn.execute(
            "SELECT DISTINCT c.id FROM evidence e JOIN chunks c ON c.pk = e.pk "
            "WHERE c.source_file = ? AND e.item IN (SELECT id FROM status_targets)", (FACTS,))}
        conn.execute("DELETE FROM status_targets")
    changed = 0
    for fid in sorted(affected):
        f = facts.get(fid)
        if f is None:
            continue
        evidence = f.get("evidence") or []
        if fid in forgotten or (evidence and all(e in forgotten for e in evidence)):
            want = "forgotten"
        elif fid in superseded or any(e in superseded for e in evidence):
            want = "superseded"
        else:
            want = "active"
        have = f.get("status", "active") if fid in facts.changed else current.get(fid, "active")
        by_now = None
        if want == "superseded":  # what replaces it now (a replacement forgotten since gives way)
            by = next((superseded[k] for k in [fid, *evidence] if k in superseded), None)
            by_now = owner_now.get(by) or (_owner(conn, by) if by else None) or by
        if want == have and fid not in facts.changed and (
                want != "superseded" or f.get("superseded_by") == by_now):
            continue
        if want == "active":
            f.pop("status", None)
            f.pop("superseded_by", None)
        else:
            f["status"] = want
            if want == "superseded":
                f["superseded_by"] = by_now
        if fid not in facts.changed or want != have:
            changed += 1
        facts.put(f)
    return changed


# --- compaction -------------------------------------------------------------------------------

def compact_if_needed(root: Path, *, force: bool = False, lines: int | None = None,
                      distinct: int | None = None) -> bool:
    """Rewrite facts.jsonl as one line per fact when old versions make up over half of it.
    `lines` and `distinct` (from the index) decide without reading the file. Under the
    file's lock (appenders wait, then see the new file), via temp + rename."""
    if not force and lines is not None and distinct is not None and (
            lines < 50 or lines <= 2 * distinct):
        return False
    path = Path(root) / FACTS
    if not path.exists():
        return False
    from .files import open_append
    fd = open_append(path)
    try:
        lock_fd(fd)
        try:
            if os.lstat(path).st_ino != os.fstat(fd).st_ino:
                return False  # someone else compacted it meanwhile
            batch = jsonl.read(path)
            folded: dict = {}
            for rec in batch.records:
                if isinstance(rec.get("id"), str):
                    folded[rec["id"]] = rec
            if not force and (len(batch.lines) < 50 or len(batch.lines) <= 2 * len(folded)):
                return False
            if batch.skipped:
                return False  # never drop a line nobody has looked at (doctor lists it)
            jsonl.write_lines(path, folded.values())
            return True
        finally:
            unlock_fd(fd)
    finally:
        os.close(fd)


def fact_lines(conn) -> tuple:
    """(lines in facts.jsonl, distinct facts) as the index knows them."""
    row = conn.execute("SELECT last_line FROM sync_state WHERE file_path = ?", (FACTS,)).fetchone()
    distinct = conn.execute("SELECT count(*) FROM chunks WHERE source_file = ? "
                            "AND instr(id, '#part-') = 0", (FACTS,)).fetchone()[0]
    return (row[0] if row else 0), distinct


def run(index, root: Path, *, deadline=None, model=None, resync) -> Report:
    """Consolidate, then compact facts.jsonl when it has grown with old versions;
    `resync()` brings the index in line with the files after each write."""
    report = consolidate(index, root, deadline=deadline, model=model)
    resync()
    lines, distinct = index.run(fact_lines)
    if compact_if_needed(root, lines=lines, distinct=distinct):
        report.compacted = True
        resync()
    return report


# --- retention --------------------------------------------------------------------------------

def prune(index, root: Path) -> Report:
    """Delete daily files older than the retention (config `retention_days`, default 90),
    except a day holding a fact/preference line that no fact lists as evidence yet (a line
    superseded before any consolidation included: it is the only copy of the old value), an
    action (actions are events, not folded into facts.jsonl), or a correction (a tombstone
    or a `supersedes`: it must outlive what it corrects). Lines
    nobody could read (malformed, cut off) are never deleted with their day: they are moved,
    byte for byte, to quarantine/<day>.jsonl, which `doctor` lists. facts.jsonl,
    sessions.jsonl and MEMORY.md are never touched."""
    from .sync import to_chunk

    root = Path(root)
    report = Report()
    days = setting(load_config(root), "retention_days", RETENTION_DAYS, maximum=36_500)
    if days <= 0:
        return report
    cutoff = (now().astimezone() - timedelta(days=days)).date()
    daily = root / "daily"
    old = []
    if daily.is_symlink():  # its files are not ours to delete
        return report
    for path in sorted(daily.glob("*.jsonl")) if daily.is_dir() else []:
        try:
            day = parse_time(path.stem).date()
        except Exception:  # noqa: BLE001 - not a dated file: not ours to delete
            continue
        if day < cutoff and path.is_file() and not path.is_symlink():
            old.append(path)
    if not old:
        return report

    def settled(conn, ids):
        marks = ",".join("?" * len(ids))
        done = {i for (i,) in conn.execute(f"SELECT item FROM evidence WHERE item IN ({marks})", ids)}
        # forgotten: nothing to keep; superseded and in no fact: its day is the only copy of
        # what was true then (a past-time question finds it), so it stays
        return done | {i for (i,) in conn.execute(
            f"SELECT target FROM corrections WHERE kind = 'forgotten' AND target IN ({marks})", ids)}

    for path in old:
        data = jsonl.settled_tail(path.read_bytes(), path.stat().st_mtime)
        rel = f"daily/{path.name}"
        bad, memories, corrects = [], [], False
        pieces = data.split(b"\n")
        tail = pieces.pop()  # after the last newline: empty, or a line cut off
        for raw in pieces + ([tail] if tail.strip() else []):
            if not raw.strip():
                continue
            record, _ = jsonl.parse(raw) if raw is not tail else (None, "cut off")
            if record is None:
                bad.append(raw)
                continue
            try:
                to_chunk(rel, record)
            except Exception:  # noqa: BLE001 - sync skipped it: nobody has seen it
                bad.append(raw)
                continue
            if record.get("type") in ("forget", "action") or isinstance(record.get("supersedes"), str):
                corrects = True  # actions are not folded into facts.jsonl: their day stays
            if record.get("type") in ("fact", "preference") and isinstance(record.get("id"), str):
                memories.append(record["id"])
        unsettled = set(memories) - (index.run(lambda c: settled(c, memories)) if memories else set())
        if corrects or unsettled:
            report.kept.append(path.name)
            continue
        if bad:
            _quarantine(root, path.name, bad)
            report.quarantined.append(f"quarantine/{path.name} ({len(bad)} lines)")
        path.unlink()
        report.pruned.append(path.name)
    return report


def _quarantine(root: Path, name: str, lines: list) -> None:
    """Keep unreadable lines, byte for byte, in quarantine/<name> (never synced)."""
    from .files import make_private_dir, open_append
    folder = root / "quarantine"
    make_private_dir(folder)
    fd = open_append(folder / name)
    try:
        os.write(fd, b"".join(raw + b"\n" for raw in lines))
        os.fsync(fd)
    finally:
        os.close(fd)
