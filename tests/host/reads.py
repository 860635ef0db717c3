"""Counting the host store's reads of table records, to show a call was answered without one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def counted_reads(store: Any) -> Iterator[list[str]]:
    """The table ids ``store.get`` is asked for while the block runs, in order."""
    reads: list[str] = []
    get = store.get

    async def counted(table_id: str, at_least: int = 0) -> Any:
        reads.append(table_id)
        return await get(table_id, at_least)

    store.get = counted
    try:
        yield reads
    finally:
        store.get = get
