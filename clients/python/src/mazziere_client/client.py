"""The host loop over gRPC: ``Client`` (the channel, and a hosted table's ``watch``) and ``Table`` (one table's latest
state); a refused call raises ``MazziereError`` (errors.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from types import TracebackType
from typing import Protocol, Self, cast

import grpc
from google.protobuf.message import Message

from mazziere_client.errors import MazziereError
from mazziere_client.v1 import service_pb2 as svc
from mazziere_client.v1 import service_pb2_grpc
from mazziere_client.v1 import table_pb2 as pb
from mazziere_client.watch import Backoff, Watch

DEFAULT_TARGET = "localhost:50051"
# A lost connection is tried again within 5 s at most (gRPC's default waits up to 120 s between attempts), as
# Backoff's longest wait: a Watch comes back soon after its server does.
CHANNEL_OPTIONS = [("grpc.max_reconnect_backoff_ms", 5000)]


class TableServiceStub(Protocol):
    """The typed face of the generated ``service_pb2_grpc.TableServiceStub``, which grpcio-tools writes untyped."""

    def ListGames(self, request: svc.ListGamesRequest, *, timeout: float | None = None) -> svc.ListGamesResponse: ...

    def CreateTable(
        self, request: svc.CreateTableRequest, *, timeout: float | None = None
    ) -> svc.CreateTableResponse: ...

    def Act(self, request: svc.ActRequest, *, timeout: float | None = None) -> svc.ActResponse: ...

    def GetView(self, request: svc.GetViewRequest, *, timeout: float | None = None) -> svc.GetViewResponse: ...

    def Replay(self, request: svc.ReplayRequest, *, timeout: float | None = None) -> svc.ReplayResponse: ...

    def StreamReplay(
        self, request: svc.StreamReplayRequest, *, timeout: float | None = None
    ) -> Iterator[svc.StreamReplayResponse]: ...

    def Advise(self, request: svc.AdviseRequest, *, timeout: float | None = None) -> svc.AdviseResponse: ...

    def Gather(self, request: svc.GatherRequest, *, timeout: float | None = None) -> svc.GatherResponse: ...


def _as_seat(seat: pb.Seat | tuple[str, int]) -> pb.Seat:
    if isinstance(seat, pb.Seat):
        return seat
    name, chips = seat
    return pb.Seat(name=name, chips=chips)


def _as_rules(game: str, options: pb.Rules | Message | None) -> pb.Rules | None:
    """``Rules`` as given, or one game's rules message (e.g. ``SetteEMezzoRules``) wrapped in ``Rules``."""
    if options is None or isinstance(options, pb.Rules):
        return options
    rules = pb.Rules()
    if game not in rules.DESCRIPTOR.fields_by_name:
        raise ValueError(f"unknown game {game!r}: its options cannot be wrapped; pass a Rules message")
    getattr(rules, game).CopyFrom(options)
    return rules


