"""``advise(state, seat)``: for each legal action of a seat, its expected chip result, from that seat's view only.

Sette e mezzo's player and bank decisions are counted (:mod:`mazziere.engine.bots.sette_e_mezzo`: exact under the
model of docs/bots.md, a bank's beyond a budget approximate); every other decision is played out on
determinizations (:mod:`mazziere.engine.bots.sampled`). Each action's ``basis`` says which.
"""

from __future__ import annotations

from mazziere.engine import get_game, is_over, legal_actions
from mazziere.engine.bots import outcomes, sampled, sette_e_mezzo
from mazziere.engine.bots.cautious import cautious
from mazziere.engine.bots.stop import Stop, polling
from mazziere.engine.bots.values import EXACT, Advice
from mazziere.engine.sitting import SIT_KINDS
from mazziere.engine.table import Action, LegalAction, TableState


def actions_of(entries: tuple[LegalAction, ...], seat: int) -> tuple[Action, ...]:
    """One action per legal entry, for sampled advice: an amount range gives its smallest and its largest amount
    (Sette e mezzo's counted advice lists its own amounts, :func:`~mazziere.engine.bots.sette_e_mezzo.amounts`)."""
    out: list[Action] = []
    for entry in entries:
        out.append(entry.example(seat))
        if entry.max_amount > entry.min_amount:
            out.append(Action(seat, entry.kind, entry.max_amount, entry.target, entry.cards))
    return tuple(out)


def playing(entries: tuple[LegalAction, ...]) -> tuple[LegalAction, ...]:
    """The entries that play the game: all but sitting a seat out or in (the table's choice of who plays)."""
    return tuple(entry for entry in entries if entry.kind not in SIT_KINDS)


def advise(state: TableState, seat: int, *, samples: int | None = None, stop: Stop | None = None) -> Advice:
    """Advice for ``seat``: one entry per legal action (none when it may not act), but sitting a seat out or in
    (``SIT_OUT``, ``SIT_IN``): those are the table's choice of who plays, not a bet to weigh.

    ``samples`` forces sampling with that many determinizations; by default a decision is computed exactly
    where that is cheap enough, and otherwise sampled (:data:`~mazziere.engine.bots.sampled.DEFAULT_SAMPLES`).

    ``stop`` (polled, never a clock): once it is True, exact advice raises
    :class:`~mazziere.engine.bots.stop.Stopped`, and sampled advice answers with the samples played so far
    (Stopped below 2)."""
    return advise_with(state, seat, samples, sampled.DEFAULT_SAMPLES, sampled.EXACT_LIMIT, stop=stop)


def advise_with(
    state: TableState,
    seat: int,
    samples: int | None,
    fallback: int,
    exact_limit: int,
    race: bool = False,
    stop: Stop | None = None,
    least: int = 2,
) -> Advice:
    """:func:`advise` with its budget: ``fallback`` samples when exact play-outs would pass ``exact_limit``
    (``race``: drop the actions that clearly trail while sampling, :func:`~mazziere.engine.bots.sampled.evaluate`;
    ``least``: the fewest samples a stopped sampling may answer with)."""
    get_game(state.game)  # an unknown game is refused here, as everywhere
    if is_over(state) or not 0 <= seat < state.seat_count:
        return Advice(seat, EXACT, 0, ())
    entries = playing(legal_actions(state, seat))
    if not entries:
        return Advice(seat, EXACT, 0, ())
    actions = actions_of(entries, seat)
    if state.game == "sette_e_mezzo" and samples is None:
        with polling(stop):
            exact = sette_e_mezzo.advise(state, seat, entries)
        if exact is not None:
            return exact
    classify = outcomes.CLASSIFY[state.game]
    return sampled.evaluate(state, seat, actions, cautious, classify, samples, fallback, exact_limit, race, stop, least)
