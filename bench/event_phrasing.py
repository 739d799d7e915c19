#!/usr/bin/env python3
"""How many questions of bench/data/event-phrasing `temporal.anchor` reads as labelled:
the event's words whole, and the stretch around it.

    python bench/event_phrasing.py    # a second; writes bench/results/event-phrasing.json/.md
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from sessions import labelled_sets_main  # noqa: E402

DATA = HERE / "data" / "event-phrasing"


def read_as(q: dict, found) -> str:
    """How `found` (temporal.anchor's reading of q) matches the label: "right" (no event
    where none is labelled, or the labelled event whole), "part" (an event that holds part
    of the labelled one or more), "wrong" or "none"."""
    if not q["anchored"]:
        return "right" if found is None else "wrong"
    if found is None:
        return "none"
    got, want = found.event.replace(" ", ""), q["event"].replace(" ", "")
    return "right" if got == want else "part" if got in want or want in got else "wrong"


def score(path: Path) -> dict:
    from memory_core.temporal import _STRETCH, anchor

    rows: dict = {}
    misses = []
    for line in path.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        kind = "anchored" if q["anchored"] else "not anchored"
        cell = rows.setdefault(kind, {"n": 0, "right": 0, "part": 0, "wrong": 0, "none": 0,
                                      "stretch": 0})
        found = anchor(q["q"])
        how = read_as(q, found)
        cell["n"] += 1
        cell[how] += 1
        if how == "right" and q["anchored"] and (found.first, found.last) == _STRETCH.get(q["relation"]):
            cell["stretch"] += 1
        if how != "right":
            misses.append({"q": q["q"], "label": q["event"], "read": found.event if found else None})
    return {"rows": rows, "misses": misses}


def render(results: dict) -> str:
    out = ["| set | questions | event read whole | part of it | another | none | whole, and the labelled stretch |",
           "|---|---|---|---|---|---|---|"]
    for name, r in results.items():
        for kind, c in r["rows"].items():
            out.append(f"| {name}, {kind} | {c['n']} | **{c['right']}** | {c['part']} | {c['wrong']} | "
                       f"{c['none']} | {c['stretch'] if kind == 'anchored' else '–'} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    return labelled_sets_main(argv, __doc__.splitlines()[0], DATA, HERE / "results" / "event-phrasing.json",
                              score, render, width=24)


if __name__ == "__main__":
    sys.exit(main())
