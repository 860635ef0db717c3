"""Serving on every core of one machine: a supervisor forks N server processes before any gRPC object or thread
exists (gRPC's documented way to serve from several processes), each serving the same ports: gRPC's bound by each
with ``SO_REUSEPORT``, so the kernel spreads connections among them; REST's one listening socket inherited, each
process accepting from it. Each child gets one end of a stream socket to every sibling (for the host's news on a
shared SQLite store: :mod:`~mazziere.services.host.store.siblings`).

The supervisor serves nothing. SIGTERM or SIGINT it hands to every child, which drains as a single server does,
and it exits when they have; a child that ends on its own (a crash, a kill) makes it stop the others and exit with
failure, so the service manager starts the whole again. A child dies with its supervisor (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import signal
import socket
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from mazziere.services.core.logs import get_logger

_PR_SET_PDEATHSIG = 1


def machine_cores() -> int:
    """The cores this process may run on (its CPU affinity, as ``taskset`` or a container's cpuset leaves it)."""
    return len(os.sched_getaffinity(0))


@dataclass(frozen=True)
class Child:
    """What a forked server process is told: its place among ``count`` and a stream socket to each sibling."""

    index: int
    count: int
    siblings: tuple[socket.socket, ...]


def run_forked(count: int, serve: Callable[[Child], None]) -> int:
    """Fork ``count`` children running ``serve`` and supervise them until they end: the supervisor's exit status
    (0 when every child stopped when told to and cleanly)."""
    pairs = {pair: socket.socketpair() for pair in itertools.combinations(range(count), 2)}
    stopping: list[bool] = [False]
    children: dict[int, int] = {}

    def stop(signum: int, frame: object) -> None:
        stopping[0] = True
        _signal_all(children, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    supervisor = os.getpid()
    for index in range(count):
        pid = os.fork()
        if pid == 0:
            _child(Child(index, count, _ends(pairs, index)), serve, supervisor)
        children[pid] = index
    if stopping[0]:  # told to stop while forking: the children forked after it are told too
        _signal_all(children, signal.SIGTERM)
    for ends in pairs.values():
        for end in ends:
            end.close()
    get_logger().info("serving_processes", processes=count, pids=sorted(children))
    return _supervise(children, stopping)


def _ends(pairs: dict[tuple[int, int], tuple[socket.socket, socket.socket]], index: int) -> tuple[socket.socket, ...]:
    """``index``'s end of each pair it belongs to; every other end closed in this process."""
    kept = []
    for (low, high), (a, b) in pairs.items():
        if low == index:
            kept.append(a)
            b.close()
        elif high == index:
            kept.append(b)
            a.close()
        else:
            a.close()
            b.close()
    return tuple(kept)


def _child(child: Child, serve: Callable[[Child], None], supervisor: int) -> None:
    """The forked process: serve, then exit (never returning into the supervisor's code)."""
    code = 1
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != supervisor:  # it died before the line above
            os._exit(1)
        serve(child)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except KeyboardInterrupt:
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _supervise(children: dict[int, int], stopping: list[bool]) -> int:
    failed = False
    while children:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        index = children.pop(pid, None)
        if index is None:
            continue
        code = os.waitstatus_to_exitcode(status)
        if not stopping[0]:
            get_logger().error("serving_process_ended", index=index, pid=pid, code=code, action="stopping the others")
            stopping[0] = True
            failed = True
            _signal_all(children, signal.SIGTERM)
        elif code != 0:
            failed = True
    return 1 if failed else 0


def _signal_all(children: dict[int, int], signum: int) -> None:
    for pid in list(children):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)
