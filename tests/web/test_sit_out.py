"""A friend who leaves a table of Sette e mezzo sits the next hands out, and the page says so.

The table is opened from the page with friends (it follows presence); a friend who is not the bank closes their
page, and past the host's presence grace (a second here) the table sits them out between hands: every page shows
their seat "fuori questa mano", not "gioca il tavolo". The friend opens the link again and sits back in.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.conftest import WAIT_MS, Server, person
from tests.web.test_friends import capability_of, join, open_with_friends

pytestmark = pytest.mark.long  # browsers and a server of its own

GRACE = "1"
"""The presence grace of this module's server (seconds)."""


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose presence grace is a second, so a person who left is away at once."""
    running = Server(tmp_path_factory.mktemp("sit-out-data"))
    running.env["MAZZIERE_PRESENCE_GRACE_SECONDS"] = GRACE
    running.start()
    try:
        yield running
    finally:
        running.stop()


def seat_text(someone: Any, seat: int) -> str:
    return str(someone.text(f"section[data-seat='{seat}']"))


def test_a_friend_who_leaves_sits_out_and_is_back_in_on_return(browser: Any, quick: Server) -> None:
    owner = person(browser)
    links = open_with_friends(owner, quick, "sette_e_mezzo", 3)
    friends = {seat: join(browser, links[f"seat-{seat}"]) for seat in (1, 2)}
    table_id = links["seat-1"].split("#table=")[1].split("&")[0]
    view = quick.call("GetHostedTable", {"tableId": table_id}, capability_of(links["seat-1"]))["update"]
    bank = int(view["update"]["view"]["setteEMezzo"].get("bank", 0))
    leaving = 1 if bank != 1 else 2
    friends.pop(leaving).close()
    # Past the grace the page marks the seat away; the owner looks at the table again (between hands): it sits out.
    owner.page.wait_for_selector(f"section[data-seat='{leaving}'] .played-by-table", timeout=WAIT_MS)
    owner.page.reload()
    owner.wait_live()
    owner.page.wait_for_function(
        "seat => document.querySelector(`section[data-seat='${seat}']`).textContent.includes('fuori questa mano')",
        arg=leaving,
        timeout=WAIT_MS,
    )
    assert "gioca il tavolo" not in seat_text(owner, leaving)
    assert "fuori questa mano" not in seat_text(owner, bank)
    assert not owner.page.locator("[data-move=SIT_OUT], [data-move=SIT_IN]").count()  # the table's moves only
    # The friend opens the link again: between hands, the seat sits back in at once.
    back = join(browser, links[f"seat-{leaving}"])
    owner.page.wait_for_function(
        "seat => !document.querySelector(`section[data-seat='${seat}']`).textContent.includes('fuori questa mano')",
        arg=leaving,
        timeout=WAIT_MS,
    )
    for someone in (owner, back, *friends.values()):
        someone.close()
