"""Trentuno's rule profile (RULES.md §3) and its presets."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.rules import option

MIN_SEATS = 3
MAX_SEATS = 9
"""TR-2: one 32-card pack deals at most 9 hands of three plus the widow (10 players would need 33 cards)."""


class Scoring(Enum):
    """How a deal is scored."""

    POT = "POT"
    """S003: every seat pays the ante into the pot and the winner of the deal takes it."""
    LIVES = "LIVES"
    """An addition to S003: the lowest hand(s) of each deal lose a life; the last seat alive wins."""


class FirstDealer(Enum):
    """Who deals first."""

    RANDOM = "RANDOM"
    """Drawn by chance from the table's seed."""
    SEAT = "SEAT"
    """The seat named by ``first_dealer_seat``."""


@dataclass(frozen=True, slots=True)
class TrentunoRules:
    """Every option of Trentuno with the widow. Build variants with :func:`engine.rules.with_options`."""

    rules_version: int = 1
    ante: int = option(1, "Chips every seat pays into the pot before each deal (TR-3); at least 1 in POT scoring.")
    tris_by_points: bool = option(
        False, "TR-8 read literally: any three cards of the same value (e.g. K Q J) are a tris, not only one rank."
    )
    max_rounds: int = option(20, "TR-14 guard: after this many full rounds with no stop the dealer is deemed to stop.")
    scoring: Scoring = option(Scoring.POT, "POT: the winner takes the pot (S003). LIVES: lowest hands lose a life.")
    lives: int = option(3, "LIVES scoring: the lives each seat starts with.")
    first_dealer: FirstDealer = option(FirstDealer.RANDOM, "RANDOM: drawn by chance; SEAT: first_dealer_seat deals.")
    first_dealer_seat: int = option(0, "The first dealer when first_dealer is SEAT (seat number, 0-based).")

    def validate(self) -> None:
        """Raise :class:`Rejected` (INVALID_OPTION) if an option is out of range or contradicts another."""
        _int("ante", self.ante, 0, 1_000_000)
        _int("max_rounds", self.max_rounds, 1, 1000)
        _int("lives", self.lives, 1, 99)
        _int("first_dealer_seat", self.first_dealer_seat, 0, MAX_SEATS - 1)
        if not isinstance(self.tris_by_points, bool):
            raise Rejected(Reason.INVALID_OPTION, "tris_by_points must be true or false")
        if not isinstance(self.scoring, Scoring):
            raise Rejected(Reason.INVALID_OPTION, f"scoring must be one of {', '.join(s.value for s in Scoring)}")
        if not isinstance(self.first_dealer, FirstDealer):
            raise Rejected(
                Reason.INVALID_OPTION, f"first_dealer must be one of {', '.join(f.value for f in FirstDealer)}"
            )
        if self.scoring is Scoring.POT and self.ante < 1:
            raise Rejected(Reason.INVALID_OPTION, "POT scoring needs an ante of at least 1: the deal is played for it")


def _int(name: str, value: object, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise Rejected(Reason.INVALID_OPTION, f"{name} must be an integer in [{low}, {high}], not {value!r}")


CLASSICO = TrentunoRules()
"""S003 as written, the winner of each deal taking the pot."""
VITE = TrentunoRules(scoring=Scoring.LIVES)
"""Played for lives: three each, the lowest hand of a deal loses one, the last seat alive takes the pot."""
LETTERALE = TrentunoRules(tris_by_points=True)
"""CLASSICO with S003's "three cards of the same value" read literally: any three 10-point cards are a tris."""

PRESETS: dict[str, TrentunoRules] = {"CLASSICO": CLASSICO, "VITE": VITE, "LETTERALE": LETTERALE}
