"""Sette e mezzo's rule profile (RULES.md §1, SM-1..SM-23) and its presets.

Every option of RULES.md is a field; the presets set the ones their source sets. ``validate`` refuses the
combinations that contradict each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from mazziere.engine.cards import Card
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.rules import option


class Pack(Enum):
    """SM-1: the 40-card pack."""

    ITALIAN = "ITALIAN"
    FRENCH = "FRENCH"


class MattaValues(Enum):
    """SM-3: the values the matta may take."""

    HALF_OR_WHOLE = "HALF_OR_WHOLE"
    WHOLE_ONLY = "WHOLE_ONLY"


class FirstBank(Enum):
    """SM-6: how the first bank is chosen."""

    RANDOM = "RANDOM"
    HIGHEST_CARD = "HIGHEST_CARD"
    SEAT = "SEAT"


class BankPasses(Enum):
    """SM-17: when the bank passes if no reale passed it."""

    DECK_EXHAUSTED = "DECK_EXHAUSTED"
    EVERY_HAND = "EVERY_HAND"
    NEVER = "NEVER"


class Reshuffle(Enum):
    """SM-18: when the pack is shuffled afresh."""

    CONTINUE = "CONTINUE"
    EVERY_HAND = "EVERY_HAND"
    ON_MATTA = "ON_MATTA"


class NaturalRule(Enum):
    """SM-19: how a 7½ meets a 7½ and who is paid double."""

    S002 = "S002"
    S000 = "S000"
    S001 = "S001"
    ENCYCLOPEDIA = "ENCYCLOPEDIA"


class BurnWhen(Enum):
    """SM-20: which cards a player may burn."""

    FIRST_CARD = "FIRST_CARD"
    ANY_CARD = "ANY_CARD"


class MattaRealePays(Enum):
    """CASINO: what a reale holding the matta pays when reales are paid even money."""

    ONE_TO_ONE = "ONE_TO_ONE"
    THREE_TO_TWO = "THREE_TO_TWO"


MATTA = Card.parse("Rd")
MAX_SEATS = 12


@dataclass(frozen=True, slots=True)
class SetteEMezzoRules:
    """The options of Sette e mezzo. Points are in halves (7½ = 15)."""

    rules_version: int = 1
    min_seats: int = option(2, "SM-4: fewest seats at the table, the bank included.")
    max_seats: int = option(12, "SM-4: most seats at the table, the bank included (at most 12).")
    min_stake: int = option(1, "SM-8: the smallest stake a player may place.")
    max_stake: int = option(10, "SM-8: the largest stake (also the cap of a raised stake).")
    pack: Pack = option(Pack.ITALIAN, "SM-1: Italian or French 40-card pack.")
    matta_card: Card | None = option(MATTA, "SM-3: the wild card (Rd reads as KD in the French pack), or none.")
    matta_values: MattaValues = option(MattaValues.HALF_OR_WHOLE, "SM-3: values the matta may take.")
    first_bank: FirstBank = option(FirstBank.RANDOM, "SM-6: how the first bank is chosen.")
    first_bank_seat: int = option(0, "SM-6: the first bank when first_bank is SEAT (and the house in CASINO).")
    raise_on_decision: bool = option(False, "SM-8: each hit or stand may raise the stake (S002).")
    hidden_card_choice: bool = option(False, "SM-9: a hit may turn the hidden card up and take the new one down.")
    reveal_hidden_on_bust: bool = option(False, "SM-10: a bust shows the hidden card (S001).")
    bank_passes_when: BankPasses = option(BankPasses.DECK_EXHAUSTED, "SM-17: when the bank passes without a reale.")
    reshuffle: Reshuffle = option(Reshuffle.CONTINUE, "SM-18: when the pack is shuffled afresh.")
    natural_rule: NaturalRule = option(NaturalRule.S002, "SM-19: how 7½ meets 7½ and who is paid double.")
    burn_ranks: frozenset[int] = option(frozenset(), "SM-20: ranks a player may burn (e.g. [3, 4]); empty: none.")
    burn_when: BurnWhen = option(BurnWhen.FIRST_CARD, "SM-20: burn only the first card, or any card received.")
    burn_limit: int = option(0, "SM-20: burns per player per hand (0: unlimited).")
    ace_half_first: bool = option(False, "SM-21: an ace as first card counts 1 or ½, whichever is better.")
    triple: bool = option(False, "SM-22: 7 + matta is a triplé, paid triple.")
    triple_two_sevens: bool = option(False, "SM-22: two sevens are a triplé, not a bust (needs triple).")
    bank_passes_on_reale: bool = option(True, "SM-16/23: a player paid double for a reale takes the bank.")
    reale_pays_double: bool = option(True, "SM-15: a reale is paid double (CASINO: false, every win even money).")
    reale_with_matta_pays: MattaRealePays = option(
        MattaRealePays.ONE_TO_ONE, "CASINO: a player's reale holding the matta pays 1:1 or 3:2 (even-money reales)."
    )
    house_bank: bool = option(False, "CASINO: the bank is the house and plays a fixed rule (draws below 5).")
    bank_first_card_up: bool = option(False, "CASINO: the bank's first card is dealt face up.")
    forced_draws: bool = option(False, "CASINO: draw while below the bank's up card, and once on a lone matta.")
    ties_push: bool = option(False, "CASINO: equal totals push instead of going to the bank.")
    five_tie_loses: bool = option(False, "CASINO: a tie at 5 loses even when ties push.")
    sit_out: bool = option(False, "Sitting out: between hands the bank may sit a player out of the next hands.")

    def validate(self) -> None:
        def bad(message: str) -> Rejected:
            return Rejected(Reason.INVALID_OPTION, message)

        if not 2 <= self.min_seats <= self.max_seats <= MAX_SEATS:
            raise bad(f"seats must satisfy 2 <= min_seats <= max_seats <= {MAX_SEATS}")
        if not 1 <= self.min_stake <= self.max_stake:
            raise bad(f"stakes must satisfy 1 <= min_stake <= max_stake (got {self.min_stake}, {self.max_stake})")
        if not 0 <= self.first_bank_seat < self.max_seats:
            raise bad(f"first_bank_seat {self.first_bank_seat} is not a seat of a {self.max_seats}-seat table")
        if self.matta_card is not None and pack_card(self.matta_card, self.pack) is None:
            raise bad(f"matta_card {self.matta_card} is not in the {self.pack.value} 40-card pack")
        top = 10 if self.pack is Pack.ITALIAN else 13
        if any(not 1 <= r <= top for r in self.burn_ranks):
            raise bad(f"burn_ranks must be ranks 1..{top} of the {self.pack.value} pack")
        if self.burn_limit < 0:
            raise bad("burn_limit must be 0 (unlimited) or more")
        if self.triple_two_sevens and not self.triple:
            raise bad("triple_two_sevens needs triple")
        if self.house_bank and (self.bank_passes_when is not BankPasses.NEVER or self.bank_passes_on_reale):
            raise bad("a house bank never passes: set bank_passes_when=NEVER and bank_passes_on_reale=false")
        if self.forced_draws and not self.bank_first_card_up:
            raise bad("forced_draws compares with the bank's up card: set bank_first_card_up")


_TO_FRENCH = {"d": "D", "c": "H", "s": "S", "b": "C"}
_TO_ITALIAN = {v: k for k, v in _TO_FRENCH.items()}


def pack_card(card: Card, pack: Pack) -> Card | None:
    """``card`` in ``pack``: an Italian card names its French counterpart and back (denari = diamonds,
    coppe = hearts, spade = spades, bastoni = clubs; fante, cavallo, re = J, Q, K). None if it has none."""
    text = str(card)
    rank, suit = text[0], text[1]
    if (pack is Pack.FRENCH and suit in _TO_ITALIAN) or (pack is Pack.ITALIAN and suit in _TO_FRENCH):
        return card
    if pack is Pack.FRENCH:
        return Card.parse({"F": "J", "C": "Q", "R": "K"}.get(rank, rank) + _TO_FRENCH[suit])
    if rank in "89T":
        return None
    return Card.parse({"J": "F", "Q": "C", "K": "R"}.get(rank, rank) + _TO_ITALIAN[suit])


CLASSICO = SetteEMezzoRules()
"""S002: 2..12 players, natural rule S002, the bank passes when the deck is exhausted."""

NAPOLETANO = SetteEMezzoRules(
    first_bank=FirstBank.HIGHEST_CARD,
    burn_ranks=frozenset({3, 4}),
    burn_when=BurnWhen.FIRST_CARD,
    burn_limit=1,
    natural_rule=NaturalRule.S000,
)
"""S000: highest card takes the first bank; a first 3 or 4 may be burned once; natural rule S000."""

DELLARTI = SetteEMezzoRules(
    min_seats=3,
    natural_rule=NaturalRule.S001,
    hidden_card_choice=True,
    reshuffle=Reshuffle.ON_MATTA,
)
"""S001: 3..12 players, natural rule S001, hidden-card choice, reshuffle when the matta shows."""

CASINO = SetteEMezzoRules(
    first_bank=FirstBank.SEAT,
    first_bank_seat=0,
    house_bank=True,
    bank_passes_when=BankPasses.NEVER,
    bank_passes_on_reale=False,
    reshuffle=Reshuffle.EVERY_HAND,
    natural_rule=NaturalRule.S001,
    reale_pays_double=False,
    bank_first_card_up=True,
    forced_draws=True,
    ties_push=True,
)
"""Online casinos: seat 0 is the house; fresh pack every hand; even money; ties push."""

PRESETS: dict[str, SetteEMezzoRules] = {
    "CLASSICO": CLASSICO,
    "NAPOLETANO": NAPOLETANO,
    "DELLARTI": DELLARTI,
    "CASINO": CASINO,
}
