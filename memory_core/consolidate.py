"""Daily fact/preference lines and session decisions → facts.jsonl (seed 003 §4.3), and
retention of old daily files.

facts.jsonl is append-only between compactions: a changed fact is appended as a new version
with the same id, and readers fold by id (the last line wins). Now and then it is compacted
into a temp file renamed over the old one, so git merges and concurrent readers always see
whole lines, never a partial rewrite.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from . import jsonl
from .config import load_config, now, parse_time
from .locks import lock_fd, unlock_fd
from .text import normalize

# Near-duplicates by embedding: cosine at or above this, and the same numbers in both.
# Measured on ../shared/bench/devmem with the offline test model: the most similar pair
# that is NOT the same fact scores 0.948 (see docs/benchmarks.md, "Consolidation").
# It depends on the model: `dedup_threshold` in config.json.
DEDUP_THRESHOLD = 0.95
RETENTION_DAYS = 90
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


@dataclass
class Report:
    new: int = 0  # facts created
    merged: int = 0  # lines that joined an existing fact
    pruned: list = field(default_factory=list)  # daily files removed
    kept: list = field(default_factory=list)  # old daily files kept: not yet consolidated
    compacted: bool = False


def fact_id(content: str) -> str:
    """Stable and collision-free: the hash of the normalised text."""
    return "fact-" + hashlib.sha1(normalize(content).encode("utf-8")).hexdigest()[:16]


def read_facts(root: Path) -> dict:
    """facts.jsonl folded by id (the last version of each wins), in first-seen order."""
    path = Path(root) / "facts.jsonl"
    if not path.exists():
        return {}
    folded: dict = {}
    for _, rec in jsonl.read(path).records:
        if isinstance(rec.get("id"), str) and isinstance(rec.get("content"), str):
            folded[rec["id"]] = rec
    return folded


def _consolidates(r: dict) -> bool:
    """A daily line that belongs in facts.jsonl (and keeps its day from being pruned until
    it is there)."""
    return (r.get("type") in ("fact", "preference") and isinstance(r.get("id"), str)
            and isinstance(r.get("content"), str) and bool(r["content"].strip())
            and isinstance(r.get("timestamp"), str))


def corrections(root: Path) -> tuple[dict, dict]:
    """({forgotten id: reason}, {superseded id: id of the record replacing it}) from the
    daily files: tombstones and facts saved with `supersedes`."""
    forgotten, superseded = {}, {}
    daily = Path(root) / "daily"
    for path in sorted(daily.glob("*.jsonl")) if daily.is_dir() else []:
        for _, r in jsonl.read(path).records:
            if r.get("type") == "forget" and isinstance(r.get("target"), str):
                forgotten[r["target"]] = r.get("reason") or ""
            elif isinstance(r.get("supersedes"), str) and isinstance(r.get("id"), str):
                superseded[r["supersedes"]] = r["id"]
    return forgotten, superseded


def _candidates(root: Path, hidden=frozenset()):
    """Daily fact/preference lines and session decisions, oldest first, without the lines
    that were forgotten or superseded:
    [(source id, content, memory_type, kind, entities, confidence, timestamp, source,
      supersedes)]."""
    out = []
    daily = Path(root) / "daily"
    for path in sorted(daily.glob("*.jsonl")) if daily.is_dir() else []:
        for _, r in jsonl.read(path).records:
            if _consolidates(r) and r["id"] not in hidden:
                out.append((r["id"], r["content"].strip(), r.get("memory_type") or "W", r["type"],
                            r.get("entities") if isinstance(r.get("entities"), list) else [],
                            r.get("confidence", 1.0), r["timestamp"],
                            {"file": f"daily/{path.name}", "id": r["id"]},
                            r.get("supersedes") if isinstance(r.get("supersedes"), str) else None))
    sessions = Path(root) / "sessions.jsonl"
    if sessions.exists():
        for _, r in jsonl.read(sessions).records:
            decisions = r.get("decisions")
            if isinstance(decisions, list) and isinstance(r.get("id"), str):
                for i, d in enumerate(decisions):
                    if isinstance(d, str) and d.strip():
                        out.append((f"{r['id']}#d{i + 1}", d.strip(), "S", "fact", [], 1.0,
                                    str(r.get("timestamp", "")),
                                    {"file": "sessions.jsonl", "id": r["id"]}, None))
    out.sort(key=lambda c: c[6])
    return out


def _numbers(text: str) -> frozenset:
    return frozenset(_NUMBER.findall(text))


def consolidate(mem, embedder=None) -> Report:
    """Fold every not-yet-consolidated line into facts.jsonl. The same normalised text joins
    its fact; with a model, so does a near-duplicate (see DEDUP_THRESHOLD). Tombstones and
    `supersedes` are applied as new versions (status forgotten / superseded). Idempotent."""
    root = mem.root
    report = Report()
    facts = read_facts(root)
    forgotten, superseded = corrections(root)
    owner = {e: fid for fid, f in facts.items() for e in f.get("evidence") or []}
    by_norm = {normalize(f["content"]): fid for fid, f in facts.items() if _active(f)}
    todo = [c for c in _candidates(root, set(forgotten) | set(superseded)) if c[0] not in owner]
    changed: dict = {}
    if todo:
        threshold = _threshold(root)
        vectors = _vectors(mem, embedder, facts, todo) if embedder is not None else None
        for cand in todo:
            sid, content, mtype, kind, entities, conf, stamp, source, replaces = cand
            fid = None if replaces else by_norm.get(normalize(content))
            if fid is None and vectors is not None and not replaces:
                fid = vectors.nearest(sid, content, threshold)
            if fid is not None and fid in facts:
                f = dict(facts[fid])
                f["evidence"] = list(dict.fromkeys((f.get("evidence") or []) + [sid]))
                f["entities"] = list(dict.fromkeys((f.get("entities") or []) + entities))
                f["confidence"] = max(float(f.get("confidence") or 0), _conf(conf))
                f["updated_at"] = max(str(f.get("updated_at") or ""), stamp)
                report.merged += 1
            else:
                fid = fact_id(content)
                if fid in facts and _active(facts[fid]):
                    continue  # same text as a fact whose evidence we lost track of
                f = {"id": fid, "type": mtype if mtype in ("W", "B", "O", "S") else "W",
                     "kind": kind, "content": content, "entities": entities,
                     "confidence": _conf(conf), "evidence": [sid], "source": source,
                     "created_at": stamp, "updated_at": stamp}
                if replaces:
                    f["supersedes"] = owner.get(replaces, replaces)
                by_norm[normalize(content)] = fid
                report.new += 1
                if vectors is not None:
                    vectors.add(fid, sid, content)
            facts[fid] = f
            owner[sid] = fid
            changed[fid] = f
    for fid, f in list(facts.items()):
        status = _status(fid, f, facts, owner, forgotten, superseded)
        if status != f.get("status", "active"):
            f = dict(f, status=status)
            if status == "superseded":
                f["superseded_by"] = _replacement(fid, f, owner, superseded, facts)
            facts[fid] = changed[fid] = f
    if changed:
        jsonl.append(root / "facts.jsonl", list(changed.values()))
    report.compacted = compact_if_needed(root)
    return report


def _active(f: dict) -> bool:
    return f.get("status", "active") == "active"


def _status(fid, f, facts, owner, forgotten, superseded) -> str:
    evidence = f.get("evidence") or []
    if fid in forgotten or (evidence and all(e in forgotten for e in evidence)):
        return "forgotten"
    if fid in superseded or any(e in superseded for e in evidence) or any(
            g.get("supersedes") == fid for g in facts.values() if g is not f and _active(g)):
        return "superseded"
    return "active"


def _replacement(fid, f, owner, superseded, facts) -> str | None:
    for g in facts.values():
        if g.get("supersedes") == fid:
            return g["id"]
    for key in [fid, *(f.get("evidence") or [])]:
        if key in superseded:
            return owner.get(superseded[key], superseded[key])
    return None


def _conf(value) -> float:
    try:
        c = float(value)
    except (TypeError, ValueError):
        return 1.0
    return min(1.0, max(0.0, c))


def _threshold(root: Path) -> float:
    try:
        return float(load_config(root).get("dedup_threshold", DEDUP_THRESHOLD))
    except (TypeError, ValueError):
        return DEDUP_THRESHOLD


class _Vectors:
    """Cosine search over the facts so far, using vectors already in the index where it has
    them and embedding the rest."""

    def __init__(self, embedder, known: dict, texts: dict):
        import numpy as np
        self.np = np
        self.embedder = embedder
        self.known = known  # id -> vector (facts and lines)
        missing = [k for k in texts if k not in known]
        if missing:
            for k, v in zip(missing, embedder.embed([texts[k] for k in missing])):
                self.known[k] = v
        self.ids: list = []
        self.rows: list = []
        self.numbers: list = []

    def add(self, fid, source_id, content):
        v = self.known.get(source_id)
        if v is not None:
            self.ids.append(fid)
            self.rows.append(v)
            self.numbers.append(_numbers(content))

    def nearest(self, source_id, content, threshold):
        v = self.known.get(source_id)
        if v is None or not self.rows:
            return None
        sims = self.np.vstack(self.rows) @ v
        nums = _numbers(content)
        for i in self.np.argsort(-sims):
            if sims[i] < threshold:
                return None
            if self.numbers[i] == nums:
                return self.ids[i]
        return None


def _vectors(mem, embedder, facts: dict, todo: list):
    import numpy as np

    from . import vectors as vec

    texts = {fid: f["content"] for fid, f in facts.items()}
    texts.update({c[0]: c[1] for c in todo})

    def known(conn):
        if not vec.usable(conn, embedder.identity):
            return {}
        return {cid: np.frombuffer(blob, dtype=np.float32)
                for cid, blob in conn.execute(
                    "SELECT c.id, v.embedding FROM chunks c JOIN chunks_vec v ON v.rowid = c.pk "
                    "WHERE c.vec_hash = c.hash AND c.source_file != 'MEMORY.md'")
                if cid in texts}

    index = _Vectors(embedder, mem._run(known, vectors=True), texts)
    for fid, f in facts.items():
        index.add(fid, fid, f["content"])
    return index


def compact_if_needed(root: Path, *, force: bool = False) -> bool:
    """Rewrite facts.jsonl as one line per fact when old versions make up over half of it.
    Under the file's lock (appenders wait, then see the new file), via temp + rename."""
    path = Path(root) / "facts.jsonl"
    if not path.exists():
        return False
    fd = os.open(path, os.O_RDWR)
    try:
        lock_fd(fd)
        try:
            if os.stat(path).st_ino != os.fstat(fd).st_ino:
                return False  # someone else compacted it meanwhile
            batch = jsonl.read(path)
            folded = {}
            for _, rec in batch.records:
                if isinstance(rec.get("id"), str):
                    folded[rec["id"]] = rec
            if not force and (len(batch.records) < 50 or len(batch.records) <= 2 * len(folded)):
                return False
            tmp = path.with_name(f"facts.jsonl.{os.getpid()}.tmp")
            with open(tmp, "w", encoding="utf-8") as f:
                for rec in folded.values():
                    f.write(jsonl.dumps(rec) + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
            return True
        finally:
            unlock_fd(fd)
    finally:
        os.close(fd)


def prune(mem, facts: dict | None = None) -> tuple[list, list]:
    """Delete daily files older than the retention (config `retention_days`, default 90),
    except a day holding a fact/preference line that no fact lists as evidence yet, or a
    correction (a tombstone or a `supersedes`: it must outlive what it corrects).
    facts.jsonl, sessions.jsonl and MEMORY.md are never touched."""
    try:
        days = int(load_config(mem.root).get("retention_days", RETENTION_DAYS))
    except (TypeError, ValueError):
        days = RETENTION_DAYS
    if days <= 0:
        return [], []
    cutoff = (now().astimezone() - timedelta(days=days)).date()
    facts = read_facts(mem.root) if facts is None else facts
    forgotten, superseded = corrections(mem.root)
    settled = {e for f in facts.values() for e in f.get("evidence") or []} | set(forgotten) | set(superseded)
    pruned, kept = [], []
    daily = mem.root / "daily"
    for path in sorted(daily.glob("*.jsonl")):
        try:
            day = parse_time(path.stem).date()
        except Exception:  # noqa: BLE001 - not a dated file: not ours to delete
            continue
        if day >= cutoff:
            continue
        recs = [r for _, r in jsonl.read(path).records]
        if any((_consolidates(r) and r["id"] not in settled) or r.get("type") == "forget"
               or isinstance(r.get("supersedes"), str) for r in recs):
            kept.append(path.name)
            continue
        path.unlink()
        pruned.append(path.name)
    return pruned, kept
