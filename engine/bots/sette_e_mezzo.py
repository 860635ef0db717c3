"""Exact advice for Sette e mezzo: every card a seat cannot see is enumerated, never sampled.

The unseen cards (the stock, the discards, other seats' face-down cards) are a multiset of *classes*: the matta,
and one class per rank (suits matter for nothing else). Every value below is memoised by that multiset, in one bounded
table (:data:`MEMO_MAX` entries).

The model:

* **A player** (STAKE or DECIDE) plays on optimally against the bank, whose face-down card and draws come from the
  unseen cards; the bank draws below 5 and stands on 5 or more (the house's rule, also used for a seat bank), and a
  house bank holding a lone matta takes exactly one card. Exact heads-up, or for the last player before the bank;
  players still to play in between are taken to draw nothing.
* **The bank** (BANK) weighs standing against drawing, optimally, against every standing player; a player's
  face-down card is any unseen card that agrees with his status (a standing player is under 7½), each player
  independently.
* A stake's result is linear in the amount (``ActionAdvice`` gives the smallest and the largest amount); a burn
  is followed by the best stake (STAKE) or play (DECIDE).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from mazziere.engine.bots.hidden import Hidden
from mazziere.engine.bots.stop import tick
from mazziere.engine.bots.values import EXACT, ActionAdvice, Advice
from mazziere.engine.cards import Card
from mazziere.engine.games.sette_e_mezzo.judge import judge
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO, Scoring, scoring
from mazziere.engine.games.sette_e_mezzo.rules import BurnWhen, SetteEMezzoRules
from mazziere.engine.games.sette_e_mezzo.state import Phase, SetteEMezzoState, Status
from mazziere.engine.table import Action

MEMO_MAX = 1 << 15
"""The most values the enumeration keeps (one table for every memoised function; emptied when full)."""
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


HOUSE_STANDS = 10
"""The bank draws below 5 (10 halves) and stands on 5 or more."""

Pool = tuple[int, ...]
"""Unseen cards: a count per class (the classes of :class:`Table`)."""
Hand = tuple[int, ...]
"""A hand as classes: the first card, then the others sorted (their order matters to nothing else)."""
Value = tuple[float, float, float, float, float]
"""Per unit staked: (expected, win, push, lose, bust)."""

_LOSE_BUST: Value = (-1.0, 0.0, 0.0, 1.0, 1.0)


class Table:
    """One rule profile compiled for enumeration, and (for a player's advice) the bank's face-up cards."""

    __slots__ = ("burn", "cards", "classes", "forced_up", "matta", "rules", "sc", "stride")

    def __init__(self, rules: SetteEMezzoRules, bank_up: Hand) -> None:
        self.rules = rules
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
        self.forced_up = -1
        if rules.forced_draws and bank_up:
            up = bank_up[0]
            self.forced_up = self.sc.matta_low if up == self.matta else self.sc.points((self.cards[up],))

    def pool(self, cards: Sequence[Card]) -> Pool:
        counts = [0] * len(self.classes)
        for card in cards:
            counts[self.classes.index(_class_key(self.sc, card))] += 1
        return tuple(counts)

    def hand(self, cards: Sequence[Card]) -> Hand:
        return tuple(self.classes.index(_class_key(self.sc, c)) for c in cards)

    def real(self, hand: Hand) -> tuple[Card, ...]:
        return tuple(self.cards[i] for i in hand)


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


def _add(hand: Hand, i: int) -> Hand:
    return (hand[0], *sorted((*hand[1:], i))) if hand else (i,)


@memo
def _points(t: Table, hand: Hand) -> tuple[int, bool]:
    """The hand's total and whether it is a triplé."""
    cards = t.real(hand)
    return t.sc.points(cards), t.sc.is_triple(cards)


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
                walk(_add(hand, i) if hand else (i,), (*drawn, i))

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
    """How the bank's hand ends if it stops here, or None while it draws on."""
    if not bank:
        return None
    pts, triple = _points(t, bank)
    lone_matta = bank[0] == t.matta and t.rules.house_bank
    if pts >= SETTE_E_MEZZO or triple or (pts >= HOUSE_STANDS and not lone_matta) or (lone_matta and len(bank) > 1):
        return _end(t, bank, pts)
    return None


def _end(t: Table, bank: Hand, pts: int) -> BankEnd:
    """The end of a bank that stops on ``bank`` (worth ``pts``): a bust, or its total and canonical shape."""
    if pts > SETTE_E_MEZZO:
        return (SETTE_E_MEZZO + 1, True, ())
    return (pts, False, _shape(t, bank, pts))


def bank_ends(t: Table, bank: Hand, pool: Pool) -> list[tuple[BankEnd, float]]:
    """Every way the bank's hand may end, with its probability, drawing from ``pool``."""
    total = sum(pool)
    falling = [1.0]
    for j in range(12):
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


def _shape(t: Table, hand: Hand, pts: int) -> Hand:
    """A canonical hand standing for ``hand`` in :func:`judge` (which looks at its total, reale and triplé)."""
    return hand if len(hand) == 2 and (pts == SETTE_E_MEZZO or _points(t, hand)[1]) else ()


@memo
def _pay(t: Table, player: Hand, p_pts: int, end: BankEnd) -> int:
    b_pts, bust, bank = end
    return judge(t.rules, t.sc, t.real(player), p_pts, t.real(bank), b_pts, bust)


# -- a player's play ------------------------------------------------------------------------------------------------


@memo
def stand(t: Table, hand: Hand, pool: Pool, bank: Hand) -> Value:
    """Standing on ``hand``: the bank plays out from ``bank`` (its known cards) drawing from ``pool``."""
    pts = _points(t, hand)[0]
    ev = win = push = lose = 0.0
    for end, q in bank_ends(t, bank, pool):
        halves = _pay(t, hand, pts, end)
        ev += q * halves / 2
        if halves > 0:
            win += q
        elif halves < 0:
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


def after_card(t: Table, hand: Hand, pool: Pool, bank: Hand, burned: int) -> Value:
    """A card was just received: 7½ or a triplé stands, over 7½ busts, otherwise the player plays on."""
    pts, triple = _points(t, hand)
    if pts == SETTE_E_MEZZO or triple:
        return stand(t, hand, pool, bank)
    if pts > SETTE_E_MEZZO:
        return _LOSE_BUST
    return play(t, hand, pool, bank, burned)


@memo
def hit(t: Table, hand: Hand, pool: Pool, bank: Hand, burned: int) -> Value:
    total = sum(pool)
    return _mix(
        [(n / total, after_card(t, _add(hand, i), _take(pool, i), bank, burned)) for i, n in enumerate(pool) if n]
    )


@memo
def burn(t: Table, hand: Hand, pool: Pool, bank: Hand, burned: int, last: int) -> Value:
    """SM-20: the last card (class ``last``) is shown and replaced from the unseen cards."""
    total = sum(pool)
    rest = list(hand)
    rest.remove(last)
    parts = []
    for i, n in enumerate(pool):
        if n:
            new = (i, *sorted(rest[1:])) if len(hand) == 1 else _add(tuple(rest), i)
            parts.append((n / total, after_card(t, new, _take(pool, i), bank, burned + 1)))
    return _mix(parts)


def choices(t: Table, hand: Hand, pool: Pool, burned: int, last: int) -> tuple[bool, bool, bool]:
    """(may hit, may stand, may burn) at a decision, as the engine's legal actions say."""
    can = sum(pool) > 0
    must = False
    if can and t.forced_up >= 0:
        must = (len(hand) == 1 and hand[0] == t.matta) or _points(t, hand)[0] < t.forced_up
    rules = t.rules
    may_burn = (
        can
        and t.burn[last]
        and not (rules.burn_limit and burned >= rules.burn_limit)
        and not (rules.burn_when is BurnWhen.FIRST_CARD and len(hand) != 1)
    )
    return can, not must, may_burn


@memo
def play(t: Table, hand: Hand, pool: Pool, bank: Hand, burned: int, last: int = -1) -> Value:
    """The best of the player's choices at a decision (``last``: the class of the card last received)."""
    last = hand[-1] if last < 0 else last
    may_hit, may_stand, may_burn = choices(t, hand, pool, burned, last)
    options = []
    if may_hit:
        options.append(hit(t, hand, pool, bank, burned))
    if may_stand:
        options.append(stand(t, hand, pool, bank))
    if may_burn:
        options.append(burn(t, hand, pool, bank, burned, last))
    return max(options, key=lambda v: v[0]) if options else stand(t, hand, pool, bank)


# -- advice ---------------------------------------------------------------------------------------------------------


def advise(state: Any, seat: int, actions: Sequence[Action]) -> Advice | None:
    """Exact advice for a player's stake or decision, or the bank's; None for anything else (DEAL)."""
    s: SetteEMezzoState = state
    if s.phase is Phase.BANK:
        return _bank_advice(s, seat, actions)
    if s.phase not in (Phase.STAKE, Phase.DECIDE):
        return None
    rules = s.rules
    bank_cards = [tc.card for tc in s.hands[s.bank].cards if tc.card is not None and tc.seen_by.admits(seat)]
    t0 = table(rules)
    bank_up = t0.hand(bank_cards)
    t = table(rules, bank_up)
    pool = t.pool(Hidden(s, seat).cards)
    h = s.hands[seat]
    cards: list[Card] = [tc.card for tc in h.cards]  # type: ignore[misc]  # a seat sees its own cards
    raw = t.hand(cards)
    hand = (raw[0], *sorted(raw[1:]))
    last = raw[-1]
    burned = len(h.burned)
    out = []
    for a in actions:
        if s.phase is Phase.STAKE:
            v = (
                play(t, hand, pool, bank_up, burned, last)
                if a.kind != "BURN"
                else _burn_then_stake(t, hand, pool, bank_up, burned, last)
            )
            scale = float(a.amount) if a.kind != "BURN" else 1.0
        else:
            if a.kind in ("HIT", "HIT_HIDDEN"):
                v = hit(t, hand, pool, bank_up, burned)
            elif a.kind == "STAND":
                v = stand(t, hand, pool, bank_up)
            else:
                v = burn(t, hand, pool, bank_up, burned, last)
            scale = float(h.stake + a.amount)
        out.append(ActionAdvice(a, v[0] * scale, v[1], v[2], v[3], v[4]))
    return Advice(seat, EXACT, 0, tuple(out))


def _burn_then_stake(t: Table, hand: Hand, pool: Pool, bank: Hand, burned: int, last: int) -> Value:
    """STAKE phase burn: in chips, each new first card then staked best (the most when the hand is worth it)."""
    rules = t.rules
    total = sum(pool)
    parts = []
    for i, n in enumerate(pool):
        if n:
            v = play(t, (i,), _take(pool, i), bank, burned + 1, i)
            bet = rules.max_stake if v[0] > 0 else rules.min_stake
            parts.append((n / total, (v[0] * bet, *v[1:])))
    return _mix(parts)


# -- the bank's decision --------------------------------------------------------------------------------------------


def _bank_advice(s: SetteEMezzoState, seat: int, actions: Sequence[Action]) -> Advice:
    t = table(s.rules)
    pool = t.pool(Hidden(s, seat).cards)
    bank = t.hand([tc.card for tc in s.hands[seat].cards])  # type: ignore[misc]
    bank = (bank[0], *sorted(bank[1:]))
    players = []
    for p, h in enumerate(s.hands):
        if p != seat and h.status in (Status.STOOD, Status.SETTE_E_MEZZO):
            shown = t.hand([tc.card for tc in h.cards if tc.card is not None and tc.seen_by.admits(seat)])
            hidden = len(h.cards) - len(shown)
            players.append((h.stake, shown, hidden, h.status is Status.SETTE_E_MEZZO))
    key = tuple(players)
    out = []
    for a in actions:
        dist = _bank_hit(t, bank, pool, key) if a.kind == "HIT" else _bank_stand(t, bank, pool, key)
        out.append(_from_dist(a, dist))
    return Advice(seat, EXACT, 0, tuple(out))


Players = tuple[tuple[int, Hand, int, bool], ...]
Dist = tuple[tuple[float, float], ...]
"""The bank's chip result: (amount, probability) pairs; a bust of the bank is marked by a NaN-free flag below."""


def _from_dist(a: Action, dist: tuple[Dist, float]) -> ActionAdvice:
    pairs, bust = dist
    ev = sum(x * q for x, q in pairs)
    win = sum(q for x, q in pairs if x > 0)
    lose = sum(q for x, q in pairs if x < 0)
    return ActionAdvice(a, ev, win, max(0.0, 1.0 - win - lose), lose, bust)


@memo
def _player_pays(t: Table, player: tuple[int, Hand, int, bool], end: BankEnd, pool: Pool) -> Dist:
    """What one standing player pays the bank (negative: the bank pays), over his possible face-down card."""
    stake, shown, hidden, seven_half = player
    out: dict[float, float] = {}
    if not hidden:
        hands = [(shown, 1.0)]
    else:
        fits = []
        for i, n in enumerate(pool):
            if n:
                hand = (i, *sorted(shown))
                pts, triple = _points(t, hand)
                ok = (pts == SETTE_E_MEZZO or triple) if seven_half else pts < SETTE_E_MEZZO and not triple
                fits.append((hand, n, ok))
        good = [(h, n) for h, n, ok in fits if ok] or [(h, n) for h, n, _ in fits]
        total = sum(n for _, n in good)
        hands = [(h, n / total) for h, n in good]
    for hand, q in hands:
        pts = _points(t, hand)[0]
        amount = -stake * _pay(t, hand, pts, end) / 2
        out[amount] = out.get(amount, 0.0) + q
    return tuple(out.items())


def _convolve(dists: Sequence[Dist]) -> Dist:
    acc: dict[float, float] = {0.0: 1.0}
    for d in dists:
        nxt: dict[float, float] = {}
        for x, p in acc.items():
            for y, q in d:
                nxt[x + y] = nxt.get(x + y, 0.0) + p * q
        acc = nxt
    return tuple(acc.items())


@memo
def _bank_stand(t: Table, bank: Hand, pool: Pool, players: Players) -> tuple[Dist, float]:
    """The bank stops on ``bank`` (busted or not): what the standing players pay it, and whether it busted."""
    end = _end(t, bank, _points(t, bank)[0])
    return _convolve([_player_pays(t, p, end, pool) for p in players]), float(end[1])


@memo
def _bank_hit(t: Table, bank: Hand, pool: Pool, players: Players) -> tuple[Dist, float]:
    total = sum(pool)
    acc: dict[float, float] = {}
    bust_p = 0.0
    for i, n in enumerate(pool):
        if not n:
            continue
        q = n / total
        new, rest = _add(bank, i), _take(pool, i)
        pts, triple = _points(t, new)
        if pts >= SETTE_E_MEZZO or triple or not sum(rest):
            dist, b = _bank_stand(t, new, rest, players)
        else:
            options = (_bank_stand(t, new, rest, players), _bank_hit(t, new, rest, players))
            dist, b = max(options, key=lambda o: sum(x * p for x, p in o[0]))
        bust_p += q * b
        for x, p in dist:
            acc[x] = acc.get(x, 0.0) + q * p
    return tuple(acc.items()), bust_p


# -- the return to player -------------------------------------------------------------------------------------------


def casino_rtp(rules: SetteEMezzoRules) -> float:
    """The return to player of optimal play, heads-up against a house bank whose first card is face up, over a
    fresh shuffle, computed exactly: 1 + the expected result per chip staked."""
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
            ev += q * play(t, (p,), pool, (b,), 0, p)[0]
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
