"""The one interface every transport calls: :meth:`Dispatcher.unary` and :meth:`Dispatcher.stream`.

A call is parsed on the event loop, charged to its tenant and cost class (refused at once if there is no room),
run on its class's workers with a :class:`~mazziere.services.core.call.Call` whose ``stop`` turns true when the
caller leaves or the deadline passes, and answered on the loop. A stream's answers are written by the transport's
``write``, which must make progress within ``write_seconds``: a reader that stops reading ends its stream and
frees its place. Each call is one tracing span (:mod:`~mazziere.services.core.tracing`), current on the loop and
carried to the worker that runs it. A call (or a stream's step) handed to its workers counts as queued
(:meth:`~mazziere.services.core.admission.Ticket.queued`) until one of them starts it. Given worker processes, the
engine work of the classes in :data:`IN_PROCESSES` runs in them (:meth:`Call.heavy
<mazziere.services.core.call.Call.heavy>`): their threads wait without holding the interpreter.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator, Mapping, Sequence
from concurrent import futures
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import Message

from mazziere.services.core import tracing
from mazziere.services.core.admission import ANONYMOUS, BUDGETED, Admission, CostClass, Ticket
from mazziere.services.core.call import Call
from mazziere.services.core.caller_limits import Rate
from mazziere.services.core.callers import Callers
from mazziere.services.core.hints import RetryHints
from mazziere.services.core.observe import Observer, request_id
from mazziere.services.core.processes import WorkerProcesses
from mazziere.services.errors import ServiceError, ServiceReason

Handler = Callable[[Any, Call], Any]
Write = Callable[[Any], Awaitable[None]]
Encode = Callable[[Any], Any]
"""How a transport takes an answer other than as protobuf bytes (its JSON, a message), made on the worker that
ran the call. A handler's answer may be a message or an answer written on demand
(:class:`~mazziere.services.table.service.Written`), which is written here, once, in the form asked for."""


def always(cost: CostClass) -> Callable[[Any], CostClass]:
    return lambda _request: cost


def a_move(_request: Any) -> CostClass:
    return CostClass.MOVE


@dataclass(frozen=True, slots=True)
class Method:
    """One served method: its handler, its request message, and what a call of it costs."""

    service: str
    name: str
    handler: Handler
    """``(request, call) -> response``, or an iterator of responses for a streaming method."""
    request_class: type[Message]
    cost: Callable[[Any], CostClass] = a_move
    streaming: bool = False
    creates_table: bool = False
    """Counted against the tenant's tables per minute."""
    hosted: bool = False
    """A host method: its handler is a coroutine, awaited on the event loop (its engine work runs through
    :meth:`Dispatcher.run`: a move's on the loop, the costlier classes' on their workers), and its callers are
    people holding capabilities, not tenants with API keys."""
    rate: Rate | None = None
    """A host method's bucket of each caller's (:mod:`~mazziere.services.core.caller_limits`)."""

    @property
    def kind(self) -> str:
        return "server_stream" if self.streaming else "unary"


class Stalled(Exception):
    """A stream's reader made no progress within the write limit; the transport drops the connection."""

    @classmethod
    def after(cls, seconds: float) -> Stalled:
        return cls(f"the reader took no answer within {seconds:g} s")


class Gone(Exception):
    """A stream's reader went away while an answer was being written (a transport's ``write`` raises it)."""


_DONE = object()
INLINE = frozenset({CostClass.MOVE})
"""The classes whose work for an admitted host call runs on the event loop (:meth:`Dispatcher.run`): a move is
cheaper to run than to hand to a worker thread and back."""
STOP_MARGIN = 0.05
"""Seconds before the caller's deadline at which long work is told to stop (at most a fifth of its timeout): the
time to finish the play-out in hand, encode the answer and send it on a busy machine."""
IN_PROCESSES = frozenset({CostClass.BOT, CostClass.ADVICE})
"""The classes whose engine work (a sampling bot's choice, the advice) runs in the worker processes, if any. A
replay stays on its threads: its answers, every seat's views, are written where they are sent."""


