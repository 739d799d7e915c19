"""Search: FTS5 BM25 and vector KNN candidates (and BM25 again within the days a query
names) fused with Reciprocal Rank Fusion (Cormack et al., SIGIR 2009), duplicates collapsed
so one fact never fills the top 5 twice, then reranked: session summaries with their
session's lines, and for "what is X now" the newest record about X on top.
docs/retrieval.md has the numbers behind each.
"""
from __future__ import annotations

import json
import math
import re
import sqlite3
import threading
from dataclasses import asdict, dataclass, field, replace
from datetime import date, timedelta
from functools import lru_cache

from . import bilingual, corrections, small_talk, vectors
from .errors import UserError
from .index import FTS_ENTITIES, FTS_TOKENIZER, VEC0_MAX_K, chunks_passing
from .sync import parent_of, tail_of
from .text import (ASKS, REASON_WORD, asked_about, blanked, folded, index_terms, match_of,
                   name_phrase, said_by, weighted_terms, with_reason, words, written_names)

MODES = ("hybrid", "fts", "vector")
# Each setting below is measured in docs/retrieval.md (tune and check halves, ablations,
# cross-validation); the numbers live there, not here.
#
# Weighted RRF with a small k: the textbook k=60 with equal weights lets the weaker list drag
# the stronger one down; a small k trusts the top of each list. The vector weight belongs to
# the model (re-tune it with another one); both are in config.json.
RRF_K = 2
VECTOR_WEIGHT = 0.3
BM25_WEIGHTS = (1.0, 0.5, 0.0)  # content, entities (+heading/topic/neighbour), type

# "What is X now": of the first ABOUT_DEPTH dated hits, those that contain at least
# ABOUT_SHARE of the query words the best of them contains are about X; the newest goes first.
ABOUT_DEPTH = 10
ABOUT_SHARE = 0.5
ABOUT_SPAN = 100  # a question about now: the hits judged so no replaced value precedes them
DIGESTS = ("core", "session_summary")  # many facts, no single time: never promoted
# A session summary digests the lines saved in its session: when one of them matches, the
# summary gains this share of that line's score.
SESSION_SHARE = 0.25
# A summary's part that says what a line of its session says (same_statement) gives the
# line its place among the first PARTS_DEPTH of a candidate list (lines_over_parts).
PART_IN_LINE = 0.8
PARTS_DEPTH = 100
# In a conversation a question's words are in the line that asks it and its answer in the
# line after: the reply to a question among the first REPLY_DEPTH hits scores REPLY_LIFT
# times the question, so it comes just above it (docs/retrieval.md "Replies"). When the
# query's words are only in what the line says, none in what it asks ("Guess what I did
# this week? I applied to adoption agencies!"), the line is the answer and its reply
# scores REPLY_AFTER times it: just below it.
REPLY_LIFT = 1.2
REPLY_AFTER = 0.99
REPLY_DEPTH = 5
REPLY_SOURCES = 8  # of a hit's ids and merged lines, the ones tried for a reply
# A question in one language also finds notes in the other: the records its glossary terms'
# words in the other language find join its keyword list, every record scored by the
# question's concepts in either language (across_languages; bilingual.py, docs/retrieval.md
# "Across languages"). False: the question's own words only.
BRIDGE = True
# Of the question's keyword list and the bridge's, the records scored across languages:
# the whole first list of a search for up to 10 results, and a bound when a search asks
# again for more (a store of many copies of one long note: seconds without it).
BRIDGE_RESCORED = 20
# The postings the bridge's search may score: a quarter of the main query's, and a term more
# common than that is dropped (in a big store it says little; a speed bound: on 100k
# records the bridge doubled a keyword search's time without it).
BRIDGE_POSTINGS = 5_000
# Postings a keyword query may score (see affordable): a speed bound, not a quality rule.
POSTINGS_BUDGET = 20_000


@dataclass
class Hit:
    id: str
    content: str
    type: str
    memory_type: str | None
    entities: list
    confidence: float
    source_file: str
    timestamp: str | None
    score: float
    fts_rank: int | None = None  # 1-based rank among keyword candidates
    fts_score: float | None = None  # BM25, higher is better
    vec_rank: int | None = None
    vec_score: float | None = None  # cosine similarity
    dated_rank: int | None = None  # 1-based rank among the records of the days the query names
    evidence: list = field(default_factory=list)  # ids of the records merged into this hit
    section: str | None = None  # MEMORY.md heading
    source_id: str | None = None
    refs: list = field(default_factory=list)  # [{"ref": "file:src/a.ts", "exists": True}]
    status: str = "active"  # or forgotten / superseded (only with history)
    superseded_by: str | None = None
    norm: str | None = field(default=None, repr=False)
    pk: int | None = field(default=None, repr=False)
    reply_to: str | None = None  # the question this hit answers, when that brought it up

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("norm")
        d.pop("pk")
        return d


class Results(list):
    """A list of Hits, plus `notes` (why results may be partial: no model, a read-only
    folder, ...) and `keyword_only`: how many records have no vector yet, so that only a
    keyword match could find them."""

    def __init__(self, hits=(), notes=(), keyword_only: int = 0):
        super().__init__(hits)
        self.notes = list(notes)
        self.keyword_only = keyword_only


@dataclass
class Ranked:
    """A candidate after fusion."""
    pk: int
    score: float
    fts_rank: int | None = None
    fts_score: float | None = None
    vec_rank: int | None = None
    vec_score: float | None = None
    dated_rank: int | None = None


@dataclass(frozen=True)
class During:
    """Written in a stretch of time, or naming a day in it."""
    since: str  # UTC ISO
    until: str
    first_day: str  # local YYYY-MM-DD
    last_day: str


@dataclass
class Filters:
    types: list | None = None
    memory_types: list | None = None
    since: str | None = None  # UTC ISO
    until: str | None = None
    ref_targets: list | None = None  # file paths (with their former names) or ids
    history: bool = False  # also forgotten and superseded records
    during: During | None = None
    past: bool = False  # also superseded records: a question about a past time (see run)

    def sql(self, alias: str = "c"):
        """(WHERE fragment over chunks, params). Archived transcripts only when asked for;
        forgotten records only with history, superseded ones with history or past."""
        clauses, params = [], []
        if not self.history:
            visible = corrections.VISIBLE
            clauses.append(f"{alias}.hidden IN ({visible}, {corrections.SUPERSEDED})" if self.past
                           else f"{alias}.hidden = {visible}")
        if self.ref_targets:
            clauses.append(f"{alias}.pk IN (SELECT pk FROM refs WHERE target IN "
                           f"({','.join('?' * len(self.ref_targets))}))")
            params += self.ref_targets
        if self.types:
            clauses.append(f"{alias}.type IN ({','.join('?' * len(self.types))})")
            params += self.types
        else:
            clauses.append(f"{alias}.type != 'transcript'")
        if self.memory_types:
            clauses.append(f"{alias}.memory_type IN ({','.join('?' * len(self.memory_types))})")
            params += self.memory_types
        if self.since:
            clauses.append(f"{alias}.timestamp >= ?")
            params.append(self.since)
        if self.until:
            clauses.append(f"{alias}.timestamp <= ?")
            params.append(self.until)
        if self.during:
            d = self.during
            clauses.append(f"({alias}.timestamp >= ? AND {alias}.timestamp <= ? OR {alias}.pk IN "
                           "(SELECT pk FROM mentions WHERE first <= ? AND last >= ? AND ahead = 0))")
            params += [d.since, d.until, d.last_day, d.first_day]
        return " AND ".join(clauses), params

    @classmethod
    def of(cls, type=None, memory_type=None, since=None, until=None, ref_targets=None,
           history: bool = False) -> "Filters":
        """Filters from the API's and CLI's arguments, checked (UserError when one is bad)."""
        from .config import date_bound
        from .records import memory_types, search_types
        start = date_bound(since) if since else None
        end = date_bound(until, end=True) if until else None
        if start and end and end < start:
            raise UserError(f"until ({until}) is before since ({since}): nothing can be in between")
        return cls(search_types(type), memory_types(memory_type), start, end, ref_targets, history)

    def plain(self) -> bool:
        """Only the default filters (no forgotten or transcript records, superseded ones only
        for a question about the past)? They pass nearly every row."""
        return not (self.types or self.memory_types or self.since or self.until
                    or self.ref_targets or self.history or self.during)

    def within(self, start, end) -> "Filters":
        """These filters, narrowed to records written in [start, end) (aware local
        midnights) or that name a day in it."""
        from dataclasses import replace

        from .config import iso
        last = end - timedelta(seconds=1)
        return replace(self, during=During(iso(start), iso(last), start.date().isoformat(),
                                           last.date().isoformat()))

    def vec0(self):
        """The same filters on vec0's metadata columns."""
        out = []
        if self.types:
            out.append((f"type IN ({','.join('?' * len(self.types))})", self.types))
        if self.memory_types:
            out.append((f"memory_type IN ({','.join('?' * len(self.memory_types))})", self.memory_types))
        if self.since:
            out.append(("ts >= ?", [self.since]))
        if self.until:
            out.append(("ts <= ?", [self.until]))
        return out


