"""Stored text that cannot hide anything or pose as structure (docs/security.md).

On write (`clean`): characters that show nothing or steer a display are removed from every
field: C0/C1 controls but newline and tab, ANSI escape sequences, zero-width characters,
bidirectional controls (U+202E and kin), Unicode tag characters, and other invisible format
characters; a zero-width joiner is kept only inside an emoji sequence. Chinese, emoji and
punctuation are untouched.

On read (`render_item`, `defuse`): a stored record goes into the agent's context as one item
that cannot open a heading, a list, a fence or front matter of its own (its lines are
joined), and text that imitates the context's fence is defused however it is written
(NFKC look-alikes such as ＜/cursor-memory＞, HTML entities, JSON escapes, no closing `>`).
`for_terminal` makes any text safe to print.

Stdlib only: the save path imports this.
"""
from __future__ import annotations

import re
import unicodedata

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
# Controls (not \t \n), DEL, C1, and the format characters that render nothing or reorder
# text: soft hyphen, Arabic letter mark, Mongolian vowel separator, zero-width space/joiners,
# direction marks and embeddings/overrides/isolates, word joiner and invisible operators,
# BOM, interlinear annotations, tag characters, lone surrogates.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200c\u200e\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f"
    "\ud800-\udfff]")  # a lone surrogate (half an emoji cut by JSON.stringify) cannot be written
_ZWJ = "\u200d"


def _pictograph(ch: str) -> bool:
    o = ord(ch)
    return (0x1F000 <= o <= 0x1FAFF or 0x2600 <= o <= 0x27BF or o in (0xFE0F, 0x2640, 0x2642)
            or 0x1F3FB <= o <= 0x1F3FF)


def clean(text: str, *, one_line: bool = False) -> str:
    """`text` without invisible and control characters (see the module docstring); line
    breaks normalised to \\n, or with `one_line` every run of whitespace that holds a line
    break made one space."""
    if not text:
        return text
    text = _ANSI.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    text = _INVISIBLE.sub("", text)
    if _ZWJ in text:
        text = "".join(ch for i, ch in enumerate(text) if ch != _ZWJ or (
            0 < i < len(text) - 1 and _pictograph(text[i - 1]) and _pictograph(text[i + 1])))
    if one_line:
        text = re.sub(r"\s*\n\s*", " ", text)
    return text


# --- rendering stored text ---------------------------------------------------------------------

FENCE_NAME = "cursor-memory"
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
_JSON_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\([/<>])")
_FENCE_LOOKALIKE = re.compile(r"<\s*/?\s*cursor[\W_]{0,8}memory", re.I)
# Letters of other scripts that look like the Latin ones of the fence's name (NFKC keeps
# them apart): Cyrillic с о е м у г р а х к ѕ, Greek ο ε υ ν, and angle quotes as brackets.
_CONFUSABLE = str.maketrans("соемуграхкѕіοευν‹›", "coemyrpaxksioeuv<>")


def _normalised(text: str):
    """(normalised text, [(start, end) in `text` of each normalised character]): NFKC per
    character, casefolded, HTML entities and JSON escapes decoded, invisibles dropped."""
    import html

    out: list = []
    back: list = []
    i = 0
    while i < len(text):
        ch = text[i]
        span_end = i + 1
        decoded = None
        if ch == "&":
            m = _ENTITY.match(text, i)
            if m:
                value = html.unescape(m.group())
                if value != m.group() and len(value) == 1:
                    decoded, span_end = value, m.end()
        elif ch == "\\":
            m = _JSON_ESCAPE.match(text, i)
            if m:
                decoded = chr(int(m.group(1), 16)) if m.group(1) else m.group(2)
                span_end = m.end()
        if decoded is None:
            decoded = ch
        if _INVISIBLE.match(decoded) or decoded == _ZWJ:
            i = span_end
            continue
        for c in unicodedata.normalize("NFKC", decoded).casefold().translate(_CONFUSABLE):
            out.append(c)
            back.append((i, span_end))
        i = span_end
    return "".join(out), back


def defuse(text: str) -> str:
    """`text` with every imitation of the context fence replaced by a visible marker, found
    on the NFKC-normalised, entity- and escape-decoded text."""
    if not text:
        return text
    quick = text.lower()
    if "memory" not in quick and "&" not in text and "\\" not in text:
        if text.isascii():
            return text
        import unicodedata  # ⓜ, ｍ, ᵐ, Cyrillic м: look-alikes are found by what they resemble
        norm = unicodedata.normalize("NFKC", text).lower().translate(_CONFUSABLE)
        if "memory" not in norm and "&" not in norm and "\\" not in norm:
            return text
    norm, back = _normalised(text)
    spans = [(back[m.start()][0], back[m.end() - 1][1]) for m in _FENCE_LOOKALIKE.finditer(norm)]
    if not spans:
        return text
    out, pos = [], 0
    for start, end in spans:
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append("[fence-like text removed]")
        pos = end
    out.append(text[pos:])
    return "".join(out)


def fence(preamble: str) -> tuple:
    """(opening, closing) of a block of stored text given to an agent: the fence carries a
    random nonce, so text inside cannot close it (look-alikes are defused anyway), and the
    preamble says the block is data, not instructions."""
    import os
    nonce = os.urandom(4).hex()
    return (f'<{FENCE_NAME} data="{nonce}">\n{preamble}', f'</{FENCE_NAME} data="{nonce}">')


def render_item(text: str) -> str:
    """Stored text as one item of the injected context: clean, fence look-alikes defused,
    its lines joined with ' ↵ ' so it cannot start a line (a heading, a list, a fence,
    front matter) of its own."""
    text = defuse(clean(text or ""))
    return " ↵ ".join(line.strip() for line in text.split("\n") if line.strip())


def render_document(text: str) -> str:
    """The user's own MEMORY.md as it is written (headings and lists are theirs), but clean
    and unable to close the fence."""
    return defuse(clean(text or ""))


def for_terminal(text: str) -> str:
    """Text that prints as it reads: no escape sequences, controls or direction overrides."""
    return clean(text or "") if isinstance(text, str) else text
