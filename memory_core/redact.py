"""Likely secrets are replaced before anything reaches disk (facts, summaries, archived
transcripts): memory files are plain text, often committed, and injected into prompts.

Only shapes that are secrets by construction are matched (key blocks, vendor token
prefixes, JWTs, credentials in URLs, values assigned to password/secret/token/key names),
so commit hashes, UUIDs and identifiers such as JWT_SECRET in prose stay as they are.
"""
from __future__ import annotations

# (kind, literal that must occur in the text for the pattern to have a chance, pattern).
# The literal check keeps redaction cheap: most texts compile and run none of these.
_NAMED = [
    ("private key", "PRIVATE KEY", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
                                   r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)"),
    ("aws key", "A", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"),
    ("google key", "AIza", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    ("github token", "_", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b"),
    ("gitlab token", "glpat-", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    ("slack token", "xox", r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
    ("slack webhook", "hooks.slack.com", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+"),
    ("api key", "sk-", r"\bsk-(?:proj-|ant-(?:api\d\d-)?|svcacct-)?[A-Za-z0-9_\-]{20,}\b"),
    ("stripe key", "_", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    ("npm token", "npm_", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("jwt", "eyJ", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
]

# scheme://user:password@host -> keep the user and host
_URL_CREDENTIAL = r"\b([a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:)([^\s@/]+)(@)"

# NAME=value / name: value where the name says it is a secret. The value must look like one
# (at least 6 characters, no spaces) so "token: 30 minutes" is left alone.
_SECRET_NAMES = ("password", "passwd", "pwd", "secret", "token", "key", "credential")
_ASSIGNMENT = (
    r"(?i)(\b[A-Za-z0-9_.\-]*(?:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key|"
    r"private[_\-]?key|client[_\-]?secret|credentials?)\b[\"']?\s*[:=]\s*)"
    r"(\"[^\"\s]{6,}\"|'[^'\s]{6,}'|[^\s\"',;]{6,})")
_ZH_NAMES = ("密码", "口令", "密钥", "令牌")
_ZH_ASSIGNMENT = r"((?:密码|口令|密钥|令牌)\s*(?:是|为|[:：=])\s*)([^\s，。,;；]{4,})"

_compiled: dict = {}


def _re(pattern: str):
    """Compiled on first use: saving a fact must not pay for patterns it never needs."""
    c = _compiled.get(pattern)
    if c is None:
        import re
        c = _compiled[pattern] = re.compile(pattern)
    return c


def redact(text: str) -> str:
    """The text with likely secrets replaced by [REDACTED:<kind>]."""
    if not text or not isinstance(text, str):
        return text
    for kind, marker, pattern in _NAMED:
        if marker in text:
            text = _re(pattern).sub(f"[REDACTED:{kind}]", text)
    if "://" in text:
        text = _re(_URL_CREDENTIAL).sub(lambda m: f"{m.group(1)}[REDACTED:password]{m.group(3)}", text)
    lower = text.lower()
    if any(name in lower for name in _SECRET_NAMES):
        text = _re(_ASSIGNMENT).sub(_assignment, text)
    if any(name in text for name in _ZH_NAMES):
        text = _re(_ZH_ASSIGNMENT).sub(lambda m: f"{m.group(1)}[REDACTED:password]", text)
    return text


def _assignment(m) -> str:
    value = m.group(2)
    if value.startswith("[REDACTED") or _looks_like_reference(value):
        return m.group(0)
    return f"{m.group(1)}[REDACTED:secret]"


def _looks_like_reference(value: str) -> bool:
    """`password: process.env.DB_PASSWORD`, `token=${TOKEN}`: names a secret, is not one."""
    v = value.strip("\"'")
    return (v.startswith(("$", "process.env", "os.environ", "env.", "<", "{{", "%"))
            or v.lower() in {"required", "optional", "string", "none", "null", "true", "false",
                             "undefined", "redacted", "******", "xxxxxx"})
