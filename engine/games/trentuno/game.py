"""Trentuno with the widow (RULES.md §3, S003) as a :class:`~engine.game.Game`: the table, what a seat may do,
one action handed to its step (:mod:`.deal`, :mod:`.turns`, :mod:`.showdown`), the view."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from mazziere.engine.cards import FRENCH_32
from mazziere.engine.dealing import Dealing
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.game import Game
from mazziere.engine.games.trentuno import events, validate
from mazziere.engine.games.trentuno.deal import deal
from mazziere.engine.games.trentuno.players import can_deal, participants
from mazziere.engine.games.trentuno.rules import MAX_SEATS, MIN_SEATS, PRESETS, FirstDealer, Scoring, TrentunoRules
from mazziere.engine.games.trentuno.state import OVER, PLAYING, WAITING, TrentunoState, TrentunoView
from mazziere.engine.games.trentuno.turns import exchange, pass_turn, stop, take_all
from mazziere.engine.seats import first_dealer, mask, next_in_play
from mazziere.engine.step import Step
from mazziere.engine.table import Action, Event, LegalAction, Outcome, Seat
from mazziere.engine.visibility import TableCard, Viewer

DEAL: Final = "DEAL"
EXCHANGE: Final = "EXCHANGE"
TAKE_ALL: Final = "TAKE_ALL"
STOP: Final = "STOP"
PASS: Final = "PASS"

_DEAL_ACTIONS: Final = (LegalAction(DEAL),)


_EXCHANGES: Final[dict[int, dict[int, LegalAction]]] = {
    given.index: {taken.index: LegalAction(EXCHANGE, cards=(given, taken)) for taken in FRENCH_32}
    for given in FRENCH_32
}
"""TR-9: every exchange of the pack, by the index of the card given, then of the card taken (made once: a turn's
entries are read from here, never built)."""
Cards = tuple[TableCard, ...]
_TAKE_ALL: Final = LegalAction(TAKE_ALL)
_STOP: Final = LegalAction(STOP)
_PASS: Final = LegalAction(PASS)


def _turn_actions(
    hand: tuple[TableCard, ...], widow: tuple[TableCard, ...], last_round: bool
) -> tuple[LegalAction, ...]:
    """TR-9 / TR-11: exchange one card for one widow card, take all three, and stop (or pass in the last round)."""
    taken = [laid.card.index for laid in widow]  # type: ignore[union-attr]  # the state holds every card's face
    out = []
    for mine in hand:
        exchanges = _EXCHANGES[mine.card.index]  # type: ignore[union-attr]
        for index in taken:
            out.append(exchanges[index])
    out.append(_TAKE_ALL)
    out.append(_PASS if last_round else _STOP)
    return tuple(out)


class Trentuno(Game[TrentunoState, TrentunoRules]):
    id: ClassVar[str] = "trentuno"
    title: ClassVar[str] = "Trentuno with the widow"
    state_type: ClassVar[type[TrentunoState]] = TrentunoState
    rules_type: ClassVar[type] = TrentunoRules
    presets: ClassVar[dict[str, TrentunoRules]] = PRESETS
    action_kinds: ClassVar[tuple[str, ...]] = (DEAL, EXCHANGE, TAKE_ALL, STOP, PASS)

    # -- a new table -------------------------------------------------------------------------------

    def start(self, rules: TrentunoRules, seats: Sequence[Seat], seed: bytes, table_id: str) -> Outcome:
        rules.validate()
        n = len(seats)
        lives = (rules.lives,) * n if rules.scoring is Scoring.LIVES else ()
        players = _check_seats(rules, seats, lives)
        fixed = rules.first_dealer_seat if rules.first_dealer is FirstDealer.SEAT else None
        if fixed is not None and fixed >= n:
            raise Rejected(Reason.INVALID_OPTION, f"first_dealer_seat {fixed} is not at this {n}-seat table")
        told: list[Event] = []
        dealing = Dealing.opening(seed, told)
        chosen = first_dealer(n, dealing, fixed)
        in_play = mask(n, players)
        dealer = chosen if in_play[chosen] else next_in_play(in_play, chosen)
        assert dealer is not None  # at least two seats can be dealt in
        state = TrentunoState.opening(
            self.id,
            table_id,
            rules,
            seats,
            dealing,
            phase=WAITING,
            dealer=dealer,
            deals=0,
            in_deal=(),
            hands=((),) * n,
            widow=(),
            stock=(),
            turn=None,
            rounds=0,
            stopper=None,
            closing=None,
            last_left=(),
            lives=lives,
            result=None,
        )
        told.append(Event(events.DEALER, seat=dealer))
        return Outcome(state, tuple(told))

    # -- what a seat may do ------------------------------------------------------------------------

    def legal_actions(self, state: TrentunoState, seat: int) -> tuple[LegalAction, ...]:
        if state.phase is PLAYING:
            if seat != state.turn:
                return ()
            return _turn_actions(state.hands[seat], state.widow, state.stopper is not None)
        if state.phase is WAITING and seat == state.dealer:
            return _DEAL_ACTIONS
        return ()

    def check_state(self, state: TrentunoState) -> None:
        validate.check_state(state)

    def to_act(self, state: TrentunoState) -> tuple[int, ...]:
        if state.phase is PLAYING:
            return (state.turn,) if state.turn is not None else ()
        if state.phase is WAITING:
            return (state.dealer,)
        return ()

    def is_over(self, state: TrentunoState) -> bool:
        return state.phase is OVER

    # -- one action --------------------------------------------------------------------------------

    def play(self, state: TrentunoState, action: Action) -> Outcome:
        kind, seat = action.kind, action.seat
        step = Step(state)
        if kind == DEAL:
            return deal(step)
        if kind == EXCHANGE:
            given, taken = action.cards
            return exchange(step, seat, given, taken)
        if kind == TAKE_ALL:
            return take_all(step, seat)
        if kind == STOP:
            return stop(step, seat)
        return pass_turn(step, seat)

    # -- what a seat may see -----------------------------------------------------------------------

    def view(self, state: TrentunoState, viewer: Viewer) -> TrentunoView:
        return TrentunoView(
            game=state.game,
            table_id=state.table_id,
            names=state.names,
            chips=state.chips,
            pot=state.pot,
            scoring=state.rules.scoring,
            lives=state.lives,
            phase=state.phase,
            dealer=state.dealer,
            deals=state.deals,
            in_deal=state.in_deal,
            hands=state.hands,
            widow=state.widow,
            stock_size=len(state.stock),
            to_act=state.turn if state.phase is PLAYING else state.dealer if state.phase is WAITING else None,
            rounds=state.rounds,
            stopper=state.stopper,
            closing=state.closing,
            last_round=state.stopper is not None and state.phase is PLAYING,
            last_left=state.last_left,
            result=state.result,
        )


def _check_seats(rules: TrentunoRules, seats: Sequence[Seat], lives: tuple[int, ...]) -> tuple[int, ...]:
    """TR-2: 3 to 9 players, enough of them able to be dealt in (TR-3); those are returned."""
    n = len(seats)
    if n > MAX_SEATS:
        raise Rejected(
            Reason.INVALID_SEATS,
            f"Trentuno seats at most {MAX_SEATS} players: one 32-card pack deals at most 9 hands of three plus "
            f"the widow, and {n} players would need {3 * (n + 1)} cards",
        )
    if n < MIN_SEATS:
        raise Rejected(Reason.INVALID_SEATS, f"Trentuno needs {MIN_SEATS} to {MAX_SEATS} players, not {n}")
    players = participants(rules, tuple(s.chips for s in seats), lives)
    if not can_deal(rules, players):
        raise Rejected(
            Reason.INVALID_SEATS,
            f"only {len(players)} seat(s) can pay the ante of {rules.ante}; a deal needs {MIN_SEATS}",
        )
    return players
