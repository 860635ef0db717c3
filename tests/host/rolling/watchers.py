"""Watchers of hosted tables through the Python client's ``Client.watch``, each on one replica's address and from
the table's opening (``after_seq`` -1): every update's seq as delivered, and when."""

from __future__ import annotations

import threading
import time

from mazziere_client import Client, MazziereError

from tests.host.rolling.fleet import Process
from tests.host.rolling.players import HostedTable


class Watcher(threading.Thread):
    """One spectator's watch of ``table`` on ``process``, until the table's closing update."""

    def __init__(self, table: HostedTable, process: Process) -> None:
        super().__init__(name=f"watch-{table.name}-{process.name}", daemon=True)
        self.table = table
        self.process = process
        self.label = f"Client.watch on {process.name} ({table.name})"
        self.seen: list[tuple[int, float]] = []
        """Each update delivered: its seq and when (``time.time``)."""
        self.retries: list[str] = []
        self.error = ""
        self.ended = threading.Event()
        self._client = Client(process.target)
        capability = table.opened.spectators.capability
        self._watch = self._client.watch(table.table_id, capability, after_seq=-1, on_retry=self._retried)

    @property
    def last_seq(self) -> int:
        return self.seen[-1][0] if self.seen else -1

    def run(self) -> None:
        try:
            for answer in self._watch:
                if answer.HasField("update"):
                    self.seen.append((answer.update.seq, time.time()))
        except MazziereError as exc:
            self.error = f"{exc.code.name} {exc.reason}: {exc}"
        finally:
            self.ended.set()
            self._client.close()

    def stop(self) -> None:
        self._watch.cancel()
        self.ended.wait(10)

    def _retried(self, error: MazziereError | None, delay: float) -> None:
        self.retries.append(f"{error.code.name} {error.reason}" if error else "ended")
