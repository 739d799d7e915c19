#!/usr/bin/env python3
"""MemDaily (MemSim, Zhang et al. 2024) as benchmark stores: the public Chinese
personal-assistant memory set with most stored messages chit-chat, the kind of data the
retrieval issue's hidden "noisy Chinese personal memory" figure comes from.

Each MemDaily trajectory (a user's 4-20 messages about their people, things, places and
events, and one question whose evidence is `target_step_id`) becomes a store of its own, as
in MemSim's benchmark: the messages in MemSim's stored form ("<message> (消息地点 <place>,
消息时间 <time>)"), with N x that many Chinese chit-chat lines interleaved (MemSim's
memdaily_N; its own noise pool is not in the repository snapshot we could fetch, so the
noise is bench/data/chitchat/zh.jsonl, or another pool given by --pool). The question is
asked at its own time (the store's NOW file). The stores are then measured like any other,
by bench/retrieval.py and bench/ablate.py:

    git clone https://github.com/nuster1128/MemSim /tmp/MemSim
    python bench/memdaily.py --memsim /tmp/MemSim --split check --out /tmp/memdaily-check
    python bench/retrieval.py --data /tmp/memdaily-check --modes fts,hybrid,bm25 \\
        --out bench/results/memdaily-check.json
    python bench/ablate.py --data /tmp/memdaily-check --modes fts,bm25

Halves as retrieval.half_of makes them (a hash of the query id, "<file>:<trajectory id>");
20 trajectories of each of the 26 files by default. The data stays out of this repository.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "bench")]

import retrieval  # noqa: E402  (half_of: the halves of every other store)

FILES = "data_generation/final_dataset/messages_and_QAs"
_TIME = re.compile(r"(\d{4})年(\d{2})月(\d{2})日\s*\S*\s*(\d{2}):(\d{2})")


def iso(text: str) -> str:
    """'2024年04月01日 周一 08:38' -> '2024-04-01T08:38:00+08:00'."""
    y, mo, d, h, mi = _TIME.search(text).groups()
    return f"{y}-{mo}-{d}T{h}:{mi}:00+08:00"


def trajectories(root: Path, split: str, per_file: int):
    """(file stem, trajectory) of the chosen half, per_file of each file (0: all)."""
    for path in sorted((root / FILES).glob("*.json")):
        picked = [t for t in json.loads(path.read_text(encoding="utf-8"))
                  if t.get("question_list") and (
                      split == "all" or retrieval.half_of("memdaily", f"{path.stem}:{t['tid']}") == split)]
        yield from ((path.stem, t) for t in (picked[:per_file] if per_file else picked))


def write_store(dest: Path, name: str, traj: dict, noise: list, factor: int, suffix: bool) -> None:
    """One trajectory as a store: its messages among factor x as many chit-chat lines, its
    question in queries.jsonl, the question's time in NOW."""
    rng = random.Random(f"{name}:{traj['tid']}")
    msgs = traj["message_list"]
    lines = rng.sample(noise, min(len(noise), factor * len(msgs)))
    slots = set(rng.sample(range(len(msgs) + len(lines)), len(msgs)))  # as infuse_noise.py
    records, m, n, stamp = [], 0, 0, iso(msgs[0]["time"])
    for pos in range(len(msgs) + len(lines)):
        if pos in slots:
            msg = msgs[m]
            stamp = iso(msg["time"])  # a noise line is said at the time of the message before it
            text = (f"{msg['message']} (消息地点 {msg['place']}, 消息时间 {msg['time']})" if suffix
                    else msg["message"])
            records.append((f"md-{msg['mid']}", stamp, text))
            m += 1
        else:
            records.append((f"noise-{n}", stamp, lines[n]))
            n += 1
    (dest / "daily").mkdir(parents=True)
    for rid, when, text in records:
        with open(dest / "daily" / f"{when[:10]}.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps({"id": rid, "type": "fact", "memory_type": "B", "content": text,
                                "entities": [], "confidence": 1.0, "timestamp": when,
                                "source": {"session": when[:10]}}, ensure_ascii=False) + "\n")
    q = traj["question_list"][0]
    query = {"qid": f"{name}:{traj['tid']}", "question": q["question"],
             "category_name": name.split("_", 1)[1].rsplit("_", 1)[0],
             "evidence_ids": [f"md-{s}" for s in q["target_step_id"]]}
    (dest / "queries.jsonl").write_text(json.dumps(query, ensure_ascii=False) + "\n", encoding="utf-8")
    (dest / "NOW").write_text(iso(q["time"]) + "\n", encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memsim", type=Path, required=True, help="a checkout of nuster1128/MemSim")
    ap.add_argument("--out", type=Path, required=True, help="a new folder for the stores")
    ap.add_argument("--split", default="tune", choices=("all", "tune", "check"))
    ap.add_argument("--per-file", type=int, default=20, help="trajectories of each file (0: all)")
    ap.add_argument("--noise", type=int, default=9, help="chit-chat lines per message (memdaily_N+1)")
    ap.add_argument("--no-suffix", action="store_true", help="store the bare message")
    ap.add_argument("--pool", type=Path, default=REPO / "bench/data/chitchat/zh.jsonl",
                    help="the chit-chat lines (JSONL of {content}); zh-second.jsonl is a second "
                         "writer's, to see how much the figure owes to one pool")
    args = ap.parse_args(argv)
    if not (args.memsim / FILES).is_dir():
        print(f"error: no {FILES} under {args.memsim}", file=sys.stderr)
        return 2
    if args.out.exists() and any(args.out.iterdir()):
        print(f"error: {args.out} is not empty", file=sys.stderr)
        return 2
    noise = [json.loads(x)["content"] for x in open(args.pool, encoding="utf-8")]
    n = 0
    for name, traj in trajectories(args.memsim, args.split, args.per_file):
        write_store(args.out / "memdaily" / f"{name}-{traj['tid']}", name, traj, noise, args.noise,
                    not args.no_suffix)
        n += 1
    print(f"{n} stores in {args.out / 'memdaily'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
