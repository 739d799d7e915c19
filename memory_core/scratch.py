"""A scratch index: an index of a read-only memory folder's files, in a temp folder.

A read-only folder's own index.sqlite cannot be made or brought up to date, so a search
there indexes the files into a folder of its own. That folder is the process's: it is
removed when the process ends (or the index is dropped), and one left behind by a process
that was killed (a hook past its time limit) is removed by the next process that makes one.
Without that, every search of a read-only folder left an index in the temp folder.
"""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
import time
import weakref
from pathlib import Path

PREFIX = "cursor-memory-ro-"
STALE_SECONDS = 60  # a dead process's folder younger than this is left (a pid reused at once)

# One per folder this process made: called (at exit, when its index is dropped, or by
# remove_all) it removes the folder, once.
_removers: list = []


def scratch_index(root: Path, project=None):
    """An index of the files of `root` (read-only) in a new temp folder, synced once."""
    from .index import Index
    from .sync import sync_text
    sweep()
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
    index = Index(root, path=folder / "index.sqlite", project=project)
    _removers.append(weakref.finalize(index, shutil.rmtree, folder, True))
    index.run(lambda conn: sync_text(conn, root, project=project, fix_modes=False))
    return index


def remove_all() -> None:
    """Remove every scratch folder this process made: before a hard exit (os._exit runs no
    exit handlers; a normal exit runs the finalizers itself)."""
    for remover in _removers:
        remover()


def sweep() -> None:
    """Remove scratch folders whose process is gone. POSIX only: on Windows a process's
    liveness cannot be asked for without a handle, so a killed process's folder stays until
    the temp folder is cleaned."""
    if os.name != "posix":
        return
    tmp = tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(tmp) if n.startswith(PREFIX)]
    except OSError:
        return
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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True

