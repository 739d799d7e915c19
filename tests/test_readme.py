"""The README's promises, checked: the hook walkthrough runs as written."""
import os
import re
import subprocess

from conftest import ROOT


def test_the_readme_walkthrough_works_as_written(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- walkthrough.*?-->\n```bash\n(.*?)```", readme, re.S).group(1)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURSOR_MEMORY")}
    env["HOME"] = str(tmp_path)
    out = subprocess.run(["bash", "-e", "-c", block], cwd=ROOT, capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "checkpointed 2 turns" in out.stdout
    assert "[Session Save]" in out.stdout
    last_context = [line for line in lines if "additional_context" in line][-1]
    assert "TTL 为 21600 秒" in last_context and "会话缓存方案" in last_context
    assert "会话缓存使用 Redis" in out.stdout.split("additional_context")[-1]
