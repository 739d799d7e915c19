"""Corrections without rewriting history: what the index hides, and why.

A tombstone (`forget`), a record saved with `supersedes`, and a facts.jsonl version whose
status is forgotten or superseded all become rows of the `corrections` table when synced.
`apply` turns them into `chunks.hidden`: the corrected record, the daily lines a hidden fact
was consolidated from, parts of a hidden record, and a fact all of whose sources were
forgotten or replaced. Search and the session context skip hidden chunks; `--history` shows
them with their status. docs/formats.md "Corrections".
"""
from __future__ import annotations

import json
from typing import NamedTuple

STATUSES = ("forgotten", "superseded")


class Correction(NamedTuple):
    id: str  # tombstone id, "<id>><target>" for a supersedes, "<fact id>!<status>"
    kind: str  # forgotten / superseded
    target: str  # the record it corrects
    by_id: str | None  # the record replacing it
    reason: str | None
    timestamp: str | None
    source_file: str


def rows_of(rel: str, record: dict) -> list:
    """The corrections a record carries: a tombstone, a `supersedes`, or a non-active
    facts.jsonl status."""
    rid = record.get("id")
    if not isinstance(rid, str):
        return []
    # a fact's time is when it was first made (updated_at moves on as copies join it)
    stamp = record.get("timestamp") or record.get("created_at") or record.get("updated_at")
    stamp = stamp if isinstance(stamp, str) else None
    reason = record.get("reason") if isinstance(record.get("reason"), str) else None
    out = []
    if record.get("type") == "forget" and isinstance(record.get("target"), str):
        out.append(Correction(rid, "forgotten", record["target"], None, reason, stamp, rel))
    if isinstance(record.get("supersedes"), str):
        out.append(Correction(f"{rid}>{record['supersedes']}", "superseded", record["supersedes"],
                              rid, None, stamp, rel))
    status = record.get("status")
    if rel == "facts.jsonl" and status in STATUSES:
        by = record.get("superseded_by")
        out.append(Correction(f"{rid}!{status}", status, rid, by if isinstance(by, str) else None,
                              None, stamp, rel))
    return out


def store_rows(conn, rel: str, record: dict, rows: list) -> None:
    """Write a record's corrections. A facts.jsonl line is a new version of its fact: the
    status the fact had before is dropped first (and only that: "G supersedes F" stays when
    F gets a new version)."""
    rid = record.get("id")
    if rel == "facts.jsonl" and isinstance(rid, str):
        conn.execute("DELETE FROM corrections WHERE id IN (?, ?)",
                     (f"{rid}!forgotten", f"{rid}!superseded"))
    conn.executemany("INSERT OR REPLACE INTO corrections VALUES (?,?,?,?,?,?,?)", rows)


def forget_file(conn, rel: str) -> int:
    """Drop the corrections a file gave (it is being read again whole)."""
    return conn.execute("DELETE FROM corrections WHERE source_file=?", (rel,)).rowcount


# chunks.hidden: a forgotten record is gone from every search; a superseded one was true
# once, so a question about a past time still finds it (search.Filters.past).
VISIBLE, FORGOTTEN, SUPERSEDED = 0, 1, 2


def apply(conn) -> int:
    """Recompute chunks.hidden from the corrections; returns how many chunks changed.
    Lookups only (the evidence table), so its cost follows the number of corrections, not
    the size of the store."""
    forgot = {t for (t,) in conn.execute("SELECT target FROM corrections WHERE kind = 'forgotten'")}
    replaced = {t for (t,) in conn.execute("SELECT target FROM corrections WHERE kind = 'superseded'")}
    # the same text saved again is the same fact (consolidation makes it one): replacing
    # one copy, or forgetting a whole fact, goes for every copy
    forgot |= _copies(conn, _facts_among(conn, forgot), "forgotten")
    replaced |= _copies(conn, replaced, "superseded")
    gone = _closure(conn, forgot)
    # a fact is superseded when any of its sources is (as consolidation marks it), forgotten
    # only when all are (one of two copies forgotten leaves the fact)
    level = ({i: SUPERSEDED for i in _closure(conn, replaced, every=False)}
             | {i: SUPERSEDED for i in _closure(conn, forgot | replaced)}
             | {i: FORGOTTEN for i in gone})
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS hide_ids(id TEXT PRIMARY KEY, level INTEGER)")
    conn.execute("DELETE FROM hide_ids")
    conn.executemany("INSERT OR IGNORE INTO hide_ids VALUES (?, ?)", level.items())
    changed = conn.execute("UPDATE chunks SET hidden=0 WHERE hidden != 0 AND id NOT IN "
                           "(SELECT id FROM hide_ids)").rowcount
    changed += conn.execute("UPDATE chunks SET hidden = (SELECT level FROM hide_ids h WHERE h.id = "
                            "chunks.id) WHERE id IN (SELECT id FROM hide_ids) AND hidden IS NOT "
                            "(SELECT level FROM hide_ids h WHERE h.id = chunks.id)").rowcount
    conn.execute("DELETE FROM hide_ids")
    return changed


