"""Likely secrets are replaced by `[REDACTED:<kind>]` before any byte reaches disk: memory
files are plain text, often committed, and injected into prompts (docs/security.md).

What is matched:
- shapes that are secrets by construction: key blocks (any case, any spacing, also a body
  and END line without BEGIN), vendor token prefixes (AWS, GitHub, GitLab, Slack, OpenAI,
  Anthropic, Stripe, SendGrid, Hugging Face, Shopify, DigitalOcean, Discord, npm, PyPI,
  Twilio, Mailgun, Telegram, ...), JWTs;
- credentials in context: the password of a URL (also with an empty user), secret query
  parameters (`sig`, `token`, `api_key`, ...), `Authorization: Bearer|Basic …`,
  `curl -u user:password`, Azure `AccountKey=`, an AWS secret access key near the words
  "secret" or "aws";
- values given to a secret name: `DB_PASS=…`, `SMTP_PWD=…`, `"password": "…"`, and prose
  such as "the password is …", "password hunter2…", "api_key：…", "新的 password 是 …",
  "密码是 …".

What is left alone: commit hashes, UUIDs, names such as JWT_SECRET or password_hash without
a value, "token bucket", numbers, and base64 data without a secret name (a PNG in a code
sample): a generic high-entropy rule would take commit hashes and ids with it.

Every rule has literals that must occur in the text for it to run, so most texts compile
and run none of them (saving a fact must stay as fast as Python starting). Stdlib only.
"""
from __future__ import annotations

# (kind, literals any of which must occur in the lowercased text, pattern, group to replace
# or 0 for the whole match). Patterns are compiled on first use.
_SECRET_WORDS = r"(?:passwords?|passwd|pwd|secrets?|tokens?|api[_\- ]?keys?|access[_\- ]?keys?|" \
                r"private[_\- ]?keys?|secret[_\- ]?keys?|client[_\- ]?secrets?|credentials?|auth[_\- ]?tokens?|" \
                r"passphrase|密码|口令|密钥|令牌|秘钥)"
_VALUE = r"(\"[^\"\n]{6,200}\"|'[^'\n]{6,200}'|[^\s\"',;，。；、）)]{6,})"

