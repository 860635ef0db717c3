"""The server's configuration, read from environment variables (each documented in docs/configuration.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

MAX_TURN_SECONDS = 86_400
"""The longest turn a table may give a person: a day."""
MAX_BOT_DELAY_MS = 60_000
"""The longest a bot may wait before it plays: a minute."""
MAX_PROCESSES = 64
"""The most server processes ``mazziere serve`` forks (``MAZZIERE_PROCESSES``)."""


class ConfigError(ValueError):
    """A configuration value is missing or malformed."""


@dataclass(frozen=True, slots=True)
class Config:
    """Everything the server reads from its environment. Field defaults are the documented defaults."""

    host: str = "[::]"
    port: int = 50051
    metrics_port: int = 9090
    """0 turns the metrics endpoint off."""
    workers: int = 4
    """Threads that run moves (cost class ``move``: ListGames, CreateTable, GetView, an Act with its move or a
    cheap policy)."""
    max_concurrent_calls: int = 64
    """Moves taken at a time, running or waiting for a worker; beyond, a call is refused at once
    (RESOURCE_EXHAUSTED, OVERLOADED, with a RetryInfo). Health checks are never counted or queued."""
    bot_workers: int = 1
    """Threads that run Acts played by a sampling policy (``auto_play: best``, cost class ``bot``)."""
    bot_calls: int = 8
    """Such Acts taken at a time, running or waiting; beyond, refused as OVERLOADED."""
    advice_workers: int = 1
    """Threads that run Advise calls (cost class ``advice``)."""
    advice_calls: int = 2
    """Advise calls taken at a time, running or waiting; beyond, refused as OVERLOADED."""
    replay_workers: int = 1
    """Threads that run replays (cost class ``replay``); one more replay per thread may wait, the rest are
    refused as OVERLOADED."""
    processes: int = 1
    """Server processes of ``mazziere serve`` sharing its ports, each with all of it (the host too: on SQLite they
    share its store and tell each other its news); 0: one per core this process may use. Kubernetes runs 1 a pod."""
    worker_processes: int = 1
    """Processes that run the engine work of the ``bot`` and ``advice`` classes, whose threads then wait for them
    without holding the interpreter that serves moves, pushes and health checks; 0: that work runs on those
    threads, in the server's process."""
    table_calls: int = 4
    """Calls naming one table taken at a time (a table's own flood is refused before it queues)."""
    tenants: str = ""
    """API keys and their tenants' quotas, as JSON (docs/security.md); empty: one anonymous tenant, no keys."""
    tenants_file: str = ""
    """A file holding the same JSON (a mounted Secret); read at start."""
    switch_interval_ms: float = 0.5
    """How long a thread holds the GIL before one that waits gets it (Python's default is 5 ms): short, so the event
    loop and the moves wait little behind CPU-bound bots and advice (docs/performance.md, "Hostile callers")."""
    stream_write_seconds: float = 10.0
    """The longest a stream's answer may wait for its reader; beyond, the stream ends and frees its place."""
    refusal_hold_seconds: float = 1.0
    """The longest a refusal to come back later is held when its caller came back before an earlier one's hint
    ended (:mod:`~mazziere.services.core.hints`); 0: never held."""
    replay_max_views: int = 8000
    """The work one replay may ask for: (actions + 1) x (seats + 1) views."""
    replay_seconds: float = 5.0
    """The longest a call past a move (a sampling bot's Act, an Advise, a replay) may run, whatever the caller's
    deadline."""
    seal_keys: str = ""
    """Comma- or newline-separated ``kid:base64key`` entries; the first seals, all open."""
    seal_keys_file: str = ""
    new_seal_key: bool = False
    """The embedded default with no keys configured: start even though the store's tables were sealed under a key
    it no longer has (its key file missing: a new one is made), which then never open again. Off: it refuses."""
    trusted_mode: bool = False
    """Plain states in and out, and no seat keys: only for a trusted back end or debugging."""
    max_message_bytes: int = 1 << 20
    max_replay_actions: int = 10_000
    recent_tokens: int = 4096
    """How many tokens this process sealed lately it remembers decoded (a memo; 0 turns it off)."""
    grace_seconds: float = 10.0
    drain_seconds: float = 0.0
    """After SIGTERM, how long to keep serving while NOT_SERVING, so load balancers stop sending calls."""
    gc_freeze_seconds: float = 1.0
    """``mazziere serve``: how often what survived the young collections is frozen, full collections being off
    while serving (0: the interpreter's own schedule)."""
    gc_full_seconds: float = 3600.0
    """``mazziere serve``: how often one full collection runs all the same (0: never), for frozen cycles gone."""
    keepalive_time_ms: int = 60_000
    keepalive_timeout_ms: int = 20_000
    max_connection_age_ms: int = 300_000
    """gRPC connections are closed gracefully after this age (so clients spread over new replicas); a stream ends
    by itself, for its client to resume it, a random time between one and one and a half ages after it opened."""
    max_connection_age_grace_ms: int = 480_000
    """The time a connection closed for its age gives the calls on it: at least one and a half ages and a
    heartbeat, so that no stream (which ends within that, at its next answer or heartbeat) is cut."""
    tls_cert_file: str = ""
    tls_key_file: str = ""
    host_enabled: bool = True
    """Serve HostService (tables between people) in this process; off on engine-only replicas."""
    data_dir: str = "data"
    """Where the embedded default keeps its SQLite store and, with no sealing keys configured, its sealing key."""
    store_url: str = ""
    """The host's store: ``sqlite:///path`` or ``postgresql://...``; empty: ``<data_dir>/tables.db`` in SQLite."""
    host_replicas: int = 1
    """How many host replicas share the store (more than one needs PostgreSQL)."""
    public_url: str = ""
    """The web table's address as players' browsers reach it: the base of every invite link. Empty: the REST port
    as served (``http://localhost:<port>`` when it is served on every address, then reachable from this machine
    only)."""
    engine_target: str = ""
    """The host's TableService: empty for the engine in this process, else a gRPC target (``engine:50051``)."""
    engine_api_key: str = ""
    """The API key the host sends to TableService when that one requires keys (MAZZIERE_TENANTS)."""
    turn_seconds: int = 60
    """A person's turn time when the table names none: then the host plays the turn (cautious policy)."""
    bot_delay_ms: int = 700
    """How long a bot seat waits before it plays, so people can follow its moves."""
    table_idle_hours: float = 72.0
    """A table not moved for this long is removed with its log."""
    watchers: int = 10_000
    """Watch streams taken at a time (beyond: OVERLOADED)."""
    heartbeat_seconds: float = 15.0
    """How often an idle Watch stream sends a heartbeat, so proxies keep it open."""
    presence_grace_seconds: float = 30.0
    """How long a person counts as present after their Watch stream ends or their last call (a reconnect within it,
    as at a deploy, pauses nothing); past it, at a table that follows presence, the table plays their turns."""
    timer_moves: int = 8
    """Due turns (a bot's, or a person's whose time ran out) the host plays at a time; one table's bot thinking
    never holds another's timer back below this bound."""

    # Who calls the host, and how much one caller may do (docs/security.md, "Who is a caller").
    trusted_proxies: str = ""
    """CIDRs of the proxies whose forwarding header names the client (comma-separated); none: the socket's peer."""
    forwarded_header: str = "x-forwarded-for"
    """The header those proxies write: ``x-forwarded-for`` or ``forwarded``."""
    caller_ipv6_prefix: int = 64
    """IPv6 callers are counted by this prefix of their address (a household's network)."""
    log_addresses: str = "full"
    """``full``: logs show a caller's whole address; ``prefix``: only its /24 (IPv4) or /48 (IPv6)."""
    caller_plays_per_second: float = 20.0
    """Play, ReissueInvite and CloseTable calls one caller may make a second (a burst of a few seconds' worth)."""
    caller_reads_per_second: float = 20.0
    """GetHostedTable calls, Watch openings and AdviseSeat calls one caller may make a second (likewise)."""
    caller_burst_seconds: float = 5.0
    """How many seconds' worth of its plays, or of its reads, a caller may spend at once."""
    caller_tables_per_minute: int = 10
    """Tables one caller may open a minute."""
    caller_open_tables: int = 50
    """Tables one caller may have open (opened by it, not closed, not expired)."""
    caller_watchers: int = 64
    """Watch streams one caller may hold open at a time (on one replica)."""
    caller_unknown_tables_per_minute: int = 20
    """Tables the host does not keep one caller may ask for a minute; beyond, its calls are refused for a while."""
    table_spectators: int = 32
    """Watch streams one table takes beyond one per seat (spectators, a second device, a reconnection)."""
    store_max_tables: int = 10_000
    """Tables the host's store may keep (closed ones too, until they expire); beyond, OpenTable is refused."""
    store_max_bytes: int = 1 << 30
    """Bytes the host's store may take; beyond, OpenTable is refused."""
    store_sync: str = "full"
    """The SQLite store's sync: ``full`` (a move answered is on disk: no power cut loses it) or ``normal`` (synced at
    checkpoints only: a killed host loses nothing, a power cut may lose the last moves answered)."""

    rest_host: str = "0.0.0.0"
    rest_port: int = 8080
    """The REST gateway's port; 0 turns it off in ``mazziere serve``."""
    gateway_target: str = "localhost:50051"
    """``mazziere gateway`` (split): the gRPC service to call (``--target`` overrides)."""
    gateway_embedded: str = "inprocess"
    """``mazziere serve``: ``inprocess`` (the gateway calls the handlers directly) or ``channel`` (over a local
    gRPC channel); see docs/performance.md."""
    cors_origins: str = ""
    """Comma-separated origins allowed to call from a browser (``*`` for any); none by default."""
    gateway_max_body_bytes: int = 2 << 20
    gateway_timeout_seconds: float = 10.0
    """The deadline of each call the gateway makes to the service."""
    gateway_docs: bool = True
    """Serve the interactive documentation at ``/docs`` (``/openapi.json`` is always served)."""
    gateway_metrics: bool = False
    """Also serve ``/metrics`` on the REST port (off: metrics only on ``MAZZIERE_METRICS_PORT``, which is not
    meant to face the internet)."""
    gateway_read_timeout_seconds: float = 10.0
    http_connections: int = 0
    """HTTP connections the REST port serves at a time; past them only health probes are answered, anything else
    refused (503, TOO_MANY_CONNECTIONS). 0: the open-files limit (raised to its hard limit at start) less
    ``reserved_files``."""
    reserved_files: int = 128
    """Open files kept from the HTTP connections: for the store, the gRPC port's connections, the listening sockets,
    the process's own files and the probes answered past the cap."""
    """How long a REST caller may take to send a request's headers, and then its body (408 or a closed
    connection beyond)."""
    web_source_maps: bool = False
    """Serve the web table's source map (``/play/app.js.map``, linked by a ``SourceMap`` header on ``app.js``);
    off, it is a 404."""

    reflection: bool = True
    log_level: str = "info"
    log_format: str = "auto"
    """``json`` (one object a line), ``console`` (lines a person reads) or ``auto``: console on a terminal."""
    log_calls: bool = True

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Read ``MAZZIERE_<FIELD>`` (upper case) for every field; unset variables keep the default."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for name, default in cls.__dataclass_fields__.items():
            raw = env.get(f"MAZZIERE_{name.upper()}")
            if raw is None or raw == "":
                continue
            kind: type = type(default.default)
            try:
                if kind is bool:
                    if raw.lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                        raise ValueError(raw)
                    values[name] = raw.lower() in ("1", "true", "yes", "on")
                elif kind is int:
                    values[name] = int(raw)
                elif kind is float:
                    values[name] = float(raw)
                else:
                    values[name] = raw
            except ValueError:
                raise ConfigError(f"MAZZIERE_{name.upper()}={raw!r} is not a valid {kind.__name__}") from None
        config = cls(**values)  # type: ignore[arg-type]
        config.check()
        return config

    def check(self) -> None:
        """Refuse settings that cannot work together, naming them."""
        self._check_calls()
        self._check_host()
        self._check_ports()
        self._check_gateway()
        if bool(self.tls_cert_file) != bool(self.tls_key_file):
            raise ConfigError("MAZZIERE_TLS_CERT_FILE and MAZZIERE_TLS_KEY_FILE go together")
        if self.tenants and self.tenants_file:
            raise ConfigError("set MAZZIERE_TENANTS or MAZZIERE_TENANTS_FILE, not both")
        if self.log_format not in ("auto", "json", "console"):
            raise ConfigError(f"MAZZIERE_LOG_FORMAT must be 'auto', 'json' or 'console', not {self.log_format!r}")

    def _check_calls(self) -> None:
        if self.workers < 1 or self.max_message_bytes < 1024:
            raise ConfigError("MAZZIERE_WORKERS must be >= 1 and MAZZIERE_MAX_MESSAGE_BYTES >= 1024")
        if self.max_concurrent_calls < self.workers:
            raise ConfigError("MAZZIERE_MAX_CONCURRENT_CALLS must be >= MAZZIERE_WORKERS")
        if self.worker_processes < 0 or not 0 <= self.processes <= MAX_PROCESSES:
            raise ConfigError(f"MAZZIERE_WORKER_PROCESSES must be >= 0 and MAZZIERE_PROCESSES 0 to {MAX_PROCESSES}")
        counts = ("replay_workers", "replay_max_views", "bot_workers", "bot_calls", "advice_workers", "advice_calls")
        for name in (*counts, "table_calls"):
            if getattr(self, name) < 1:
                raise ConfigError(f"MAZZIERE_{name.upper()} must be >= 1")
        if self.replay_seconds <= 0 or self.stream_write_seconds <= 0 or self.switch_interval_ms <= 0:
            raise ConfigError(
                "MAZZIERE_REPLAY_SECONDS, MAZZIERE_STREAM_WRITE_SECONDS and MAZZIERE_SWITCH_INTERVAL_MS must be > 0"
            )
        if not 0 <= self.refusal_hold_seconds <= 60:
            raise ConfigError("MAZZIERE_REFUSAL_HOLD_SECONDS must be 0 to 60")

    def _check_host(self) -> None:
        if self.processes != 1 and self.host_enabled and self.store == "sqlite:///:memory:":
            raise ConfigError("MAZZIERE_PROCESSES shares a SQLite store on disk; a database in memory is one process's")
        if self.host_enabled and self.host_replicas > 1 and self.store.startswith("sqlite:"):
            raise ConfigError(
                f"MAZZIERE_HOST_REPLICAS={self.host_replicas} needs a PostgreSQL MAZZIERE_STORE_URL: a SQLite store "
                "serves one host process"
            )
        if min(self.turn_seconds, self.watchers, self.timer_moves) < 1:
            raise ConfigError("MAZZIERE_TURN_SECONDS, MAZZIERE_WATCHERS and MAZZIERE_TIMER_MOVES must be >= 1")
        if self.turn_seconds > MAX_TURN_SECONDS or not 0 <= self.bot_delay_ms <= MAX_BOT_DELAY_MS:
            raise ConfigError(
                f"MAZZIERE_TURN_SECONDS must be at most {MAX_TURN_SECONDS} (a day) and MAZZIERE_BOT_DELAY_MS from 0 "
                f"to {MAX_BOT_DELAY_MS}"
            )
        if self.heartbeat_seconds <= 0 or self.table_idle_hours <= 0 or self.presence_grace_seconds <= 0:
            raise ConfigError(
                "MAZZIERE_HEARTBEAT_SECONDS, MAZZIERE_TABLE_IDLE_HOURS and MAZZIERE_PRESENCE_GRACE_SECONDS must be > 0"
            )
        self._check_callers()

    def _check_callers(self) -> None:
        if self.forwarded_header not in ("x-forwarded-for", "forwarded"):
            raise ConfigError(
                f"MAZZIERE_FORWARDED_HEADER must be 'x-forwarded-for' or 'forwarded', not {self.forwarded_header!r}"
            )
        if self.log_addresses not in ("full", "prefix"):
            raise ConfigError(f"MAZZIERE_LOG_ADDRESSES must be 'full' or 'prefix', not {self.log_addresses!r}")
        if not 1 <= self.caller_ipv6_prefix <= 128:
            raise ConfigError("MAZZIERE_CALLER_IPV6_PREFIX must be from 1 to 128")
        rates = ("caller_plays_per_second", "caller_reads_per_second", "caller_burst_seconds")
        counts = (
            "caller_tables_per_minute",
            "caller_open_tables",
            "caller_watchers",
            "caller_unknown_tables_per_minute",
            "store_max_tables",
            "store_max_bytes",
        )
        for name in rates:
            if getattr(self, name) <= 0:
                raise ConfigError(f"MAZZIERE_{name.upper()} must be > 0")
        for name in counts:
            if getattr(self, name) < 1:
                raise ConfigError(f"MAZZIERE_{name.upper()} must be >= 1")
        if self.table_spectators < 0:
            raise ConfigError("MAZZIERE_TABLE_SPECTATORS must be >= 0")
        if self.store_sync not in ("full", "normal"):
            raise ConfigError(f"MAZZIERE_STORE_SYNC must be 'full' or 'normal', not {self.store_sync!r}")

    def _check_ports(self) -> None:
        for name, port in (("MAZZIERE_PORT", self.port), ("MAZZIERE_METRICS_PORT", self.metrics_port)):
            if not 0 <= port <= 65535:
                raise ConfigError(f"{name} must be a port number (0..65535), not {port}")
        if not 0 <= self.rest_port < 65536:
            raise ConfigError(f"MAZZIERE_REST_PORT must be a port number, not {self.rest_port}")

    def _check_gateway(self) -> None:
        if self.gateway_embedded not in ("inprocess", "channel"):
            raise ConfigError(
                f"MAZZIERE_GATEWAY_EMBEDDED must be 'inprocess' or 'channel', not {self.gateway_embedded!r}"
            )
        if self.gateway_max_body_bytes < 1024 or self.gateway_timeout_seconds <= 0:
            raise ConfigError(
                "MAZZIERE_GATEWAY_MAX_BODY_BYTES must be >= 1024 and MAZZIERE_GATEWAY_TIMEOUT_SECONDS > 0"
            )
        if self.gateway_read_timeout_seconds <= 0:
            raise ConfigError("MAZZIERE_GATEWAY_READ_TIMEOUT_SECONDS must be > 0")
        if self.http_connections < 0 or self.reserved_files < 64:
            raise ConfigError("MAZZIERE_HTTP_CONNECTIONS must be >= 0 and MAZZIERE_RESERVED_FILES >= 64")

    @property
    def store(self) -> str:
        """The host's store URL (``MAZZIERE_STORE_URL``, else SQLite in the data directory)."""
        return self.store_url or f"sqlite:///{self.data_dir}/tables.db"

    def tenants_json(self) -> str:
        """The tenants' JSON, from the setting or its file."""
        if not self.tenants_file:
            return self.tenants
        try:
            return Path(self.tenants_file).read_text()
        except OSError as exc:
            raise ConfigError(f"MAZZIERE_TENANTS_FILE: {exc}") from None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def bind_host(self) -> str:
        """The host as a socket address (``[::]`` -> ``::``), for listeners other than gRPC's."""
        return self.host.strip("[]")

    @property
    def origins(self) -> list[str]:
        return [o.strip() for o in self.cors_origins.split(",") if o.strip()]
