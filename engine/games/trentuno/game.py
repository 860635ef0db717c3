"""Trentuno with the widow (RULES.md §3, S003) on the engine core."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar

from mazziere.engine.cards import FRENCH_32, Card
from mazziere.engine.dealing import Dealing
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.events import GAME_OVER, HAND_OVER
from mazziere.engine.game import Game
from mazziere.engine.games.trentuno import events, validate
from mazziere.engine.games.trentuno.hands import HandKey, HandKind, hand_key, hand_kind, hand_points
from mazziere.engine.games.trentuno.rules import MAX_SEATS, MIN_SEATS, PRESETS, FirstDealer, Scoring, TrentunoRules
from mazziere.engine.games.trentuno.state import Closing, DealResult, Ending, Phase, TrentunoState, TrentunoView
from mazziere.engine.ledger import POT
from mazziere.engine.seats import first_dealer, mask, next_in_play, others_after, round_from
from mazziere.engine.step import Step
from mazziere.engine.table import Action, Event, LegalAction, Outcome, Seat
from mazziere.engine.visibility import PUBLIC, TableCard, Viewer, only

DEAL = "DEAL"
EXCHANGE = "EXCHANGE"
TAKE_ALL = "TAKE_ALL"
STOP = "STOP"
PASS = "PASS"

_DEAL_ACTIONS = (LegalAction(DEAL),)
_TRENTUNO = 4


@lru_cache(maxsize=1024)  # ~1.8 KiB an entry: a state's turn is asked for a few times in a row (docs/performance.md)
def _turn_actions(hand: tuple[Card, ...], widow: tuple[Card, ...], last_round: bool) -> tuple[LegalAction, ...]:
    """TR-9 / TR-11: exchange one card for one widow card, take all three, and stop (or pass in the last round)."""
    out = [LegalAction(EXCHANGE, cards=(given, taken)) for given in hand for taken in widow]
    out.append(LegalAction(TAKE_ALL))
    out.append(LegalAction(PASS if last_round else STOP))
    return tuple(out)


def _after(in_deal: tuple[int, ...], seat: int, seat_count: int) -> tuple[int, ...]:
    """The other seats of the deal in play order from the one after ``seat``.

    A deal always has another seat; a state without one (which :meth:`Trentuno.check_state` refuses) is
    refused here too rather than failing on an index."""
    out = others_after(mask(seat_count, in_deal), seat)
    if not out:
        raise Rejected(Reason.INVALID_STATE, f"state.in_deal: {list(in_deal)} has no seat to play after seat {seat}")
    return out


def _cards(hand: tuple[TableCard, ...]) -> tuple[Card, ...]:
    return tuple(tc.card for tc in hand)  # type: ignore[misc]  # the state never holds redacted cards


def _participants(rules: TrentunoRules, chips: tuple[int, ...], lives: tuple[int, ...]) -> tuple[int, ...]:
    """Who is dealt in: POT, the seats that can pay the ante; LIVES, the seats with a life left."""
    if rules.scoring is Scoring.LIVES:
        return tuple(s for s, left in enumerate(lives) if left > 0)
    return tuple(s for s, c in enumerate(chips) if c >= rules.ante)


def _can_deal(rules: TrentunoRules, players: tuple[int, ...]) -> bool:
    return len(players) >= (2 if rules.scoring is Scoring.LIVES else MIN_SEATS)


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
        if n > MAX_SEATS:
            raise Rejected(
                Reason.INVALID_SEATS,
                f"Trentuno seats at most {MAX_SEATS} players: one 32-card pack deals at most 9 hands of three plus "
                f"the widow, and {n} players would need {3 * (n + 1)} cards",
            )
        if n < MIN_SEATS:
            raise Rejected(Reason.INVALID_SEATS, f"Trentuno needs {MIN_SEATS} to {MAX_SEATS} players, not {n}")
        chips = tuple(s.chips for s in seats)
        lives = (rules.lives,) * n if rules.scoring is Scoring.LIVES else ()
        players = _participants(rules, chips, lives)
        if not _can_deal(rules, players):
            raise Rejected(
                Reason.INVALID_SEATS,
                f"only {len(players)} seat(s) can pay the ante of {rules.ante}; a deal needs {MIN_SEATS}",
            )
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
            phase=Phase.WAITING,
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

    # -- the hot path ------------------------------------------------------------------------------

    def legal_actions(self, state: TrentunoState, seat: int) -> tuple[LegalAction, ...]:
        if state.phase is Phase.PLAYING:
            if seat != state.turn:
                return ()
            return _turn_actions(_cards(state.hands[seat]), _cards(state.widow), state.stopper is not None)
        if state.phase is Phase.WAITING and seat == state.dealer:
            return _DEAL_ACTIONS
        return ()

    def check_state(self, state: TrentunoState) -> None:
        validate.check_state(state)

    def to_act(self, state: TrentunoState) -> tuple[int, ...]:
        if state.phase is Phase.PLAYING:
            return (state.turn,) if state.turn is not None else ()
        if state.phase is Phase.WAITING:
            return (state.dealer,)
        return ()

    def is_over(self, state: TrentunoState) -> bool:
        return state.phase is Phase.OVER

    def play(self, state: TrentunoState, action: Action) -> Outcome:
        if action.kind == DEAL:
            return self._deal(state)
        return self._turn(state, action)

    # -- a deal ------------------------------------------------------------------------------------

    def _deal(self, state: TrentunoState) -> Outcome:
        """TR-3 antes, TR-4 the deal, then TR-6 and TR-7."""
        rules = state.rules
        dealer = state.dealer
        players = _participants(rules, state.chips, state.lives)
        order = round_from(mask(state.seat_count, players), dealer)
        step = Step(state)
        ante = rules.ante
        for s in order:
            if ante and state.chips[s] >= ante:  # LIVES: a live seat that cannot pay plays on without paying
                step.pay(s, POT, ante, "ante")
        deck = step.dealing.shuffle(FRENCH_32)
        step.dealing.reveal(keep_current=True)  # the last deal's pack is gathered
        step.dealing.took(deck, 3 * (len(order) + 1))
        dealt: dict[int, list[Card]] = {s: [] for s in order}
        widow_cards: list[Card] = []
        i = 0
        for _ in range(3):
            for s in order:
                dealt[s].append(deck[i])
                i += 1
            widow_cards.append(deck[i])
            i += 1
        hands = tuple(
            tuple(TableCard(c, only(s)) for c in dealt[s]) if s in dealt else () for s in range(state.seat_count)
        )
        widow = tuple(TableCard(c, PUBLIC) for c in widow_cards)
        step.event(events.DEAL, seat=dealer, amount=step.pot)
        for s in order:
            step.event(events.HAND, seat=s, cards=hands[s])
        step.event(events.WIDOW, cards=widow)
        step.change(
            phase=Phase.PLAYING,
            deals=state.deals + 1,
            in_deal=players,
            hands=hands,
            widow=widow,
            stock=deck[i:],
            turn=order[0],
            rounds=0,
            stopper=None,
            closing=None,
            last_left=(),
            result=None,
        )
        tbp = rules.tris_by_points
        if hand_key(widow_cards, tbp)[0] == _TRENTUNO:  # TR-6: the dealer takes the widow and wins
            taken = tuple(TableCard(c, only(dealer)) for c in widow_cards)
            laid = tuple(TableCard(tc.card, PUBLIC) for tc in hands[dealer])
            step.change(hands=(*hands[:dealer], taken, *hands[dealer + 1 :]), widow=laid)
            step.event(events.WIDOW_TRENTUNO, seat=dealer, cards=widow)
            return _finish(step, Ending.WIDOW_TRENTUNO, (dealer,))
        if any(hand_key(dealt[s], tbp)[0] == _TRENTUNO for s in order):  # TR-7: the best dealt Trentuno wins
            return _finish(step, Ending.DEALT_TRENTUNO, None)
        return step.outcome()

    # -- a turn ------------------------------------------------------------------------------------

    def _turn(self, state: TrentunoState, action: Action) -> Outcome:
        """TR-9 .. TR-11 and TR-14."""
        seat = action.seat
        kind = action.kind
        hand = state.hands[seat]
        widow = state.widow
        step = Step(state)
        if kind == EXCHANGE:
            given, taken = action.cards
            i = next(k for k, tc in enumerate(hand) if tc.card == given)
            j = next(k for k, tc in enumerate(widow) if tc.card == taken)
            hand = (*hand[:i], TableCard(taken, hand[i].seen_by), *hand[i + 1 :])
            widow = (*widow[:j], TableCard(given, PUBLIC), *widow[j + 1 :])
            step.event(events.EXCHANGE, seat=seat, cards=(TableCard(given, PUBLIC), TableCard(taken, PUBLIC)))
        elif kind == TAKE_ALL:
            mine = hand[0].seen_by
            hand, widow = (
                tuple(TableCard(tc.card, mine) for tc in widow),
                tuple(TableCard(tc.card, PUBLIC) for tc in hand),
            )
            step.event(events.TAKE_ALL, seat=seat, cards=widow)
        else:
            step.event(events.STOP if kind == STOP else events.PASS, seat=seat)
        if hand is not state.hands[seat]:
            step.change(hands=(*state.hands[:seat], hand, *state.hands[seat + 1 :]), widow=widow)
            if hand_key(_cards(hand), state.rules.tris_by_points)[0] == _TRENTUNO:  # TR-10
                return _finish(step, Ending.TRENTUNO, (seat,))
        if state.stopper is not None:  # TR-11: one last turn each
            left = state.last_left[1:]
            if not left:
                step.change(last_left=())
                return _finish(step, Ending.SHOWDOWN, None)
            return step.outcome(last_left=left, turn=left[0])
        if kind != EXCHANGE:  # a stop or a take-all opens the last round
            left = _after(state.in_deal, seat, state.seat_count)
            closing = Closing.STOP if kind == STOP else Closing.TAKE_ALL
            return step.outcome(stopper=seat, closing=closing, last_left=left, turn=left[0])
        rounds = state.rounds
        if seat == state.dealer:
            rounds += 1
            if rounds >= state.rules.max_rounds:  # TR-14: as if the dealer had stopped
                left = _after(state.in_deal, seat, state.seat_count)
                step.event(events.ROUND_LIMIT, seat=seat, amount=rounds)
                return step.outcome(
                    rounds=rounds, stopper=seat, closing=Closing.ROUND_LIMIT, last_left=left, turn=left[0]
                )
        return step.outcome(rounds=rounds, turn=_after(state.in_deal, seat, state.seat_count)[0])

    # -- what a seat sees --------------------------------------------------------------------------

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
            to_act=state.turn
            if state.phase is Phase.PLAYING
            else state.dealer
            if state.phase is Phase.WAITING
            else None,
            rounds=state.rounds,
            stopper=state.stopper,
            closing=state.closing,
            last_round=state.stopper is not None and state.phase is Phase.PLAYING,
            last_left=state.last_left,
            result=state.result,
        )


def _finish(step: Step[TrentunoState], ending: Ending, winners: tuple[int, ...] | None) -> Outcome:
    """Reveal the hands, pay the pot (TR-3, TR-12) or take lives, pass the deal (TR-13), or end the game."""
    state = step.state
    rules = state.rules
    n = state.seat_count
    dealer = state.dealer
    order = (*_after(state.in_deal, dealer, n), dealer)
    tbp = rules.tris_by_points
    keys: dict[int, HandKey] = {s: hand_key(_cards(state.hands[s]), tbp) for s in order}
    best = max(keys.values())
    if winners is None:
        winners = tuple(s for s in order if keys[s] == best)
    hands = tuple(tuple(TableCard(tc.card, PUBLIC) for tc in hand) for hand in state.hands)
    points = [0] * n
    kinds = [HandKind.NONE] * n
    for s in order:
        points[s] = hand_points(keys[s])
        kinds[s] = hand_kind(keys[s])
        step.event(events.SHOW, seat=s, cards=hands[s], points=points[s])
    lives = state.lives
    losers: tuple[int, ...] = ()
    share = 0
    if rules.scoring is Scoring.POT:
        share = step.pot // len(winners)
        for w in winners:
            if share:
                step.pay(POT, w, share, "pot")
    else:
        worst = min(keys.values())
        losers = tuple(s for s in order if keys[s] == worst)
        after = list(lives)
        for s in losers:
            after[s] -= 1
        if any(after):  # a deal that would leave nobody alive costs nobody a life
            lives = tuple(after)
            for s in losers:
                step.event(events.LIFE_LOST, seat=s, amount=lives[s])
        else:
            losers = ()
    for w in winners:
        step.event(events.WIN, seat=w, amount=share, points=points[w])
    step.event(HAND_OVER, seat=winners[0], amount=share, points=points[winners[0]])
    result = DealResult(ending, winners, share, step.pot, losers, tuple(kinds), tuple(points))
    players = _participants(rules, step.chips, lives)
    if _can_deal(rules, players):
        nxt = next_in_play(mask(n, players), dealer)  # TR-13
        assert nxt is not None
        step.event(events.DEALER, seat=nxt)
        return step.outcome(
            phase=Phase.WAITING, dealer=nxt, hands=hands, turn=None, last_left=(), lives=lives, result=result
        )
    # The game is over: the pot left goes to the last survivor (LIVES) or, with the odd chips of a split,
    # to the last deal's winner nearest the dealer's left (POT).
    heir = players[0] if rules.scoring is Scoring.LIVES and players else winners[0]
    left = step.pot
    if left:
        step.pay(POT, heir, left, "pot")
    step.event(GAME_OVER, seat=heir if rules.scoring is Scoring.LIVES else None, amount=left)
    return step.outcome(phase=Phase.OVER, hands=hands, turn=None, last_left=(), lives=lives, result=result)