def fts_candidates(conn, query: str, filters: Filters, k: int, terms: list | None = None,
                   budget: int | None = None, keep_rarest: bool = True,
                   counts: dict | None = None) -> list:
    """[(pk, bm25 score, higher better)]; `terms`: these (phrase, weight) instead of the
    query's own; `budget`, `keep_rarest`: what they may cost (affordable)."""
    if terms is None:
        terms = weighted_terms(query)
    match = match_of(affordable(conn, terms, budget, keep_rarest, counts))
    if not match:
        return []
    where, params = filters.sql()
    if filters.plain():
        # Joining chunks to filter costs a lookup per matching row, half the query time at
        # 100k records: rank in the FTS table alone, then filter the best 4k (hidden and
        # transcript rows are few among them; when too many are, the joined query decides).
        rows = conn.execute("SELECT rowid, bm25(chunks_fts, ?, ?, ?) AS s FROM chunks_fts "
                            "WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?",
                            (*BM25_WEIGHTS, match, 4 * k)).fetchall()
        ok = chunks_passing(conn, [r[0] for r in rows], where, params)
        hits = [(pk, -s) for pk, s in rows if pk in ok][:k]
        if len(hits) == k or len(rows) < 4 * k:
            return hits
    sql = ("SELECT c.pk, bm25(chunks_fts, ?, ?, ?) AS s FROM chunks_fts "
           "JOIN chunks c ON c.pk = chunks_fts.rowid WHERE chunks_fts MATCH ?"
           + (" AND " + where if where else "") + " ORDER BY s LIMIT ?")
    rows = conn.execute(sql, (*BM25_WEIGHTS, match, *params, k)).fetchall()
    return [(pk, -s) for pk, s in rows]


def _own_terms(query: str) -> list:
    """The keyword phrases of the question as asked, in both languages (without the reason
    word `with_reason` adds)."""
    concepts = bilingual.concepts(query) if BRIDGE else []
    return weighted_terms(query) + bilingual.other_terms(concepts)


def only_reasons(conn, own: list) -> set:
    """The records that hold the reason word `with_reason` adds (or its other-language
    words) and none of the question's own phrases `own`: "原因：磁盘满了" for "为什么 build
    这么慢". One FTS5 query (a rowid list beside a MATCH runs the MATCH once a rowid)."""
    reasons = [(REASON_WORD, 1)] + (bilingual.other_terms(bilingual.concepts(REASON_WORD))
                                    if BRIDGE else [])
    said = match_of(reasons)
    asked = match_of(list({t: 1 for t, _ in own}.items()))
    match = f"({said}) NOT ({asked})" if asked else said
    return {r[0] for r in conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?",
                                       (match,))}


def as_written(conn, found: list, names: list[str]) -> list:
    """A keyword list in which a name of the query (text.written_names: "what's
    HARBOR_BATTLE") counts twice in the records that write it as the query does, not inside
    a longer name: the index matches it by its parts, which `harbor-battle` shares, so
    without this every record saying harbor-battle ties with the one naming the stream.
    Twice, not first: a line that only mentions `user_id` does not pass the one that
    answers the rest of the question. Only the first PARTS_DEPTH entries are rescored."""
    head = found[:PARTS_DEPTH]
    if not names or not head:
        return found
    pks = [pk for pk, _ in head]
    contents = dict(conn.execute(f"SELECT pk, lower(content) FROM chunks WHERE pk IN "
                                 f"({','.join('?' * len(pks))})", pks))
    extra: dict = {}
    for name in names:  # touching no Latin letter, digit, _ or - (Chinese may touch it)
        whole = re.compile(rf"(?<![a-z0-9_-]){re.escape(name)}(?![a-z0-9_-]|\.[a-z0-9])")
        held = [pk for pk in pks if whole.search(contents.get(pk) or "")]
        if not held:
            continue
        sql = (f"SELECT rowid, bm25(chunks_fts, ?, ?, ?) FROM chunks_fts WHERE chunks_fts MATCH ? "
               f"AND rowid IN ({','.join('?' * len(held))})")
        for pk, score in conn.execute(sql, (*BM25_WEIGHTS, match_of([(name_phrase(name), 1)]), *held)):
            extra[pk] = extra.get(pk, 0.0) - score
    if not extra:
        return found
    return sorted(((pk, s + extra.get(pk, 0.0)) for pk, s in head), key=lambda x: -x[1]) + found[PARTS_DEPTH:]


def _any_replaced(conn, found: list) -> bool:
    return conn.execute(f"SELECT 1 FROM chunks WHERE hidden = {corrections.SUPERSEDED} AND pk IN "
                        f"({','.join('?' * len(found))}) LIMIT 1", [pk for pk, _ in found]
                        ).fetchone() is not None


def _union(*lists) -> list:
    """Candidate lists of one scoring (bm25() weighs by the whole table) as one, best first."""
    best: dict = {}
    for found in lists:
        for pk, score in found:
            best[pk] = max(best.get(pk, score), score)
    return sorted(best.items(), key=lambda x: -x[1])


def lines_over_parts(conn, found: list) -> list:
    """A candidate list in which a session summary's part that says what a line of the same
    session says (`same_statement`) gives that line its place: the line is the record (its
    own time, its own supersedes), the part a copy that ranks higher only for being short
    and carrying the summary's topic. The summary keeps its other parts and its share of its
    lines (rerank). Only the first PARTS_DEPTH entries are looked at. docs/retrieval.md
    "Lines over parts"."""
    head = found[:PARTS_DEPTH]
    if not head:
        return found
    pks = [pk for pk, _ in head]
    rows = {r["pk"]: r for r in _rows(
        conn, f"SELECT pk, id, type, source_id, content, hidden, evidence FROM chunks WHERE pk IN "
              f"({','.join('?' * len(pks))})", pks)}
    # a summary's parts, by the session they digest; a summary saved without a session is
    # its own source, and its parts have no lines
    parts = {pk: r["source_id"] for pk, r in rows.items() if r["type"] == "session_summary"
             and (parent := parent_of(r["id"], json.loads(r["evidence"] or "[]")))
             and r["source_id"] not in (None, parent)}
    lines: dict = {}  # session -> [pk], best first; a forgotten line (--history) never moves up
    for pk in pks:
        r = rows.get(pk)
        if (r and r["source_id"] in parts.values() and r["type"] not in DIGESTS
                and r["hidden"] != corrections.FORGOTTEN):
            lines.setdefault(r["source_id"], []).append(pk)
    if not lines:
        return found
    own = dict(head)
    out, placed = [], set()
    for pk, score in head:
        if parts.get(pk) in lines:
            part = statement_terms(rows[pk]["content"])
            same = {lp: len(part & statement_terms(rows[lp]["content"])) for lp in lines[parts[pk]]
                    if lp not in placed and same_statement(part, statement_terms(rows[lp]["content"]))}
            if same:  # the line holding most of the part; the higher one of equals
                line = max(same, key=same.get)
                placed.add(line)
                out.append((line, own[line]))
                continue
        if pk not in placed:
            placed.add(pk)
            out.append((pk, score))
    return out + found[PARTS_DEPTH:]


