"""Command lines: `cursor-memory <command>` (also `python -m memory_core <command>`) and the
agent-facing scripts, all thin over `Memory`.

Every failure is one line on stderr and an exit code: 2 for bad input (nothing written), 1
for everything else (a full disk, a broken index, a bug); never a traceback. Output piped
into `head` ends quietly. Text from memory is printed without control characters.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import namedtuple

from .config import resolve_memory_dir
from .errors import CursorMemoryError, UserError
from .records import KINDS, MEMORY_TYPES


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
            raise UserError("an argument is not valid UTF-8") from None


def _memory(args):
    from .memory import Memory
    return Memory(resolve_memory_dir(args.memory_dir, project=getattr(args, "project", None)),
                  create=False)


def _print_json(data) -> None:
    from .sanitize import for_terminal
    print(for_terminal(json.dumps(data, ensure_ascii=False, default=str)))


def _say(text: str = "", **kwargs) -> None:
    from .sanitize import for_terminal
    print(for_terminal(text), **kwargs)


def _run(fn, args) -> int:
    """Run a command; every failure becomes one line and an exit code."""
    try:
        return fn(args) or 0
    except CursorMemoryError as e:
        _fail(args.prog_name, str(e))
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except Exception as e:  # noqa: BLE001 - a user sees one line, never a traceback
        _fail(args.prog_name, f"unexpected {type(e).__name__}: {e} "
                              "(please report it; details with CURSOR_MEMORY_DEBUG=1)")
        if os.environ.get("CURSOR_MEMORY_DEBUG"):
            import traceback
            traceback.print_exc()
        return 1


def _fail(prog: str, message: str) -> None:
    from .sanitize import for_terminal
    try:
        print(f"{prog}: error: {for_terminal(message)}", file=sys.stderr)
    except Exception:  # noqa: BLE001 - stderr closed: nothing more to say
        pass


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the interpreter's final flush does
    not raise again (the recipe of the Python docs, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


# --- save-fact ---------------------------------------------------------------------------

def _add_save_fact_args(p):
    p.add_argument("content_arg", nargs="?", metavar="CONTENT", help="the fact (or use --content)")
    p.add_argument("--content", help="the fact, one sentence, in the user's language")
    p.add_argument("--type", dest="memory_type", choices=MEMORY_TYPES,
                   help="W: a fact about the world/project; B: something that happened; "
                        "O: an opinion or preference (default W)")
    p.add_argument("--kind", default=None, choices=KINDS,
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
        raise UserError("give the fact with --content TEXT")
    mem = _memory(args)
    record = mem.save_fact(content, args.memory_type, kind=args.kind, entities=args.entities,
                           confidence=args.confidence, session_id=args.session, refs=args.ref,
                           supersedes=args.supersedes)
    if args.json:
        _print_json(record)
    else:
        from . import answers
        _say(answers.saved_fact(record, mem.daily_path().relative_to(mem.root).as_posix()))
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
        from . import answers
        _say(answers.saved_summary(record))
    return 0


# --- search ------------------------------------------------------------------------------

def _add_search_args(p):
    p.add_argument("query", nargs="?", default="",
                   help="what to look for, in any language (may be empty with --ref)")
    p.add_argument("--limit", type=int, default=10, help="how many results (default 10)")
    p.add_argument("--mode", default="hybrid", choices=("hybrid", "fts", "vector"))
    p.add_argument("--type", help="record types, comma-separated: fact, preference, action, "
                                  "session_summary, core, transcript")
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
        raise UserError("--limit must be at least 1")
    if not args.query.strip() and not args.ref:
        raise UserError("give a query (or --ref PATH)")
    hits = mem.search(args.query, limit=args.limit, mode=args.mode, type=args.type,
                      memory_type=args.memory_type, since=args.since, until=args.until,
                      ref=args.ref, history=args.history)
    if args.json:
        _print_json({"query": args.query, "mode": args.mode, "notes": hits.notes,
                     "keyword_only": hits.keyword_only, "results": [h.to_dict() for h in hits]})
        return 0
    for note in hits.notes:
        print(f"note: {_plain(note)}", file=sys.stderr)
    from . import answers
    _say(answers.results_text(hits))
    return 0


def _plain(text: str) -> str:
    from .sanitize import for_terminal
    return for_terminal(text)


# --- maintenance -------------------------------------------------------------------------

def _progress(label: str):
    """A progress bar on a terminal; nothing when stderr is a pipe or a file."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        end = "\n" if done >= total else ""
        print(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end=end,
              file=sys.stderr, flush=True)
    return show