def _facts_among(conn, ids: set) -> set:
    """The ids among these that are consolidated facts (facts.jsonl)."""
    return {i for (i,) in conn.execute(
        f"SELECT id FROM chunks WHERE source_file = 'facts.jsonl' AND id IN "
        f"({','.join('?' * len(ids))})", list(ids))} if ids else set()


def _copies(conn, ids: set, kind: str) -> set:
    """Facts and fact lines with the same normalised text (chunks.norm) as these, saved
    before the correction of that kind: one saved after it is news, and one that replaces
    something is a value of its own ("3600 → 86400 → 3600 again")."""
    if not ids:
        return set()
    marks = ",".join("?" * len(ids))
    return {i for (i,) in conn.execute(
        "SELECT c2.id FROM corrections k JOIN chunks c1 ON c1.id = k.target "
        "JOIN chunks c2 ON c2.norm = c1.norm AND c2.id != c1.id "
        f"WHERE k.kind = ? AND k.target IN ({marks}) AND c1.type IN ('fact', 'preference') "
        "AND c2.type IN ('fact', 'preference') AND c2.timestamp <= k.timestamp "
        "AND c2.id NOT IN (SELECT by_id FROM corrections WHERE by_id IS NOT NULL) "
        # forgetting "3600 again" does not forget the 3600 it replaced
        "AND (k.kind = 'superseded' OR c2.id NOT IN "
        "(SELECT target FROM corrections WHERE kind = 'superseded'))",
        [kind, *ids])}


