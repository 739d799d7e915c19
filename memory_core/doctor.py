"""`cursor-memory doctor`: is everything as it should be, and if not, what to do.

Each check is (ok, what, detail): ok is True, False (needs the user) or None (a note).
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from . import jsonl, locks


def checks(mem, project: Path | None):
    yield from _files(mem)
    yield from _index(mem)
    yield from _model(mem)
    yield from _locks_and_temps(mem)
    if project is not None:
        yield from _hooks(Path(project))


def _files(mem):
    root = mem.root
    mode = os.stat(root).st_mode & 0o777
    if os.name == "posix" and mode & 0o077:
        yield False, "memory folder permissions", f"{root} is {oct(mode)}; run: chmod 700 '{root}'"
    else:
        yield True, "memory folder", str(root)


def _expected(root: Path) -> dict:
    """{source file: number of chunks its records should give}, by the same rules sync uses."""
    from .sync import source_files, to_chunk

    out = {}
    for rel in source_files(root):
        if rel == "MEMORY.md":
            continue
        ids = set()
        for _, rec in jsonl.read(root / rel).records:
            try:
                if to_chunk(rel, rec) is not None:
                    ids.add(rec["id"])
            except ValueError:
                pass
        out[rel] = len(ids)
    return out


def _index(mem):
    from .index import vector_driver
    from .sync import PART

    report = mem.sync(embed=False)
    expected = _expected(mem.root)

    def counts(conn):
        got = dict(conn.execute("SELECT source_file, count(*) FROM chunks WHERE source_file "
                                f"!= 'MEMORY.md' AND instr(id, '{PART}') = 0 GROUP BY source_file"))
        skipped = conn.execute("SELECT file_path, line, reason FROM skipped "
                               "ORDER BY file_path, line").fetchall()
        integrity = conn.execute("PRAGMA quick_check").fetchone()[0]
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        return got, skipped, integrity, meta

    got, skipped, integrity, meta = mem._run(counts)
    wrong = {f: (expected.get(f, 0), got.get(f, 0)) for f in set(expected) | set(got)
             if expected.get(f, 0) != got.get(f, 0)}
    total = sum(expected.values())
    if wrong:
        detail = "; ".join(f"{f}: {e} records, {g} in the index" for f, (e, g) in sorted(wrong.items()))
        yield False, "index vs files", detail + " (an id used in two files, or run `cursor-memory rebuild`)"
    else:
        yield True, "index vs files", f"{total} records in {len(expected)} files, all in the index"
    yield (integrity == "ok"), "index integrity", integrity if integrity != "ok" else "PRAGMA quick_check ok"
    if skipped:
        lines = [f"{f}:{n}: {why}" for f, n, why in skipped]
        yield False, f"{len(skipped)} malformed lines skipped", "; ".join(lines[:20]) + (
            " …" if len(lines) > 20 else "") + " (fix or delete them; the rest syncs)"
    else:
        yield True, "malformed lines", "none"
    driver = vector_driver()
    store = meta.get("vector_store")
    path = {"stdlib": "sqlite-vec loaded into the standard sqlite3",
            "sqlean": "sqlite-vec loaded into sqlean.py (this Python's sqlite3 cannot load extensions)",
            "numpy": "no sqlite-vec here: brute-force numpy over BLOBs"}.get(driver, driver)
    yield None, "vector search", f"{path}; the index stores vectors as {store}"
    if store == "vec0" and driver == "numpy":
        yield False, "vector store", ("this index keeps vectors in sqlite-vec, which this Python "
                                      "cannot load: `cursor-memory rebuild` makes one it can use")
    if report.upserted:
        yield None, "sync", f"{report.upserted} chunks were behind the files and are now in"


def _model(mem):
    from . import embeddings, vectors

    name = embeddings.describe(mem.root)
    embedder = mem.embedder(quiet=True)
    if embedder is None:
        yield False, "embedding model", (f"{name} is not available offline: search is keyword-only "
                                         "until `cursor-memory model download`")
        return
    yield True, "embedding model", f"{name} loads offline"

    def state(conn):
        model = vectors.model_of(conn)
        pending = conn.execute("SELECT count(*) FROM chunks WHERE vec_hash IS NOT hash "
                               "AND type != 'transcript'").fetchone()[0]
        return model, pending

    model, pending = mem._run(state)
    if model and model != embedder.identity:
        yield False, "index model", f"index vectors are from {model}; run `cursor-memory sync` to re-embed"
    elif pending:
        yield None, "vectors", f"{pending} chunks wait for vectors (`cursor-memory sync` makes them)"
    else:
        yield True, "vectors", "every chunk has a current vector"


def _locks_and_temps(mem):
    import time

    problems = False
    for lock in sorted(mem.root.glob("*.lock")):
        held = locks.holder(lock)
        if held:
            pid, age = held
            ok = age < 120
            problems |= not ok
            yield (None if ok else False), f"lock {lock.name}", (
                f"held by pid {pid} for {age:.0f} s" + ("" if ok else
                                                         f"; if that process is stuck: kill {pid}"))
    for tmp in sorted(list(mem.root.glob("*.tmp")) + list(mem.root.glob("index.sqlite.rebuild-*"))):
        age = time.time() - tmp.stat().st_mtime
        if age > 600:
            problems = True
            yield False, "leftover temp file", f"{tmp.name} ({age / 60:.0f} min old): safe to delete"
    if not problems:
        yield True, "locks and temp files", "nothing stale (locks are released when their holder dies)"


def _hooks(project: Path):
    from .install import HOOKS, _ours

    path = project / ".cursor" / "hooks.json"
    if not path.exists():
        yield False, "hooks", f"no {path}: run `cursor-memory install --project '{project}'`"
        return
    try:
        config = json.loads(path.read_text(encoding="utf-8-sig"))
    except ValueError as e:
        yield False, "hooks", f"{path} is not valid JSON ({e})"
        return
    commands = {event: [e.get("command", "") for e in config.get("hooks", {}).get(event, [])
                        if _ours(str(e.get("command", ""))) or "scripts/" in str(e.get("command", ""))]
                for event, *_ in HOOKS}
    missing = [event for event, cmds in commands.items() if not cmds]
    if missing:
        yield False, "hooks", f"not installed for {', '.join(missing)}: run `cursor-memory install`"
        return
    command = commands["sessionStart"][0]
    import tempfile
    with tempfile.TemporaryDirectory() as scratch:  # probe without touching the real memory
        env = dict(os.environ, CURSOR_MEMORY_DIR=scratch)
        probe = subprocess.run(command, shell=True, cwd=project, input="{}", capture_output=True,
                               text=True, timeout=60, env=env)
    try:
        answered = "additional_context" in json.loads(probe.stdout or "{}")
    except ValueError:
        answered = False
    if not answered:  # a hook that cannot import memory_core still prints {}, by design
        yield False, "hooks", (f"`{command}` does not work ({probe.stderr.strip()[:200] or 'no context'}): "
                               "the interpreter in hooks.json cannot run cursor-memory; "
                               "run `cursor-memory install` again with the right Python")
    else:
        yield True, "hooks", f"installed in {path} and working ({command.split()[0]})"


def run(mem, project: Path | None) -> int:
    """Print the checks; 1 when something needs the user, else 0."""
    worst = 0
    for ok, what, detail in checks(mem, project):
        mark = {True: "ok  ", False: "FAIL", None: "note"}[ok]
        print(f"{mark}  {what}: {detail}")
        if ok is False:
            worst = 1
    return worst
