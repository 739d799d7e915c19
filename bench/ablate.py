#!/usr/bin/env python3
"""Leave-one-out ablations of the retrieval levers (docs/retrieval.md): each lever switched
off in turn, everything else as shipped, through the same harness and metrics as
bench/retrieval.py. Switching happens in this process by patching module constants and
functions; nothing in memory_core reads an environment switch.

    python bench/ablate.py --split check --own                # the check halves and held-out stores
    python bench/ablate.py --split check --own --distract 9   # ... with 9x unrelated records mixed in
    python bench/ablate.py devmem --modes fts,hybrid --only "shipped,- dated list"
    python bench/ablate.py --grid about-share --split tune --own
    python bench/ablate.py --grid reply-lift --split tune --own
    python bench/ablate.py --fusion-cv --own                  # RRF k x vector weight, 5-fold

Writes bench/results/ablation.md (unless --out says otherwise). Embeddings are cached in
memory across variants (the same text gives the same vector), so only the first pass pays
for the model.
"""
from __future__ import annotations

import argparse
import re
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
    from memory_core import chunking, search, sync, temporal, text

    def no_dates(undo):
        real = temporal.parse

        def parse(query, now):
            hint = real(query, now)
            hint.start = hint.end = hint.anchor = None
            return hint
        _patch(temporal, "parse", parse, undo)

    def no_mentions(undo):
        _patch(temporal, "mentions", lambda text, written: [], undo)

    def no_digest(undo):
        _patch(search, "DIGEST_DAYS", -1, undo)

    def any_line(undo):
        _patch(sync, "_answered", lambda previous, speaker: previous and previous[0], undo)

    def whole_query(undo):
        _patch(temporal, "asked", lambda query: query, undo)

    def unweighted_about(undo):
        import math
        _patch(math, "log", lambda x: 1.0, undo)

    def no_event_bridge(undo):  # the keyword side still bridges; events are dated by
        dated = search.event_day  # their own words only

        def event_day(conn, event, filters):
            saved, search.BRIDGE = search.BRIDGE, False
            try:
                return dated(conn, event, filters)
            finally:
                search.BRIDGE = saved
        _patch(search, "event_day", event_day, undo)

    out = [
        ("shipped", "everything on", lambda undo: None),
        ("- neighbour context", "daily lines without the line before them (and so no replies: "
         "a reply is found by its context)",
         lambda undo: _patch(sync, "tail_of", lambda t: None, undo)),
        ("  context of any line", "every daily line gets the line before, not only a line of a "
         "conversation", any_line),
        ("  before memdaily", "both rules of the MemDaily round off: context of any line, time "
         "words of every sentence", lambda undo: (any_line(undo), whole_query(undo))),
        ("- parts", "long records not indexed by their lines",
         lambda undo: _patch(sync, "parts", lambda row: [], undo)),
        ("- context column", "entities, headings, topics and the neighbour line not scored "
         "(BM25_WEIGHTS = 1, 0, 0)",
         lambda undo: _patch(search, "BM25_WEIGHTS", (1.0, 0.0, 0.0), undo)),
        ("- postings budget", "every query term scored, however common",
         lambda undo: _patch(search, "POSTINGS_BUDGET", 10 ** 12, undo)),
        ("- replies", "a question's reply not lifted above it (REPLY_DEPTH = 0)",
         lambda undo: _patch(search, "REPLY_DEPTH", 0, undo)),
        ("- lines over parts", "a summary's part that repeats a line of its session keeps its "
         "place (PART_IN_LINE never met)",
         lambda undo: _patch(search, "PART_IN_LINE", 2.0, undo)),
        ("- summary shares session", "SESSION_SHARE = 0",
         lambda undo: _patch(search, "SESSION_SHARE", 0.0, undo)),
        ("  time of the whole query", "time words read in every sentence, not only the asking "
         "ones", whole_query),
        ("- dated list", "days named in the query not searched on their own", no_dates),
        ("- event anchors", "a time named by an event (\"the day before launch\", \"上线当天\") not "
         "searched", lambda undo: _patch(temporal, "_anchor", lambda query: None, undo)),
        ("- events across languages", "an event dated by records in its own words only, not "
         "also the glossary's other language (\"pilot launch\" and 试点上线)", no_event_bridge),
        ("- a calendar day as the event", "\"the week before August 3\" not counted from the day "
         "the calendar names", lambda undo: _patch(temporal, "_calendar_anchor",
                                                   lambda query, named: None, undo)),
        ("- replaced values after the current", "a question about now hides superseded records, "
         "as before 2026-11-27 (\"What is X now\")",
         lambda undo: _patch(search, "with_current", lambda conn, hits, filters, project=None: (
             [h for h in hits if h.status != "superseded"], {}), undo)),
        ("- newest/oldest first", "no promotion (ABOUT_DEPTH = 0)",
         lambda undo: _patch(search, "ABOUT_DEPTH", 0, undo)),
        ("  aboutness unweighted", "every query word counts 1, not by its rarity", unweighted_about),
        ("- days records name", "a record found only by its own date", no_mentions),
        ("- the days' summaries", "no digest of a short named stretch", no_digest),
        ("  promotion on bigrams", "aboutness from query bigrams, not words",
         lambda undo: _patch(search, "words", lambda q: [t for t, _ in text.weighted_terms(q)], undo)),
        ("- contraction stopwords", "s/t/d/ll/re/ve/m, per, via searched as words",
         lambda undo: _patch(text, "STOPWORDS_EN", text.STOPWORDS_EN - set(
             "s t d ll re ve m per via".split()), undo)),
        ("- the sentence that asks ×2", "ASKING_WEIGHT = 1",
         lambda undo: _patch(text, "ASKING_WEIGHT", 1, undo)),
        ("- conversation characters", "CONVERSATION_CHARS = False",
         lambda undo: _patch(text, "CONVERSATION_CHARS", False, undo)),
        ("- bridge across languages", "the question's own words only, no notes in the other "
         "language (BRIDGE = False)", lambda undo: _patch(search, "BRIDGE", False, undo)),
        ("- names as written", "HARBOR_BATTLE matched by its parts only, not first where written "
         "so (search.as_written)", lambda undo: _patch(search, "as_written",
                                                       lambda conn, found, names: found, undo)),
        ("- request frames", "\"give me\", \"tell me about\", 告诉我, 帮我 searched as words "
         "(text._REQUEST)", lambda undo: _patch(text, "_REQUEST", re.compile(r"(?!)"), undo)),
        ("- frame stopwords", "那边 这边 那里 这里 目前 当前 如今 searched as words",
         lambda undo: _patch(text, "STOPWORDS_ZH", text.STOPWORDS_ZH - set(
             "那边 这边 那里 这里 目前 当前 如今".split()), undo)),
        ("- no title in paths", "a MEMORY.md title stays in every section's heading path "
         "(chunking.title_of)", lambda undo: _patch(chunking, "title_of", lambda paths: None, undo)),
        ("- back then", "当时, 那阵子, \"back then\" name no past time: replaced values stay "
         "hidden (temporal._back_then)", lambda undo: _patch(temporal, "_back_then", lambda q: False, undo)),
        ("- a word the talk repeats", "a word two turns of a chat say counts once "
         "(REPEATED_WEIGHT = 1)", lambda undo: _patch(text, "REPEATED_WEIGHT", 1, undo)),
        ("- lines that say nothing", "\"收到\", \"have a good weekend\" stay on the candidate "
         "lists (search.saying_nothing)", lambda undo: _patch(
             search, "saying_nothing", lambda conn, pks: set(), undo)),
    ]

    levers = [apply for name, _, apply in out[1:] if not name.startswith("  ")]

    def all_off(undo):
        for apply in levers:
            apply(undo)
    out.append(("all of the above off", "every lever above off at once", all_off))
    return out


