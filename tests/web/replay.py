"""A recorded table, served to the real page: the same cards, names and clock at every run, for the screenshots the
visual test compares and clients/web/README.md shows.

``record`` plays one hand of Trentuno against two bots through the host (HTTP, as a browser calls it) and keeps
what one seat's Watch from ``after_seq = -1`` sent: every step from the opening, with its view. ``serve`` gives a
browser context a ``fetch`` that answers the page's Watch calls from that record (an init script, outside the
page's CSP): a Watch from -1 gets the steps up to the one asked for; any other gets the table at a chosen step as
a snapshot, then, if asked, one step more pushed live, and stays open, as the host's stream does.

``python -m tests.web.replay`` records the table again into ``tests/web/visual/trentuno.json``.
"""

from __future__ import annotations

import json
import struct
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parent / "visual" / "trentuno.json"

SERVE = """(record) => {
  // The page's fetch answers Watch from the record; every other call goes to the server as usual.
  const encoder = new TextEncoder();
  const envelope = (flags, message) => {
    const body = encoder.encode(JSON.stringify(message));
    const framed = new Uint8Array(5 + body.length);
    framed[0] = flags;
    new DataView(framed.buffer).setUint32(1, body.length);
    framed.set(body, 5);
    return framed;
  };
  const fetched = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input.url;
    if (!url.endsWith("/mazziere.v1.HostService/Watch")) return fetched(input, init);
    const sent = new Uint8Array(await new Response(init.body).arrayBuffer());
    const request = JSON.parse(new TextDecoder().decode(sent.slice(5)));
    const after = Number(request.afterSeq ?? 0);
    const steps = record.steps;
    const stream = new ReadableStream({
      start(controller) {
        if (after < 0) {
          const done = steps.filter((s) => Number(s.seq ?? 0) <= record.at);
          for (const step of done) controller.enqueue(envelope(0, { update: step }));
          controller.enqueue(envelope(2, {}));
          controller.close();
          return;
        }
        const now = steps.find((s) => Number(s.seq ?? 0) === record.at);
        controller.enqueue(envelope(0, { presence: record.presence, update: { ...now, snapshot: true } }));
        const next = steps.find((s) => Number(s.seq ?? 0) === record.at + 1);
        if (record.push && next) controller.enqueue(envelope(0, { update: next }));
        // Left open: the host's stream stays open while the page watches.
      },
    });
    return new Response(stream, { status: 200, headers: { "content-type": "application/connect+json" } });
  };
}"""


def load() -> dict[str, Any]:
    recorded: dict[str, Any] = json.loads(FIXTURE.read_text())
    return recorded


def serve(context: Any, base_url: str, record: dict[str, Any], at: int, push: bool = False) -> None:
    """The context's pages watch the recorded table at step ``at`` (then ``at + 1`` pushed live if ``push``), and
    keep its seat's capability, as a page that opened the seat's link would."""
    shown = {**record, "at": at, "push": push}
    tables = {record["tableId"]: {"capability": record["capability"], "at": 1}}
    context.add_init_script(
        f"localStorage.setItem('mazziere.tables', {json.dumps(json.dumps(tables))});"
        f"localStorage.setItem('mazziere.last', {json.dumps(record['tableId'])});"
        f"({SERVE})({json.dumps(shown)});"
    )


def _watch_all(base_url: str, table_id: str, capability: str, until: int) -> list[dict[str, Any]]:
    """Every step of the table from its opening up to ``until``, as the capability's audience saw them."""
    body = json.dumps({"tableId": table_id, "afterSeq": "-1"}).encode()
    request = urllib.request.Request(
        f"{base_url}/mazziere.v1.HostService/Watch",
        struct.pack(">BI", 0, len(body)) + body,
        headers={"Content-Type": "application/connect+json", "x-table-capability": capability},
    )
    steps: list[dict[str, Any]] = []
    with urllib.request.urlopen(request, timeout=30) as answer:
        while True:
            flags, size = struct.unpack(">BI", answer.read(5))
            message = json.loads(answer.read(size))
            if flags & 2:
                break
            if "update" in message:
                steps.append(message["update"])
                if int(message["update"].get("seq", 0)) >= until:
                    break
    return steps


def record(server: Any) -> dict[str, Any]:
    """One hand of Trentuno: Anna (seat 0) against two cautious bots, Bot 1 dealing; Anna exchanges once, then
    knocks or passes. The record ends with the next deal, which reveals the hand's pack."""
    opened = server.call(
        "OpenTable",
        {
            "game": "trentuno",
            "seats": [
                {"name": "Anna", "chips": "50"},
                {"name": "Bot 1", "chips": "50", "bot": "cautious"},
                {"name": "Bot 2", "chips": "50", "bot": "cautious"},
            ],
            "turnSeconds": 300,
            "options": {"trentuno": {"firstDealer": "TRENTUNO_FIRST_DEALER_SEAT", "firstDealerSeat": 1}},
        },
    )
    table_id, capability = opened["tableId"], opened["invites"][0]["capability"]
    exchanged = False
    for _ in range(200):
        now = server.call("GetHostedTable", {"tableId": table_id}, capability)
        update = now["update"]
        seq = int(update.get("seq", 0))
        ended = [u for u in _watch_all(server.url, table_id, capability, seq) if _ends(u)]
        if ended:
            steps = _watch_all(server.url, table_id, capability, int(ended[0].get("seq", 0)) + 1)
            # Anna, whose page the record is served to, is at the table.
            presence = [{**seat, "connected": True} for seat in now["presence"]]
            return {"tableId": table_id, "capability": capability, "presence": presence, "steps": steps}
        if 0 not in update.get("toAct", []):
            time.sleep(0.05)  # the bots play, 40 ms apart
            continue
        legal = update["update"]["legalActions"]
        kinds = [action["kind"] for action in legal]
        if "EXCHANGE" in kinds and not exchanged:
            choice = next(action for action in legal if action["kind"] == "EXCHANGE")
            exchanged = True
        else:
            choice = next(action for action in legal if action["kind"] in ("STOP", "PASS", "DEAL"))
        action = {"seat": 0, "kind": choice["kind"], "cards": choice.get("cards", [])}
        server.call("Play", {"tableId": table_id, "expectedSeq": str(seq), "action": action}, capability)
    raise RuntimeError("the hand did not end")


def _ends(update: dict[str, Any]) -> bool:
    events = update.get("update", {}).get("events", [])
    return any(event.get("kind") in ("HAND_OVER", "GAME_OVER") for event in events)


def main() -> None:
    from tests.web.conftest import Server

    server = Server(Path(tempfile.mkdtemp()))
    server.start()
    try:
        recorded = record(server)
    finally:
        server.stop()
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(json.dumps(recorded, indent=1) + "\n")
    print(f"{FIXTURE}: {len(recorded['steps'])} steps", file=sys.stderr)


if __name__ == "__main__":
    main()
