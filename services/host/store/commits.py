"""Group commit for the SQLite store: the writes that wait while a commit syncs are applied together, in one
transaction, and committed with one sync.

Each write runs inside a savepoint of its group's transaction, so one that fails (or whose conditional update
finds the table moved on) leaves the others as they are. No write's caller is answered before its group's
``COMMIT`` has returned: a move is acknowledged only once it is on disk as the store's ``synchronous`` setting
promises. If the commit fails, every write of the group fails with it (nothing of it was stored).

The groups form by themselves, as a database's log writer's do: the first write of an idle store commits alone,
and every write that arrives while a group commits joins the next one, up to :data:`MAX_GROUP`.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

T = TypeVar("T")
Write = Callable[[sqlite3.Connection], Any]
MAX_GROUP = 256
"""Writes in one transaction at most."""


def apply_group(writes: list[Write], db: sqlite3.Connection) -> list[tuple[bool, Any]]:
    """Run ``writes`` in one transaction, each in a savepoint, and commit once: each one's (ok, result or
    exception). An error of the transaction itself (``BEGIN``, ``COMMIT``) is raised for the whole group."""
    if len(writes) == 1:
        return [_apply_alone(writes[0], db)]
    outcomes: list[tuple[bool, Any]] = []
    db.execute("BEGIN IMMEDIATE")
    try:
        for write in writes:
            db.execute("SAVEPOINT write")
            try:
                outcomes.append((True, write(db)))
            except Exception as error:  # this write only: the group goes on
                db.execute("ROLLBACK TO write")
                outcomes.append((False, error))
            db.execute("RELEASE write")
        db.execute("COMMIT")
    finally:
        if db.in_transaction:
            db.execute("ROLLBACK")
    return outcomes


def _apply_alone(write: Write, db: sqlite3.Connection) -> tuple[bool, Any]:
    """A group of one write: its transaction is its savepoint (a write that fails is rolled back, nothing else
    with it), two statements fewer for the writing thread."""
    db.execute("BEGIN IMMEDIATE")
    try:
        try:
            result = write(db)
        except Exception as error:  # this write only: nothing of it is stored
            return False, error
        db.execute("COMMIT")
        return True, result
    finally:
        if db.in_transaction:
            db.execute("ROLLBACK")


class CommitGroups:
    """Writes gathered on the event loop and handed, a group at a time, to ``run_group`` (which runs
    :func:`apply_group` on the store's writing thread and settles the future it returns there). No task or
    coroutine is made per group: each group, once committed, settles its writes and hands on the next."""

    def __init__(self, run_group: Callable[[list[Write]], asyncio.Future[list[tuple[bool, Any]]]]) -> None:
        self._run_group = run_group
        self._waiting: list[tuple[Write, asyncio.Future[Any]]] = []
        self._committing = False
        self._quiet: asyncio.Future[None] | None = None
        """Set once no group commits: what :meth:`drain` waits for."""
        self.groups = 0
        """Groups committed (or attempted): with :attr:`writes`, how many writes shared a commit."""
        self.writes = 0

    async def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """The result of ``work`` once its group is committed (made even if its caller leaves meanwhile)."""
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiting.append((work, done))
        if not self._committing:
            self._next()
        return await done

    def _next(self) -> None:
        """Hand the writes waiting (up to :data:`MAX_GROUP`) on as the next group, if any."""
        if not self._waiting:
            self._committing = False
            if self._quiet is not None:
                self._quiet.set_result(None)
                self._quiet = None
            return
        group, self._waiting = self._waiting[:MAX_GROUP], self._waiting[MAX_GROUP:]
        self._committing = True
        self.groups += 1
        self.writes += len(group)
        try:
            running = self._run_group([work for work, _ in group])
        except Exception as error:  # the store cannot take it (closed): nothing of the group is stored
            _failed(group, error)
            self._next()
            return
        running.add_done_callback(partial(self._committed, group))

    def _committed(self, group: list[tuple[Write, asyncio.Future[Any]]], running: asyncio.Future[Any]) -> None:
        try:
            outcomes = running.result()
        except BaseException as error:  # the transaction failed: nothing of the group is stored
            _failed(group, error)
        else:
            for (_, done), (ok, value) in zip(group, outcomes, strict=True):
                if done.done():  # its caller left
                    continue
                if ok:
                    done.set_result(value)
                else:
                    done.set_exception(value)
        self._next()

    async def drain(self) -> None:
        """Wait until every write made so far is committed (or failed)."""
        if not self._committing:
            return
        if self._quiet is None:
            self._quiet = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._quiet)


def _failed(group: list[tuple[Write, asyncio.Future[Any]]], error: BaseException) -> None:
    for _, done in group:
        if done.done():
            continue
        if isinstance(error, Exception):
            done.set_exception(error)
        else:
            done.cancel()
