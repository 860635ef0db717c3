"""The reference beside the host in ``bench.host_load``: a minimal Colyseus room server (``bench/colyseus/server.mjs``,
a room per table and one ``broadcast`` of ``{seq, turn}`` per move; no rules, no storage) under the same load from
its Node generator (``bench/colyseus/load.mjs``, ``@colyseus/sdk``), measured the same way: push from the move sent
to the room's last client having it, moves per second, the server tree's CPU and memory from ``/proc``.

The packages come from ``bench/colyseus/package-lock.json`` (``make bench`` runs ``npm ci`` there); without them, or
without Node, :func:`missing` says why and the host runs alone.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
from collections import Counter
from pathlib import Path
from typing import IO, Any

from bench.server_tree import Placement, ServerTree, Window

HERE = Path(__file__).resolve().parent / "colyseus"
PACKAGES = ("@colyseus/core", "@colyseus/ws-transport", "@colyseus/sdk")
START_SECONDS = 30.0
"""Seconds the server may take to listen."""
LINE_LIMIT = 64 * 1024 * 1024
"""The longest line the generator prints (its result carries every push time)."""


def missing() -> str:
    """Why the Colyseus side cannot run here, or ``""`` if it can."""
    if not shutil.which("node"):
        return "Node.js is not installed"
    absent = [name for name in PACKAGES if not (HERE / "node_modules" / name / "package.json").exists()]
    if absent:
        return f"{', '.join(absent)} not installed (make bench runs npm ci in bench/colyseus)"
    return ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.terminate()
    try:
        await asyncio.wait_for(process.wait(), 10)
    except TimeoutError:
        process.kill()
        await process.wait()


async def measure(
    rooms: int, clients: int, timing: tuple[float, float, float], placement: Placement, every: float, log: IO[bytes]
) -> tuple[dict[str, Any], Window]:
    """One run: the server (on the placement's first core, if pinned), ``rooms`` x ``clients`` from the generator
    (on this process's core), a move every ``timing[0]`` s per room, ``timing[1]`` s of warm-up and ``timing[2]``
    measured. The generator's result (its ``pushes_ms``, ``moves``...) and the server tree's window."""
    interval, warmup, seconds = timing
    port = _free_port()
    server = await asyncio.create_subprocess_exec(
        *placement.one_core_prefix(),
        "node",
        str(HERE / "server.mjs"),
        str(port),
        cwd=HERE,
        stdout=asyncio.subprocess.PIPE,
        stderr=log,
    )
    generator: asyncio.subprocess.Process | None = None
    try:
        assert server.stdout is not None
        line = await asyncio.wait_for(server.stdout.readline(), START_SECONDS)
        if not line.startswith(b'{"event":"listening"'):
            raise OSError(f"the Colyseus server did not start: {line[:200]!r}")
        window = Window(ServerTree(server.pid), every)
        await window.idle()
        arguments = (port, rooms, clients, interval, warmup, seconds)
        generator = await asyncio.create_subprocess_exec(
            "node", str(HERE / "load.mjs"), *map(str, arguments), cwd=HERE, stdout=asyncio.subprocess.PIPE,
            stderr=log, limit=LINE_LIMIT,
        )  # fmt: skip
        assert generator.stdout is not None
        result: dict[str, Any] = {}
        async for raw in generator.stdout:
            event = json.loads(raw)
            if event["event"] == "connected":
                result["connect_seconds"] = event["seconds"]
            elif event["event"] == "window":
                window.begin()
            elif event["event"] == "end":
                window.end()
            elif event["event"] == "result":
                result |= event
        if "pushes_ms" not in result:
            raise OSError("the Colyseus generator ended without its result")
        result["errors"] = Counter(result.get("errors", {}))
        return result, window
    finally:
        if generator is not None:
            await _stop(generator)
        await _stop(server)
