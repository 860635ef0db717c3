"""Saltacavallo's rule profile (RULES.md §2, SC-1..SC-15) and its presets."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.rules import option

MAX_SEATS = 20
"""SC-2: at most 20 players."""
MAX_LIVES = 99
MAX_COIN = 10**9


class FirstDealer(Enum):
    """SC-4: how the first dealer is chosen."""

    SECOND_DENARI = "SECOND_DENARI"
    DUE_DI_DENARI = "DUE_DI_DENARI"
    RE_DI_DENARI = "RE_DI_DENARI"
    RANDOM = "RANDOM"
    SEAT = "SEAT"


class Reshuffle(Enum):
    """SC-5: when the pack is shuffled."""

    EVERY_HAND = "EVERY_HAND"
    CONTINUE = "CONTINUE"


class AllDeadHand(Enum):
    """SC-12: what happens when a hand would kill every living seat."""

    REPLAY = "REPLAY"
    SPLIT_POT = "SPLIT_POT"


@dataclass(frozen=True, slots=True)
class SaltacavalloRules:
    """Every option of RULES.md §2. Build variants with :func:`engine.rules.with_options`."""

    rules_version: int = 1
    lives: int = option(3, "SC-3: lives (coins) each player starts with")
    coin: int = option(1, "SC-3: chips one life (coin) is worth; a seat brings at least lives * coin chips")
    min_seats: int = option(3, "SC-2: fewest seats to start a table (3 as written; 2 allows a heads-up start)")
    first_dealer: FirstDealer = option(FirstDealer.SECOND_DENARI, "SC-4: how the first dealer is chosen")
    first_dealer_seat: int = option(0, "SC-4: the first dealer when first_dealer is SEAT")
    reshuffle: Reshuffle = option(Reshuffle.EVERY_HAND, "SC-5: shuffle every hand, or play the stock down")
    drawn_king_keeps_own: bool = option(False, "SC-10 (Cucù): a re drawn by the dealer is void; he keeps his card")
    drawn_horse_draws_again: bool = option(
        False, "SC-10 (Cucù): a cavallo drawn by the dealer is discarded; he draws again"
    )
    all_dead_hand: AllDeadHand = option(AllDeadHand.REPLAY, "SC-12: a hand that would kill every living seat")
    revival: bool = option(True, "SC-13: Neapolitan revival: a dead seat may be given a life between hands")
    revival_dealer_exempt: bool = option(False, "SC-13: the next dealer cannot be named as the giver of a life")
    end_at_two_split: bool = option(False, "SC-15: stop when two seats live and split the pot between them")
    sit_out: bool = option(False, "Sitting out: between hands the dealer may sit a living seat out of the next hands.")

    def validate(self) -> None:
        if not 1 <= self.lives <= MAX_LIVES:
            raise Rejected(Reason.INVALID_OPTION, f"lives must be 1..{MAX_LIVES}, not {self.lives}")
        if not 1 <= self.coin <= MAX_COIN:
            raise Rejected(Reason.INVALID_OPTION, f"coin must be 1..{MAX_COIN} chips, not {self.coin}")
        if self.min_seats not in (2, 3):
            raise Rejected(Reason.INVALID_OPTION, f"min_seats must be 2 or 3, not {self.min_seats}")
        if not 0 <= self.first_dealer_seat < MAX_SEATS:
            raise Rejected(
                Reason.INVALID_OPTION, f"first_dealer_seat must be 0..{MAX_SEATS - 1}, not {self.first_dealer_seat}"
            )
        if self.end_at_two_split and self.min_seats < 3:
            raise Rejected(
                Reason.INVALID_OPTION, "end_at_two_split stops the game at two seats, so it needs min_seats 3"
            )


NAPOLETANO = SaltacavalloRules()
"""S000 as written (Naples): three lives, revival on, the dealer draws once with no Cucù twists."""

CUCU = SaltacavalloRules(revival=False, drawn_king_keeps_own=True, drawn_horse_draws_again=True)
"""The Cucù family: no revival; a re drawn by the dealer is void, a drawn cavallo makes him draw again."""

PRESETS: dict[str, SaltacavalloRules] = {"NAPOLETANO": NAPOLETANO, "CUCU": CUCU}
"""The first preset is the default."""
