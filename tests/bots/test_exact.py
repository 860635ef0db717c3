"""Sette e mezzo advice against the brute force of tests/bots/brute.py: the reproductions of a past audit, then
random mid-hand states of every option (a fixed seed): exact where the answer says EXACT (to 1e-9), within the
stated bound where it says APPROXIMATE, and a straight line between the amounts it lists."""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

import pytest

from mazziere import engine
from mazziere.engine.bots import advise
from mazziere.engine.bots import sette_e_mezzo as sm
from mazziere.engine.bots.sette_e_mezzo import bank_advice
from mazziere.engine.bots.values import ActionAdvice, Advice
from mazziere.engine.games.sette_e_mezzo.state import Phase, SetteEMezzoState, Status
from mazziere.engine.table import Action, Seat
from tests.bots import brute
from tests.sette_e_mezzo.table import table

EPS = 1e-9
BUDGET = 12_000
"""Calls of engine.apply a random state's brute force may take (about half a second)."""


def _by_action(advice: Advice) -> dict[tuple[str, int], ActionAdvice]:
    return {(a.action.kind, a.action.amount): a for a in advice.actions}


def _agrees(a: ActionAdvice, b: brute.Value) -> bool:
    mine = (a.expected, a.win, a.push, a.lose, a.bust)
    return all(abs(x - y) <= EPS * max(1.0, abs(y)) for x, y in zip(mine, b, strict=True))


def _line(advice: Advice, kind: str, parity: bool) -> dict[int, float]:
    """Every amount of ``kind``'s range, read from the listed amounts as docs/bots.md says: a straight line between
    two listed amounts (of one parity where a 3:2 payment may be made)."""
    listed = sorted((a.action.amount, a.expected) for a in advice.actions if a.action.kind == kind)
    out = dict(listed)
    step = 2 if parity else 1
    for x0, y0 in listed:
        for x1, y1 in listed:
            if x1 > x0 and (x1 - x0) % step == 0 and not any(x0 < x < x1 and (x - x0) % step == 0 for x, _ in listed):
                for x in range(x0 + step, x1, step):
                    out[x] = y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return out


def check(state: SetteEMezzoState, seat: int, budget: int = 60_000) -> bool:
    """Advice against brute force on every amount; False when the state is too big for the brute force."""
    try:
        reference = brute.values(state, seat, budget)
    except brute.TooBig:
        return False
    advice = advise(state, seat)
    assert advice.method == "EXACT"
    parity = sm.profile_of(state.rules).three_two
    for (kind, amount), b in reference.items():
        entry = _by_action(advice).get((kind, amount))
        if entry is not None:
            if entry.basis == "EXACT":
                assert _agrees(entry, b), (kind, amount, entry, b)
            else:
                assert entry.basis == "APPROXIMATE"
                assert abs(entry.expected - b[0]) <= entry.error_bound, (kind, entry, b)
        else:
            line = _line(advice, kind, parity)
            assert abs(line[amount] - b[0]) <= EPS * max(1.0, abs(b[0])), (kind, amount, line[amount], b)
    assert {(k, a) for k, a in _by_action(advice)} <= set(reference)
    return True


# -- the audit's reproductions --------------------------------------------------------------------------------------


def _value(advice: Advice, kind: str, amount: int = 0) -> float:
    return _by_action(advice)[(kind, amount)].expected


def test_sm20_any_card_burn_reads_the_card_just_received() -> None:
    """Cc then Fc, burning 4s on any card: the newest card (Fc) may not be burned, the first (Cc) may not be burned
    either once another came; HIT is worth -0.2905 (the audit's brute force), not -0.3125."""
    run = table("Cc 5d Fc", seats=2, burn_ranks=[4], burn_when="ANY_CARD").do("1 STAKE 1", "1 HIT")
    advice = advise(run.state, 1)
    assert {a.action.kind for a in advice.actions} == {"HIT", "STAND"}
    assert _value(advice, "HIT") == pytest.approx(-0.2905, abs=5e-5)


