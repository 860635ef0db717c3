"""The host's states on the page, several people in Chromium: the waiting room (nobody played before the clock
starts, the owner's "Si comincia", a late joiner taking their seat back from the table), quick reactions reaching
every person at the table, and the pause when every person has left (nothing played until one comes back, then the
turn starts again with its whole time)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.web.conftest import WAIT_MS, Person, Server, person, serving
from tests.web.test_friends import capability_of, join, make_move, open_with_friends

GRACE = 1
"""The presence grace (seconds) of the server the pause is seen on: a person is away a second after their page
closes (the session's server keeps the host's 30 s, which the other tests' people reconnecting need)."""
TURN = 10
"""The shortest turn the setup form takes (seconds)."""


@pytest.fixture(scope="module")
def brief_grace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("web-grace"), presence_grace_seconds=str(GRACE)) as running:
        yield running


def test_the_waiting_room_plays_nobody_until_the_owner_starts_and_a_late_joiner_takes_their_seat(
    browser: Any, server: Server
) -> None:
    owner = person(browser)
    links = open_with_friends(owner, server, "sette_e_mezzo", 3, turn=10)
    page = owner.page
    page.wait_for_selector("#table[data-state=waiting]", timeout=WAIT_MS)
    assert "1 di 3" in owner.text(".hosting")
    bruno = join(browser, links["seat-1"])
    owner.wait("() => document.querySelector('.hosting')?.innerText.includes('2 di 3')")
    seq = owner.seq()
    time.sleep(11)  # longer than the turn: still waiting, nothing played
    assert owner.seq() == seq and page.get_attribute("#table", "data-state") == "waiting"
    assert bruno.page.locator(".hosting .start").count() == 0  # only the owner starts
    page.click(".hosting .start")
    page.wait_for_selector("#table[data-state=playing]", timeout=WAIT_MS)
    bruno.page.wait_for_selector("#table[data-state=playing]", timeout=WAIT_MS)
    owner.wait("() => document.querySelector('section[data-seat=\"2\"] .played-by-table') !== null")
    assert "gioca il tavolo" in owner.text('section[data-seat="2"]')
    carla = join(browser, links["seat-2"])
    owner.wait("() => document.querySelector('section[data-seat=\"2\"] .played-by-table') === null")
    # A reaction reaches everyone at the table, on the sender's seat.
    bruno.page.click("[data-key=react-bella]")
    for someone in (owner, bruno, carla):
        someone.page.wait_for_selector('section[data-seat="1"] .reaction[data-reaction=bella]', timeout=WAIT_MS)
        assert "bella!" in someone.text('section[data-seat="1"] .reaction')
    assert owner.errors == [] and bruno.errors == [] and carla.errors == []
    for someone in (owner, bruno, carla):
        someone.close()


def hosted_status(server: Server, table_id: str, capability: str) -> tuple[str, int, int]:
    """The table's hosted state, its turn's end (Unix ms, 0 for no clock) and its step, as the host answers."""
    answer = server.call("GetHostedTable", {"tableId": table_id}, capability)
    status = answer.get("status", {})
    return status.get("state", ""), int(status.get("turnEndsUnixMs", 0)), int(answer["update"].get("seq", 0))


def shows_paused(someone: Person) -> None:
    """The page says the table is paused, and shows no clock."""
    someone.page.wait_for_selector("#table[data-state=paused] .hosting[data-state=paused]", timeout=WAIT_MS)
    assert "Tavolo in pausa" in someone.text(".hosting")
    assert someone.page.locator(".timer").count() == 0


@pytest.mark.long  # more than a turn's time paused, on purpose
def test_the_table_pauses_when_everyone_leaves_and_resumes_when_one_returns(browser: Any, brief_grace: Server) -> None:
    server = brief_grace
    owner = person(browser)
    links = open_with_friends(owner, server, "sette_e_mezzo", 2, turn=TURN)
    table_id = parse_qs(urlsplit(links["spectators"]).fragment)["table"][0]
    looking = capability_of(links["spectators"])  # a spectator is no person: looking keeps nobody at the table
    bruno = join(browser, links["seat-1"])  # every seat taken: the waiting room ends, the clock starts
    watcher = join(browser, links["spectators"])
    for someone in (owner, bruno, watcher):
        someone.page.wait_for_selector("#table[data-state=playing]", timeout=WAIT_MS)
    # Every person closes their page: past the grace, the turn falling due pauses the table instead of playing.
    owner.close()
    bruno.close()
    shows_paused(watcher)
    state, ends, paused = hosted_status(server, table_id, looking)
    assert (state, ends) == ("TABLE_STATE_PAUSED", 0) and watcher.seq() == paused
    time.sleep(TURN + 1)  # more than a turn's time: no timer runs, nothing is played
    assert hosted_status(server, table_id, looking) == ("TABLE_STATE_PAUSED", 0, paused)
    assert watcher.seq() == paused
    shows_paused(watcher)
    # Bruno opens his link again: the table resumes, the clock runs again with a whole turn from his return (the
    # owner's seat, away, is played by the table at once), and play goes on.
    returned_ms = int(time.time() * 1000)
    bruno = join(browser, links["seat-1"])
    for someone in (bruno, watcher):
        someone.page.wait_for_selector("#table[data-state=playing]", timeout=WAIT_MS)
        assert someone.page.locator(".hosting").count() == 0
    whole = returned_ms + TURN * 1000
    watcher.wait("least => [...document.querySelectorAll('.timer')].some(t => Number(t.dataset.ends) >= least)", whole)
    state, ends, _ = hosted_status(server, table_id, looking)
    assert state == "TABLE_STATE_PLAYING" and ends > 0
    bruno.page.wait_for_selector("#table[data-my-turn=true][data-busy=false][data-connection=live]", timeout=WAIT_MS)
    before = bruno.seq()
    make_move(bruno, set(), 1, by_keyboard=False)
    watcher.wait_seq(before + 1)
    assert bruno.errors == [] and watcher.errors == [] and owner.errors == []
    bruno.close()
    watcher.close()
