"""Writing files safely: nothing through a symbolic link, nothing half-written, private modes.

A memory folder can arrive by `git clone` with symbolic links in it, sit on a full disk or a
read-only mount, and holds private notes. Every byte cursor-memory writes goes through here:

- `open_append` / `open_private`: O_NOFOLLOW (and an lstat check where the platform has no
  such flag), mode 0600;
- `write_atomic`: a temp file created exclusively, fsynced, renamed over the target (a rename
  replaces a link itself, never what it points at);
- `make_private_dir`, `make_private`: 0700 folders and 0600 files, changed through a file
  descriptor opened without following links.

Stdlib only: the save path imports this.
"""
from __future__ import annotations

import errno
import os
import stat

from .errors import StorageError

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
CLOEXEC = getattr(os, "O_CLOEXEC", 0)
BINARY = getattr(os, "O_BINARY", 0)
POSIX = os.name == "posix"


def is_link(path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def link_on_path(path, base=None) -> str | None:
    """The first symbolic link among `path` and its folders below `base` (exclusive), else
    None. A `.cursor` a clone carries as a link would otherwise take every write elsewhere;
    folders above the project are the user's business. Without a base, `path` alone."""
    path = os.path.abspath(os.fspath(path))
    stop = os.path.abspath(os.fspath(base)) if base is not None else os.path.dirname(path)
    if not (path + os.sep).startswith(stop.rstrip(os.sep) + os.sep):
        stop = os.path.dirname(path)
    chain = []
    p = path
    while p != stop and len(p) > len(stop):
        chain.append(p)
        p = os.path.dirname(p)
    for p in reversed(chain):
        if is_link(p):
            return p
    return None


def describe(e: OSError, path) -> str:
    """An OSError as one line: what happened to which file."""
    reason = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up",
              errno.EROFS: "the file system is read-only", errno.EACCES: "permission denied",
              errno.EPERM: "permission denied", errno.ELOOP: "it is a symbolic link",
              errno.EFBIG: "the file is too large for this system",
              errno.EISDIR: "it is a folder"}.get(e.errno, e.strerror or str(e))
    return f"cannot write {path}: {reason}"


def _open(path, flags: int, mode: int = 0o600) -> int:
    if not NOFOLLOW and is_link(path):  # Windows: no O_NOFOLLOW
        raise StorageError(f"cannot write {path}: it is a symbolic link")
    try:
        return os.open(path, flags | NOFOLLOW | CLOEXEC | BINARY, mode)
    except OSError as e:
        if e.errno == errno.ELOOP or (e.errno == errno.EMLINK and is_link(path)):
            raise StorageError(f"cannot write {path}: it is a symbolic link "
                               "(cursor-memory never writes through links)") from None
        raise StorageError(describe(e, path)) from None


def open_append(path) -> int:
    """A descriptor for appending to `path` (created 0600); StorageError for a link."""
    return _open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)


def open_private(path) -> int:
    """A read-write descriptor (created 0600, never truncated); StorageError for a link."""
    return _open(path, os.O_RDWR | os.O_CREAT)


def replace_link(path) -> bool:
    """Remove `path` when it is a symbolic link (the link, never its target): for runtime
    files that are ours by name (locks, state, logs, caches). True when one was removed."""
    if is_link(path):
        try:
            os.unlink(path)
            return True
        except OSError:
            return False
    return False


def write_atomic(path, data) -> None:
    """Replace `path` with `data` (bytes or text) so that readers see the old file or the new
    one, never a part: an exclusive temp file beside it, fsynced, then renamed over it."""
    if isinstance(data, str):
        data = data.encode("utf-8", "replace")
    path = os.fspath(path)
    tmp = f"{path}.{os.getpid()}.{os.urandom(3).hex()}.tmp"
    fd = _open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as e:
        _unlink_quietly(tmp)
        raise StorageError(describe(e, path)) from None
    except BaseException:
        _unlink_quietly(tmp)
        raise
    _fsync_dir(os.path.dirname(path) or ".")


def _unlink_quietly(path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _fsync_dir(folder: str) -> None:
    if not POSIX:
        return
    try:
        fd = os.open(folder, os.O_RDONLY | CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def make_private_dir(path) -> None:
    """Create a folder (and its parents) as 0700; StorageError when it is a link or cannot
    be made."""
    path = os.fspath(path)
    if is_link(path):
        raise StorageError(f"cannot use {path}: it is a symbolic link "
                           "(cursor-memory never writes through links)")
    if os.path.isdir(path):
        return
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except OSError as e:
        raise StorageError(describe(e, path)) from None
    if POSIX:
        make_private(path)


def make_private(path) -> bool:
    """0700 for a folder, 0600 for a file, changed through a descriptor opened without
    following links (a link is left alone). True when the mode is right afterwards."""
    if not POSIX:
        return True
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        want = 0o700 if stat.S_ISDIR(st.st_mode) else 0o600
        if stat.S_IMODE(st.st_mode) & 0o077 or (stat.S_IMODE(st.st_mode) & want) != want:
            os.fchmod(fd, want)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def private_problems(root) -> list:
    """Bring a memory folder's own files to 0600 and its folders to 0700 (POSIX); returns
    what could not be fixed or must not be touched, a line each (symbolic links, modes that
    would not change). Cheap: one lstat per entry, a chmod only where the mode is wrong."""
    problems: list = []
    if not POSIX:
        return problems
    for folder in (root, os.path.join(root, "daily"), os.path.join(root, "quarantine")):
        try:
            st = os.lstat(folder)
        except FileNotFoundError:
            continue
        except OSError as e:
            problems.append(f"{folder}: {e.strerror}")
            continue
        if stat.S_ISLNK(st.st_mode):
            problems.append(f"{folder} is a symbolic link (not used)")
            continue
        if stat.S_IMODE(st.st_mode) & 0o077 and not make_private(folder):
            problems.append(f"{folder} is {oct(stat.S_IMODE(st.st_mode))} and could not be made 0700")
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                est = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISLNK(est.st_mode):
                problems.append(f"{entry.path} is a symbolic link (not read, not written)")
            elif stat.S_ISREG(est.st_mode) and stat.S_IMODE(est.st_mode) & 0o077:
                if not make_private(entry.path):
                    problems.append(f"{entry.path} is {oct(stat.S_IMODE(est.st_mode))} and "
                                    "could not be made 0600")
    return problems
