"""Distractor variants of a store (docs/retrieval.md "Distractors"): N times as many
unrelated records mixed into its daily files, so that most of what is stored is noise, as
in a real assistant's memory: chit-chat in Chinese and English (bench/data/chitchat, written
for this), other conversations (LoCoMo), and another project's notes (devmem or the held-out
store). Same-language noise comes first for a Chinese store. Deterministic per store.
"""
from __future__ import annotations

import json
import os
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# the shared benchmarks, where bench/retrieval.py reads them (a clone outside the project
# folder sets CURSOR_MEMORY_BENCH_DATA; without them the pool would silently lack LoCoMo)
SHARED = Path(os.environ.get("CURSOR_MEMORY_BENCH_DATA", REPO.parent / "shared" / "bench"))
OWN = REPO / "bench" / "data"


def _lines(path: Path):
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        text = r.get("content")
        if isinstance(text, str) and text.strip() and r.get("type", "fact") in ("fact", "preference", "action"):
            yield text


def _zh(text: str) -> bool:
    return sum("\u4e00" <= c <= "\u9fff" for c in text) > len(text) / 4


def pool(store: str) -> list:
    """Unrelated texts for a store: never its own records."""
    if not (SHARED / "locomo").is_dir():
        raise SystemExit(f"distractors need the shared benchmarks (LoCoMo, devmem) at {SHARED}: "
                         "set CURSOR_MEMORY_BENCH_DATA")
    out = list(_lines(OWN / "chitchat" / "zh.jsonl")) + list(_lines(OWN / "chitchat" / "en.jsonl"))
    for conv in sorted((SHARED / "locomo").glob("conv-*")):
        if f"locomo/{conv.name}" != store:
            for f in sorted((conv / "daily").glob("*.jsonl")):
                out += list(_lines(f))
    for other in (SHARED / "devmem", OWN / "heldout-devmem"):
        if other.name != store.split("/")[0]:
            for f in sorted((other / "daily").glob("*.jsonl")):
                out += list(_lines(f))
    return out


def mix_in(root: Path, store: str, factor: int, seed: int = 7, *, interleave: bool = False) -> int:
    """Add factor x (the store's records) distractor lines to its daily files: in sessions of
    their own (4-10 lines) spread over the store's dates, or with `interleave` inside the
    store's own conversations, around each record (the chit-chat of a real assistant's
    memory sits between the facts). Returns how many were added."""
    if interleave:
        return _interleave(root, store, factor, seed)
    rng = random.Random(f"{store}:{seed}")
    daily = sorted((root / "daily").glob("*.jsonl"))
    own = sum(1 for f in daily for _ in _lines(f))
    if (root / "sessions.jsonl").exists():
        own += sum(1 for _ in open(root / "sessions.jsonl", encoding="utf-8"))
    texts = pool(store)
    zh_store = sum(_zh(t) for f in daily for t in _lines(f)) > own / 2
    texts.sort(key=lambda t: (zh_store != _zh(t), rng.random()))  # same language first
    need = factor * own
    picked = [texts[i % len(texts)] for i in range(need)]  # past the pool: reused, new ids
    days = [f.stem for f in daily] or ["2026-01-01"]
    added, n, session = 0, 0, 0
    by_day: dict = {}
    while n < need:
        session += 1
        day = rng.choice(days)
        start = datetime.fromisoformat(day).replace(tzinfo=timezone.utc) + timedelta(
            minutes=rng.randrange(0, 23 * 60))
        for k in range(rng.randint(4, 10)):
            if n >= need:
                break
            stamp = (start + timedelta(minutes=k)).strftime("%Y-%m-%dT%H:%M:%SZ")
            by_day.setdefault(day, []).append({
                "id": f"noise-{session}-{k}", "type": "fact", "memory_type": "B",
                "content": picked[n], "entities": [], "confidence": 1.0, "timestamp": stamp,
                "session_id": f"noise-{session}"})
            n += 1
    for day, recs in by_day.items():
        with open(root / "daily" / f"{day}.jsonl", "a", encoding="utf-8") as f:
            for r in recs:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
                added += 1
    return added


def _interleave(root: Path, store: str, factor: int, seed: int) -> int:
    rng = random.Random(f"{store}:{seed}:interleave")
    texts = pool(store)
    daily = sorted((root / "daily").glob("*.jsonl"))
    zh_store = sum(_zh(t) for f in daily for t in _lines(f)) > sum(1 for f in daily for _ in _lines(f)) / 2
    texts.sort(key=lambda t: (zh_store != _zh(t), rng.random()))
    n = 0
    for path in daily:
        out = []
        for line in open(path, encoding="utf-8"):
            r = json.loads(line)
            if r.get("type") not in ("fact", "preference", "action") or not isinstance(r.get("timestamp"), str):
                out.append(r)
                continue
            source = r.get("source") if isinstance(r.get("source"), dict) else {}
            session = r.get("session_id") or source.get("session") or f"noise-of-{r['id']}"
            when = datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00"))
            before = rng.randint(0, factor)
            for k in range(factor):
                stamp = (when + timedelta(seconds=(k - before) * 20 + (1 if k >= before else -1)))
                noise = {"id": f"noise-{n}", "type": "fact", "memory_type": "B",
                         "content": texts[n % len(texts)], "entities": [], "confidence": 1.0,
                         "timestamp": stamp.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "source": {"session": session}}
                n += 1
                out.insert(len(out), noise) if k >= before else out.append(noise)
            # the record sits among its noise: `before` lines, the record, the rest
            head, tail = out[:len(out) - factor], out[len(out) - factor:]
            out = head + tail[:before] + [r] + tail[before:]
        with open(path, "w", encoding="utf-8") as f:
            for rec in out:
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return n
