"""cursor-memory: long-term memory for AI coding agents.

    from memory_core import Memory
    mem = Memory("path/to/memory-data")
    mem.save_fact("项目使用 PostgreSQL", memory_type="W", entities=["postgresql"])
    hits = mem.search("数据库")

Files are the source of truth (daily/*.jsonl, facts.jsonl, sessions.jsonl, MEMORY.md);
index.sqlite is derived from them and can always be rebuilt. Specs: docs/formats.md;
how the modules fit: docs/architecture.md.

Modules, in layers; a module imports only from its own layer or the ones above it:

    foundation  errors · redact · config · log · files · locks
    storage     sanitize · records · jsonl · state · transcript · refs
                (stdlib only: saving a fact imports nothing else)
    index       text · bilingual · temporal · chunking · index · sync · scratch · corrections · embeddings · vectors
    memory      search · context · recall · consolidate
    facade      memory (Memory: each method delegates to the module above that owns it)
    hosts       answers · hooks · install · doctor · cli · mcp_server
"""
from .errors import CursorMemoryError, StorageError, UserError
from .memory import Memory

__all__ = ["Memory", "CursorMemoryError", "UserError", "StorageError"]
__version__ = "0.2.0"
