"""Tables between people: one person opens a table in the page, three people and a spectator sit at it from the
invite links the page shows, each in a browser context of their own, and play a hand of each game together.

Every move is made by clicking (Trentuno's exchanges by picking the cards, one by keyboard) in the context whose
turn it is; every other context must show it without doing anything (the host pushes it down their Watch
streams). At every step each context draws face up only the cards its seat (or the spectators) may see, as the
host shows that capability, and face-down cards carry no code; no page, localStorage or answer ever holds the
table's state token or a seat key; one context leaves mid-hand and comes back from its invite link in a fresh
context, at its seat, with the table as it is; at the end every screen agrees on the chips and the settlement,
and the owner closes the table for everyone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.web.conftest import (
    GAMES,
    PREFERRED,
    WAIT_MS,
    Person,
    Server,
    check_cards,
    check_no_secrets,
    person,
    save_screenshot,
)


def capability_of(url: str) -> str:
    return parse_qs(urlsplit(url).fragment)["invite"][0]


def own_capability(someone: Person, table_id: str) -> str:
    kept = json.loads(someone.page.evaluate("localStorage.getItem('mazziere.tables')"))
    capability: str = kept[table_id]["capability"]
    return capability


def open_with_friends(owner: Person, server: Server, game: str, people: int, turn: int = 600) -> dict[str, str]:
    """The owner opens a table of ``game`` in the setup form (``people`` people, no bots, the owner at seat 0):
    the invite links the page shows, by seat ("seat-1", ...) and "spectators"."""
    owner.goto(f"{server.url}/play/")
    page = owner.page
    page.wait_for_selector("#setup")
    page.check("#mode-friends")
    page.select_option("#game", game)
    while page.locator(".seat-row").count() > people:
        page.click(".seat-row:last-child .remove")
    while page.locator(".seat-row").count() < people:
        page.click("#add-seat")
    kinds = page.eval_on_selector_all(".seat-kind", "els => els.map(e => e.value)")
    assert kinds == [""] * people, kinds
    assert page.is_checked(".seat-row:first-child .me")
    page.fill("#turn", str(turn))
    page.click("#start")
    owner.wait_live()
    links: dict[str, str] = page.eval_on_selector_all(
        "[data-invite]", "els => Object.fromEntries(els.map(e => [e.dataset.invite, e.value]))"
    )
    assert set(links) == {*(f"seat-{s}" for s in range(1, people)), "spectators"}, links
    assert all(link.startswith(f"{server.url}/play/#table=") for link in links.values())
    # The page keeps the owner's own invite and the owner's capability, never the others' invites.
    stored = owner.stored()
    assert not any(capability_of(link) in stored for link in links.values())
    return links


def owner_panel(owner: Person) -> None:
    """Opens the owner's panel (it is open already while the invites made at the opening are shown)."""
    if not owner.page.evaluate("document.querySelector('#owner').open"):
        owner.page.click("#owner summary")


def join(browser: Any, link: str) -> Person:
    """A new context opens an invite link: it is at the table, and the capability has left the address bar."""
    someone = person(browser)
    someone.goto(link)
    someone.wait_live()
    address = someone.page.evaluate("location.href")
    assert "invite=" not in address and address.endswith("#table=" + parse_qs(urlsplit(link).fragment)["table"][0])
    return someone


def everyone_at(contexts: list[Person], seq: int) -> None:
    for someone in contexts:
        someone.wait_seq(seq)


def to_act(people: list[Person]) -> int:
    """The one seat whose page says it is its turn."""
    turns = [i for i, p in enumerate(people) if p.page.get_attribute("#table", "data-my-turn") == "true"]
    assert len(turns) == 1, f"pages that say it is their turn: {turns}"
    return turns[0]


def make_move(actor: Person, exchanged: set[int], seat: int, by_keyboard: bool) -> None:
    """The actor's move: Trentuno's first exchange of each seat by picking two cards (by keyboard for one seat),
    else the first move of PREFERRED the page offers."""
    page = actor.page
    actor.wait("() => document.querySelector('#table').dataset.busy === 'false'")
    kinds = actor.moves()
    assert kinds, "the page offers no move at its turn"
    if "EXCHANGE" in kinds and seat not in exchanged:
        exchanged.add(seat)
        assert page.locator(".actions button[data-kind=EXCHANGE]").count() == 0  # no button per exchange
        if by_keyboard:
            # Focus went to the first move, the first card of the hand; Enter picks it, Tab reaches the widow.
            assert page.evaluate("document.activeElement.dataset.pick") == "hand"
            page.keyboard.press("Enter")
            page.wait_for_selector("[data-pick=hand][aria-pressed=true]")
            for _ in range(12):
                if page.evaluate("document.activeElement.dataset.pick") == "widow":
                    break
                page.keyboard.press("Tab")
            assert page.evaluate("document.activeElement.dataset.pick") == "widow"
            page.keyboard.press("Enter")
        else:
            page.click("[data-pick=hand] >> nth=1")
            page.wait_for_selector("[data-pick=hand][aria-pressed=true]")
            assert "Scelta (picked)" in page.inner_text(".exchange-help")
            page.click("[data-pick=widow] >> nth=0")
        return
    kind = next((k for k in PREFERRED if k in kinds), kinds[0])
    page.click(f".actions button[data-move={kind}] >> nth=0")


