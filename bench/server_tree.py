"""A server as its whole process tree, read from ``/proc``: CPU time and memory summed over the server's pid and
every descendant (worker processes, forked servers), where the server runs (its cores), and the measured window.

- CPU: each process's user + system time plus that of its children it has reaped (``/proc/<pid>/stat`` fields 14
  to 17), so a worker that ends inside the window still counts (in its parent's share).
- Memory: each process's proportional set size (``Pss`` of ``/proc/<pid>/smaps_rollup``: its private pages and its
  share of the pages it shares, so forked processes are not counted twice), ``VmRSS`` where that file is missing.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

PROC = Path("/proc")
TICKS = os.sysconf("SC_CLK_TCK")
SETTLED, SETTLE_MOST = 1.0, 15.0
"""The idle baseline waits until the tree's processes and memory have stayed the same this long, at most this
long."""


def descendants(root: int) -> list[int]:
    """``root`` and every process below it, by the parent pids of ``/proc/*/stat``."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # it ended meanwhile
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _cpu_seconds(pid: int) -> float:
    fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / TICKS  # utime, stime, cutime, cstime


def _memory_bytes(pid: int) -> int:
    for name, key in (("smaps_rollup", "Pss:"), ("status", "VmRSS:")):
        try:
            for line in (PROC / str(pid) / name).read_text().splitlines():
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
        except OSError:
            continue
    return 0


@dataclass(frozen=True)
class ServerTree:
    """The server whose pid is ``pid``, with whatever processes it has started."""

    pid: int

    def cpu_seconds(self) -> float:
        total = 0.0
        for pid in descendants(self.pid):
            try:
                total += _cpu_seconds(pid)
            except (OSError, IndexError):
                continue
        return total

    def memory_bytes(self) -> int:
        return sum(_memory_bytes(pid) for pid in descendants(self.pid))

    def processes(self) -> int:
        return len(descendants(self.pid))


@dataclass
class Window:
    """What the tree did over the measured window: its CPU share (one core = 1.0), its memory at the start of the
    run (idle), at the window's end, and sampled every ``every`` seconds in between (a soak)."""

    tree: ServerTree
    every: float = 0.0
    idle_bytes: int = 0
    end_bytes: int = 0
    cpu: float = float("nan")
    """The tree's CPU share over the window (one core = 1.0)."""
    cpu_seconds: float = float("nan")
    """The tree's CPU time over the window."""
    processes: int = 0
    samples: list[tuple[float, int]] = field(default_factory=list)
    """(seconds into the window, the tree's memory)."""
    _began: float = 0.0
    _cpu0: float = 0.0
    _memory: asyncio.Task[None] | None = None

    async def idle(self) -> None:
        """The baseline: the server started and answering, before any table or watcher, once its processes and
        their memory (within 2 %) have stayed the same for :data:`SETTLED` seconds (a server may start its worker
        processes after it answers, and a baseline without them would count them as the watchers' memory), at most
        :data:`SETTLE_MOST`."""
        began = since = time.perf_counter()
        seen = (self.tree.processes(), self.tree.memory_bytes())
        while time.perf_counter() - since < SETTLED and time.perf_counter() - began < SETTLE_MOST:
            await asyncio.sleep(0.1)
            now = (self.tree.processes(), self.tree.memory_bytes())
            if now[0] != seen[0] or abs(now[1] - seen[1]) > seen[1] / 50:
                seen, since = now, time.perf_counter()
        self.idle_bytes = seen[1]

    def begin(self) -> None:
        self._began, self._cpu0 = time.perf_counter(), self.tree.cpu_seconds()
        if self.every > 0:
            self._memory = asyncio.create_task(self._sample_memory())

    def end(self) -> None:
        wall = time.perf_counter() - self._began
        self.cpu_seconds = self.tree.cpu_seconds() - self._cpu0
        self.cpu = self.cpu_seconds / wall
        self.processes = self.tree.processes()
        self.end_bytes = self.tree.memory_bytes()
        if self._memory is not None:
            self._memory.cancel()
            self.samples.append((wall, self.end_bytes))

    async def _sample_memory(self) -> None:
        while True:
            self.samples.append((time.perf_counter() - self._began, self.tree.memory_bytes()))
            await asyncio.sleep(self.every)


@dataclass(frozen=True)
class Placement:
    """Where the server and the load generator run: the server's cores (empty: unpinned) and the generator's."""

    server: tuple[int, ...]
    generator: int | None

    @classmethod
    def plan(cls, processes: int, cpus: set[int] | None = None) -> Placement:
        """Server processes on cores 0 to ``processes - 1`` and the generator on the next, when ``taskset`` exists
        and this process may use that many; otherwise nothing pinned."""
        cpus = os.sched_getaffinity(0) if cpus is None else cpus
        if shutil.which("taskset") and set(range(processes + 1)) <= cpus:
            return cls(tuple(range(processes)), processes)
        return cls((), None)

    @property
    def pinned(self) -> bool:
        return bool(self.server)

    def server_prefix(self) -> list[str]:
        """The command before the server's: ``taskset -c 0`` (or ``0-1``...), or nothing."""
        if not self.server:
            return []
        first, last = self.server[0], self.server[-1]
        return ["taskset", "-c", str(first) if first == last else f"{first}-{last}"]

    def one_core_prefix(self) -> list[str]:
        """The command before a one-process server's: ``taskset -c`` the first of the server's cores, or nothing."""
        return ["taskset", "-c", str(self.server[0])] if self.server else []

    def describe(self) -> str:
        if not self.pinned:
            return "nothing pinned (no taskset, or fewer cores than the server's processes + 1 for the generator)"
        cores = "CPU 0" if len(self.server) == 1 else f"CPUs 0-{self.server[-1]}"
        return f"server pinned to {cores}, load generator to CPU {self.generator}"
