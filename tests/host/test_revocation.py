"""Revocation reaches open streams: a reissued seat invite or spectators' link ends, at once and on every replica,
every Watch stream opened with the old capability (PERMISSION_DENIED ``CAPABILITY_REVOKED``), while the streams of
the new capability, of the other seats and of the owner go on; a closed table's streams still end after its closing
update. On both stores (the store's notification carries the revocation between replicas)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import grpc
import pytest

from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from tests.host.conftest import Backend
from tests.host.reads import counted_reads
from tests.host.test_host import Hosted, cap, host_config, invites, open_trentuno, reason, start_host
from tests.service.test_shutdown import wait_for

REVOKED = "PERMISSION_DENIED/CAPABILITY_REVOKED"
STREAM_SECONDS = 30
"""A stream's deadline: far longer than a revocation takes to reach it (a stream not ended by then fails)."""


class Stream:
    """A Watch stream read by a thread: the seqs of its updates, and how it ended (empty while it goes on)."""

    def __init__(self, hosted: Hosted, table_id: str, capability: str) -> None:
        request = hpb.WatchRequest(table_id=table_id)
        self.call = hosted.stub.Watch(request, metadata=cap(capability), timeout=STREAM_SECONDS)
        self.seqs: list[int] = []
        self.end = ""
        self.ended = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        wait_for(lambda: bool(self.seqs) or self.ended.is_set())

    def _read(self) -> None:
        try:
            for message in self.call:
                if message.HasField("update"):
                    self.seqs.append(message.update.seq)
            self.end = "OK"
        except grpc.RpcError as exc:
            self.end = reason(exc)
        finally:
            self.ended.set()

    def ending(self) -> str:
        """How it ended (waits for it)."""
        assert self.ended.wait(STREAM_SECONDS + 5)
        return self.end

    def cancel(self) -> None:
        self.call.cancel()


@pytest.fixture
def hosted(backend: Backend, tmp_path: Path) -> Iterator[Hosted]:
    """A host on each store."""
    h = start_host(host_config(tmp_path / "data", store_url=backend.url))
    yield h
    h.close()


def play(hosted: Hosted, opened: hpb.OpenTableResponse, keys: dict[int, str]) -> int:
    """The first legal move of the seat to act, with that seat's invite in ``keys``; the seq it made."""
    now = hosted.stub.GetHostedTable(hpb.GetHostedTableRequest(table_id=opened.table_id), metadata=cap(keys[0]))
    seat = now.update.to_act[0]
    mine = hosted.stub.GetHostedTable(hpb.GetHostedTableRequest(table_id=opened.table_id), metadata=cap(keys[seat]))
    entry = mine.update.update.legal_actions[0]
    action = pb.Action(seat=seat, kind=entry.kind, amount=entry.min_amount, cards=entry.cards)
    request = hpb.PlayRequest(table_id=opened.table_id, expected_seq=mine.update.seq, action=action)
    return int(hosted.stub.Play(request, metadata=cap(keys[seat]), timeout=10).update.seq)


def reissue(hosted: Hosted, opened: hpb.OpenTableResponse, seat: int | None) -> str:
    request = hpb.ReissueInviteRequest(table_id=opened.table_id)
    if seat is not None:
        request.seat = seat
    answer = hosted.stub.ReissueInvite(request, metadata=cap(opened.owner.capability), timeout=10)
    return str(answer.invite.capability)