def checkpoint(
    contexts: list[Person], capabilities: list[str], server: Server, table_id: str, secrets: set[str]
) -> None:
    secrets |= server.secrets(table_id)
    for someone, capability in zip(contexts, capabilities, strict=True):
        check_cards(someone, server, table_id, capability)


def public_chips(server: Server, table_id: str, capability: str) -> list[str]:
    view = server.call("GetHostedTable", {"tableId": table_id}, capability)["update"]["update"]["view"]
    game = next(iter(view.values()))
    if "seats" in game:  # Sette e mezzo
        return [seat.get("chips", "0") for seat in game["seats"]]
    return [str(chips) for chips in game["chips"]]


@pytest.mark.parametrize("game", GAMES)
def test_three_people_and_a_spectator_play_a_hand_together(
    browser: Any, server: Server, game: str, tmp_path: Path
) -> None:
    owner = person(browser)
    links = open_with_friends(owner, server, game, 3)
    table_id = parse_qs(urlsplit(links["spectators"]).fragment)["table"][0]
    people = [owner, join(browser, links["seat-1"]), join(browser, links["seat-2"])]
    spectator = join(browser, links["spectators"])
    capabilities = [own_capability(owner, table_id), capability_of(links["seat-1"]), capability_of(links["seat-2"])]
    watchers = capability_of(links["spectators"])
    for seat, someone in enumerate(people):
        assert someone.page.get_attribute("#table", "data-seat") == str(seat)
    assert spectator.page.get_attribute("#table", "data-seat") == ""
    assert "spettatore" in spectator.text(".role")
    # Presence: everyone sees the three people connected (a change pushed as each one arrived).
    for someone in [*people, spectator]:
        someone.page.wait_for_function(
            "() => document.querySelectorAll('[data-seat][data-connected=true]').length === 3", timeout=WAIT_MS
        )

    secrets: set[str] = set()
    exchanged: set[int] = set()
    returned: Person | None = None
    hands_then = ""
    seq = people[0].seq()
    for _ in range(80):
        everyone = [*people, spectator]
        everyone_at(everyone, seq)
        checkpoint(everyone, [*capabilities, watchers], server, table_id, secrets)
        if returned is not None and owner.page.get_attribute("#table", "data-hands") != hands_then:
            break  # the hand someone left and came back to has ended
        seat = to_act(people)
        if returned is None and people[seat].moves() != ["DEAL"]:
            # Mid-hand, someone who is not to play leaves, and the others see it. A move is made while they are
            # away; they come back from their link in a fresh context: at their seat, the table as it is now.
            hands_then = owner.page.get_attribute("#table", "data-hands") or ""
            gone = 2 if seat != 2 else 1
            check_no_secrets(people[gone], secrets)
            assert people[gone].errors == []
            people[gone].close()
            for someone in everyone:
                if someone is not people[gone]:
                    someone.page.wait_for_selector(f"[data-seat='{gone}'][data-connected=false]", timeout=WAIT_MS)
            make_move(people[seat], exchanged, seat, by_keyboard=False)
            seq += 1
            everyone_at([p for p in everyone if p is not people[gone]], seq)
            returned = people[gone] = join(browser, links[f"seat-{gone}"])
            assert returned.page.get_attribute("#table", "data-seat") == str(gone)
            assert returned.seq() == seq
            for someone in [*people, spectator]:
                someone.page.wait_for_selector(f"[data-seat='{gone}'][data-connected=true]", timeout=WAIT_MS)
            continue
        make_move(people[seat], exchanged, seat, by_keyboard=seat == 1)
        seq += 1
        # Pushed live: every other page moves on to the new step with no action of its own.
        everyone_at(everyone, seq)
    else:
        pytest.fail(f"the hand did not end; the owner's page shows {owner.text('#table')}")

    everyone = [*people, spectator]
    chips = public_chips(server, table_id, watchers)
    settlement = owner.text(".settlement")
    assert settlement, "no settlement after the hand"
    for someone in everyone:
        if someone is returned and returned.page.get_attribute("#table", "data-hands") == "0":
            # The hand ended while they were away: the results they were shown are the others' results.
            assert set(someone.text(".settlement").splitlines()) <= set(settlement.splitlines())
        else:
            assert someone.text(".settlement") == settlement
    for someone in everyone:
        assert someone.chips() == chips
    if game == "trentuno":
        assert exchanged  # Trentuno's exchanges were made by picking cards
    if game == "trentuno":
        save_screenshot(owner, tmp_path, f"friends-{game}")

    # The owner closes the table: every page hears it, offers no move, and its Watch stream ends.
    owner_panel(owner)
    owner.page.click("#close-table")
    owner.page.click("#close-yes")
    for someone in everyone:
        someone.page.wait_for_selector("#table[data-closed=true]", timeout=WAIT_MS)
        assert someone.page.locator(".actions [data-move]").count() == 0
        assert "chiuso" in someone.text(".actions")
    for someone in everyone:
        check_no_secrets(someone, secrets)
        assert someone.errors == [], someone.errors
        someone.close()


