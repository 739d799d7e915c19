#!/usr/bin/env python3
"""preCompact hook: archive the transcript turns compaction will drop.

Reads the hook's JSON on stdin, prints one JSON object, always exits 0. Thin over memory_core."""
import os
import sys

_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.isdir(os.path.join(_root, "memory_core")):
    sys.path.insert(0, _root)  # a checkout runs its own code

try:
    from memory_core.hooks import run
except Exception:  # noqa: BLE001 - even a broken install must not break the session
    print("{}")
    sys.exit(0)

sys.exit(run("preCompact"))
