"""A gRPC Watch stream ends by itself, between two answers, a random time between one and one and a half
connection ages after it opened: its client resumes it from its last seq and misses nothing, and the connection's
age (whose grace is at least one and a half ages and a heartbeat) never cuts one."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path

import grpc

from mazziere.services.config import Config
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.grpc.server import grace_cuts_streams, stream_lifetime
from tests.host.test_host import cap, host_config, open_trentuno, play_first, start_host
from tests.host.test_public_url import logs_at_start

AGE_MS = 1_000
HEARTBEAT = 0.1


def test_a_streams_lifetime_is_between_one_and_one_and_a_half_connection_ages() -> None:
    lifetimes = [stream_lifetime(replace(Config(), max_connection_age_ms=AGE_MS))() for _ in range(400)]
    assert all(1.0 <= s <= 1.5 for s in lifetimes)
    assert min(lifetimes) < 1.1 and max(lifetimes) > 1.4  # spread over the range, not one value
    assert stream_lifetime(replace(Config(), max_connection_age_ms=0))() == 0


def test_a_grace_shorter_than_a_lifetime_and_a_heartbeat_is_told_at_start(tmp_path: Path) -> None:
    """The default grace and the deploy values never cut a stream; an operator's shorter grace is logged."""
    assert not grace_cuts_streams(Config())
    for age, grace in ((120_000, 210_000), (60_000, 120_000), (0, 0)):  # deploy/k8s, the chart's CI values, no age
        assert not grace_cuts_streams(replace(Config(), max_connection_age_ms=age, max_connection_age_grace_ms=grace))
    short = replace(Config(), max_connection_age_ms=AGE_MS, max_connection_age_grace_ms=int(1.5 * AGE_MS))
    assert grace_cuts_streams(short)
    warned = short_grace_told(replace(short, data_dir=str(tmp_path)))
    assert len(warned) == 1 and warned[0]["max_connection_age_grace_ms"] == 1_500
    assert not short_grace_told(Config(data_dir=str(tmp_path)))


def short_grace_told(config: Config) -> list[dict[str, object]]:
    return [line for line in logs_at_start(config) if line["event"] == "CONNECTION_AGE_GRACE_SHORT"]


def test_a_watch_ends_within_its_lifetime_and_resumes_with_every_step_once(tmp_path: Path) -> None:
    """Moves played all along while one watcher watches again from its last seq each time its stream ends, over
    several connection ages: each stream ends OK within one and a half ages (and a heartbeat), none is cut, and the
    watcher has every step once, in order."""
    grace = int(1.5 * AGE_MS + 1000 * HEARTBEAT) + 500
    config = host_config(
        tmp_path, heartbeat_seconds=HEARTBEAT, max_connection_age_ms=AGE_MS, max_connection_age_grace_ms=grace
    )
    hosted = start_host(config)
    stop = threading.Event()

    def play() -> None:
        while not stop.is_set():
            play_first(hosted.stub, opened)
            time.sleep(0.05)

    try:
        opened = open_trentuno(hosted.stub)
        player = threading.Thread(target=play, daemon=True)
        player.start()
        seqs: list[int] = []
        lengths: list[float] = []
        last = -1  # every step from the opening
        ends = time.monotonic() + 5 * AGE_MS / 1000
        while time.monotonic() < ends:
            began = time.monotonic()
            watch = hosted.stub.Watch(
                hpb.WatchRequest(table_id=opened.table_id, after_seq=last), metadata=cap(opened.spectators.capability)
            )
            for answer in watch:  # an error here (a stream cut) fails the test
                if answer.HasField("update") and answer.update.seq > last:
                    last = answer.update.seq
                    seqs.append(last)
            assert watch.code() == grpc.StatusCode.OK
            lengths.append(time.monotonic() - began)
        stop.set()
        player.join(timeout=10)
    finally:
        stop.set()
        hosted.close()
    assert len(lengths) >= 3
    assert all(length <= 1.5 * AGE_MS / 1000 + HEARTBEAT + 0.5 for length in lengths)
    assert len(seqs) > 20 and seqs == list(range(seqs[0], seqs[-1] + 1))
