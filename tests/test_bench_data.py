"""The MADial-shaped stores of bench/data are what the MADial floor is judged on here, so a
malformed one would move a reported figure without anyone seeing why: every label must
name a stored memory, and every dialogue must read as a chat, the way search reads it."""
import json
from pathlib import Path

import pytest

from memory_core import text

DATA = Path(__file__).resolve().parent.parent / "bench" / "data"
MADIAL_SHAPED = sorted(p.name for p in DATA.glob("heldout-madial-*") if p.is_dir())


def _records(store: Path) -> dict:
    out = {}
    for day in sorted((store / "daily").glob("*.jsonl")):
        for line in day.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            assert record["timestamp"].startswith(day.stem), (day.name, record["id"])
            assert record["id"] not in out, record["id"]
            out[record["id"]] = record
    return out


def test_there_are_four_madial_shaped_stores_by_other_writers():
    assert MADIAL_SHAPED == ["heldout-madial-adult", "heldout-madial-ken",
                             "heldout-madial-mia", "heldout-madial-zh"]


@pytest.mark.parametrize("name", MADIAL_SHAPED)
def test_every_label_names_a_stored_memory_and_every_dialogue_reads_as_a_chat(name):
    store = DATA / name
    records = _records(store)
    queries = [json.loads(line) for line in
               (store / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(queries) == 70 and len({q["qid"] for q in queries}) == 70
    for q in queries:
        assert q["evidence_ids"] and set(q["evidence_ids"]) <= set(records), q["qid"]
        rows = text.lines(text.folded(q["question"]))
        chat = text.chat_of(rows)
        assert chat.talk and len(chat.lines) == len(rows), q["qid"]
        # a chat, so its words that two turns say count double (text.REPEATED_WEIGHT)
        assert not text.own_lines(rows, chat), q["qid"]
