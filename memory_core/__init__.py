"""cursor-memory: long-term memory for AI coding agents.

    from memory_core import Memory
    mem = Memory("path/to/memory-data")
    mem.save_fact("项目使用 PostgreSQL", memory_type="W", entities=["postgresql"])
    hits = mem.search("数据库")

Files are the source of truth (daily/*.jsonl, facts.jsonl, sessions.jsonl, MEMORY.md);
index.sqlite is derived from them and can always be rebuilt.
"""
from .config import MemoryError
from .memory import Memory

__all__ = ["Memory", "MemoryError"]
__version__ = "0.1.0"
