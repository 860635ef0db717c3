"""The composition root: configuration -> call core -> table service -> host -> transports.

:class:`App` builds everything one server process holds, once, from a :class:`~mazziere.services.config.Config`;
``mazziere serve`` (:func:`serve_embedded`), the split ``mazziere gateway`` (:func:`serve_split`), the tests and the
benchmarks all build it here. Nothing else in ``services/`` imports the host or wires one room to another.

Embedded, one process (or ``MAZZIERE_PROCESSES`` forked ones, each all of it, sharing the ports) serves gRPC on
``MAZZIERE_PORT`` and REST on ``MAZZIERE_REST_PORT``; the gateway calls the handlers in process (or over a local
channel, ``MAZZIERE_GATEWAY_EMBEDDED=channel``) and shares the service's metrics registry. On SIGTERM the health
service turns NOT_SERVING (so ``/readyz`` answers 503), both keep serving for ``MAZZIERE_DRAIN_SECONDS``, then both
stop, letting calls in flight finish.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from grpc_health.v1 import health_pb2

from mazziere.services.config import Config, ConfigError
from mazziere.services.core import eventloop
from mazziere.services.core.admission import Admission, CostClass, Tenants
from mazziere.services.core.backend import Backend, InProcessBackend, Write
from mazziere.services.core.call import Call
from mazziere.services.core.caller_limits import CallerLimits, Limits
from mazziere.services.core.callers import Callers, parse_networks
from mazziere.services.core.collector import Collector, freeze_start_up
from mazziere.services.core.dispatch import Dispatcher, Encode, Method
from mazziere.services.core.forking import Child, machine_cores, run_forked
from mazziere.services.core.logs import get_logger
from mazziere.services.core.metrics import Metrics, new_registry, serve_registry
from mazziere.services.core.observe import Observer
from mazziere.services.grpc.server import GrpcServer, grace_cuts_streams
from mazziere.services.host.capabilities import HEADER as CAPABILITY_HEADER
from mazziere.services.host.capabilities import in_the_clear, invite_base
from mazziere.services.host.host import HOST_SERVICE, Host
from mazziere.services.host.metrics import HostMetrics
from mazziere.services.host.settings import HostSettings
from mazziere.services.host.store import Store, StoreError, open_store
from mazziere.services.host.store.siblings import Siblings
from mazziere.services.host.store.sqlite import hold_lock
from mazziere.services.http.app import create_app
from mazziere.services.http.connections import ConnectionGate, connection_cap, raise_open_files
from mazziere.services.http.server import RestServer, bind
from mazziere.services.table.channel import ChannelBackend
from mazziere.services.table.client import LocalTables, RemoteTables, TableClient
from mazziere.services.table.games import served_games
from mazziere.services.table.keyfile import kept_keyring
from mazziere.services.table.methods import SERVICE_NAME, TABLE_SERVICE, table_methods
from mazziere.services.table.sealing import Keyring
from mazziere.services.table.service import TableService

KEY_FILE = "seal.keys"
"""The sealing key the embedded default makes for itself in its data directory (when no keys are configured)."""


def make_keyring(config: Config, *, keep_in: Path | None = None, store: Store | None = None) -> Keyring:
    """The configured keys; else one kept in ``keep_in`` (made on first start, readable by this user only, checked
    against the tables ``store`` holds: :mod:`~mazziere.services.table.keyfile`), so stored tables outlive a
    restart; else one for this process alone."""
    keyring = Keyring.from_config(config.seal_keys, config.seal_keys_file)
    if keyring is not None:
        return keyring
    if keep_in is not None:
        return kept_keyring(
            keep_in / KEY_FILE,
            latest_token=lambda: None if store is None else asyncio.run(store.latest_token()),
            store=_store_kind(config.store),
            fresh=config.new_seal_key,
        )
    keyring = Keyring.ephemeral()
    get_logger().warning(
        "EPHEMERAL_SEALING_KEY",
        message="no MAZZIERE_SEAL_KEYS or MAZZIERE_SEAL_KEYS_FILE: sealing with a key made for this process "
        "alone; tokens and seat keys die with it and other replicas cannot open them",
        kid=keyring.primary,
    )
    return keyring


def keeps_its_key(config: Config) -> bool:
    """Whether the embedded default keeps its own sealing key beside its store (a host on SQLite, in process)."""
    return config.host_enabled and config.store.startswith("sqlite:") and not config.engine_target


class App:
    """Everything one server process holds, built once from ``config``: the call core and its metrics, the table
    service, the host (with ``hosting``, on ``store`` or the configured one), and the gRPC server; :meth:`rest`
    makes the HTTP transport."""

    def __init__(
        self,
        config: Config,
        *,
        keyring: Keyring | None = None,
        hosting: bool = False,
        store: Store | None = None,
        extra_methods: Sequence[Method] = (),
    ) -> None:
        self.config = config
        sys.setswitchinterval(config.switch_interval_ms / 1000)  # the process's threads share one GIL
        self.keyring = keyring or make_keyring(config)
        self.metrics = Metrics()
        self.table = TableService(
            self.keyring,
            trusted_mode=config.trusted_mode,
            max_replay_actions=config.max_replay_actions,
            recent_size=config.recent_tokens,
            replay_max_views=config.replay_max_views,
        )
        self.dispatcher = _dispatcher(config, self.metrics, [*table_methods(self.table), *extra_methods])
        self.host = _host(config, self.table, self.dispatcher, self.metrics, store) if hosting else None
        if self.host is not None:
            self.dispatcher.serve(self.host.methods())
        self.grpc = GrpcServer(config, self.dispatcher)
        self.log = get_logger()
        if config.trusted_mode:
            self.log.warning(
                "TRUSTED_MODE", message="states travel in plain and seat keys are not required: trusted back ends only"
            )
        if self.host is not None and in_the_clear(config.public_url):
            self.log.warning(
                "PUBLIC_URL_IN_THE_CLEAR",
                message="MAZZIERE_PUBLIC_URL is plain http:// at an address on the internet: invite links, and the "
                "capabilities in them, travel unencrypted; serve /play over TLS (docs/security.md, "
                '"TLS for friends on the internet") and set an https:// MAZZIERE_PUBLIC_URL',
                public_url=config.public_url,
            )
        if self.host is not None and grace_cuts_streams(config):
            self.log.warning(
                "CONNECTION_AGE_GRACE_SHORT",
                message="MAZZIERE_MAX_CONNECTION_AGE_GRACE_MS is under one and a half MAZZIERE_MAX_CONNECTION_AGE_MS "
                "and a heartbeat: a connection closed for its age cuts the Watch streams still open on it "
                "(UNAVAILABLE, all at once) instead of letting them end one by one (docs/configuration.md)",
                max_connection_age_ms=config.max_connection_age_ms,
                max_connection_age_grace_ms=config.max_connection_age_grace_ms,
            )
        if not self.dispatcher.admission.tenants.required:
            self.log.info("anonymous_callers", message="no MAZZIERE_TENANTS: every caller shares one tenant's quotas")

    def table_backend(self, ready: Callable[[], Awaitable[bool]] | None = None) -> Backend:
        """TableService for the HTTP transport: this process's call core, or a local channel to its gRPC port
        (``MAZZIERE_GATEWAY_EMBEDDED=channel``)."""
        if self.config.gateway_embedded == "channel":
            return _channel(self.config, f"127.0.0.1:{self.grpc.port}")
        return InProcessBackend(
            self.dispatcher, TABLE_SERVICE, timeout=self.config.gateway_timeout_seconds, ready=ready or self.ready
        )

    def rest(self, backend: Backend | None = None, *, registry: Any = None) -> FastAPI:
        """The HTTP transport over ``backend`` (default :meth:`table_backend`), with the host's service when this
        process hosts."""
        host = None
        if self.host is not None:
            timeout = self.config.gateway_timeout_seconds
            host = (HOST_SERVICE, InProcessBackend(self.dispatcher, HOST_SERVICE, timeout=timeout, ready=_always_ready))
        return create_app(
            backend or self.table_backend(),
            self.config,
            registry=self.metrics.registry if registry is None else registry,
            host=host,
            host_headers=[CAPABILITY_HEADER],
        )

    async def ready(self) -> bool:
        """The gRPC health service says SERVING (false from NOT_SERVING on, at shutdown)."""
        request = health_pb2.HealthCheckRequest(service=SERVICE_NAME)
        answer = await self.grpc.health.Check(request, _HealthContext())
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)


def _dispatcher(config: Config, metrics: Metrics, methods: Sequence[Method]) -> Dispatcher:
    try:
        tenants = Tenants.parse(config.tenants_json())
    except ValueError as exc:
        raise ConfigError(f"MAZZIERE_TENANTS: {exc}") from None
    places = {
        CostClass.MOVE: config.max_concurrent_calls,
        CostClass.BOT: config.bot_calls,
        CostClass.ADVICE: config.advice_calls,
        CostClass.REPLAY: 2 * config.replay_workers,
        CostClass.HOST: config.max_concurrent_calls,
        CostClass.WATCH: config.watchers,
    }
    workers = {
        CostClass.MOVE: config.workers,
        CostClass.BOT: config.bot_workers,
        CostClass.ADVICE: config.advice_workers,
        CostClass.REPLAY: config.replay_workers,
    }
    admission = Admission(
        places, tenants, per_table=config.table_calls, metrics=metrics, callers=CallerLimits(caller_limits(config))
    )
    return Dispatcher(
        methods,
        Observer(metrics, served_games(), config.log_calls),
        admission,
        workers,
        budget_seconds=config.replay_seconds,
        write_seconds=config.stream_write_seconds,
        max_message_bytes=config.max_message_bytes,
        callers=callers(config),
        processes=config.worker_processes,
        hold_seconds=config.refusal_hold_seconds,
    )


def callers(config: Config) -> Callers:
    """How the host tells its callers apart, from ``config`` (a malformed proxy list is a ConfigError)."""
    try:
        proxies = parse_networks(config.trusted_proxies)
    except ValueError as exc:
        raise ConfigError(f"MAZZIERE_TRUSTED_PROXIES: {exc}") from None
    return Callers(proxies, config.forwarded_header, config.caller_ipv6_prefix, config.log_addresses == "prefix")


def caller_limits(config: Config) -> Limits:
    return Limits(
        plays_per_second=config.caller_plays_per_second,
        reads_per_second=config.caller_reads_per_second,
        burst_seconds=config.caller_burst_seconds,
        tables_per_minute=config.caller_tables_per_minute,
        watchers=config.caller_watchers,
        unknown_tables_per_minute=config.caller_unknown_tables_per_minute,
    )


def _host(config: Config, table: TableService, dispatcher: Dispatcher, metrics: Metrics, store: Store | None) -> Host:
    """A host on ``store`` (else ``config``'s), calling the table service of this process or the engine's
    replicas."""
    tables: TableClient
    if config.engine_target:
        backend = _channel(config, config.engine_target)
        tables = RemoteTables(backend, timeout=config.gateway_timeout_seconds, api_key=config.engine_api_key)
    else:
        tables = LocalTables(table, dispatcher)
    settings = HostSettings(
        public_url=config.public_url or invite_base("", config.rest_host, config.rest_port)[0],
        turn_seconds=config.turn_seconds,
        bot_delay_ms=config.bot_delay_ms,
        table_idle_hours=config.table_idle_hours,
        heartbeat_seconds=config.heartbeat_seconds,
        presence_grace_seconds=config.presence_grace_seconds,
        timer_moves=config.timer_moves,
        open_tables=config.caller_open_tables,
        table_spectators=config.table_spectators,
        store_max_tables=config.store_max_tables,
        store_max_bytes=config.store_max_bytes,
    )
    metered = HostMetrics(metrics.registry)
    store = store or open_store(config.store, sync=config.store_sync)
    return Host(store, tables, settings, metered, callers=dispatcher.admission.callers)


def _channel(config: Config, target: str) -> ChannelBackend:
    return ChannelBackend(
        target,
        timeout=config.gateway_timeout_seconds,
        max_message_bytes=config.max_message_bytes,
        write_seconds=config.stream_write_seconds,
    )


async def _always_ready() -> bool:
    return True


class _HealthContext:
    def set_code(self, code: Any) -> None:
        return None

    def set_details(self, details: str) -> None:
        return None


# -- serving ----------------------------------------------------------------------------------------


def serve_embedded(config: Config) -> None:
    """``mazziere serve``: gRPC, the host and REST until SIGTERM or SIGINT, in one process, or in
    ``MAZZIERE_PROCESSES`` forked processes sharing the ports (:mod:`~mazziere.services.core.forking`)."""
    if config.gateway_embedded == "channel" and config.tls_cert_file:
        raise ValueError("MAZZIERE_GATEWAY_EMBEDDED=channel needs a plaintext gRPC port; use inprocess with TLS")
    count = config.processes or machine_cores()
    cap = _open_files(config, rest=bool(config.rest_port))
    sock = bind(config.rest_host, config.rest_port) if config.rest_port else None
    if sock is not None and config.host_enabled:
        config = _with_public_url(config, sock.getsockname()[1])
    if count == 1:
        store = _open_store(config) if config.host_enabled else None
        _serve_process(config, _keyring(config, store), store, sock, cap)
        return
    config = replace(config, processes=count, port=config.port or _free_port(config.bind_host))
    shared = config.host_enabled and config.store.startswith("sqlite:")
    lock = _hold_store(config) if shared else None  # the supervisor holds it for its children
    keyring = _keyring(config, _open_store(config, Siblings(())) if keeps_its_key(config) else None, close=True)
    _no_threads_left()

    def child(forked: Child) -> None:
        if not shared:  # PostgreSQL's notifications reach the other processes
            for end in forked.siblings:
                end.close()
        try:
            store = _open_store(config, Siblings(forked.siblings) if shared else None) if config.host_enabled else None
            _serve_process(config, keyring, store, sock, cap, index=forked.index)
        except (ValueError, OSError, RuntimeError) as exc:
            get_logger().error("startup_failed", error=str(exc), process=forked.index)
            raise SystemExit(1) from None

    code = run_forked(count, child)
    if lock is not None:
        os.close(lock)
    if code:
        raise SystemExit(code)


def _hold_store(config: Config) -> int:
    """The SQLite store's lock, held for the processes forked to share it (a second host is refused)."""
    try:
        return hold_lock(config.store.removeprefix("sqlite:///"))
    except StoreError as exc:
        raise RuntimeError(str(exc)) from None


def _keyring(config: Config, store: Store | None, *, close: bool = False) -> Keyring:
    """The sealing keys (kept beside a SQLite store, checked against its tables); ``store`` closed if the keys
    cannot be had (or with ``close``)."""
    try:
        return make_keyring(config, keep_in=Path(config.data_dir) if keeps_its_key(config) else None, store=store)
    except BaseException:
        close = True
        raise
    finally:
        if close and store is not None:
            asyncio.run(store.aclose())


def _serve_process(
    config: Config, keyring: Keyring, store: Store | None, sock: socket.socket | None, cap: int, *, index: int = 0
) -> None:
    """One server process: its app, its metrics port (the configured one plus its index), until told to stop."""
    app = App(config, keyring=keyring, hosting=config.host_enabled, store=store)
    if config.metrics_port:
        app.metrics.serve(config.metrics_port + index, config.bind_host)
    freeze_start_up()
    eventloop.run(_embedded(app, sock, cap, first=index == 0))


def _free_port(host: str) -> int:
    """A port free now on ``host``, for the processes to share (each binds it with SO_REUSEPORT)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def _no_threads_left(seconds: float = 5.0) -> None:
    """Wait for the threads start-up made (the key check's store) to end: a process forks with one thread."""
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join(seconds)


def _with_public_url(config: Config, rest_port: int) -> Config:
    """``config`` with the invite links' base resolved for the REST port served (:func:`invite_base`), and a
    warning logged when links may not reach it."""
    url, warning = invite_base(config.public_url, config.rest_host, rest_port)
    if warning == "PUBLIC_URL_THIS_MACHINE_ONLY":
        get_logger().warning(
            warning,
            message="invite links point to localhost, which only this machine's browsers reach: set "
            "MAZZIERE_PUBLIC_URL to the address your players' browsers use (docs/configuration.md)",
            public_url=url,
        )
    elif warning is not None:
        get_logger().warning(
            warning,
            message=f"MAZZIERE_PUBLIC_URL names this machine, but not the port the web table is served on "
            f"({rest_port}): invite links will not open; set it to http://<host>:{rest_port}",
            public_url=url,
        )
    return replace(config, public_url=url)


def _start_line(config: Config, rest_port: int, grpc_port: int) -> None:
    """Where to go, for a person who started the server at a terminal (logs are for machines)."""
    if not sys.stdout.isatty():
        return
    local = invite_base("", config.rest_host, rest_port)[0]
    links = f" (invite links open at {config.public_url})" if config.public_url.rstrip("/") != local else ""
    store = config.store.removeprefix("sqlite:///") if config.store.startswith("sqlite:") else "PostgreSQL"
    kept = f"tables kept in {store}" if config.host_enabled else "no tables kept (MAZZIERE_HOST_ENABLED=0)"
    print(
        f"\nMazziere is serving. Play at {local}/play{links}\n"
        f"API docs at {local}/docs · gRPC on port {grpc_port} · {kept} · Ctrl-C stops it\n",
        flush=True,
    )


def _open_store(config: Config, siblings: Siblings | None = None) -> Store:
    """The host's store, opened before the sealing key is read (a kept key is checked against its tables); a store
    that cannot open stops the start-up (``startup_failed``)."""
    try:
        return open_store(config.store, sync=config.store_sync, siblings=siblings)
    except StoreError as exc:
        raise RuntimeError(str(exc)) from None


def _open_files(config: Config, *, rest: bool) -> int:
    """Raise the open-files limit to the hard one; the HTTP connections it leaves room for (with ``rest``: a
    ValueError if none), logged."""
    files = raise_open_files()
    cap = connection_cap(config, files.limit) if rest else 0
    get_logger().info(
        "open_files",
        limit=files.limit,
        raised_from=files.before,
        hard=files.hard,
        http_connections=cap,
        reserved=config.reserved_files,
    )
    return cap


async def _embedded(app: App, sock: socket.socket | None, cap: int, *, first: bool = True) -> None:
    config, log = app.config, get_logger()
    stop = _stop_on_signals()
    if app.host is not None:  # listening to the store before any call comes: a Watch taken earlier could miss a push
        await app.host.start()
        log.info("host_serving", store=_store_kind(config.store), public_url=config.public_url)
    port = await app.grpc.start()
    collector = asyncio.create_task(Collector(config.gc_freeze_seconds, config.gc_full_seconds).run())
    waits: list[asyncio.Task[Any]] = [asyncio.create_task(stop.wait())]
    rest: RestServer | None = None
    backend: Backend | None = None
    if sock is not None:
        backend = app.table_backend()
        rest = _rest_server(app.rest(backend), config, sock, ConnectionGate(cap, app.metrics.registry))
        waits.append(asyncio.create_task(rest.run_on_socket()))
        log.info("rest_serving", port=sock.getsockname()[1], grpc_port=port, gateway=config.gateway_embedded)
        if first:
            _start_line(config, sock.getsockname()[1], port)
    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    await app.grpc.not_serving()  # /readyz answers 503 from here on
    draining = [asyncio.sleep(config.drain_seconds)]
    if app.host is not None:  # no more due turns claimed here; those under way are played
        draining.append(app.host.drain(config.grace_seconds))
    await asyncio.gather(*draining)
    if rest is not None:
        rest.should_exit = True
    await asyncio.gather(app.grpc.stop(), *waits[1:], return_exceptions=True)
    if app.host is not None:
        await app.host.stop()
    if backend is not None:
        await backend.close()
    collector.cancel()


def _rest_server(fastapi: FastAPI, config: Config, sock: socket.socket, gate: ConnectionGate) -> RestServer:
    return RestServer(
        fastapi,
        sock,
        grace_seconds=config.grace_seconds,
        read_timeout=config.gateway_read_timeout_seconds,
        gate=gate,
    )


def _store_kind(url: str) -> str:
    """The store's kind and place, without credentials."""
    return url if url.startswith("sqlite:") else url.split("://", 1)[0] + "://" + url.rsplit("@", 1)[-1]


def serve_grpc(config: Config, *, extra_methods: Sequence[Method] = ()) -> None:
    """The gRPC port alone (TableService, no host), until SIGTERM or SIGINT, with the metrics endpoint if
    configured."""
    _open_files(config, rest=False)
    app = App(config, extra_methods=extra_methods)
    if config.metrics_port:
        app.metrics.serve(config.metrics_port, config.bind_host)

    async def main() -> None:
        await app.grpc.run(_stop_on_signals())

    asyncio.run(main())


def serve_split(config: Config, target: str) -> None:
    """``mazziere gateway``: the REST port alone (REST, Connect, gRPC-Web), calling the gRPC service at ``target``,
    until SIGTERM or SIGINT."""
    cap = _open_files(config, rest=True)
    sock = bind(config.rest_host, config.rest_port)
    eventloop.run(_split(config, target, sock, cap))


class _Draining:
    """A backend whose readiness turns false once shutdown begins, whatever the service says."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.draining = False

    async def call(
        self, rpc: str, request: Any, call: Call, timeout: float | None = None, *, encode: Encode | None = None
    ) -> Any:
        return await self.backend.call(rpc, request, call, timeout, encode=encode)

    async def stream(
        self, rpc: str, request: Any, call: Call, timeout: float | None, write: Write, *, encode: Encode | None = None
    ) -> None:
        await self.backend.stream(rpc, request, call, timeout, write, encode=encode)

    async def ready(self) -> bool:
        return not self.draining and await self.backend.ready()

    async def close(self) -> None:
        await self.backend.close()


async def _split(config: Config, target: str, sock: socket.socket, cap: int) -> None:
    stop = _stop_on_signals()
    backend = _Draining(_channel(config, target))
    registry = new_registry()  # the HTTP metrics and the gateway process's own
    if config.metrics_port:  # the HTTP metrics, on the metrics port as the engine's are
        serve_registry(registry, config.metrics_port, config.bind_host)
    rest = _rest_server(create_app(backend, config, registry=registry), config, sock, ConnectionGate(cap, registry))
    rest_task = asyncio.create_task(rest.run_on_socket())
    get_logger().info("rest_serving", port=sock.getsockname()[1], target=target, gateway="split")
    await asyncio.wait([asyncio.create_task(stop.wait()), rest_task], return_when=asyncio.FIRST_COMPLETED)
    backend.draining = True
    get_logger().info("shutting_down", drain_seconds=config.drain_seconds)
    await asyncio.sleep(config.drain_seconds)
    rest.should_exit = True
    await asyncio.gather(rest_task, return_exceptions=True)
    await backend.close()
    get_logger().info("stopped")


def _stop_on_signals() -> asyncio.Event:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return stop
