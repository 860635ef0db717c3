"""The host's states on the page, several people in Chromium: the waiting room (nobody played before the clock
starts, the owner's "Si comincia", a late joiner taking their seat back from the table) and quick reactions
reaching every person at the table."""

from __future__ import annotations

import time
from typing import Any

from tests.web.conftest import WAIT_MS, Server, person
from tests.web.test_friends import join, open_with_friends


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