def saying_nothing(conn, pks) -> set:
    """Of these candidates, the log lines that say nothing (`small_talk.says_nothing`:
    "收到", "have a good weekend"), which search takes off its lists. What the user or the
    agent chose to keep says something: MEMORY.md, a consolidated fact, a session summary, a
    line saved with entities. A line still comes up as the reply to a question
    (with_replies), where "好的" is the answer. docs/retrieval.md "Lines that say nothing"."""
    pks = list(pks)
    if not pks:
        return set()
    rows = _rows(conn, f"SELECT pk, content FROM chunks WHERE length(content) <= "
                       f"{small_talk.LONGEST} AND source_file NOT IN ('MEMORY.md', 'facts.jsonl', "
                       "'sessions.jsonl') AND (entities IS NULL OR entities IN ('', '[]')) "
                       f"AND pk IN ({','.join('?' * len(pks))})", pks)
    return {r["pk"] for r in rows if small_talk.says_nothing(r["content"])}


def statement_terms(content: str) -> frozenset:
    """A record's index terms, as same_statement compares them; cached (a line is often on
    all three lists of a search, and on the next search's), except a long one."""
    return _terms(content) if len(content) <= 2000 else frozenset(index_terms(content).split())


@lru_cache(maxsize=4096)
def _terms(content: str) -> frozenset:
    return frozenset(index_terms(content).split())


# Words whose presence on one side only turns a statement around.
NEGATIONS = frozenset("not no never cannot without nor don doesn didn won isn aren wasn weren "
                      "shouldn couldn wouldn 不 没".split())


def same_statement(part: set, line: set) -> bool:
    """Does a line say what a summary's part says (index terms of each)? At least
    PART_IN_LINE of the part's terms are the line's, the part's numbers all are the line's
    ("TTL 600" is not "TTL 60"), and neither has a negation the other lacks ("not", 不,
    没: the Chinese ones as characters, so 不错 counts too, which only makes the rule keep
    a part where it could have moved a line)."""
    if not part or not line:
        return False
    missing = part - line
    return (len(part) - len(missing) >= PART_IN_LINE * len(part)
            and not any(ch.isdigit() for t in missing for ch in t)
            and not (missing | (line - part)) & NEGATIONS)


def affordable(conn, terms: list, budget: int | None = None, keep_rarest: bool = True,
               counts: dict | None = None) -> list:
    """The query terms worth their cost: bm25() runs once per matching row (~1 µs), so a
    query of common words over a big store costs as many rows as it matches (a 10-term
    query matched 90k of 120k synthetic records: 86 ms). Rarest first, terms are kept while
    the postings they add stay within POSTINGS_BUDGET; the rest, the most common words,
    carry the least weight in BM25 and are dropped (Elasticsearch's cutoff_frequency idea).
    The rarest term stays (but not with `keep_rarest` False: the bridge keeps no term that
    does not fit its budget), and a store under ~`budget` records is never cut. `budget`:
    POSTINGS_BUDGET unless given."""
    limit = POSTINGS_BUDGET if budget is None else budget
    if len(terms) < 2 and keep_rarest:
        return terms
    rows = conn.execute("SELECT max(pk) FROM chunks").fetchone()[0] or 0
    if rows * sum(w for _, w in terms) <= limit:  # a small store: nothing to count
        return terms
    # Counting a term's rows walks its postings without scoring them (~1.5 ms for a whole
    # query at 100k records), and sees terms as the index does (stemmed, phrases matched).
    counts = {} if counts is None else counts
    cost = {t: w * rows_matching(conn, (t,), counts) for t, w in terms}
    if sum(cost.values()) <= limit:
        return terms
    kept, spent = set(), 0
    for t, _ in sorted(terms, key=lambda tw: cost[tw[0]]):
        if (kept or not keep_rarest) and spent + cost[t] > limit:
            break
        kept.add(t)
        spent += cost[t]
    return [tw for tw in terms if tw[0] in kept]


def rows_matching(conn, phrases: tuple, counts: dict) -> int:
    """The rows holding any of `phrases`, counted once a search (`counts`, keyed by the
    phrases): a count walks the postings without scoring them."""
    if phrases not in counts:
        counts[phrases] = conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
                                       (match_of([(p, 1) for p in phrases]),)).fetchone()[0]
    return counts[phrases]


def _idf(rows: int, holding: int) -> float:
    """FTS5's bm25() idf of a phrase that `holding` of `rows` rows hold."""
    return max(math.log((rows - holding + 0.5) / (holding + 0.5)), 1e-6)


def across_languages(conn, found: list, bridged: list, weighted: list, concepts: list,
                     bridge: list, k: int, counts: dict | None = None,
                     seen: dict | None = None) -> list:
    """The keyword list `found` and the records the bridge's terms (`bridge`) found
    (`bridged`) as one list, best first, scored by BM25 over the question's concepts in
    either language. A glossary term scores what its own words score in a record or what
    its words in the other language do, the better of the two: a note in the other language
    ranks about where the same note in the question's language would, and one that says a
    thing in both is not counted twice. Words in the other language count as rare as the
    concept is in the store (the rows that say it in either language), not as the word
    alone: "configuration" in 2 notes is no more specific than 配置 in 26. The first
    BRIDGE_RESCORED of each list are scored so; the rest of `found` follows in its order.
    `counts`: rows per phrase already counted in this search (affordable); `seen`: the
    term frequencies of an earlier pass of the same search."""
    if not bridged:
        return found
    pks = list(dict.fromkeys([pk for pk, _ in found[:BRIDGE_RESCORED]]
                             + [pk for pk, _ in bridged[:BRIDGE_RESCORED]]))
    rescored = set(pks)
    tail = [r for r in found[BRIDGE_RESCORED:] if r[0] not in rescored]
    counts = {} if counts is None else counts
    weight = dict(weighted)
    searched = {t for t, _ in bridge}  # the other-language words the bridge asked for
    groups = []  # (the query's phrases of a concept, its other words, its phrase)
    taken: set = set()
    for c in concepts:
        own = tuple(t for t in c.own if t in weight and t not in taken)
        taken.update(own)
        groups.append((own, searched.intersection(c.other), c.phrase))
    alone = [t for t in weight if t not in taken]
    terms = set(weight) | searched
    key = (tuple(pks), frozenset(terms))
    seen = {} if seen is None else seen
    if key not in seen:
        seen[key] = _term_frequencies(conn, pks, terms)
    per_idf = seen[key]
    rows = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]

    def idf(phrases) -> float:  # of the rows holding any of the phrases
        return _idf(rows, rows_matching(conn, phrases, counts))

    # only the terms some candidate holds are counted in the index
    part = {t: {pk: idf((t,)) * v for pk, v in found_in.items()}
            for t, found_in in per_idf.items() if found_in}
    concept_of = []
    for own, other, phrase in groups:
        other = sorted(t for t in other if t in part)
        rarity = idf((phrase,) + tuple(other)) if other else 0.0
        w = max((weight[t] for t in own), default=1)
        concept_of.append((own, {t: w * rarity / idf((t,)) for t in other}))

    def score(pk) -> float:
        def has(t):
            return part[t].get(pk, 0.0) if t in part else 0.0
        said = {own: sum(weight[t] * has(t) for t in own) for own, _ in concept_of}
        return sum(weight[t] * has(t) for t in alone) + sum(
            max([said[own]] + [by * has(t) for t, by in other.items()])
            for own, other in concept_of)

    scored = sorted(((pk, score(pk)) for pk in pks), key=lambda r: -r[1])
    return ([r for r in scored if r[1] > 0] + tail)[:k]


