"""The web table (clients/web) in a real browser: Debian's Chromium driven by Playwright, against `mazziere serve`.

One server process for the whole run (REST port and gRPC port free, its store in a temporary data directory, its
public URL its own REST address, bots quick; a module may start one of its own with other settings, ``serving``)
and one browser; each person at a table is a browser context of its own (its own localStorage), so three people
and a spectator sit at one table from one browser. ``make test``
builds the page (``make web``) and installs Chromium with apt when it is missing; without it the tests are skipped.

Every context counts the page's errors and any load the page's Content-Security-Policy blocks (Chromium logs each
to the console), and keeps every answer it received (``page.on("response")``, and a copy of what the page's fetch
read, Watch streams included), to look through their bodies for a state token or a seat key.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.gateway.conftest import wait_http
from tests.ports import free_port
from tests.service.test_process import server_env

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "clients" / "web" / "dist"
PREFERRED = ("STAND", "KEEP", "STOP", "PASS", "STAKE", "DEAL")
"""The moves the tests prefer, so that each hand ends soon: the first of these the page offers is made."""
GAMES = ("sette_e_mezzo", "saltacavallo", "trentuno")
WAIT_MS = 30_000
"""How long a test waits for the page to show something (a condition, never a measured time)."""
TEE_FETCH = """(() => {
  // Every answer the page's fetch receives, streams included, as the page reads it: a copy of its body.
  const answers = [];
  Object.defineProperty(window, "__answers", { value: answers });
  const fetched = window.fetch.bind(window);
  window.fetch = async (...args) => {
    const response = await fetched(...args);
    if (!response.body) return response;
    const [page, copy] = response.body.tee();
    const entry = { url: response.url, text: "" };
    answers.push(entry);
    const decoder = new TextDecoder();
    (async () => {
      const reader = copy.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        entry.text += decoder.decode(value, { stream: true });
      }
    })().catch(() => {});
    return new Response(page, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
})();"""
"""Playwright has no body for a stream the page cut (connect-web ends a finished Watch by aborting its fetch), so
each page also keeps a copy of what its fetch read (an init script, outside the page's CSP)."""
SECRET_KEYS = re.compile(r'"(state"\s*:\s*(?!"TABLE_STATE_)|(seatKeys?|seat_keys?)"\s*:)')
"""The JSON names of a state token and of seat keys in TableService's messages (none is HostService's; a hosted
table's ``HostedStatus.state`` is an enum, ``"TABLE_STATE_..."``, never a token)."""


class Server:
    """``mazziere serve`` on free ports, its host's store in ``data``; restartable on the same ports and store.
    ``settings`` add to the tests' own or replace them (``presence_grace_seconds="1"`` is
    ``MAZZIERE_PRESENCE_GRACE_SECONDS=1``)."""

    def __init__(self, data: Path, **settings: str) -> None:
        self.data = data
        self.rest = free_port()
        self.grpc = free_port()
        self.url = f"http://127.0.0.1:{self.rest}"
        own = {
            "rest_port": str(self.rest),
            "rest_host": "127.0.0.1",
            "log_calls": "false",
            "data_dir": str(data),
            "public_url": self.url,
            "bot_delay_ms": "40",
            "caller_tables_per_minute": "1000",  # every page of the tests calls from 127.0.0.1
            "caller_open_tables": "1000",
            "caller_reads_per_second": "1000",
        }
        self.env = server_env(self.grpc, 0, **(own | settings))
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        exe = shutil.which("mazziere", path=str(Path(sys.executable).parent)) or "mazziere"
        self.process = subprocess.Popen([exe, "serve"], env=self.env, cwd=ROOT, stderr=subprocess.DEVNULL)
        wait_http(f"{self.url}/readyz", seconds=60)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None

    def call(self, rpc: str, body: dict[str, Any], capability: str = "") -> dict[str, Any]:
        """A HostService call over Connect (JSON), as a browser makes it."""
        headers = {"Content-Type": "application/json"}
        if capability:
            headers["x-table-capability"] = capability
        request = urllib.request.Request(
            f"{self.url}/mazziere.v1.HostService/{rpc}", json.dumps(body).encode(), headers=headers
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            result: dict[str, Any] = json.load(answer)
            return result

    def secrets(self, table_id: str) -> set[str]:
        """The table's latest state token (as base64, both alphabets) and its seat keys, read from the host's store:
        what no browser may ever hold."""
        with sqlite3.connect(f"file:{self.data / 'tables.db'}?mode=ro", uri=True) as db:
            row = db.execute("SELECT token, seat_keys FROM tables WHERE table_id = ?", (table_id,)).fetchone()
        assert row, f"the host's store keeps no table {table_id}"
        token, keys = bytes(row[0]), json.loads(row[1])
        found = {base64.b64encode(token).decode()[:48], base64.urlsafe_b64encode(token).decode().rstrip("=")[:48]}
        return found | {key for key in keys if key}


@contextlib.contextmanager
def serving(data: Path, **settings: str) -> Iterator[Server]:
    """A server started with ``settings`` (see :class:`Server`), its store in ``data``, stopped at the end."""
    if not (DIST / "index.html").is_file():
        pytest.fail("clients/web/dist is missing: run `make web` (make test does)", pytrace=False)
    running = Server(data, **settings)
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("web-data")) as running:
        yield running


@dataclass
class Person:
    """One browser context at the table: a person (or a spectator) with a page of their own."""

    context: Any
    page: Any
    errors: list[str] = field(default_factory=list)
    responses: list[Any] = field(default_factory=list)
    finished: list[Any] = field(default_factory=list)
    bodies: list[str] = field(default_factory=list)

    def goto(self, url: str) -> None:
        self.page.goto(url)

    def seq(self) -> int:
        return int(self.page.get_attribute("#table", "data-seq") or -1)

    def wait(self, expression: str, arg: Any = None) -> None:
        self.page.wait_for_function(expression, arg=arg, timeout=WAIT_MS)

    def wait_seq(self, seq: int) -> None:
        """Until the page shows step ``seq`` (or a later one), live."""
        self.wait(
            "seq => { const t = document.querySelector('#table[data-connection=live]');"
            " return t !== null && Number(t.dataset.seq) >= seq; }",
            seq,
        )

    def wait_live(self) -> None:
        self.page.wait_for_selector("#table[data-connection=live] .seats", timeout=WAIT_MS)

    def moves(self) -> list[str]:
        """The kinds of the moves the page offers now (buttons, amount fields and cards to pick)."""
        kinds: list[str] = self.page.eval_on_selector_all(
            "#table[data-my-turn=true][data-busy=false][data-connection=live] [data-move]:not([disabled])",
            "els => [...new Set(els.map(e => e.dataset.move))]",
        )
        return kinds

    def cards(self) -> dict[str, Any]:
        """The page's step, its cards (codes and names), and whether any face-down card holds a code."""
        found: dict[str, Any] = self.page.evaluate(
            """() => ({
                seq: document.querySelector('#table').dataset.seq,
                faces: [...document.querySelectorAll('.card:not(.back)')].map(c => [c.dataset.card || '',
                        c.getAttribute('aria-label')]),
                backs: [...document.querySelectorAll('.card.back')].map(c => [c.hasAttribute('data-card'),
                        c.getAttribute('aria-label')]),
            })"""
        )
        return found

    def chips(self) -> list[str]:
        """The chips each seat shows, in the order of the seats (your own seat is drawn after the middle)."""
        chips: list[str] = self.page.eval_on_selector_all(
            "section[data-seat]",
            "seats => seats.sort((a, b) => a.dataset.seat - b.dataset.seat)"
            ".map(s => s.querySelector('.chip-count').textContent)",
        )
        return chips

    def text(self, selector: str) -> str:
        return self.page.inner_text(selector) if self.page.query_selector(selector) else ""

    def keep_bodies(self) -> None:
        """The bodies of the answers received so far that Playwright saw finish loading (not a stream: connect-web
        ends each by aborting its fetch, which leaves Playwright no body; `fetched` has those)."""
        left, read = [], []
        for response in self.responses:
            if any(response.request is request for request in self.finished):
                self.bodies.append(response.body().decode("utf-8", "replace"))
                read.append(response.request)
            else:
                left.append(response)
        self.responses = left
        self.finished = [request for request in self.finished if not any(request is r for r in read)]

    def fetched(self) -> list[str]:
        """What the page's fetch read of every answer since the page loaded (Watch streams up to now included)."""
        texts: list[str] = self.page.evaluate("(window.__answers || []).map(a => a.url + '\\n' + a.text)")
        return texts

    def stored(self) -> str:
        stored: str = self.page.evaluate("JSON.stringify(localStorage)")
        return stored

    def close(self) -> None:
        self.context.close()


def person(browser: Any, width: int = 900, height: int = 900, locale: str = "it-IT", **options: Any) -> Person:
    """A browser context of its own (its language ``locale``, as the browser says it) with one page."""
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale, **options)
    context.add_init_script(TEE_FETCH)
    page = context.new_page()
    someone = Person(context, page)
    page.on("pageerror", lambda error: someone.errors.append(str(error)))
    # Chromium logs every load or script the page's Content-Security-Policy blocks, and every feature of its
    # Permissions-Policy it does not know or that the page was refused.
    page.on("console", lambda msg: someone.errors.append(msg.text) if _policy_message(msg.text) else None)
    page.on("response", lambda response: someone.responses.append(response))
    page.on("requestfinished", lambda request: someone.finished.append(request))
    return someone


def _policy_message(text: str) -> bool:
    lowered = text.lower()
    return any(name in lowered for name in ("content security policy", "permissions-policy", "permissions policy"))


def view_codes(value: Any) -> set[str]:
    """Every card code in a JSON message (a TableCard carries `card` only where its receiver may see it)."""
    found: set[str] = set()
    if isinstance(value, dict):
        if isinstance(value.get("card"), str) and value["card"]:
            found.add(value["card"])
        for item in value.values():
            found |= view_codes(item)
    elif isinstance(value, list):
        for item in value:
            found |= view_codes(item)
    return found


def check_cards(someone: Person, server: Server, table_id: str, capability: str) -> None:
    """The page draws face up only cards its holder may see now (what the host shows that capability), every
    face-down card holds no code, and every card is named."""
    shown = someone.cards()
    answer = server.call("GetHostedTable", {"tableId": table_id}, capability)
    update = answer["update"]
    assert str(update.get("seq", "0")) == shown["seq"], "the page is not at the host's step"
    visible = view_codes(update.get("update", {}).get("view", {}))
    faces = {code for code, _ in shown["faces"]}
    assert faces <= visible, f"cards drawn face up that this seat may not see: {faces - visible}"
    assert all(code and label and " di " in label for code, label in shown["faces"])
    assert not any(has_code for has_code, _ in shown["backs"]), "a face-down card carries a card code"
    assert all(label == "carta coperta" for _, label in shown["backs"])


def check_no_secrets(someone: Person, secrets: set[str]) -> None:
    """Neither the page, nor its localStorage, nor any answer it received holds a state token or a seat key."""
    someone.keep_bodies()
    html = someone.page.content()
    stored = someone.stored()
    answers = [*someone.bodies, *someone.fetched()]
    assert any("/Watch" in a and "update" in a for a in answers), "no Watch stream was read"
    for where, text in (("the page", html), ("localStorage", stored), *(("an answer", a) for a in answers)):
        assert not SECRET_KEYS.search(text), f"{where} names a state token or seat key: {text[:300]}"
        leaked = [secret for secret in secrets if secret in text]
        assert not leaked, f"{where} holds a state token or a seat key"


def save_screenshot(someone: Person, tmp_path: Path, name: str) -> None:
    shot = tmp_path / f"web-{name}.png"
    someone.page.screenshot(path=str(shot), full_page=True)
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        shutil.copyfile(shot, ROOT / "docs" / shot.name)
