"""MEMORY.md split by headings into ~400-token chunks with 80 tokens of overlap."""
from memory_core.chunking import CHUNK_TOKENS, OVERLAP_TOKENS, split_markdown
from memory_core.text import count_tokens

DOC = """# 核心记忆

> 手动维护

## 用户偏好
- 语言：中文
- 2-space indent

## 常用命令
```bash
# not a heading
pnpm dev
```

## 用户偏好
- a second section with the same heading
"""


def test_sections_follow_headings_and_code_fences_are_not_headings():
    chunks = split_markdown(DOC)
    assert [c.id for c in chunks] == ["MEMORY.md#核心记忆", "MEMORY.md#用户偏好",
                                      "MEMORY.md#常用命令", "MEMORY.md#用户偏好#2"]
    assert chunks[0].path == ["核心记忆"]
    assert chunks[1].path == ["用户偏好"]  # the file's title is in no other section's path
    assert "# not a heading" in chunks[2].content
    assert chunks[1].line == 6


def test_a_title_over_every_section_stays_only_in_its_own_path():
    doc = "# Orbit 项目记忆\n简介\n## 技术栈\n- Redis\n### 缓存\n- TTL 1h\n## 命令\n- pnpm dev\n"
    assert [c.path for c in split_markdown(doc)] == [
        ["Orbit 项目记忆"], ["技术栈"], ["技术栈", "缓存"], ["命令"]]


def test_headings_that_are_not_one_title_keep_their_paths():
    two_tops = "# 后端\n## 缓存\n- TTL\n# 前端\n## 构建\n- vite\n"
    assert [c.path for c in split_markdown(two_tops)] == [["后端", "缓存"], ["前端", "构建"]]
    flat = "## 缓存\n- TTL\n## 构建\n- vite\n"
    assert [c.path for c in split_markdown(flat)] == [["缓存"], ["构建"]]
    alone = "# 项目记忆\n- 只有一节\n"
    assert [c.path for c in split_markdown(alone)] == [["项目记忆"]]
    before = "## 前言\n- x\n# 项目记忆\n## 缓存\n- TTL\n"
    assert [c.path for c in split_markdown(before)] == [["前言"], ["项目记忆", "缓存"]]


def test_long_sections_are_windowed_with_overlap():
    body = "\n".join(f"- 第{i}条：决定使用 Redis 作为会话缓存，TTL 为 {i} 秒" for i in range(200))
    chunks = split_markdown("## 决策\n" + body)
    assert len(chunks) > 3
    for c in chunks:
        assert count_tokens(c.content) <= CHUNK_TOKENS + 5
    for a, b in zip(chunks, chunks[1:]):
        a_lines, b_lines = a.content.splitlines(), b.content.splitlines()
        shared = [line for line in b_lines if line in a_lines]
        assert shared and shared == a_lines[-len(shared):]  # b starts with a's tail
        assert count_tokens("\n".join(shared)) <= OVERLAP_TOKENS + 5
    all_lines = {line for c in chunks for line in c.content.splitlines()}
    assert all_lines == set(body.splitlines())


def test_a_single_huge_line_is_cut_to_fit():
    chunks = split_markdown("## x\n" + "缓存" * 2000)
    assert len(chunks) > 1
    assert all(count_tokens(c.content) <= CHUNK_TOKENS + 5 for c in chunks)