def _closure(conn, targets: set, every: bool = True) -> set:
    """The corrected records and what goes with them: the records they were made from (the
    daily lines of a hidden fact) and those whose every source (with `every` False: any
    source) is among them (a fact; a part of a hidden record)."""
    if not targets:
        return set()
    targets = set(targets)
    for t in list(targets):  # "sum-X#d1", a decision of summary sum-X, goes with sum-X
        targets.update(i for (i,) in conn.execute(
            "SELECT DISTINCT item FROM evidence WHERE item >= ? AND item < ?", (t + "#", t + "$")))
    hidden = set(targets)
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS target_ids(id TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM target_ids")
    conn.executemany("INSERT OR IGNORE INTO target_ids VALUES (?)", [(t,) for t in targets])
    hidden.update(item for (item,) in conn.execute(
        "SELECT e.item FROM evidence e JOIN chunks c ON c.pk = e.pk "
        "WHERE c.id IN (SELECT id FROM target_ids)"))
    touched = [pk for (pk,) in conn.execute(
        "SELECT DISTINCT pk FROM evidence WHERE item IN (SELECT id FROM target_ids)")]
    for start in range(0, len(touched), 500):
        part = touched[start:start + 500]
        marks = ",".join("?" * len(part))
        items: dict = {}
        for pk, cid, item in conn.execute(
                f"SELECT e.pk, c.id, e.item FROM evidence e JOIN chunks c ON c.pk = e.pk "
                f"WHERE e.pk IN ({marks})", part):
            items.setdefault((pk, cid), []).append(item)
        test = all if every else any
        hidden.update(cid for (_, cid), ev in items.items() if test(i in hidden for i in ev))
    conn.execute("DELETE FROM target_ids")
    return hidden


def history(conn, ids) -> dict:
    """{chunk id: (status, replaced by)} for hidden chunks, for `--history` output."""
    ids = list(ids)
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = conn.execute(f"SELECT target, kind, by_id FROM corrections WHERE target IN ({marks}) "
                        f"ORDER BY coalesce(timestamp, ''), id", ids).fetchall()
    replaced = [(target, by) for target, kind, by in rows if kind == "superseded"]
    bys = sorted({by for _, by in replaced if by})
    gone = {i for (i,) in conn.execute(
        f"SELECT id FROM chunks WHERE hidden = {FORGOTTEN} AND id IN ({','.join('?' * len(bys))})",
        bys)} if bys else set()
    out = {target: ("superseded", by) for target, by in standing(replaced, gone).items()}
    out.update((target, (kind, by)) for target, kind, by in rows if kind == "forgotten")
    return out  # a tombstone wins


def statuses(conn, hidden: dict) -> dict:
    """{id: (status, replaced by)} for hidden chunks ({id: the ids it was made from}), as a
    search shows them: a fact hidden because a line it was made from was replaced says what
    replaced the line, and "replaced by" names the fact a replacing line was consolidated
    into (`shown_as`)."""
    out = history(conn, hidden) if hidden else {}
    through = {i: ev for i, ev in hidden.items() if i not in out}
    if through:
        lines = history(conn, {e for ev in through.values() for e in ev if isinstance(e, str)})
        for i, ev in through.items():
            out.update({i: lines[e] for e in ev if lines.get(e, ("",))[0] == "superseded"})
    shown = shown_as(conn, (by for _, by in out.values()))
    return {i: (what, shown.get(by, by)) for i, (what, by) in out.items()}


def shown_as(conn, ids) -> dict:
    """{id: the fact it was consolidated into} for those of `ids` that a fact lists as its
    evidence: search shows the fact in the line's place (search.collapse), so "superseded by"
    names what the reader sees, replaced since or not (a forgotten fact is never shown). The
    newest such fact, when there are several."""
    ids = sorted({i for i in ids if isinstance(i, str)})
    if not ids:
        return {}
    out: dict = {}
    for item, fact in conn.execute(
            "SELECT e.item, c.id FROM evidence e JOIN chunks c ON c.pk = e.pk "
            f"WHERE e.item IN ({','.join('?' * len(ids))}) AND c.hidden != {FORGOTTEN} "
            "AND c.source_file = 'facts.jsonl' AND c.id != e.item ORDER BY c.pk", ids):
        out[item] = fact
    return out


def standing(replaced: list, gone: set) -> dict:
    """{target: what replaced it} for (target, replacement) pairs in the order they were
    saved: the latest replacement not itself forgotten (`gone`), else the first ("superseded
    by" the value that stands, not by a correction taken back)."""
    out: dict = {}
    for target, by in replaced:
        if target not in out or by not in gone:
            out[target] = by
    return out


def current_versions(conn, starts: dict, before: str | None = None) -> dict:
    """{key: id of the visible record at the end of its supersede chain} for {key: [ids]}
    (a record's id and the lines it was consolidated from): of the records reachable through
    `supersedes` (a branch whose record was forgotten leads nowhere, a loop ends), the newest
    visible one; keys whose chains reach none are left out. `before` (UTC ISO): the newest
    one saved before then, replaced since or not: the value a stretch of time ended with.
    Three queries, however long the chains (a status line replaced every session for years)."""
    ids = sorted({i for group in starts.values() for i in group})
    if not ids:
        return {}
    edges: dict = {}
    for target, by in conn.execute(
            "WITH RECURSIVE reach(id) AS (SELECT value FROM json_each(?) UNION "
            "SELECT c.by_id FROM corrections c JOIN reach ON c.target = reach.id "
            "WHERE c.kind = 'superseded' AND c.by_id IS NOT NULL) "
            "SELECT c.target, c.by_id FROM corrections c JOIN reach ON c.target = reach.id "
            "WHERE c.kind = 'superseded' AND c.by_id IS NOT NULL", (json.dumps(ids),)):
        edges.setdefault(target, set()).add(by)
    reached = sorted({b for bs in edges.values() for b in bs})
    stamp: dict = {}  # visible records among them: id -> time
    for i in range(0, len(reached), 500):
        part = reached[i:i + 500]
        rows = conn.execute(f"SELECT id, coalesce(timestamp, ''), hidden FROM chunks WHERE id IN "
                            f"({','.join('?' * len(part))})", part).fetchall()
        stamp.update((i, t) for i, t, hidden in rows
                     if (hidden == VISIBLE if before is None else hidden != FORGOTTEN and t < before))
    post, seen = [], set()  # depth-first, iteratively: a chain of any length, loops end
    for start in ids:
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(sorted(edges.get(start, ()))))]
        while stack:
            node, nexts = stack[-1]
            step = next(nexts, None)
            if step is None:
                stack.pop()
                post.append(node)
            elif step not in seen:
                seen.add(step)
                stack.append((step, iter(sorted(edges.get(step, ())))))
    best: dict = {}  # id -> the newest visible record after it (its successors come first)
    for node in post:
        after = edges.get(node, ())
        found = [x for x in after if x in stamp] + [best[x] for x in after if best.get(x)]
        best[node] = max(found, key=lambda x: (stamp[x], x)) if found else None
    out = {}
    for key, group in starts.items():
        found = [best[i] for i in group if best.get(i)]
        if found:
            out[key] = max(found, key=lambda i: (stamp[i], i))
    return out


