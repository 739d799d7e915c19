#!/usr/bin/env python3
"""Save one durable fact to memory. Agent-facing; `--help` for options. Needs only the standard library."""
import os
import sys

_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.isdir(os.path.join(_root, "memory_core")):
    sys.path.insert(0, _root)  # a checkout or a plugin folder runs its own code

from memory_core.cli import save_fact_main  # noqa: E402

sys.exit(save_fact_main())