def newest_first(results: dict, mode: str) -> str:
    """Latest-value questions whose first hit is the newest value (the first gold id), over
    every store's "latest" categories: "k/n"."""
    rows = [r for entry in results.values() for r in entry["modes"][mode]["per_query"]
            if r["category"].startswith("latest")]
    return f"{int(sum(r['top1'] for r in rows))}/{len(rows)}"


def about_grid():
    """ABOUT_SHARE x ABOUT_DEPTH of newest-first, everything else as shipped."""
    from memory_core import search

    def setting(share, depth):
        return lambda undo: (_patch(search, "ABOUT_SHARE", share, undo),
                             _patch(search, "ABOUT_DEPTH", depth, undo))
    return [(f"share={s:g} depth={d}", "newest first", setting(s, d))
            for d in (5, 10, 20) for s in (0.4, 0.5, 0.6, 0.7, 0.8)]


def reply_grid():
    """REPLY_LIFT x REPLY_DEPTH: where a question's reply goes (below 1: after the
    question; 0: nowhere) and how many of the first hits may bring theirs."""
    from memory_core import search

    def setting(lift, depth):
        return lambda undo: (_patch(search, "REPLY_LIFT", lift, undo),
                             _patch(search, "REPLY_DEPTH", depth, undo))
    return [(f"lift={x:g} depth={d}", "replies", setting(x, d))
            for x, d in ((0, 10), (0.99, 10), (1.2, 3), (1.2, 5), (1.2, 10), (1.5, 10))]


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


def run_variant(apply, stores, modes, split, distract):
    undo: list = []
    apply(undo)
    try:
        with tempfile.TemporaryDirectory(prefix="cursor-memory-ablate-") as work:
            per_store = {s: retrieval.run_store(s, folder, modes, None, Path(work), split, distract)
                         for s, folder in stores}
    finally:
        for obj, attr, value in reversed(undo):
            setattr(obj, attr, value)
    return retrieval.build_results(per_store, modes)


def macro(results: dict, mode: str, metric: str = "r5") -> float:
    """The mean over datasets of each dataset's mean (LoCoMo's 997 queries do not outvote
    the rest)."""
    vals = [e["modes"][mode]["overall"][metric] for e in results.values()
            if e["modes"][mode]["overall"]["n"]]
    return sum(vals) / len(vals) if vals else 0.0


