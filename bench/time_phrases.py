#!/usr/bin/env python3
"""How `temporal.parse` reads the stretch each question of bench/data/time-phrases names:
exactly, a stretch that holds it, one that overlaps it, a wrong one, or none, per set and
language; and for a question that names no stretch ("the 30-day retention policy", start
null), whether it is left unread ("quiet") or given one ("misread").

    python bench/time_phrases.py      # a second; writes bench/results/time-phrases.json/.md
"""
from __future__ import annotations

import json
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

DATA = HERE / "data" / "time-phrases"
NOW = {"first": datetime(2026, 9, 30, 10, tzinfo=timezone.utc),
       "second": datetime(2027, 3, 14, 10, tzinfo=timezone.utc),
       "third": datetime(2027, 7, 6, 10, tzinfo=timezone.utc)}
KINDS = ("exact", "holds", "overlaps", "wrong", "none")
NEGATIVE_KINDS = ("quiet", "misread")


def reading(query: str, now: datetime, start: date | None, end: date | None) -> tuple:
    """(kind, (first, last) read or None) for one question; start None: it names none."""
    from memory_core.temporal import parse

    hint = parse(query, now)
    if hint.start is None:
        return ("none" if start is not None else "quiet"), None
    got = (hint.start.date(), (hint.end - timedelta(days=1)).date())
    if start is None:
        return "misread", got
    if got == (start, end):
        return "exact", got
    if got[0] <= start and got[1] >= end:
        return "holds", got
    return ("overlaps" if got[0] <= end and got[1] >= start else "wrong"), got


def score(name: str) -> dict:
    rows: dict = {}
    misses = []
    negatives: dict = {}
    for q in json.loads((DATA / f"{name}.json").read_text(encoding="utf-8")):
        named = q["start"] is not None
        kind, got = reading(q["query"], NOW[name],
                            date.fromisoformat(q["start"]) if named else None,
                            date.fromisoformat(q["end"]) if named else None)
        cell = (rows if named else negatives).setdefault(
            q["lang"], dict.fromkeys(KINDS if named else NEGATIVE_KINDS, 0))
        cell[kind] += 1
        if kind not in ("exact", "quiet"):
            misses.append({"query": q["query"], "want": [q["start"], q["end"]], "kind": kind,
                           "read": [d.isoformat() for d in got] if got else None})
    return {"now": NOW[name].isoformat(), "rows": rows, "negatives": negatives, "misses": misses}


def render(results: dict) -> str:
    out = ["| set | language | questions | " + " | ".join(KINDS) + " |",
           "|---|---|---|" + "---|" * len(KINDS)]
    for name, res in results.items():
        total = dict.fromkeys(KINDS, 0)
        for lang, cell in sorted(res["rows"].items()):
            out.append(f"| {name} | {lang} | {sum(cell.values())} | "
                       + " | ".join(str(cell[k]) for k in KINDS) + " |")
            for k in KINDS:
                total[k] += cell[k]
        out.append(f"| **{name}** | all | {sum(total.values())} | "
                   + " | ".join(f"**{total[k]}**" for k in KINDS) + " |")
    out += ["", "Questions that name no stretch:", "",
            "| set | language | questions | " + " | ".join(NEGATIVE_KINDS) + " |",
            "|---|---|---|" + "---|" * len(NEGATIVE_KINDS)]
    for name, res in results.items():
        for lang, cell in sorted(res.get("negatives", {}).items()):
            out.append(f"| {name} | {lang} | {sum(cell.values())} | "
                       + " | ".join(str(cell[k]) for k in NEGATIVE_KINDS) + " |")
    return "\n".join(out) + "\n"


def main() -> int:
    results = {name: score(name) for name in NOW}
    table = render(results)
    print(table)
    out = HERE / "results"
    (out / "time-phrases.json").write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n",
                                           encoding="utf-8")
    (out / "time-phrases.md").write_text(
        "# Time phrases read by temporal.parse\n\n`python bench/time_phrases.py`\n\n" + table,
        encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
