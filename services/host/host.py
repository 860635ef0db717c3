"""The host's handlers: open a table, play, watch, advise, reissue an invite, close; and its turn timer.

Every engine call goes to TableService through a :class:`~mazziere.services.table.client.TableClient` (the
handlers of this process, within the host call's one admission, or the engine's replicas over gRPC). The host
holds each table's token and seat keys in its store and answers people only with their own ``HostedUpdate``,
written once per audience (:mod:`.updates`) and handed as it is to each of that audience's watchers.
"""

from __future__ import annotations

import asyncio
import hmac
import time
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message

from mazziere.engine import bots as bots_engine
from mazziere.engine.errors import Reason, Rejected
from mazziere.services.core.admission import CostClass
from mazziere.services.core.call import Call
from mazziere.services.core.caller_limits import CallerLimits, Rate
from mazziere.services.core.dispatch import Method, always
from mazziere.services.core.logs import get_logger
from mazziere.services.errors import ServiceError, ServiceReason
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.host import capabilities, limits, reactions, sitting
from mazziere.services.host.attendance import Attendance, Hosting, Status
from mazziere.services.host.hub import HEARTBEAT, Heartbeat, Hub, News
from mazziere.services.host.metrics import HostMetrics
from mazziere.services.host.readers import Snapshots
from mazziere.services.host.settings import HostSettings, Settings
from mazziere.services.host.store import OWNER, SIGNAL, SPECTATORS, Step, Store, StoreError, TableRecord
from mazziere.services.host.updates import Carrying, Heard, StoredUpdate, Told, Update
from mazziere.services.table.client import TableClient
from mazziere.services.wire.answers import Written

HOST_SERVICE = hpb.DESCRIPTOR.services_by_name["HostService"]
T = TypeVar("T")
TIMER_POLICY = "cautious"
"""How the host plays a person's turn when its time runs out."""
PAGE = 500
"""Steps read from the store at a time."""
LEASE_MS = 15_000
"""How long a host holds a due timer it claimed before another may claim it (it plays the turn well within)."""
ANY_AUDIENCE = "*"
"""A revocation that may be any audience's (notifications were lost): every watcher of the table checks its own."""
TIMER_RETRY_FIRST_S = 0.25
TIMER_RETRY_LONGEST_S = 2.0
"""The waits before a due turn is tried again while the engine or the store is unavailable, doubled each time up
to this, for half the lease at most."""
HOUSEKEEPING_SECONDS = 10.0
EXPIRE_EVERY = 6
"""Idle tables are removed every this many housekeeping rounds (a minute)."""


