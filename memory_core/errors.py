"""The exceptions cursor-memory raises. Each message is one line a user can act on.

    CursorMemoryError
    ├── UserError        bad input (a flag, a record, an id): exit 2, nothing written
    ├── StorageError     the disk said no (full, read-only, a symbolic link, permission):
    │                    exit 1, the files exactly as before
    └── IndexError_      the derived index cannot be used as it is
        └── NeedsRebuild     ... and is rebuilt from the files

Driver exceptions (sqlite3, sqlean) never leave `index.py`: `index.classify` sorts them into
these. Stdlib only: the save path imports this.
"""
from __future__ import annotations


class CursorMemoryError(Exception):
    """A problem whose message is one line the user can act on."""

    exit_code = 1


class UserError(CursorMemoryError):
    """Bad input: a flag, an argument, a record. Nothing was written."""

    exit_code = 2


class StorageError(CursorMemoryError):
    """The file system refused (full disk, read-only folder, a symbolic link where a file
    should be, permission). Nothing was half-written."""


class IndexError_(CursorMemoryError):
    """index.sqlite cannot be used as it is (named with a trailing _ so the builtin
    IndexError is not shadowed)."""


class NeedsRebuild(IndexError_):
    """index.sqlite is damaged, outdated or of another shape: rebuild it from the files."""
