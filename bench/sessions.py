"""The hooks as real sessions run them: a new conversation id every time, a fresh process,
a store as users have it; each figure beside its floor, measured in turns.

    python bench/sessions.py --work /tmp/sw                       # 10k and 100k, keyword-only
    python bench/sessions.py --work /tmp/sw --model test          # the offline test model
    python bench/sessions.py --work /tmp/sw --model standin --sizes 10000   # the default's shape

Rows (docs/benchmarks.md "Sessions"):
- sessionStart, new conversation: nothing new; 500 new lines since the last sync;
- sessionEnd after 0 / 50 / 500 (/ 5,000) new facts, on a store of N consolidated facts:
  wall time, what it finished, what it left for later;
- the first search after a burst of 500 new facts (hybrid, cold process);
- sessionStart on a 150k-record store with no index (a fresh clone): wall time, how much it
  indexed, whether the context came back; then the syncs that finish the job.

Writes bench/results/sessions.json and sessions.md (figures of other sizes and models kept).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from perf import NOW, PY, REPO, make_store, paired, provenance, sentence, stats  # noqa: E402

RESULTS = REPO / "bench" / "results"
HOOK = str(REPO / "scripts" / "hook.py")


def model_env(kind: str, work: Path) -> dict:
    """Environment for a model: none (keyword-only), the offline test model, or the
    production-shaped stand-in (bench/standin_model.py)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURSOR_MEMORY")}
    env["CURSOR_MEMORY_NOW"] = NOW
    env["PYTHONPATH"] = str(REPO)
    if kind == "none":
        env["CURSOR_MEMORY_MODEL"] = "none/keyword-only"
    elif kind == "test":
        sys.path.insert(0, str(REPO / "tests"))
        from offline_model import use_offline_model
        use_offline_model(env)
    elif kind == "standin":
        from standin_model import build
        env["CURSOR_MEMORY_MODEL"] = "jinaai/jina-embeddings-v2-base-zh"
        build(work / "standin")  # returns the model file; fastembed is given its folder
        env["CURSOR_MEMORY_MODEL_PATH"] = str(work / "standin")
    else:
        raise SystemExit(f"unknown model {kind!r}")
    return env


def payload(event: str, project: Path, **fields) -> str:
    conv = os.urandom(8).hex()
    return json.dumps(dict({"hook_event_name": event, "conversation_id": conv, "session_id": conv,
                            "generation_id": conv, "workspace_roots": [str(project)]}, **fields))


def hook(event: str, project: Path, env: dict, **fields) -> dict:
    t = time.perf_counter()
    out = subprocess.run([PY, HOOK, event], input=payload(event, project, **fields), env=env,
                         capture_output=True, text=True, timeout=300)
    seconds = time.perf_counter() - t
    answer = json.loads(out.stdout or "{}")
    return {"seconds": seconds, "answer": answer}


def in_env(env: dict, code: str) -> str:
    out = subprocess.run([PY, "-c", code], env=env, capture_output=True, text=True, timeout=7200)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return out.stdout


def project_with_facts(work: Path, n: int, env: dict) -> Path:
    """A project whose memory holds n records (perf.make_store), all consolidated into
    facts.jsonl and indexed, made once and reused (a copy is measured)."""
    base = work / f"facts-{n}"
    root = base / ".cursor/skills/memory-data"
    if not (root / "facts.jsonl").exists():
        shutil.rmtree(base, ignore_errors=True)
        make_store(root, n)
        plain = dict(env, CURSOR_MEMORY_MODEL="none/keyword-only")
        in_env(plain, f"from memory_core import Memory; m = Memory({str(root)!r}); "
                      "m.sync(embed=False); m.consolidate(); m.sync(embed=False)")
    return base


def fresh_copy(base: Path, work: Path) -> Path:
    target = work / f"{base.name}-run"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(base, target, symlinks=True)
    return target


def add_facts(project: Path, n: int, day: str = "2026-10-15") -> None:
    import random

    from memory_core import jsonl
    rng = random.Random(n)
    path = project / ".cursor/skills/memory-data/daily" / f"{day}.jsonl"
    stamp = time.time_ns()
    jsonl.append(path, [{"id": f"log-{day.replace('-', '')}-120000-{stamp % 10**10:010d}{i:05d}",
                         "type": "fact", "memory_type": "W", "content": sentence(rng),
                         "entities": [], "confidence": 1.0, "timestamp": f"{day}T12:00:00Z",
                         "session_id": "burst"} for i in range(n)])