def replaced_at(conn, related: dict) -> dict:
    """{id: when it was first superseded (UTC ISO)} for {id: [ids it was made from]}: the
    time of the record replacing it, or of one of its sources ("sum-X#d1": sum-X), or of
    the fact it was consolidated into; ids with no known time are left out."""
    if not related:
        return {}
    items = {i: {i, *srcs, *(x.split("#", 1)[0] for x in srcs)} for i, srcs in related.items()}
    wanted = sorted(set().union(*items.values()))
    marks = ",".join("?" * len(wanted))
    owners: dict = {}
    for item, cid in conn.execute(f"SELECT e.item, c.id FROM evidence e JOIN chunks c ON c.pk = "
                                  f"e.pk WHERE e.item IN ({marks})", wanted):
        owners.setdefault(item, set()).add(cid)
    for i in items:
        items[i] |= set().union(*(owners.get(x, set()) for x in list(items[i])))
    wanted = sorted(set().union(*items.values()))
    # a supersede's time is the replacing record's; a facts.jsonl status carries the
    # superseded fact's own first time, so for it the replacing fact's time is taken
    when = {t: ts for t, ts in conn.execute(
        "SELECT k.target, min(CASE WHEN k.id LIKE '%!superseded' THEN coalesce(c.timestamp, "
        "k.timestamp) ELSE k.timestamp END) FROM corrections k "
        "LEFT JOIN chunks c ON c.id = k.by_id WHERE k.kind = 'superseded' AND k.target IN "
        f"({','.join('?' * len(wanted))}) GROUP BY k.target", wanted) if ts}
    return _earliest(items, when)


def first_saved(conn, related: dict) -> dict:
    """{id: the earliest time it or a record it was made from was saved} for {id: [ids]}
    (a fact's own time moves on as copies join it)."""
    ids = sorted(set(related) | {x for srcs in related.values() for x in srcs})
    if not ids:
        return {}
    stamp = dict(conn.execute(f"SELECT id, timestamp FROM chunks WHERE timestamp IS NOT NULL AND id "
                              f"IN ({','.join('?' * len(ids))})", ids))
    return _earliest({i: (i, *srcs) for i, srcs in related.items()}, stamp)


def _earliest(related: dict, times: dict) -> dict:
    """{id: the earliest of the times known for the ids related to it}, unknown ones left out."""
    out = {}
    for i, ids in related.items():
        known = [times[x] for x in ids if x in times]
        if known:
            out[i] = min(known)
    return out


def forgotten(conn, record_id: str) -> bool:
    """Is there a tombstone for this id already?"""
    return conn.execute("SELECT 1 FROM corrections WHERE target = ? AND kind = 'forgotten' "
                        "LIMIT 1", (record_id,)).fetchone() is not None