def test_sm20_any_card_burn_of_a_called_card_is_offered() -> None:
    """A called ace (after a 6) may be burned (burn_ranks [1], ANY_CARD): the advice offers BURN as the engine
    does, and agrees with brute force (the bank's 6 is face up: it stands at once)."""
    rules: dict[str, Any] = {"burn_ranks": [1], "burn_when": "ANY_CARD", "bank_first_card_up": True}
    run = table("6c 6d Ab", seats=2, **rules).do("1 STAKE 1", "1 HIT")
    assert "BURN" in {e.kind for e in engine.legal_actions(run.state, 1)}
    assert check(run.state, 1)


def test_sm22_two_sevens_are_a_triple_for_the_bank() -> None:
    """The bank holds 7d against Fc 6b (stake 2, face-down Fc): a second 7, like the matta, is a triplé (+6), a
    figure a reale (+4), anything else a bust (-2). The player's face-down card is ½, 1 or the matta (he stood under
    7½), so HIT = (4·(11 - 11/16) + 6·(3 + 15/16) - 2·(22 + 12/16))/37 = 19.375/37 (the audit's +0.579 took that
    card for any unseen card)."""
    run = table("Fc 7d 6b", seats=2, triple=True, triple_two_sevens=True).do("1 STAKE 2", "1 HIT", "1 STAND")
    advice = advise(run.state, 0)
    assert _value(advice, "HIT") == pytest.approx(19.375 / 37, abs=1e-12)
    assert check(run.state, 0)


def test_sm20_burn_before_the_stake_stakes_what_the_chips_allow() -> None:
    """NAPOLETANO, ENCYCLOPEDIA, 4 chips, first card 3c: a burn is worth +0.174 (each new card then staked within
    1..4), not +0.739 (as if 10 could be staked)."""
    run = table("3c 5d", seats=2, chips=[100, 4], preset="NAPOLETANO", natural_rule="ENCYCLOPEDIA")
    assert _value(advise(run.state, 1), "BURN") == pytest.approx(0.1736, abs=5e-5)


def test_three_to_two_on_an_odd_stake_rounds_down() -> None:
    """CASINO 3:2, the matta as first card: a stake of 1 is worth exactly +1 (its 3:2 pays 1), and the advice lists
    both parities' ends (1, 2, 9, 10), a straight line between those of one parity."""
    run = table("Rd 5c", seats=2, preset="CASINO", reale_with_matta_pays="THREE_TO_TWO")
    advice = advise(run.state, 1)
    assert [a.action.amount for a in advice.actions] == [1, 2, 9, 10]
    assert _value(advice, "STAKE", 1) == pytest.approx(1.0, abs=1e-12)
    assert check(run.state, 1)


def test_a_loss_is_capped_by_the_players_chips() -> None:
    """CLASSICO, 7 staked 3 of 3 chips against the bank's matta (face up): a bank reale collects double, 6, capped
    at his 3 chips; so STAND is worth more than for a player with chips to spare."""
    run = table("7c Rd", seats=2, chips=[100, 3], bank_first_card_up=True).do("1 STAKE 3")
    capped = _value(advise(run.state, 1), "STAND")
    rich = table("7c Rd", seats=2, chips=[100, 30], bank_first_card_up=True).do("1 STAKE 3")
    assert capped > _value(advise(rich.state, 1), "STAND") + 0.1
    assert check(run.state, 1)


def test_sm8_a_stake_counts_the_raises_it_allows_later() -> None:
    """raise_on_decision, first card 7c: STAKE 1 is worth +4.339 (stand raising to 10), not +0.434."""
    run = table("7c 5d", seats=2, raise_on_decision=True)
    assert _value(advise(run.state, 1), "STAKE", 1) == pytest.approx(4.3389, abs=5e-5)
    assert check(table("7c 5d", seats=2, raise_on_decision=True, max_stake=4, bank_first_card_up=True).state, 1)


def test_sm12_a_player_against_a_face_down_bank() -> None:
    """Heads-up and with a player still to play (who stands at once), the bank's face-down card and its draws
    below 5 are every unseen card in turn: 7 staked 1 (the random states below show the bank's card)."""
    for seats in (2, 3):
        run = table("7c 5d", seats=seats).do("1 STAKE 1")
        assert check(run.state, 1, 400_000)


