"""The gateway's settings: the service's :class:`~services.config.Config` plus the REST fields, read the same
way (``MAZZIERE_<FIELD>``; each documented in docs/configuration.md with its default)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mazziere.services.config import Config, ConfigError


@dataclass(frozen=True, slots=True)
class GatewayConfig(Config):
    """Everything ``mazziere serve`` and ``mazziere gateway`` read. Field defaults are the documented defaults."""

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
    """How long a REST caller may take to send a request's headers, and then its body (408 or a closed
    connection beyond)."""
    web_source_maps: bool = False
    """Serve the web table's source map (``/play/app.js.map``, linked by a ``SourceMap`` header on ``app.js``);
    off, it is a 404."""

    @classmethod
    def load(cls, env: Mapping[str, str] | None = None) -> GatewayConfig:
        """``from_env``, typed as this class."""
        config = cls.from_env(env)
        assert isinstance(config, GatewayConfig)
        return config

    def check(self) -> None:
        Config.check(self)
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
        if not 0 <= self.rest_port < 65536:
            raise ConfigError(f"MAZZIERE_REST_PORT must be a port number, not {self.rest_port}")

    @property
    def origins(self) -> list[str]:
        return [o.strip() for o in self.cors_origins.split(",") if o.strip()]
