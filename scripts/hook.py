#!/usr/bin/env python3
"""The lifecycle hooks' one entry point: `hook.py <event>` (sessionStart, beforeSubmitPrompt,
preCompact, stop, sessionEnd) reads the event's JSON on stdin, prints the answer and always
exits 0. `--detach`: sessionEnd hands its cleanup to a worker and returns at once. Needs
only the standard library. See docs/hosts.md."""
import os
import sys

_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.isdir(os.path.join(_root, "memory_core")):
    sys.path.insert(0, _root)  # a checkout or a plugin folder runs its own code

try:
    from memory_core.hooks import run
except Exception:  # noqa: BLE001 - even a broken install must not break the session
    print("{}")
    sys.exit(0)

sys.exit(run(sys.argv[1] if len(sys.argv) > 1 else "", detach="--detach" in sys.argv[2:]))
