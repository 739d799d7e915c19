"""What an agent reads back: search results and save receipts as text, the same from the
CLI scripts and the MCP tools.

Stored text is rendered as one item per hit (`sanitize.render_item`): its line breaks are
shown as " ↵ ", so no stored line can begin a heading, a list or a fence of its own, and
look-alikes of the context fence are defused (docs/security.md).
"""
from __future__ import annotations

from .sanitize import render_item


def hit_lines(i: int, h) -> list:
    """One search hit (a search.Hit) as its lines of text."""
    r = render_item  # every stored field, not only the content: ids and names come from files too
    label = r(h.type + (f" {h.memory_type}" if h.memory_type else ""))
    where = f"{r(h.section)} ({r(h.source_file)})" if h.section else r(h.source_file)
    ranks = ", ".join(x for x in (f"fts #{h.fts_rank}" if h.fts_rank else "",
                                  f"vec #{h.vec_rank}" if h.vec_rank else "",
                                  f"days named #{h.dated_rank}" if h.dated_rank else "",
                                  f"reply to {r(h.reply_to)}" if h.reply_to else "") if x)
    status = "" if h.status == "active" else (
        f" ({r(h.status)}" + (f" by {r(h.superseded_by)}" if h.superseded_by else "") + ")")
    lines = [f"{i}. [{label}]{status} {r(h.content)}",
             f"   {r(h.id)} · {where} · {r((h.timestamp or '')[:16].replace('T', ' '))} · "
             f"score {h.score:.4f}" + (f" ({ranks})" if ranks else "")]
    if len(h.evidence) > 1:
        lines.append(f"   evidence: {', '.join(r(e) for e in h.evidence)}")
    if h.refs:
        lines.append("   refs: " + ", ".join(render_item(r["ref"]) + (
            "" if r["exists"] is not False else " (missing)") for r in h.refs))
    return lines


def results_text(results) -> str:
    """Search results (search.Results) as text; 'no memories found' when empty."""
    if not results:
        return "no memories found"
    return "\n".join(line for i, h in enumerate(results, 1) for line in hit_lines(i, h))


def hit_dict(h) -> dict:
    """A hit as JSON for tools: its content rendered like the text, no nulls."""
    def rendered(v):
        if isinstance(v, str):
            return render_item(v)
        if isinstance(v, list):
            return [rendered(x) for x in v]
        if isinstance(v, dict):
            return {k: rendered(x) for k, x in v.items()}
        return "" if v is None else v
    return {k: rendered(v) for k, v in h.to_dict().items()}


def saved_fact(record: dict, where: str) -> str:
    extra = f", superseding {record['supersedes']}" if record.get("supersedes") else ""
    return f"saved {record['id']} ({record['memory_type']} {record['type']}{extra}) to {where}"


def saved_summary(record: dict) -> str:
    return f"saved {record['id']} to sessions.jsonl"


def forgot(record: dict) -> str:
    return f"forgot {record['target']} (tombstone {record['id']}); nothing was deleted"