_RULES = [
    ("private key", ("private", "-----end"),
     r"(?i)-----\s*BEGIN[ A-Z0-9]*PRIVATE\s+KEY(?:\s+BLOCK)?\s*-----[\s\S]*?"
     r"(?:-----\s*END[ A-Z0-9]*PRIVATE\s+KEY(?:\s+BLOCK)?\s*-----|$)", 0),
    ("aws key", ("akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa", "a3t"),
     r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T[A-Z0-9])[0-9A-Z]{16}\b", 0),
    ("aws secret key", ("secret", "aws"),
     r"(?i)(?:aws|secret)[\s\S]{0,40}?(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])", 1),
    ("aws secret key", ("secret", "aws"),
     r"(?i)(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])(?=[\s\S]{0,60}?(?:aws|secret))", 1),
    ("google key", ("aiza",), r"\bAIza[0-9A-Za-z_\-]{35}\b", 0),
    ("github token", ("gh", "github_pat_"),
     r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b", 0),
    ("gitlab token", ("glpat-", "gldt-", "glrt-"), r"\bgl(?:pat|dt|rt)-[A-Za-z0-9_\-]{20,}\b", 0),
    ("slack token", ("xox",), r"\bxox[abposre]-[A-Za-z0-9-]{10,}\b", 0),
    ("slack webhook", ("hooks.slack.com",), r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+", 0),
    ("api key", ("sk-",), r"\bsk-(?:proj-|ant-(?:api\d\d-|admin\d\d-)?|svcacct-|or-v1-)?[A-Za-z0-9_\-]{20,}", 0),
    ("stripe key", ("_live_", "_test_", "whsec_"),
     r"\b(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9+/=]{24,})", 0),
    ("sendgrid key", ("sg.",), r"\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}", 0),
    ("hugging face token", ("hf_",), r"\bhf_[A-Za-z0-9]{30,}\b", 0),
    ("shopify token", ("shpat_", "shpca_", "shppa_", "shpss_"), r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", 0),
    ("digitalocean token", ("_v1_",), r"\bdo[por]_v1_[a-f0-9]{64}\b", 0),
    ("discord token", (".",),
     r"(?<![A-Za-z0-9_\-])[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}", 0),
    ("npm token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b", 0),
    ("pypi token", ("pypi-",), r"\bpypi-AgE[A-Za-z0-9_\-]{50,}", 0),
    ("twilio key", ("sk",), r"\bSK[0-9a-f]{32}\b", 0),
    ("mailgun key", ("key-",), r"\bkey-[0-9a-f]{32}\b", 0),
    ("mailchimp key", ("-us",), r"\b[0-9a-f]{32}-us\d{1,2}\b", 0),
    ("telegram token", (":aa",), r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b", 0),
    ("square token", ("sq0",), r"\bsq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}", 0),
    ("atlassian token", ("atatt",), r"\bATATT3[A-Za-z0-9_\-=]{30,}", 0),
    ("postman key", ("pmak-",), r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", 0),
    ("databricks token", ("dapi",), r"\bdapi[a-f0-9]{32}(?:-\d)?\b", 0),
    ("age key", ("age-secret-key-",), r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b", 0),
    ("vault token", ("hvs.", "hvb."), r"\bhv[sb]\.[A-Za-z0-9_\-]{24,}", 0),
    ("grafana token", ("glc_", "glsa_"), r"\b(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[a-f0-9]{8})", 0),
    ("jwt", ("eyj",), r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", 0),
    ("1password token", ("ops_",), r"\bops_eyJ[A-Za-z0-9+/=_\-]{60,}", 0),
    ("adobe key", ("p8e-",), r"\bp8e-[A-Za-z0-9]{32}\b", 0),
    ("alibaba key", ("ltai",), r"\bLTAI[A-Za-z0-9]{12,24}\b", 0),
    ("artifactory token", ("akcp", "cmvmd"), r"\b(?:AKCp[A-Za-z0-9]{60,80}|cmVmd[A-Za-z0-9]{50,70})\b", 0),
    ("bedrock key", ("absk",), r"\bABSK[A-Za-z0-9+/=]{60,}", 0),
    ("facebook token", ("eaa",), r"\bEAA[A-Za-z0-9]{90,}", 0),
    ("42 secret", ("s-s4t2",), r"\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b", 0),
    ("notion token", ("ntn_", "secret_"), r"\b(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})\b", 0),
    ("sourcegraph token", ("sgp_",), r"\bsgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}\b", 0),
    ("teams webhook", ("webhook.office.com",),
     r"https://[A-Za-z0-9.\-]*webhook\.office\.com/webhookb2/[A-Za-z0-9@/\-]+", 0),
    ("slack webhook", ("hooks.slack.com",),
     r"(?<!https://)hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{20,}", 0),
    ("gitlab token", ("gl", "gr1348941"),
     r"\b(?:gl(?:cbt|imt|ptt|agent|oas|ft|soat|cbt|ffct)-[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20,})", 0),
    ("twilio sid", ("ac",), r"\bAC[a-f0-9]{32}\b", 0),
    # credentials in context
    # the password runs to the authority's last @ (people write p@ss and s3cret#1 unencoded)
    ("password", ("://",),
     r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s:/@?#]*:(?!\d+[/?#])([^\s]*?[^\s@])@(?=[^\s@/?]*(?:[/?\s]|$))", 1),
    ("secret", ("?", "&"),
     r"(?i)[?&;](?:sig|signature|token|access_token|refresh_token|id_token|api[_\-]?key|apikey|"
     r"key|secret|client_secret|password|passwd|pwd|auth|x-amz-signature|x-amz-credential|"
     r"x-amz-security-token|x-goog-signature|sv_sig|code)=([^&#\s\"']{6,})", 1),
    ("secret", ("authorization", "bearer", "basic"),
     r"(?:(?i:\bauthorization\b)\s*[:=]\s*[\"']?(?i:bearer|basic|token|digest)?\s*|(?i:\bbearer\s+|\bbasic\s+)"
     r"(?=[A-Za-z0-9._~+/\-]*(?:[0-9+/=]|[a-z][A-Z])))"  # "Basic structure of": a word, not a credential
     r"([A-Za-z0-9._~+/\-]{8,}=*)", 1),
    ("password", ("--pass", "--pwd", "--token", "--secret", "--api", "--auth"),
     r"(?i)(?:^|\s)--(?:password|passwd|pass|pwd|token|secret|api[_\-]?key|apikey|auth[_\-]?token|client[_\-]?secret)"
     r"(?:=|\s+)[\"']?([^\s\"']{4,})", 1),
    ("password", ("mysql", "mariadb"),
     r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}?\s-p([^\s\"']{3,})", 1),
    ("password", ("mysql", "mariadb"),
     r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}?\s-p[\"']([^\"'\n$]{3,200})[\"']", 1),
    ("password", ("login",),
     r"\b(?:docker|podman|helm registry|oras)\s+login\b[^\n]{0,200}?\s(?:-p|--password(?![\w-]))[ =]?[\"']?([^\s\"']{3,})", 1),
    ("password", ("redis-cli",), r"\bredis-cli\b[^\n]{0,200}?\s-a\s+[\"']?([^\s\"']{3,})", 1),
    ("password", ("sshpass",), r"\bsshpass\s+-p\s*[\"']?([^\s\"']{3,})", 1),
    # `user:password` of curl -u / --user (not a uid:gid such as docker's -u 1000:1000)
    ("password", ("-u", "--user"),
     r"(?:^|\s)(?:-u|--user)[ =]?[\"']?[^\s:\"']*:(?!\d+(?:[\s\"']|$))([^\s\"']{3,})", 1),
    # connection strings, where a value runs to the `;`: Password=Sup3r S3cret;
    ("password", ("password=", "pwd=", "password =", "pwd ="),
     r"(?i)(?:^|[;\s\"'])(?:password|pwd)\s*=\s*([^;\n\"']{1,200}?)\s*(?=;|$|[\"'])", 1),
    ("secret", ('"auth"',), r"\"auth\"\s*:\s*\"([A-Za-z0-9+/=]{12,})\"", 1),  # docker config.json
    ("secret", ("_auth",), r"(?:^|\s)_auth\s*=\s*([A-Za-z0-9+/=]{8,})", 1),  # .npmrc
    ("secret", ("value=",),  # .NET <add key="ApiKey" value="…"/>
     r"(?i)key\s*=\s*\"[^\"]*(?:key|secret|password|token|pwd)[^\"]*\"\s+value\s*=\s*\"([^\"]{4,200})\"", 1),
    ("secret", ("accountkey", "sharedaccesskey"),
     r"(?i)(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/=]{16,})", 1),
]

# A secret name given a value: `DB_PASS=…`, `"password": "…"`, `secret: …`,
# `app.config['SECRET_KEY'] = …`, Go's `password := …`. The name may carry prefixes and
# suffixes (SMTP_PWD, aws_secret_access_key); the value is at least 6 characters and not a
# reference to where the secret lives ($VAR, process.env.X, <…>, a path, a call).
_SEP = r"[\"']?\]?\s*(?::=|=>|[:=：])\s*"
_ASSIGNMENT = (r"((?<![A-Za-z0-9$/.(])(?:[A-Za-z0-9]+[_.\-])*(?i:" + _SECRET_WORDS +
               r")(?:[_.\-][A-Za-z0-9]+)*" + _SEP + ")" + _VALUE)
# An upper-case name with the word glued on, as environment variables are: PGPASSWORD=…
# (only the unambiguous words: maxTokens and OLDPWD are not secrets)
_GLUED = (r"((?<![A-Za-z0-9$/.])[A-Z0-9]{1,12}(?:PASSWORD|PASSWD|PASSPHRASE|SECRET)" + _SEP + ")" + _VALUE)
# A weaker name (`cloudant_pw`, `sentry-key`, `db_auth`, `dbPass`, `encryptionKey`) counts
# only with a value that looks like a secret: so `sort_key: created_at` stays. A number alone
# never looks like one (maxTokens: 128000).
# Its look-aheads read at most 200 characters: unbounded, each secret word in a long run
# without a break ("密码是密码是…", "password是password是…") re-read the rest of the run
# (16,000 characters: 2.5-5 s).
_LOOKS_SECRET = (r"((?![0-9]+(?![^\s\"',;，。；、]))(?![\u3400-\u9fff])"
                 r"(?=[^\s\"',;，。；、]{0,200}[0-9!@#$%^&*+=/?~|])[^\s\"',;，。；、]{6,}|"
                 r"(?![A-Za-z]+(?:-[A-Za-z]+)+(?![^\s\"',;，。；、]))"  # EdDSA-signed: words, not a secret
                 r"(?![\u3400-\u9fff])(?=[^\s\"',;，。；、]{0,200}[a-z])(?=[^\s\"',;，。；、]{0,200}[A-Z])"
                 r"[^\s\"',;，。；、]{8,})")
_WEAK_ASSIGNMENT = (r"((?<![A-Za-z0-9$/.])(?:(?:[A-Za-z0-9]+[_.\-])+(?i:pw|pass|keys?|auth)|(?i:pass)"
                    r"|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*(?:Pass|Pwd|Key|Secret|Token|Auth))"
                    + _SEP + r"[\"']?)" + _LOOKS_SECRET)
# Prose: "the password is …", "password hunter2…", "新的 password 是 …", "密码为 …",
# "Password for admin: …", "the password is 'correct horse battery staple'". The value must
# look like a secret (a digit or a symbol, or mixed case, 6+ characters; quoted: anything),
# so "password reset flow" and "token bucket" are left alone; a word in a path (src/tokens/)
# or a variable ($PWD) is not prose.
_PROSE = (r"(?<![A-Za-z0-9_\-/.$(\\])((?i:" + _SECRET_WORDS +
          r")(?![A-Za-z0-9_\-/.])(?:\s+for\s+[^\s:：]{1,40}|\s*\([^)\n]{0,30}\))?"
          r"(?:\s*(?i:is|was|are|of|for|=|:|：|是|为|為|改成|改为|设为|设置为)\s*|\s+)"
          r"(?:\s*(?i:is|now|set to|to)\s+)?)"
          r"(\"[^\"\n]{6,200}\"|'[^'\n]{6,200}'|" + _LOOKS_SECRET[1:])
_NAME_LITERALS = ("pass", "pwd", "_pw", "-pw", ".pw", "secret", "token", "key", "credential", "auth", "密码", "口令",
                  "密钥", "令牌", "秘钥")

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
    if not text.isascii() and any(c in _FULLWIDTH_WORD for c in text):
        # ＰＡＳＳＷＯＲＤ＝…: matched as ASCII; the text keeps its full-width letters unless
        # something in it was a secret
        ascii_form = text.translate(_FULLWIDTH)
        redacted = _redact(ascii_form)
        return text if redacted == ascii_form else _restore(text, ascii_form, redacted)
    return _redact(text)


def _restore(text: str, ascii_form: str, redacted: str) -> str:
    """`redacted` with the text's own (full-width) characters back wherever nothing was
    redacted. The mapping is one character for one, so each stretch between markers is found
    in `ascii_form`, in order, and taken from `text` at the same place (linear time)."""
    out, pos = [], 0
    for i, piece in enumerate(_re(r"(\[REDACTED:[^\]]{1,40}\])").split(redacted)):
        if i % 2:  # a marker
            out.append(piece)
            continue
        at = ascii_form.find(piece, pos)
        if at < 0:  # cannot happen with a 1:1 mapping; keep what was computed
            out.append(piece)
            continue
        out.append(text[at:at + len(piece)])
        pos = at + len(piece)
    return "".join(out)


# full-width letters and digits: a text holding one is also matched in ASCII (punctuation
# alone, such as the Chinese comma and colon, hides no secret word)
_FULLWIDTH_WORD = frozenset(chr(c) for c in [*range(0xFF10, 0xFF1A), *range(0xFF21, 0xFF3B),
                                             *range(0xFF41, 0xFF5B)])
# full-width letters, digits and the symbols secrets are written with, as ASCII (1:1)
_FULLWIDTH = {c: c - 0xFEE0 for c in [*range(0xFF10, 0xFF1A), *range(0xFF21, 0xFF3B),
                                      *range(0xFF41, 0xFF5B), 0xFF1D, 0xFF3F, 0xFF0D, 0xFF0E,
                                      0xFF20, 0xFF0F, 0xFF0B]}


def _redact(text: str) -> str:
    lower = text.lower()
    for kind, literals, pattern, group in _RULES:
        if any(lit in lower for lit in literals):
            text = _sub(pattern, group, kind, text)
            lower = text.lower()
    if "-----" in text and "end" in lower:
        text = _key_bodies(text)
    if any(name in lower for name in _NAME_LITERALS):
        # never inside a marker: "[REDACTED:gitlab token]" holds the word "token"
        parts = _re(r"(\[REDACTED:[^\]]{1,40}\])").split(text)
        for i in range(0, len(parts), 2):
            for pattern in (_ASSIGNMENT, _GLUED, _WEAK_ASSIGNMENT, _PROSE):
                parts[i] = _re(pattern).sub(_assignment, parts[i])
        text = "".join(parts)
    return text


_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def _key_bodies(text: str) -> str:
    """A private key's body and END line pasted without its BEGIN line: from the END line,
    walk back over base64 and whitespace (a linear scan: a regex here can backtrack
    exponentially on a public key block)."""
    out, pos = [], 0
    for m in _re(r"-----\s*END[ A-Z0-9]*PRIVATE\s+KEY(?:\s+BLOCK)?\s*-----").finditer(text):
        start = m.start()
        i = start
        while i > pos and (text[i - 1] in _BASE64 or text[i - 1] in " \t\r\n"):
            i -= 1
        while i < start and text[i] in " \t\r\n":
            i += 1
        if sum(1 for ch in text[i:start] if ch in _BASE64) >= 40:
            out.append(text[pos:i])
            out.append("[REDACTED:private key]")
            pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def _sub(pattern: str, group: int, kind: str, text: str) -> str:
    marker = f"[REDACTED:{kind}]"
    if group == 0:
        return _re(pattern).sub(marker, text)

    def one(m):
        value = m.group(group)
        if value is None or value.startswith("[REDACTED") or _looks_like_reference(value):
            return m.group(0)
        start, end = m.span(group)
        whole = m.group(0)
        return whole[:start - m.start()] + marker + whole[end - m.start():]
    return _re(pattern).sub(one, text)


def _assignment(m) -> str:
    value = m.group(m.lastindex)
    if value.startswith(("[REDACTED", "\"[REDACTED", "'[REDACTED")) or _looks_like_reference(value):
        return m.group(0)
    return f"{m.group(1)}[REDACTED:secret]"


def _looks_like_reference(value: str) -> bool:
    """`password: process.env.DB_PASSWORD`, `token=${TOKEN}`: names a secret, is not one."""
    v = value.strip("\"'")
    if v.startswith(("$(", "${", "/", "~/", "./", "../")) or _re(r"[A-Za-z_][\w.]*\(").match(v):
        return True  # a command's output, a path, a call: where the secret comes from
    if v.startswith(("$", "%", "<")):  # $VAR, ${VAR}, $(cmd), %VAR%, <your-token>; not $ecretP4ss
        return bool(_re(r"\$\{[^}]*\}|\$\([^)]*\)|\$(?:[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*)(?:[.\[]|$)"
                        r"|%[A-Za-z_][A-Za-z0-9_]*%|<[^<>]+>$").match(v))
    return (v.startswith(("process.env", "os.environ", "env.", "{{", "[REDACTED",
                          "getenv", "os.getenv", "secrets.", "vault:", "ENV["))
            or v.lower() in {"required", "optional", "string", "none", "null", "true", "false",
                             "undefined", "redacted", "******", "xxxxxx", "********", "<secret>",
                             "hidden", "masked", "changeme"}
            or set(v) <= set("*x•.·-_"))