def state_of(project: Path) -> dict:
    import sqlite3
    db = sqlite3.connect(project / ".cursor/skills/memory-data/index.sqlite")
    try:
        chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        pending = db.execute("SELECT count(*) FROM chunks WHERE vec_have IS NOT vec_want").fetchone()[0]
        facts = db.execute("SELECT count(*) FROM chunks WHERE source_file='facts.jsonl' "
                           "AND instr(id, '#part-') = 0").fetchone()[0]
        unconsolidated = db.execute(
            "SELECT count(*) FROM chunks c WHERE c.source_file LIKE 'daily/%' AND c.type IN "
            "('fact','preference') AND c.hidden = 0 AND NOT EXISTS "
            "(SELECT 1 FROM evidence e WHERE e.item = c.id)").fetchone()[0]
        return {"chunks": chunks, "pending_vectors": pending, "facts": facts,
                "unconsolidated": unconsolidated}
    finally:
        db.close()


def bench_size(n: int, work: Path, env: dict, runs: int, bursts: list) -> dict:
    res: dict = {"records": n}
    keyword_only = not env.get("CURSOR_MEMORY_MODEL_PATH")
    base = project_with_facts(work, n, env)
    res["store_facts"] = state_of(base)["facts"]
    if env.get("CURSOR_MEMORY_MODEL_PATH"):  # vectors for what is there, as a user's store has
        in_env(env, f"from memory_core import Memory; Memory({str(base / '.cursor/skills/memory-data')!r}).embed()")
    project = fresh_copy(base, work)
    hook("sessionStart", project, env)
    res["session_start"], floor = paired([PY, HOOK, "sessionStart"], [PY, "-c", "import sqlite3"],
                                         runs, env, stdin=lambda: payload("sessionStart", project))
    res["session_start"]["floor_import_sqlite3"] = floor
    starts = []
    for _ in range(max(1, runs // 2)):
        add_facts(project, 500)
        starts.append(hook("sessionStart", project, env)["seconds"] * 1000)
    res["session_start_500_new"] = stats(starts)
    res["session_end"] = {}
    for burst in bursts:
        project = fresh_copy(base, work)
        hook("sessionEnd", project, env)  # whatever the copy had pending
        if burst:
            add_facts(project, burst)
        first = hook("sessionEnd", project, env)
        after = state_of(project)
        if keyword_only:  # no model: vectors are not work left undone
            after["pending_vectors"] = 0
        row = {"seconds": first["seconds"], **{f"left_{k}": v for k, v in after.items()
                                              if k in ("pending_vectors", "unconsolidated")}}
        followups = []
        while (after["pending_vectors"] or after["unconsolidated"]) and len(followups) < 40:
            followups.append(hook("sessionEnd", project, env)["seconds"])
            after = state_of(project)
            if keyword_only:
                after["pending_vectors"] = 0
        row.update(followups=len(followups), followup_seconds=sum(followups),
                   finished=not (after["pending_vectors"] or after["unconsolidated"]))
        res["session_end"][str(burst)] = row
    if env.get("CURSOR_MEMORY_MODEL_PATH"):
        project = fresh_copy(base, work)
        add_facts(project, 500)
        hook("sessionStart", project, env)  # the text index has them; no vectors yet
        t = time.perf_counter()
        out = subprocess.run([PY, str(REPO / "scripts/search_memory.py"), "deploy cache latency",
                              "--json", "--memory-dir", str(project / ".cursor/skills/memory-data")],
                             env=env, capture_output=True, text=True, timeout=600)
        res["first_search_after_500"] = {"seconds": time.perf_counter() - t,
                                         "keyword_only": json.loads(out.stdout)["keyword_only"]}
    shutil.rmtree(work / f"{base.name}-run", ignore_errors=True)
    return res


def bench_no_index(n: int, work: Path, env: dict) -> dict:
    """sessionStart on a store with no index (a fresh clone): what it answers and indexes in
    its budget; then how many more syncs (each a fresh process, as later hooks and searches
    are) finish the job, and the time of a single uninterrupted sync for comparison."""
    base = work / f"clone-{n}"
    root = base / ".cursor/skills/memory-data"
    if not (root / "MEMORY.md").exists():
        shutil.rmtree(base, ignore_errors=True)
        make_store(root, n)
    for p in root.glob("index.sqlite*"):
        p.unlink()
    first = hook("sessionStart", base, env)
    context = first["answer"].get("additional_context", "")
    res = {"records": n, "session_start_seconds": first["seconds"],
           "indexed_by_then": state_of(base)["chunks"],
           "context_chars": len(context), "context_has_core": "核心记忆" in context or "##" in context,
           "context_has_recent_facts": "Recent facts" in context}
    syncs = []
    while True:
        t = time.perf_counter()
        out = in_env(env, f"from memory_core import Memory; import time; r = Memory({str(root)!r})"
                          f".sync(embed=False, deadline=time.monotonic() + 4); print(r.complete)")
        syncs.append(time.perf_counter() - t)
        if out.strip() == "True" or len(syncs) > 100:
            break
    res.update(followup_syncs=len(syncs), followup_seconds=sum(syncs), chunks=state_of(base)["chunks"])
    for p in root.glob("index.sqlite*"):
        p.unlink()
    t = time.perf_counter()
    in_env(env, f"from memory_core import Memory; Memory({str(root)!r}).sync(embed=False)")
    res["one_sync_seconds"] = time.perf_counter() - t
    return res


def table(results: dict) -> str:
    lines = ["| model | store | what | ours | floor / note |", "|---|---|---|---|---|"]
    for model, sizes in sorted(results.items()):
        for key, r in sorted(sizes.items(), key=lambda kv: kv[0]):
            if key.startswith("no-index"):
                lines.append(f"| {model} | {r['records']:,} records, no index | sessionStart | "
                             f"{r['session_start_seconds'] * 1000:.0f} ms, {r['indexed_by_then']:,} "
                             f"chunks indexed, context {r['context_chars']:,} chars "
                             f"(recent facts: {'yes' if r['context_has_recent_facts'] else 'no'}) | "
                             f"then {r['followup_syncs']} syncs of ≤ 4 s ({r['followup_seconds']:.0f} s) "
                             f"finish; one uninterrupted sync: {r['one_sync_seconds']:.0f} s |")
                continue
            facts = f"{r['store_facts']:,} facts"
            s = r["session_start"]
            lines.append(f"| {model} | {facts} | sessionStart, new conversation | {s['median']:.0f} ms "
                         f"(p95 {s['p95']:.0f}) | {s['floor_import_sqlite3']['median']:.0f} ms "
                         "(import sqlite3) |")
            lines.append(f"| {model} | {facts} | sessionStart, 500 new lines | "
                         f"{r['session_start_500_new']['median']:.0f} ms | |")
            for burst, e in r["session_end"].items():
                left = (f"left: {e['left_pending_vectors']} vectors, {e['left_unconsolidated']} "
                        "lines; " if e["left_pending_vectors"] or e["left_unconsolidated"] else "")
                lines.append(f"| {model} | {facts} | sessionEnd after {int(burst):,} new facts | "
                             f"{e['seconds']:.1f} s | {left}{e['followups']} more sessionEnds "
                             f"({e['followup_seconds']:.0f} s) finish: {'yes' if e['finished'] else 'NO'} |")
            if "first_search_after_500" in r:
                f = r["first_search_after_500"]
                lines.append(f"| {model} | {facts} | first search after 500 new facts (cold CLI, "
                             f"hybrid) | {f['seconds']:.2f} s | {f['keyword_only']} records keyword-only |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, required=True, help="where stores are made and kept")
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--model", default="none", choices=("none", "test", "standin"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--bursts", default="0,50,500", help="new facts before a sessionEnd")
    ap.add_argument("--no-index", type=int, default=150_000, help="records of the fresh-clone row (0: skip)")
    ap.add_argument("--out", type=Path, default=RESULTS / "sessions.json")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    env = model_env(args.model, args.work)
    results = json.loads(args.out.read_text())["results"] if args.out.exists() else {}
    mine = results.setdefault(args.model, {})
    command, commit = provenance("sessions.py", argv)
    for n in (int(x) for x in args.sizes.split(",") if x):
        print(f"{args.model}: {n} records ...", file=sys.stderr, flush=True)
        mine[str(n)] = dict(bench_size(n, args.work, env, args.runs,
                                       [int(b) for b in args.bursts.split(",")]),
                            command=command, commit=commit, date=time.strftime("%Y-%m-%d"))
        write_results(args.out, results)
    if args.no_index:
        print(f"{args.model}: {args.no_index} records, no index ...", file=sys.stderr, flush=True)
        mine[f"no-index-{args.no_index}"] = dict(bench_no_index(args.no_index, args.work, env),
                                                command=command, commit=commit,
                                                date=time.strftime("%Y-%m-%d"))
        write_results(args.out, results)
    print(table(results))
    return 0


def write_results(out: Path, results: dict, render=None) -> None:
    """results as JSON at `out` and as the markdown table `render` makes beside it (.md)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"results": results}, indent=1, ensure_ascii=False) + "\n")
    out.with_suffix(".md").write_text((render or table)(results), encoding="utf-8")


def labelled_sets_main(argv, description: str, data: Path, default_out: Path, score, render,
                       width: int) -> int:
    """The CLI of a bench that reads every labelled set in `data` (one JSONL file a set):
    `score(path)` gives {"rows": ..., "misses": [{"q", "label", "read"}]}; writes the JSON and
    `render`'s table, prints the table and the misses."""
    import argparse

    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--out", type=Path, default=default_out)
    args = ap.parse_args(argv)
    results = {p.stem: score(p) for p in sorted(data.glob("*.jsonl"))}
    write_results(args.out, results, render)
    print(render(results))
    for name, r in results.items():
        for m in r["misses"]:
            print(f"{name}: read {m['read']!s:{width}} labelled {m['label']!s:{width}} {m['q']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
