"""Heavy pure work in worker processes, so that no flood of it holds the interpreter that serves moves, pushes and
health checks.

:meth:`WorkerProcesses.run` runs ``work(*args, stop=...)``, a module's function of plain values (a state's bytes, a
seat, a count) that answers plain values, in a pool of processes; the server's thread that asked waits for it
without holding the interpreter. The processes come from a fork server started on first use (a fresh interpreter
that has imported the engine and nothing of gRPC), never from a fork of this process, whose gRPC threads a fork
would copy in an unusable state.

The work's ``stop`` turns true at the call's stop time (the machine's monotonic clock, which every process reads
alike) or once the waiting thread raises its slot's flag, in memory the processes share: it polls the call's own
``stop`` (its caller left, the server closes) every :data:`POLL_SECONDS`. A worker process that dies fails the
calls it had as UNAVAILABLE (the caller may retry), and the next call starts a new pool; the workers end with the
server's process, even one killed outright.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent import futures
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from functools import partial
from multiprocessing.connection import Connection
from typing import Any

import grpc

from mazziere.services.core.logs import get_logger
from mazziere.services.errors import ServiceError, ServiceReason

POLL_SECONDS = 0.01
"""How often a waiting thread asks whether its call should stop (the work's deadline needs no asking)."""
NICENESS = 10
"""How much lower the worker processes' CPU priority is than the server's: where cores are short, the process that
serves moves, pushes and health checks is scheduled first."""
PRELOAD = ["mazziere.engine", "mazziere.engine.bots"]
"""Imported once by the fork server, so a new worker process starts in milliseconds."""
JOIN_SECONDS = 2.0
"""How long closing waits for the pool's manager thread to end (the workers were told to stop): at the
interpreter's exit, CPython 3.11 wakes a pool's manager thread that may be closing that very wake-up pipe, and prints
an ``OSError: Bad file descriptor`` traceback; a thread already ended leaves nothing to race."""

Work = Callable[..., Any]


class WorkerProcesses:
    """A pool of ``processes`` worker processes, for at most ``slots`` works at a time (one per thread that may
    ask: the threads of the costly classes); started by :meth:`start` or on first use. ``initializer`` runs in each
    new process."""

    def __init__(self, processes: int, slots: int, *, initializer: Callable[[], None] | None = None) -> None:
        self.processes = processes
        self.slots = slots
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(PRELOAD)
        self._flags: ctypes.Array[ctypes.c_bool] | None = None
        """One per slot, in shared memory: raised, the work in that slot stops at its next poll."""
        self._free = list(range(slots))
        self._free_lock = threading.Lock()
        self._lock = threading.Lock()
        """Held while the pool is made or handed a work (which may start a process)."""
        self._pool: futures.ProcessPoolExecutor | None = None
        self._alive: tuple[Connection, Connection] | None = None
        """A pipe whose writing end only this process holds, open as long as it lives: a worker process reads its
        other end, and ends at its end of file (the server killed outright, it never told its workers to stop)."""
        self._initializer = initializer
        self._closed = False
        self.unusable = ""
        """Why no process could start here (no temporary folder, no shared memory): the work runs on the asking
        threads, as with no worker processes."""

    def run(self, work: Work, args: Sequence[Any], stop_at: float | None, stop: Callable[[], bool]) -> Any:
        """``work(*args, stop=...)`` in a worker process: its answer, or what it raised; UNAVAILABLE if the process
        died, SHUTTING_DOWN once closed. ``stop_at``: the monotonic time the work stops at; ``stop``: polled here."""
        slot = self._take()
        try:
            submitted = self._submit(slot, stop_at, work, tuple(args))
            if submitted is None:
                return work(*args, stop=stop)
            pool, flags, future = submitted
            try:
                return _result(future, flags, slot, stop)
            except BrokenProcessPool:
                self._renew(pool)
                raise _lost() from None
        except BrokenProcessPool:
            raise _lost() from None
        except futures.CancelledError:
            raise _shutting_down() from None
        finally:
            with self._free_lock:
                self._free.append(slot)

    def start(self) -> None:
        """Start the processes now, from a thread of their own (the fork server imports the engine once), so that
        the first work waits for none."""

        def warm() -> None:  # in a slot of its own, past the callers' ones
            with suppress(ServiceError):
                for _ in range(self.processes):
                    self._submit(self.slots, None, _ready, ())

        threading.Thread(target=warm, name="mazziere-processes-start", daemon=True).start()

    def pids(self) -> list[int]:
        """The worker processes' ids (none before the first work)."""
        pool = self._pool
        processes: dict[int, Any] = {} if pool is None else (getattr(pool, "_processes", None) or {})
        return list(processes)

    def close(self) -> None:
        """Stop every work at its next poll, and the processes once they are done; no work is taken after."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if self._flags is not None:
            for slot in range(self.slots + 1):
                self._flags[slot] = True
        if pool is not None:
            manager = getattr(pool, "_executor_manager_thread", None)
            pool.shutdown(wait=False, cancel_futures=True)
            if manager is not None:  # see JOIN_SECONDS
                manager.join(JOIN_SECONDS)

    def _submit(
        self, slot: int, stop_at: float | None, work: Work, args: tuple[Any, ...]
    ) -> tuple[futures.ProcessPoolExecutor, ctypes.Array[ctypes.c_bool], futures.Future[Any]] | None:
        """The work handed to the pool (started if need be; a new one if this one lost a process meanwhile), or
        None if no process can start here."""
        with self._lock:
            if self._closed:
                raise _shutting_down()
            if self.unusable:
                return None
            try:
                if self._flags is None:
                    self._flags = self._context.RawArray(ctypes.c_bool, self.slots + 1)
                flags = self._flags
                flags[slot] = False
                for _ in range(2):
                    pool = self._pool or self._new_pool(flags)
                    try:
                        return pool, flags, pool.submit(_in_worker, slot, stop_at, work, args)
                    except BrokenProcessPool:
                        self._pool = None
                        pool.shutdown(wait=False, cancel_futures=True)
                raise BrokenProcessPool("no worker process would start")
            except OSError as exc:
                self.unusable = f"{type(exc).__name__}: {exc}"
                failed, self._pool = self._pool, None
        get_logger().warning("worker_processes_unusable", error=self.unusable, fallback="the calls' threads")
        if failed is not None:
            with suppress(Exception):
                failed.shutdown(wait=False, cancel_futures=True)
        return None

    def _new_pool(self, flags: ctypes.Array[ctypes.c_bool]) -> futures.ProcessPoolExecutor:
        if self._alive is None:
            self._alive = self._context.Pipe(duplex=False)
        started = partial(_started, flags, self._initializer, self._alive[0])
        self._pool = futures.ProcessPoolExecutor(self.processes, self._context, initializer=started)
        return self._pool

    def _take(self) -> int:
        with self._free_lock:
            if not self._free:
                raise RuntimeError("more works at a time than the worker processes have slots for")
            return self._free.pop()

    def _renew(self, broken: futures.ProcessPoolExecutor) -> None:
        """Drop a pool that lost a process (every call it had has failed); the next call starts a new one."""
        with self._lock:
            if self._pool is broken:
                self._pool = None
        broken.shutdown(wait=False, cancel_futures=True)


def _result(
    future: futures.Future[Any], flags: ctypes.Array[ctypes.c_bool], slot: int, stop: Callable[[], bool]
) -> Any:
    """The work's answer; the slot's flag raised once ``stop`` turns true (the work stops at its next poll)."""
    while True:
        try:
            return future.result(timeout=POLL_SECONDS)
        except futures.TimeoutError:
            if stop():
                flags[slot] = True


def _lost() -> ServiceError:
    return ServiceError(grpc.StatusCode.UNAVAILABLE, "", "a worker process ended during the call; retry")


def _shutting_down() -> ServiceError:
    return ServiceError.of(ServiceReason.SHUTTING_DOWN, "the server is shutting down; retry")


def _ready(*, stop: Callable[[], bool]) -> None:
    return None


# -- in the worker processes ------------------------------------------------------------------------------

_flags: ctypes.Array[ctypes.c_bool] | None = None
"""The slots' flags, in this worker process."""


def _started(flags: ctypes.Array[ctypes.c_bool], initializer: Callable[[], None] | None, alive: Connection) -> None:
    global _flags
    _flags = flags
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is the server's to handle: it closes the pool
    os.nice(NICENESS)
    threading.Thread(target=_watch, args=(alive,), name="mazziere-server-watch", daemon=True).start()
    if initializer is not None:
        initializer()


def _watch(alive: Connection) -> None:
    """End this process once the server's is gone: a server killed outright never tells its workers to stop (the
    fork server then ends with its last worker)."""
    with suppress(EOFError, OSError):
        while True:
            alive.recv_bytes()
    os._exit(0)


def _in_worker(slot: int, stop_at: float | None, work: Work, args: tuple[Any, ...]) -> Any:
    flags = _flags
    assert flags is not None, "a work runs in a worker process the pool started"

    def stop() -> bool:
        return bool(flags[slot]) or (stop_at is not None and time.monotonic() >= stop_at)

    try:
        return work(*args, stop=stop)
    except Exception as exc:
        raise _travelling(exc) from None


def _travelling(exc: Exception) -> Exception:
    """``exc`` if it comes back whole from the worker process; else a RuntimeError naming it (an exception the
    server could not unpickle would break the pool)."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"{type(exc).__qualname__}: {exc}")
    return exc