def with_other_language(conn, query: str, filters: Filters, k: int, found: list, weighted: list,
                        concepts: list, bridge: list, counts: dict | None = None,
                        seen: dict | None = None) -> list:
    """The keyword list `found` with the notes the bridge's words (`bridge`, the other
    language's words of `concepts`) find, scored as one (across_languages)."""
    bridged = fts_candidates(conn, query, filters, k, terms=bridge, budget=BRIDGE_POSTINGS,
                             keep_rarest=False, counts=counts)
    return across_languages(conn, found, bridged, weighted, concepts, bridge, k, counts, seen)


def _term_frequencies(conn, pks: list, terms) -> dict:
    """{phrase: {pk: its bm25() in the record per unit of idf}} for these records. They are
    scored in tables of their own (bm25() in the index costs a walk of the phrase's postings
    for each record asked about: 117 ms for a common word at 100k records; here a few µs),
    one for the records mostly in Chinese and one for the rest, each with a sample of the
    store's records in its language: a record's length is weighed against its language's
    in the store (the index cuts Chinese into bigrams and characters, so a note in Chinese
    has about three times the tokens of the same note in English)."""
    path = conn.execute("PRAGMA database_list").fetchone()[2]  # the index both caches are of
    rows = _indexed(conn, path, pks)
    wanted = set(pks)
    by_language: dict[bool, list] = {}
    for row in rows:
        by_language.setdefault(_mostly_chinese(row[1]), []).append(row)
    out: dict = {t: {} for t in terms}
    with _SAMPLE_LOCK:  # a warm server may search from more than one thread
        sample = _sample(conn, path)
        for chinese, group in by_language.items():  # a language no candidate is in: no table
            share = sample[chinese]
            added = [r for r in group if r[0] not in share.pks]
            size = len(share.rows) + len(added)
            table = share.opened()
            table.execute("SAVEPOINT candidates")
            try:
                table.executemany(_INSERT_INDEXED, added)
                for t in terms:
                    hits = table.execute("SELECT rowid, bm25(c, ?, ?, ?) FROM c WHERE c MATCH ?",
                                         (*BM25_WEIGHTS, match_of([(t, 1)]))).fetchall()
                    here = _idf(size, len(hits))
                    out[t].update((pk, -s / here) for pk, s in hits if pk in wanted)
            finally:  # the table holds the sample alone again
                table.execute("ROLLBACK TO candidates")
                table.execute("RELEASE candidates")
    return out


_INSERT_INDEXED = "INSERT INTO c(rowid, content, entities, type) VALUES (?, ?, ?, ?)"


class _Share:
    """One language's share of the store's sample: its rows as _term_frequencies reads
    them, and an in-memory FTS5 table of them, built on first use and kept with the sample
    (not built on every search: the sample was two thirds of what scoring the candidates
    cost)."""

    def __init__(self, rows: list):
        self.rows = rows
        self.pks = frozenset(r[0] for r in rows)
        self.table = None

    def opened(self):
        if self.table is None:
            self.table = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            self.table.execute("CREATE VIRTUAL TABLE c USING fts5(content, entities, type, "
                               f"tokenize={FTS_TOKENIZER!r})")
            self.table.executemany(_INSERT_INDEXED, self.rows)
        return self.table

    def close(self) -> None:
        if self.table is not None:
            self.table.close()
            self.table = None


_INDEXED_KEPT = 20_000
_indexed_rows: dict = {}


def _indexed(conn, path: str, pks: list) -> list:
    """[(pk, content, entities, type)] of these records as the index holds them
    (text.index_terms, the Python half of a record's cost here), kept in the process by
    the record's content hash: a warm process reads a record it scored before for free."""
    marks = ",".join("?" * len(pks))
    hashes = conn.execute(f"SELECT pk, hash FROM chunks WHERE pk IN ({marks})", pks).fetchall()
    rows = {pk: _indexed_rows.get((path, pk, h)) for pk, h in hashes}
    missing = [pk for pk, row in rows.items() if row is None]
    if missing:
        if len(_indexed_rows) > _INDEXED_KEPT:
            _indexed_rows.clear()
        marks = ",".join("?" * len(missing))
        for pk, h, *indexed in conn.execute(f"SELECT c.pk, c.hash, cm_terms(c.content), "
                                            f"{FTS_ENTITIES.format('c')}, c.type FROM chunks c "
                                            f"WHERE c.pk IN ({marks})", missing):
            rows[pk] = _indexed_rows[(path, pk, h)] = (pk, *indexed)
    return [row for row in rows.values() if row is not None]


def _mostly_chinese(indexed: str) -> bool:
    """Whether a record's indexed text (text.index_terms: full-width folded, Chinese as
    bigrams and characters) is weighed with the Chinese notes: at least a third of its
    tokens Chinese. A note with a command in it ("密码重置：curl -X POST https://…") has the
    length of a Chinese note, not of an English one."""
    chinese = len(_CJK_TOKEN.findall(indexed))
    return 2 * chinese >= indexed.count(" ") + 1 - chinese


SAMPLE_ROWS = 100
_samples: dict = {}  # the sample's key (its rows' pk and hash) -> {mostly Chinese: _Share}
_SAMPLE_LOCK = threading.Lock()


