"""The host in a serving process: its store, its engine client, its methods in the process's call core."""

from __future__ import annotations

from mazziere.services.config import Config
from mazziere.services.gateway.backend import Backend, ChannelBackend, InProcessBackend
from mazziere.services.host.host import HOST_SERVICE, Host, HostSettings
from mazziere.services.host.metrics import HostMetrics
from mazziere.services.host.store import open_store
from mazziere.services.server import App


async def _always_ready() -> bool:
    return True


def engine_client(app: App, config: Config, timeout: float) -> Backend:
    """TableService for the host: the call core of this process, or the engine's replicas over gRPC."""
    if not config.engine_target:
        return InProcessBackend(app.dispatcher, timeout=timeout, ready=_always_ready)
    from mazziere.services.gateway.run import channel_methods

    return ChannelBackend(
        config.engine_target,
        timeout=timeout,
        max_message_bytes=config.max_message_bytes,
        methods=channel_methods(),
        write_seconds=config.stream_write_seconds,
    )


def add_host(app: App, config: Config, *, timeout: float = 10.0) -> tuple[Host, Backend]:
    """A host on ``config``'s store, its methods served by ``app`` (gRPC and, through the returned backend,
    Connect and gRPC-Web); start it on the serving loop with ``await host.start()``."""
    settings = HostSettings(
        public_url=config.public_url,
        turn_seconds=config.turn_seconds,
        bot_delay_ms=config.bot_delay_ms,
        table_idle_hours=config.table_idle_hours,
        heartbeat_seconds=config.heartbeat_seconds,
        engine_timeout=timeout,
        engine_api_key=config.engine_api_key,
    )
    host = Host(
        open_store(config.store), engine_client(app, config, timeout), settings, HostMetrics(app.metrics.registry)
    )
    methods = host.methods()
    app.dispatcher.serve(methods)
    app.methods.extend(methods)
    backend = InProcessBackend(app.dispatcher, timeout=timeout, ready=_always_ready, service=HOST_SERVICE)
    return host, backend
