"""Counted advice for Sette e mezzo: every card a seat cannot see is enumerated, never sampled.

The unseen cards (the stock, the discards, other seats' face-down cards) are a multiset of *classes*: the matta,
and one class per rank (suits matter for nothing else; the figures are one class unless a figure's rank may be
burned). Every value below is memoised by that multiset, in one bounded table (:data:`MEMO_MAX` entries; the
hands' totals in one of their own, :data:`POINTS_MAX`).

The model (docs/bots.md, "Sette e mezzo: the model"; tests/bots/brute.py follows the same one):

* **A player** (STAKE or DECIDE) takes every arrangement of the cards he cannot see as equally likely (he reads
  nothing from the other seats' statuses), and plays on to the best expected result in chips. The players still to
  play before the bank stake the least, never burn and stand as soon as they may (with ``forced_draws`` they draw
  while they must), which changes nothing while the stock cannot run out (:func:`stand_dist`). The bank then draws
  below 5 and stands on 5 or more (the house's own rule, taken for a seat bank too); a house bank holding a lone
  matta takes exactly one card; any bank stands when no card is left.
* **The bank** (BANK) weighs standing against drawing, to its best expected result, against every standing player.
  It takes every arrangement of the cards it cannot see in which each standing player's hand is under 7½ and no
  triplé as equally likely (a busted player's face-down card may be any unseen card). With more standing players
  holding a face-down card than :data:`BANK_EXACT_ASSIGNMENTS` joint assignments allow, each such card is weighed
  on its own instead, and the advice is APPROXIMATE with :data:`BANK_APPROX_ERROR` as its bound.
* Chips as the engine pays them: a 3:2 payment rounded down, a player's loss capped by his chips, later raises
  (``raise_on_decision``) up to ``min(max_stake, chips)``. A value at stake ``f`` is ``f`` times the value at stake 1
  only where none of those bends it; the search over an amount range (:func:`corners`) relies on the value being
  convex in the amount (over the amounts of one parity where a 3:2 payment may be made): it is a maximum over ways
  of playing on, each a sum of terms ``a*f``, ``max(-k*f, -chips)`` and ``floor(3*f/2)``.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from mazziere.engine.bots.hidden import Hidden
from mazziere.engine.bots.stop import tick
from mazziere.engine.bots.values import APPROXIMATE, EXACT, ActionAdvice, Advice
from mazziere.engine.cards import Card
from mazziere.engine.games.sette_e_mezzo.judge import judge
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO, Scoring, house_stands, scoring
from mazziere.engine.games.sette_e_mezzo.rules import BurnWhen, MattaRealePays, NaturalRule, SetteEMezzoRules
from mazziere.engine.games.sette_e_mezzo.state import Phase, SetteEMezzoState, Status
from mazziere.engine.table import Action, LegalAction

MEMO_MAX = 1 << 15
"""The most values the enumeration keeps (one table for every memoised function; emptied when full)."""
POINTS_MAX = 1 << 14
"""The most hands whose total :func:`_points` keeps (least recently used first out)."""
_MEMO: dict[tuple[Any, ...], Any] = {}
F = TypeVar("F", bound=Callable[..., Any])


def memo(fn: F) -> F:
    """Memoise ``fn`` by its arguments in the shared bounded table :data:`_MEMO`; each value computed is a
    :func:`~mazziere.engine.bots.stop.tick` of the enumeration (a stopped one raises and keeps no partial value)."""
    tag = fn.__name__

    def wrapper(*args: Any) -> Any:
        key = (tag, *args)
        hit = _MEMO.get(key, _MEMO)
        if hit is not _MEMO:
            return hit
        tick()  # the caller's stop() is asked every so many values (engine/bots/stop.py)
        value = fn(*args)
        if len(_MEMO) >= MEMO_MAX:
            _MEMO.clear()
        _MEMO[key] = value
        return value

    return functools.wraps(fn)(wrapper)  # type: ignore[return-value]


MAX_DRAWS = 15
"""No hand takes more cards than this (each is worth at least ½, and 7½ stops it): with at least this many cards
left to draw per hand still to play, the stock cannot run out."""
BANK_EXACT_ASSIGNMENTS = 150
"""The bank's advice weighs the standing players' face-down cards jointly while they have at most this many
assignments (classes, one per player); beyond it, each on his own (APPROXIMATE)."""
BANK_APPROX_ERROR = 0.1
"""The bound of an APPROXIMATE bank's advice, in chips per chip staked by the standing players whose card is face
down: measured, not proven (against the joint figures, at most 0.042 over 304 random decisions with 2 to 5 such
players; tests/bots/test_exact.py checks it on its own; docs/bots.md)."""
TIE = 1e-9
"""Expected results closer than this (in chips) are equal: the first option in order is taken (docs/bots.md)."""

Pool = tuple[int, ...]
"""Unseen cards: a count per class (the classes of :class:`Table`)."""
Hand = tuple[int, ...]
"""A hand as classes: the first card, then the others sorted, except that the newest card stays last where it may
be burned (``burn_when: ANY_CARD``); their order matters to nothing else."""
Value = tuple[float, float, float, float, float]
"""In chips: (expected, win, push, lose, bust)."""
HALVES = (-6, -4, -2, 0, 2, 3, 4, 6)
"""Every result :func:`judge` gives, in halves of the stake."""
Dist = tuple[float, ...]
"""A probability per entry of :data:`HALVES`."""


class Table:
    """One rule profile compiled for enumeration, and (for a player's advice) the bank's face-up cards."""

    __slots__ = (
        "burn", "cards", "classes", "forced_up", "keep_last", "loss", "matta", "rules", "sc", "stride", "three_two",
        "up",
    )  # fmt: skip

    def __init__(self, rules: SetteEMezzoRules, bank_up: Hand) -> None:
        self.rules = rules
        self.up = bank_up
        """The bank's cards the advised player sees (CASINO: its first card)."""
        self.sc: Scoring = scoring(rules)
        reps: dict[int, Card] = {}
        for card in self.sc.pack:
            key = _class_key(self.sc, card)
            reps.setdefault(key, card)
        self.classes: tuple[int, ...] = tuple(sorted(reps))
        self.cards: tuple[Card, ...] = tuple(reps[k] for k in self.classes)
        self.matta = self.classes.index(0) if 0 in reps else -1
        self.stride = max(self.pool(self.sc.pack)) + 1  # room for every count of a class (bank_ends)
        self.burn = tuple(bool(rules.burn_ranks) and self.sc.burnable(c) for c in self.cards)
        self.keep_last = any(self.burn) and rules.burn_when is BurnWhen.ANY_CARD
        self.forced_up = -1
        if rules.forced_draws and bank_up:
            up = bank_up[0]
            self.forced_up = self.sc.matta_low if up == self.matta else self.sc.points((self.cards[up],))
        self.three_two = (
            not rules.reale_pays_double
            and rules.reale_with_matta_pays is MattaRealePays.THREE_TO_TWO
            and self.matta >= 0
        )
        """A 3:2 payment may be made (rounded down: the value of an odd stake is not proportional)."""
        doubles = rules.reale_pays_double and rules.natural_rule is not NaturalRule.ENCYCLOPEDIA
        self.loss = 3 if rules.triple else 2 if doubles else 1
        """The most stakes a player may lose at once (a loss is capped by his chips)."""

    def pool(self, cards: Sequence[Card]) -> Pool:
        counts = [0] * len(self.classes)
        for card in cards:
            counts[self.classes.index(_class_key(self.sc, card))] += 1
        return tuple(counts)

    def hand(self, cards: Sequence[Card]) -> Hand:
        raw = tuple(self.classes.index(_class_key(self.sc, c)) for c in cards)
        if len(raw) < 3:
            return raw
        if self.keep_last:
            return (raw[0], *sorted(raw[1:-1]), raw[-1])
        return (raw[0], *sorted(raw[1:]))

    def real(self, hand: Hand) -> tuple[Card, ...]:
        return tuple(self.cards[i] for i in hand)

    def add(self, hand: Hand, i: int) -> Hand:
        """``hand`` and a new card of class ``i``."""
        if not hand:
            return (i,)
        if self.keep_last:
            return (hand[0], *sorted(hand[1:]), i) if len(hand) > 1 else (hand[0], i)
        return (hand[0], *sorted((*hand[1:], i)))


def _class_key(sc: Scoring, card: Card) -> int:
    """The matta 0, figures 8 (one class: they differ in nothing unless a figure's rank may be burned), else rank."""
    if card == sc.matta:
        return 0
    if card.is_figure and not any(r >= 8 for r in sc.burn_ranks):
        return 8
    return card.rank


_TABLES: dict[tuple[int, Hand], tuple[SetteEMezzoRules, Table]] = {}


def table(rules: SetteEMezzoRules, bank_up: Hand = ()) -> Table:
    """The compiled :class:`Table` of ``rules`` (kept by identity, at most 256)."""
    key = (id(rules), bank_up)
    hit = _TABLES.get(key)
    if hit is not None and hit[0] is rules:
        return hit[1]
    if len(_TABLES) >= 256:
        _TABLES.clear()
    t = Table(rules, bank_up)
    _TABLES[key] = (rules, t)
    return t


def _take(pool: Pool, i: int) -> Pool:
    return (*pool[:i], pool[i] - 1, *pool[i + 1 :])


def _sorted_add(hand: Hand, i: int) -> Hand:
    """A bank's hand and a new card (the bank never burns: its cards after the first stay sorted)."""
    return (hand[0], *sorted((*hand[1:], i))) if hand else (i,)


@functools.lru_cache(maxsize=POINTS_MAX)
def _points(t: Table, hand: Hand) -> tuple[int, bool]:
    """The hand's total and whether it is a triplé (kept in a table of their own: they are many and cheap)."""
    cards = t.real(hand)
    return t.sc.points(cards), t.sc.is_triple(cards)


def pay(stake: int, halves: int, chips: int | None) -> int:
    """The chips a player receives (negative: pays) for a result of ``halves`` on ``stake``, as the engine pays:
    rounded down, a loss at most his ``chips`` (None: no cap)."""
    if halves >= 0:
        return stake * halves // 2
    loss = stake * -halves // 2
    return -loss if chips is None else -min(loss, chips)


# -- the bank's play, as a player sees it ---------------------------------------------------------------------------

BankEnd = tuple[int, bool, Hand]
"""(total, bust, a hand that ends so): the hand stands for its reale and triplé in :func:`judge`."""


@memo
def bank_terms(t: Table, bank: Hand) -> tuple[tuple[BankEnd, tuple[tuple[int, int, tuple[int, ...]], ...]], ...]:
    """Every way the bank's play may go from its known cards ``bank``, grouped by how it ends: per end, its terms
    (orders of drawing that end so, cards drawn, and per class drawn the index ``class * stride + count`` into
    the falling factorials of :func:`bank_ends`). The probability of a term depends on the unseen cards only through
    the counts of the classes drawn, so this is enumerated once per bank start."""
    limit = t.pool(t.sc.pack)
    groups: dict[BankEnd, dict[tuple[int, ...], int]] = {}

    def walk(hand: Hand, drawn: tuple[int, ...]) -> None:
        end = _bank_end(t, hand)
        if end is not None:
            terms = groups.setdefault(end, {})
            key = tuple(sorted(drawn))
            terms[key] = terms.get(key, 0) + 1
            return
        for i, n in enumerate(limit):
            if drawn.count(i) + bank.count(i) < n:
                walk(_sorted_add(hand, i), (*drawn, i))

    walk(bank, ())
    out = []
    for end, terms in groups.items():
        rows = []
        for drawn, orders in terms.items():
            indexes = tuple(c * t.stride + drawn.count(c) for c in sorted(set(drawn)))
            rows.append((orders, len(drawn), indexes))
        out.append((end, tuple(rows)))
    return tuple(out)


def _bank_end(t: Table, bank: Hand) -> BankEnd | None:
    """How the bank's hand ends if it stops here by the house's rule, or None while it draws on."""
    if not bank:
        return None
    pts, triple = _points(t, bank)
    lone_matta = bank[0] == t.matta and t.rules.house_bank
    if pts >= SETTE_E_MEZZO or triple or house_stands(pts, len(bank), lone_matta):
        return end_of(t, bank)
    return None


def end_of(t: Table, bank: Hand) -> BankEnd:
    """The end of a bank that stops on ``bank``: a bust, or its total and canonical shape (SM-22: a triplé of two
    sevens is no bust)."""
    pts, triple = _points(t, bank)
    if pts > SETTE_E_MEZZO and not triple:
        return (SETTE_E_MEZZO + 1, True, ())
    return (pts, False, bank if len(bank) == 2 and (pts == SETTE_E_MEZZO or triple) else ())


def _fast_bank_ends(t: Table, bank: Hand, pool: Pool) -> list[tuple[BankEnd, float]]:
    """Every way the bank's hand may end, with its probability, drawing from ``pool`` (never running out)."""
    total = sum(pool)
    falling = [1.0]
    for j in range(MAX_DRAWS + 1):
        falling.append(falling[-1] * (total - j))
    stride = t.stride
    ways = [0.0] * (len(pool) * stride)  # ways[c * stride + m]: ordered draws of m cards of class c
    for c, n in enumerate(pool):
        w = ways[c * stride] = 1.0
        for j in range(n):
            w *= n - j
            ways[c * stride + j + 1] = w
    out = []
    for end, rows in bank_terms(t, bank):
        q = 0.0
        for orders, k, indexes in rows:
            p = float(orders)
            for i in indexes:
                p *= ways[i]
            if p:
                q += p / falling[k]
        if q:
            out.append((end, q))
    return out


def _bank_ends(t: Table, bank: Hand, pool: Pool, drawable: int) -> dict[BankEnd, float]:
    """The bank's ends from ``bank`` with ``drawable`` cards left to draw (a bank with none stands)."""
    if drawable >= MAX_DRAWS:
        return dict(_fast_bank_ends(t, bank, pool))
    out: dict[BankEnd, float] = {}

    def walk(hand: Hand, pool: Pool, drawable: int, q: float) -> None:
        end = _bank_end(t, hand)
        if end is None and hand and not drawable:
            end = end_of(t, hand)
        if end is not None:
            out[end] = out.get(end, 0.0) + q
            return
        total = sum(pool)
        for i, n in enumerate(pool):
            if n:
                walk(_sorted_add(hand, i), _take(pool, i), drawable - bool(hand), q * n / total)

    walk(bank, pool, drawable, 1.0)
    return out


@memo
def bank_dist(t: Table, pool: Pool, drawable: int, later: int) -> tuple[tuple[BankEnd, float], ...]:
    """How the bank's hand ends (from ``t.up``, the cards of it the player sees; none: its face-down card is one of
    the unseen cards) once the ``later`` players still to play have drawn what ``forced_draws`` makes them draw:
    ``pool`` every unseen card, ``drawable`` how many of them the stock and the discards hold."""
    if not later:
        return tuple(_bank_ends(t, t.up, pool, drawable).items())
    out: dict[BankEnd, float] = {}
    for (rest, left), q in _forced_play(t, (), pool, drawable).items():
        for end, p in bank_dist(t, rest, left, later - 1):
            out[end] = out.get(end, 0.0) + q * p
    return tuple(out.items())


def _forced_play(t: Table, hand: Hand, pool: Pool, drawable: int) -> dict[tuple[Pool, int], float]:
    """A later player's turn by the model: his face-down card, then a card while he must draw (below the bank's up
    card, or a lone matta); the unseen cards left after it (and how many are drawable), with their probability."""
    total = sum(pool)
    out: dict[tuple[Pool, int], float] = {}
    if hand:
        pts, triple = _points(t, hand)
        must = (len(hand) == 1 and hand[0] == t.matta) or pts < t.forced_up
        if pts >= SETTE_E_MEZZO or triple or not must or not drawable:
            return {(pool, drawable): 1.0}
    for i, n in enumerate(pool):
        if n:
            after = _forced_play(t, t.add(hand, i), _take(pool, i), drawable - bool(hand))
            for key, q in after.items():
                out[key] = out.get(key, 0.0) + q * n / total
    return out


def _pay(t: Table, player: Hand, p_pts: int, end: BankEnd) -> int:
    b_pts, bust, bank = end
    return judge(t.rules, t.sc, t.real(player), p_pts, t.real(bank), b_pts, bust)


# -- a player's play ------------------------------------------------------------------------------------------------


def stand_dist(t: Table, hand: Hand, pool: Pool, held: int, later: int) -> Dist:
    """Standing on ``hand``: the probability of each result in :data:`HALVES`, once the later players and the bank
    have played from ``pool`` (``held`` of its cards lie in hands)."""
    drawable = sum(pool) - held
    if drawable >= most_drawn(t, pool, later + 1):
        # The stock cannot run out. Then what the later players draw changes nothing for the bank: a play that
        # stops on its own cards' rule takes the first cards of an exchangeable order, and the bank's own draws are
        # as likely to be those as the ones after (docs/bots.md).
        later, drawable = 0, MAX_DRAWS
    return _stand_dist(t, hand, pool, drawable, later)


def most_drawn(t: Table, pool: Pool, hands: int) -> int:
    """The most cards ``hands`` hands may yet take from ``pool``: each stops once over 7, so all but its last card
    are worth less than 7½ together (at least ½ each; the matta its lowest, an ace ½ where it may count so)."""
    low = 1 if t.rules.ace_half_first else 2
    worth = sorted(
        w
        for i, n in enumerate(pool)
        for w in [t.sc.matta_low if i == t.matta else low if t.classes[i] == 1 else max(1, 2 * t.classes[i])] * n
    )
    room, k = SETTE_E_MEZZO * hands - 1, 0
    for w in worth:
        if w > room:
            break
        room -= w
        k += 1
    return min(k + hands, MAX_DRAWS * hands)


@memo
def _stand_dist(t: Table, hand: Hand, pool: Pool, drawable: int, later: int) -> Dist:
    pts = _points(t, hand)[0]
    probs = [0.0] * len(HALVES)
    for end, q in bank_dist(t, pool, drawable, later):
        probs[HALVES.index(_pay(t, hand, pts, end))] += q
    return tuple(probs)


def stand_value(dist: Dist, stake: int, chips: int | None) -> Value:
    ev = win = push = lose = 0.0
    for h, q in zip(HALVES, dist, strict=True):
        if q:
            ev += q * pay(stake, h, chips)
            if h > 0:
                win += q
            elif h < 0:
                lose += q
            else:
                push += q
    return (ev, win, push, lose, 0.0)


def _mix(parts: Sequence[tuple[float, Value]]) -> Value:
    ev = win = push = lose = bust = 0.0
    for q, v in parts:
        ev += q * v[0]
        win += q * v[1]
        push += q * v[2]
        lose += q * v[3]
        bust += q * v[4]
    return (ev, win, push, lose, bust)


def best(options: Sequence[Value]) -> Value:
    """The option of the highest expected result; within :data:`TIE` of it, the first in order."""
    top = max(v[0] for v in options)
    return next(v for v in options if v[0] >= top - TIE)


class Turn:
    """What a player's enumeration holds fixed: the table, how many unseen cards lie in hands (``held``), how many
    later players must draw (``later``), his chips (None where no loss can reach them) and the largest stake a raise
    may reach (``top``; 0: no raises)."""

    __slots__ = ("chips", "held", "later", "t", "top")

    def __init__(self, t: Table, held: int, later: int, chips: int | None, top: int) -> None:
        self.t, self.held, self.later, self.chips, self.top = t, held, later, chips, top

    def at(self, chips: int, stake: int) -> Turn:
        """This turn for a stake of ``stake``: his chips count only where a loss may reach them."""
        t = self.t
        top = min(t.rules.max_stake, chips) if t.rules.raise_on_decision else 0
        reach = (top or stake) * t.loss > chips
        return Turn(t, self.held, self.later, chips if reach else None, top)

    def stand(self, hand: Hand, pool: Pool, stake: int) -> Value:
        return stand_value(stand_dist(self.t, hand, pool, self.held, self.later), stake, self.chips)


def decide(turn: Turn, hand: Hand, pool: Pool, burned: int, stake: int) -> Value:
    """The best of the player's choices at a decision, in chips, his stake being ``stake`` (SM-8..SM-11, SM-20)."""
    return _scaled(_decide, turn, hand, pool, burned, stake)


def hit(turn: Turn, hand: Hand, pool: Pool, burned: int, stake: int) -> Value:
    """A card from the unseen cards (``stake``: the stake after a raise)."""
    return _scaled(_hit, turn, hand, pool, burned, stake)


def _scaled(fn: Callable[..., Value], turn: Turn, hand: Hand, pool: Pool, burned: int, stake: int) -> Value:
    """``fn`` at ``stake``: computed at stake 1 (or 2, where a 3:2 payment rounds) and scaled where that is exact."""
    t = turn.t
    if turn.top or turn.chips is not None or (t.three_two and stake % 2):
        return fn(t, turn.held, turn.later, turn.chips, turn.top, hand, pool, burned, stake)
    base = 2 if t.three_two else 1
    v = fn(t, turn.held, turn.later, None, 0, hand, pool, burned, base)
    return v if stake == base else (v[0] * stake / base, *v[1:])


@memo
def _decide(
    t: Table, held: int, later: int, chips: int | None, top: int, hand: Hand, pool: Pool, burned: int, stake: int
) -> Value:
    turn = Turn(t, held, later, chips, top)
    may_hit, may_stand, may_burn = choices(t, hand, pool, held, burned)
    steps = [stake]
    if top:  # SM-8 raise_on_decision: the best stake to raise to is one of these (convexity, module docstring)
        steps = sorted(
            {f for f in (stake, stake + 1, top - 1, top) if stake <= f <= top and (t.three_two or f in (stake, top))}
        )
    options = [hit(turn, hand, pool, burned, f) for f in steps] if may_hit else []  # in legal order (ties)
    if may_stand:
        options += [turn.stand(hand, pool, f) for f in steps]
    if may_burn:
        options.append(burn(turn, hand, pool, burned, stake))
    return best(options)


def after_card(turn: Turn, hand: Hand, pool: Pool, burned: int, stake: int) -> Value:
    """A card was just received: 7½ or a triplé stands, over 7½ busts, otherwise the player plays on."""
    pts, triple = _points(turn.t, hand)
    if pts == SETTE_E_MEZZO or triple:
        return turn.stand(hand, pool, stake)
    if pts > SETTE_E_MEZZO:
        return (-float(stake), 0.0, 0.0, 1.0, 1.0)
    return decide(turn, hand, pool, burned, stake)


@memo
def _hit(
    t: Table, held: int, later: int, chips: int | None, top: int, hand: Hand, pool: Pool, burned: int, stake: int
) -> Value:
    turn = Turn(t, held, later, chips, top)
    total = sum(pool)
    add = t.add
    return _mix(
        [(n / total, after_card(turn, add(hand, i), _take(pool, i), burned, stake)) for i, n in enumerate(pool) if n]
    )


def burn(turn: Turn, hand: Hand, pool: Pool, burned: int, stake: int) -> Value:
    """SM-20 at a decision: the newest card is shown and replaced from the unseen cards."""
    total = sum(pool)
    parts = [
        (n / total, after_card(turn, (*hand[:-1], i), _take(pool, i), burned + 1, stake))
        for i, n in enumerate(pool)
        if n
    ]
    return _mix(parts)


def choices(t: Table, hand: Hand, pool: Pool, held: int, burned: int) -> tuple[bool, bool, bool]:
    """(may hit, may stand, may burn) at a decision, as the engine's legal actions say."""
    can = sum(pool) > held
    must = False
    if can and t.forced_up >= 0:
        must = (len(hand) == 1 and hand[0] == t.matta) or _points(t, hand)[0] < t.forced_up
    return can, not must, can and _may_burn(t, hand, burned)


def _may_burn(t: Table, hand: Hand, burned: int) -> bool:
    """SM-20: the newest card has a burn rank, within the limit (``FIRST_CARD``: a lone first card)."""
    rules = t.rules
    return (
        t.burn[hand[-1]]
        and not (rules.burn_limit and burned >= rules.burn_limit)
        and not (rules.burn_when is BurnWhen.FIRST_CARD and len(hand) != 1)
    )


def staked(turn: Turn, chips: int, hand: Hand, pool: Pool, burned: int) -> Value:
    """The STAKE phase: the best stake (one of the ends of each parity's amounts: convexity), or a burn."""
    t = turn.t
    lo, high = t.rules.min_stake, min(t.rules.max_stake, chips)
    ends = sorted({f for f in (lo, lo + 1, high - 1, high) if lo <= f <= high and (t.three_two or f in (lo, high))})
    options = [decide(turn.at(chips, f), hand, pool, burned, f) for f in ends]
    if sum(pool) > turn.held and _may_burn(t, hand, burned):
        options.append(burn_then_stake(turn, chips, hand, pool, burned))
    return best(options)


def burn_then_stake(turn: Turn, chips: int, hand: Hand, pool: Pool, burned: int) -> Value:
    """SM-20 before the stake: a new first card, face down, then the best stake (or another burn)."""
    total = sum(pool)
    return _mix([(n / total, staked(turn, chips, (i,), _take(pool, i), burned + 1)) for i, n in enumerate(pool) if n])


# -- the amounts of a range -----------------------------------------------------------------------------------------


def corners(g: Callable[[int], float], lo: int, hi: int, step: int) -> list[int]:
    """The amounts ``lo, lo + step, .. <= hi`` at which ``g`` (convex over them) changes slope, with both ends:
    between two of them ``g`` is a straight line. Found by cutting where the end slopes' lines meet."""
    n = (hi - lo) // step + 1
    known: dict[int, float] = {}

    def val(i: int) -> float:
        if i not in known:
            known[i] = g(lo + i * step)
        return known[i]

    bends = {0, n - 1}
    runs: list[tuple[int, int]] = []

    def split(i: int, j: int) -> None:
        if j - i < 2:
            runs.append((i, j))
            return
        left, right = val(i + 1) - val(i), val(j) - val(j - 1)
        if right - left <= TIE * (1 + abs(left) + abs(right)):
            runs.append((i, j))
            return
        x = (val(j) - val(i) - right * j + left * i) / (left - right)
        m = min(max(math.floor(x), i + 1), j - 1)
        split(i, m)
        split(m, j)

    if n > 1:
        split(0, n - 1)
    runs.sort()
    for (a, b), (c, d) in itertools.pairwise(runs):
        if b == c and abs((val(b) - val(a)) / (b - a) - (val(d) - val(c)) / (d - c)) > TIE:
            bends.add(b)
    return sorted(lo + i * step for i in bends)


def amounts(g: Callable[[int], float], lo: int, hi: int, parity: bool) -> list[int]:
    """The amounts of ``lo..hi`` to advise on: :func:`corners`, apart for odd and even amounts when ``parity``."""
    if lo == hi:
        return [lo]
    if not parity:
        return corners(g, lo, hi, 1)
    out = corners(g, lo, hi - (hi - lo) % 2, 2) + corners(g, lo + 1, hi - (hi - lo - 1) % 2, 2)
    return sorted(set(out))


# -- advice ---------------------------------------------------------------------------------------------------------


def advise(state: Any, seat: int, entries: Sequence[LegalAction]) -> Advice | None:
    """Exact advice for a player's stake or decision, or the bank's; None for anything else (DEAL). An amount
    range is advised at the amounts of :func:`amounts`."""
    s: SetteEMezzoState = state
    if s.phase is Phase.BANK:
        return _bank_advice(s, seat, entries)
    if s.phase not in (Phase.STAKE, Phase.DECIDE):
        return None
    rules = s.rules
    bank_cards = [tc.card for tc in s.hands[s.bank].cards if tc.card is not None and tc.seen_by.admits(seat)]
    t = table(rules, table(rules).hand(bank_cards))
    hidden = Hidden(s, seat)
    pool = t.pool(hidden.cards)
    h = s.hands[seat]
    hand = t.hand([tc.card for tc in h.cards])  # type: ignore[misc]  # a seat sees its own cards
    burned = len(h.burned)
    chips = s.chips[seat]
    later = sum(1 for o, oh in enumerate(s.hands) if o != seat and oh.status is Status.WAITING)
    turn = Turn(t, hidden.owned, later if rules.forced_draws else 0, None, 0)
    staking = s.phase is Phase.STAKE
    out: list[ActionAdvice] = []
    for e in entries:
        if e.kind == "BURN":
            now = turn.at(chips, h.stake)
            v = burn_then_stake(turn, chips, hand, pool, burned) if staking else burn(now, hand, pool, burned, h.stake)
            out.append(_entry(e.example(seat), v))
            continue
        value = _Amounts(turn, chips, hand, pool, burned, None if staking else (e.kind, h.stake))
        proportional = staking and not (rules.raise_on_decision or t.three_two or e.max_amount * t.loss > chips)
        listed = (
            (e.min_amount, e.max_amount)
            if proportional
            else amounts(value.expected, e.min_amount, e.max_amount, t.three_two)
        )
        for amount in sorted(set(listed)):
            out.append(_entry(Action(seat, e.kind, amount, e.target, e.cards), value(amount)))
    return Advice(seat, EXACT, 0, tuple(out))


class _Amounts:
    """The value of an amount of one legal entry: a stake of it (``then`` None), or a raise by it of the stake with
    ``then = (kind, stake)`` (HIT, HIT_HIDDEN or STAND)."""

    def __init__(
        self, turn: Turn, chips: int, hand: Hand, pool: Pool, burned: int, then: tuple[str, int] | None
    ) -> None:
        self.turn, self.chips, self.hand, self.pool, self.burned, self.then = turn, chips, hand, pool, burned, then
        self.known: dict[int, Value] = {}

    def __call__(self, amount: int) -> Value:
        if amount not in self.known:
            turn, hand, pool = self.turn, self.hand, self.pool
            if self.then is None:
                v = decide(turn.at(self.chips, amount), hand, pool, self.burned, amount)
            else:
                kind, stake = self.then
                now, f = turn.at(self.chips, stake), stake + amount
                v = now.stand(hand, pool, f) if kind == "STAND" else hit(now, hand, pool, self.burned, f)
            self.known[amount] = v
        return self.known[amount]

    def expected(self, amount: int) -> float:
        return self(amount)[0]


def _entry(action: Action, v: Value, basis: str = EXACT, bound: float = 0.0) -> ActionAdvice:
    return ActionAdvice(action, v[0], v[1], v[2], v[3], v[4], 0.0, basis, bound)


# -- the bank's decision --------------------------------------------------------------------------------------------

Player = tuple[int, int | None, tuple[int, ...], int]
"""A standing player as the bank sees him: (stake, chips where a loss may reach them, his cards as classes with -1
for the face-down one, the index of that card or -1)."""
Outcome = tuple[tuple[tuple[int, float], ...], float]
"""The bank's chip result: (amount, probability) pairs, and the probability that it busts."""


def _bank_advice(s: SetteEMezzoState, seat: int, entries: Sequence[LegalAction]) -> Advice:
    t = table(s.rules)
    hidden = Hidden(s, seat)
    pool = t.pool(hidden.cards)
    bank = t.hand([tc.card for tc in s.hands[seat].cards])  # type: ignore[misc]
    bank = (bank[0], *sorted(bank[1:]))
    players: list[Player] = []
    at_risk = 0
    for p, h in enumerate(s.hands):
        if p == seat or h.status not in (Status.STOOD, Status.SETTE_E_MEZZO):
            continue
        seen = [tc.card if tc.card is not None and tc.seen_by.admits(seat) else None for tc in h.cards]
        down = next((i for i, c in enumerate(seen) if c is None), -1)
        classes = tuple(-1 if c is None else t.hand([c])[0] for c in seen)
        reach = h.stake * t.loss > s.chips[p]
        players.append((h.stake, s.chips[p] if reach else None, classes, down))
        at_risk += h.stake if down >= 0 else 0
    key = tuple(players)
    fits = [_fits(t, p, pool) for p in key]
    joint = math.prod(len(f) for f in fits if f) <= BANK_EXACT_ASSIGNMENTS
    value = _bank_value if joint else _bank_value_approx
    out = []
    for e in entries:
        hit_it = e.kind == "HIT"
        v = value(t, key, hidden.owned, bank, pool, hit_it)
        basis, bound = (EXACT, 0.0) if joint else (APPROXIMATE, BANK_APPROX_ERROR * at_risk)
        out.append(_entry(e.example(seat), _from_outcome(v), basis, bound))
    return Advice(seat, EXACT, 0, tuple(out))


def _from_outcome(o: Outcome) -> Value:
    pairs, bust = o
    ev = sum(x * q for x, q in pairs)
    win = sum(q for x, q in pairs if x > 0)
    lose = sum(q for x, q in pairs if x < 0)
    return (ev, win, max(0.0, 1.0 - win - lose), lose, bust)


def _fits(t: Table, player: Player, pool: Pool) -> tuple[int, ...]:
    """The classes the face-down card of a standing player may be: his hand is under 7½ and no triplé (a player
    at 7½ shows every card); () for a player whose cards the bank sees."""
    return tuple(c for c in _fitting(t, player) if pool[c])


@memo
def _fitting(t: Table, player: Player) -> tuple[int, ...]:
    _, _, classes, down = player
    if down < 0:
        return ()
    out = []
    for i in range(len(t.classes)):
        pts, triple = _points(t, (*classes[:down], i, *classes[down + 1 :]))
        if pts < SETTE_E_MEZZO and not triple:
            out.append(i)
    return tuple(out)


def _owes(t: Table, player: Player, card: int, end: BankEnd) -> int:
    """What ``player`` pays the bank (negative: the bank pays him) if his face-down card is of class ``card``."""
    stake, chips, classes, down = player
    hand = classes if down < 0 else (*classes[:down], card, *classes[down + 1 :])
    return -pay(stake, _pay(t, hand, _points(t, hand)[0], end), chips)


@memo
def _assignments(t: Table, players: tuple[Player, ...], pool: Pool) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every assignment of classes to the standing players' face-down cards that agrees with their statuses, with
    its probability: in proportion to the number of ways to deal it from ``pool`` (the product over classes of
    falling factorials)."""
    fits = [_fits(t, p, pool) or (-1,) for p in players]
    out = []
    for combo in itertools.product(*fits):
        w = 1.0
        used: dict[int, int] = {}
        for c in combo:
            if c >= 0:
                w *= pool[c] - used.get(c, 0)
                used[c] = used.get(c, 0) + 1
        if w > 0:
            out.append((combo, w))
    total = sum(w for _, w in out)
    return tuple((combo, w / total) for combo, w in out)


@memo
def _free(t: Table, players: tuple[Player, ...], pool: Pool) -> tuple[float, ...]:
    """Per class, the expected number of unseen cards of it not in a standing player's hand."""
    free = [float(n) for n in pool]
    for combo, q in _assignments(t, players, pool):
        for c in combo:
            if c >= 0:
                free[c] -= q
    return tuple(free)


@memo
def _bank_stand(t: Table, players: tuple[Player, ...], end: BankEnd, pool: Pool) -> Outcome:
    """The bank stops with ``end``: what the standing players pay it, over the assignments of their cards."""
    owes = [{c: _owes(t, p, c, end) for c in _fits(t, p, pool) or (-1,)} for p in players]
    dist: dict[int, float] = {}
    for combo, q in _assignments(t, players, pool):
        amount = sum(o[c] for o, c in zip(owes, combo, strict=True))
        dist[amount] = dist.get(amount, 0.0) + q
    return tuple(dist.items()), float(end[1])


@memo
def _bank_value(t: Table, players: tuple[Player, ...], held: int, bank: Hand, pool: Pool, hit_it: bool) -> Outcome:
    """The bank's result standing, or drawing (``hit_it``) and then playing on to its best expected result; each
    card drawn is one of the unseen cards not in a player's hand (the weights of :func:`_assignments`)."""
    if not hit_it:
        return _bank_stand(t, players, end_of(t, bank), pool)
    free = _free(t, players, pool)
    total = sum(free)
    parts = []
    for i, n in enumerate(free):
        if n > 1e-12:
            new, rest = _sorted_add(bank, i), _take(pool, i)
            pts, triple = _points(t, new)
            if pts >= SETTE_E_MEZZO or triple or sum(rest) <= held:
                o = _bank_stand(t, players, end_of(t, new), rest)
            else:
                o = _bank_best(t, players, held, new, rest)
            parts.append((n / total, o))
    return _mix_outcomes(parts)


def _bank_best(t: Table, players: tuple[Player, ...], held: int, bank: Hand, pool: Pool) -> Outcome:
    options = (_bank_value(t, players, held, bank, pool, True), _bank_value(t, players, held, bank, pool, False))
    evs = [sum(x * q for x, q in o[0]) for o in options]
    return options[0] if evs[0] >= max(evs) - TIE else options[1]  # ties: HIT, first in legal order


def _mix_outcomes(parts: Sequence[tuple[float, Outcome]]) -> Outcome:
    acc: dict[int, float] = {}
    bust = 0.0
    for q, (pairs, b) in parts:
        bust += q * b
        for x, p in pairs:
            acc[x] = acc.get(x, 0.0) + q * p
    return tuple(acc.items()), bust


@memo
def _bank_value_approx(
    t: Table, players: tuple[Player, ...], held: int, bank: Hand, pool: Pool, hit_it: bool
) -> Outcome:
    """:func:`_bank_value` with each face-down card weighed on its own (any unseen card that fits his status),
    and the bank's draws from every unseen card not expected in a hand."""
    if not hit_it:
        end = end_of(t, bank)
        acc: dict[int, float] = {0: 1.0}
        for p in players:
            fits = _fits(t, p, pool) or (-1,)
            weight = sum(pool[c] if c >= 0 else 1 for c in fits)
            nxt: dict[int, float] = {}
            for c in fits:
                q = (pool[c] if c >= 0 else 1) / weight
                y = _owes(t, p, c, end)
                for x, r in acc.items():
                    nxt[x + y] = nxt.get(x + y, 0.0) + r * q
            acc = nxt
        return tuple(acc.items()), float(end[1])
    free = [float(n) for n in pool]
    for p in players:
        fits = _fits(t, p, pool)
        weight = sum(pool[c] for c in fits)
        for c in fits:
            free[c] -= pool[c] / weight
    free = [max(n, 0.0) for n in free]
    total = sum(free)
    parts = []
    for i, n in enumerate(free):
        if n > 0:
            new, rest = _sorted_add(bank, i), _take(pool, i)
            pts, triple = _points(t, new)
            stand = _bank_value_approx(t, players, held, new, rest, False)
            if pts >= SETTE_E_MEZZO or triple or sum(rest) <= held:
                o = stand
            else:
                drawn = _bank_value_approx(t, players, held, new, rest, True)
                evs = [sum(x * q for x, q in o[0]) for o in (drawn, stand)]
                o = drawn if evs[0] >= evs[1] - TIE else stand
            parts.append((n / total, o))
    return _mix_outcomes(parts)


# -- the return to player -------------------------------------------------------------------------------------------


def casino_rtp(rules: SetteEMezzoRules) -> float:
    """The return to player of optimal play, heads-up against a house bank whose first card is face up, over a
    fresh shuffle, computed exactly: 1 + the expected result per chip of a flat stake of 2 (a 3:2 payment of an even
    stake is not rounded)."""
    t0 = table(rules)
    full = t0.pool(t0.sc.pack)
    total = sum(full)
    ev = 0.0
    for p, n_p in enumerate(full):
        if not n_p:
            continue
        after_p = _take(full, p)
        for b, n_b in enumerate(after_p):
            if not n_b:
                continue
            t = table(rules, (b,))
            pool = _take(after_p, b)
            q = n_p / total * n_b / (total - 1)
            ev += q * decide(Turn(t, 0, 0, None, 0), (p,), pool, 0, 2)[0] / 2
    return 1.0 + ev


def rtp_profiles() -> dict[str, dict[str, Any]]:
    """The CASINO option sets whose return docs/rules/sette-e-mezzo.md publishes (overrides of CASINO)."""
    return {
        "CASINO": {},
        "CASINO five_tie_loses, reale_with_matta_pays=THREE_TO_TWO": {
            "five_tie_loses": True,
            "reale_with_matta_pays": "THREE_TO_TWO",
        },
    }


EXACT_RTP = {
    "CASINO": 0.9982738284987394,
    "CASINO five_tie_loses, reale_with_matta_pays=THREE_TO_TWO": 0.9928520961959545,
}
""":func:`casino_rtp` of :func:`rtp_profiles`, as ``mazziere rtp`` prints it and docs/rules/sette-e-mezzo.md
publishes it (tests/bots/test_matches.py checks all three agree)."""
