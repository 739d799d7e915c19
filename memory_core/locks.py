"""Cross-process locks. POSIX `flock` is released by the kernel when its holder dies, so a
crashed process can never leave a lock that blocks anyone; the lock file also records the
holder's pid and start time so `doctor` can say who holds it and for how long.

A lock file is ours by name: one that is a symbolic link is replaced by a plain file (the link
removed, its target never opened), and a lock file is never truncated: the holder's record is
written over its first bytes."""
from __future__ import annotations

import os
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None
    import msvcrt


def lock_fd(fd: int, *, shared: bool = False, blocking: bool = True) -> bool:
    """Lock an open file; False when `blocking` is off and someone else holds it."""
    if fcntl is not None:
        flags = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | (0 if blocking else fcntl.LOCK_NB)
        try:
            fcntl.flock(fd, flags)
            return True
        except BlockingIOError:
            return False
    # Windows has no shared locks: everything is exclusive there.
    os.lseek(fd, 0, os.SEEK_SET)
    mode = msvcrt.LK_LOCK if blocking else msvcrt.LK_NBLCK
    try:
        msvcrt.locking(fd, mode, 1)
        return True
    except OSError:
        return False


def unlock_fd(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
    else:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


HOLDER_BYTES = 32  # "<pid> <start time>" padded: the same bytes are overwritten each time


def _open_lock(path: str) -> int:
    from .files import open_private, replace_link
    if replace_link(path):
        from .log import note
        note(f"{path} was a symbolic link; replaced it with a lock file of our own")
    return open_private(path)


class LockFile:
    """A named lock beside the data: `with LockFile(path): ...` or `acquire(timeout=...)`."""

    def __init__(self, path, *, shared: bool = False):
        self.path = str(path)
        self.shared = shared
        self.fd: int | None = None

    def acquire(self, timeout: float | None = None) -> bool:
        """True once held; False when `timeout` passed first. StorageError when the lock file
        cannot be made (a read-only folder)."""
        fd = _open_lock(self.path)
        deadline = None if timeout is None else time.monotonic() + timeout
        while not lock_fd(fd, shared=self.shared, blocking=deadline is None):
            if time.monotonic() >= deadline:
                os.close(fd)
                return False
            time.sleep(0.02)
        self.fd = fd
        if not self.shared:
            try:
                os.lseek(fd, 0, os.SEEK_SET)
                os.write(fd, f"{os.getpid()} {time.time():.0f}".ljust(HOLDER_BYTES - 1).encode() + b"\n")
            except OSError:
                pass  # who holds it is for `doctor`; the lock itself is held
        return True

    def release(self) -> None:
        if self.fd is not None:
            unlock_fd(self.fd)
            os.close(self.fd)
            self.fd = None

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()


def holder(path) -> tuple[int, float] | None:
    """(pid, seconds held) of the process holding an exclusive lock now, else None."""
    from .files import NOFOLLOW
    try:
        fd = os.open(str(path), os.O_RDONLY | NOFOLLOW)
    except OSError:
        return None
    try:
        if lock_fd(fd, shared=True, blocking=False):
            unlock_fd(fd)
            return None
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            pid, started = os.read(fd, HOLDER_BYTES).decode().split()[:2]
            return int(pid), max(0.0, time.time() - float(started))
        except (ValueError, UnicodeDecodeError):
            return (0, 0.0)
    finally:
        os.close(fd)


def pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False


def remove_stale_temps(folder) -> list:
    """Delete `<name>.<pid>[.<random>].tmp` files whose writer is dead (a kill -9 mid-write)."""
    import re
    removed = []
    for p in Path(folder).glob("*.tmp"):
        m = re.search(r"\.(\d+)(?:\.[0-9a-f]+)?\.tmp$", p.name)
        if m and not pid_alive(int(m.group(1))):
            try:
                p.unlink()
                removed.append(p.name)
            except OSError:
                pass
    return removed
