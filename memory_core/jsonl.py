"""Append-only JSONL: one locked `write()` per batch of records, and a reader that survives
anything a line can contain.

The failures this guards against (docs/formats.md "Guarantees"): whole-file rewrites racing,
records glued together by a missing newline, lost writes across processes, a full disk
leaving half a record, a symbolic link steering an append into another file.
"""
from __future__ import annotations

import json
import os
import time
from collections import namedtuple

from .errors import StorageError
from .files import describe, open_append
from .locks import lock_fd, unlock_fd

MAX_LINE = 1_000_000  # bytes; a longer line is skipped as malformed, never loaded

Line = namedtuple("Line", "number offset record")  # 1-based line, byte offset, parsed dict


def dumps(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def append(path, records) -> None:
    """Append records as complete lines, atomically with respect to other writers and to
    failure.

    O_APPEND puts every write at the end even across processes; the exclusive lock keeps a
    concurrent compaction out; a torn last line left by a crash gets its newline first, so it
    stays a line of its own instead of swallowing ours. If the write fails part-way (a full
    disk), the file is cut back to its size before it, so no partial record remains, and
    StorageError says why.
    """
    if isinstance(records, dict):
        records = [records]
    # a stray surrogate becomes "?" rather than a failed save (fields are cleaned before)
    data = "".join(dumps(r) + "\n" for r in records).encode("utf-8", "replace")
    while True:
        fd = open_append(path)
        try:
            lock_fd(fd)
            try:
                if os.fstat(fd).st_ino != _inode(path):
                    continue  # compacted (renamed over) while we waited: append to the new file
                size = os.fstat(fd).st_size
                payload = data
                if size:
                    os.lseek(fd, size - 1, os.SEEK_SET)
                    if os.read(fd, 1) != b"\n":
                        payload = b"\n" + data
                _write_all_or_nothing(fd, payload, size, path)
                return
            finally:
                unlock_fd(fd)
        finally:
            os.close(fd)


def _write_all_or_nothing(fd: int, data: bytes, size: int, path) -> None:
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError as e:
        try:
            os.ftruncate(fd, size)
        except OSError:
            pass  # a reader skips a torn line; nothing better can be done here
        raise StorageError(describe(e, path)) from None


def _inode(path) -> int | None:
    try:
        return os.lstat(path).st_ino
    except FileNotFoundError:
        return None


class Batch:
    """What one read produced: `lines` ([Line]), where to resume (`offset`, `line_no`), the
    lines skipped ([(line number, reason)]), and whether the data ended with a complete line.
    (A plain class: importing dataclasses would slow every save.)"""

    def __init__(self, offset: int = 0, line_no: int = 0):
        self.lines: list = []
        self.offset = offset
        self.line_no = line_no
        self.skipped: list = []

    @property
    def records(self) -> list:
        return [ln.record for ln in self.lines]


def read(path, offset: int = 0, line_no: int = 0, *, data: bytes | None = None,
         limit: int | None = None) -> Batch:
    """Read complete lines from byte `offset` (of the file, or of `data` when given: the
    file's bytes already read). A last line without its newline is left for later (it may
    still be being written); a malformed line is skipped and reported. With `limit`, stop
    after that many lines (the batch's offset says where to go on)."""
    batch = Batch(offset=offset, line_no=line_no)
    if data is None:
        with open(path, "rb") as f:
            f.seek(offset)
            data = settled_tail(f.read(), os.fstat(f.fileno()).st_mtime)
        base = offset
    else:
        base = 0
    pos = offset - base
    end = data.rfind(b"\n") + 1
    n = line_no
    while pos < end:
        if limit is not None and n - line_no >= limit:
            break
        nl = data.index(b"\n", pos)
        raw = data[pos:nl]
        start = pos
        pos = nl + 1
        n += 1
        if not raw.strip():
            continue
        record, reason = parse(raw)
        if record is None:
            batch.skipped.append((n, reason))
        else:
            batch.lines.append(Line(n, base + start, record))
    batch.offset = base + pos
    batch.line_no = n
    return batch


SETTLE_SECONDS = 5.0


def settled_tail(data: bytes, mtime: float) -> bytes:
    """`data` with the newline its last line lacks, when that line is a whole record and the
    file has not changed for SETTLE_SECONDS: not a write in progress but a file that ends
    without a newline (an editor, a merge). Nobody appends to a past day, so such a line
    would otherwise never be read. (An append first ends such a line: `append`.)"""
    cut = data.rfind(b"\n") + 1
    if cut < len(data) and data[cut:].strip() and time.time() - mtime >= SETTLE_SECONDS \
            and parse(data[cut:])[0] is not None:
        return data + b"\n"
    return data


def parse(raw: bytes):
    """(record, None) for a line holding a JSON object, else (None, why not). Never raises:
    a line can hold anything (a 5,000-digit number, 50,000 nested arrays, invalid UTF-8)."""
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
    except RecursionError:
        return None, "nested too deeply"
    except ValueError as e:
        return None, f"not JSON ({str(e)[:120]})"
    except Exception as e:  # noqa: BLE001 - whatever the parser raises, the line is bad
        return None, f"not JSON ({type(e).__name__})"
    if not isinstance(record, dict):
        return None, "not a JSON object"
    return record, None


def record_at(path, offset: int, record_id: str | None = None) -> dict | None:
    """The record on the line starting at byte `offset`, if it is there (and has the id
    `record_id`, when given); None otherwise. For readers that know where a record is from
    the index (consolidation reading the current version of a fact)."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            raw = f.readline(MAX_LINE + 2)
    except OSError:
        return None
    if not raw.endswith(b"\n"):
        return None
    record, _ = parse(raw[:-1])
    if record is None or (record_id is not None and record.get("id") != record_id):
        return None
    return record


def tail(path, max_bytes: int = 256_000) -> list:
    """The records in the last `max_bytes` of a JSONL file, oldest first (the first, cut
    line dropped); [] when the file is missing. For "the last summary" and "was a summary
    saved": sessions.jsonl only grows at its end."""
    from .files import NOFOLLOW
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    except OSError:
        return []
    with os.fdopen(fd, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        start = max(0, size - max_bytes)
        f.seek(start)
        data = f.read()
    lines = data.split(b"\n")
    if start:
        lines = lines[1:]
    out = []
    for raw in lines:
        if raw.strip():
            record, _ = parse(raw)
            if record is not None:
                out.append(record)
    return out


def write_lines(path, records) -> None:
    """Replace a JSONL file with these records, atomically (compaction)."""
    from .files import write_atomic
    write_atomic(path, "".join(dumps(r) + "\n" for r in records))