class Dispatcher:
    """Admission, the worker pools, deadlines, cancellation, logs and metrics for every call."""

    def __init__(
        self,
        methods: Sequence[Method],
        observer: Observer,
        admission: Admission,
        workers: Mapping[CostClass, int],
        *,
        budget_seconds: float,
        write_seconds: float,
        max_message_bytes: int,
        callers: Callers | None = None,
        processes: int = 0,
        hold_seconds: float = 1.0,
    ) -> None:
        self.methods = {(m.service, m.name): m for m in methods}
        self.observer = observer
        self.admission = admission
        self.callers = callers or Callers()
        """How a host call's caller is known (:mod:`~mazziere.services.core.callers`)."""
        self.hints = RetryHints(hold_seconds)
        """When each recently refused caller may come back (:mod:`~mazziere.services.core.hints`)."""
        self.pools = {
            cost: futures.ThreadPoolExecutor(max_workers=n, thread_name_prefix=f"mazziere-{cost.value}")
            for cost, n in workers.items()
        }
        slots = sum(n for cost, n in workers.items() if cost in IN_PROCESSES)
        self.processes = WorkerProcesses(processes, slots) if processes > 0 and slots else None
        """The worker processes of the classes in :data:`IN_PROCESSES` (None: their work runs on their threads)."""
        self.budget_seconds = budget_seconds
        self.write_seconds = write_seconds
        self.max_message_bytes = max_message_bytes
        tracing.configure()
        self.closing = threading.Event()
        """Set near the end of a shutdown's grace: calls that have not started are refused as SHUTTING_DOWN."""
        self._waiting: set[asyncio.Future[Any]] = set()
        self.draining = False
        """Set by :meth:`drain`: host streams end, and no new one is taken."""
        self._hosted: set[asyncio.Task[Any]] = set()

    def method(self, service: str, name: str) -> Method | None:
        return self.methods.get((service, name))

    def serve(self, methods: Sequence[Method]) -> None:
        """Serve more methods (before a transport starts): a service whose handlers call this very core."""
        self.methods.update({(m.service, m.name): m for m in methods})

    # -- the interface --------------------------------------------------------------------------------

    async def unary(
        self,
        method: Method,
        request: bytes | Message,
        call: Call,
        timeout: float | None,
        *,
        wire: bool = False,
        encode: Encode | None = None,
    ) -> Any:
        """One call: the response (its protobuf bytes if ``wire``, where ``request`` is bytes too; else
        ``encode`` of it, if given), or a ServiceError."""
        start = self.observer.start(method.kind, method.service, method.name)
        rid = request_id(call.metadata)
        span = tracing.begin(method.service, method.name, call.metadata, rid)
        code, reason = grpc.StatusCode.OK, ""
        limits: _Limits | None = None
        try:
            message, cost, ticket, limits = self._admit(method, request, call, timeout, span)
            if method.hosted:
                response = await self._on_loop(method, message, call, ticket, wire, encode)
            else:
                self._offload(call, cost, limits)
                answer = self._answer if span is None else span.carry(self._answer)
                future = self._submit(cost, ticket, answer, method, message, call, cost, wire, encode)
                response = await self._wait(future, limits)
            for answered in call.on_answered:
                answered()
            return response
        except ServiceError as exc:
            error = exc if limits is None else limits.budget(exc)
            code, reason = error.code, error.reason
            await self._refusal_held(call, error, timeout)
            raise error from None
        except asyncio.CancelledError:
            code = grpc.StatusCode.CANCELLED
            raise
        except Exception as exc:
            code = grpc.StatusCode.INTERNAL
            self._failed(method, call, rid, exc, span)
            raise ServiceError(code, "", "internal error") from None
        finally:
            self._finish(method, call, code, reason, start, rid)
            if span is not None:
                span.end(code, reason, self.observer.game_label(call.game))

    async def stream(
        self,
        method: Method,
        request: bytes | Message,
        call: Call,
        timeout: float | None,
        write: Write,
        *,
        wire: bool = False,
        encode: Encode | None = None,
    ) -> None:
        """One server-streaming call: each response to ``write`` (awaited, within the write limit; as ``unary``
        answers it), or a ServiceError before or between them; :class:`Stalled` if the reader stopped reading."""
        start = self.observer.start(method.kind, method.service, method.name)
        rid = request_id(call.metadata)
        span = tracing.begin(method.service, method.name, call.metadata, rid)
        code, reason = grpc.StatusCode.OK, ""
        limits: _Limits | None = None
        try:
            message, cost, ticket, limits = self._admit(method, request, call, timeout, span)
            if method.hosted:
                try:
                    await self._hosted_stream(method.handler(message, call), write, wire, encode)
                finally:
                    ticket.release()
            else:  # its place is given back once the step in hand (if any) is over
                steps = (method.handler, message, call, cost, ticket, limits, span)
                await self._pooled_stream(*steps, write, wire, encode)
        except ServiceError as exc:
            error = exc if limits is None else limits.budget(exc)
            code, reason = error.code, error.reason
            await self._refusal_held(call, error, timeout)
            raise error from None
        except (asyncio.CancelledError, GeneratorExit, Gone):
            code = grpc.StatusCode.CANCELLED
            raise
        except Stalled:
            code, reason = grpc.StatusCode.CANCELLED, "STALLED_READER"
            raise
        except Exception as exc:
            code = grpc.StatusCode.INTERNAL
            self._failed(method, call, rid, exc, span)
            raise ServiceError(code, "", "internal error") from None
        finally:
            if limits is not None:
                limits.left = True
            self._finish(method, call, code, reason, start, rid)
            if span is not None:
                span.end(code, reason, self.observer.game_label(call.game))

    async def _hosted_stream(
        self, answers: AsyncGenerator[Any], write: Write, wire: bool, encode: Encode | None
    ) -> None:
        """A host's stream (a coroutine's answers, on the loop), to its end; or ended at once by :meth:`drain`,
        as SHUTTING_DOWN, so its client watches again (another replica, or this one once restarted)."""
        task = asyncio.current_task()
        assert task is not None
        self._hosted.add(task)
        deadline = _WriteDeadline(task, self.write_seconds)
        try:
            async for answer in answers:
                deadline.since = deadline.loop.time()
                await write(_written(answer, wire, encode))
                deadline.since = None
        except asyncio.CancelledError:
            if deadline.stalled and task.uncancel() == 0:
                raise Stalled.after(self.write_seconds) from None
            if not (self.draining and task.uncancel() == 0):
                raise
            raise _shutting_down() from None
        finally:
            deadline.stop()
            self._hosted.discard(task)
            await answers.aclose()

    async def _pooled_stream(
        self,
        handler: Handler,
        message: Any,
        call: Call,
        cost: CostClass,
        ticket: Ticket,
        limits: _Limits,
        span: tracing.CallSpan | None,
        write: Write,
        wire: bool,
        encode: Encode | None,
    ) -> None:
        """A stream of steps each run on the workers of ``cost``; its place is given back once the step in hand
        (if any) is over."""
        steps: Iterator[Any] | None = None
        step: futures.Future[Any] | None = None
        try:
            pool = self.pools[cost]
            self._check_open()
            steps = iter(handler(message, call))
            while True:
                work = self._next if span is None else span.carry(self._next)
                step = pool.submit(ticket.queued(work), steps, wire, encode)  # queued until a worker takes the step
                item = await self._wait(step, limits)
                step = None
                if item is _DONE:
                    return
                await self._write(write, item)
        finally:
            self._end_stream(ticket, steps, step)

    def _finish(self, method: Method, call: Call, code: grpc.StatusCode, reason: str, start: float, rid: str) -> None:
        caller = self.callers.shown(call.caller) if call.caller else ""
        self.observer.finish(method.kind, method.service, method.name, call, code, reason, start, rid, caller)

    def _failed(self, method: Method, call: Call, rid: str, exc: Exception, span: tracing.CallSpan | None) -> None:
        self.observer.failed(method.name, call, rid, exc)
        if span is not None:
            span.failed(exc)

    async def _write(self, write: Write, item: Any) -> None:
        """A pooled stream's write within the write limit (a hosted stream's: :class:`_WriteDeadline`)."""
        try:
            async with asyncio.timeout(self.write_seconds):  # no task per write, unlike wait_for
                await write(item)
        except TimeoutError:
            raise Stalled.after(self.write_seconds) from None

    async def _on_loop(
        self, method: Method, message: Any, call: Call, ticket: Ticket, wire: bool, encode: Encode | None
    ) -> Any:
        """A coroutine handler, awaited here; its place is given back when it ends."""
        try:
            response = await method.handler(message, call)
        finally:
            ticket.release()
        answer = _written(response, wire, encode)
        return self._check_size(answer) if wire else answer

    async def run(self, cost: CostClass, handler: Handler, request: Any, caller: Call) -> Any:
        """``handler(request)`` for a call already admitted (a host call's engine work: no second place is taken),
        with a Call of its own under the caller's deadline and, for the costly classes, the server's budget; once
        it has answered, what it asked for then is done (the token memo) and the hands it finished are counted.

        A move's work (:data:`INLINE`: tens of microseconds, less than handing it to a thread and back costs) runs
        here, on the loop, under the caller's own deadline and stop; the rest on the workers of ``cost``."""
        self._check_open()
        inner = Call()
        if cost in INLINE:
            inner.time_remaining, inner.stop = caller.time_remaining, caller.stop
            answer = handler(request, inner)
        else:
            limits = _Limits(inner, caller.time_remaining(), self.budget_seconds if cost in BUDGETED else None)
            inner.stop = lambda: limits.stop() or caller.stop()
            self._offload(inner, cost, limits)
            context = contextvars.copy_context()  # the caller's span, if traced
            future = self.pools[cost].submit(context.run, handler, request, inner)
            answer = await self._wait(future, limits)
        for answered in inner.on_answered:
            answered()
        self.observer.count_finished(inner.finished)
        return answer

    def start(self) -> None:
        """Start the worker processes, if any, ahead of the first call that needs them."""
        if self.processes is not None:
            self.processes.start()

    def drain(self) -> None:
        """End every host stream now, as SHUTTING_DOWN, and take no new one (the shutdown's first step: unary calls
        go on, and finish within the grace)."""
        self.draining = True
        for task in list(self._hosted):
            task.get_loop().call_soon_threadsafe(task.cancel)

    def close(self) -> None:
        """Answer every call in flight SHUTTING_DOWN (its work stops at its next poll) and take no new ones."""
        self.closing.set()
        for waiter in list(self._waiting):  # each on its own loop (the gRPC and HTTP ones may differ)
            waiter.get_loop().call_soon_threadsafe(waiter.cancel)

    def shutdown(self) -> None:
        """Stop the workers; any call from now on (a host's due turn, until the host stops) is refused
        SHUTTING_DOWN."""
        self.closing.set()
        for pool in self.pools.values():
            pool.shutdown(wait=False, cancel_futures=True)
        if self.processes is not None:
            self.processes.close()

    # -- parts ------------------------------------------------------------------------------------------

    def _admit(
        self, method: Method, request: bytes | Message, call: Call, timeout: float | None, span: tracing.CallSpan | None
    ) -> tuple[Any, CostClass, Ticket, _Limits]:
        self._check_open()
        if self.draining and method.hosted and method.streaming:
            raise _shutting_down()
        message = _parse(method, request) if isinstance(request, bytes) else request
        cost = method.cost(message)
        if span is not None:
            span.admitted(cost.value, getattr(message, "table_id", ""))
        # The host's own calls come from people's browsers, which hold no API key: its capabilities guard them, and
        # each caller (its tenant if it sent a key, else its address) has limits of its own.
        release = self._admit_caller(method, call, cost) if method.hosted else None
        try:
            tenant = ANONYMOUS if method.hosted else self.admission.tenants.identify(call.metadata)
            if method.creates_table:
                self.admission.create_table(tenant)
            table_id = "" if method.hosted else getattr(message, "table_id", "")  # a table's many watchers are fine
            ticket = self.admission.admit(cost, tenant, table_id).then(release)
        except BaseException:
            if release is not None:
                release()
            raise
        budget = self.budget_seconds if cost in BUDGETED else None
        return message, cost, ticket, _Limits(call, timeout, budget)

    async def _refusal_held(self, call: Call, error: ServiceError, timeout: float | None) -> None:
        """A refusal to come back later, held while its caller ignores such hints (:mod:`.hints`), at most half
        the call's ``timeout``."""
        if error.retry_after is None or error.code != grpc.StatusCode.RESOURCE_EXHAUSTED:
            return
        caller = call.caller or self._caller_key(call)
        hold = self.hints.refused(caller, error.retry_after, None if timeout is None else timeout / 2)
        if hold:
            self.observer.metrics.refusals_held.inc()
            try:
                await asyncio.sleep(hold)
            finally:
                self.hints.release()

    def _caller_key(self, call: Call) -> str:
        """The call's caller: its tenant if it sent a key, else its address (:mod:`.callers`)."""
        tenant = self.admission.tenants.find(call.metadata)
        return self.callers.key(call, None if tenant is None else tenant.name)

    def _admit_caller(self, method: Method, call: Call, cost: CostClass) -> Callable[[], None] | None:
        """Name a host call's caller and let it in by its limits (a stream takes one of its Watch places: what gives
        it back), or refuse it."""
        call.caller = self._caller_key(call)
        limits = self.admission.callers
        limits.admit(call.caller, method.rate, cost.value)
        return limits.hold_watch(call.caller, cost.value) if method.streaming else None

    def _offload(self, call: Call, cost: CostClass, limits: _Limits) -> None:
        """Give the call the worker processes, if its class runs its engine work there."""
        processes = self.processes
        if processes is None or cost not in IN_PROCESSES:
            return
        stop = call.stop
        call.offload = lambda work, *args: processes.run(work, args, limits.stop_at, stop)

    def _submit(self, cost: CostClass, ticket: Ticket, fn: Callable[..., Any], *args: Any) -> futures.Future[Any]:
        try:
            future = self.pools[cost].submit(ticket.queued(fn), *args)  # queued until a worker starts it
        except BaseException:
            ticket.release()
            raise
        future.add_done_callback(ticket.release)
        return future

    async def _wait(self, future: futures.Future[Any], limits: _Limits) -> Any:
        """The work's result; if the caller leaves meanwhile (or the server closes), the work is told to stop."""
        waiter = asyncio.wrap_future(future)
        self._waiting.add(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            limits.left = True
            if self.closing.is_set():
                raise _shutting_down() from None
            raise
        finally:
            self._waiting.discard(waiter)

    def _answer(
        self, method: Method, message: Any, call: Call, cost: CostClass, wire: bool, encode: Encode | None
    ) -> Any:
        """On a worker: the handler's answer, written as protobuf bytes if ``wire`` (else as ``encode`` says),
        checked against the size limit (its protobuf size: every answer on the wire, the budgeted ones else)."""
        self._check_open()
        _check_deadline(call)
        response = method.handler(message, call)
        answer = _written(response, wire, encode)
        _check_deadline(call)
        if wire:
            return self._check_size(answer)
        if cost in BUDGETED:
            self._check_size(response.ByteSize())
        return answer

    def _next(self, steps: Iterator[Any], wire: bool, encode: Encode | None) -> Any:
        item: Any = next(steps, _DONE)
        if item is _DONE:
            return item
        answer = _written(item, wire, encode)
        return self._check_size(answer) if wire else answer

    def _end_stream(self, ticket: Ticket | None, steps: Iterator[Any] | None, step: futures.Future[Any] | None) -> None:
        """Close the steps once the one in hand (if any) is over, then give the place back."""

        def close(_: object = None) -> None:
            try:
                if steps is not None and hasattr(steps, "close"):
                    steps.close()
            finally:
                if ticket is not None:
                    ticket.release()

        if step is None or step.done():
            close()
        else:
            step.add_done_callback(close)

    def _check_open(self) -> None:
        if self.closing.is_set():
            raise _shutting_down()

    def _check_size(self, data: bytes | int) -> Any:
        size = data if isinstance(data, int) else len(data)
        if size > self.max_message_bytes:
            raise ServiceError.of(
                ServiceReason.RESPONSE_TOO_LARGE,
                f"the answer would be {size} bytes, over the limit of {self.max_message_bytes}; "
                "for a replay, use StreamReplay or fewer actions",
                size=str(size),
                limit=str(self.max_message_bytes),
            )
        return data


class _WriteDeadline:
    """A hosted stream's write limit: one timer for the stream's life, moved on lazily, where a timer set and
    cancelled around each write cost two of the loop's look-ups and a heap entry. The stream notes when its write in
    hand began (``since``; None between writes); when the timer comes due and that write has lasted ``seconds``,
    the stream's task is cancelled and ``stalled`` set, else the timer is set ``seconds`` after the write's start
    (or after now)."""

    __slots__ = ("_handle", "_seconds", "_task", "loop", "since", "stalled")

    def __init__(self, task: asyncio.Task[Any], seconds: float) -> None:
        self.loop = asyncio.get_running_loop()
        self._task, self._seconds = task, seconds
        self.since: float | None = None
        self.stalled = False
        self._handle = self.loop.call_later(seconds, self._due)

    def _due(self) -> None:
        now, since = self.loop.time(), self.since
        if since is not None and now - since >= self._seconds:
            self.stalled = True
            self._task.cancel()
            return
        self._handle = self.loop.call_at((now if since is None else since) + self._seconds, self._due)

    def stop(self) -> None:
        self._handle.cancel()


class _Limits:
    """A call's deadline (the caller's, and past a move the server's budget) and whether its caller left; sets
    the call's ``time_remaining`` and ``stop``. ``stop`` turns true a little before the caller's deadline, so
    that work which can answer with what it has (sampled advice) still answers in time."""

    def __init__(self, call: Call, timeout: float | None, budget: float | None) -> None:
        now = time.monotonic()
        self.caller_deadline = None if timeout is None else now + timeout
        ends = [t for t in (self.caller_deadline, None if budget is None else now + budget) if t is not None]
        self.deadline = min(ends) if ends else None
        margin = 0.0 if timeout is None else min(STOP_MARGIN, timeout / 5)
        self.stop_at = None if self.deadline is None else self.deadline - margin
        self.budget_seconds = budget
        self.left = False
        """Set (on the loop) once the call is over or its caller left; read by the work's threads."""
        call.time_remaining = self.remaining
        call.stop = self.stop

    def remaining(self) -> float | None:
        if self.left:
            return 0.0
        return None if self.deadline is None else self.deadline - time.monotonic()

    def stop(self) -> bool:
        return self.left or (self.stop_at is not None and time.monotonic() >= self.stop_at)

    def budget(self, error: ServiceError) -> ServiceError:
        """Work cut short while its caller still waits was cut by the server's budget, not the caller's deadline."""
        if error.code != grpc.StatusCode.DEADLINE_EXCEEDED or self.budget_seconds is None or self.left:
            return error
        if self.caller_deadline is not None and time.monotonic() >= self.caller_deadline:
            return error
        limit = f"{self.budget_seconds:g}"
        return ServiceError.of(
            ServiceReason.REPLAY_BUDGET_EXCEEDED,
            f"the call ran over the server's limit of {limit} s; ask for less work at a time",
            limit_seconds=limit,
        )


def _shutting_down() -> ServiceError:
    return ServiceError.of(ServiceReason.SHUTTING_DOWN, "the server is shutting down; retry")


def _written(response: Any, wire: bool, encode: Encode | None) -> Any:
    """A handler's answer in the form the transport takes: its protobuf bytes (a message's serialized, a written
    answer's as written), ``encode`` of it, or itself."""
    if wire:
        return response.SerializeToString()
    return response if encode is None else encode(response)


def _parse(method: Method, body: bytes) -> Any:
    try:
        return method.request_class.FromString(body)
    except Exception:  # DecodeError, and whatever else a hostile body makes the parser raise
        raise ServiceError.of(
            ServiceReason.INVALID_REQUEST, f"the body of this {method.name} call is not a valid protobuf request"
        ) from None


def _check_deadline(call: Call) -> None:
    """Refuse work whose caller has stopped waiting (the engine is pure, so nothing is left half done)."""
    remaining = call.time_remaining()
    if remaining is not None and remaining <= 0:
        raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED", "the call's deadline passed")