def test_a_reissued_invite_ends_the_streams_opened_with_it_and_only_those(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    keys = invites(opened)
    old = [Stream(hosted, opened.table_id, keys[1]) for _ in range(2)]  # two devices of seat 1
    others = [Stream(hosted, opened.table_id, c) for c in (keys[0], opened.spectators.capability)]
    owner = Stream(hosted, opened.table_id, opened.owner.capability)
    keys[1] = reissue(hosted, opened, 1)
    assert [stream.ending() for stream in old] == [REVOKED, REVOKED]
    renewed = Stream(hosted, opened.table_id, keys[1])
    played = play(hosted, opened, keys)
    for stream in [*others, owner, renewed]:
        wait_for(lambda s=stream: played in s.seqs)  # type: ignore[misc]
        assert not stream.ended.is_set()
        stream.cancel()
    assert all(played not in stream.seqs for stream in old)


def test_a_reissued_spectators_link_ends_its_streams_but_not_the_owners(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    spectator = Stream(hosted, opened.table_id, opened.spectators.capability)
    owner = Stream(hosted, opened.table_id, opened.owner.capability)  # the owner watches as the spectators do
    seat = Stream(hosted, opened.table_id, invites(opened)[2])
    new = reissue(hosted, opened, None)
    assert spectator.ending() == REVOKED
    renewed = Stream(hosted, opened.table_id, new)
    played = play(hosted, opened, invites(opened))
    for stream in (owner, seat, renewed):
        wait_for(lambda s=stream: played in s.seqs)  # type: ignore[misc]
        assert not stream.ended.is_set()
        stream.cancel()


def test_a_stream_opened_with_a_revoked_capability_is_refused(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    old = invites(opened)[0]
    reissue(hosted, opened, 0)
    assert Stream(hosted, opened.table_id, old).ending() == "PERMISSION_DENIED/CAPABILITY_INVALID"


def test_a_closed_tables_streams_still_end_after_the_closing_update(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    streams = [Stream(hosted, opened.table_id, c) for c in (invites(opened)[0], opened.spectators.capability)]
    closed = hosted.stub.CloseTable(
        hpb.CloseTableRequest(table_id=opened.table_id), metadata=cap(opened.owner.capability)
    )
    for stream in streams:
        assert stream.ending() == "OK" and stream.seqs[-1] == closed.seq


def test_a_revocation_on_one_replica_ends_the_streams_on_the_other(postgres: Backend, tmp_path: Path) -> None:
    config = host_config(tmp_path, store_url=postgres.url, host_replicas=2)
    a, b = start_host(config), start_host(replace(config, data_dir=str(tmp_path / "second")))
    try:
        opened = open_trentuno(a.stub)
        keys = invites(opened)
        old = Stream(b, opened.table_id, keys[1])
        spectator = Stream(b, opened.table_id, opened.spectators.capability)
        keys[1] = reissue(a, opened, 1)
        assert old.ending() == REVOKED
        played = play(a, opened, keys)
        wait_for(lambda: played in spectator.seqs)
        assert not spectator.ended.is_set()
        spectator.cancel()
    finally:
        a.close()
        b.close()


def test_a_revocation_made_while_a_replica_listens_again_still_ends_its_streams(
    postgres: Backend, tmp_path: Path
) -> None:
    """The replicas' listening connections are cut just before a reissue: the notification may be lost, but once
    listening again each replica has its watchers check their capabilities, and the old one's stream ends."""
    config = host_config(tmp_path, store_url=postgres.url, host_replicas=2)
    a, b = start_host(config), start_host(replace(config, data_dir=str(tmp_path / "second")))
    try:
        opened = open_trentuno(a.stub)
        old = Stream(b, opened.table_id, invites(opened)[1])
        other = Stream(b, opened.table_id, invites(opened)[0])
        listening = "query LIKE 'LISTEN%' AND pid <> pg_backend_pid()"
        assert postgres.sql(f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE {listening}")[0][0]
        reissue(a, opened, 1)
        assert old.ending() == REVOKED
        assert not other.ended.is_set()
        other.cancel()
    finally:
        a.close()
        b.close()


def test_a_watcher_reads_its_capability_again_only_when_its_audience_is_reissued(hosted: Hosted) -> None:
    """One store read per watcher of the reissued audience; the other watchers read nothing."""
    opened = open_trentuno(hosted.stub)
    keys = invites(opened)
    streams = [Stream(hosted, opened.table_id, keys[seat]) for seat in (0, 2)]
    with counted_reads(hosted.host.store) as reads:
        reissue(hosted, opened, 1)  # nobody watches with seat 1's invite
        reissue(hosted, opened, 0)
        assert streams[0].ending() == REVOKED
        assert len(reads) == 2 + 1, reads  # each reissue reads the table once; seat 0's one watcher once
    streams[1].cancel()
