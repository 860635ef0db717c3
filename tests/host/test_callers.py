"""Who is a host caller: its tenant when it sends an API key, else its client address (the socket's peer, or the
address a trusted proxy's forwarding header names), IPv6 by its /64; logs show a prefix only when asked; every
transport gives the core its peer."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.requests import Request
from structlog.testing import capture_logs

from mazziere.services.core.call import Call
from mazziere.services.core.callers import Callers, address_of, parse_networks
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.grpc.server import peer_address
from mazziere.services.http.request import http_call
from mazziere.services.http.server import RestServer, bind
from tests.host.test_abuse import hosting, open_from  # noqa: F401  (hosting: a fixture)
from tests.host.test_host import Hosted, refused

PROXY = parse_networks("10.0.0.0/8, 192.0.2.1")


def key(peer: str, *metadata: tuple[str, str], callers: Callers | None = None) -> str:
    return (callers or Callers(PROXY)).key(Call(metadata=metadata, peer=peer))


def test_the_socket_peer_is_the_caller_by_default() -> None:
    assert key("198.51.100.7") == "ip:198.51.100.7"
    assert key("198.51.100.7", ("x-forwarded-for", "203.0.113.1")) == "ip:198.51.100.7"  # an untrusted peer's header
    assert key("") == "local"


def test_behind_a_trusted_proxy_the_rightmost_untrusted_entry_is_the_caller() -> None:
    forwarded = ("x-forwarded-for", "6.6.6.6, 203.0.113.1, 10.1.2.3")  # a forged first entry, then two hops
    assert key("10.0.0.5", forwarded) == "ip:203.0.113.1"
    assert key("10.0.0.5", ("x-forwarded-for", "6.6.6.6"), ("x-forwarded-for", "203.0.113.2")) == "ip:203.0.113.2"
    assert key("10.0.0.5", ("x-forwarded-for", "10.9.9.9, 10.1.1.1")) == "ip:10.9.9.9"  # all trusted: the first
    assert key("10.0.0.5", ("x-forwarded-for", "203.0.113.1, unknown")) == "ip:10.0.0.5"  # garbage: the proxy
    assert key("10.0.0.5") == "ip:10.0.0.5"  # no header: the proxy itself
    assert key("10.0.0.5", ("x-forwarded-for", "203.0.113.1:4711")) == "ip:203.0.113.1"


def test_the_forwarded_header_when_the_proxy_writes_that_one() -> None:
    callers = Callers(PROXY, "forwarded")
    element = 'for=6.6.6.6, for="[2001:db8:cafe::17]:4711";proto=https;by=10.0.0.1'
    assert key("192.0.2.1", ("forwarded", element), callers=callers) == "ip:2001:db8:cafe::/64"
    assert key("192.0.2.1", ("x-forwarded-for", "203.0.113.1"), callers=callers) == "ip:192.0.2.1"


def test_ipv6_callers_count_by_their_prefix() -> None:
    assert key("2001:db8:1:2::10") == key("2001:db8:1:2:aaaa::1") == "ip:2001:db8:1:2::/64"
    assert key("2001:db8:1:3::10") != key("2001:db8:1:2::10")
    assert key("2001:db8:1:2::10", callers=Callers(ipv6_prefix=56)) == "ip:2001:db8:1::/56"
    assert key("::ffff:198.51.100.7") == "ip:198.51.100.7"


def test_logs_show_only_a_prefix_when_asked() -> None:
    assert Callers(log_prefix_only=True).shown("ip:198.51.100.7") == "ip:198.51.100.0/24"
    assert Callers(log_prefix_only=True).shown("ip:2001:db8:1:2::/64") == "ip:2001:db8:1::/48"
    assert Callers(log_prefix_only=True).shown("tenant:web") == "tenant:web"
    assert Callers().shown("ip:198.51.100.7") == "ip:198.51.100.7"


def test_addresses_and_networks_are_read_strictly() -> None:
    assert str(address_of("[::1]:50051")) == "::1" and address_of("_hidden") is None
    with pytest.raises(ValueError, match="not an address"):
        parse_networks("10.0.0.0/8, example.com")


def test_each_transport_gives_the_core_its_peer() -> None:
    assert peer_address("ipv4:198.51.100.7:51234") == "198.51.100.7"
    assert peer_address("ipv6:[2001:db8::1]:51234") == "2001:db8::1"
    assert peer_address("ipv6:%5B2001:db8::1%5D:51234") == "2001:db8::1"
    assert peer_address("unix:/tmp/socket") == ""
    scope: dict[str, Any] = {"type": "http", "headers": [], "client": ("203.0.113.9", 4711)}
    assert http_call(Request(scope)).peer == "203.0.113.9"
    assert http_call(Request({**scope, "client": None})).peer == ""


def test_a_tenants_key_names_the_caller(hosting: Any) -> None:  # noqa: F811
    """The tenant and the address it calls from are two callers, each with its one table of the minute."""
    key = "host-key-0123456789abcdef"
    tenants = json.dumps({"tenants": [{"name": "web", "keys": [key]}]})
    hosted: Hosted = hosting(tenants=tenants, engine_api_key=key, caller_tables_per_minute=1)
    keyed = [("authorization", f"Bearer {key}")]
    hosted.stub.OpenTable(open_request(), metadata=keyed)
    open_from(hosted)
    assert refused(lambda: hosted.stub.OpenTable(open_request(), metadata=keyed)) == "RESOURCE_EXHAUSTED/CALLER_LIMIT"
    assert refused(lambda: open_from(hosted)) == "RESOURCE_EXHAUSTED/CALLER_LIMIT"


def test_the_call_log_names_the_caller_by_prefix_when_asked(hosting: Any) -> None:  # noqa: F811
    hosted: Hosted = hosting(log_calls=True, log_addresses="prefix", trusted_proxies="127.0.0.1/32")
    with capture_logs() as logs:
        open_from(hosted, "198.51.100.7")
    [line] = [e for e in logs if e["event"] == "call" and e["method"] == "OpenTable"]
    assert line["caller"] == "ip:198.51.100.0/24"
    whole: Hosted = hosting(log_calls=True, trusted_proxies="127.0.0.1/32")
    with capture_logs() as logs:
        open_from(whole, "198.51.100.7")
    [line] = [e for e in logs if e["event"] == "call" and e["method"] == "OpenTable"]
    assert line["caller"] == "ip:198.51.100.7"


def open_request() -> hpb.OpenTableRequest:
    seats = [hpb.HostedSeat(name=name, chips=10) for name in ("Ada", "Bruno", "Carla")]
    return hpb.OpenTableRequest(game="trentuno", seats=seats, turn_seconds=600)


def test_an_http_callers_forwarding_header_is_believed_only_from_a_trusted_proxy(hosting: Any) -> None:  # noqa: F811
    """Over HTTP (the web table's Connect) too: uvicorn's own trust of 127.0.0.1 is off, the core decides."""
    for trusted, second in (("", LIMITED_HTTP), ("127.0.0.1/32", 200)):
        hosted: Hosted = hosting(caller_tables_per_minute=1, trusted_proxies=trusted)
        with serving_http(hosted) as url:
            assert connect_open(url, "198.51.100.1") == 200
            assert connect_open(url, "198.51.100.2") == second


LIMITED_HTTP = 429


@contextlib.contextmanager
def serving_http(hosted: Hosted) -> Iterator[str]:
    """The hosted app's HTTP transport on uvicorn, on a free port of 127.0.0.1, in a thread of its own."""
    sock = bind("127.0.0.1", 0)
    server = RestServer(hosted.app.rest(), sock)
    thread = threading.Thread(target=lambda: asyncio.run(server.run_on_socket()), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)


def connect_open(url: str, address: str) -> int:
    """An OpenTable over Connect (JSON) from ``address`` as a proxy names it; the HTTP status."""
    body = json.dumps({"game": "trentuno", "seats": [{"name": n, "chips": "10"} for n in ("Ada", "Bruno", "Carla")]})
    headers = {"Content-Type": "application/json", "X-Forwarded-For": address}
    request = urllib.request.Request(f"{url}/mazziere.v1.HostService/OpenTable", body.encode(), headers=headers)
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as refused:
            return int(refused.code)
        except urllib.error.URLError:
            assert time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.05)
