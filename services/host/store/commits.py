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
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")
Write = Callable[[sqlite3.Connection], Any]
MAX_GROUP = 256
"""Writes in one transaction at most."""


def apply_group(writes: list[Write], db: sqlite3.Connection) -> list[tuple[bool, Any]]:
    """Run ``writes`` in one transaction, each in a savepoint, and commit once: each one's (ok, result or
    exception). An error of the transaction itself (``BEGIN``, ``COMMIT``) is raised for the whole group."""
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


class CommitGroups:
    """Writes gathered on the event loop and handed, a group at a time, to ``run_group`` (which runs
    :func:`apply_group` on the store's writing thread)."""

    def __init__(self, run_group: Callable[[list[Write]], Awaitable[list[tuple[bool, Any]]]]) -> None:
        self._run_group = run_group
        self._waiting: list[tuple[Write, asyncio.Future[Any]]] = []
        self._committer: asyncio.Task[None] | None = None
        self.groups = 0
        """Groups committed (or attempted): with :attr:`writes`, how many writes shared a commit."""
        self.writes = 0

    async def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """The result of ``work`` once its group is committed."""
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiting.append((work, done))
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_waiting())
        return await asyncio.shield(done)

    async def _commit_waiting(self) -> None:
        while self._waiting:
            group, self._waiting = self._waiting[:MAX_GROUP], self._waiting[MAX_GROUP:]
            self.groups += 1
            self.writes += len(group)
            try:
                outcomes = await self._run_group([work for work, _ in group])
            except BaseException as error:  # the transaction failed: nothing of the group is stored
                for _, done in group:
                    if not done.done():
                        done.set_exception(error if isinstance(error, Exception) else asyncio.CancelledError())
                if not isinstance(error, Exception):
                    raise
                continue
            for (_, done), (ok, value) in zip(group, outcomes, strict=True):
                if done.done():
                    continue
                if ok:
                    done.set_result(value)
                else:
                    done.set_exception(value)

    async def drain(self) -> None:
        """Wait until every write made so far is committed (or failed)."""
        while self._committer is not None and not self._committer.done():
            await asyncio.shield(self._committer)