def test_the_owner_reissues_an_invite_and_the_old_one_stops_working(browser: Any, server: Server) -> None:
    owner = person(browser)
    links = open_with_friends(owner, server, "sette_e_mezzo", 2)
    old = links["seat-1"]
    bruno = join(browser, old)
    owner_panel(owner)
    owner.page.click("[data-key=reissue-seat-1]")
    owner.wait("old => { const i = document.querySelector('[data-invite=seat-1]'); return i && i.value !== old; }", old)
    new = owner.page.input_value("[data-invite=seat-1]")
    assert new != old and capability_of(new) not in owner.stored()
    # The page open with the old invite stops at once (its Watch stream ends CAPABILITY_REVOKED): told plainly.
    bruno.page.wait_for_selector("#gone [data-reason=CAPABILITY_REVOKED]", timeout=WAIT_MS)
    assert "invito nuovo" in bruno.text("#gone") and "non vale più" in bruno.text("#gone")
    # The old invite no longer opens the table: its holder is told plainly, and offered a new table.
    bruno.goto(old)
    bruno.page.wait_for_selector("#gone [data-reason=CAPABILITY_INVALID]", timeout=WAIT_MS)
    assert "non vale più" in bruno.text("#gone")
    assert "mazziere.tables" not in bruno.stored() or capability_of(old) not in bruno.stored()
    bruno.page.click("#new-table")
    bruno.page.wait_for_selector("#setup")
    # The new one does, at the same seat.
    bruno.goto(new)
    bruno.wait_live()
    assert bruno.page.get_attribute("#table", "data-seat") == "1"
    assert owner.errors == [] and bruno.errors == []
    owner.close()
    bruno.close()


def test_a_slow_persons_turn_is_played_by_the_host_when_the_timer_runs_out(browser: Any, server: Server) -> None:
    """The page counts the turn's time down from the host's turn_ends_unix_ms; when it runs out the host plays a
    cautious move for the seat, and the page says so (the table opened through the API with a 3-second turn)."""
    opened = server.call(
        "OpenTable",
        {
            "game": "sette_e_mezzo",
            "seats": [{"name": "Anna", "chips": "20"}, {"name": "Bruno", "chips": "20"}],
            "turnSeconds": 3,
            "options": {"setteEMezzo": {"firstBank": "SETTE_E_MEZZO_FIRST_BANK_SEAT", "firstBankSeat": 1}},
        },
    )
    anna, bruno = (join(browser, invite["url"]) for invite in opened["invites"])
    # Whoever is to play, both pages count their time down.
    for someone in (anna, bruno):
        someone.page.wait_for_selector(".turn .timer", timeout=WAIT_MS)
    seq = anna.seq()
    # Nobody moves: the host plays for the late seat when its time is up (Bruno deals first), and both pages
    # hear it and say so.
    for someone in (anna, bruno):
        someone.wait_seq(seq + 1)
        someone.page.wait_for_function(
            "() => document.querySelector('.log').innerText.includes('Tempo scaduto per')", timeout=WAIT_MS
        )
    server.call("CloseTable", {"tableId": opened["tableId"]}, opened["owner"]["capability"])  # no more timers
    for someone in (anna, bruno):
        someone.page.wait_for_selector("#table[data-closed=true]", timeout=WAIT_MS)
    assert anna.errors == [] and bruno.errors == []
    anna.close()
    bruno.close()
