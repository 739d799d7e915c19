#!/usr/bin/env python3
"""What bounds text sync: the rows a sync wrote, inserted again with one bare executemany
into the same schema (the perf table's floor), and into variants that index less, down to
no Chinese handling at all and no FTS5 at all.

    python bench/perf.py --work /tmp/pw --sizes 100000 --only sync   # a store, once
    python bench/fts_insert.py /tmp/pw/store-100000 --rows 30000

Writes bench/results/fts-insert.json and .md.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "bench")]

from memory_core.index import SCHEMA  # noqa: E402
from memory_core.sync import _COLUMNS  # noqa: E402
from memory_core.text import _CJK_RUN, _TOKEN, index_terms  # noqa: E402
from perf import insert_rate, provenance, synced_rows  # noqa: E402


def _cut(text: str, tail) -> str:
    out = []
    for m in _TOKEN.finditer(text or ""):
        tok = m.group()
        if _CJK_RUN.match(tok) and len(tok) > 1:
            out.extend(tok[i:i + 2] for i in range(len(tok) - 1))
            out.extend(tail(tok))
        else:
            out.append(tok.lower())
    return " ".join(out)


VARIANTS = {  # name: (what it is, tokenizer function, schema)
    "ours": ("as indexed: words, Chinese bigrams and characters, the line's context",
             index_terms, SCHEMA),
    "bigrams": ("Chinese bigrams only, no single characters",
                lambda t: _cut(t, lambda tok: ()), SCHEMA),
    "last-char": ("bigrams and each run's last character (single characters as prefix "
                  "queries)", lambda t: _cut(t, lambda tok: tok[-1]), SCHEMA),
    "no-context": ("as indexed, without the neighbour line and heading context",
                   index_terms, SCHEMA.replace(
                       "cm_terms(new.entities || ' ' || coalesce(new.context, ''))",
                       "cm_terms(new.entities)")),
    "raw-text": ("the text as it is: no Chinese cutting (a Chinese run is one token)",
                 lambda t: t, SCHEMA),
    "no-fts": ("the chunks table alone, no full-text index", index_terms,
               re.sub(r"CREATE TRIGGER IF NOT EXISTS chunks_ai.*?END;", "", SCHEMA, flags=re.S)),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path, help="a memory folder with a synced index")
    ap.add_argument("--rows", type=int, default=30000)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each; the best is kept")
    ap.add_argument("--out", type=Path, default=REPO / "bench/results/fts-insert.json")
    args = ap.parse_args(argv)

    rows = synced_rows(args.store, args.rows)
    insert_rate(rows[:2000])  # warm up
    t = time.perf_counter()
    for content, entities, context in ((r[_COLUMNS.index("content")], r[_COLUMNS.index("entities")],
                                        r[_COLUMNS.index("context")]) for r in rows):
        index_terms(content)
        index_terms(f"{entities} {context or ''}")
    python_only = len(rows) / (time.perf_counter() - t)
    results = {name: {"what": what, "rows_per_second": max(insert_rate(rows, fn, schema)
                                                            for _ in range(args.repeat))}
               for name, (what, fn, schema) in VARIANTS.items()}
    results["tokenizer-python"] = {"what": "our Chinese cutting alone, in Python, no SQLite",
                                   "rows_per_second": python_only}
    command, commit = provenance("fts_insert.py", argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"command": command, "commit": commit, "rows": len(rows),
                                    "results": results}, indent=1) + "\n")
    lines = [f"# Inserting {len(rows):,} synced rows into FTS5 variants", "",
             f"`{command}` at {commit} (best of {args.repeat})", "",
             "| variant | rows/s | what |", "|---|---|---|"]
    lines += [f"| {k} | {v['rows_per_second']:,.0f} | {v['what']} |" for k, v in results.items()]
    text = "\n".join(lines) + "\n"
    args.out.with_suffix(".md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
