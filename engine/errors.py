"""Typed rejections: one exception, a closed list of reasons."""

from __future__ import annotations

from enum import Enum


class Reason(Enum):
    """Why a request was refused. The same names are the proto enum and the REST error reason."""

    # The request itself is malformed (gRPC INVALID_ARGUMENT).
    UNKNOWN_GAME = "UNKNOWN_GAME"
    UNKNOWN_PRESET = "UNKNOWN_PRESET"
    UNKNOWN_OPTION = "UNKNOWN_OPTION"
    INVALID_OPTION = "INVALID_OPTION"
    INVALID_SEATS = "INVALID_SEATS"
    INVALID_SEAT = "INVALID_SEAT"
    INVALID_CARD = "INVALID_CARD"
    INVALID_SEED = "INVALID_SEED"
    INVALID_ENTROPY = "INVALID_ENTROPY"
    """A seat's entropy too long, not hex, or given twice for one draw (docs/fairness.md)."""
    INVALID_STATE = "INVALID_STATE"
    RULES_VERSION_UNSUPPORTED = "RULES_VERSION_UNSUPPORTED"
    UNKNOWN_POLICY = "UNKNOWN_POLICY"
    """A bot policy name that :data:`engine.bots.POLICIES` does not hold."""
    # The request is well formed but the rules forbid it now (gRPC FAILED_PRECONDITION).
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    ILLEGAL_ACTION = "ILLEGAL_ACTION"
    STAKE_OUT_OF_RANGE = "STAKE_OUT_OF_RANGE"
    GAME_OVER = "GAME_OVER"

    @property
    def is_precondition(self) -> bool:
        """True for moves the rules forbid now; False for malformed requests."""
        return self in _PRECONDITIONS


_PRECONDITIONS = frozenset({Reason.NOT_YOUR_TURN, Reason.ILLEGAL_ACTION, Reason.STAKE_OUT_OF_RANGE, Reason.GAME_OVER})


class Rejected(Exception):
    """The engine refused a request. Nothing was changed: states are immutable values."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(f"{reason.value}: {message}")
        self.reason = reason
        self.message = message

    def __reduce__(self) -> tuple[type[Rejected], tuple[Reason, str]]:
        """Pickled as its reason and message, so it crosses to another process whole."""
        return (Rejected, (self.reason, self.message))
