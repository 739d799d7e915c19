#!/usr/bin/env python3
"""How many questions of bench/data/order-intent `temporal.parse` reads as their label
(the newest value, the oldest, or neither), per set, label and language.

    python bench/order_intent.py      # a second; writes bench/results/order-intent.json/.md
"""
from __future__ import annotations

import json
import sys
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from sessions import labelled_sets_main  # noqa: E402

DATA = HERE / "data" / "order-intent"
NOW = datetime(2026, 10, 15, 12, tzinfo=timezone.utc)


def score(path: Path) -> dict:
    """{"rows": {label: {lang: [right, total]}}, "misses": [...]} for one set."""
    from memory_core.temporal import parse

    rows: dict = {}
    misses = []
    for line in path.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        got = parse(q["q"], NOW).order
        cell = rows.setdefault(q["order"] or "neither", {}).setdefault(q["lang"], [0, 0])
        cell[0] += got == q["order"]
        cell[1] += 1
        if got != q["order"]:
            misses.append({"q": q["q"], "label": q["order"] or "neither", "read": got or "neither"})
    return {"rows": rows, "misses": misses}


def render(results: dict) -> str:
    out = ["| set | label | zh | en | mix | all |", "|---|---|---|---|---|---|"]
    for name, r in results.items():
        for label, langs in r["rows"].items():
            cells = [f"{langs[x][0]}/{langs[x][1]}" if x in langs else "–" for x in ("zh", "en", "mix")]
            right, total = (sum(v[i] for v in langs.values()) for i in (0, 1))
            out.append(f"| {name} | {label} | " + " | ".join(cells) + f" | **{right}/{total}** |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    return labelled_sets_main(argv, __doc__.splitlines()[0], DATA, HERE / "results" / "order-intent.json",
                              score, render, width=6)


if __name__ == "__main__":
    sys.exit(main())
