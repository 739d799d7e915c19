"""The JSONL source of truth: complete, locked, atomic lines; a reader that never aborts."""
import json
import multiprocessing
import os

from memory_core import jsonl


def test_append_writes_one_complete_line_per_record(tmp_path):
    path = tmp_path / "a.jsonl"
    jsonl.append(path, {"id": "1", "content": "决定使用 Redis"})
    jsonl.append(path, [{"id": "2"}, {"id": "3"}])
    data = path.read_bytes()
    assert data.endswith(b"\n")
    assert [json.loads(line)["id"] for line in data.splitlines()] == ["1", "2", "3"]
    assert "决定使用 Redis" in data.decode("utf-8")  # readable, not \u-escaped


def test_new_files_are_private(tmp_path):
    path = tmp_path / "a.jsonl"
    jsonl.append(path, {"id": "1"})
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_reader_leaves_an_unterminated_last_line_for_later(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"id":"1"}\n{"id":"2"')
    batch = jsonl.read(path)
    assert [r["id"] for r in batch.records] == ["1"]
    assert batch.offset == len(b'{"id":"1"}\n')
    with open(path, "ab") as f:
        f.write(b"}\n")
    more = jsonl.read(path, batch.offset, batch.line_no)
    assert [(ln.number, ln.record["id"]) for ln in more.lines] == [(2, "2")]


def test_torn_line_is_neither_lost_nor_glued_to_the_next_record(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"id":"1"}\n{"id":"torn","content":"half')  # a crash mid-write
    jsonl.append(path, {"id": "2"})
    lines = path.read_bytes().splitlines()
    assert lines[1] == b'{"id":"torn","content":"half'  # still there, on its own line
    batch = jsonl.read(path)
    assert [r["id"] for r in batch.records] == ["1", "2"]
    assert batch.skipped and batch.skipped[0][0] == 2


def test_malformed_lines_are_skipped_with_their_line_numbers(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes(
        b'{"id":"ok1"}\n'
        b"not json\n"
        b'["a list"]\n'
        b'{"id":"bad\xff\xfe utf8"}\n'
        b'{"id":"nul\x00"}\n'
        + b'{"id":"huge","content":"' + b"x" * (jsonl.MAX_LINE + 10) + b'"}\n'
        + b"\n"
        + b'{"id":"ok2"}\n')
    batch = jsonl.read(path)
    assert [r["id"] for r in batch.records] == ["ok1", "ok2"]
    assert [n for n, _ in batch.skipped] == [2, 3, 4, 5, 6]
    reasons = " | ".join(r for _, r in batch.skipped)
    for word in ("not JSON", "not a JSON object", "UTF-8", "NUL", "limit"):
        assert word in reasons


def _writer(args):
    path, worker, n = args
    for i in range(n):
        jsonl.append(path, {"id": f"{worker}-{i}", "content": "并发写入 concurrent " * 20})


def test_concurrent_appends_from_many_processes_lose_nothing(tmp_path):
    path = str(tmp_path / "a.jsonl")
    with multiprocessing.get_context("fork").Pool(8) as pool:
        pool.map(_writer, [(path, w, 150) for w in range(8)])
    batch = jsonl.read(path)
    assert not batch.skipped
    ids = [r["id"] for r in batch.records]
    assert len(ids) == len(set(ids)) == 8 * 150
