"""Memories that point at things (docs/formats.md "A fact"): `file:<path>[#L<line>]` in the project,
`url:<url>`, and `<category>:<id>` for files in the artifact folders (artifact, upload, report,
chart, cache, temp). Parsing, finding them in prose, and checking that they still resolve.

For a coding agent the files that matter most are the project's own, and those move:
renames are followed through git history, so "what do we know about src/auth/jwt.ts" still
finds what was saved about its old path.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

CATEGORIES = ("artifact", "upload", "report", "chart", "cache", "temp")
# Where each category's files live, relative to the project (config.json `artifact_dirs`).
ARTIFACT_DIRS = {"artifact": "artifacts", "upload": "uploads", "report": "reports",
                 "chart": "charts", "cache": "cache", "temp": "temp"}
MAX_REFS = 32

# `category:id` in prose, English or Chinese: the category is one of ours (so `TODO:`,
# `注意:` and `10:30` are not references), it is not glued to a preceding ASCII word, and the
# id starts with a letter or digit.
_PATTERNS = {
    "category": r"(?<![A-Za-z0-9_/.\-])(" + "|".join(CATEGORIES)
                + r"):([A-Za-z0-9][A-Za-z0-9_.\-]*[A-Za-z0-9_]|[A-Za-z0-9])",
    "file": r"(?<![A-Za-z0-9_])file:([^\s`'\"，。；、）)]+)",
    "backticked": r"`([^`\s]+)`",  # a backticked path: no spaces, a slash or a dot-extension
    "pathlike": r"^(?:\./)?[A-Za-z0-9_@.\-][A-Za-z0-9_@.\-/]*(?:/[A-Za-z0-9_@.\-]+|\.[A-Za-z0-9]{1,8})"
                r"(?:#L\d+(?:-L?\d+)?|:\d+)?$",
}
_compiled: dict = {}


def _re(name: str):
    """Compiled on first use: sessionStart with nothing new never needs them."""
    if name not in _compiled:
        _compiled[name] = re.compile(_PATTERNS[name])
    return _compiled[name]


class RefError(ValueError):
    pass


def parse(ref: str) -> tuple[str, str]:
    """(kind, target) of a reference string, or RefError saying what is wrong with it.
    kind is 'file', 'url' or a category."""
    if not isinstance(ref, str) or not ref.strip():
        raise RefError("a reference is empty")
    ref = ref.strip()
    kind, sep, target = ref.partition(":")
    kind = kind.lower()
    if not sep or not target:
        raise RefError(f"{ref!r} is not file:<path>, url:<url> or <category>:<id>")
    if kind == "file":
        return "file", normalize_path(target)
    if kind == "url":
        if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.\-]*://\S+$", target):
            raise RefError(f"{ref!r}: a url reference is url:<scheme>://...")
        return "url", target
    if kind in CATEGORIES:
        if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$", target):
            raise RefError(f"{ref!r}: an id is letters, digits, _ . -")
        return kind, target
    raise RefError(f"{ref!r}: the kind must be file, url or one of {', '.join(CATEGORIES)}")


MAX_PATH = 1024  # characters; a name longer than any file system allows is not a file


def normalize_path(path: str) -> str:
    """A project-relative POSIX path with an optional #L<line>; no escaping the project."""
    path = path.strip().replace("\\", "/")
    if not path.isprintable():  # a line break or a control in a path is a forgery, not a file
        raise RefError(f"file:{path[:80]!r}: a path holds no line breaks or control characters")
    line = ""
    m = re.search(r"(#L\d+(?:-L?\d+)?|:\d+)$", path)
    if m:
        line = m.group(1) if m.group(1).startswith("#") else "#L" + m.group(1)[1:]
        path = path[:m.start()]
    while path.startswith("./"):
        path = path[2:]
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or path.startswith("/") or ".." in parts:
        raise RefError(f"file:{path[:80]}: a path inside the project, relative to its root")
    if len(path) > MAX_PATH or any(len(p.encode("utf-8", "replace")) > 255 for p in parts):
        raise RefError(f"file:{path[:80]}…: longer than a file system allows")
    return "/".join(parts) + line


def file_of(target: str) -> str:
    """The path of a file reference, without its #L<line>."""
    return target.split("#L", 1)[0]