class Client:
    """A channel to ``mazziere serve`` and the calls of ``TableService``, each raising ``MazziereError`` if refused.

    ``target`` is ``host:port`` (any gRPC target, e.g. ``dns:///mazziere:50051``); the channel is plaintext unless
    ``credentials`` are given, and tries a lost connection again within 5 s at most. ``channel`` uses an existing
    channel instead (the client then does not close it).
    ``timeout`` is each call's deadline in seconds (``None``: none). Use it as a context manager, or ``close()``.
    """

    def __init__(
        self,
        target: str = DEFAULT_TARGET,
        *,
        credentials: grpc.ChannelCredentials | None = None,
        channel: grpc.Channel | None = None,
        timeout: float | None = 10.0,
    ) -> None:
        self._owns_channel = channel is None
        if channel is None and credentials is not None:
            channel = grpc.secure_channel(target, credentials, CHANNEL_OPTIONS)
        elif channel is None:
            channel = grpc.insecure_channel(target, CHANNEL_OPTIONS)
        self.channel = channel
        # The generated stub, typed: also for the calls the helper does not wrap (Replay, StreamReplay).
        make_stub: Callable[[grpc.Channel], object] = service_pb2_grpc.TableServiceStub
        self.stub = cast(TableServiceStub, make_stub(channel))
        self.timeout = timeout

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._owns_channel:
            self.channel.close()

    def list_games(self) -> list[pb.GameInfo]:
        """Every game the server plays: presets, options and action kinds."""
        return list(self._list_games().games)

    def server_version(self) -> str:
        """The server's version, e.g. ``"0.1.0"`` (``ListGamesResponse.server_version``; empty from a server older
        than that field)."""
        return self._list_games().server_version

    def _list_games(self) -> svc.ListGamesResponse:
        try:
            return self.stub.ListGames(svc.ListGamesRequest(), timeout=self.timeout)
        except grpc.RpcError as exc:
            raise MazziereError.from_rpc_error(exc) from exc

    def create(
        self,
        game: str,
        seats: Sequence[pb.Seat | tuple[str, int]],
        preset: str | None = None,
        options: pb.Rules | Message | None = None,
        *,
        seed: bytes | None = None,
    ) -> Table:
        """A new table: ``seats`` in seat order as ``Seat`` messages or ``(name, chips)`` pairs; ``preset`` by name
        (``None``: the game's default); ``options`` a ``Rules`` or the game's own rules message (e.g.
        ``SetteEMezzoRules(stake_max=50)``) holding the overrides; ``seed`` only for tests and replays."""
        request = svc.CreateTableRequest(game=game, preset=preset or "", seats=[_as_seat(s) for s in seats])
        rules = _as_rules(game, options)
        if rules is not None:
            request.options.CopyFrom(rules)
        if seed is not None:
            request.seed = seed
        try:
            created = self.stub.CreateTable(request, timeout=self.timeout)
        except grpc.RpcError as exc:
            raise MazziereError.from_rpc_error(exc) from exc
        table = Table(self, created.table_id, created.state, created.seq, {k.seat: k.key for k in created.seat_keys})
        table.to_act, table.is_over, table.created = list(created.to_act), created.is_over, created
        return table

    def watch(
        self,
        table_id: str,
        capability: str,
        after_seq: int = 0,
        *,
        backoff: Backoff | None = None,
        on_retry: Callable[[MazziereError | None, float], None] | None = None,
    ) -> Watch:
        """A hosted table's updates (``HostService.Watch`` with the ``capability`` of an invite, the spectators or
        the owner), across reconnections: every update once, in order, until the table closes (watch.py)."""
        return Watch(self.channel, table_id, capability, after_seq, backoff=backoff, on_retry=on_retry)


