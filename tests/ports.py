"""Free ports for the servers the tests start as processes (a server the test binds itself takes port 0).

A port found free and closed again can be taken before its server binds it: by an outgoing connection (the kernel
picks their ports from its ephemeral range) or by a server of another test process (the suite runs on several,
pytest-xdist's workers). So each test process takes its ports from a band of its own below the ephemeral range, in
turn, starting at a place its process id picks (two suites run side by side rarely meet).
"""

from __future__ import annotations

import itertools
import os
import socket

FIRST, BAND, BANDS = 10_000, 2_000, 10
"""Ports 10000 to 29999: ten bands of 2,000, one per worker (``gw0`` ... ``gw9``, then again), under 32768."""


def _band() -> list[int]:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    start = FIRST + (int(worker) if worker.isdigit() else 0) % BANDS * BAND
    offset = os.getpid() % BAND
    return [start + (offset + step) % BAND for step in range(BAND)]


_turns = itertools.cycle(_band())


def free_port() -> int:
    """A port of this process's band that nothing listens on now, the next after the last one handed out."""
    for _ in range(BAND):
        port = next(_turns)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError(f"no free port in this test process's band of {BAND}")