def _sync(args) -> int:
    report = _memory(args).sync(embed=not args.no_embed, progress=_progress("embedding"))
    if args.json:
        _print_json(vars(report))
    else:
        _say(f"synced: {report}")
    return 0


def _embed(args) -> int:
    mem = _memory(args)
    mem.sync(embed=False)
    fill = mem.embed(progress=_progress("embedding"))
    if fill is None:
        raise CursorMemoryError("no embedding model available (see `cursor-memory model download`)")
    if args.json:
        _print_json(vars(fill))
    else:
        _say(f"embedded {fill.embedded}, reused {fill.reused}"
             + (f", {fill.left} left" if fill.left else ", none left"))
    return 0


def _rebuild(args) -> int:
    report = _memory(args).rebuild(embed=not args.no_embed, progress=_progress("embedding"))
    if args.json:
        _print_json(vars(report))
    else:
        _say(f"rebuilt: {report}")
    return 0


def _stats(args) -> int:
    from dataclasses import asdict
    stats = asdict(_memory(args).stats())
    if args.json:
        _print_json(stats)
    else:
        width = max(len(k) for k in stats)
        for k, v in stats.items():
            _say(f"{k:<{width}}  {v}")
    return 0


def _model(args) -> int:
    from . import embeddings

    root = resolve_memory_dir(args.memory_dir)
    if args.model_command == "download":
        _say(embeddings.download(root))
    else:
        _say(embeddings.describe(root))
    return 0


def _forget(args) -> int:
    record = _memory(args).forget(args.id, args.reason)
    if args.json:
        _print_json(record)
    else:
        from . import answers
        _say(answers.forgot(record))
    return 0


def _check_refs(args) -> int:
    report = _memory(args).check_refs()
    if args.json:
        _print_json(report)
        return 1 if report["broken"] else 0
    from .sanitize import render_item  # refs and file names are stored text: one line each
    for b in report["broken"]:
        _say(render_item(f"broken  {b['ref']} in {b['id']}: {b['why']}"
                         + (f"; now at {b['suggestion']}?" if b["suggestion"] else "")))
    for path in report["orphans"]:
        _say(render_item(f"orphan  {path}: no memory refers to it"))
    if not report["broken"] and not report["orphans"]:
        _say("every reference resolves, and every artifact file is referred to")
    return 1 if report["broken"] else 0


def _doctor(args) -> int:
    from . import doctor
    from .config import find_project

    project = args.project or (None if args.memory_dir or os.environ.get("CURSOR_MEMORY_DIR")
                               else find_project())
    mem = _memory(args)
    if not args.json:
        return doctor.run(mem, project)
    results = list(doctor.checks(mem, project))
    _print_json([{"ok": ok, "what": what, "detail": detail} for ok, what, detail in results])
    return 1 if any(ok is False for ok, _, _ in results) else 0


def _install(args) -> int:
    from . import install
    from .config import find_project

    project = args.project or find_project()
    if args.command == "uninstall":
        lines = install.uninstall(project)
    else:
        lines = install.install(project, claude=args.claude, mcp=getattr(args, "mcp", None))
    for line in lines:
        _say(line)
    return 0


def _hook(args) -> int:
    from .hooks import HANDLERS, run
    if args.event not in HANDLERS:
        raise UserError(f"unknown hook event {args.event!r}: one of {', '.join(HANDLERS)}")
    return run(args.event, detach=args.detach)


def _mcp(args) -> int:
    from .config import resolve_memory_dir
    from .mcp_server import main as serve
    return serve(resolve_memory_dir(args.memory_dir, project=args.project))


# --- entry points ------------------------------------------------------------------------

def _memory_dir(p):
    p.add_argument("--memory-dir", help="the memory folder (default: $CURSOR_MEMORY_DIR, "
                                        "else <project>/.cursor/skills/memory-data)")