def canonical(refs) -> list[str]:
    """Validated, normalised, de-duplicated `kind:target` strings."""
    out = []
    for ref in refs or []:
        kind, target = parse(ref)
        s = f"{kind}:{target}"
        if s not in out:
            out.append(s)
    if len(out) > MAX_REFS:
        raise RefError(f"{len(out)} references; the limit is {MAX_REFS}")
    return out


def extract(text: str, project: Path | None = None) -> list[str]:
    """References written in prose: `category:id` tokens, `file:path`, and backticked paths
    that exist in the project (when the project is known)."""
    found = []
    if not text:
        return found
    for m in _re("category").finditer(text):
        found.append(f"{m.group(1)}:{m.group(2)}")
    for m in _re("file").finditer(text):
        try:
            found.append(f"file:{normalize_path(m.group(1).rstrip('.,;:'))}")
        except RefError:
            pass
    if project is not None:
        for m in _re("backticked").finditer(text):
            candidate = m.group(1)
            if ":" in candidate.split("/")[0] and not re.search(r":\d+$", candidate):
                continue  # `artifact:x`, `https://…`: not a path
            if not _re("pathlike").match(candidate):
                continue
            try:
                path = normalize_path(candidate)
            except RefError:
                continue
            if os.path.exists(Path(project) / file_of(path)):
                found.append(f"file:{path}")
    return list(dict.fromkeys(found))


def artifact_dirs(project: Path, config: dict) -> dict:
    dirs = dict(ARTIFACT_DIRS)
    custom = config.get("artifact_dirs")
    if isinstance(custom, dict):
        dirs.update({k: str(v) for k, v in custom.items() if k in CATEGORIES})
    return {k: Path(project) / v for k, v in dirs.items()}


def artifact_file(project: Path, config: dict, category: str, ident: str) -> Path | None:
    """The file backing `category:id`: <dir>/<id> or <dir>/<id>.<ext>."""
    folder = artifact_dirs(project, config).get(category)
    if folder is None or not os.path.isdir(folder):
        return None
    exact = folder / ident
    if os.path.isfile(exact):
        return exact
    try:
        for p in folder.iterdir():
            if os.path.isfile(p) and p.stem == ident:
                return p
    except OSError:  # unreadable: nothing found there
        pass
    return None


def exists(ref: str, project: Path | None, config: dict | None = None) -> bool | None:
    """Does the reference resolve now? None when it cannot be told (a url, no project)."""
    kind, target = parse(ref)
    if kind == "url" or project is None:
        return None
    if kind == "file":
        return os.path.exists(Path(project) / file_of(target))
    return artifact_file(project, config or {}, kind, target) is not None


# --- renames, from git ---------------------------------------------------------------------

def renames(project: Path) -> dict:
    """{old path: newest path} for every rename git knows (followed through chains)."""
    import subprocess

    try:
        out = subprocess.run(
            ["git", "log", "--name-status", "-M", "--diff-filter=R", "--format=", "--reverse"],
            cwd=project, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return {}
    if out.returncode != 0:
        return {}
    step = {}
    for line in out.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[0].startswith("R"):
            step[parts[1]] = parts[2]
    final = {}
    for old in step:
        seen, cur = {old}, step[old]
        while cur in step and cur not in seen:
            seen.add(cur)
            cur = step[cur]
        final[old] = cur
    return final


def former_names(path: str, project: Path | None) -> list[str]:
    """The path and every name git says it had before."""
    path = file_of(normalize_path(path))
    if project is None:
        return [path]
    return [path] + sorted(old for old, new in renames(project).items() if new == path)


def suggest(path: str, project: Path, moved: dict | None = None) -> str | None:
    """Where a missing file went: git's rename, else the one file with the same name."""
    path = file_of(path)
    moved = renames(project) if moved is None else moved
    new = moved.get(path)
    if new and os.path.exists(Path(project) / new):
        return new
    name = os.path.basename(path)
    matches = []
    for dirpath, dirnames, filenames in os.walk(project):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in (
            "node_modules", "__pycache__", "dist", "build", "venv")]
        if name in filenames:
            matches.append(os.path.relpath(os.path.join(dirpath, name), project).replace(os.sep, "/"))
            if len(matches) > 1:
                return None
    return matches[0] if matches else None


# --- in the index ---------------------------------------------------------------------------

