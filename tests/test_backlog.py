"""The embedding backlog never holds up a search or a hook, and no text is embedded twice
(issue #15). The model is real (the offline test model); deadlines are shortened so a test
can show a hook stopping at one and the next one going on."""
import time

import pytest

from hookutil import call, cursor
from memory_core import Memory, vectors
from memory_core.consolidate import read_facts


def pending(mem) -> int:
    return mem.index.run(vectors.count_pending)


def test_a_search_does_not_wait_for_a_backlog_of_500_records(mem):
    for i in range(500):
        mem.save_fact(f"backlog record {i}: the deploy of service s{i} went through stage {i % 7}")
    mem.search("warm up", mode="fts")  # the text index is built; no vector yet
    assert pending(mem) >= 500
    mem.embedder()  # the model is loaded (a warm process)
    hits = mem.search("deploy of service s42", limit=5)
    # not timed (a busy machine failed a 1.5 s bound): what shows it did not wait is that it
    # embedded a few of the 500 (its 0.2 s) and answered the rest by keyword
    assert hits and "s42" in hits[0].content  # found by keyword
    assert hits.keyword_only >= 400 and any("no vector yet" in n for n in hits.notes)
    assert 0 < 500 - pending(mem) < 200  # the newest few got vectors, the rest wait


@pytest.mark.slow
def test_session_end_stops_at_its_deadline_and_the_next_one_finishes(tmp_path, monkeypatch):
    import memory_core.hooks as hooks
    monkeypatch.setenv("HOME", str(tmp_path))
    proj = tmp_path / "p"
    proj.mkdir()
    mem = Memory(proj / ".cursor/skills/memory-data")
    for i in range(1500):
        mem.save_fact(f"burst fact {i}: host h{i} listens on port {2000 + i}")
    monkeypatch.setattr(hooks, "SESSION_END_SECONDS", 3.0)
    embedded = []
    real_store = vectors.store

    def counting_store(conn, items):
        n = real_store(conn, items)
        embedded.extend(it.pk for it, _ in items)
        return n
    monkeypatch.setattr(vectors, "store", counting_store)
    started = time.perf_counter()
    call("sessionEnd", cursor("sessionEnd", proj, conv="a"))
    assert time.perf_counter() - started < 3.0 + 4.0  # one batch group past the deadline at most
    assert pending(mem) > 0  # cut short...
    for n in range(40):
        if not pending(mem) and len(read_facts(mem.root)) == 1500:
            break
        call("sessionEnd", cursor("sessionEnd", proj, conv=f"next-{n}"))
    assert pending(mem) == 0 and len(read_facts(mem.root)) == 1500  # ...and finished later
    assert len(embedded) == len(set(embedded))  # nothing embedded twice
    model_made = {pk for pk in embedded}
    daily = mem.index.run(lambda c: {pk for (pk,) in c.execute(
        "SELECT pk FROM chunks WHERE source_file LIKE 'daily/%' AND vec_want IS NOT NULL")})
    assert model_made <= daily  # the facts' vectors were copies of their lines'


def test_a_consolidated_fact_reuses_its_lines_vector(mem):
    mem.save_fact("The queue retries failed jobs three times")
    mem.sync()
    mem.consolidate()
    fill = mem.embed()  # the consolidated fact is the only record without a vector
    assert fill.reused >= 1 and fill.left == 0
    assert fill.embedded == 0  # no text went to the model again
    fact = mem.search("queue retries", limit=1)[0]
    assert fact.source_file == "facts.jsonl" and fact.vec_rank is not None


def test_embed_makes_the_whole_backlog_with_a_progress_report(mem):
    for i in range(40):
        mem.save_fact(f"note {i} for the embed command")
    mem.sync(embed=False)
    seen = []
    fill = mem.embed(progress=lambda done, total: seen.append((done, total)))
    assert fill.left == 0 and pending(mem) == 0 and fill.embedded + fill.reused >= 40
    assert seen and seen[-1][0] == seen[-1][1]


@pytest.mark.parametrize("texts", [["短"] * 3, ["a much longer text " * 30, "x", "y" * 200, "中文" * 50]])
def test_batches_are_grouped_by_length_and_every_text_is_planned_once(texts):
    from memory_core.embeddings import plan_batches
    batches = plan_batches(texts * 10, workers=2)
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(len(texts) * 10))
    assert len(batches) >= 2  # both cores have work
    from memory_core.text import count_tokens
    for b in batches:  # padded size stays bounded
        from memory_core.embeddings import BATCH_TOKENS
        assert len(b) == 1 or max(count_tokens((texts * 10)[i]) for i in b) * len(b) <= BATCH_TOKENS
