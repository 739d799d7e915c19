#!/usr/bin/env python3
"""Leave-one-out ablations of the retrieval levers (docs/retrieval.md): each lever switched
off in turn, everything else as shipped, through the same harness and metrics as
bench/retrieval.py. Switching happens in this process by patching module constants and
functions; nothing in memory_core reads an environment switch.

    python bench/ablate.py                       # all shared datasets, hybrid (~4 min)
    python bench/ablate.py devmem --modes fts,hybrid
    python bench/ablate.py --fusion-grid         # RRF k x vector weight instead

Writes bench/results/ablation.md (unless --out says otherwise). Embeddings are cached in
memory across variants (the same text gives the same vector), so only the first pass pays
for the model.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import retrieval  # bench/retrieval.py: puts the repo first on sys.path

REPO = retrieval.REPO


def _patch(obj, name, value, undo):
    undo.append((obj, name, getattr(obj, name)))
    setattr(obj, name, value)


def variants():
    """[(name, what it switches off, apply(undo))]."""
    from memory_core import search, sync, temporal, text

    def no_dates(undo):
        real = temporal.parse

        def parse(query, now):
            hint = real(query, now)
            hint.start = hint.end = None
            return hint
        _patch(temporal, "parse", parse, undo)

    out = [
        ("shipped", "everything on", lambda undo: None),
        ("- neighbour context", "daily lines without the line before them",
         lambda undo: _patch(sync, "_tail", lambda t: None, undo)),
        ("- parts", "long records not indexed by their lines",
         lambda undo: _patch(sync, "parts", lambda row: [], undo)),
        ("- consolidated ×1.3", "CONSOLIDATED_BOOST = 0",
         lambda undo: _patch(search, "CONSOLIDATED_BOOST", 0.0, undo)),
        ("- summary shares session", "SESSION_SHARE = 0",
         lambda undo: _patch(search, "SESSION_SHARE", 0.0, undo)),
        ("- dated list", "days named in the query not searched on their own", no_dates),
        ("- newest/oldest first", "no promotion (ABOUT_DEPTH = 0)",
         lambda undo: _patch(search, "ABOUT_DEPTH", 0, undo)),
        ("  promotion on bigrams", "aboutness from query bigrams, not words",
         lambda undo: _patch(search, "words", text.query_terms, undo)),
        ("- contraction stopwords", "s/t/d/ll/re/ve/m, per, via searched as words",
         lambda undo: _patch(text, "STOPWORDS_EN", text.STOPWORDS_EN - set(
             "s t d ll re ve m per via".split()), undo)),
        ("- last line ×2", "LAST_LINE_WEIGHT = 1",
         lambda undo: _patch(text, "LAST_LINE_WEIGHT", 1, undo)),
        ("- conversation characters", "CONVERSATION_CHARS = False",
         lambda undo: _patch(text, "CONVERSATION_CHARS", False, undo)),
    ]

    levers = [apply for name, _, apply in out[1:] if not name.startswith("  ")]

    def all_off(undo):
        for apply in levers:
            apply(undo)
    out.append(("all of the above off", "every lever above off at once", all_off))
    return out


def fusion_grid():
    """RRF k x vector weight, everything else as shipped."""
    from memory_core import search

    def setting(k, w):
        return lambda undo: (_patch(search, "RRF_K", k, undo),
                             _patch(search, "VECTOR_WEIGHT", w, undo))
    return [(f"k={k:g} w={w:g}", "fusion", setting(k, w))
            for k in (1, 2, 3, 5, 10, 60) for w in (0.2, 0.3, 0.4, 0.5, 1.0)]


def cache_embeddings():
    import numpy as np

    from memory_core import embeddings

    cache: dict = {}
    embed, embed_query = embeddings.Embedder.embed, embeddings.Embedder.embed_query

    def cached_embed(self, texts):
        missing = [t for t in dict.fromkeys(texts) if ("d", t) not in cache]
        if missing:
            for t, v in zip(missing, embed(self, missing)):
                cache[("d", t)] = v
        if not texts:
            return embed(self, texts)
        return np.stack([cache[("d", t)] for t in texts])

    def cached_query(self, text):
        if ("q", text) not in cache:
            cache[("q", text)] = embed_query(self, text)
        return cache[("q", text)]

    embeddings.Embedder.embed, embeddings.Embedder.embed_query = cached_embed, cached_query


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("datasets", nargs="*")
    ap.add_argument("--data", type=Path, default=retrieval.DEFAULT_DATA)
    ap.add_argument("--modes", default="hybrid")
    ap.add_argument("--fusion-grid", action="store_true", help="RRF k x vector weight")
    ap.add_argument("--configured-model", action="store_true",
                    help="embed with CURSOR_MEMORY_MODEL(_PATH) instead of the offline model")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    args.out = args.out or REPO / "bench" / "results" / (
        "fusion.md" if args.fusion_grid else "ablation.md")
    modes = tuple(m for m in args.modes.split(",") if m)

    from offline_model import use_offline_model
    if not args.configured_model:
        use_offline_model()
    cache_embeddings()
    stores = retrieval.find_stores(args.data, args.datasets)
    lines = ["| variant | mode | " + " | ".join(
        f"{ds} R@5 / R@10 / MRR" for ds in sorted({retrieval.dataset_of(s) for s, _ in stores}))
        + " | devmem newest first |", "|---|---|" + "---|" * (len({retrieval.dataset_of(s)
                                                                    for s, _ in stores}) + 1)]
    for name, what, apply in (fusion_grid() if args.fusion_grid else variants()):
        undo: list = []
        apply(undo)
        started = time.perf_counter()
        try:
            with tempfile.TemporaryDirectory(prefix="cursor-memory-ablate-") as work:
                per_store = {s: retrieval.run_store(s, folder, modes, None, Path(work))
                             for s, folder in stores}
        finally:
            for obj, attr, value in reversed(undo):
                setattr(obj, attr, value)
        results = retrieval.build_results(per_store, modes)
        for mode in modes:
            cells = []
            for ds, entry in sorted(results.items()):
                o = entry["modes"][mode]["overall"]
                cells.append(f"{o['r5']:.3f} / {o['r10']:.3f} / {o['mrr']:.3f}")
            latest = results.get("devmem", {}).get("modes", {}).get(mode, {}).get(
                "categories", {}).get("latest-value")
            lines.append(f"| {name} | {mode} | " + " | ".join(cells) + " | "
                         + (f"{latest['top1_is_first_gold']}/{latest['n']}" if latest else "")
                         + " |")
        print(lines[-1], f"({what}; {time.perf_counter() - started:.0f} s)", file=sys.stderr)
    table = "\n".join(lines)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