class Host:
    """Tables between people, kept in ``store``, played through ``tables``."""

    def __init__(
        self,
        store: Store,
        tables: TableClient,
        settings: HostSettings,
        metrics: HostMetrics,
        *,
        clock: Callable[[], float] = time.time,
        callers: CallerLimits | None = None,
    ) -> None:
        self.store = store
        self.tables = tables
        self.settings = settings
        self.metrics = metrics
        self.clock = clock
        self.callers = callers or CallerLimits()
        """The callers' limits of the call core, which this host's own limits count their refusals with."""
        self.capacity = limits.Capacity(self.callers, settings.store_max_tables, settings.store_max_bytes)
        self.unknown = limits.Unknown()
        self.snapshots = Snapshots(self._snapshot)
        self.hub = Hub()
        self.attendance = Attendance(store, self.hub, settings, self._now_ms, self._to_act, self._due)
        self.sitter = sitting.Sitter(tables, self._gone, self._sit_move, self._record)
        self.reactions = reactions.Reactions()
        self.replica = uuid.uuid4().hex[:12]
        self.log = get_logger("mazziere.host")
        self._moved = {kind: metrics.moves.labels(kind) for kind in ("auto", "person")}
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._tasks: list[asyncio.Task[None]] = []
        self._claims: asyncio.Task[None] | None = None
        self._firing: set[asyncio.Task[None]] = set()
        self._draining = asyncio.Event()

    # -- lifecycle --------------------------------------------------------------------------------------

    async def start(self) -> None:
        await self.store.open()
        await self.store.listen(self._heard, self._missed)
        self.metrics.tables.set(await self._stored(self.store.count()))
        self.metrics.store_tables_limit.set(self.settings.store_max_tables)
        self.metrics.store_bytes_limit.set(self.settings.store_max_bytes)
        await self._measure()
        self._claims = asyncio.create_task(self._timers())
        self._tasks = [self._claims, asyncio.create_task(self._housekeeping())]
        self._tasks.append(asyncio.create_task(self.attendance.refresh()))

    async def drain(self, seconds: float) -> None:
        """The shutdown's first step: claim no more due turns (the other replicas play them), and give those under
        way ``seconds`` to be played (cut, a claimed turn would wait for its lease to run out)."""
        self._draining.set()
        if self._claims is not None:
            await asyncio.gather(self._claims, return_exceptions=True)
        if self._firing:
            await asyncio.wait(set(self._firing), timeout=seconds)

    async def stop(self) -> None:
        for task in [*self._tasks, *self._firing]:
            task.cancel()
        await asyncio.gather(*self._tasks, *self._firing, return_exceptions=True)
        await self.store.aclose()

    def methods(self) -> list[Method]:
        """HostService's methods: each a coroutine on the event loop, admitted once as a host call (AdviseSeat as
        the advice it costs)."""
        rows: list[tuple[str, Any, type[Message], CostClass, Rate]] = [
            ("OpenTable", self.open_table, hpb.OpenTableRequest, CostClass.HOST, Rate.OPEN),
            ("GetHostedTable", self.get_hosted_table, hpb.GetHostedTableRequest, CostClass.HOST, Rate.READ),
            ("Play", self.play, hpb.PlayRequest, CostClass.HOST, Rate.PLAY),
            ("AdviseSeat", self.advise_seat, hpb.AdviseSeatRequest, CostClass.ADVICE, Rate.READ),
            ("ReissueInvite", self.reissue_invite, hpb.ReissueInviteRequest, CostClass.HOST, Rate.PLAY),
            ("CloseTable", self.close_table, hpb.CloseTableRequest, CostClass.HOST, Rate.PLAY),
            ("StartTable", self.start_table, hpb.StartTableRequest, CostClass.HOST, Rate.PLAY),
            ("React", self.react, hpb.ReactRequest, CostClass.HOST, Rate.PLAY),
        ]
        methods = [
            Method(HOST_SERVICE.full_name, name, fn, request, cost=always(cost), hosted=True, rate=rate)
            for name, fn, request, cost, rate in rows
        ]
        watch = always(CostClass.WATCH)
        methods.append(
            Method(
                HOST_SERVICE.full_name,
                "Watch",
                self.watch,
                hpb.WatchRequest,
                cost=watch,
                streaming=True,
                hosted=True,
                rate=Rate.READ,
            )
        )
        return methods

    # -- handlers ---------------------------------------------------------------------------------------

    async def open_table(self, request: hpb.OpenTableRequest, call: Call) -> Written[Any]:
        call.game = request.game
        limits.check_seats(request)
        bots = _bots(request)
        turn_seconds = limits.turn_seconds(request, self.settings.turn_seconds)
        owner = limits.owner_of(call.caller or "local")
        await self._check_room(owner)
        created = await self.tables.create_table(
            svc.CreateTableRequest(
                game=request.game,
                preset=request.preset,
                options=sitting.with_sit_out(request),
                seats=[pb.Seat(name=s.name, chips=s.chips) for s in request.seats],
            ),
            call,
        )
        table_id = created.table_id
        call.table_id = table_id
        names = tuple(s.name for s in request.seats)
        settings = Settings(request.game, names, bots, turn_seconds, request.waiting_room, request.follow_presence)
        hosting = Hosting(waiting=request.waiting_room)
        secrets = {OWNER: capabilities.new_capability(), SPECTATORS: capabilities.new_capability()}
        secrets.update({str(seat): capabilities.new_capability() for seat, bot in enumerate(bots) if not bot})
        due = 0 if hosting.waiting else self._due(settings, created.to_act, created.is_over)
        told = Told(created, request.game, due)
        now = self._now_ms()
        record = TableRecord(
            table_id=table_id,
            game=request.game,
            token=created.token,
            seq=created.seq,
            seat_keys=created.seat_keys,
            settings=settings.encode(),
            capabilities={a: capabilities.digest(c) for a, c in secrets.items()},
            due_ms=told.due_ms,
            created_ms=now,
            updated_ms=now,
            owner=owner,
            hosting=hosting.encode(),
        )
        first = Step(created.seq, b"", told.stored(_audiences(len(bots))))
        await self._stored(self.store.create(record, first))
        self.capacity.add(len(record.token) + len(record.settings) + sum(map(len, first.seen.values())) + 1024)
        self.unknown.discard(table_id)
        self.metrics.opened.inc()

        def invite(audience: str) -> hpb.Invite:
            link = capabilities.invite_url(self.settings.public_url, table_id, secrets[audience])
            answer = hpb.Invite(capability=secrets[audience], url=link)
            if audience not in (OWNER, SPECTATORS):
                answer.seat = int(audience)
            return answer

        rest = hpb.OpenTableResponse(
            table_id=table_id,
            owner=invite(OWNER),
            invites=[invite(str(s)) for s, bot in enumerate(bots) if not bot],
            spectators=invite(SPECTATORS),
        )
        return Carrying(hpb.OpenTableResponse, told.update(SPECTATORS), rest)

    async def get_hosted_table(self, request: hpb.GetHostedTableRequest, call: Call) -> Written[Any]:
        record, audience = await self._open(request.table_id, call)
        if audience.isdigit():
            record = await self._arrive(record, int(audience))
        status = await self._stored(self._status(record))
        rest = hpb.GetHostedTableResponse(presence=self._presence(record, status), status=status.message())
        if audience.isdigit():
            rest.seat = int(audience)
        return Carrying(hpb.GetHostedTableResponse, await self.snapshots.of(record, _view(audience)), rest)

    async def play(self, request: hpb.PlayRequest, call: Call) -> Written[Any]:
        audience = ""

        def authorize(record: TableRecord) -> None:
            nonlocal audience
            call.game = record.game
            call.table_id = record.table_id
            audience = capabilities.audience_of(record.capabilities, call.metadata)
            if not audience.isdigit() or request.action.seat != int(audience):
                raise ServiceError.of(
                    ServiceReason.CAPABILITY_INVALID,
                    "this invite plays only its own seat; name that seat in the action",
                )
            sitting.check_person_move(request.action, Settings.decode(record.settings))

        record, seat = await self._open(request.table_id, call)
        if seat.isdigit():  # a person's call: present (a paused table resumes before the move)
            await self._stored(self.attendance.arrived(record, int(seat)))
        told = await self._move(
            request.table_id, request.expected_seq, call, action=request.action, authorize=authorize
        )
        return Carrying(hpb.PlayResponse, told.update(audience))

    async def advise_seat(self, request: hpb.AdviseSeatRequest, call: Call) -> hpb.AdviseSeatResponse:
        record, audience = await self._open(request.table_id, call)
        if not audience.isdigit():
            raise ServiceError.of(ServiceReason.CAPABILITY_INVALID, "advice is for a seat: use that seat's invite")
        _check_open(record)
        seat = int(audience)
        await self._stored(self.attendance.arrived(record, seat))
        advice = await self.tables.advise(
            svc.AdviseRequest(
                table_id=record.table_id,
                state=record.token,
                seat=seat,
                seat_key=record.seat_keys[seat],
                samples=request.samples,
            ),
            call,
        )
        return hpb.AdviseSeatResponse(advice=advice)

    async def _arrive(self, record: TableRecord, seat: int) -> TableRecord:
        """A seat's person opens the table (a Watch, a look): counted present, and the sitting moves this may call
        for, played at once. The record, as it is now."""
        arrived = await self._stored(self.attendance.arrived(record, seat))
        return await self.sitter.now(arrived, returned=arrived is not record)

    async def watch(self, request: hpb.WatchRequest, call: Call) -> AsyncIterator[Written[Any] | Message]:
        revocations = self.hub.revocations  # read before the table: a reissue after it is heard or seen
        record, audience = await self._open(request.table_id, call)
        self._check_places(record)
        watcher = _Watcher(audience, capabilities.digest(capabilities.presented(call.metadata)))
        seat = int(audience) if audience.isdigit() else None
        if seat is not None:
            record = await self._arrive(record, seat)
        await self._stored(self.attendance.watched(record))
        with self._watching(record, seat) as queue:
            # Read again once listening: a step made since the first read (another caller's) is in this read or
            # in the queue, never between them.
            record = await self._record(record.table_id, call)
            if self.hub.revocations != revocations:  # a capability was reissued while this stream was opening
                await self._still_valid(record.table_id, watcher)
            last = request.after_seq
            async for item, seq in self._catch_up(record, watcher.view, request.after_seq):
                last = seq
                yield item
            if record.closed and last >= record.seq:  # told the table's end already
                return
            async for item in self._follow(record, watcher, last, queue, call.stream_lifetime):
                yield item

    def _check_places(self, record: TableRecord) -> None:
        """A table's Watch places: one per seat and the spectators' allowance (on this replica)."""
        places = len(record.seat_keys) + self.settings.table_spectators
        if self.hub.watchers(record.table_id) >= places:
            message = f"this table's {places} Watch places are taken"
            overloaded = ServiceReason.OVERLOADED  # the table's places, as a class's: another replica may have room
            watch = CostClass.WATCH.value
            raise self.callers.refuse(watch, "table_watchers", "table_watchers", message, 1.0, overloaded)

    async def _still_valid(self, table_id: str, watcher: _Watcher) -> None:
        """End a Watch stream whose capability was reissued (one store read: reissues are rare)."""
        record = await self._record(table_id)
        known = record.capabilities.get(watcher.audience)
        if known is None or not hmac.compare_digest(known, watcher.digest):
            raise ServiceError.of(
                ServiceReason.CAPABILITY_REVOKED,
                "the table's owner reissued this invite: the stream ends, and the old link opens nothing more",
            )

    @contextmanager
    def _watching(self, record: TableRecord, seat: int | None) -> Iterator[asyncio.Queue[News]]:
        """A watcher's place: its seat told present to the others, then its queue of the table's news."""
        table_id = record.table_id
        if seat is not None:
            self.hub.arrive(table_id, seat)  # told to the others; then this stream listens, then reads the table
        queue = self.hub.subscribe(table_id, record.seq)
        self.metrics.watchers.inc()
        try:
            yield queue
        finally:
            self.metrics.watchers.dec()
            self.hub.unsubscribe(table_id, queue)
            if seat is not None:
                self.hub.leave(table_id, seat)

    async def _catch_up(
        self, record: TableRecord, view: str, after: int
    ) -> AsyncIterator[tuple[Written[Any] | Message, int]]:
        """What a watcher gets first, with the seq it reaches: the table as it is (a new watcher), or the steps
        after ``after`` (one resuming; -1: from the opening)."""
        if after == 0 or after < -1 or after > record.seq:
            snapshot = await self.snapshots.of(record, view)
            yield Carrying(hpb.WatchResponse, snapshot, self._presence_answer(record)), snapshot.seq
            return
        yield self._presence_answer(record), after
        async for update in self._steps(record.table_id, view, after):
            yield Carrying(hpb.WatchResponse, update), update.seq

    async def _follow(
        self, record: TableRecord, watcher: _Watcher, last: int, queue: asyncio.Queue[News], lifetime: float
    ) -> AsyncIterator[Written[Any] | Message]:
        """Every later step as it comes (a heartbeat when the table is idle), until the table closes, the
        watcher's capability is reissued, or ``lifetime`` seconds have passed (0: no limit) and nothing is waiting
        (the stream ends after its next answer or heartbeat; its client resumes it from that answer's seq)."""
        view = watcher.view
        heartbeat = Heartbeat(queue, self.settings.heartbeat_seconds, lifetime)
        try:
            while True:
                if heartbeat.lived():
                    return
                news = await queue.get()
                if news is HEARTBEAT:
                    if queue.empty():  # news that came meanwhile goes first, so the seq told is never ahead of it
                        yield hpb.WatchResponse(heartbeat=True, seq=self.hub.latest(record.table_id))
                    continue
                if news.revoked:
                    if news.revoked in (watcher.audience, ANY_AUDIENCE):
                        await self._still_valid(record.table_id, watcher)
                    continue
                heartbeat.taken()  # the rest is told (or was, just before)
                if news.reaction is not None:
                    yield hpb.WatchResponse(reaction=hpb.Reaction(seat=news.reaction[0], kind=news.reaction[1]))
                    continue
                if news.seq == 0:  # the seq as it was when the change was published, in order with the steps
                    yield self._presence_answer(record, seq=news.latest)
                    continue
                if news.seq <= last:
                    continue
                if (carried := _carried(news, last, view)) is not None:
                    last = news.seq
                    self.metrics.push_lag.observe(time.monotonic() - news.at)
                    yield carried[0]
                    if carried[1]:
                        return
                    continue
                async for update in self._steps(record.table_id, view, last):
                    last = update.seq
                    self.metrics.push_lag.observe(time.monotonic() - news.at)
                    yield Carrying(hpb.WatchResponse, update)
                    if update.closed:
                        return
        finally:
            heartbeat.stop()

    async def reissue_invite(self, request: hpb.ReissueInviteRequest, call: Call) -> hpb.ReissueInviteResponse:
        record, audience = await self._open(request.table_id, call)
        capabilities.owner_only(audience)
        _check_open(record)
        if request.HasField("seat"):
            target = str(request.seat)
            if target not in record.capabilities:
                raise ServiceError.of(
                    ServiceReason.INVALID_REQUEST, f"seat {request.seat} is not a person's seat at this table"
                )
        else:
            target = SPECTATORS
        secret = capabilities.new_capability()
        await self._stored(self.store.set_capability(record.table_id, target, capabilities.digest(secret)))
        await self._stored(self.store.notify(record.table_id, record.seq, revoked=target))  # its streams end
        invite = hpb.Invite(
            capability=secret, url=capabilities.invite_url(self.settings.public_url, record.table_id, secret)
        )
        if request.HasField("seat"):
            invite.seat = request.seat
        return hpb.ReissueInviteResponse(invite=invite)

    async def close_table(self, request: hpb.CloseTableRequest, call: Call) -> hpb.CloseTableResponse:
        record, audience = await self._open(request.table_id, call)
        capabilities.owner_only(audience)
        seq = record.seq + 1
        settings = Settings.decode(record.settings)
        closing = hpb.HostedUpdate(seq=seq, closed=True, game=settings.game)
        keys = [pb.SeatKey(seat=s, key=k) for s, k in enumerate(record.seat_keys)]
        gathered = await self.tables.gather(  # the packs still kept: their seeds, for the record
            svc.GatherRequest(table_id=record.table_id, state=record.token, seat_keys=keys), call
        )
        closing.update.events.extend(gathered.events)
        seen = dict.fromkeys(_audiences(len(settings.names)), closing.SerializeToString())
        if not await self._stored(self.store.close(record.table_id, Step(seq, b"", seen))):
            raise ServiceError.of(ServiceReason.TABLE_CLOSED, "the table is already closed")
        await self._stored(self.store.notify(record.table_id, seq))
        return hpb.CloseTableResponse(seq=seq)

    async def start_table(self, request: hpb.StartTableRequest, call: Call) -> hpb.StartTableResponse:
        record, audience = await self._open(request.table_id, call)
        capabilities.owner_only(audience)
        _check_open(record)
        record = await self._stored(self.attendance.start(record))
        return hpb.StartTableResponse(status=(await self._stored(self._status(record))).message())

    async def react(self, request: hpb.ReactRequest, call: Call) -> hpb.ReactResponse:
        record, audience = await self._open(request.table_id, call)
        if not audience.isdigit():
            raise ServiceError.of(ServiceReason.CAPABILITY_INVALID, "a reaction is a seat's: use that seat's invite")
        _check_open(record)
        reactions.check_kind(request.kind)
        if not self.reactions.admit(record.table_id, int(audience), time.monotonic()):
            raise self.callers.refuse(
                CostClass.HOST.value, "seat_reactions", "reactions", reactions.TOO_MANY, reactions.WAIT_SECONDS
            )
        signal = reactions.signal(int(audience), request.kind)
        await self._stored(self.store.notify(record.table_id, record.seq, revoked=signal))
        return hpb.ReactResponse()

    # -- moves ------------------------------------------------------------------------------------------

    async def _move(
        self,
        table_id: str,
        expected_seq: int,
        call: Call,
        *,
        action: pb.Action | None = None,
        auto: tuple[str, int] | None = None,
        authorize: Callable[[TableRecord], None] | None = None,
    ) -> Told:
        """Apply one move (``action``, or ``auto``: a policy and a seat) at ``expected_seq``, if ``authorize``
        accepts the table; what each audience is told of it. Moves of one table are taken one at a time here;
        across hosts the store's conditional update decides."""
        lock = self._locks.setdefault(table_id, asyncio.Lock())  # kept while a move of the table holds or waits
        async with lock:
            record = await self._record(table_id, call, at_least=expected_seq)
            if authorize is not None:
                authorize(record)
            _check_movable(record, expected_seq)
            seat = action.seat if action is not None else auto[1] if auto else 0
            if not 0 <= seat < len(record.seat_keys):
                raise ServiceError.of(ServiceReason.INVALID_REQUEST, f"there is no seat {seat} at this table")
            act = svc.ActRequest(
                table_id=table_id,
                state=record.token,
                expected_seq=expected_seq,
                seat_key=record.seat_keys[seat],
                viewers=[pb.SeatKey(seat=s, key=k) for s, k in enumerate(record.seat_keys) if s != seat],
                include_spectator=True,
            )
            if action is not None:
                act.action.CopyFrom(action)
            elif auto is not None:
                act.auto_play, act.auto_seat = auto
            reply = await self.tables.act(act, call)
            settings = Settings.decode(record.settings)
            due = 0
            if not Hosting.decode(record.hosting).held:
                away = await self._stored(self.attendance.away(record, settings))
                due = self._due(settings, reply.to_act, reply.is_over, away)
            told = Told(reply, record.game, due)
            step = Step(reply.seq, reply.action(), told.stored(_audiences(len(settings.names))))
            if not await self._stored(self.store.advance(table_id, expected_seq, reply.token, told.due_ms, step)):
                raise _stale(expected_seq, expected_seq + 1)  # another host applied a move first
        self.hub.publish(table_id, reply.seq, told)  # this process's watchers, with what each is told
        await self._stored(self.store.notify(table_id, reply.seq))  # every host's (this one's again: ignored)
        self._moved["auto" if auto else "person"].inc()
        if settings.follow_presence and not reply.is_over:
            await self.sitter.after(record, reply)
        return told

    # -- the turn timer ---------------------------------------------------------------------------------

    async def _timers(self) -> None:
        """Play every due turn, up to ``timer_moves`` at a time (so one table's bot thinking never holds another's
        timer back): each claimed with a lease, so exactly one host plays it; until the host drains."""
        while not self._draining.is_set():
            try:
                free = self.settings.timer_moves - len(self._firing)
                if free > 0:
                    now = self._now_ms()
                    for table_id, seq in await self.store.claim_due(now, LEASE_MS, self.replica, free):
                        task = asyncio.create_task(self._fire(table_id, seq, now))
                        self._firing.add(task)
                        task.add_done_callback(self._firing.discard)
            except StoreError as exc:
                self.metrics.store_errors.inc()
                self.log.warning("timer_store_error", error=str(exc))
            with suppress(TimeoutError):  # the next round, or the drain
                async with asyncio.timeout(self.settings.timer_poll_seconds):
                    await self._draining.wait()

    async def _fire(self, table_id: str, seq: int, now: int) -> None:
        """Play one due turn: a bot's, or a person's whose time ran out (cautiously). While the engine or the store
        is unavailable (a restart, say), try again within the lease, so the turn is not left to the next claim."""
        retry_until = time.monotonic() + LEASE_MS / 2000
        delay, first = TIMER_RETRY_FIRST_S, True
        while True:
            try:
                await self._fire_once(table_id, seq, now, observe=first)
                return
            except (ServiceError, StoreError) as exc:
                unavailable = isinstance(exc, StoreError) or exc.code == grpc.StatusCode.UNAVAILABLE
                if unavailable and not self._draining.is_set() and time.monotonic() + delay < retry_until:
                    await asyncio.sleep(delay)
                    delay, first = min(2 * delay, TIMER_RETRY_LONGEST_S), False
                    continue
                if isinstance(exc, StoreError):
                    self.metrics.store_errors.inc()
                    self.log.warning("timer_store_error", error=str(exc))
                elif exc.reason != ServiceReason.STALE_SEQUENCE.value:
                    self.log.warning("timer_move_refused", table_id=table_id, reason=exc.reason)
                return
            except Exception as exc:  # a timer must never stop the host
                self.log.exception("timer_failed", table_id=table_id, exc_info=exc)
                return

    async def _fire_once(self, table_id: str, seq: int, now: int, *, observe: bool) -> None:
        """One try at a due turn, if it is still due (``observe``: count its lateness, the first time)."""
        record = await self.store.get(table_id)
        if record is None or record.closed or record.seq != seq or not record.due_ms:
            return
        if observe:  # late from when it was due, or from when it was set if due before (never a turn's own length)
            self.metrics.timer_lateness.observe(max(0, now - max(record.due_ms, record.updated_ms)) / 1000)
        if await self.attendance.pause_if_empty(record):  # nobody is there: nothing is played until one returns
            return
        view = await self.tables.get_view(svc.GetViewRequest(table_id=table_id, state=record.token), Call())
        if view.is_over or not view.to_act:
            return
        settings = Settings.decode(record.settings)
        if settings.follow_presence and await self.sitter.due(record, view.to_act):
            return  # a seat sat out or in at the hand boundary: the move set the next timer
        seat = view.to_act[0]
        await self._move(table_id, seq, Call(), auto=(settings.bots[seat] or TIMER_POLICY, seat))

    async def _housekeeping(self) -> None:
        """Every ten seconds, count the store's open tables; every minute, remove the idle ones."""
        ticks = 0
        while True:
            await asyncio.sleep(HOUSEKEEPING_SECONDS)
            ticks += 1
            try:
                if ticks % EXPIRE_EVERY == 0:
                    idle = self._now_ms() - int(self.settings.table_idle_hours * 3_600_000)
                    if removed := await self.store.expire(idle):
                        self.log.info("tables_expired", count=removed)
                self.metrics.tables.set(await self.store.count())
                await self._measure()
            except StoreError as exc:
                self.metrics.store_errors.inc()
                self.log.warning("housekeeping_store_error", error=str(exc))

    # -- parts ------------------------------------------------------------------------------------------

    async def _heard(self, table_id: str, seq: int, revoked: str, seen: Mapping[str, bytes] | None = None) -> None:
        if not revoked.startswith(SIGNAL):
            self.hub.publish(table_id, seq, Heard(seq, seen) if seen and not revoked else None, revoked=revoked)
        elif reaction := reactions.read(revoked):
            self.hub.react(table_id, *reaction)
        else:
            await self.attendance.heard(table_id)

    async def _measure(self) -> None:
        """Read the store's tables and bytes: the capacity OpenTable checks, and their gauges."""
        tables, size = await self.store.usage()
        self.capacity.read(tables, size)
        self.metrics.store_tables.set(tables)
        self.metrics.store_bytes.set(size)

    async def _check_room(self, owner: str) -> None:
        """Room for one more table: in the store, and among its opener's open tables."""
        self.capacity.check()
        if await self._stored(self.store.count_owned(owner)) >= self.settings.open_tables:
            message = f"this caller has {self.settings.open_tables} tables open, its most: close one first"
            retry = limits.STORE_FULL_RETRY_SECONDS
            raise self.callers.refuse(CostClass.HOST.value, "caller_open_tables", "open_tables", message, retry)

    async def _missed(self) -> None:
        """The store may have lost notifications: each watched table's latest seq, read again, wakes the watchers
        it left behind (they read the steps they lack from the store), and each of its watchers checks its
        capability again (a reissue may have been among them)."""
        for table_id, seq in (await self.store.seqs(self.hub.watched())).items():
            self.hub.publish(table_id, seq)
            self.hub.publish(table_id, seq, revoked=ANY_AUDIENCE)

    async def _record(self, table_id: str, call: Call | None = None, *, at_least: int = 0) -> TableRecord:
        """The table (at ``seq`` ``at_least`` or later, if it is there), or TABLE_NOT_FOUND: an id the store did not
        keep a moment ago is not read again, and counts against the caller's unknown tables."""
        record = None if table_id in self.unknown else await self._stored(self.store.get(table_id, at_least))
        if record is None:
            self.unknown.add(table_id)
            self.snapshots.forget(table_id)
            if call is not None and call.caller:
                self.callers.missed(call.caller)
            raise ServiceError.of(ServiceReason.TABLE_NOT_FOUND, "this host keeps no table of that id (or it expired)")
        return record

    async def _open(self, table_id: str, call: Call) -> tuple[TableRecord, str]:
        record = await self._record(table_id, call)
        call.game = record.game
        call.table_id = record.table_id
        return record, capabilities.audience_of(record.capabilities, call.metadata)

    async def _snapshot(self, record: TableRecord, audience: str) -> Update:
        """The table now as ``audience`` sees it, from the engine's GetView (made once per step and audience, and
        shared by its readers: :attr:`snapshots`)."""
        request = svc.GetViewRequest(table_id=record.table_id, state=record.token)
        if audience.isdigit():
            request.seat, request.seat_key = int(audience), record.seat_keys[int(audience)]
        view = await self.tables.get_view(request, Call())
        told = Told(view, record.game, record.due_ms, snapshot=True, closed=record.closed, seq=record.seq)
        return told.update(audience)

    async def _steps(self, table_id: str, audience: str, after: int) -> AsyncIterator[StoredUpdate]:
        """What ``audience`` saw of every step after ``after``, read from the store in pages."""
        while True:
            page = await self._stored(self.store.steps(table_id, audience, after, PAGE))
            for seq, data in page:
                after = seq
                yield StoredUpdate(data)
            if len(page) < PAGE:
                return

    def _presence(self, record: TableRecord, status: Status | None = None) -> list[hpb.Presence]:
        """Who sits where, who has the table open on this replica, and (``status``, counted across replicas at a
        table that minds presence) who came and whose seat the table plays."""
        settings = Settings.decode(record.settings)
        here = self.hub.connected(record.table_id)
        status = status or self.hub.status(record.table_id)
        joined = status.joined if status else frozenset()
        played = status.played if status else frozenset()
        return [
            hpb.Presence(
                seat=s,
                name=name,
                bot=bot,
                connected=bool(bot) or s in here,
                joined=bool(bot) or s in joined,
                played_by_table=s in played,
            )
            for s, (name, bot) in enumerate(zip(settings.names, settings.bots, strict=True))
        ]

    def _presence_answer(self, record: TableRecord, seq: int = 0) -> hpb.WatchResponse:
        """A WatchResponse with the presence and the table's status, as this replica knows them."""
        answer = hpb.WatchResponse(presence=self._presence(record), seq=seq)
        status: Status | None = self.hub.status(record.table_id)
        if status is not None:
            answer.status.CopyFrom(status.message())
        return answer

    async def _status(self, record: TableRecord) -> Status:
        settings = Settings.decode(record.settings)
        return Status.of(record, settings, await self.attendance.seen(record, settings))

    async def _gone(self, record: TableRecord) -> frozenset[int]:
        return await self._stored(self.attendance.gone(record, Settings.decode(record.settings)))

    async def _sit_move(self, table_id: str, seq: int, action: pb.Action) -> None:
        await self._move(table_id, seq, Call(), action=action)

    async def _to_act(self, record: TableRecord) -> tuple[Sequence[int], bool]:
        view = await self.tables.get_view(svc.GetViewRequest(table_id=record.table_id, state=record.token), Call())
        return view.to_act, view.is_over

    def _due(self, settings: Settings, to_act: Sequence[int], is_over: bool, away: frozenset[int] = frozenset()) -> int:
        """When the host plays next: soon for a bot to act (or a person's seat the table plays, ``away``), at the
        turn's end for a person, never if over."""
        if is_over or not to_act:
            return 0
        if any(settings.bots[s] or s in away for s in to_act):
            return self._now_ms() + self.settings.bot_delay_ms
        return self._now_ms() + limits.clamped_turn(settings.turn_seconds) * 1000

    async def _stored(self, work: Awaitable[T]) -> T:
        start = time.perf_counter()
        try:
            return await work
        except StoreError as exc:
            self.metrics.store_errors.inc()
            raise ServiceError.of(ServiceReason.STORE_UNAVAILABLE, f"the host's store failed: {exc}") from None
        finally:
            self.metrics.store_seconds.observe(time.perf_counter() - start)

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)


