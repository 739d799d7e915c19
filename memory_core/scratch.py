"""A scratch index: an index of a read-only memory folder's files, in a temp folder.

A read-only folder's own index.sqlite cannot be made or brought up to date, so a search
there indexes the files into a folder of its own. That folder is the process's: it is
removed when the process ends (or the index is dropped), and one left behind by a process
that was killed (a hook past its time limit) is removed by the next process that makes one.
Without that, every search of a read-only folder left an index in the temp folder.
"""
from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
import threading
import time
import weakref
from pathlib import Path

PREFIX = "cursor-memory-ro-"
STALE_SECONDS = 60  # a dead process's folder younger than this is left (a pid reused at once)

_made: set = set()  # folders this process made and has not removed
_lock = threading.Lock()


def scratch_index(root: Path, project=None):
    """An index of the files of `root` (read-only) in a new temp folder, synced once."""
    from .index import Index
    from .sync import sync_text
    sweep()
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
    with _lock:
        _made.add(folder)
    index = Index(root, path=folder / "index.sqlite", project=project)
    weakref.finalize(index, remove, folder)
    index.run(lambda conn: sync_text(conn, root, project=project, fix_modes=False))
    return index


def remove(folder: Path) -> None:
    with _lock:
        _made.discard(folder)
    shutil.rmtree(folder, ignore_errors=True)


@atexit.register
def remove_all() -> None:
    """Remove every scratch folder this process made (also called before a hard exit)."""
    for folder in list(_made):
        remove(folder)


def sweep(tmp: str | None = None) -> int:
    """Remove scratch folders whose process is gone; how many. POSIX only: on Windows a
    process's liveness cannot be asked for without a handle, so a killed process's folder
    stays until the temp folder is cleaned."""
    if os.name != "posix":
        return 0
    tmp = tmp or tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(tmp) if n.startswith(PREFIX)]
    except OSError:
        return 0
    removed = 0
    for name in names:
        pid = name[len(PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or _alive(int(pid)):
            continue
        path = os.path.join(tmp, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if (not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid()
                or time.time() - st.st_mtime < STALE_SECONDS):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed += not os.path.lexists(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True

