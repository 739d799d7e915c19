"""Corrections without rewriting history: what the index hides, and why.

A tombstone (`forget`), a fact saved with `supersedes`, and a facts.jsonl version whose
status is forgotten or superseded all become rows of the `corrections` table when synced.
`apply` turns them into `chunks.hidden`: the corrected record, the daily lines a hidden fact
was consolidated from, and a fact all of whose sources were forgotten. Search and the
session context skip hidden chunks; `--history` shows them with their status.
"""
from __future__ import annotations

import json


def rows_of(rel: str, record: dict) -> list:
    """corrections rows (id, kind, target, by_id, reason, timestamp, source_file) a record
    carries: a tombstone, a `supersedes`, or a non-active facts.jsonl status."""
    rid = record.get("id")
    stamp = record.get("timestamp") or record.get("updated_at")
    out = []
    if record.get("type") == "forget" and isinstance(record.get("target"), str):
        out.append((rid, "forgotten", record["target"], None, record.get("reason"), stamp, rel))
    if isinstance(record.get("supersedes"), str):
        out.append((f"{rid}>{record['supersedes']}", "superseded", record["supersedes"], rid,
                    None, stamp, rel))
    status = record.get("status")
    if rel == "facts.jsonl" and status in ("forgotten", "superseded"):
        out.append((f"{rid}!{status}", status, rid, record.get("superseded_by"), None, stamp, rel))
    return out


def store(conn, rel: str, records, *, whole: bool) -> int:
    """Write the corrections found in records read from `rel`; on a whole re-read, first
    drop the ones that file had."""
    if whole:
        conn.execute("DELETE FROM corrections WHERE source_file=?", (rel,))
    rows = [row for r in records for row in rows_of(rel, r)]
    if rel == "facts.jsonl":  # a newer version of a fact replaces its older status
        ids = {r.get("id") for r in records if isinstance(r.get("id"), str)}
        conn.executemany("DELETE FROM corrections WHERE source_file='facts.jsonl' AND target=?",
                         [(i,) for i in ids])
    conn.executemany("INSERT OR REPLACE INTO corrections VALUES (?,?,?,?,?,?,?)", rows)
    return len(rows)


_DIGESTS = "('facts.jsonl', 'sessions.jsonl', 'MEMORY.md')"


def apply(conn) -> int:
    """Recompute chunks.hidden from the corrections; returns how many chunks changed."""
    targets = {t for (t,) in conn.execute("SELECT DISTINCT target FROM corrections")}
    hidden = set(targets)
    if targets:
        # the daily lines a hidden fact was made from
        marks = ",".join("?" * len(targets))
        for (evidence,) in conn.execute(
                f"SELECT evidence FROM chunks WHERE id IN ({marks})", list(targets)):
            hidden.update(json.loads(evidence or "[]"))
        # a fact whose every source was forgotten or replaced (or a part of a hidden record).
        # Only these files' chunks have evidence other than themselves: scanning just them
        # keeps every sync that changes something from reading all 100k daily lines' JSON.
        for cid, evidence in conn.execute(
                "SELECT DISTINCT c.id, c.evidence FROM chunks c, json_each(c.evidence) e "
                f"WHERE c.source_file IN {_DIGESTS} AND e.value IN ({marks})", list(targets)):
            ev = json.loads(evidence or "[]")
            if ev and all(e in hidden for e in ev):
                hidden.add(cid)
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS hide_ids(id TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM hide_ids")
    conn.executemany("INSERT OR IGNORE INTO hide_ids VALUES (?)", [(h,) for h in hidden])
    changed = conn.execute("UPDATE chunks SET hidden=0 WHERE hidden=1 AND id NOT IN "
                           "(SELECT id FROM hide_ids)").rowcount
    changed += conn.execute("UPDATE chunks SET hidden=1 WHERE hidden=0 AND id IN "
                            "(SELECT id FROM hide_ids)").rowcount
    conn.execute("DELETE FROM hide_ids")
    return changed


def history(conn, ids) -> dict:
    """{chunk id: (status, replaced by)} for hidden chunks, for `--history` output."""
    out = {}
    ids = list(ids)
    if not ids:
        return out
    marks = ",".join("?" * len(ids))
    for target, kind, by in conn.execute(
            f"SELECT target, kind, by_id FROM corrections WHERE target IN ({marks})", ids):
        if kind == "forgotten" or target not in out:
            out[target] = (kind, by)
    return out
