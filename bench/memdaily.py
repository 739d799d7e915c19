#!/usr/bin/env python3
"""MemDaily (MemSim, Zhang et al. 2024) as a retrieval benchmark: the public Chinese
personal-assistant memory set with most stored messages chit-chat, the kind of data the
retrieval issue's hidden "noisy Chinese personal memory" figure comes from.

Each MemDaily trajectory (a user's 4-20 messages about their people, things, places and
events, and one question whose evidence is `target_step_id`) becomes a store of its own, as
in MemSim's benchmark: the messages in MemSim's stored form ("<message> (消息地点 <place>,
消息时间 <time>)"), with N x that many Chinese chit-chat lines interleaved (MemSim's
memdaily_N; its own noise pool is not in the repository snapshot we could fetch, so the
noise is bench/data/chitchat/zh.jsonl). The question is asked at its own time.

    git clone https://github.com/nuster1128/MemSim /tmp/MemSim
    python bench/memdaily.py --memsim /tmp/MemSim --split tune          # 20 trajectories a file
    python bench/memdaily.py --memsim /tmp/MemSim --split check --per-file 0   # all 2,800

Halves by a stable hash of file and trajectory id (tune only on tune). The data stays out
of this repository; results go to bench/results/memdaily-<split>.{json,md}.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "bench")]

import retrieval  # noqa: E402  (score, summarise: the metrics of every other table)

FILES = "data_generation/final_dataset/messages_and_QAs"
_TIME = re.compile(r"(\d{4})年(\d{2})月(\d{2})日\s*\S*\s*(\d{2}):(\d{2})")


def iso(text: str) -> str:
    """'2024年04月01日 周一 08:38' -> '2024-04-01T08:38:00+08:00'."""
    y, mo, d, h, mi = _TIME.search(text).groups()
    return f"{y}-{mo}-{d}T{h}:{mi}:00+08:00"


def half_of(name: str, tid) -> str:
    return "tune" if int(hashlib.sha1(f"{name}:{tid}".encode()).hexdigest()[:8], 16) % 2 == 0 else "check"


def trajectories(root: Path, split: str, per_file: int):
    """(file stem, trajectory) of the chosen half, per_file of each file (0: all)."""
    for path in sorted((root / FILES).glob("*.json")):
        picked = [t for t in json.loads(path.read_text(encoding="utf-8"))
                  if t.get("question_list") and (split == "all" or half_of(path.stem, t["tid"]) == split)]
        yield from ((path.stem, t) for t in (picked[:per_file] if per_file else picked))


def write_store(dest: Path, name: str, traj: dict, noise: list, factor: int, suffix: bool) -> None:
    """One trajectory as a store: its messages among factor x as many chit-chat lines."""
    rng = random.Random(f"{name}:{traj['tid']}")
    msgs = traj["message_list"]
    lines = rng.sample(noise, min(len(noise), factor * len(msgs)))
    slots = sorted(rng.sample(range(len(msgs) + len(lines)), len(msgs)))  # as infuse_noise.py
    records, m, n = [], 0, 0
    for pos in range(len(msgs) + len(lines)):
        if m < len(msgs) and pos == slots[m]:
            msg = msgs[m]
            text = (f"{msg['message']} (消息地点 {msg['place']}, 消息时间 {msg['time']})" if suffix
                    else msg["message"])
            records.append({"id": f"md-{msg['mid']}", "stamp": iso(msg["time"]), "content": text})
            m += 1
        else:
            records.append({"id": f"noise-{n}", "stamp": None, "content": lines[n]})
            n += 1
    # a noise line is said at the time of the message before it (or after, at the start)
    stamps = [r["stamp"] for r in records]
    last = next(s for s in stamps if s)
    for r in records:
        last = r["stamp"] = r["stamp"] or last
    (dest / "daily").mkdir(parents=True)
    by_day: dict = {}
    for r in records:
        by_day.setdefault(r["stamp"][:10], []).append(
            {"id": r["id"], "type": "fact", "memory_type": "B", "content": r["content"],
             "entities": [], "confidence": 1.0, "timestamp": r["stamp"],
             "source": {"session": r["stamp"][:10]}})
    for day, recs in by_day.items():
        with open(dest / "daily" / f"{day}.jsonl", "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in recs)


def run(chosen, modes, noise, args) -> dict:
    """Each trajectory's store written, synced and asked its question, in every mode."""
    from memory_core import Memory
    import bm25

    rows = {m: [] for m in modes}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memdaily-") as work:
        for i, (name, traj) in enumerate(chosen):
            dest = Path(work) / f"{name}-{traj['tid']}"
            write_store(dest, name, traj, noise, args.noise, not args.no_suffix)
            q = traj["question_list"][0]
            gold = [f"md-{s}" for s in q["target_step_id"]]
            os.environ["CURSOR_MEMORY_NOW"] = iso(q["time"])
            mem = Memory(dest)
            mem.sync(embed=any(m in ("hybrid", "vector") for m in modes))
            for mode in modes:
                hits = (bm25.Index(dest).search(q["question"], 10) if mode == "bm25"
                        else mem.search(q["question"], limit=10, mode=mode, sync=False))
                rows[mode].append(dict(retrieval.score(gold, hits), qid=f"{name}:{traj['tid']}",
                                       category=name.split("_", 1)[1].rsplit("_", 1)[0],
                                       scenario=name.rsplit("_", 1)[1]))
            shutil.rmtree(dest)
            if i % 200 == 199:
                print(f"{i + 1} trajectories, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    os.environ.pop("CURSOR_MEMORY_NOW", None)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memsim", type=Path, required=True, help="a checkout of nuster1128/MemSim")
    ap.add_argument("--split", default="tune", choices=("all", "tune", "check"))
    ap.add_argument("--per-file", type=int, default=20, help="trajectories of each file (0: all)")
    ap.add_argument("--noise", type=int, default=9, help="chit-chat lines per message (memdaily_N+1)")
    ap.add_argument("--no-suffix", action="store_true", help="store the bare message")
    ap.add_argument("--modes", default="fts,hybrid,bm25")
    ap.add_argument("--ablate", action="store_true", help="each lever of bench/ablate.py off in turn")
    ap.add_argument("--only", help="with --ablate: these variants (names, comma-separated)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    modes = tuple(m for m in args.modes.split(",") if m)
    if not (args.memsim / FILES).is_dir():
        print(f"error: no {FILES} under {args.memsim}", file=sys.stderr)
        return 2

    from offline_model import MODEL_NAME, use_offline_model
    use_offline_model()
    noise = [json.loads(x)["content"] for x in open(REPO / "bench/data/chitchat/zh.jsonl", encoding="utf-8")]
    chosen = list(trajectories(args.memsim, args.split, args.per_file))
    started = time.perf_counter()
    if args.ablate:
        import ablate
        lines = ["| variant | what it switches off | " + " | ".join(f"{m} R@5 | {m} MRR" for m in modes) + " |",
                 "|---|---|" + "---|---|" * len(modes)]
        wanted = [w.strip() for w in args.only.split(",")] if args.only else None
        for name, what, apply in ablate.variants():
            if wanted and name.strip() not in wanted:
                continue
            undo: list = []
            apply(undo)
            try:
                rows = run(chosen, modes, noise, args)
            finally:
                for obj, attr, value in reversed(undo):
                    setattr(obj, attr, value)
            cells = [f"{retrieval.summarise(rows[m])['r5']:.3f} | {retrieval.summarise(rows[m])['mrr']:.3f}"
                     for m in modes]
            lines.append(f"| {name} | {what} | " + " | ".join(cells) + " |")
            print(lines[-1], file=sys.stderr)
        out = args.out or REPO / "bench" / "results" / f"ablation-memdaily-{args.split}.md"
        out.write_text("\n".join(lines) + "\n")
        print("\n".join(lines))
        return 0
    rows = run(chosen, modes, noise, args)
    table = ["| mode | trajectories | R@5 | R@10 | hit@5 | MRR@10 |", "|---|---|---|---|---|---|"]
    result = {}
    for mode in modes:
        o = retrieval.summarise(rows[mode])
        cats = {}
        for r in rows[mode]:
            cats.setdefault(r["category"], []).append(r)
        result[mode] = {"overall": o, "categories": {c: retrieval.summarise(v) for c, v in sorted(cats.items())},
                        "per_query": rows[mode]}
        table.append(f"| {mode} | {o['n']} | {o['r5']:.3f} | {o['r10']:.3f} | {o['hit5']:.3f} | {o['mrr']:.3f} |")
    cats = sorted(result[modes[0]]["categories"])
    table += ["", "R@5 by question type:", "", "| type | n | " + " | ".join(modes) + " |",
              "|---|---|" + "---|" * len(modes)]
    for c in cats:
        table.append(f"| {c} | {result[modes[0]]['categories'][c]['n']} | "
                     + " | ".join(f"{result[m]['categories'][c]['r5']:.3f}" for m in modes) + " |")
    out = args.out or REPO / "bench" / "results" / f"memdaily-{args.split}.json"
    doc = {"command": "python bench/memdaily.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "model": f"{MODEL_NAME} (offline test model)", "split": args.split, "noise": args.noise,
           "suffix": not args.no_suffix, "seconds": round(time.perf_counter() - started, 1),
           "results": result}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, ensure_ascii=False, indent=1))
    out.with_suffix(".md").write_text("\n".join(table) + "\n")
    print("\n".join(table))
    print(f"\n{doc['seconds']} s; wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
