"""Memories that point at files (docs/formats.md): extraction in both languages, references on hits,
search by file (also after a git rename), integrity checks, and stale facts in the context."""
import json
import os
import subprocess

import pytest

from memory_core import Memory, UserError
from memory_core.refs import extract


@pytest.fixture
def project(tmp_path):
    proj = tmp_path / "proj"
    (proj / "src/auth").mkdir(parents=True)
    (proj / "src/auth/jwt.ts").write_text("export const sign = () => {}\n")
    (proj / "README.md").write_text("# x\n")
    return proj


@pytest.fixture
def mem(project):
    return Memory(project / ".cursor/skills/memory-data")


def git(project, *args):
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                            GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t"))


@pytest.mark.parametrize("text, refs", [
    ("JWT 签名逻辑在 `src/auth/jwt.ts` 里", ["file:src/auth/jwt.ts"]),
    ("JWT signing lives in `src/auth/jwt.ts`.", ["file:src/auth/jwt.ts"]),
    ("see `src/auth/jwt.ts:12` for the key", ["file:src/auth/jwt.ts#L12"]),
    ("详细分析见artifact:jkl012，趋势图 chart:def456。", ["artifact:jkl012", "chart:def456"]),
    ("The weekly report is report:789xyz (PDF)", ["report:789xyz"]),
    ("uploaded upload:sales_2024_q1.xlsx and cached cache:abc-1.", ["upload:sales_2024_q1.xlsx", "cache:abc-1"]),
    ("explicit file:README.md mention", ["file:README.md"]),
])
def test_references_written_in_the_text_are_found(project, text, refs):
    assert extract(text, project) == refs


@pytest.mark.parametrize("text", [
    "注意: 部署前要先备份", "TODO: add retries", "会议在 10:30 开始", "ratio 3:1 at 12:30:45",
    "see https://example.com/a:b", "`src/missing.ts` 已经删掉了", "run `npm run build` first",
    "myartifact:x1", "C:\\Users\\me", "key:value pairs", "备注：artifact 还没生成",
])
def test_ordinary_words_with_a_colon_are_not_references(project, text):
    assert extract(text, project) == []


def test_saved_facts_carry_explicit_and_written_references(mem):
    r = mem.save_fact("JWT 签名在 `src/auth/jwt.ts`，密钥轮换见 report:rot-2026",
                      refs=["url:https://jwt.io", "file:./src/auth/jwt.ts"])
    assert r["refs"] == ["url:https://jwt.io", "file:src/auth/jwt.ts", "report:rot-2026"]
    with pytest.raises(UserError, match="kind must be"):
        mem.save_fact("x", refs=["folder:abc"])
    with pytest.raises(UserError, match="inside the project"):
        mem.save_fact("x", refs=["file:../../etc/passwd"])


def test_bad_refs_on_the_command_line_exit_2(cli, mem):
    out = cli("save_fact.py", "--content", "x", "--ref", "nonsense", "--memory-dir", mem.root)
    assert out.returncode == 2 and "file:<path>" in out.stderr


def test_hits_list_their_references_and_whether_they_exist(mem, project):
    mem.save_fact("JWT signing lives in `src/auth/jwt.ts`")
    hit = mem.search("JWT signing")[0]
    assert hit.refs == [{"ref": "file:src/auth/jwt.ts", "exists": True}]
    (project / "src/auth/jwt.ts").unlink()
    assert mem.search("JWT signing")[0].refs == [{"ref": "file:src/auth/jwt.ts", "exists": False}]


def test_search_by_file_follows_a_git_rename(cli, mem, project):
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-qm", "one")
    about = mem.save_fact("JWT 用 RS256 签名，密钥 90 天轮换", refs=["file:src/auth/jwt.ts"])
    mem.save_fact("unrelated: the README has badges", refs=["file:README.md"])
    (project / "src/security").mkdir()
    git(project, "mv", "src/auth/jwt.ts", "src/security/jwt.ts")
    git(project, "commit", "-qm", "move")
    hits = mem.search("", ref="src/security/jwt.ts")
    assert [h.id for h in hits] == [about["id"]]
    out = cli("search_memory.py", "--ref", "src/security/jwt.ts", "--json",
              "--memory-dir", mem.root)
    assert [r["id"] for r in json.loads(out.stdout)["results"]] == [about["id"]]
    assert about["id"] not in [h.id for h in mem.search("RS256", ref="README.md")]  # filtered out


def test_check_refs_finds_moves_missing_artifacts_and_orphans(mem, project):
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-qm", "one")
    (project / "reports").mkdir()
    (project / "reports/789xyz.pdf").write_text("%PDF")
    (project / "charts").mkdir()
    (project / "charts/unused.png").write_bytes(b"png")
    (project / "docs").mkdir()
    (project / "docs/setup.md").write_text("x")
    mem.save_fact("the weekly report is report:789xyz")
    mem.save_fact("trend chart is chart:def456")
    mem.save_fact("setup notes", refs=["file:setup.md"])  # only one setup.md in the project
    mem.save_fact("signing code", refs=["file:src/auth/jwt.ts"])
    (project / "src/security").mkdir()
    git(project, "mv", "src/auth/jwt.ts", "src/security/jwt.ts")
    git(project, "commit", "-qm", "move")
    report = mem.check_refs()
    broken = {b["ref"]: b["suggestion"] for b in report["broken"]}
    assert broken == {"chart:def456": None, "file:setup.md": "docs/setup.md",
                      "file:src/auth/jwt.ts": "src/security/jwt.ts"}
    assert report["orphans"] == ["charts/unused.png"]
    import sys
    from conftest import ROOT
    out = subprocess.run([sys.executable, "-m", "memory_core", "check-refs", "--memory-dir",
                          str(mem.root)], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.returncode == 1 and "now at src/security/jwt.ts?" in out.stdout


def test_the_session_context_marks_facts_about_missing_files_as_possibly_stale(mem, project):
    mem.save_fact("JWT signing lives in `src/auth/jwt.ts`")
    assert "possibly stale" not in mem.session_context().text
    (project / "src/auth/jwt.ts").unlink()
    line = [x for x in mem.session_context().text.splitlines() if "JWT signing" in x][0]
    assert "[possibly stale: src/auth/jwt.ts no longer exists]" in line
