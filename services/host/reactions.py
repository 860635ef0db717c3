"""Quick reactions: a fixed set a seat may send to everyone at its table ("bella!", "sbrigati!"), never free text,
so there is nothing to moderate. A reaction is rate-limited per seat (on the replica that takes it), told to every
replica by a store notification (``!react.<seat>.<kind>``) and to every watcher there once, and kept nowhere: it
has no seq, is not in the table's log and is not in its fairness record.
"""

from __future__ import annotations

from collections import OrderedDict

from mazziere.services.errors import ServiceError, ServiceReason
from mazziere.services.host.store import SIGNAL

KINDS = ("applause", "bella", "che_fortuna", "sbrigati", "laugh", "wow")
"""The reactions there are; each front end shows them in its own words and pictures."""
BURST = 3.0
"""Reactions a seat may send at once."""
WAIT_SECONDS = 2.0
"""Then one every this many seconds."""
TOO_MANY = "this seat is sending reactions faster than the table shows them"
MOST_SEATS = 10_000
"""Seats whose allowance is kept (the least recently heard forgotten first)."""
PREFIX = SIGNAL + "react."


def check_kind(kind: str) -> None:
    """One of :data:`KINDS`, else INVALID_ARGUMENT naming them."""
    if kind not in KINDS:
        raise ServiceError.of(
            ServiceReason.INVALID_REQUEST, f"a reaction is one of {', '.join(KINDS)}; not {kind[:40]!r}"
        )


def signal(seat: int, kind: str) -> str:
    """The notification that carries a reaction to every replica."""
    return f"{PREFIX}{seat}.{kind}"


def read(revoked: str) -> tuple[int, str] | None:
    """The seat and kind of a reaction's notification; None for any other signal (or one this version does not
    know)."""
    if not revoked.startswith(PREFIX):
        return None
    seat, _, kind = revoked.removeprefix(PREFIX).partition(".")
    return (int(seat), kind) if seat.isdigit() and kind in KINDS else None


class Reactions:
    """Each seat's allowance of reactions: :data:`BURST` at once, refilled one per :data:`WAIT_SECONDS`."""

    def __init__(self) -> None:
        self._allowance: OrderedDict[tuple[str, int], tuple[float, float]] = OrderedDict()

    def admit(self, table_id: str, seat: int, now: float) -> bool:
        """Whether the seat may send one more now (and it is counted)."""
        key = (table_id, seat)
        tokens, stamp = self._allowance.pop(key, (BURST, now))
        tokens = min(BURST, tokens + (now - stamp) / WAIT_SECONDS)
        admitted = tokens >= 1.0
        self._allowance[key] = (tokens - 1.0 if admitted else tokens, now)
        if len(self._allowance) > MOST_SEATS:
            self._allowance.popitem(last=False)
        return admitted
