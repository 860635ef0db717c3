"""The checks of a rolling-deploy run, over the tables' final record in the store and what every person, watcher and
process noted: each stream without a gap or a repeat, no acknowledged move lost, each due turn played once and not
before it was due, the longest wait for an update a watcher was owed, and each process's exit after SIGTERM.

A watcher is owed a step from when the step was first seen anywhere (its Play's answer, or any watcher's delivery),
counting only the time its own process was serving: while that process is down (from its SIGTERM until it is ready
again) nobody can deliver, and in a deploy its clients would watch from another pod meanwhile.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from mazziere_client.v1 import host_pb2 as hpb
from mazziere_client.v1 import table_pb2 as pb

from mazziere.services.host.store.schema import unpack_seen
from tests.host.conftest import Backend
from tests.host.rolling.fleet import Process, Stop
from tests.host.rolling.page import Streams
from tests.host.rolling.players import HostedTable, Sent
from tests.host.rolling.watchers import Watcher

OWED_GOAL_S = 2.0
OWED_LIMIT_S = 10.0
"""The longest a watcher may go without an update it was owed (the goal is far shorter: printed beside it)."""
EXIT_GOAL_S = 1.0
CLOCK_SLACK_S = 0.005
"""A browser's clock reads in whole milliseconds."""


class Seen(Protocol):
    """A watcher: which table, on which process, and each seq it delivered with when."""

    label: str
    table: HostedTable
    process: Process

    @property
    def seen(self) -> list[tuple[int, float]]: ...


@dataclass(frozen=True)
class Step:
    """One step of a table's record: its action (empty for the opening and the closing) and what the spectators
    saw of it."""

    seq: int
    action: pb.Action
    update: hpb.HostedUpdate

    @property
    def auto(self) -> bool:
        """Played by the host (a timer), not by a person."""
        return any(event.auto for event in self.update.update.events)


def read_record(store: Backend, table_id: str) -> list[Step]:
    """The table's steps as the store keeps them, in order."""
    rows = store.sql(
        "SELECT s.seq, s.action, s.seen, v.body FROM steps s LEFT JOIN seen v ON v.table_id = s.table_id "
        f"AND v.seq = s.seq AND v.audience = 'spectators' WHERE s.table_id = '{table_id}' ORDER BY s.seq"
    )
    seen = [(seq, action, spectators(packed, body)) for seq, action, packed, body in rows]
    return [
        Step(int(seq), pb.Action.FromString(bytes(action)), hpb.HostedUpdate.FromString(update))
        for seq, action, update in seen
        if update is not None
    ]


def spectators(packed: bytes | str, body: bytes | None) -> bytes | None:
    """What the spectators saw of a step: packed in its row (SQLite) or in a row of its own (PostgreSQL)."""
    if packed:
        return unpack_seen(bytes(packed), "spectators")
    return None if body is None else bytes(body)


