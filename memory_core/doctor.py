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
    from .files import private_problems

    root = mem.root
    if mem.link is not None:
        yield False, "symbolic link", (f"{mem.link} is a symbolic link: this memory is read, "
                                       "never written (replace the link with a folder)")
    if not root.is_dir():
        yield None, "memory folder", f"{root} does not exist yet (it is made on the first save)"
        return
    problems = private_problems(str(root))
    links = [p for p in problems if "symbolic link" in p]
    modes = [p for p in problems if p not in links]
    if links:
        yield False, "symbolic links in the memory folder", (
            "; ".join(links) + ": cursor-memory neither reads nor writes through them; replace "
            "each with the file itself")
    if modes:
        yield False, "permissions", "; ".join(modes)
    if not problems:
        yield True, "memory folder", f"{root} (private: folders 0700, files 0600)"
    quarantine = root / "quarantine"
    if quarantine.is_dir():
        for path in sorted(quarantine.iterdir()):
            lines = sum(1 for _ in open(path, "rb")) if path.is_file() else 0
            yield False, "quarantined lines", (
                f"{path.relative_to(root)}: {lines} lines retention could not read were kept "
                "here instead of being deleted with their day; fix or delete them")


def expected_ids(root: Path) -> dict:
    """{source file: the ids its records should give} (record rows, not their parts), by the
    same rules sync uses."""
    from .chunking import split_markdown
    from .sync import MAX_CORE_BYTES, source_files, to_chunk

    out = {}
    for rel in source_files(root):
        if rel == "MEMORY.md":
            raw = (root / rel).read_bytes()[:MAX_CORE_BYTES].decode("utf-8", errors="replace")
            out[rel] = {c.id for c in split_markdown(raw, rel)}
            continue
        ids = set()
        for rec in jsonl.read(root / rel).records:
            try:
                if to_chunk(rel, rec) is not None:
                    ids.add(rec["id"])
            except Exception:  # noqa: BLE001 - a skipped line gives no row
                pass
        out[rel] = ids
    return out


def _index(mem):
    from .index import vector_driver
    from .sync import PART

    report = mem.sync(embed=False)
    if mem.index.read_only:
        yield None, "index", "the memory folder is read-only: the index is used as it is"
    expected = expected_ids(mem.root)

    def read(conn):
        got: dict = {}
        for rel, cid in conn.execute(f"SELECT source_file, id FROM chunks WHERE instr(id, '{PART}') = 0"):
            got.setdefault(rel, set()).add(cid)
        skipped = conn.execute("SELECT file_path, line, reason FROM skipped "
                               "ORDER BY file_path, line").fetchall()
        integrity = conn.execute("PRAGMA quick_check").fetchone()[0]
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        return {"got": got, "skipped": skipped, "integrity": integrity, "meta": meta}

    found = mem.index.run(read)
    got, skipped, integrity, meta = found["got"], found["skipped"], found["integrity"], found["meta"]
    wrong = []
    for rel in sorted(set(expected) | set(got)):
        missing = expected.get(rel, set()) - got.get(rel, set())
        phantom = got.get(rel, set()) - expected.get(rel, set())
        if missing or phantom:
            wrong.append(f"{rel}: " + ", ".join(
                x for x in (f"{len(missing)} not in the index ({', '.join(sorted(missing)[:3])})" if missing else "",
                            f"{len(phantom)} in the index but not in the file "
                            f"({', '.join(sorted(phantom)[:3])})" if phantom else "") if x))
    total = sum(len(v) for v in expected.values())
    if wrong:
        yield False, "index vs files", "; ".join(wrong) + (
            " (an id used in two files, or run `cursor-memory rebuild`)")
    elif not report.complete:
        yield None, "index vs files", f"still syncing ({report.pending_files} files to go)"
    else:
        yield True, "index vs files", f"{total} records in {len(expected)} files, the same ids in the index"
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
    model, pending = mem.index.run(lambda conn: (vectors.model_of(conn), vectors.count_pending(conn)))
    if model and model != embedder.identity:
        yield False, "index model", f"index vectors are from {model}; run `cursor-memory embed` to re-embed"
    elif pending:
        yield None, "vectors", f"{pending} chunks wait for vectors (`cursor-memory embed` makes them)"
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
        age = time.time() - tmp.lstat().st_mtime
        if age > 600:
            problems = True
            yield False, "leftover temp file", f"{tmp.name} ({age / 60:.0f} min old): safe to delete"
    for moved in sorted(mem.root.glob("index.sqlite*.moved-*")):
        problems = True
        yield False, "moved aside", f"{moved.name} stood where the index belongs and was moved; delete it when done"
    if not problems:
        yield True, "locks and temp files", "nothing stale (locks are released when their holder dies)"


def _hooks(project: Path):
    from .install import check_hook_files, hook_command_of

    yield from check_hook_files(project)
    command = hook_command_of(project, "sessionStart")
    if command is None:
        return
    import tempfile
    with tempfile.TemporaryDirectory() as scratch:  # probe without touching the real memory
        env = dict(os.environ, CURSOR_MEMORY_DIR=scratch)
        try:
            probe = subprocess.run(command, shell=True, cwd=project, input="{}",
                                   capture_output=True, text=True, timeout=60, env=env)
            stdout, stderr = probe.stdout, probe.stderr
        except (OSError, subprocess.SubprocessError) as e:
            stdout, stderr = "", str(e)
    try:
        answered = "additional_context" in json.loads(stdout or "{}")
    except ValueError:
        answered = False
    if not answered:  # a hook that cannot import memory_core still prints {}, by design
        yield False, "hooks", (f"`{command}` does not work ({stderr.strip()[:200] or 'no context'}): "
                               "the interpreter in hooks.json cannot run cursor-memory; "
                               "run `cursor-memory install` again with the right Python")
    else:
        yield True, "hooks", f"installed and working ({command.split()[0]})"


def run(mem, project: Path | None) -> int:
    """Print the checks; 1 when something needs the user, else 0."""
    from .sanitize import for_terminal, render_item
    worst = 0
    for ok, what, detail in checks(mem, project):
        # one line each: details quote file names and ids, which a pulled file can choose
        print(for_terminal(render_item(f"{ {True: 'ok  ', False: 'FAIL', None: 'note'}[ok]}  {what}: {detail}")))
        if ok is False:
            worst = 1
    return worst
