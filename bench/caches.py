"""The worst-case memory of every cache in the engine, filled to its bound with the largest entries it can hold.

Run: ``.venv/bin/python -m bench.caches``. Each cache is cleared, then filled with ``maxsize`` distinct keys
built to make each entry as large as the engine allows; ``tracemalloc`` measures what the filled cache holds
(keys, values and the cache's own table). The figures go in the "Caches" table of docs/performance.md.
"""

from __future__ import annotations

import gc
import itertools
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from mazziere import engine
from mazziere.engine import codec, validate, values, visibility, wire
from mazziere.engine import rules as rule_profiles
from mazziere.engine.bots import sette_e_mezzo as sm_bots
from mazziere.engine.bots.sette_e_mezzo import opponents as sm_opponents
from mazziere.engine.cards import ALL_CARDS
from mazziere.engine.games.saltacavallo.rules import MAX_SEATS as SALTACAVALLO_SEATS
from mazziere.engine.games.sette_e_mezzo import game as sette_e_mezzo_game
from mazziere.engine.games.sette_e_mezzo import points
from mazziere.engine.games.sette_e_mezzo.rules import CLASSICO
from mazziere.engine.rl import adapter as rl_adapter
from mazziere.engine.visibility import Audience


@dataclass
class Cache:
    name: str
    bound: int
    clear: Callable[[], None]
    fill: Callable[[int], None]
    """Make the cache hold ``n`` distinct worst-case entries."""
    size: Callable[[], int]


def _lru(fn: Any) -> tuple[Callable[[], None], Callable[[], int], int]:
    return fn.cache_clear, lambda: fn.cache_info().currsize, fn.cache_info().maxsize


def _decisions(n: int) -> None:
    for i in range(n):
        sette_e_mezzo_game._decisions(True, True, True, True, 10**9 - i)


def _stakes(n: int) -> None:
    for i in range(n):
        sette_e_mezzo_game._stakes(1, 10**9 - i, True)


def profiles(n: int) -> Iterator[Any]:
    """Distinct Sette e mezzo profiles as large as a profile gets (every burn rank, big numbers)."""
    big = replace(CLASSICO, burn_ranks=frozenset(range(1, 11)))
    for i in range(n):
        yield replace(big, max_stake=10**9 - i)


def _by_value(n: int) -> None:
    for rules in profiles(n):
        points._by_value(rules)


def _compiled(n: int) -> None:
    for rules in profiles(n):
        points.scoring(rules)


def _valid_rules(n: int) -> None:
    for rules in profiles(n):
        validate.check_rules(rules, type(rules))


def _audiences(n: int) -> Iterator[Audience]:
    """Distinct audiences of up to 20 seats (the most any game seats), the largest first."""
    seats = range(SALTACAVALLO_SEATS)
    count = 0
    for k in range(SALTACAVALLO_SEATS, 0, -1):
        for chosen in itertools.combinations(seats, k):
            if count == n:
                return
            count += 1
            yield Audience(seats=frozenset(chosen))


def _interned_audiences(n: int) -> None:
    for audience in _audiences(n):
        Audience(seats=audience.seats)


def _interned_table_cards(n: int) -> None:
    for i, audience in enumerate(_audiences(n)):
        visibility.TableCard(ALL_CARDS[i % len(ALL_CARDS)], audience)


def _profiles(n: int) -> None:
    for rules in profiles(n):
        state = engine.new_table("sette_e_mezzo", [engine.Seat("a", 9), engine.Seat("b", 9)], seed=b"p").state
        wire.state_from_bytes(wire.state_to_bytes(values.replace(state, rules=rules)))


def _interned_profiles(n: int) -> None:
    for profile in profiles(n):
        rule_profiles.with_options(profile, {})


def _type_keyed(n: int) -> None:
    """Every type the engine meets: play, view and encode a table of each game."""
    for game in engine.all_games():
        state = engine.new_table(game.id, [engine.Seat(f"p{i}", 100) for i in range(4)], seed=b"c").state
        for _ in range(6):
            if engine.is_over(state):
                break
            seat = engine.to_act(state)[0]
            out = engine.apply(state, engine.legal_actions(state, seat)[0].example(seat))
            visibility.redact(out.events, 0)
            state = out.state
        engine.view(state, 0)
        engine.state_from_bytes(engine.state_to_bytes(state))


