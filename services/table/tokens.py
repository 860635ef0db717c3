"""A table's state as it travels: sealed into a token (or plain, in trusted mode), opened again (through the memo
of tokens this process sealed lately), and each seat's key checked."""

from __future__ import annotations

from mazziere import engine
from mazziere.engine.table import TableState
from mazziere.services.core.call import Call
from mazziere.services.errors import ServiceError, ServiceReason
from mazziere.services.table.memo import RecentStates
from mazziere.services.table.requests import run_engine
from mazziere.services.table.sealing import Keyring, OldTokenError, TokenError


class Tokens:
    """Seals and opens the states of one server's keyring; checks seat keys."""

    def __init__(self, keyring: Keyring, *, trusted_mode: bool = False, recent_size: int = 4096) -> None:
        self.keyring = keyring
        self.trusted_mode = trusted_mode
        self.recent = RecentStates(recent_size)

    def seal(self, state: TableState, call: Call) -> bytes:
        """The state's token; remembered (decoded) once the call's answer is made and checked."""
        raw = engine.state_to_bytes(state)
        if self.trusted_mode:
            return raw
        token = self.keyring.seal(raw, state.table_id, state.seq)
        call.on_answered.append(lambda: self.recent.put(token, state))
        return token

    def open(self, raw: bytes, table_id: str) -> TableState:
        """The state a token (or, in trusted mode, plain bytes) holds, which must be ``table_id``'s."""
        if not table_id:
            raise ServiceError.of(ServiceReason.INVALID_REQUEST, "the request names no table_id")
        if not raw:
            raise ServiceError.of(ServiceReason.INVALID_REQUEST, "the request carries no state")
        if engine.wire.is_plain_state(raw):
            state = self._plain(raw)
        elif (known := self.recent.get(raw)) is not None:
            state = known
        else:
            state = self._unsealed(raw)
        if state.table_id != table_id:
            raise ServiceError.of(
                ServiceReason.WRONG_TABLE, f"the state belongs to another table than {table_id!r}", table_id=table_id
            )
        return state

    def check_seat(self, state: TableState, seat: int, key: str) -> None:
        """Refuse a seat not at the table, or (but in trusted mode) a missing or wrong seat key."""
        if not 0 <= seat < state.seat_count:
            raise ServiceError.from_rejected(
                engine.Rejected(engine.Reason.INVALID_SEAT, f"seat {seat} is not at this {state.seat_count}-seat table")
            )
        if self.trusted_mode:
            return
        if not key:
            raise ServiceError.of(ServiceReason.SEAT_KEY_MISSING, f"seat {seat} needs its seat key", seat=str(seat))
        if not self.keyring.check_seat_key(key, state.table_id, seat):
            raise ServiceError.of(
                ServiceReason.SEAT_KEY_INVALID, f"that is not the key of seat {seat} at this table", seat=str(seat)
            )

    def seat_key(self, table_id: str, seat: int) -> str:
        return self.keyring.seat_key(table_id, seat)

    def _plain(self, raw: bytes) -> TableState:
        if not self.trusted_mode:
            raise ServiceError.of(ServiceReason.PLAIN_STATE_REFUSED, "this server accepts only sealed state tokens")
        state: TableState = run_engine(lambda: engine.state_from_bytes(raw))
        return state

    def _unsealed(self, raw: bytes) -> TableState:
        try:
            header, payload = self.keyring.open(raw)
        except OldTokenError as exc:
            raise ServiceError.from_rejected(
                engine.Rejected(engine.Reason.RULES_VERSION_UNSUPPORTED, str(exc))
            ) from None
        except TokenError as exc:
            raise ServiceError.of(ServiceReason.INVALID_TOKEN, str(exc)) from None
        state: TableState = run_engine(lambda: engine.state_from_bytes(payload))
        if state.table_id != header.table_id or state.seq != header.seq:  # only a key holder could do this
            raise ServiceError.of(ServiceReason.INVALID_TOKEN, "the token's header does not match its state")
        return state