def _bots(request: hpb.OpenTableRequest) -> tuple[str, ...]:
    """The policy of each seat (empty: a person's), each one the engine knows, and at least one person."""
    bots = tuple(seat.bot for seat in request.seats)
    for bot in bots:
        if bot and bot not in bots_engine.POLICIES:
            raise ServiceError.from_rejected(
                Rejected(
                    Reason.UNKNOWN_POLICY,
                    f"no policy is named {bot[:100]!r}; the policies are {', '.join(bots_engine.POLICIES)}",
                )
            )
    if all(bots):
        raise ServiceError.of(ServiceReason.INVALID_REQUEST, "a hosted table needs at least one person's seat")
    return bots


class _Watcher:
    """One Watch stream's audience (the owner watches as the spectators do) and the digest of its capability."""

    __slots__ = ("audience", "digest", "view")

    def __init__(self, audience: str, digest: bytes) -> None:
        self.audience = audience
        self.digest = digest
        self.view = _view(audience)


def _view(audience: str) -> str:
    """What ``audience`` is shown: its seat's view, or the spectators' (the owner's too)."""
    return audience if audience.isdigit() else SPECTATORS


def _check_open(record: TableRecord) -> None:
    """A closed table takes no more moves, issues no more invites and gives no more advice."""
    if record.closed:
        raise ServiceError.of(ServiceReason.TABLE_CLOSED, "the owner closed this table")


def _carried(news: News, last: int, view: str) -> tuple[Carrying, bool] | None:
    """What ``news`` brings ``view`` when it is the step after ``last`` (applied here, or heard with its updates),
    and whether that step closed the table; None: the watcher reads it from the store."""
    told = news.told if news.seq == last + 1 else None
    item = None if told is None else told.watch_item(view)
    return None if item is None or told is None else (item, told.closed)


def _check_movable(record: TableRecord, expected_seq: int) -> None:
    _check_open(record)
    if record.seq != expected_seq:
        raise _stale(expected_seq, record.seq)


def _audiences(seats: int) -> list[str]:
    return [*map(str, range(seats)), SPECTATORS]


def _stale(expected: int, actual: int) -> ServiceError:
    return ServiceError.of(
        ServiceReason.STALE_SEQUENCE,
        f"the table moved on: it is past sequence {expected}; redraw it and choose again",
        expected_seq=str(expected),
        actual_seq=str(actual),
    )
