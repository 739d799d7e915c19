"""Small helpers for tests that save to a store and search it."""


def ids(hits):
    """The ids of search hits, in order."""
    return [h.id for h in hits]


def at(monkeypatch, when: str) -> None:
    """Today is `when` (ISO) for what follows."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", when)
