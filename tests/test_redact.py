"""Likely secrets never reach disk; ordinary identifiers and hashes are left alone."""
import pytest

from memory_core.redact import redact

SECRETS = [
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq9dQ\nabc123==\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
    "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS",
    "glpat-xxxxxxxxxxxxxxxxxxxx",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
    "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "password=hunter2secret",
    "DB_PASSWORD: 'S3cr3t!pass'",
    "JWT_SECRET=supersecretvalue123",
    'client_secret: "abcDEF123456ghi"',
    "postgresql://orbit:Pa55w0rd@db.example.com:5432/orbit",
    "数据库密码是 Hunter2024",
]


@pytest.mark.parametrize("secret", SECRETS)
def test_secrets_are_redacted(secret):
    sentence = f"记录一下：{secret} 用于部署"
    out = redact(sentence)
    assert "[REDACTED" in out
    for piece in ("hunter2secret", "S3cr3t!pass", "supersecretvalue", "Pa55w0rd", "Hunter2024",
                  "wJalrXUtnFEMI", "A1b2C3d4", "4eC39HqLy", "dozjgNryP4J3j", "MIIEowIBAAK"):
        assert piece not in out


ORDINARY = [
    "Commit 3f9a1c02be4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f fixed the flaky test",
    "The sha256 is e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "Request id 123e4567-e89b-12d3-a456-426614174000 timed out",
    "JWT_SECRET lives in src/auth/jwt.ts and is read at startup",
    "access token 有效期 30 分钟，refresh token 有效期 14 天",
    "token: 30 minutes",
    "password: process.env.DB_PASSWORD",
    "Local DATABASE_URL is postgresql://localhost:5433/orbit",
    "使用 sqlite-vec 做向量索引，sk-learn 不需要",
    "The secret sauce is caching",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_identifiers_and_hashes_are_left_alone(text):
    assert redact(text) == text


def test_saved_facts_and_summaries_are_redacted(mem):
    r = mem.save_fact("staging DB: postgresql://app:Sup3rS3cret@10.0.0.5/app")
    s = mem.save_summary("keys", "rotated ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2", ["JWT_SECRET=abcdef123456"])
    raw = "".join(p.read_text() for p in mem.root.rglob("*.jsonl"))
    assert "Sup3rS3cret" not in raw and "Z9y8X7w6" not in raw and "abcdef123456" not in raw
    assert "[REDACTED" in r["content"] and "[REDACTED" in s["summary"]
