"""Invite links in the clear: the server warns at start when ``MAZZIERE_PUBLIC_URL`` is plain ``http://`` at an
address on the internet, and not for a living room's addresses."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from mazziere.services.app import App
from mazziere.services.config import Config
from mazziere.services.host.capabilities import in_the_clear, invite_base
from mazziere.services.table.sealing import Keyring
from tests.service.conftest import KEYS

IN_THE_CLEAR = [
    "http://8.8.8.8:8080",
    "http://93.184.216.34",
    "http://cards.example.com",
    "HTTP://Cards.Example.COM.:8080/",
    "http://[2a00:1450:4001::1]:8080",
]
NOT_IN_THE_CLEAR = [
    "https://cards.example.com",
    "https://93.184.216.34",
    "http://localhost:8080",
    "http://app.localhost",
    "http://127.0.0.1:8080",
    "http://[::1]:8080",
    "http://192.168.1.20:8080",
    "http://10.0.0.7",
    "http://172.16.4.2",
    "http://169.254.1.1",
    "http://[fd00::1]:8080",
    "http://100.101.102.103:8080",  # an overlay network's (Tailscale's) address
    "http://raspberrypi:8080",
    "http://raspberrypi.local:8080",
    "http://nas.home.arpa",
    "http://cards.lan",
]


@pytest.mark.parametrize("url", IN_THE_CLEAR)
def test_plain_http_to_an_internet_address_is_in_the_clear(url: str) -> None:
    assert in_the_clear(url)


@pytest.mark.parametrize("url", NOT_IN_THE_CLEAR)
def test_tls_or_a_local_address_is_not(url: str) -> None:
    assert not in_the_clear(url)


def started_logs(data: Path, public_url: str) -> list[dict[str, object]]:
    return logs_at_start(Config(data_dir=str(data), public_url=public_url, seal_keys=KEYS, metrics_port=0, port=0))


def logs_at_start(config: Config) -> list[dict[str, object]]:
    """What a hosting server process logs as it is built from ``config``."""
    with capture_logs() as logs:
        app = App(config, keyring=Keyring.parse(KEYS), hosting=True)
    assert app.host is not None
    asyncio.run(app.host.store.aclose())
    app.dispatcher.shutdown()
    return logs


def test_the_server_warns_at_start_when_invite_links_would_travel_in_the_clear(tmp_path: Path) -> None:
    warned = [line for line in started_logs(tmp_path, "http://cards.example.com") if line["log_level"] == "warning"]
    assert [line["event"] for line in warned] == ["PUBLIC_URL_IN_THE_CLEAR"]
    assert warned[0]["public_url"] == "http://cards.example.com" and "TLS" in str(warned[0]["message"])
    for quiet in ("https://cards.example.com", "http://192.168.1.20:8080"):
        assert not [line for line in started_logs(tmp_path, quiet) if line["event"] == "PUBLIC_URL_IN_THE_CLEAR"]


@pytest.mark.parametrize(
    ("public_url", "rest_host", "port", "expected"),
    [
        ("", "0.0.0.0", 8081, ("http://localhost:8081", "PUBLIC_URL_THIS_MACHINE_ONLY")),
        ("", "[::]", 9000, ("http://localhost:9000", "PUBLIC_URL_THIS_MACHINE_ONLY")),
        ("", "192.168.1.20", 8081, ("http://192.168.1.20:8081", None)),
        ("", "::1", 8081, ("http://[::1]:8081", None)),
        ("http://localhost:8080", "0.0.0.0", 8081, ("http://localhost:8080", "PUBLIC_URL_OTHER_PORT")),
        ("http://127.0.0.1", "0.0.0.0", 8081, ("http://127.0.0.1", "PUBLIC_URL_OTHER_PORT")),
        ("http://localhost:8081/", "0.0.0.0", 8081, ("http://localhost:8081/", None)),
        ("https://cards.example.com", "0.0.0.0", 8081, ("https://cards.example.com", None)),  # behind a proxy
        ("http://192.168.1.20:8080", "0.0.0.0", 8081, ("http://192.168.1.20:8080", None)),  # maybe a proxy too
    ],
)
def test_invite_links_follow_the_rest_port_served(
    public_url: str, rest_host: str, port: int, expected: tuple[str, str | None]
) -> None:
    """No MAZZIERE_PUBLIC_URL: the port served (as localhost when served on every address, with a warning); one
    that names this machine at another port: a warning."""
    assert invite_base(public_url, rest_host, port) == expected
