"""The event loop the servers run on: uvloop where it is installed (the package depends on it everywhere but
Windows, which it does not support), else asyncio's own."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

try:
    import uvloop

    run: Callable[[Coroutine[Any, Any, None]], None] = uvloop.run
    """Runs a server's main coroutine to its end on a new event loop."""
except ImportError:  # Windows: no uvloop
    run = asyncio.run
