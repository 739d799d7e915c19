#!/usr/bin/env python3
"""How often a line that says nothing ("收到", "好的好的", "have a good weekend";
`memory_core.small_talk`) is among a search's first five hits, with `search.saying_nothing`
taking such lines off the candidate lists and without it, on every question of each store
(both halves: this counts what a user sees, not what the labels reward). Hybrid, the offline
test model; the same stores as bench/retrieval.py.

    python bench/small_talk.py                     # ~6 min; writes bench/results/small-talk.json/.md
    python bench/small_talk.py persona-zh noisy-zh # some stores
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]
import retrieval  # noqa: E402

STORES = ["devmem", "heldout-devmem", "devmem-third", "devmem-fourth", "persona-zh", "noisy-zh",
          "madial-zh", "locomo"]


def count(name: str, folder: Path, work: Path) -> dict:
    """{"questions", "before", "after", "replies"} for one store: questions with a line that
    says nothing in the first five, without the filter and with it; of the latter, how many
    came as the reply to a question (with_replies), which the filter leaves in."""
    from memory_core import Memory, search, small_talk

    os.environ["CURSOR_MEMORY_NOW"] = retrieval.store_now(name, folder)
    dest = work / name.replace("/", "_")
    shutil.copytree(retrieval.records_of(folder), dest, ignore=shutil.ignore_patterns(
        "queries.jsonl", "index.sqlite*", "NOW", "README.md", "STORE"))
    mem = Memory(dest)
    mem.sync(embed=True)
    out = {"questions": 0, "before": 0, "after": 0, "replies": 0}
    real = search.saying_nothing
    try:
        for line in open(folder / "queries.jsonl", encoding="utf-8"):
            question = json.loads(line)["question"]
            out["questions"] += 1
            for key, empty in (("before", lambda conn, pks: set()), ("after", real)):
                search.saying_nothing = empty
                said = [h for h in mem.search(question, limit=5, mode="hybrid", sync=False)
                        if small_talk.says_nothing(h.content)]
                out[key] += bool(said)
                if key == "after" and said and all(h.reply_to for h in said):
                    out["replies"] += 1
    finally:
        search.saying_nothing = real
    return out


def markdown(rows: dict) -> str:
    lines = ["| store | questions | a line that says nothing in the first five: without the "
             "filter | with it | of which only as a reply |", "|---|---|---|---|---|"]
    for name, r in rows.items():
        n = r["questions"]
        lines.append(f"| {name} | {n} | {r['before']} ({r['before'] / n:.1%}) | "
                     f"{r['after']} ({r['after'] / n:.1%}) | {r['replies']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="*", default=STORES)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "small-talk.json")
    args = parser.parse_args(argv)
    from offline_model import use_offline_model
    use_offline_model()
    rows: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for data in (retrieval.OWN_DATA, retrieval.DEFAULT_DATA):
            for name, folder in retrieval.find_stores(data, args.stores):
                group = name.split("/")[0]
                r = count(name, folder, Path(tmp))
                total = rows.setdefault(group, {"questions": 0, "before": 0, "after": 0, "replies": 0})
                for k, v in r.items():
                    total[k] += v
    rows = {name: rows[name] for name in args.stores if name in rows}
    table = markdown(rows)
    print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"command": "python bench/small_talk.py " + " ".join(
        argv if argv is not None else sys.argv[1:]), "stores": rows}, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
