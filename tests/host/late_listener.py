"""``mazziere serve`` whose store begins to listen for other replicas' steps only after a few seconds (a slow
PostgreSQL at start, say), for tests/host/test_replicas.py: a replica must take no call before it listens. Run as
``python tests/host/late_listener.py serve``."""

from __future__ import annotations

import asyncio
import sys

from mazziere.services.cli import main
from mazziere.services.host.store.base import Listener, Missed
from mazziere.services.host.store.postgres import PostgresStore

LATE_S = 3.0


async def listen_late(self: PostgresStore, listener: Listener, missed: Missed | None = None) -> None:
    await asyncio.sleep(LATE_S)
    await LISTEN(self, listener, missed)


LISTEN = PostgresStore.listen
PostgresStore.listen = listen_late  # type: ignore[method-assign]

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
