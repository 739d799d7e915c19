"""Command lines: `cursor-memory <command>` and the agent-facing scripts, all thin over
`Memory`. Bad input exits 2 with one line on stderr and writes nothing."""
from __future__ import annotations

import argparse
import json
import os
import sys

from .config import MemoryError, resolve_memory_dir


class _Parser(argparse.ArgumentParser):
    """argparse, but an error is one line (the agent reads it) and exits 2, and help is a
    fixed width (asking the terminal costs every save a `shutil` import)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", lambda prog: argparse.HelpFormatter(prog, width=100))
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _check_utf8(argv) -> None:
    for arg in argv:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raise MemoryError("an argument is not valid UTF-8") from None


def _memory(args):
    from .memory import Memory
    return Memory(resolve_memory_dir(args.memory_dir))


def _print_json(data) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=None))


def _run(fn, args) -> int:
    try:
        return fn(args) or 0
    except MemoryError as e:
        print(f"{args.prog_name}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


# --- save-fact ---------------------------------------------------------------------------

def _add_save_fact_args(p):
    p.add_argument("content_arg", nargs="?", metavar="CONTENT", help="the fact (or use --content)")
    p.add_argument("--content", help="the fact, one sentence, in the user's language")
    p.add_argument("--type", dest="memory_type", default="W",
                   help="W: a fact about the world/project; B: something that happened; "
                        "O: an opinion or preference (default W)")
    p.add_argument("--kind", default=None, choices=("fact", "preference", "action"),
                   help="default: preference for --type O, else fact")
    p.add_argument("--entities", help="comma-separated tags, e.g. redis,cache")
    p.add_argument("--confidence", type=float, help="0 to 1 (default 1.0; 0.8 for preferences)")
    p.add_argument("--ref", action="append", default=[],
                   help="what it is about: file:<path>[#L<line>], url:<url>, or <category>:<id> "
                        "(artifact, upload, report, chart, cache, temp); repeatable")
    p.add_argument("--supersedes", metavar="ID",
                   help="the id of an earlier fact this one replaces (it changed or was wrong)")
    p.add_argument("--session", help="the conversation id")


def _save_fact(args) -> int:
    content = args.content if args.content is not None else args.content_arg
    if content is None:
        raise MemoryError("give the fact with --content TEXT")
    if args.memory_type not in ("W", "B", "O"):
        raise MemoryError(f"--type must be W, B or O, not {args.memory_type!r}")
    kind = args.kind or ("preference" if args.memory_type == "O" else "fact")
    mem = _memory(args)
    record = mem.save_fact(content, args.memory_type, kind=kind, entities=args.entities,
                           confidence=args.confidence, session_id=args.session, refs=args.ref,
                           supersedes=args.supersedes)
    if args.json:
        _print_json(record)
    else:
        extra = f", superseding {record['supersedes']}" if record.get("supersedes") else ""
        print(f"saved {record['id']} ({record['memory_type']} {record['type']}{extra}) "
              f"to {mem.daily_path().relative_to(mem.root)}")
    return 0


# --- save-summary ------------------------------------------------------------------------

def _add_save_summary_args(p):
    p.add_argument("--topic", required=True, help="the session in one line")
    p.add_argument("--summary", required=True, help="100-200 characters: what was done and why")
    p.add_argument("--decision", action="append", default=[], help="a decision (repeatable)")
    p.add_argument("--todo", action="append", default=[], help="an open task (repeatable)")
    p.add_argument("--ref", action="append", default=[],
                   help="file:<path>, url:<url> or <category>:<id> it is about (repeatable)")
    p.add_argument("--session", help="the conversation id")


def _save_summary(args) -> int:
    mem = _memory(args)
    record = mem.save_summary(args.topic, args.summary, args.decision, args.todo,
                              session_id=args.session, refs=args.ref)
    if args.json:
        _print_json(record)
    else:
        print(f"saved {record['id']} to sessions.jsonl")
    return 0


# --- search ------------------------------------------------------------------------------

def _add_search_args(p):
    p.add_argument("query", nargs="?", default="",
                   help="what to look for, in any language (may be empty with --ref)")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--mode", default="hybrid", choices=("hybrid", "fts", "vector"))
    p.add_argument("--type", help="fact, preference, action, session_summary, core (comma-separated)")
    p.add_argument("--memory-type", help="W, B, O, S (comma-separated)")
    p.add_argument("--since", help="a date (YYYY-MM-DD) or ISO time")
    p.add_argument("--until", help="a date (YYYY-MM-DD) or ISO time")
    p.add_argument("--ref", help="only memories about this file (also under its former names, "
                                 "from git), url or <category>:<id>")
    p.add_argument("--history", action="store_true",
                   help="also show forgotten and superseded memories, marked as such")


def _search(args) -> int:
    mem = _memory(args)
    if args.limit < 1:
        raise MemoryError("--limit must be at least 1")
    if not args.query.strip() and not args.ref:
        raise MemoryError("give a query (or --ref PATH)")
    hits = mem.search(args.query, limit=args.limit, mode=args.mode, type=args.type,
                      memory_type=args.memory_type, since=args.since, until=args.until,
                      ref=args.ref, history=args.history)
    if args.json:
        _print_json({"query": args.query, "mode": args.mode, "notes": hits.notes,
                     "results": [h.to_dict() for h in hits]})
        return 0
    for note in hits.notes:
        print(f"note: {note}", file=sys.stderr)
    if not hits:
        print("no memories found")
    for i, h in enumerate(hits, 1):
        label = h.type + (f" {h.memory_type}" if h.memory_type else "")
        where = f"{h.section} ({h.source_file})" if h.section else h.source_file
        ranks = ", ".join(x for x in (f"fts #{h.fts_rank}" if h.fts_rank else "",
                                      f"vec #{h.vec_rank}" if h.vec_rank else "") if x)
        status = "" if h.status == "active" else (
            f" ({h.status}" + (f" by {h.superseded_by}" if h.superseded_by else "") + ")")
        print(f"{i}. [{label}]{status} " + h.content.replace("\n", "\n   "))
        print(f"   {h.id} · {where} · {(h.timestamp or '')[:16].replace('T', ' ')} · "
              f"score {h.score:.4f} ({ranks})")
        if len(h.evidence) > 1:
            print(f"   evidence: {', '.join(h.evidence)}")
        if h.refs:
            print("   refs: " + ", ".join(r["ref"] + ("" if r["exists"] is not False else " (missing)")
                                       for r in h.refs))
    return 0


# --- maintenance -------------------------------------------------------------------------

def _progress(done: int, total: int) -> None:
    width = 30
    filled = width * done // max(total, 1)
    end = "\n" if done >= total else ""
    print(f"\rembedding [{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end=end,
          file=sys.stderr, flush=True)


def _sync(args) -> int:
    report = _memory(args).sync(embed=not args.no_embed, progress=_progress)
    if args.json:
        _print_json(vars(report))
    else:
        print(f"synced: {report}")
        for note in report.notes:
            print(f"note: {note}", file=sys.stderr)
    return 0


def _rebuild(args) -> int:
    report = _memory(args).rebuild(embed=not args.no_embed, progress=_progress)
    print(f"rebuilt: {report}")
    return 0


def _stats(args) -> int:
    stats = _memory(args).stats()
    if args.json:
        _print_json(stats)
    else:
        width = max(len(k) for k in stats)
        for k, v in stats.items():
            print(f"{k:<{width}}  {v}")
    return 0


def _model(args) -> int:
    from . import embeddings

    root = resolve_memory_dir(args.memory_dir)
    if args.model_command == "download":
        print(embeddings.download(root))
    else:
        print(embeddings.describe(root))
    return 0


def _forget(args) -> int:
    record = _memory(args).forget(args.id, args.reason)
    if args.json:
        _print_json(record)
    else:
        print(f"forgot {record['target']} (tombstone {record['id']}); nothing was deleted")
    return 0


def _check_refs(args) -> int:
    from .refs import check

    report = check(_memory(args))
    if args.json:
        _print_json(report)
        return 1 if report["broken"] else 0
    for cid, ref, why, suggestion in report["broken"]:
        print(f"broken  {ref} in {cid}: {why}" + (f"; now at {suggestion}?" if suggestion else ""))
    for path in report["orphans"]:
        print(f"orphan  {path}: no memory refers to it")
    if not report["broken"] and not report["orphans"]:
        print("every reference resolves, and every artifact file is referred to")
    return 1 if report["broken"] else 0


def _doctor(args) -> int:
    from . import doctor
    from .config import find_project

    project = args.project or (None if args.memory_dir or os.environ.get("CURSOR_MEMORY_DIR")
                               else find_project())
    return doctor.run(_memory(args), project)


def _install(args) -> int:
    from . import install
    from .config import find_project

    project = args.project or find_project()
    if args.command == "uninstall":
        lines = install.uninstall(project)
    else:
        lines = install.install(project, claude=args.claude)
    for line in lines:
        print(line)
    return 0


# --- entry points ------------------------------------------------------------------------

def _common(p, *, json_help="print JSON for tools"):
    p.add_argument("--memory-dir", help="the memory folder (default: $CURSOR_MEMORY_DIR, "
                                        "else <project>/.cursor/skills/memory-data)")
    p.add_argument("--json", action="store_true", help=json_help)


def _script(prog: str, description: str, add, fn, argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = _Parser(prog=prog, description=description)
    add(parser)
    _common(parser)
    try:
        _check_utf8(argv)
    except MemoryError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    args.prog_name = prog
    return _run(fn, args)


def save_fact_main(argv=None) -> int:
    return _script("save_fact.py", "Save one durable fact to memory.", _add_save_fact_args,
                   _save_fact, argv)


def save_summary_main(argv=None) -> int:
    return _script("save_summary.py", "Save this session's summary to memory.",
                   _add_save_summary_args, _save_summary, argv)


def search_main(argv=None) -> int:
    return _script("search_memory.py", "Search memory (Chinese, English, or both).",
                   _add_search_args, _search, argv)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = _Parser(prog="cursor-memory", description="Long-term memory for AI coding agents.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    commands = {
        "save-fact": ("save a fact", _add_save_fact_args, _save_fact),
        "save-summary": ("save a session summary", _add_save_summary_args, _save_summary),
        "search": ("search memory", _add_search_args, _search),
        "sync": ("bring the index in line with the files",
                 lambda p: p.add_argument("--no-embed", action="store_true",
                                          help="text only; leave vectors for later"), _sync),
        "rebuild": ("rebuild index.sqlite from the files",
                    lambda p: p.add_argument("--no-embed", action="store_true"), _rebuild),
        "stats": ("counts and settings", lambda p: None, _stats),
        "install": ("install the hooks, skill and git settings into a project",
                    lambda p: (p.add_argument("--project", help="default: this git repository"),
                               p.add_argument("--claude", action="store_true",
                                              help="also .claude/settings.json for Claude Code")),
                    _install),
        "uninstall": ("remove exactly what install added (the memory stays)",
                      lambda p: p.add_argument("--project"), _install),
        "forget": ("stop showing a memory that is wrong (appends a tombstone; deletes nothing)",
                   lambda p: (p.add_argument("id", help="the memory's id, as search shows it"),
                              p.add_argument("--reason", help="why, in a few words")), _forget),
        "check-refs": ("references to files that moved or vanished, and artifact files no memory "
                       "refers to; exit 1 if any reference is broken", lambda p: None, _check_refs),
        "doctor": ("check the files, index, model, locks and hooks; exit 1 if something needs you",
                   lambda p: p.add_argument("--project", help="whose hooks to check"), _doctor),
        "model": ("the embedding model: `model download`, `model info`",
                  lambda p: p.add_argument("model_command", choices=("download", "info")), _model),
    }
    for name, (help_text, add, fn) in commands.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        add(p)
        _common(p)
        p.set_defaults(fn=fn)
    try:
        _check_utf8(argv)
    except MemoryError as e:
        print(f"cursor-memory: error: {e}", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    args.prog_name = f"cursor-memory {args.command}"
    return _run(args.fn, args)


if __name__ == "__main__":
    sys.exit(main())
