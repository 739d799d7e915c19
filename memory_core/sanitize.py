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

import functools
import re
import unicodedata

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
# Controls (not \t \n), DEL, C1, and the format characters that render nothing or reorder
# text: soft hyphen, Arabic letter mark, Mongolian vowel separator, zero-width space/joiners,
# direction marks and embeddings/overrides/isolates, word joiner and invisible operators,
# BOM, interlinear annotations, tag characters, lone surrogates.
# The default-ignorable characters that are not variation selectors are here too: the
# combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian variation
# selectors, shorthand format controls, musical beam and slur controls.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5"
    "\u180b-\u180f\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164"
    "\ufeff\uffa0\ufff0-\ufffb\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f"
    "\ud800-\udfff]")  # a lone surrogate (half an emoji cut by JSON.stringify) cannot be written
# Variation selectors choose an emoji's or an ideograph's form, so they are kept on write;
# they show nothing, so the fence's look-alike is looked for without them.
_VARIATION = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")
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
# a character outside the BMP is a JSON pair of surrogate escapes: read as the one it is
_JSON_ESCAPE = re.compile(r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"
                          r"|\\u([0-9a-fA-F]{4})|\\([/<>])")
# Letters of other scripts that look like the Latin ones of the fence's name (NFKC keeps
# them apart): Cyrillic с о е м у г р а х к ѕ, Greek ο ε υ ν, and angle quotes as brackets.
# Small capitals (ᴍᴇᴍᴏʀʏ) and the dotless ı are Latin letters NFKC keeps apart, so they
# are in the table too.
_CONFUSABLE = str.maketrans("соемуграхкѕіοευν‹›ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢı",
                            "coemyrpaxksioeuv<>abcdefghijklmnoprstuvwyzi")
# The fence imitated: something like "<", then the name with anything but letters around
# and between its words. A table of look-alikes is never complete (reviews kept finding
# more: Armenian ս and օ, fraction and division slashes, CJK angle brackets), so:
# - any character of the brackets' shape opens it (the slashes are in [\W_]);
# - each letter of the name may be any letter of another script but Chinese, Japanese or
#   Korean (which nothing Latin resembles), as long as at least NAME_LATIN of its twelve
#   letters are the Latin ones after the table above: "we use cursor-memory" has no bracket,
#   and "<用户名称设置为管理员账号" no Latin letter.
_OPEN = "<˂˱〈❬❮❰⟨⦑ᐸ≪⋖"  # ＜ ﹤ 〈 fold to these by NFKC, ‹ by the table above
# One letter of the name's shape: any letter but Chinese, Japanese or Korean. Which letter
# each of its twelve places holds is checked in Python (`_imitations`): the same test spelt
# as twelve classes in one pattern took 50-80 ms to compile, in every process that renders.
_LETTER = r"[^\W\d_\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]"
NAME_LATIN = 8
_NAME = FENCE_NAME.replace("-", "")  # its twelve letters


@functools.lru_cache(maxsize=1)
def _fence_shape():
    """"<", up to 8 non-letters, six letters, up to 8 non-letters, six letters: each start
    has at most one match, as letters and what parts them are disjoint classes."""
    return re.compile(f"[{_OPEN}][\\W_]{{0,8}}({_LETTER}{{6}})[\\W_]{{0,8}}({_LETTER}{{6}})")


def _imitations(norm: str):
    """Each imitation of the fence in casefolded `norm`: every letter is the name's own or
    one of another script, and at least NAME_LATIN are the Latin ones."""
    shape, pos = _fence_shape(), 0
    while (m := shape.search(norm, pos)) is not None:
        letters = m.group(1) + m.group(2)
        if all(c == want or not c.isascii() for c, want in zip(letters, _NAME)):
            if sum(c.isascii() for c in letters) >= NAME_LATIN:
                yield m
            pos = m.end()
        else:
            pos = m.start() + 1


def _json_char(m) -> str:
    if m.group(1):
        high, low = int(m.group(1), 16), int(m.group(2), 16)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    return chr(int(m.group(3), 16)) if m.group(3) else m.group(4)


def _normalised(text: str):
    """(normalised text, [(start, end) in `text` of each normalised character]): NFKC per
    character, casefolded, accents dropped, HTML entities and JSON escapes decoded,
    invisibles dropped."""
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
                decoded = _json_char(m)
                span_end = m.end()
        if decoded is None:
            decoded = ch
        for c in _plain(decoded):
            out.append(c)
            back.append((i, span_end))
        i = span_end
    return "".join(out), back


def _plain(text: str) -> str:
    """Invisibles dropped, NFKC, casefolded, look-alikes as the letters they resemble,
    accents dropped (ü: u and a mark, which goes)."""
    text = _INVISIBLE.sub("", text).replace(_ZWJ, "")
    if text.isascii():
        return text.casefold()
    text = unicodedata.normalize("NFKC", text).casefold().translate(_CONFUSABLE)
    text = _VARIATION.sub("", _INVISIBLE.sub("", text))  # NFKC makes ㅤ (U+3164) a filler too
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def defuse(text: str) -> str:
    """`text` with every imitation of the context fence replaced by a visible marker, found
    on the NFKC-normalised, entity- and escape-decoded text."""
    if not text:
        return text
    quick = text  # a look at the whole text first; where each imitation is, only if one is
    if "\\" in quick:
        quick = _JSON_ESCAPE.sub(_json_char, quick)
    if "&" in quick:
        import html
        quick = html.unescape(quick)
    if not any(_imitations(_plain(quick))):
        return text
    spans = _located(text)
    if not spans:  # found on the text decoded whole, not character by character (an entity
        # without its ";", of more digits than a character needs, an escaped entity): the
        # decoded text is what an agent would read, so it is what is given, defused
        text = quick
        spans = _located(text) or [(0, len(text))]
    out, pos = [], 0
    for start, end in spans:
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append("[fence-like text removed]")
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _located(text: str) -> list:
    """[(start, end)] in `text` of each imitation of the fence."""
    norm, back = _normalised(text)
    return [(back[m.start()][0], back[m.end() - 1][1]) for m in _imitations(norm)]


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
