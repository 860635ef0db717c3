"""Memory under a long run: the service's resident set after 10,000 Acts and after 1,000,000.

Run: ``.venv/bin/python -m bench.memory [--acts N]`` (part of ``make bench``). One process plays random legal
moves through ``TableService.act`` (the service's handler: tokens, memo, engine, updates) on 300 tables of the three
games at once, replacing each table when its game ends, so every cache and the memo of recent tokens fill and
churn. It prints the RSS after 10,000 Acts and at the end: the goal is growth within 10 %.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.goals import verdict
from mazziere.services.core.call import Call
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.table.sealing import Keyring
from mazziere.services.table.service import TableService

GOAL = 10.0
GAMES = (("sette_e_mezzo", 6), ("saltacavallo", 8), ("trentuno", 5))


def rss_mib() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096 / 2**20


def answered(handler: Callable[[Any, Call], Any], request: Any) -> Any:
    """Call a handler as the server's call wrapper does: what it asks to run once answered runs (the memo)."""
    call = Call()
    answer = handler(request, call)
    for then in call.on_answered:
        then()
    return answer


class Table:
    """One table played through the handler, as a host would: it keeps the token and the seat keys."""

    def __init__(self, core: TableService, rng: random.Random) -> None:
        game, seats = rng.choice(GAMES)
        people = [pb.Seat(name=f"p{i}", chips=50) for i in range(seats)]
        answer = answered(core.create_table, svc.CreateTableRequest(game=game, seats=people))
        self.core, self.rng = core, rng
        self.table_id, self.state, self.seq = answer.table_id, answer.state, answer.seq
        self.keys = {k.seat: k.key for k in answer.seat_keys}
        self.to_act, self.over = list(answer.to_act), answer.is_over

    def act(self) -> None:
        seat = self.rng.choice(self.to_act)
        view = answered(
            self.core.get_view,
            svc.GetViewRequest(table_id=self.table_id, state=self.state, seat=seat, seat_key=self.keys[seat]),
        )
        entry = self.rng.choice(view.update.legal_actions)
        action = pb.Action(seat=seat, kind=entry.kind, amount=self.rng.randint(entry.min_amount, entry.max_amount))
        if entry.HasField("target"):
            action.target = entry.target
        action.cards.extend(entry.cards)
        request = svc.ActRequest(
            table_id=self.table_id, state=self.state, expected_seq=self.seq, action=action, seat_key=self.keys[seat]
        )
        answer = answered(self.core.act, request)
        self.state, self.seq, self.to_act, self.over = answer.state, answer.seq, list(answer.to_act), answer.is_over


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--acts", type=int, default=1_000_000)
    parser.add_argument("--tables", type=int, default=300)
    args = parser.parse_args(argv)
    rng = random.Random(7)
    core = TableService(Keyring.ephemeral())
    tables = [Table(core, rng) for _ in range(args.tables)]
    early = 0.0
    for n in range(1, args.acts + 1):
        i = rng.randrange(len(tables))
        if tables[i].over:
            tables[i] = Table(core, rng)
        tables[i].act()
        if n == 10_000:
            early = rss_mib()
    late = rss_mib()
    growth = (late - early) / early * 100
    print(f"RSS after 10,000 Acts: {early:.1f} MiB; after {args.acts:,}: {late:.1f} MiB ({growth:+.1f} %)")
    print(verdict("RSS growth from 10,000 Acts to the end", growth, GOAL, "%", at_most=True))
    return {"rss_growth_pct": growth}


if __name__ == "__main__":
    main()
