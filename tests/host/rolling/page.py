"""The web table in Chromium, watching one hosted table as its spectators from one replica's REST port, with no
reconnection code of the test's: what the page drew, and what its Watch streams carried, are recorded inside the
page by an init script and read back.

- ``window.__drawn``: each step the page drew (a new ``#table`` whose ``data-seq`` differs from the last), with when.
- ``window.__wire``: each update every Watch stream carried (stream number, seq, whether a snapshot, when), and how
  each stream ended (its end-stream message's error code, if any); a stream from ``after_seq`` -1 is the page's
  fetch of the steps before it joined (to check their packs), not its live one, and is marked ``history``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.host.rolling.fleet import Process
from tests.host.rolling.players import HostedTable

RECORD = """(() => {
  const drawn = [], wire = [];
  Object.defineProperty(window, "__drawn", { value: drawn });
  Object.defineProperty(window, "__wire", { value: wire });
  let streams = 0;
  Object.defineProperty(window, "__streams", { get: () => streams });
  const fetched = window.fetch.bind(window);
  window.fetch = async (...args) => {
    const response = await fetched(...args);
    if (!response.body || !String(response.url).includes("/mazziere.v1.HostService/Watch")) return response;
    const stream = ++streams;
    let history = false; // the page's fetch of the steps before it joined (after_seq -1), not its live stream
    try {
      const body = (args[1] || {}).body;
      history = String(JSON.parse(new TextDecoder().decode(body.subarray(5))).afterSeq) === "-1";
    } catch {}
    const [page, copy] = response.body.tee();
    (async () => {
      const reader = copy.getReader();
      const decoder = new TextDecoder();
      let buffer = new Uint8Array(0);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const joined = new Uint8Array(buffer.length + value.length);
        joined.set(buffer);
        joined.set(value, buffer.length);
        buffer = joined;
        while (buffer.length >= 5) {
          const size = new DataView(buffer.buffer, buffer.byteOffset, 5).getUint32(1);
          if (buffer.length < 5 + size) break;
          const message = JSON.parse(decoder.decode(buffer.subarray(5, 5 + size)));
          const flags = buffer[0];
          buffer = buffer.slice(5 + size);
          const update = message.update, t = Date.now();
          if (flags & 2) wire.push({ stream, history, end: message.error ? message.error.code : "", t });
          else if (update) wire.push({ stream, history, seq: Number(update.seq || 0), snapshot: !!update.snapshot, t });
        }
      }
    })().catch(() => {});
    return new Response(page, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.id !== "table" || !node.querySelector(".seats")) continue;
        const seq = Number(node.dataset.seq);
        if (!drawn.length || drawn[drawn.length - 1][0] !== seq) drawn.push([seq, Date.now()]);
      }
    }
  }).observe(document, { childList: true, subtree: true });
})();"""
WAIT_MS = 60_000
"""How long to wait for the page to show something (a condition, never a measured time)."""


@dataclass(frozen=True)
class Shown:
    """What the page shows of the table at one moment: its step, its hands, its log."""

    seq: int
    hands: str
    log: list[str]


class Page:
    """One Chromium page of the web table, at ``table`` as its spectators, served by ``process``."""

    def __init__(self, browser: Any, table: HostedTable, process: Process) -> None:
        self.table = table
        self.process = process
        self.label = f"the web table on {process.name} ({table.name})"
        self.errors: list[str] = []
        self.seen: list[tuple[int, float]] = []
        """Each step the page drew, and when (``time.time``)."""
        self.streams: Streams | None = None
        self.context = browser.new_context(viewport={"width": 900, "height": 900})
        self.context.add_init_script(RECORD)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def open(self) -> None:
        link = f"{self.process.url}/play/#table={self.table.table_id}&invite={self.table.opened.spectators.capability}"
        self.page.goto(link)
        self.wait_live()

    def wait_live(self) -> None:
        self.page.wait_for_selector("#table[data-connection=live] .seats", timeout=WAIT_MS)

    def streams_opened(self) -> int:
        """How many Watch streams the page has opened so far."""
        opened: int = self.page.evaluate("window.__streams")
        return opened

    def wait_live_again(self, streams: int) -> None:
        """Until the page watches live on a stream opened after the first ``streams``."""
        self.page.wait_for_function(
            "n => window.__streams > n && document.querySelector('#table[data-connection=live] .seats') !== null",
            arg=streams,
            timeout=WAIT_MS,
        )

    def wait_seq(self, seq: int) -> None:
        self.page.wait_for_function(
            "seq => Number(document.querySelector('#table')?.dataset.seq ?? -1) >= seq", arg=seq, timeout=WAIT_MS
        )

    def wait_closed(self) -> None:
        self.page.wait_for_selector("#table[data-closed=true]", timeout=WAIT_MS)

    def shown(self) -> Shown:
        found: dict[str, Any] = self.page.evaluate(
            """() => ({
                seq: Number(document.querySelector('#table').dataset.seq),
                hands: document.querySelector('#table').dataset.hands,
                log: [...document.querySelectorAll('.log li')].map(li => li.textContent),
            })"""
        )
        return Shown(int(found["seq"]), str(found["hands"]), list(found["log"]))

    def collect(self) -> None:
        """Reads back what the page recorded (once the table is closed): :attr:`seen` and :attr:`streams`."""
        drawn: list[list[float]] = self.page.evaluate("window.__drawn")
        self.seen = [(int(seq), at / 1000) for seq, at in drawn]
        self.streams = Streams(self, self.page.evaluate("window.__wire"))

    def close(self) -> None:
        self.context.close()


class Streams:
    """What the page's live Watch streams carried, read as one watcher's: each update's seq and when, across every
    stream; how many streams there were, how many updates were snapshots, and how each ended."""

    def __init__(self, page: Page, carried: list[dict[str, Any]]) -> None:
        self.table = page.table
        self.process = page.process
        self.label = f"the Watch streams of {page.label}"
        carried = [entry for entry in carried if not entry["history"]]
        updates = [entry for entry in carried if "seq" in entry]
        self.seen = [(int(entry["seq"]), entry["t"] / 1000) for entry in updates]
        self.count = len({entry["stream"] for entry in carried})
        self.snapshots = sum(1 for entry in updates if entry["snapshot"])
        self.ends = [str(entry["end"]) for entry in carried if "end" in entry]
