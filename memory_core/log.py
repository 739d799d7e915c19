"""The one way cursor-memory tells someone something on the side: the `cursor_memory`
logger of the standard `logging` module.

Who runs us decides where it goes: the CLI sends it to stderr as `cursor-memory: …`, a hook
to hooks.log in the memory folder (`route_to_stderr`, `route_to_file`); a library user gets
Python's default (warnings on stderr) or configures the logger as usual. Importing `logging`
costs more than saving a fact may take, so it is imported only when there is something to
say.

What belongs in an answer (why search results are keyword-only, ...) is not logged: it is
part of the result (`search.Results.notes`).
"""
from __future__ import annotations

import os
import sys
import time

NAME = "cursor_memory"
_configure = None  # called with the logger the first time it is used


def note(message: str) -> None:
    """Something the user may want to know (a rebuild, a skipped line, a fallback)."""
    if _direct is not None and "logging" not in sys.modules:
        _direct(message)  # a hook's line to hooks.log, without importing logging
        return
    logger().warning(message)


_direct = None  # set by route_to_file when hooks.log is the only place lines go


def logger():
    import logging

    global _configure
    lg = logging.getLogger(NAME)
    if _configure is not None:
        configure, _configure = _configure, None
        configure(lg)
    return lg


def _reset(lg) -> None:
    for handler in list(lg.handlers):
        lg.removeHandler(handler)
    lg.propagate = False


def route_to_stderr() -> None:
    """Notices as one line each on stderr, with control characters shown harmlessly."""
    global _configure, _direct
    _direct = None

    def configure(lg):
        import logging
        _reset(lg)
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("cursor-memory: %(message)s"))
        lg.addHandler(handler)
        lg.setLevel(logging.INFO)
    _configure = configure
    if "logging" in sys.modules:  # already in use: apply now
        logger()


def route_to_file(folder_fn, event: str, echo=None) -> None:
    """Notices of a hook as lines of `<folder>/hooks.log` (see `append_log`), prefixed with
    the event; `folder_fn()` names the folder when the first line is written. `echo`: a
    stream that gets each line too (the MCP server's stderr, which hosts show)."""
    global _configure, _direct

    def direct(message: str) -> None:
        try:
            append_log(folder_fn(), f"{event}: {message}")
        except Exception:  # noqa: BLE001 - logging must never break a hook
            pass
    _direct = direct if echo is None else None

    def configure(lg):
        import logging

        class HooksLog(logging.Handler):
            def emit(self, record):
                try:
                    append_log(folder_fn(), f"{event}: {record.getMessage()}")
                except Exception:  # noqa: BLE001 - logging must never break a hook
                    pass
        _reset(lg)
        lg.addHandler(HooksLog())
        if echo is not None:
            from .redact import redact

            class Redacted(logging.Formatter):
                def format(self, record):
                    return redact(super().format(record))
            handler = logging.StreamHandler(echo)
            handler.setFormatter(Redacted(f"cursor-memory {event}: %(message)s"))
            lg.addHandler(handler)
        lg.setLevel(logging.INFO)
    _configure = configure
    if "logging" in sys.modules:
        logger()


LOG_FILE = "hooks.log"
LOG_MAX_BYTES = 1_000_000


def fallback_folder() -> str:
    """Where logs go when the memory folder cannot take them: the user's cache."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cursor-memory")


def _through_link(folder: str) -> bool:
    """Is the memory folder reached through a link inside its project (never written)?"""
    from .config import project_of_memory
    from .files import link_on_path
    return link_on_path(folder, project_of_memory(folder)) is not None


def append_log(folder, message: str) -> str | None:
    """One line in `<folder>/hooks.log`, else in the user cache's hooks.log (a read-only or
    missing memory folder). Rotated at LOG_MAX_BYTES; never through a symbolic link (a link
    by that name is replaced: the log is ours). Returns the file written, or None. Never
    raises."""
    from .files import make_private_dir, open_append, replace_link
    from .redact import redact

    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    # an error can quote what was being saved (a file name made of the content): the log is
    # a file on disk like the memory, and gets the same redaction
    line = f"{stamp} {redact(message)}\n".encode("utf-8", "replace")
    for place in ([os.fspath(folder)] if folder else []) + [fallback_folder()]:
        try:
            if place == fallback_folder():
                make_private_dir(place)
            elif not os.path.isdir(place) or _through_link(place):
                continue
            path = os.path.join(place, LOG_FILE)
            replace_link(path)
            try:
                if os.lstat(path).st_size > LOG_MAX_BYTES:
                    os.replace(path, path + ".1")
            except FileNotFoundError:
                pass
            fd = open_append(path)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
            return path
        except Exception:  # noqa: BLE001 - try the next place
            continue
    return None