@pytest.mark.long
def test_the_players_still_to_play_change_nothing_while_the_stock_lasts() -> None:
    """Seat 1 decides with seat 2 still to play: whether seat 2 stands at once (the model) or draws below 3, the
    brute force gives the advice's figures (the bank shows 4: it draws after them). About 50 s of one core."""
    run = table("7c 4b 4d", seats=3, bank_first_card_up=True).do("1 STAKE 2")
    advice = _by_action(advise(run.state, 1))
    for below in (0, 6):
        reference = brute.Brute(run.state, 1, 2_000_000, later_draw_below=below).player()
        assert all(_agrees(advice[k], v) for k, v in reference.items())


def test_sm13_bank_weighs_the_players_face_down_cards_jointly() -> None:
    """Two players stood (Fc + 6d, 2b + 4b) against the bank's 6c: their face-down cards are dealt jointly from
    the unseen cards, and the advice agrees with brute force."""
    run = table("Fc 2b 6c 6d 4b", seats=3).do("1 STAKE 2", "1 HIT", "1 STAND", "2 STAKE 3", "2 HIT", "2 STAND")
    assert {a.basis for a in advise(run.state, 0).actions} == {"EXACT"}
    assert check(run.state, 0)


def test_bank_advice_beyond_the_joint_budget_is_approximate_within_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    run = table("Fc 2b 6c 6d 4b", seats=3).do("1 STAKE 2", "1 HIT", "1 STAND", "2 STAKE 3", "2 HIT", "2 STAND")
    monkeypatch.setattr(bank_advice, "BANK_EXACT_ASSIGNMENTS", 0)
    sm.MEMO.clear()
    advice = advise(run.state, 0)
    assert {(a.basis, a.error_bound) for a in advice.actions} == {("APPROXIMATE", sm.BANK_APPROX_ERROR * 5)}
    assert check(run.state, 0)
    sm.MEMO.clear()


def test_approximate_bank_advice_stays_within_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """The approximation (each face-down card on its own) against the joint figures, on random bank decisions with
    two or three standing players holding a face-down card: never further than BANK_APPROX_ERROR per chip they
    staked."""
    rng = random.Random(7)
    worst, measured = 0.0, 0
    tables = [o for o in OPTIONS if o[2] > 2]
    for k in range(60):
        preset, options, seats = tables[k % len(tables)]
        for state in _walk(preset, options, seats, rng):
            down = [h.stake for s, h in enumerate(state.hands) if s != state.bank and h.status is Status.STOOD]
            if state.phase is not Phase.BANK or len(down) < 2:
                continue
            exact = advise(state, state.bank)
            if {a.basis for a in exact.actions} != {"EXACT"}:
                continue
            monkeypatch.setattr(bank_advice, "BANK_EXACT_ASSIGNMENTS", 0)
            sm.MEMO.clear()
            approximate = advise(state, state.bank)
            monkeypatch.undo()
            sm.MEMO.clear()
            for a, b in zip(exact.actions, approximate.actions, strict=True):
                assert b.error_bound == sm.BANK_APPROX_ERROR * sum(down)
                worst = max(worst, abs(a.expected - b.expected) / sum(down))
            measured += 1
    assert measured >= 20 and 0 < worst <= sm.BANK_APPROX_ERROR


# -- random states of every option ----------------------------------------------------------------------------------

