"""Append-only JSONL: one locked `write()` per record, and a reader that survives anything.

The failures this guards against are the ones other memory tools shipped (see
../shared/docs/anchors.md §7): whole-file rewrites racing, records glued together by a
missing newline, lost writes across processes.
"""
from __future__ import annotations

import json
import os

from .locks import lock_fd, unlock_fd

MAX_LINE = 1_000_000  # bytes; a longer line is skipped as malformed, never loaded


def dumps(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def append(path, records) -> None:
    """Append records as complete lines, atomically with respect to other writers.

    O_APPEND puts every write at the end even across processes; the exclusive lock keeps a
    concurrent reader-writer (compaction) out; a torn last line left by a crash gets its
    newline first, so it stays a line of its own instead of swallowing our record.
    """
    if isinstance(records, dict):
        records = [records]
    data = "".join(dumps(r) + "\n" for r in records).encode("utf-8")
    while True:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            lock_fd(fd)
            try:
                if os.fstat(fd).st_ino != _inode(path):
                    continue  # compacted (renamed over) while we waited: append to the new file
                size = os.fstat(fd).st_size
                if size:
                    os.lseek(fd, size - 1, os.SEEK_SET)
                    if os.read(fd, 1) != b"\n":
                        data = b"\n" + data
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                return
            finally:
                unlock_fd(fd)
        finally:
            os.close(fd)


def _inode(path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


class Batch:
    """What one read produced: records with their line numbers, where to resume, and the
    lines that were skipped. (A plain class: dataclasses costs save_fact 6 ms to import.)"""

    def __init__(self, offset: int = 0, line_no: int = 0):
        self.records: list = []  # [(line_no, dict)]
        self.offset = offset
        self.line_no = line_no
        self.skipped: list = []  # [(line_no, reason)]


def read(path, offset: int = 0, line_no: int = 0) -> Batch:
    """Read complete lines from byte `offset`. A last line without its newline is left for
    later (it may still be being written); a malformed line is skipped and reported."""
    batch = Batch(offset=offset, line_no=line_no)
    with open(path, "rb") as f:
        f.seek(offset)
        data = f.read()
    end = data.rfind(b"\n") + 1
    if not end:
        return batch
    pos = 0
    n = line_no
    while pos < end:
        nl = data.index(b"\n", pos)
        raw = data[pos:nl]
        pos = nl + 1
        n += 1
        if not raw.strip():
            continue
        record, reason = _parse(raw)
        if record is None:
            batch.skipped.append((n, reason))
        else:
            batch.records.append((n, record))
    batch.offset = offset + end
    batch.line_no = n
    return batch


def _parse(raw: bytes):
    if len(raw) > MAX_LINE:
        return None, f"line of {len(raw)} bytes is over the {MAX_LINE} byte limit"
    if b"\x00" in raw:
        return None, "contains NUL bytes"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return None, f"invalid UTF-8 at byte {e.start}"
    try:
        record = json.loads(text)
    except ValueError as e:
        return None, f"not JSON ({e.msg} at column {e.colno})"
    if not isinstance(record, dict):
        return None, "not a JSON object"
    return record, None