def _sample(conn, path: str) -> dict:
    """{mostly Chinese: _Share} of up to SAMPLE_ROWS of the store's records, spread evenly
    over its rows (the first row at or after each of SAMPLE_ROWS points between the lowest
    and the highest). Kept while the same rows with the same content are picked (a record
    edited in place changes its hash). Called under _SAMPLE_LOCK: a new sample closes the
    old one's tables."""
    low, high = conn.execute("SELECT (SELECT min(pk) FROM chunks), (SELECT max(pk) FROM chunks)"
                             ).fetchone()  # one min(pk), max(pk) scans the table
    picked: list = []
    if low is not None:
        step = max(1, (high - low + 1) // SAMPLE_ROWS)
        points = json.dumps(list(range(low, high + 1, step))[:SAMPLE_ROWS])
        at = sorted({pk for pk, in conn.execute(
            "SELECT (SELECT pk FROM chunks WHERE pk >= value ORDER BY pk LIMIT 1) FROM json_each(?)",
            (points,))})
        picked = conn.execute(f"SELECT pk, hash FROM chunks WHERE pk IN ({','.join('?' * len(at))}) "
                              "ORDER BY pk", at).fetchall()
    key = (path, tuple(picked))
    sample = _samples.get(key)
    if sample is None:
        marks = ",".join("?" * len(picked))
        rows: dict = {True: [], False: []}
        for row in conn.execute(f"SELECT pk, cm_terms(content), {FTS_ENTITIES.format('chunks')}, "
                                f"type FROM chunks WHERE pk IN ({marks})", [pk for pk, _ in picked]):
            rows[_mostly_chinese(row[1])].append(row)
        for old in _samples.values():
            for share in old.values():
                share.close()
        _samples.clear()
        sample = _samples[key] = {chinese: _Share(r) for chinese, r in rows.items()}
    return sample


_CJK_TOKEN = re.compile("(?:^|(?<= ))[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def vector_candidates(conn, query_vector, filters: Filters, k: int, early=None) -> list:
    where, params = filters.sql()
    return vectors.knn(conn, query_vector, min(k, VEC0_MAX_K), where, params, filters.vec0(), early)


def fuse(fts: list, vec: list, k: float = RRF_K, vector_weight: float = VECTOR_WEIGHT,
         dated: list = ()) -> list:
    """Weighted Reciprocal Rank Fusion: [Ranked], best first.
    `dated`: the keyword list again, searched only within the days the query names ("昨天",
    "on Sept 12"); it adds to the score like the main list, so a record of that day counts
    twice. (A filter would lose the MEMORY.md section a dated question also needs; a fixed
    boost found fewer, LoCoMo R@5 0.665 against 0.671; a dated vector list as well added
    nothing and costs a second scan of every vector.)"""
    table: dict = {}
    for rank, (pk, s) in enumerate(fts, 1):
        table[pk] = Ranked(pk, 1.0 / (k + rank), rank, s)
    for rank, (pk, s) in enumerate(vec, 1):
        row = table.setdefault(pk, Ranked(pk, 0.0))
        row.score += vector_weight / (k + rank)
        row.vec_rank, row.vec_score = rank, s
    for rank, (pk, s) in enumerate(dated, 1):
        row = table.setdefault(pk, Ranked(pk, 0.0))
        row.score += 1.0 / (k + rank)
        row.dated_rank = rank
    return sorted(table.values(), key=lambda r: -r.score)


_HIT_SQL = ("SELECT pk, id, content, type, memory_type, entities, confidence, source_file, "
            "timestamp, evidence, section, source_id, norm, hidden FROM chunks WHERE {} IN ({})")


def _rows(conn, sql: str, params) -> list:
    """Rows as dicts keyed by column name."""
    cur = conn.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def load_hits(conn, ranked: list, project=None) -> list:
    """Hits in `ranked` order; a part (sync.parts) comes back as the record it is part of,
    with its references (do they still resolve?) and, when hidden, its status."""
    if not ranked:
        return []
    pks = [r.pk for r in ranked]
    rows = {r["pk"]: r for r in _rows(conn, _HIT_SQL.format("pk", ",".join("?" * len(pks))), pks)}
    parents = {pk: p for pk, r in rows.items()
               if (p := parent_of(r["id"], json.loads(r["evidence"] or "[]")))}
    if parents:
        wanted = list(set(parents.values()))
        by_id = {r["id"]: r for r in _rows(conn, _HIT_SQL.format("id", ",".join("?" * len(wanted))),
                                           wanted)}
        rows.update({pk: by_id.get(p) for pk, p in parents.items()})
    live = [r for r in rows.values() if r is not None]
    refs_of = _refs(conn, [r["pk"] for r in live], project)
    status = corrections.statuses(conn, {r["id"]: json.loads(r["evidence"] or "[]")
                                         for r in live if r["hidden"]})
    hits = []
    for rk in ranked:
        r = rows.get(rk.pk)
        if r is None:
            continue
        gone = status.get(r["id"], ("superseded", None)) if r["hidden"] else ("active", None)
        hits.append(Hit(
            id=r["id"], content=r["content"], type=r["type"], memory_type=r["memory_type"],
            entities=json.loads(r["entities"] or "[]"), confidence=r["confidence"],
            source_file=r["source_file"], timestamp=r["timestamp"], score=rk.score,
            fts_rank=rk.fts_rank, fts_score=rk.fts_score, vec_rank=rk.vec_rank,
            vec_score=rk.vec_score, dated_rank=rk.dated_rank,
            evidence=json.loads(r["evidence"] or "[]") or [r["id"]],
            section=r["section"], source_id=r["source_id"], norm=r["norm"], pk=r["pk"],
            refs=refs_of.get(r["pk"], []), status=gone[0], superseded_by=gone[1]))
    return hits


def _refs(conn, pks, project) -> dict:
    """{pk: [{"ref", "exists"}]}: whether a file reference still resolves is checked now."""
    from .refs import exists

    out: dict = {}
    for pk, ref in conn.execute(
            f"SELECT pk, ref FROM refs WHERE pk IN ({','.join('?' * len(pks))})", pks):
        out.setdefault(pk, []).append({"ref": ref, "exists": exists(ref, project)})
    return out


def collapse(hits: list) -> list:
    """One hit per fact: a daily line and the fact consolidated from it (the fact lists the
    line in its evidence), or the same text saved twice, become one hit at the better rank.
    The consolidated record represents the group; evidence is the union."""
    out: list[Hit] = []
    owner: dict[str, int] = {}
    for h in hits:
        # the same text merges only within one status: "Redis" superseded by "Memcached" and
        # "Redis" again, active, are two moments of a --history chain, not one record
        keys = [h.id, *h.evidence] + ([f"norm:{h.status}:{h.norm}"] if h.norm else [])
        slot = next((owner[k] for k in keys if k in owner), None)
        if slot is None:
            owner.update({k: len(out) for k in keys})
            out.append(h)
            continue
        kept = out[slot]
        merged = list(dict.fromkeys(kept.evidence + h.evidence))
        if h.source_file == "facts.jsonl" and kept.source_file != "facts.jsonl":
            h.score, h.fts_rank, h.fts_score = kept.score, kept.fts_rank, kept.fts_score
            h.vec_rank, h.vec_score, h.dated_rank = kept.vec_rank, kept.vec_score, kept.dated_rank
            out[slot] = kept = h
        kept.evidence = merged
        owner.update({k: slot for k in keys})
    return out


def with_replies(conn, hits: list, filters: Filters, project=None, terms=()) -> list:
    """Each question among the first hits brings its reply: the next line of its
    conversation (a transcript turn's next turn, a memory line's next memory line), the one
    indexed with the question as its context (sync.to_chunk), scored REPLY_LIFT times the
    question, or REPLY_AFTER times it when the query's `terms` are only in what the line
    says, none in what it asks (`text.asked_about`; the speakers' names, which lines also
    use to address each other, left out); a reply already found keeps the better score. A
    consolidated fact asks through the daily lines it was made from, and a reply already
    shown as its fact lifts that fact. One reply a hit: a hit that merges copies of one
    line (collapse) brings the reply to the first."""
    lift: dict = {}  # reply id -> [pk, score, question id]
    topic = set(terms) - {said_by(folded(h.content[:64])) for h in hits}  # a name opens a line
    for h in hits[:REPLY_DEPTH]:
        if h.type in DIGESTS or not ASKS.search(h.content):
            continue
        share = REPLY_LIFT if asked_about(h.content, topic) else REPLY_AFTER
        for qid in dict.fromkeys([h.id, *(e for e in h.evidence if isinstance(e, str))][:REPLY_SOURCES]):
            row = conn.execute(_REPLY_SQL, (qid,)).fetchone()
            if row is None or row[3] is None or row[3] != tail_of(row[0]):
                continue
            score = share * h.score
            if row[2] not in lift or lift[row[2]][1] < score:
                lift[row[2]] = [row[1], score, h.id]
            break  # one reply a hit: the same greeting said in ten chats is one hit, not ten
    if not lift:
        return hits
    for h in hits:
        found = [lift.pop(k) for k in dict.fromkeys([h.id, *h.evidence])
                 if isinstance(k, str) and k in lift]
        if found:
            best = max(found, key=lambda f: f[1])
            if best[1] > h.score:
                h.score, h.reply_to = best[1], best[2]
    passing = chunks_passing(conn, [pk for pk, _, _ in lift.values()], *filters.sql())
    brought = [(pk, s, q) for pk, s, q in lift.values() if pk in passing]
    if not brought:
        return hits
    added = load_hits(conn, [Ranked(pk, s) for pk, s, _ in brought], project)
    question = {pk: q for pk, _, q in brought}
    for h in added:
        h.reply_to = question.get(h.pk)
    return collapse(sorted(hits + added, key=lambda h: -h.score))


# The next line of the same thread: same file, same session, same kind (a transcript turn
# or a memory line; sync keeps them apart), by offset (index chunks_place).
_REPLY_SQL = ("SELECT q.content, r.pk, r.id, r.context FROM chunks q JOIN chunks r "
              "ON r.source_file = q.source_file AND r.source_id = q.source_id "
              "AND r.line_offset > q.line_offset "
              "AND (r.type = 'transcript') = (q.type = 'transcript') "
              "WHERE q.id = ? ORDER BY r.line_offset LIMIT 1")


def rerank(conn, hits: list, hint=None, query: str = "", *, now: Filters | None = None,
           ended: tuple | None = None, project=None, concepts=()) -> list:
    """Session summaries move up with the lines of their session; for a question about the
    current value (`now`: its filters), each replaced value follows its current version
    (with_current); for a question about the newest (oldest) state of something, see
    promote_by_time (`ended`: (filters, UTC ISO end) of the stretch a question names;
    `concepts`: the query's glossary terms, bilingual.concepts)."""
    best: dict = {}  # session -> best score of its lines
    for h in hits:
        if h.type not in DIGESTS and h.source_id and h.source_id != h.id:
            best[h.source_id] = max(best.get(h.source_id, 0.0), h.score)
    for h in hits:
        if h.type == "session_summary" and h.source_id in best:
            h.score += SESSION_SHARE * best[h.source_id]
    hits.sort(key=lambda h: -h.score)
    current = None
    if now is not None:
        hits, current = with_current(conn, hits, now, project)
    elif ended is not None and hint is not None and hint.order == "newest":
        current = versions(conn, hits, ended[0], project, before=ended[1])
    if hint is not None and hint.order:
        hits = promote_by_time(conn, hits, hint.order == "newest", query, current,
                               now=now is not None, before=ended[1] if ended else None,
                               concepts=concepts)
    return hits


def versions(conn, hits: list, filters: Filters, project=None, before: str | None = None) -> dict:
    """{id of a replaced hit: the hit of the record its chain leads to}: the visible end
    (`corrections.current_versions`), or with `before` the newest record saved before then
    (what a stretch of time ended with). A record the search did not find is loaded when
    the filters let it, with the best score of the hits that lead to it."""
    old = [h for h in hits if h.status == "superseded"]
    if not old:
        return {}
    found = corrections.current_versions(conn, {h.id: [h.id, *h.evidence] for h in old}, before)
    have: dict = {}  # a hit by its id and the ids it was consolidated from
    for h in hits:
        if h.status == "active" or before is not None:
            for i in (h.id, *h.evidence):
                have.setdefault(i, h)
    missing = sorted({c for c in found.values() if c not in have})
    if missing:
        rows = conn.execute(f"SELECT pk, id FROM chunks WHERE id IN ({','.join('?' * len(missing))})",
                            missing).fetchall()
        ok = chunks_passing(conn, [pk for pk, _ in rows], *filters.sql())
        score = {c: max(h.score for h in old if found.get(h.id) == c) for c in missing}
        for h in load_hits(conn, [Ranked(pk, score[i]) for pk, i in rows if pk in ok], project):
            have.setdefault(h.id, h)
    return {h.id: have[found[h.id]] for h in old if found.get(h.id) in have}


def with_current(conn, hits: list, filters: Filters, project=None) -> tuple:
    """A question about the current value also finds the values it replaced (run): each
    comes right after the record at the end of its chain (`versions`), brought in at its
    place when the search did not find it; a replaced value whose chain reaches no such
    record is left out, as in any other search. So no replaced value comes before its
    current version, and none comes first. (hits, {replaced id: its current hit})."""
    current = versions(conn, hits, filters, project)
    out, placed = [], set()
    for h in hits:
        lead = current.get(h.id) if h.status == "superseded" else h
        if lead is None:
            continue
        if id(lead) not in placed:
            placed.add(id(lead))
            out.append(lead)
        if lead is not h:
            out.append(h)
    return out, current


def promote_by_time(conn, hits: list, newest: bool, query: str, current: dict | None = None,
                    now: bool = False, before: str | None = None, concepts=()) -> list:
    """"Redis TTL 现在是多少？": several records give a value, and relevance alone puts the
    one that states it most literally first, often the oldest. Of the first ABOUT_DEPTH
    dated records (session summaries and MEMORY.md sections hold many facts and no single
    time, so they are not candidates), those that cover at least ABOUT_SHARE of what the
    best of them covers of the query are about the same thing; the newest (for "最早" or
    "originally", the oldest) of them goes first and the rest keep their order. A replaced
    value stands for the record its chain leads to (`current`, see `versions`): in a
    question about `now` its current version, in one about a stretch of time the newest
    record saved before the stretch ended, which is about the same thing in whatever words
    it says so ("缓存过期时间改成 21600 秒" replacing "Redis TTL 86400"). In a question about
    now no replaced value comes before a current record about the question, among the first
    ABOUT_SPAN hits; in one about a stretch nothing saved after it ended (`before`) is picked.

    Coverage counts the query's dictionary words (`性能分` is 性能 + 分, so a junk bigram such
    as 能分 cannot decide what is about what), each weighted by how rare it is in the store
    (inverse document frequency): "which ORM does the API use" is about the ORM, and a line
    that shares the common "API" and "use" is not. When no record holds half of the
    question's weight in its own words, the glossary's words (`concepts`) count in either
    language: "What does the app use for state management these days?" is about "App 状态管理
    统一用 flutter_bloc", not about "we only use it for short-lived state". Only then: a
    question its own words answer is judged by them, as a same-language line with a
    glossary word ("基础镜像" for "base image") was otherwise taken for the subject."""

    head, n = [], 0  # the first ABOUT_DEPTH dated records; replaced values do not count,
    for h in hits:   # up to as many again (a value replaced a hundred times)
        if n == ABOUT_DEPTH or len(head) == 2 * ABOUT_DEPTH:
            break
        if h.type not in DIGESTS and h.timestamp:
            head.append(h)
            n += not now or h.status != "superseded"
    units = words(query)
    if not head or not units:
        return hits
    # in a question about now, every current record among the first ABOUT_SPAN is judged too:
    # a replaced value comes after those about the question, however many there are
    replaced = now and any(h.status == "superseded" for h in hits[:ABOUT_SPAN])
    in_head = {id(h) for h in head}
    judged = head + ([h for h in hits[:ABOUT_SPAN] if h.status == "active" and h.timestamp
                      and h.type not in DIGESTS and id(h) not in in_head] if replaced else [])
    pks = [h.pk for h in judged]
    count, whole = idf_coverage(conn, pks, [[u] for u in units])
    if concepts and (not whole or max(count[h.pk] for h in head) < ABOUT_SHARE * whole):
        # the question's own words do not say what it is about: perhaps the other language does
        count, whole = idf_coverage(conn, pks, [either_language(u, concepts) for u in units])
    best = max(count[h.pk] for h in head)
    about = [h for h in head if best > 0 and count[h.pk] >= ABOUT_SHARE * best]
    if before is not None:  # first saved before the stretch ended (a copy said again since
        first = corrections.first_saved(conn, {h.id: [e for e in h.evidence if isinstance(e, str)]
                                               for h in about})  # moves a fact's own time on)
        about = [h for h in about if first.get(h.id, h.timestamp or "") < before]
    if current:
        about = list({id(x): x for x in (current.get(h.id, h) for h in about)}.values())
    if not about:
        return hits
    pick = (max if newest else min)(about, key=lambda h: h.timestamp or "")
    pick.score = max(pick.score, hits[0].score)
    rest = [h for h in hits if h is not pick]
    if replaced:  # the current records about it before any value replaced
        last = max((i for i, h in enumerate(rest) if h.status == "active" and best > 0
                    and count.get(h.pk, 0.0) >= ABOUT_SHARE * best), default=-1)
        old = [h for h in rest[:last + 1] if h.status == "superseded"]
        rest = [h for h in rest[:last + 1] if h.status != "superseded"] + old + rest[last + 1:]
    return [pick] + rest


def idf_coverage(conn, pks: list, units: list, *, columns: str = "content",
                 unseen: bool = False) -> tuple:
    """({pk: the idf-weighted sum of the units it holds}, the weight of the units); a unit is
    a list of FTS5 phrases, any of which says it. A unit the store never saw counts toward
    the whole, at the highest weight, only with `unseen` (recall: the prompt is about
    something the store lacks); else it tells nothing about which record is which."""
    total = conn.execute("SELECT max(pk) FROM chunks").fetchone()[0] or 1
    count, whole = dict.fromkeys(pks, 0.0), 0.0
    sql = (f"SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN "
           f"({','.join('?' * len(pks))})")
    for phrases in units:
        phrase = match_of([(p, 1) for p in phrases], columns=columns)
        df = conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
                          (phrase,)).fetchone()[0]
        weight = math.log((total + 1) / (df + 0.5))
        if df or unseen:
            whole += weight
        if df:
            for (pk,) in conn.execute(sql, (phrase, *pks)):
                count[pk] += weight
    return count, whole


def either_language(unit: str, concepts) -> list:
    """A query word (text.words) and, when it is part of a glossary term, that term's words
    in the other language: 管理 in 状态管理 is said by "state management" too."""
    parts = unit.split()
    other = [t for c in concepts if all(p in c.own for p in parts) for t in c.other]
    return list(dict.fromkeys([unit, *other]))


# --- one search, end to end -------------------------------------------------------------------

# A search never waits on the embedding backlog (docs/benchmarks.md "Production model"):
# vectors whose text was embedded before are copied, and the model embeds the newest
# pending records for at most this long; the rest are found by keyword until sessionEnd or
# `cursor-memory embed` makes their vectors, and the answer says how many there are.
BACKLOG_SECONDS = 0.2
SYNC_SECONDS = 8.0  # of text sync before a search answers (a first sync of a big store)


def fusion_of(config: dict) -> tuple:
    """(RRF k, vector weight): config.json's `rrf_k` and `vector_weight`, else the defaults."""
    from .config import setting
    return (setting(config, "rrf_k", float(RRF_K), minimum=0.0),
            setting(config, "vector_weight", VECTOR_WEIGHT, minimum=0.0))


def sync_notes(report, read_only: bool) -> list:
    """What a search answer says about the sync before it (None: no sync)."""
    notes = []
    if report is not None and report.skipped:
        notes.append(f"{len(report.skipped)} malformed lines skipped")
    if report is not None and not report.complete:
        notes.append(f"the index is still being built ({report.pending_files} files to "
                     "go): results may be incomplete; `cursor-memory sync` finishes it")
    if read_only:
        notes.append("the memory folder is read-only: answering from what is there")
    return notes


@dataclass
class Request:
    query: str
    limit: int = 10
    mode: str = "hybrid"
    filters: Filters = field(default_factory=Filters)


def true_within(conn, hits: list, start, end) -> list:
    """Without the superseded hits that were not true in the stretch a question names:
    replaced before it began ("上周 TTL 是多少" asked weeks after the TTL changed wants the
    value true last week), or first saved after it ended ("去年…" of a value saved this year)."""
    from .config import iso
    old = {h.id: [e for e in h.evidence if isinstance(e, str)] for h in hits
           if h.status == "superseded"}  # evidence is read from the files: anything at all
    if not old:
        return hits
    since, until = iso(start), iso(end)
    when = corrections.replaced_at(conn, old)
    first = corrections.first_saved(conn, old)
    return [h for h in hits if h.status != "superseded"
            or when.get(h.id, since) >= since and first.get(h.id, since) < until]


_SURROGATE = re.compile("[\ud800-\udfff]")


def check(request: Request) -> None:
    if request.mode not in MODES:
        raise UserError(f"mode must be one of {', '.join(MODES)}, not {request.mode!r}")
    if isinstance(request.limit, bool) or not isinstance(request.limit, int) or request.limit < 1:
        raise UserError("limit must be a positive whole number")
    if not isinstance(request.query, str):
        raise UserError("the query must be text")


def run(index, request: Request, *, embedder=None, project=None, fusion=(RRF_K, VECTOR_WEIGHT),
        prepare=None, backlog: float = BACKLOG_SECONDS) -> Results:
    """Search the index. `prepare()` (the caller's text sync) runs while the query is being
    embedded and returns notes; `embedder` None means keyword results only; `backlog`: how
    long the model may embed pending records first (0: a warm server does that between
    requests)."""
    from . import temporal
    from .config import iso, now as clock

    check(request)
    query, limit, mode, filters = request.query, request.limit, request.mode, request.filters
    notes: list = []
    if _SURROGATE.search(query):  # half an emoji, which the model's tokenizer raises on
        query = query.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    read = folded(query[:temporal.MAX_QUERY_CHARS])  # as read: NFKC makes "㎉" four letters
    if len(query) > temporal.MAX_QUERY_CHARS or len(read) > temporal.MAX_QUERY_CHARS:
        query = read[:temporal.MAX_QUERY_CHARS]
        notes.append(f"the query was read for its first {temporal.MAX_QUERY_CHARS:,} characters")
    if mode != "fts" and embedder is None:
        notes.append("no embedding model available: keyword results only "
                     "(see `cursor-memory model download`)")
        mode = "fts"  # what the note says: a vector search without a model answers by keyword
    depth = min(max(50, 5 * limit), VEC0_MAX_K)

    def nearest():  # the model, numpy and SQLite all release the GIL
        v = embedder.embed_query(query)
        return v, vectors.warm_nearest(index.path, v, depth)

    # The query is embedded, and in a warm process its nearest vectors found, while the
    # index is brought up to date and searched by keyword.
    qvec = _in_background(nearest) if embedder is not None and mode != "fts" and query.strip() else None
    if prepare is not None:
        notes += prepare()
    if embedder is not None and mode != "fts" and not index.read_only and backlog > 0:
        fill = vectors.fill(index, embedder, budget=backlog, tidy=False, newest=True)
        if fill.store_unavailable:
            notes.append("this index keeps vectors in sqlite-vec, which this Python cannot load: "
                         "keyword results only (`cursor-memory rebuild` makes an index it can use)")
    now = clock()
    hint = temporal.parse(query, now)
    past = filters if filters.history else replace(filters, past=True)
    keywords = with_reason(query)  # "why…?": the words that give a reason too
    concepts = bilingual.concepts(keywords) if BRIDGE and mode != "vector" else []
    bridge = bilingual.other_terms(concepts)
    weighted = weighted_terms(keywords)  # the keyword lists' terms, and what a reply is about
    own = _own_terms(query) if keywords != query and mode != "vector" else None
    names = written_names(query) if mode != "vector" else []
    chatter = small_talk.says_nothing(query)  # "收到" looked for as itself
    counted = {"keyword_only": 0}

    def search(conn):
        start, end = hint.start, hint.end
        asks_past = hint.asks_past()
        if hint.anchor is not None:  # "the day before launch"
            known = False
            if mode != "vector":
                known, start, end = anchored_stretch(conn, hint.anchor, past, now)
            if known and start is None:  # an event still ahead ("活动当天穿什么合适？"), or
                # the days after one that is today: nothing has happened then
                asks_past = hint.order == temporal.OLDEST
            elif not known and hint.order == temporal.NEWEST:  # an event the store cannot
                # date ("is the TTL still 86400 after the upgrade?"): no past stretch to
                # answer in, so a question about now, not a replaced value first
                asks_past = start is not None
        # a question about a past time: what was true then; about the current value ("现在",
        # "still", "these days"): also the values it replaced, marked, after it
        about_now = hint.order == temporal.NEWEST and not asks_past and not filters.history
        scope = past if asks_past or about_now else filters
        use_vectors = qvec is not None and vectors.usable(conn, embedder.identity)
        if qvec is not None and not use_vectors:
            notes.append("vectors are not available in this index yet: keyword results only")
        k = depth
        reasons_alone = None  # records that say only a reason (`only_reasons`), once a search
        counts: dict = {}  # rows per phrase in the index, for this search's lists
        scored: dict = {}  # the term frequencies across languages of an earlier pass
        while True:
            # words that name days are matched by date (the dated list) and also as keywords:
            # taking them out of the keywords scored lower on both halves (docs/retrieval.md)
            fts = (fts_candidates(conn, query, scope, k, terms=weighted, counts=counts)
                   if mode != "vector" else [])
            if about_now and len(fts) >= k and _any_replaced(conn, fts):  # replaced values may
                # crowd out current ones
                fts = _union(fts_candidates(conn, query, filters, k, terms=weighted), fts)
            vec = []
            if use_vectors:
                v, early = qvec()
                vec = vector_candidates(conn, v, scope, k, early)
                counted["keyword_only"] = vectors.count_pending(conn)
            if bridge:  # notes in the other language
                fts = with_other_language(conn, query, scope, k, fts, weighted, concepts, bridge,
                                          counts, scored)
            fts = as_written(conn, fts, names)
            if own is not None:  # a reason ranks the lines about the question, no others
                if reasons_alone is None:
                    reasons_alone = only_reasons(conn, own)
                fts = [c for c in fts if c[0] not in reasons_alone]
            dated = []
            if start is not None and mode != "vector":  # the days the query names
                during = scope.within(start, end)
                bridged = (lambda found: with_other_language(
                    conn, query, during, k, found, weighted, concepts, bridge, counts, scored)
                ) if bridge else None
                dated = dated_candidates(conn, query, during, end - start, k, bridged)
            full = k < VEC0_MAX_K and max(len(fts), len(vec)) >= k
            fts, vec, dated = (lines_over_parts(conn, found) for found in (fts, vec, dated))
            if not chatter:  # lines that say nothing answer no question
                empty = saying_nothing(conn, {pk for found in (fts, vec, dated) for pk, _ in found})
                fts, vec, dated = ([c for c in found if c[0] not in empty]
                                   for found in (fts, vec, dated))
            ranked = fuse(fts, vec, *fusion, dated=dated)
            if scope.ref_targets and not query.strip():  # everything about it, newest first
                ranked = newest(conn, scope, k)
            hits = collapse(load_hits(conn, ranked, project))
            hits = with_replies(conn, hits, scope, project, [t for t, _ in weighted])
            if asks_past and start is not None:
                hits = true_within(conn, hits, start, end)
            if len(hits) >= limit or not full:
                ended = (scope, iso(end)) if asks_past and end is not None else None
                return rerank(conn, hits, hint, query, now=filters if about_now else None,
                              ended=ended, project=project, concepts=concepts)[:limit]
            # full lists, fewer hits: a long record's parts or copies of a line, merged
            k = min(4 * k, VEC0_MAX_K)

    hits = index.run(search, vectors=qvec is not None)
    n = counted["keyword_only"]
    if n:
        notes.append(f"{n} records have no vector yet: only a keyword match could find them "
                     "(`cursor-memory embed` makes their vectors now)")
    return Results(hits, notes, keyword_only=n)


# A question that names a short stretch of time ("上周四都干了啥", "On Sept 24, what security
# changes went in?") is answered first by that time's digest: its session summaries join
# the dated list after the keyword matches, when the stretch is at most this long.
DIGEST_DAYS = 3


def dated_candidates(conn, keywords: str, during: Filters, span, depth: int,
                     bridged=None) -> list:
    """The dated list: keyword matches among records written or named in the stretch, in
    either language with `bridged(found)` (with_other_language), then (a short stretch) its
    session summaries; with no keyword match in the question's own language, its records,
    summaries first, newest first: a Chinese line of the day that says 今天 or 周六 must not
    take the day's records away from "what did I do last Saturday?"."""
    own = fts_candidates(conn, keywords, during, depth)
    found = bridged(own) if bridged is not None else own
    if span.days <= DIGEST_DAYS or not own:
        where, params = during.sql()
        seen = {pk for pk, _ in found}
        rows = conn.execute(f"SELECT c.pk FROM chunks c WHERE {where} AND instr(c.id, '#part-') = 0 "
                            "ORDER BY c.type = 'session_summary' DESC, c.timestamp DESC LIMIT ?",
                            (*params, depth)).fetchall()
        extra = [pk for (pk,) in rows if pk not in seen]
        if own:  # after the keyword matches: only the digests
            summaries = {pk for (pk,) in conn.execute(
                f"SELECT pk FROM chunks WHERE type = 'session_summary' AND pk IN "
                f"({','.join('?' * len(extra))})", extra)} if extra else set()
            extra = [pk for pk in extra if pk in summaries]
        found = found + [(pk, 0.0) for pk in extra]
    return found[:depth]


def anchored_stretch(conn, anchor, filters: Filters, now) -> tuple:
    """(whether the store dates the event, start, end) of the stretch an event names
    ("上线前一天", "between the load test and the phase-2 one"), up to today; start None
    when the event is undated or all of the stretch is ahead."""
    from .temporal import so_far
    day = last = event_day(conn, anchor.event, filters)
    if anchor.until is not None and day is not None:
        last = event_day(conn, anchor.until, filters)
        day, last = (None, None) if last is None else sorted((day, last))
    if day is None:
        return False, None, None
    if day > now.astimezone().date():
        return True, None, None
    return (True, *so_far(*anchor.stretch(day, last, now), now))


# An event's day is voted for by its ABOUT_EVENT best keyword matches (those scoring at
# least ABOUT_SHARE of the best).
ABOUT_EVENT = 20


def event_day(conn, event: str, filters: Filters):
    """The day an event happened ("launch", "上线", "Melanie wedding"), as the store tells it:
    each record about it votes for the days it names ("上线目标日期定在9月30日", "I went
    camping yesterday") or, naming none, for the day it was written, in proportion to how
    well it matches; the day with the most votes. None when nothing is about the event."""
    from .config import parse_time
    from .temporal import in_calendar, names_beginning

    if names_beginning(event):  # "项目刚开始那周": the store's first day
        where, params = filters.sql()
        (first,) = conn.execute(f"SELECT min(c.timestamp) FROM chunks c WHERE {where} "
                                "AND c.type != 'core'", params).fetchone()
        try:
            day = parse_time(first).astimezone().date() if first else None
        except OverflowError:
            return None
        return day if day and in_calendar(day) else None
    found = fts_candidates(conn, event, filters, ABOUT_EVENT)
    concepts = bilingual.concepts(event) if BRIDGE else []
    if concepts and _said_whole(event, concepts):  # "the pilot launch" the notes call 试点
        # 上线; only an event the glossary and its names say whole ("Docker Hub rate limit
        # 卡住"; not "granting items", half said: a day of anything granted)
        found = with_other_language(conn, event, filters, ABOUT_EVENT, found,
                                    weighted_terms(event), concepts,
                                    bilingual.other_terms(concepts))
    if not found:
        return None
    best = found[0][1]
    weight = {pk: score / best for pk, score in found if best > 0 and score >= ABOUT_SHARE * best}
    if not weight:
        return None
    marks = ",".join("?" * len(weight))
    named: dict = {}
    for pk, first, last in conn.execute(
            f"SELECT pk, first, last FROM mentions WHERE pk IN ({marks})", list(weight)):
        if first == last:  # a day, not a stretch
            named.setdefault(pk, []).append(date.fromisoformat(first))
    votes: dict = {}
    for pk, ts, kind in conn.execute(
            f"SELECT pk, timestamp, type FROM chunks WHERE pk IN ({marks})", list(weight)):
        if kind == "core" or not (ts or pk in named):
            continue
        try:
            days = named.get(pk) or [parse_time(ts).astimezone().date()]
        except OverflowError:  # stamped at the calendar's end
            continue
        for day in filter(in_calendar, days):
            votes[day] = votes.get(day, 0.0) + weight[pk] / len(days)
    return max(votes, key=lambda d: (votes[d], d)) if votes else None


# A name, written alike in either language: "Docker", "RDS", "v1.0.0", "k8s"
_NAME = re.compile(r"\b(?:[A-Z][A-Za-z0-9_.-]*|[a-z]+\d[A-Za-z0-9_.-]*)")


def _said_whole(event: str, concepts: list) -> bool:
    """Whether an event's words are all glossary concepts or names ("Nginx 配置热更新卡住"),
    so that it can be looked for in the other language."""
    spans = [m.span() for m in _NAME.finditer(event)]
    for phrase in {t for c in concepts for t in c.own}:
        pattern = (rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])" if phrase.isascii()
                   else re.escape(phrase))
        spans += [m.span() for m in re.finditer(pattern, event, flags=re.I)]
    return not weighted_terms(blanked(event, spans))


def newest(conn, filters: Filters, depth: int) -> list:
    """Everything passing the filters, newest first (a `--ref` search with no query)."""
    where, params = filters.sql()
    rows = conn.execute(f"SELECT c.pk FROM chunks c WHERE {where or 1} ORDER BY c.timestamp DESC "
                        "LIMIT ?", (*params, depth)).fetchall()
    return [Ranked(pk, 1.0 / (i + 1)) for i, (pk,) in enumerate(rows)]


def _in_background(fn):
    """Run fn() in a thread; returns a function that waits for and returns its result (or
    raises its error)."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()

    def result():
        thread.join()
        if "error" in box:
            raise box["error"]
        return box["value"]
    return result
