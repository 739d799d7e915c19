"""Small helpers for tests that save to a store and search it."""


def ids(hits):
    """The ids of search hits, in order."""
    return [h.id for h in hits]


def at(monkeypatch, when: str) -> None:
    """Today is `when` (ISO) for what follows."""
    monkeypatch.setenv("CURSOR_MEMORY_NOW", when)


def days(query: str, now) -> tuple | None:
    """("first day", "day after the last") of the stretch a query names, ISO, or None; `now`:
    a datetime or an ISO string."""
    from datetime import datetime

    from memory_core.temporal import parse
    if isinstance(now, str):
        now = datetime.fromisoformat(now.replace("Z", "+00:00"))
    h = parse(query, now)
    return (h.start.date().isoformat(), h.end.date().isoformat()) if h.start else None


def saved(mem, notes) -> list:
    """Save each note as a fact; their ids."""
    return [mem.save_fact(n)["id"] for n in notes]


def named_days(text: str, written) -> list:
    """The days a record written at `written` (a datetime, or an ISO day at 10:00 UTC) names,
    as "YYYY-MM-DD" or "first/last" strings (temporal.mentions)."""
    from datetime import datetime

    from memory_core.temporal import mentions
    if isinstance(written, str):
        written = datetime.fromisoformat(written + "T10:00:00+00:00")
    return [a.isoformat() if a == b else f"{a.isoformat()}/{b.isoformat()}"
            for a, b in mentions(text, written)]


def first(mem, query, **kw) -> list:
    """The first hit's id of a keyword search (unless `mode` says otherwise), as a list."""
    return ids(mem.search(query, **{"mode": "fts", **kw}))[:1]


# Notes of both languages about nothing the cross-language tests ask (tests/test_across_languages*.py)
BILINGUAL_BACKGROUND = [
    "Dashboards live in the infra repo", "Lunch is at noon", "The nightly job writes to the reports bucket",
    "We use pnpm workspaces", "The API uses REST", "Tickets go to Jira", "Standup is at ten",
    "Builds run on GitHub Actions", "The staging cluster has three nodes",
    "Design reviews happen on Thursdays", "Use conventional commits", "Node 20 is required",
    "部署窗口是周五晚上", "周会改到周三上午", "前端用 React 18", "监控告警发到值班群", "设计稿在 Figma 里",
    "测试环境每天早上重置", "周报每周五下午交", "新人入职先配开发环境", "接口文档放在语雀", "发版前要跑冒烟测试",
    "办公室周末不开空调", "团建定在下个月",
]


def forget_search_caches() -> None:
    """What a fresh process has: no sample of the store (nor its tables), no records'
    indexed text kept (memory_core.search)."""
    from memory_core import search
    with search._SAMPLE_LOCK:
        for sample in search._samples.values():
            for share in sample.values():
                share.close()
        search._samples.clear()
    search._indexed_rows.clear()


def daily_line(mem, content, day, session, **extra):
    """A daily line saved on `day` (YYYY-MM-DD) in `session`, as a hook or the agent would."""
    from memory_core import jsonl
    record = {"id": f"log-{day.replace('-', '')}-{len(content):03d}{abs(hash(content)) % 10**6}",
              "type": "fact", "memory_type": "W", "content": content, "entities": [],
              "timestamp": f"{day}T10:00:00Z", "source": {"session": session}, **extra}
    jsonl.append(mem.root / "daily" / f"{day}.jsonl", record)
    return record