OPTIONS: list[tuple[str, dict[str, Any], int]] = [
    ("CLASSICO", {}, 2),
    ("CLASSICO", {"bank_first_card_up": True}, 3),
    ("CLASSICO", {"burn_ranks": [3, 4], "burn_when": "ANY_CARD", "bank_first_card_up": True}, 2),
    ("CLASSICO", {"burn_ranks": [4, 8], "burn_when": "ANY_CARD", "burn_limit": 2}, 3),
    ("NAPOLETANO", {"bank_first_card_up": True}, 2),
    ("NAPOLETANO", {"natural_rule": "ENCYCLOPEDIA"}, 3),
    ("DELLARTI", {"bank_first_card_up": True}, 3),
    ("DELLARTI", {"triple": True, "triple_two_sevens": True}, 3),
    ("CLASSICO", {"matta_values": "WHOLE_ONLY", "ace_half_first": True, "bank_first_card_up": True}, 2),
    ("CLASSICO", {"matta_card": "7c", "natural_rule": "S001"}, 2),
    ("CLASSICO", {"matta_card": None, "natural_rule": "S000", "bank_first_card_up": True}, 3),
    ("CLASSICO", {"triple": True, "bank_first_card_up": True}, 2),
    ("CLASSICO", {"raise_on_decision": True, "max_stake": 4, "bank_first_card_up": True}, 2),
    ("CLASSICO", {"raise_on_decision": True, "max_stake": 3, "triple": True}, 3),
    ("CLASSICO", {"min_stake": 2, "max_stake": 5, "bank_first_card_up": True}, 3),
    ("CLASSICO", {"reale_pays_double": False, "reale_with_matta_pays": "THREE_TO_TWO", "max_stake": 5}, 2),
    ("CLASSICO", {"bank_first_card_up": True, "forced_draws": True}, 3),
    ("CASINO", {}, 2),
    ("CASINO", {"reale_with_matta_pays": "THREE_TO_TWO", "max_stake": 5}, 3),
    ("CASINO", {"five_tie_loses": True, "reale_with_matta_pays": "THREE_TO_TWO", "raise_on_decision": True}, 2),
    ("CASINO", {"five_tie_loses": True, "max_stake": 4}, 4),
]
"""(preset, options, seats): every preset, burn ranks and burn_when, matta values and cards, triplé variants,
natural rules, raise rules, stake limits, 3:2 payouts, heads-up and more seats. Players' chips are drawn below the
stake range as often as above it."""


def _walk(preset: str, options: dict[str, Any], seats: int, rng: random.Random) -> list[SetteEMezzoState]:
    """A random hand's decisions (players' and a seat bank's), a player standing once fairly high."""
    options = {"first_bank": "SEAT", "first_bank_seat": 0, **options}
    top = options.get("max_stake", 10)
    chips = [100] + [rng.choice([top * 3, max(options.get("min_stake", 1), top - 2), 2]) for _ in range(seats - 1)]
    people = [Seat(f"s{i}", c) for i, c in enumerate(chips)]
    state = engine.new_table("sette_e_mezzo", people, seed=rng.randbytes(8), preset=preset, options=options).state
    state = engine.apply(state, Action(0, "DEAL")).state
    out: list[SetteEMezzoState] = []
    while state.phase in (Phase.STAKE, Phase.DECIDE, Phase.BANK):
        seat = state.turn
        out.append(state)
        legal = {e.kind: e for e in engine.legal_actions(state, seat)}
        points = state.hands[seat].points
        if state.phase is Phase.STAKE:
            e = legal["BURN"] if "BURN" in legal and rng.random() < 0.3 else legal["STAKE"]
            action = Action(seat, e.kind, rng.randint(e.min_amount, e.max_amount))
        else:
            want = "HIT" if points < rng.choice([8, 10, 12]) else "STAND"
            kind = want if want in legal else next(iter(legal))
            if "BURN" in legal and rng.random() < 0.3:
                kind = "BURN"
            e = legal[kind]
            action = Action(seat, kind, rng.randint(e.min_amount, e.max_amount))
        state = engine.apply(state, action).state
    return out


def _small(state: SetteEMezzoState) -> bool:
    """A decision whose rest of the hand brute force can likely follow within its budget: a bank on 4 or more; a
    player on 5 or more (6 before his stake) against a bank that shows 5 or more, or on 6½ or more against a bank
    whose card is face down."""
    h = state.hands[state.turn]
    if state.phase is Phase.BANK:
        return h.points >= 8
    bank = state.hands[state.bank]
    if not all(tc.seen_by.everyone for tc in bank.cards):
        return state.phase is Phase.DECIDE and h.points >= 13
    return bank.points >= 10 and h.points >= (12 if state.phase is Phase.STAKE else 10)


