"""The SQLite store's writing thread: one thread, which owns the writing connection, fed through a queue.

A write's result comes back to the event loop as an asyncio future settled from the thread (:meth:`Writing.call`),
with no thread pool's future in between and no chain of callbacks from one future to the other: the one hand-off a
commit group needs. The store's opening and closing use it as any executor (:meth:`Writing.submit`).
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from concurrent import futures
from functools import partial
from typing import Any, TypeVar

T = TypeVar("T")
_Job = tuple[Callable[[], Any], "futures.Future[Any] | asyncio.Future[Any]", "asyncio.AbstractEventLoop | None"]


class Writing(futures.Executor):
    """One thread named ``name`` that runs what it is given, in the order given."""

    def __init__(self, name: str) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._shut = False
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def call(self, work: Callable[[], T]) -> asyncio.Future[T]:
        """``work()`` on the thread; its result (or exception) in the future, on the running loop."""
        self._check_open()
        loop = asyncio.get_running_loop()
        done: asyncio.Future[T] = loop.create_future()
        self._jobs.put((work, done, loop))
        return done

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> futures.Future[T]:
        self._check_open()
        done: futures.Future[T] = futures.Future()
        self._jobs.put((partial(fn, *args, **kwargs), done, None))
        return done

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Run what was given, then end the thread (``wait``: and wait for it)."""
        if not self._shut:
            self._shut = True
            self._jobs.put(None)
        if wait:
            self._thread.join()

    def _check_open(self) -> None:
        if self._shut:
            raise RuntimeError("cannot schedule new futures after shutdown")

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            work, done, loop = job
            if isinstance(done, futures.Future) or loop is None:
                _run_submitted(work, done)
                continue
            try:
                result, ok = work(), True
            except BaseException as error:  # handed to the loop, as an executor would
                result, ok = error, False
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits
                loop.call_soon_threadsafe(_settle, done, ok, result)


def _run_submitted(work: Callable[[], Any], done: futures.Future[Any] | asyncio.Future[Any]) -> None:
    if not isinstance(done, futures.Future) or not done.set_running_or_notify_cancel():
        return
    try:
        result = work()
    except BaseException as error:
        done.set_exception(error)
    else:
        done.set_result(result)


def _settle(done: asyncio.Future[Any], ok: bool, result: Any) -> None:
    if done.done():
        return
    if ok:
        done.set_result(result)
    else:
        done.set_exception(result)
