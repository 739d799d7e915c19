"""Likely secrets are replaced before anything reaches disk (facts, summaries, archived
transcripts): memory files are plain text, often committed, and injected into prompts.

Only shapes that are secrets by construction are matched (key blocks, vendor token
prefixes, JWTs, credentials in URLs, values assigned to password/secret/token/key names),
so commit hashes, UUIDs and identifiers such as JWT_SECRET in prose stay as they are.
"""
from __future__ import annotations

import re

_NAMED = [
    ("private key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
                    r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)"),
    ("aws key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"),
    ("google key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    ("github token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b"),
    ("gitlab token", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    ("slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
    ("slack webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+"),
    ("api key", r"\bsk-(?:proj-|ant-(?:api\d\d-)?|svcacct-)?[A-Za-z0-9_\-]{20,}\b"),
    ("stripe key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    ("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
]
_PATTERNS = [(kind, re.compile(p)) for kind, p in _NAMED]

# scheme://user:password@host -> keep the user and host
_URL_CREDENTIAL = re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:)([^\s@/]+)(@)")

# NAME=value / name: value where the name says it is a secret. The value must look like one
# (at least 6 characters, no spaces) so "token: 30 minutes" is left alone.
_ASSIGNMENT = re.compile(
    r"(?i)(\b[A-Za-z0-9_.\-]*(?:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key|"
    r"private[_\-]?key|client[_\-]?secret|credentials?)\b[\"']?\s*[:=]\s*)"
    r"(\"[^\"\s]{6,}\"|'[^'\s]{6,}'|[^\s\"',;]{6,})")
_ZH_ASSIGNMENT = re.compile(r"((?:密码|口令|密钥|令牌)\s*(?:是|为|[:：=])\s*)([^\s，。,;；]{4,})")


def redact(text: str) -> str:
    """The text with likely secrets replaced by [REDACTED:<kind>]."""
    if not text or not isinstance(text, str):
        return text
    for kind, pattern in _PATTERNS:
        text = pattern.sub(f"[REDACTED:{kind}]", text)
    text = _URL_CREDENTIAL.sub(lambda m: f"{m.group(1)}[REDACTED:password]{m.group(3)}", text)
    text = _ASSIGNMENT.sub(_assignment, text)
    text = _ZH_ASSIGNMENT.sub(lambda m: f"{m.group(1)}[REDACTED:password]", text)
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
