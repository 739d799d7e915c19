"""`Memory`: the one object the CLIs, hooks, MCP server and benchmarks use. A thin facade:
each method hands its work to the module that owns the concern (docs/architecture.md).

Writing touches only the JSONL files (and imports no sqlite, numpy or fastembed); the index
is opened only by sync, search and the commands that read it.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

from . import jsonl, records
from .config import project_of_memory, today
from .errors import CursorMemoryError, IndexError_, StorageError, UserError


class Memory:
    """A memory folder: MEMORY.md, daily/, facts.jsonl, sessions.jsonl, and the derived
    index.sqlite. The folder layout is created (0700) if missing and the disk allows (with
    `create=False`, only when first used: the CLI, so a command refused for bad input leaves
    nothing behind); a read-only folder is opened as it is. `path` is made absolute (`~`
    expanded) and may not be a file-system root or the home folder itself."""

    def __init__(self, path, *, project=None, create: bool = True):
        from .config import check_memory_dir
        from .files import link_on_path
        if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
            raise UserError(f"the memory folder must be a path, not {path!r:.40}")
        if project is not None and not isinstance(project, (str, os.PathLike)):
            raise UserError(f"the project must be a path, not {project!r:.40}")
        self.root = check_memory_dir(os.fspath(path))
        self._project = Path(os.path.abspath(os.path.expanduser(os.fspath(project)))) if project else None
        # a link on the way from the project (`.cursor` committed as one) is never written
        # through: the folder is then read as a read-only one
        self.link = link_on_path(self.root, self.project)
        self._made = False
        if create:
            self._make_folders()
        self._embedder = None
        self._embedder_tried = False
        self._index = None
        self._scratch = None  # a temporary index of a read-only folder's files
        self._synced = None  # sync.stamp() of the sources at the last complete sync

    @property
    def project(self) -> Path | None:
        """The project this memory belongs to (file references are relative to it)."""
        if self._project is None:
            self._project = project_of_memory(self.root)
        return self._project

    def __repr__(self):
        return f"Memory({str(self.root)!r})"

    # --- writing: JSONL only -----------------------------------------------------------

    def daily_path(self) -> Path:
        """Today's daily file, where facts and events are appended."""
        return self.root / "daily" / f"{today().isoformat()}.jsonl"

    def _writable(self) -> None:
        """StorageError when the folder is reached through a link (never written through)."""
        if self.link is not None:
            raise StorageError(f"cannot write to {self.root}: {self.link} is a symbolic link "
                               "(cursor-memory never writes through links)")

    def _make_folders(self) -> None:
        """The folder layout, made once."""
        if self._made or self.link is not None:
            return
        from .files import make_private_dir
        try:
            make_private_dir(self.root)
            make_private_dir(self.root / "daily")
            self._made = True
        except StorageError:
            pass  # read-only: writing says so; reading answers from what is there

    def _append(self, path: Path, record) -> None:
        from .files import make_private_dir
        self._writable()
        make_private_dir(self.root)
        make_private_dir(path.parent)
        jsonl.append(path, record)

    def save_fact(self, content, memory_type=None, *, kind=None, entities=None,
                  confidence=None, session_id=None, source=None, refs=None,
                  supersedes=None) -> dict:
        """Append a fact/preference/action to today's daily file; returns the record. The
        defaults are records.fact's: type W, kind preference for O, confidence by kind."""
        from .refs import found_refs
        refs = records.ref_list(refs)
        record = records.fact(content, memory_type=memory_type, kind=kind, entities=entities,
                              confidence=confidence, session_id=session_id, source=source,
                              refs=found_refs(content, refs, self.project), supersedes=supersedes)
        if supersedes is not None:
            records.must_exist(self.find(record["supersedes"]), record["supersedes"], "supersede")
        self._append(self.daily_path(), record)
        return record

    def save_summary(self, topic, summary, decisions=None, todos=None, *, session_id=None,
                     refs=None) -> dict:
        """Append a session summary to sessions.jsonl; returns the record."""
        from .refs import found_refs
        refs = records.ref_list(refs)
        record = records.summary(topic, summary, decisions=decisions, todos=todos,
                                 session_id=session_id, refs=refs)
        text = " ".join([record["topic"], record["summary"], *record["decisions"], *record["todos"]])
        found = found_refs(text, refs, self.project)
        if len(found) > len(refs or []):  # paths and ids the text names, checked like the given ones
            record["refs"] = records.refs_of(found)
        self._append(self.root / "sessions.jsonl", record)
        return record

    def forget(self, record_id: str, reason=None) -> dict:
        """Append a tombstone: search and the session context stop showing the record (and
        the fact consolidated from it). Nothing is edited or deleted."""
        record = records.forget(record_id, reason)
        records.must_exist(self.find(record["target"]), record["target"], "forget")
        if self._forgotten(record["target"]):
            raise UserError(f"{record['target']} is already forgotten (nothing to do)")
        self._append(self.daily_path(), record)
        return record

    def _forgotten(self, record_id: str) -> bool:
        """Does a tombstone for this id exist already (in the index, synced first)?"""
        from .corrections import forgotten
        try:
            self.sync(embed=False)
            return self.index.run(lambda conn: forgotten(conn, record_id))
        except CursorMemoryError:  # no usable index: a second tombstone is harmless
            return False

    def find(self, record_id: str) -> dict | None:
        """The record with this id from the files (not the index), or None."""
        return records.find(self.root, records.record_id(record_id, "the id"))

    def log_event(self, kind: str, **fields) -> dict:
        """Append a session_start / session_end / transcript line to today's daily file."""
        record = records.event(kind, **fields)
        self._append(self.daily_path(), record)
        return record

    # --- the index ---------------------------------------------------------------------

    @property
    def index(self):
        if self._index is None:
            from .index import Index
            self._make_folders()
            self._index = Index(self.root, project=self.project)
            self._index.linked = self.link is not None
        return self._index

    def embedder(self, *, quiet: bool = False, threads: int = 1):
        """The embedding model, loaded once from local files; None when there is none.
        `threads` per call: see embeddings.load."""
        if not self._embedder_tried:
            from . import embeddings
            self._embedder = embeddings.load(self.root, quiet=quiet, threads=threads)
            self._embedder_tried = True
        return self._embedder

    def sync(self, *, embed: bool = True, progress=None, deadline: float | None = None):
        """Bring the index in line with the files (committing as it goes: a later sync goes
        on where one cut short by `deadline` stopped); with `embed`, also make the missing
        vectors when a model is available. Returns a SyncReport. A process that syncs again
        (the MCP server, before each search) skips the work when no source file changed."""
        from .sync import refresh
        report, self._synced = refresh(self.index, self.root, project=self.project,
                                       deadline=deadline, last=self._synced)
        for line in report.skipped:
            from .log import note
            note(f"skipped {line}")
        if embed and not self.index.read_only:
            report.add_vectors(self.embed(progress=progress, deadline=deadline))
        return report

    def embed(self, *, progress=None, deadline: float | None = None, budget=None,
              limit: int | None = None):
        """Make the vectors the index is missing (copies first, then the model), at most
        `limit` of them; None when there is no model. Returns a vectors.FillReport."""
        from . import vectors
        embedder = self.embedder()
        if embedder is None:
            return None
        return vectors.fill(self.index, embedder, deadline=deadline, budget=budget,
                            limit=limit, progress=progress)

    def search(self, query: str, limit: int = 10, mode: str = "hybrid", *, type=None,
               memory_type=None, since=None, until=None, ref=None, history: bool = False,
               sync: bool = True, backlog: float | None = None):
        """Search memory. `mode`: hybrid (keywords + vectors, fused), fts, or vector.
        Filters: type (fact/preference/action/session_summary/core; transcript, the archived
        turns, only when asked for), memory_type (W/B/O/S), since/until (a date or ISO time),
        ref (a file path, also under the names git says it had, or a url / category:id),
        history (also forgotten and superseded records, with their status). `backlog`:
        seconds the model may spend on pending vectors first (default search.BACKLOG_SECONDS).
        Returns search.Results: Hits, `.notes`, `.keyword_only`."""
        from . import search as pipeline
        from .config import load_config

        targets = None
        if ref:
            from .refs import targets_of
            if not isinstance(ref, (str, os.PathLike)):
                raise UserError(f"ref must be a path, a url or category:id, not {ref!r:.40}")
            targets = targets_of(os.fspath(ref), self.project)
        request = pipeline.Request(query, limit, mode, pipeline.Filters.of(
            type, memory_type, since, until, targets, history))
        pipeline.check(request)
        embedder = self.embedder(quiet=True) if mode != "fts" else None
        options = dict(embedder=embedder, project=self.project,
                       fusion=pipeline.fusion_of(load_config(self.root)))

        def prepare():
            report = (self.sync(embed=False, deadline=time.monotonic() + pipeline.SYNC_SECONDS)
                      if sync else None)
            return pipeline.sync_notes(report, self.index.read_only)

        try:
            return pipeline.run(self.index, request, prepare=prepare, **options,
                                backlog=pipeline.BACKLOG_SECONDS if backlog is None else backlog)
        except IndexError_:
            if not self.index.read_only:
                raise
            results = pipeline.run(self._scratch_index(), request, **options)
            results.notes.append("the memory folder is read-only and its index cannot be used: "
                                 "searched a temporary index of its files")
            return results

    def _scratch_index(self):
        """An index of this (read-only) folder's files in a temp folder, made once."""
        if self._scratch is None:
            from .scratch import scratch_index
            self._scratch = scratch_index(self.root, self.project)
        return self._scratch

    def session_context(self, *, search_command: str | None = None, deadline: float | None = None):
        """The sessionStart context (MEMORY.md, recent facts by the decay policy, the last
        summary), fenced as data and within `context_budget` characters, as a
        context.Context: `.text` and the `.ids` of the records it shows. Built from the files
        alone when the index is not ready by `deadline`."""
        from . import context
        from .sync import SyncReport
        try:
            report = self.sync(embed=False, deadline=deadline)
        except StorageError as e:  # a full disk: the index as it is still answers
            from .log import note
            note(f"could not bring the index up to date ({e}); using it as it is")
            report = SyncReport()
        except IndexError_:
            if not self.index.read_only:
                raise
            report = SyncReport()  # read-only with no index of its own: a scratch one below
        index = self.index if report.complete else None  # else: from the files
        if index is not None and index.read_only and not index.usable():
            index = self._scratch_index()
        return context.build(self.root, index, project=self.project, search_command=search_command)

    # --- maintenance -------------------------------------------------------------------

    def consolidate(self, *, deadline: float | None = None, embed: bool = True):
        """Fold new lines and decisions into facts.jsonl (consolidate.py), then sync it. With
        `embed`, the lines' vectors are made first (until `deadline`): a line without one
        waits for the next run before it can join a near-duplicate."""
        from . import consolidate
        self._writable()
        embedder = self.embedder(quiet=True)
        self.sync(embed=embed, deadline=deadline)
        return consolidate.run(self.index, self.root, deadline=deadline,
                               model=embedder.identity if embedder else None,
                               resync=lambda: self.sync(embed=False))

    def check_refs(self) -> dict:
        """References that no longer resolve and artifact files nothing refers to
        (refs.check): {"broken": [...], "orphans": [...]}."""
        from .config import load_config
        from .refs import check
        self.sync(embed=False)
        return self.index.run(lambda conn: check(conn, self.project, load_config(self.root)))

    def recall(self, prompt: str, exclude=()) -> tuple:
        """(context text, ids) of the memories a prompt is about, keywords only (recall.py);
        ("", []) when none clears the bar or recall is off."""
        from . import recall
        if not recall.wanted(self.root, prompt):
            return "", []
        try:
            self.sync(embed=False, deadline=time.monotonic() + recall.SYNC_SECONDS)
        except CursorMemoryError as e:  # a stale index still recalls what it has
            from .log import note
            note(f"recall used the index as it was: {e}")
        return recall.recall(self.index, prompt, set(exclude or ()))

    def prune(self):
        """Retention: old daily files whose lines are all consolidated (consolidate.prune)."""
        from . import consolidate
        self._writable()
        report = consolidate.prune(self.index, self.root)
        if report.pruned:
            self.sync(embed=False)
        return report

    def rebuild(self, *, embed: bool = True, progress=None):
        """Rebuild index.sqlite from the files into a temp file and swap it in; vectors of
        unchanged texts are carried over, the rest are made when `embed` is on."""
        self._writable()
        report = self.index.rebuild()
        if embed:
            report.add_vectors(self.embed(progress=progress))
        return report

    def stats(self):
        """Counts and settings (index.Stats), for `cursor-memory stats`."""
        from . import embeddings, index
        self.sync(embed=False)
        return self.index.run(lambda conn: index.stats(conn, self.root, self.index.path,
                                                       embeddings.describe(self.root)))

