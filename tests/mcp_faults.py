"""`cursor-memory mcp` with faults a real session can meet, for tests/test_mcp.py:

- NOISY=1: loading the model also writes to fd 1 the ways native code does (os.write, print,
  C puts), as onnxruntime or a CUDA banner may;
- CRASH=<query>: a search for exactly that query raises an unexpected error inside the tool.

Usage: python tests/mcp_faults.py <cursor-memory mcp arguments...>
"""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_core import cli, mcp_server  # noqa: E402
from memory_core.memory import Memory  # noqa: E402

if os.environ.get("NOISY") == "1":
    loaded = Memory.embedder

    def noisy_embedder(self, *, quiet=False, threads=1):
        import ctypes
        os.write(1, b"garbage from os.write(1) while loading\n")
        print("garbage from print() while loading")
        libc = ctypes.CDLL(None)
        libc.puts(b"garbage from C puts() while loading")
        libc.fflush(None)
        return loaded(self, quiet=quiet, threads=threads)

    Memory.embedder = noisy_embedder

if os.environ.get("CRASH"):
    searched = mcp_server.Tools.search

    def crashing_search(self, query, *args, **kwargs):
        if query == os.environ["CRASH"]:
            raise ZeroDivisionError("injected")
        return searched(self, query, *args, **kwargs)

    mcp_server.Tools.search = crashing_search

sys.exit(cli.main(["mcp", *sys.argv[1:]]))