class Table:
    """One table as a host keeps it: ``table_id``, the latest ``state`` token and its ``seq``, every seat's key.

    ``act`` sends the latest state with ``expected_seq = seq`` and, once the move is accepted, keeps the new state
    and sequence number; a refused move changes nothing. A host that stored a table builds it again with
    ``Table(client, table_id, state, seq, seat_keys)``. Not for use from several threads at once.
    """

    def __init__(
        self, client: Client, table_id: str, state: bytes, seq: int, seat_keys: dict[int, str] | None = None
    ) -> None:
        self.client = client
        self.table_id = table_id
        self.state = state
        self.seq = seq
        self.seat_keys = dict(seat_keys or {})
        self.to_act: list[int] = []
        self.is_over = False
        self.created: svc.CreateTableResponse | None = None

    def key(self, seat: int) -> str:
        """The seat's key ("" when unknown, e.g. on a server in trusted mode, which issues none)."""
        return self.seat_keys.get(seat, "")

    def act(
        self,
        action: pb.Action,
        seat_key: str | None = None,
        *,
        viewers: Iterable[int] = (),
        include_spectator: bool = False,
    ) -> svc.ActResponse:
        """Plays ``action`` with the acting seat's key (``None``: the one this table holds for ``action.seat``).

        The answer's ``updates`` are the acting seat's, then the spectator's (``include_spectator``), then one per
        seat of ``viewers`` (their keys from this table). Raises ``MazziereError`` if the move is refused.
        """
        request = svc.ActRequest(
            action=action,
            seat_key=self.key(action.seat) if seat_key is None else seat_key,
        )
        return self._act(request, viewers, include_spectator)

    def auto(
        self,
        policy: str = "cautious",
        seat: int | None = None,
        seat_key: str | None = None,
        *,
        viewers: Iterable[int] = (),
        include_spectator: bool = False,
    ) -> svc.ActResponse:
        """Lets the table play for ``seat`` with the service's ``policy`` ("random", "cautious" or "best"), as a host
        does when a player's time is up. ``seat``: ``None`` for the one seat to act (name it when several may act).
        The seat's key is needed as for ``act``; the answer's ``action`` is the move played, and its events have
        ``auto`` set. Raises ``MazziereError`` (reason ``UNKNOWN_POLICY`` for a name that is no policy)."""
        request = svc.ActRequest(auto_play=policy)
        if seat is not None and self.to_act != [seat]:
            request.auto_seat = seat
        acting = seat if seat is not None else (self.to_act[0] if self.to_act else 0)
        request.seat_key = self.key(acting) if seat_key is None else seat_key
        return self._act(request, viewers, include_spectator)

    def _act(self, request: svc.ActRequest, viewers: Iterable[int], include_spectator: bool) -> svc.ActResponse:
        request.table_id, request.state, request.expected_seq = self.table_id, self.state, self.seq
        request.viewers.extend(pb.SeatKey(seat=seat, key=self.key(seat)) for seat in viewers)
        request.include_spectator = include_spectator
        try:
            answer = self.client.stub.Act(request, timeout=self.client.timeout)
        except grpc.RpcError as exc:
            raise MazziereError.from_rpc_error(exc) from exc
        self.state, self.seq, self.to_act, self.is_over = answer.state, answer.seq, list(answer.to_act), answer.is_over
        return answer

    def advise(
        self, seat: int, seat_key: str | None = None, *, samples: int = 0, timeout: float | None = 60.0
    ) -> svc.AdviseResponse:
        """The odds of each legal action of ``seat`` now, from what that seat may see alone: per action its
        ``expected_value`` in chips, ``win``/``push``/``lose``/``bust`` probabilities and ``standard_error``. Needs
        the seat's key (``None``: the one this table holds). ``samples``: 0 for exact odds where they are cheap
        (else 200 sampled deals), or 1 to 1000 deals to sample. Slower than the other calls (it plays out deals), so
        it has a deadline of its own, ``timeout`` seconds."""
        request = svc.AdviseRequest(
            table_id=self.table_id,
            state=self.state,
            seat=seat,
            seat_key=self.key(seat) if seat_key is None else seat_key,
            samples=samples,
        )
        try:
            return self.client.stub.Advise(request, timeout=timeout)
        except grpc.RpcError as exc:
            raise MazziereError.from_rpc_error(exc) from exc

    def gather(self) -> svc.GatherResponse:
        """Close the table for good: the seeds of the packs it still keeps (``SEED`` events, docs/fairness.md),
        so that its public record verifies to the end (:func:`mazziere_client.verify_record`). The table must not
        be played on afterwards: its stock is no longer secret. It needs every seat's key, which this table holds."""
        keys = [pb.SeatKey(seat=seat, key=key) for seat, key in sorted(self.seat_keys.items())]
        request = svc.GatherRequest(table_id=self.table_id, state=self.state, seat_keys=keys)
        try:
            return self.client.stub.Gather(request, timeout=self.client.timeout)
        except grpc.RpcError as exc:
            raise MazziereError.from_rpc_error(exc) from exc

    def view(self, seat: int | None, seat_key: str | None = None) -> svc.GetViewResponse:
        """What ``seat`` may see of the latest state and may do now (``update.legal_actions``), with its key
        (``None``: the one this table holds); ``seat=None`` asks for the spectator's view, which needs no key."""
        request = svc.GetViewRequest(table_id=self.table_id, state=self.state)
        if seat is not None:
            request.seat = seat
            request.seat_key = self.key(seat) if seat_key is None else seat_key
        try:
            return self.client.stub.GetView(request, timeout=self.client.timeout)
        except grpc.RpcError as exc:
            raise MazziereError.from_rpc_error(exc) from exc
