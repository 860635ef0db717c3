"""Neighbours for a server under load, as on a shared machine: a process spinning on each of the server's cores, and
a writer that writes and ``fsync``s a file on the filesystem of the server's data, both bounded in time (and the
writer's file in size), ended with the run.

    python -m bench.noise spin SECONDS
    python -m bench.noise fsync DIRECTORY SECONDS
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from bench.server_tree import Placement

WRITE_BYTES = 16 * 1024
"""Bytes written before each fsync, like a database's log record batch."""
FILE_BYTES = 32 * 1024 * 1024
"""The writer's file grows to this, then is written again from its start."""
NOISE_FILE = "noise.bin"


def spin(seconds: float) -> None:
    """Keep one core busy for ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def write(directory: Path, seconds: float) -> None:
    """Write and fsync ``WRITE_BYTES`` at a time into one file of ``directory`` for ``seconds``."""
    block = os.urandom(WRITE_BYTES)
    end = time.monotonic() + seconds
    fd = os.open(directory / NOISE_FILE, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        offset = 0
        while time.monotonic() < end:
            os.pwrite(fd, block, offset)
            os.fsync(fd)
            offset = (offset + WRITE_BYTES) % FILE_BYTES
    finally:
        os.close(fd)
        (directory / NOISE_FILE).unlink(missing_ok=True)


@contextlib.contextmanager
def neighbours(placement: Placement, directory: Path, seconds: float) -> Iterator[str]:
    """A spinner on each of the server's cores (one unpinned if it is not pinned) and the fsyncing writer in
    ``directory``, for at most ``seconds``; ended when the block ends. Yields what they are, for the report."""
    me = [sys.executable, "-m", "bench.noise"]
    cores = placement.server or (None,)
    commands: list[Sequence[str]] = [
        [*(["taskset", "-c", str(core)] if core is not None else []), *me, "spin", f"{seconds:g}"] for core in cores
    ]
    commands.append([*me, "fsync", str(directory), f"{seconds:g}"])
    root = Path(__file__).resolve().parent.parent
    started = [subprocess.Popen(command, cwd=root) for command in commands]
    where = f"on CPU{'s' if len(cores) > 1 else ''} {', '.join(map(str, cores))}" if placement.pinned else "unpinned"
    try:
        yield f"noise: {len(cores)} spinner{'s' if len(cores) > 1 else ''} {where}, a writer fsyncing every " + (
            f"{WRITE_BYTES // 1024} KiB in {directory}"
        )
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # the writer removes its file
    if len(args) == 2 and args[0] == "spin":
        spin(min(float(args[1]), 3600.0))
    elif len(args) == 3 and args[0] == "fsync":
        write(Path(args[1]), min(float(args[2]), 3600.0))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        raise SystemExit(main())