def _bot_points(n: int) -> None:
    """Sette e mezzo advice's totals of hands, filled with distinct hands of up to 12 cards."""
    profile = sm_bots.profile_of(CLASSICO, (1,))
    hands = itertools.chain.from_iterable(
        itertools.product(range(len(profile.classes)), repeat=size) for size in range(12, 0, -1)
    )
    for hand, _ in zip(hands, range(n), strict=False):
        sm_bots.hand_points(profile, hand)


def _stake_levels(n: int) -> None:
    """The learning environments' stake levels, for distinct amount ranges."""
    for high in range(n):
        rl_adapter.levels(0, high, 10)


def _bot_memo(n: int) -> None:
    """Sette e mezzo advice's table of values, filled with the fitting cards of distinct standing players."""
    profile = sm_bots.profile_of(CLASSICO, (1,))
    for i in range(n):
        sm_opponents.fitting(profile, (i, 10**9 - i, (0,), 0))


def caches() -> list[Cache]:
    out = []
    for name, fn, fill in [
        ("sette_e_mezzo._decisions", sette_e_mezzo_game._decisions, _decisions),
        ("sette_e_mezzo._stakes", sette_e_mezzo_game._stakes, _stakes),
        ("sette_e_mezzo.points._by_value", points._by_value, _by_value),
        ("visibility._redactor", visibility._redactor, _type_keyed),
        ("bots.sette_e_mezzo.hand_points", sm_bots.hand_points, _bot_points),
        ("rl.adapter.levels", rl_adapter.levels, _stake_levels),
    ]:
        clear, size, bound = _lru(fn)
        out.append(Cache(name, bound or 0, clear, fill, size))
    out.append(
        Cache("sette_e_mezzo.points._COMPILED", points.COMPILED_MAX, points._COMPILED.clear, _compiled,
              lambda: len(points._COMPILED))
    )  # fmt: skip
    out.append(
        Cache("validate._VALID_RULES", validate._VALID_RULES_MAX, validate._VALID_RULES.clear, _valid_rules,
              lambda: len(validate._VALID_RULES))
    )  # fmt: skip
    out.append(
        Cache("bots.sette_e_mezzo.MEMO", sm_bots.MEMO_MAX, sm_bots.MEMO.clear, _bot_memo,
              lambda: len(sm_bots.MEMO))
    )  # fmt: skip
    interned: list[tuple[str, dict[int, Any], Callable[[int], None]]] = [
        ("visibility._AUDIENCES (interned)", visibility._AUDIENCES, _interned_audiences),
        ("visibility._TABLE_CARDS (interned)", visibility._TABLE_CARDS, _interned_table_cards),
    ]
    for label, table, make in interned:
        out.append(Cache(label, visibility._INTERNED, _keep_public(table), make, table.__len__))
    profiles_kept: list[tuple[str, dict[Any, Any]]] = [
        ("wire._PROFILES", wire._PROFILES),
        ("wire._WRITTEN", wire._WRITTEN),
    ]
    for name, kept in profiles_kept:
        out.append(Cache(name, wire.PROFILE_CACHE, kept.clear, _profiles, kept.__len__))
    out.append(
        Cache("rules._INTERNED (interned)", rule_profiles.INTERNED_PROFILES, rule_profiles._INTERNED.clear,
              _interned_profiles, rule_profiles._INTERNED.__len__)
    )  # fmt: skip
    return out


def _keep_public(table: dict[int, Any]) -> Callable[[], None]:
    """Clearing an interning table keeps PUBLIC, NOBODY and the cards already in use (they stay shared)."""
    kept = dict(table)

    def clear() -> None:
        table.clear()
        table.update(kept)

    return clear


def measure(cache: Cache) -> tuple[int, int]:
    """(entries, bytes) of ``cache`` filled to its bound with worst-case entries."""
    cache.clear()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    cache.fill(cache.bound)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return cache.size(), held


def main() -> None:
    print(f"{'cache':34} {'bound':>7} {'filled':>7} {'KiB held':>9} {'B/entry':>8} {'KiB at bound':>12}")
    for cache in caches():
        entries, held = measure(cache)
        per = held // max(entries, 1)
        print(
            f"{cache.name:34} {cache.bound:>7} {entries:>7} {held / 1024:>9.0f} {per:>8} "
            f"{per * cache.bound / 1024:>12.0f}"
        )
        cache.clear()
    for fn in (codec._hints,):
        fn.cache_clear()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    _type_keyed(0)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    sizes = ", ".join(f"{fn.__name__} {fn.cache_info().currsize}" for fn in (codec._hints,))
    print(f"codec's type-keyed caches (unbounded, one entry per type): {sizes} entries, {held / 1024:.0f} KiB in all")


if __name__ == "__main__":
    main()