@dataclass
class Audit:
    """Every check of a run; ``problems`` lists what failed, ``report`` the figures printed against their goals."""

    store: Backend
    tables: Sequence[HostedTable]
    sent: Sequence[Sent]
    watchers: Sequence[Seen]
    stops: Sequence[Stop]
    grace_s: float
    again: Counter[str]
    """The refusals and cuts people met and answered by looking again, by reason."""
    page: Streams | None = None
    """What the web table's Watch streams carried, if a page watched."""
    problems: list[str] = field(default_factory=list)
    report: list[str] = field(default_factory=list)

    def run(self) -> None:
        records = {table.name: read_record(self.store, table.table_id) for table in self.tables}
        first_seen = self._first_seen()
        for table in self.tables:
            self._record(table, records[table.name])
        self._moves(records)
        self._streams(records)
        self._timers(records, first_seen)
        self._waits(first_seen)
        self._exits()

    def _first_seen(self) -> dict[tuple[str, int], float]:
        """When each step was first seen anywhere: its Play's answer, or its first delivery to a watcher."""
        first: dict[tuple[str, int], float] = {}
        moments = [(s.table, s.seq, s.answered) for s in self.sent if s.seq is not None]
        moments += [(w.table.name, seq, at) for w in self.watchers for seq, at in w.seen]
        for table, seq, at in moments:
            key = (table, seq)
            first[key] = min(first.get(key, at), at)
        return first

    def _record(self, table: HostedTable, steps: list[Step]) -> None:
        seqs = [step.seq for step in steps]
        if seqs != list(range(len(seqs))):
            self.problems.append(f"{table.name}: the record's seqs are not 0..N in order: {_runs(seqs)}")
        if not steps or not steps[-1].update.closed:
            self.problems.append(f"{table.name}: the record does not end with the closing step")

    def _moves(self, records: dict[str, list[Step]]) -> None:
        acknowledged = [(play, play.seq) for play in self.sent if play.seq is not None]
        lost = []
        for play, seq in acknowledged:
            steps = records[play.table]
            step = steps[seq] if seq < len(steps) else None
            if step is None or step.auto or (step.action.seat, step.action.kind) != (play.seat, play.kind):
                lost.append(f"{play.table} seq {seq} (seat {play.seat} {play.kind} on {play.replica})")
        if lost:
            self.problems.append(f"acknowledged moves not in the record as played: {lost}")
        again = ", ".join(f"{count} {reason}" for reason, count in self.again.most_common())
        self.report.append(
            f"moves: {len(acknowledged)} acknowledged Plays, {len(lost)} lost; "
            f"people looked again after: {again or 'nothing'}"
        )

    def _streams(self, records: dict[str, list[Step]]) -> None:
        for watcher in [*self.watchers, *([self.page] if self.page else [])]:
            seqs = [seq for seq, _ in watcher.seen]
            last = records[watcher.table.name][-1].seq
            expected = list(range(seqs[0], last + 1)) if seqs else [0]
            if seqs != expected:
                self.problems.append(f"{watcher.label}: not every step once, in order, to {last}: {_runs(seqs)}")
        if self.page is not None:
            if self.page.snapshots != 1:
                self.problems.append(f"{self.page.label}: {self.page.snapshots} snapshots, where one, the first")
            ends = ", ".join(f"{self.page.ends.count(end)} {end or 'ok'}" for end in sorted(set(self.page.ends)))
            self.report.append(
                f"{self.page.label}: {self.page.count} streams (ended: {ends}), one snapshot, then every step once"
            )
        retries = [len(w.retries) for w in self.watchers if isinstance(w, Watcher)]
        self.report.append(f"Client.watch: {sum(retries)} reconnections ({', '.join(map(str, retries))} each)")

    def _timers(self, records: dict[str, list[Step]], first_seen: dict[tuple[str, int], float]) -> None:
        nobody = late = 0
        lateness: list[tuple[float, str]] = []
        for table in self.tables:
            steps = records[table.name]
            for before, step in itertools.pairwise(steps):
                seat = before.update.to_act[0] if before.update.to_act else None
                where = f"{table.name} seq {step.seq}"
                if step.update.closed or not step.auto:
                    if not step.update.closed and seat is not None and seat not in table.played:
                        self.problems.append(f"{where}: seat {seat}, which nobody plays, moved without its timer")
                    continue
                due = before.update.turn_ends_unix_ms / 1000
                seen = first_seen.get((table.name, step.seq), due)
                if not due:
                    self.problems.append(f"{where}: played by the host though no timer ran")
                elif seen < due - CLOCK_SLACK_S:
                    self.problems.append(f"{where}: played by the host {due - seen:.3f} s before its turn ended")
                lateness.append((seen - due, f"{where}, {self._when(seen)}"))
                nobody, late = (nobody, late + 1) if seat in table.played else (nobody + 1, late)
        latest, where = max(lateness, default=(0.0, "none"))
        self.report.append(
            f"timers: {nobody + late} due turns played by the host, each once and none before its turn ended "
            f"({nobody} of seats nobody plays, {late} of people who did not move in time); the latest seen "
            f"{latest:.2f} s after its turn ended ({where})"
        )

    def _waits(self, first_seen: dict[tuple[str, int], float]) -> None:
        """The longest wait of each watcher, and the longest of a watcher whose own process did not restart between
        its last update before the step was owed and the step (a replica beside one restarting, or the engine)."""
        longest: list[tuple[float, str]] = []
        beside = 0.0
        for watcher in self.watchers:
            if not watcher.seen:
                continue
            watching = watcher.seen[0][1]  # owed nothing before its first answer
            times = [at for _, at in watcher.seen]
            waits = []
            for seq, at in watcher.seen[1:]:
                owed = max(watching, first_seen[(watcher.table.name, seq)])
                waits.append((_serving(watcher.process, owed, at), seq, at))
                before = times[bisect.bisect_right(times, owed) - 1]  # its last update when this one was owed
                if not any(before < down < at for down, _ in watcher.process.down[1:]):
                    beside = max(beside, waits[-1][0])  # its stream was not cut meanwhile
            worst, seq, at = max(waits, default=(0.0, -1, 0.0))
            longest.append((worst, f"{watcher.label}, seq {seq}, {self._when(at)}"))
            if worst > OWED_LIMIT_S:
                self.problems.append(f"{watcher.label} waited {worst:.2f} s for seq {seq}, which it was owed")
        worst, where = max(longest)
        self.report.append(
            f"longest wait for an owed update: {worst:.3f} s [goal < {OWED_GOAL_S:g} s, limit {OWED_LIMIT_S:g} s] "
            f"({where}); the longest of each watcher: {', '.join(f'{w:.2f} s' for w, _ in longest)}; "
            f"of a watcher whose own process did not restart meanwhile: {beside:.3f} s"
        )

    def _when(self, at: float) -> str:
        """``at`` said from the last SIGTERM before it."""
        before = [stop for stop in self.stops if stop.signalled <= at]
        if not before:
            return "before any restart"
        stop = max(before, key=lambda s: s.signalled)
        return f"{at - stop.signalled:.1f} s after {stop.name}'s SIGTERM"

    def _exits(self) -> None:
        """Each stop: its exit after SIGTERM, and (a replica's) after the last Play in flight there was answered;
        the engine's Plays in flight are the hosts', which answer them."""
        replicas = {sent.replica for sent in self.sent}
        for stop in self.stops:
            through = {stop.name} if stop.name in replicas else replicas
            in_flight = [s for s in self.sent if s.sent < stop.signalled < s.answered and s.replica in through]
            acknowledged = sum(1 for s in in_flight if s.seq is not None)
            plays = f"Plays in flight: {len(in_flight)}, acknowledged: {acknowledged}"
            if stop.name in replicas:
                last = max([stop.signalled, *(s.answered for s in in_flight)])
                plays = f"{stop.exited - last:.2f} s after the last Play in flight [goal < {EXIT_GOAL_S:g} s] ({plays})"
            else:
                plays = f"through its hosts: {plays}"
            again = f"; ready again {stop.ready - stop.signalled:.2f} s after SIGTERM" if stop.ready else ""
            build = f" as the {stop.build} build" if stop.build else ""
            self.report.append(
                f"{stop.name}{build}: exited {stop.exit_seconds:.2f} s after SIGTERM [grace {self.grace_s:g} s], "
                f"{plays}{again}"
            )
            if stop.exit_seconds >= self.grace_s:
                self.problems.append(f"{stop.name} took {stop.exit_seconds:.2f} s to exit, past its grace")


def _serving(process: Process, start: float, end: float) -> float:
    """The seconds between ``start`` and ``end`` while ``process`` was serving."""
    total = end - start
    for down, ready in process.down:
        total -= max(0.0, min(end, ready) - max(start, down))
    return max(total, 0.0)


def _runs(seqs: list[int]) -> str:
    """The seqs as runs of consecutive ones ("0-41, 43-60, 60"), to show where a gap or a repeat is."""
    runs: list[str] = []
    start = previous = None
    for seq in seqs:
        if previous is not None and seq == previous + 1:
            previous = seq
            continue
        if start is not None:
            runs.append(f"{start}-{previous}" if start != previous else str(start))
        start = previous = seq
    if start is not None:
        runs.append(f"{start}-{previous}" if start != previous else str(start))
    return ", ".join(runs)
