"""The latest records of the tables a one-process store read or wrote last, so a move does not read its table from
the disk again: the store that writes every change (SQLite: one host process, behind its lock) keeps each record
as its own writes leave it.

A record read from the disk is kept only if no write of its table began while it was being read (a write's record
replaces it, or the next read does). A write forgets the table's record when it begins and again once it is done
(a read that ran while the write waited for its commit saw the row as it was); a move that lands then puts back
the record it made (the old one with its new token, ``seq`` and timer), any other write leaves the next read to
fetch it. At most :data:`TABLES` tables are kept, the least recently used forgotten first.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

from mazziere.services.host.store.base import TableRecord

TABLES = 4096
"""Tables whose records are kept (a record is a token, the seats' keys and settings: one to two KiB)."""


class Records:
    """Each kept table's record (``None``: not known) and how many writes of it began."""

    def __init__(self, *, tables: int = TABLES) -> None:
        self._most = tables
        self._kept: OrderedDict[str, tuple[TableRecord | None, int]] = OrderedDict()
        self._forgotten = 0
        """Tables forgotten to make room (or all at once): a read begun before one of them is not kept."""

    def get(self, table_id: str) -> TableRecord | None:
        kept = self._kept.get(table_id)
        if kept is None or kept[0] is None:
            return None
        self._kept.move_to_end(table_id)
        return kept[0]

    def writes(self, table_id: str) -> tuple[int, int]:
        """Writes of ``table_id`` begun so far (while it is kept), and tables forgotten: taken before a read, checked
        by :meth:`keep`."""
        kept = self._kept.get(table_id)
        return (0 if kept is None else kept[1]), self._forgotten

    def keep(self, record: TableRecord, writes: tuple[int, int]) -> None:
        """Keep a record read from the disk, if no write of its table began (and no table was forgotten) since
        :meth:`writes` said ``writes``."""
        if self.writes(record.table_id) == writes:
            self._put(record.table_id, record, writes[0])

    def begin(self, table_id: str) -> tuple[TableRecord | None, int]:
        """A write of ``table_id`` begins: its record (if kept) is forgotten and returned, with the writes so far."""
        record, writes = self._kept.pop(table_id, (None, 0))
        writes += 1
        self._put(table_id, None, writes)
        return record, writes

    def advanced(self, before: TableRecord, writes: int, token: bytes, seq: int, due_ms: int, now_ms: int) -> None:
        """A move landed on ``before`` (its write the ``writes``-th): keep the record it made, if no other write of
        the table began since."""
        if self.writes(before.table_id)[0] == writes:
            record = replace(before, token=token, seq=seq, due_ms=due_ms, updated_ms=now_ms)
            self._put(before.table_id, record, writes)

    def clear(self) -> None:
        self._kept.clear()
        self._forgotten += 1

    def _put(self, table_id: str, record: TableRecord | None, writes: int) -> None:
        self._kept[table_id] = (record, writes)
        self._kept.move_to_end(table_id)
        while len(self._kept) > self._most:
            self._kept.popitem(last=False)
            self._forgotten += 1