def _json(p):
    p.add_argument("--json", action="store_true", help="print JSON for tools")


def _script(prog: str, description: str, add, fn, argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    from . import log
    log.route_to_stderr()
    parser = _Parser(prog=prog, description=description)
    add(parser)
    _memory_dir(parser)
    _json(parser)
    try:
        _check_utf8(argv)
    except UserError as e:
        _fail(prog, str(e))
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


# A subcommand: its help, a function adding its arguments, the function running it, and
# whether it honours --json. (collections, not typing: every save imports this module.)
Command = namedtuple("Command", "help add_arguments run takes_json")


def _commands() -> dict:
    none = lambda p: None  # noqa: E731
    return {
        "save-fact": Command("save a fact", _add_save_fact_args, _save_fact, True),
        "save-summary": Command("save a session summary", _add_save_summary_args, _save_summary, True),
        "search": Command("search memory", _add_search_args, _search, True),
        "sync": Command("bring the index in line with the files (and make missing vectors)",
                 lambda p: p.add_argument("--no-embed", action="store_true",
                                          help="text only; leave vectors for later"), _sync, True),
        "embed": Command("make every missing vector now (with a progress bar on a terminal)", none,
                  _embed, True),
        "rebuild": Command("rebuild index.sqlite from the files",
                    lambda p: p.add_argument("--no-embed", action="store_true"), _rebuild, True),
        "stats": Command("counts and settings", none, _stats, True),
        "install": Command("install the hooks, skill and git settings into a project",
                    lambda p: (p.add_argument("--project", help="default: this git repository"),
                               p.add_argument("--claude", action="store_true",
                                              help="also Claude Code: .claude/settings.json and "
                                                   ".claude/skills"),
                               p.add_argument("--mcp", action=argparse.BooleanOptionalAction,
                                              default=None,
                                              help="also register the MCP server (default: when "
                                                   "the [mcp] extra is installed)")),
                    _install, False),
        "uninstall": Command("remove exactly what install added (the memory stays)",
                      lambda p: p.add_argument("--project"), _install, False),
        "forget": Command("stop showing a memory that is wrong (appends a tombstone; deletes nothing)",
                   lambda p: (p.add_argument("id", help="the memory's id, as search shows it"),
                              p.add_argument("--reason", help="why, in a few words")), _forget, True),
        "check-refs": Command("references to files that moved or vanished, and artifact files no memory "
                       "refers to; exit 1 if any reference is broken", none, _check_refs, True),
        "doctor": Command("check the files, index, model, locks and hooks; exit 1 if something needs you",
                   lambda p: p.add_argument("--project", help="whose hooks to check"), _doctor, True),
        "model": Command("the embedding model: `model download`, `model info`",
                  lambda p: p.add_argument("model_command", choices=("download", "info")), _model, False),
        "hook": Command("run a lifecycle hook (what hooks.json calls): reads the event's JSON on stdin",
                 lambda p: (p.add_argument("event"),
                            p.add_argument("--detach", action="store_true",
                                           help="sessionEnd: clean up in a worker, return at once")),
                 _hook, False),
        "mcp": Command("serve memory as MCP tools over stdio (needs the [mcp] extra)",
                lambda p: p.add_argument("--project", help="whose memory (default: this git "
                                                           "repository)"), _mcp, False),
    }


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    from . import log
    parser = _Parser(prog="cursor-memory", description="Long-term memory for AI coding agents.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, command in _commands().items():
        p = sub.add_parser(name, help=command.help, description=command.help)
        command.add_arguments(p)
        _memory_dir(p)
        if command.takes_json:
            _json(p)
        p.set_defaults(fn=command.run, json=False)
    try:
        _check_utf8(argv)
    except UserError as e:
        _fail("cursor-memory", str(e))
        return 2
    args = parser.parse_args(argv)
    args.prog_name = f"cursor-memory {args.command}"
    if args.command not in ("hook", "mcp"):  # those route notices to hooks.log / stderr themselves
        log.route_to_stderr()
    return _run(args.fn, args)


if __name__ == "__main__":
    sys.exit(main())
