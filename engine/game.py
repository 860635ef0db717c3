"""The one interface all games share, and the checks every action passes before a game sees it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from mypy_extensions import mypyc_attr

from mazziere.engine.cards import Card
from mazziere.engine.dealing import gather, with_entropy
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.rules import RuleProfile
from mazziere.engine.table import Action, Event, LegalAction, Outcome, Seat, TableState
from mazziere.engine.validate import check_header
from mazziere.engine.values import replace
from mazziere.engine.visibility import Viewer

S = TypeVar("S", bound=TableState)
R = TypeVar("R", bound=RuleProfile)


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled, games written in Python still subclass it
class Game(ABC, Generic[S, R]):
    """A card game. Subclasses implement the rules; :meth:`apply` does the checking.

    A game module defines one subclass and registers an instance in :mod:`engine.registry`.
    """

    id: ClassVar[str]
    """Stable identifier, e.g. ``"sette_e_mezzo"``."""
    title: ClassVar[str]
    state_type: ClassVar[type[TableState]]
    rules_type: ClassVar[type]
    presets: ClassVar[Mapping[str, Any]]
    """Named rule profiles; the first one is the default."""
    action_kinds: ClassVar[tuple[str, ...]]

    @property
    def default_preset(self) -> str:
        return next(iter(self.presets))

    # -- what a game implements ------------------------------------------------------------------

    @abstractmethod
    def start(self, rules: R, seats: Sequence[Seat], seed: bytes, table_id: str) -> Outcome:
        """A new table (seat count and chips already checked against nothing but types)."""

    @abstractmethod
    def legal_actions(self, state: S, seat: int) -> tuple[LegalAction, ...]:
        """What ``seat`` may do now; empty when it is not that seat's turn, or the game is over."""

    @abstractmethod
    def play(self, state: S, action: Action) -> Outcome:
        """Apply an action that :meth:`apply` has already found legal; return a new state value
        (never one kept elsewhere, such as a cached or module-level state: :meth:`apply` numbers it)."""

    @abstractmethod
    def view(self, state: S, viewer: Viewer) -> Any:
        """The table as a value of public facts and :class:`~engine.visibility.TableCard` s.

        The engine redacts it for ``viewer``; a game never leaves the stock or seed in it.
        """

    @abstractmethod
    def is_over(self, state: S) -> bool:
        """True when the game has ended and no action is possible."""

    def check_state(self, state: S) -> None:
        """Raise :class:`Rejected` (INVALID_STATE, ``"<path>: <what is wrong>"``) if ``state`` could not have
        been reached by legal play: the decoder calls it, so no loop or index of the game meets a bad state.

        A game overrides it (in its ``validate`` module); this default checks only the shared header.
        """
        check_header(state, self.rules_type, 1, 1 << 16)

    def house_seats(self, state: S) -> frozenset[int]:
        """Seats the rules play by themselves (CASINO's house bank): played for the operator, they never give
        entropy (docs/fairness.md). None by default."""
        return frozenset()

    def to_act(self, state: S) -> tuple[int, ...]:
        """The seats that may act now."""
        return tuple(s for s in range(state.seat_count) if self.legal_actions(state, s))

    # -- shared behaviour ------------------------------------------------------------------------

    def apply(self, state: S, action: Action, legal: tuple[LegalAction, ...] | None = None) -> Outcome:
        """Check ``action`` against the rules, then play it. Raises :class:`Rejected`; never half-applies.

        ``legal``: :meth:`legal_actions` of ``action.seat`` on ``state`` if the caller has it already."""
        seat = action.seat
        if not 0 <= seat < len(state.names):
            self._check_open(state)
            raise Rejected(Reason.INVALID_SEAT, f"seat {seat} is not at this {len(state.names)}-seat table")
        if legal is None:
            legal = self.legal_actions(state, seat)
        if not legal:
            self._check_open(state)
            waiting = ", ".join(map(str, self.to_act(state)))
            raise Rejected(Reason.NOT_YOUR_TURN, f"seat {seat} may not act now; waiting for seat {waiting}")
        chosen = _match(legal, action)
        if not chosen.min_amount <= action.amount <= chosen.max_amount:
            raise Rejected(
                Reason.STAKE_OUT_OF_RANGE,
                f"{action.kind} amount {action.amount} is outside [{chosen.min_amount}, {chosen.max_amount}]",
            )
        contributed: tuple[Event, ...] = ()
        if action.entropy and action.seat in self.house_seats(state):
            raise Rejected(
                Reason.INVALID_ENTROPY,
                f"seat {action.seat} is the house: it plays for the operator and gives no entropy; move without it",
            )
        if action.entropy:
            state, contributed = with_entropy(state, action.seat, action.entropy)
        outcome = self.play(state, action)
        if not (outcome.state.seq == state.seq + 1 and outcome.state is not state):  # not numbered by engine.step
            outcome = Outcome(replace(outcome.state, seq=state.seq + 1), outcome.events, outcome.settlement)
        ended = bool(outcome.state.packs) and self.is_over(outcome.state)  # the game over: every pack is gathered
        if contributed or ended:
            events = [*contributed, *outcome.events]
            end = gather(outcome.state, events) if ended else outcome.state
            outcome = Outcome(end, tuple(events), outcome.settlement)
        return outcome

    def _check_open(self, state: S) -> None:
        """An action on a game that is over is refused as such, before what else is wrong with it."""
        if self.is_over(state):
            raise Rejected(Reason.GAME_OVER, "the game is over; no action is possible")


def _match(legal: tuple[LegalAction, ...], action: Action) -> LegalAction:
    kind, target, cards, found = action.kind, action.target, action.cards, False
    for entry in legal:
        if entry.kind == kind:
            if _same_cards(entry.cards, cards) and entry.target == target:
                return entry
            found = True
    if found:
        raise Rejected(Reason.ILLEGAL_ACTION, f"{kind} is not allowed with these cards or target seat")
    allowed = sorted({entry.kind for entry in legal})
    raise Rejected(Reason.ILLEGAL_ACTION, f"{kind!r} is not allowed now; seat {action.seat} may: {', '.join(allowed)}")


def _same_cards(a: tuple[Card, ...], b: tuple[Card, ...]) -> bool:
    """``a == b`` without a Python comparison per card: there is one object per card, equal only to itself."""
    if a is b:
        return True
    if len(a) != len(b):
        return False
    for i in range(len(a)):  # noqa: SIM110  # a loop, not all() over a generator: as fast in the pure engine
        if a[i] is not b[i]:
            return False
    return True