def fusion_cv(stores, split, distract, folds: int = 5, shipped: str = "k=2 w=0.3") -> str:
    """A fusion setting (RRF k x vector weight) chosen by k-fold cross-validation over
    queries (each fold's choice made on the other folds, by macro R@5), with the spread
    across folds."""
    import hashlib
    grid = fusion_grid()
    per_setting = {}
    for name, what, apply in grid:
        results = run_variant(apply, stores, ("hybrid",), split, distract)
        per_setting[name] = {ds: e["modes"]["hybrid"]["per_query"] for ds, e in results.items()}
        print(name, f"{macro(results, 'hybrid'):.3f}", file=sys.stderr)

    def fold_of(row):
        return int(hashlib.sha1(row["qid"].encode()).hexdigest()[:8], 16) % folds

    def score(name, keep):
        vals = []
        for ds, rows in per_setting[name].items():
            rs = [r["r5"] for r in rows if keep(fold_of(r))]
            if rs:
                vals.append(sum(rs) / len(rs))
        return sum(vals) / len(vals) if vals else 0.0

    lines = [f"| fold | chosen on the other folds | its R@5 on this fold | shipped ({shipped}) on this fold |",
             "|---|---|---|---|"]
    diffs = []
    for f in range(folds):
        best = max(per_setting, key=lambda n: score(n, lambda x: x != f))
        got, base = score(best, lambda x: x == f), score(shipped, lambda x: x == f)
        diffs.append(got - base)
        lines.append(f"| {f} | {best} | {got:.3f} | {base:.3f} |")
    lines.append("")
    lines.append(f"chosen minus shipped, per fold: {', '.join(f'{d:+.3f}' for d in diffs)} "
                 f"(spread {min(diffs):+.3f} to {max(diffs):+.3f})")
    overall = {n: score(n, lambda x: True) for n in per_setting}
    lines += ["", "| setting | macro R@5, all folds |", "|---|---|"]
    lines += [f"| {n} | {v:.3f} |" for n, v in sorted(overall.items(), key=lambda kv: -kv[1])[:12]]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("datasets", nargs="*")
    ap.add_argument("--data", type=Path, default=retrieval.DEFAULT_DATA)
    ap.add_argument("--own", action="store_true", help="also the stores of bench/data")
    ap.add_argument("--modes", default="hybrid")
    ap.add_argument("--split", default="all", choices=("all", "tune", "check"))
    ap.add_argument("--distract", type=int, default=0)
    ap.add_argument("--only", help="comma-separated variant names")
    ap.add_argument("--grid", choices=("fusion", "about-share", "reply-lift"))
    ap.add_argument("--fusion-grid", action="store_true", help="same as --grid fusion")
    ap.add_argument("--fusion-cv", action="store_true", help="fusion settings by 5-fold cross-validation")
    ap.add_argument("--configured-model", action="store_true",
                    help="embed with CURSOR_MEMORY_MODEL(_PATH) instead of the offline model")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    grid = "fusion" if args.fusion_grid else args.grid
    args.out = args.out or REPO / "bench" / "results" / (
        "fusion-cv.md" if args.fusion_cv else f"{grid or 'ablation'}"
        f"{'-' + args.split if args.split != 'all' else ''}{'-d' + str(args.distract) if args.distract else ''}.md")
    modes = tuple(m for m in args.modes.split(",") if m)

    from offline_model import use_offline_model
    if not args.configured_model:
        use_offline_model()
    cache_embeddings()
    stores = retrieval.find_stores(args.data, args.datasets)
    if args.own:
        stores += retrieval.find_stores(retrieval.OWN_DATA, args.datasets)
    if args.fusion_cv:
        table = fusion_cv(stores, args.split, args.distract)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(table + "\n")
        print(table)
        return 0
    names = sorted({retrieval.dataset_of(s) for s, _ in stores})
    lines = ["| variant | mode | " + " | ".join(f"{ds} R@5 / MRR" for ds in names)
             + " | macro R@5 | newest first |", "|---|---|" + "---|" * (len(names) + 2)]
    chosen = {"about-share": about_grid, "fusion": fusion_grid, "reply-lift": reply_grid}.get(grid, variants)()
    if args.only:
        wanted = [w.strip() for w in args.only.split(",")]
        chosen = [v for v in chosen if v[0].strip() in wanted]
    for name, what, apply in chosen:
        started = time.perf_counter()
        results = run_variant(apply, stores, modes, args.split, args.distract)
        for mode in modes:
            cells = []
            for ds in names:
                o = results[ds]["modes"][mode]["overall"]
                cells.append(f"{o['r5']:.3f} / {o['mrr']:.3f}" if o["n"] else "–")
            lines.append(f"| {name} | {mode} | " + " | ".join(cells) + f" | {macro(results, mode):.3f} | "
                         f"{newest_first(results, mode)} |")
        print(lines[-1], f"({what}; {time.perf_counter() - started:.0f} s)", file=sys.stderr)
    table = "\n".join(lines)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(f"python bench/ablate.py {' '.join(argv if argv is not None else sys.argv[1:])}\n\n"
                        + table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
