"""MEMORY.md split by headings into chunks of about 400 tokens with 80 of overlap
(docs/formats.md "MEMORY.md").

Lines are never cut unless a single line alone is over the limit, and the chunk knows its
heading path, which goes into what is indexed and embedded (a bullet under "## 技术栈" is
about the tech stack even when it does not say so).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .text import count_tokens

# 2: neighbour context for daily lines; parts of long records (sync.py); 3: unique MEMORY.md
# ids (a "#" in a heading is escaped, and a numbered duplicate never takes another's id);
# 4: neighbour context only between lines of a conversation (sync.speaker_of); 5: a title over
# the whole file is no part of its sections' paths (title_of)
CHUNKER_VERSION = "5"
CHUNK_TOKENS = 400
OVERLAP_TOKENS = 80

# The heading's text is group 2 with its closing #s and spaces taken off (`_title`): in one
# pattern, `(.*?)\s*#*\s*$` backtracked cubically over a run of spaces ("# x" + 5,000
# spaces + "y" took minutes).
_HEADING = r"^(#{1,6})\s+(.*)$"
_FENCE = r"^\s*(`{3,}|~{3,})(.*)$"


@dataclass
class Chunk:
    id: str
    section: str  # the nearest heading ("" before the first one)
    path: list  # the heading path, outermost first
    content: str
    line: int  # 1-based line where the chunk starts


def split_markdown(text: str, name: str = "MEMORY.md") -> list[Chunk]:
    parts = _sections(text)
    titled = title_of([path for path, _, _ in parts]) is not None
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    used: set = set()
    for path, start, lines in parts:
        section = path[-1] if path else ""
        # "#" separates an id's parts (`#2`, `#part-1`): in a heading it is escaped, so no
        # heading can name another section's chunk
        key = section.replace("%", "%25").replace("#", "%23")
        for first, body in _windows(lines, start):
            if not body.strip():
                continue
            n = seen.get(key, 0)
            while True:
                n += 1
                cid = f"{name}#{key}" + (f"#{n}" if n > 1 else "")
                if cid not in used:
                    break
            seen[key] = n
            used.add(cid)
            chunks.append(Chunk(cid, section, path[1:] if titled and len(path) > 1 else list(path),
                                body, first))
    return chunks


def title_of(paths: list) -> str | None:
    """The file's title: the one outermost heading every other heading sits under ("# Orbit
    项目核心记忆" over "## 技术栈", "## 常用命令"). It is in every section's path, so it says
    nothing of which section a question is about, and its words (the project's name, 项目,
    记忆) matched every section for any question that used them: it stays in its own
    section's path only (docs/retrieval.md "A title over every section")."""
    tops = {p[0] for p in paths if p}
    if len(tops) != 1 or not any(len(p) > 1 for p in paths):
        return None
    return tops.pop()


def sections(text: str) -> list:
    """[Section]: MEMORY.md cut before each heading (headings inside code fences are code).
    The text before the first heading is a section with an empty path."""
    out: list = []
    path: list = []  # [(level, title)]
    lines: list = []
    start = 1
    fenced = ""  # the open fence's marker
    heading_line = None
    for i, line in enumerate(text.splitlines(), 1):
        fence = re.match(_FENCE, line)  # re caches compiled patterns; nothing at import
        m = None
        if fenced:  # closed only by the same character, as many or more, and nothing else
            if fence and fence.group(1)[0] == fenced[0] and len(fence.group(1)) >= len(fenced) \
                    and not fence.group(2).strip():  # (CommonMark: a ~~~ or a shorter ```
                fenced = ""  # inside a ``` fence is its text)
        elif fence:
            fenced = fence.group(1)
        else:
            m = re.match(_HEADING, line)
        if m:
            out.append(Section([t for _, t in path], start, heading_line, lines))
            level = len(m.group(1))
            path = [(lv, t) for lv, t in path if lv < level] + [(level, _title(m.group(2)))]
            lines = []
            start = i + 1
            heading_line = line
        else:
            lines.append(line)
    out.append(Section([t for _, t in path], start, heading_line, lines))
    return out


def _title(text: str) -> str:
    """A heading's text without its closing sequence: "Stack ##" is "Stack" (and "C#" is
    "C", as it always was here: chunk ids are made of these titles)."""
    return text.rstrip().rstrip("#").rstrip()


@dataclass
class Section:
    path: list  # heading path, outermost first
    start: int  # 1-based line of the first body line
    heading: str | None  # the heading line as written
    lines: list  # body lines

    def text(self) -> str:
        return "\n".join(([self.heading] if self.heading is not None else []) + self.lines)


def _sections(text: str):
    return [(s.path, s.start, s.lines) for s in sections(text)]


def _windows(lines: list[str], start: int):
    """Group lines into windows of at most CHUNK_TOKENS, each starting with the last
    OVERLAP_TOKENS worth of lines of the one before."""
    pieces: list[tuple[int, str, int]] = []  # (line number, text, tokens)
    for i, line in enumerate(lines):
        for part in _split_long(line):
            pieces.append((start + i, part, count_tokens(part) + 1))
    while pieces and not pieces[0][1].strip():
        pieces.pop(0)
    i = 0
    while i < len(pieces):
        total = 0
        j = i
        while j < len(pieces) and (j == i or total + pieces[j][2] <= CHUNK_TOKENS):
            total += pieces[j][2]
            j += 1
        yield pieces[i][0], "\n".join(p[1] for p in pieces[i:j]).strip()
        if j >= len(pieces):
            break
        back, k = 0, j
        while k - 1 > i and back + pieces[k - 1][2] <= OVERLAP_TOKENS:
            k -= 1
            back += pieces[k][2]
        i = k


def _split_long(line: str):
    """A line alone over the limit is cut into pieces that fit (by characters)."""
    if count_tokens(line) <= CHUNK_TOKENS:
        yield line
        return
    step = max(1, len(line) * CHUNK_TOKENS // (count_tokens(line) + 1) - 8)
    for k in range(0, len(line), step):
        yield line[k:k + step]