def of_record(record: dict, content: str, project: Path | None) -> list[str]:
    """A chunk's references: the record's `refs` (invalid ones dropped) and those written
    in its text."""
    out = []
    for ref in record.get("refs") or [] if isinstance(record.get("refs"), list) else []:
        try:
            kind, target = parse(ref)
            out.append(f"{kind}:{target}")
        except RefError:
            continue
    return list(dict.fromkeys(out + extract(content, project)))[:MAX_REFS]


def store(conn, items, *, fresh: bool = False) -> None:
    """items: [(chunk id, [ref, ...])]: replace each chunk's rows in the refs table (`fresh`:
    the chunks are new, nothing to replace)."""
    items = [(cid, refs) for cid, refs in items if refs or not fresh]
    if not items:
        return
    pks = {}
    ids = [cid for cid, _ in items]
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        pks.update({cid: pk for pk, cid in conn.execute(
            f"SELECT pk, id FROM chunks WHERE id IN ({','.join('?' * len(part))})", part)})
    rows = []
    if not fresh:
        conn.executemany("DELETE FROM refs WHERE pk=?", [(pk,) for pk in pks.values()])
    for cid, refs in items:
        pk = pks.get(cid)
        if pk is None:
            continue
        for ref in refs:
            kind, target = ref.split(":", 1)
            rows.append((pk, ref, kind, file_of(target) if kind == "file" else target))
    conn.executemany("INSERT INTO refs(pk, ref, kind, target) VALUES (?,?,?,?)", rows)


def found_refs(text, refs, project) -> list:
    """The references given plus those written in the text (not yet validated)."""
    found = extract(text, project) if isinstance(text, str) else []
    given = list(refs or [])
    # what the text mentions is kept up to the limit; only refs given explicitly can be too many
    return given + found[:max(0, MAX_REFS - len(given))]


def _shown(path: Path, project: Path) -> str:
    """A path relative to the project when it is inside it, else as it is."""
    try:
        return str(path.relative_to(project))
    except ValueError:
        return str(path)


def targets_of(ref: str, project) -> list:
    """What `search --ref` matches: a file path (also under the names git says it had), or
    a url / category:id as it is. UserError for a reference that cannot be read."""
    from .errors import UserError
    if project is not None and os.path.isabs(ref):  # an absolute path inside the project
        try:
            ref = Path(ref).resolve().relative_to(Path(project).resolve()).as_posix()
        except (ValueError, OSError):
            pass  # outside it: refused below, as a path must be inside the project
    try:
        kind, target = parse(ref if ":" in ref.split("/")[0] else f"file:{ref}")
    except RefError as e:
        raise UserError(str(e)) from None
    return former_names(target, project) if kind == "file" else [target]


def check(conn, project: Path | None, config: dict) -> dict:
    """{"broken": [{"id", "ref", "why", "suggestion"}], "orphans": [path]} for a synced index:
    file references that no longer resolve (with git's or a unique name's suggestion),
    artifact references with no file, and artifact files no memory refers to."""
    rows = conn.execute("SELECT c.id, r.ref, r.kind, r.target FROM refs r JOIN chunks c "
                        "ON c.pk = r.pk WHERE c.hidden = 0 ORDER BY c.id").fetchall()
    broken, used = [], set()
    moved = renames(project) if project is not None else {}
    for cid, ref, kind, target in rows:
        if kind == "url" or project is None:
            continue
        if kind == "file":
            if not os.path.exists(Path(project) / target):
                broken.append({"id": cid, "ref": ref, "why": "file not found",
                               "suggestion": suggest(target, project, moved)})
        else:
            used.add((kind, target))
            if artifact_file(project, config, kind, target) is None:
                folder = artifact_dirs(project, config)[kind]
                broken.append({"id": cid, "ref": ref, "suggestion": None,
                               "why": f"no file {target}* in {_shown(folder, Path(project))}"})
    orphans = []
    if project is not None:
        for kind, folder in artifact_dirs(project, config).items():
            try:
                listing = sorted(folder.iterdir()) if os.path.isdir(folder) else []
            except OSError:
                listing = []
            for p in listing:
                if os.path.isfile(p) and (kind, p.name) not in used and (kind, p.stem) not in used:
                    orphans.append(_shown(p, Path(project)))
    return {"broken": broken, "orphans": orphans}