@pytest.mark.long  # about two minutes of one core: started first (docs/testing.md)
def test_advice_equals_brute_force_on_random_states_of_every_option() -> None:
    """From a fixed seed: up to three small decisions per option set, one of them at most the bank's (random hands,
    as many as it takes, giving up on a decision the brute force cannot follow within its budget), each checked on
    every amount."""
    rng = random.Random(20261201)
    seen: Counter[str] = Counter()
    start = time.process_time()
    for preset, options, seats in OPTIONS:
        done = tried = banks = 0
        while done < 3 and tried < 8:
            for state in _walk(preset, options, seats, rng):
                bank = state.phase is Phase.BANK
                if done == 3 or tried == 8 or not _small(state) or (bank and banks):
                    continue
                tried += 1
                if check(state, state.turn, BUDGET):
                    done += 1
                    banks += bank
                    seen[state.phase.value] += 1
                    seen["multi" if seats > 2 else "heads-up"] += 1
                    if bank and sum(h.status is Status.STOOD for h in state.hands) > 1:
                        seen["joint"] += 1
                    if not bank and not all(tc.seen_by.everyone for tc in state.hands[state.bank].cards):
                        seen["bank face down"] += 1
        assert done, (preset, options)
    print(dict(seen), f"{time.process_time() - start:.1f} s")
    assert seen["DECIDE"] >= 15 and seen["STAKE"] >= 3 and seen["BANK"] >= 10 and seen["multi"] >= 20


# -- big tables: late decisions, the stock near its end -------------------------------------------------------------


def _late_casino_decisions(seats: int, rng: random.Random) -> list[SetteEMezzoState]:
    """A CASINO hand at ``seats`` seats in which the players draw while under 6½ to 7½ (so the stock runs low): the
    decisions of its last player, and of any player where the stock is short (players still to play, forced to
    draw below the bank's card, and the bank may find it empty)."""
    people = [Seat(f"s{i}", 100) for i in range(seats)]
    state = engine.new_table("sette_e_mezzo", people, seed=rng.randbytes(8), preset="CASINO").state
    state = engine.apply(state, Action(0, "DEAL")).state
    below = rng.choice([13, 14, 15])
    out: list[SetteEMezzoState] = []
    while state.phase in (Phase.STAKE, Phase.DECIDE):
        seat = state.turn
        if seat == seats - 1 or len(state.stock) < 10:
            out.append(state)
        legal = {e.kind: e for e in engine.legal_actions(state, seat)}
        if state.phase is Phase.STAKE:
            action = Action(seat, "STAKE", 1)
        else:
            kind = "HIT" if "HIT" in legal and (state.hands[seat].points < below or "STAND" not in legal) else "STAND"
            action = Action(seat, kind if kind in legal else next(iter(legal)))
        state = engine.apply(state, action).state
    return out


@pytest.mark.long  # about a minute of one core: started first (docs/testing.md)
def test_late_decisions_at_big_casino_tables_equal_brute_force() -> None:
    """CASINO at 7 to 12 seats, the players before drawing deep into the stock: the late players' decisions, where
    the players still to play (forced to draw below the bank's card) and the bank may find the stock empty, agree
    with brute force (every figure EXACT). The brute force cannot follow two or more players still to play within
    its budget: tests/bots/test_rest.py checks the rest of the hand there on its own."""
    rng = random.Random(20261202)
    done: Counter[int] = Counter()
    short = 0
    for seats in range(7, 13):
        tried = 0
        while done[seats] < 2 and tried < 6:
            for state in _late_casino_decisions(seats, rng):
                if done[seats] == 2 or tried == 6:
                    break
                tried += 1
                advice = advise(state, state.turn)
                assert {a.basis for a in advice.actions} == {"EXACT"}
                if check(state, state.turn, BUDGET):
                    done[seats] += 1
                    short += len(state.stock) < 14
    print(dict(done), f"{short} with fewer than 14 cards in the stock")
    assert sum(done.values()) >= 6, done
