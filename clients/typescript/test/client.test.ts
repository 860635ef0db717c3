// Plays against a real server, over gRPC at $MAZZIERE_TARGET and over the Connect protocol and gRPC-Web at the
// REST gateway's $MAZZIERE_REST_TARGET (tests/clients starts one with both): npm run build && npm test
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Code, connect, ERROR_DOMAIN, errorInfo, type Transport } from "../client.js";
import { connectWeb } from "../web.js";
import { autoPlayAndAdvise, playHand } from "../example.js";

const transports: Transport[] = ["grpc", "connect", "grpc-web"];

for (const transport of transports) {
  describe(`over ${transport}`, () => tests(connect(undefined, { transport })));
}

describe("over connect with protobuf bodies", () => {
  test("plays a hand", async () => {
    const target = process.env.MAZZIERE_REST_TARGET || "localhost:8080";
    const client = connectWeb(`http://${target}`, { useBinaryFormat: true });
    const { table } = await playHand(client, () => {});
    assert.ok(table.seq >= 4n, `seq ${table.seq}`);
  });
});

function tests(client: ReturnType<typeof connect>): void {
  test("plays a hand of Sette e mezzo", async () => {
    const lines: string[] = [];
    const { table, events } = await playHand(client, (line) => lines.push(line));
    const kinds = events.map((e) => e.kind);
    for (const kind of ["DEALT", "STAKED", "STOOD", "HAND_OVER"]) assert.ok(kinds.includes(kind), `${kind} in ${kinds}`);
    assert.ok(table.seq >= 4n, `seq ${table.seq}`);
    assert.equal(table.keys.size, 2);
    assert.ok(lines.length >= 5, lines.join("\n"));
  });

  test("a stale sequence number is ABORTED with reason STALE_SEQUENCE", async () => {
    const { table } = await playHand(client, () => {});
    const seat = table.toAct[0];
    await assert.rejects(
      client.act({
        tableId: table.tableId,
        state: table.state,
        expectedSeq: table.seq - 1n,
        action: { seat, kind: "DEAL" },
        seatKey: table.keys.get(seat),
      }),
      (err: unknown) => {
        const { code, info } = errorInfo(err);
        assert.equal(code, Code.Aborted);
        assert.equal(info?.reason, "STALE_SEQUENCE");
        assert.equal(info?.domain, ERROR_DOMAIN);
        assert.equal(info?.metadata.expected_seq, String(table.seq - 1n));
        return true;
      },
    );
  });

  test("acting without the seat's key is PERMISSION_DENIED with reason SEAT_KEY_MISSING", async () => {
    const created = await client.createTable({ game: "sette_e_mezzo", seats: [{ chips: 50n }, { chips: 50n }] });
    const seat = created.toAct[0];
    await assert.rejects(
      client.act({ tableId: created.tableId, state: created.state, expectedSeq: created.seq, action: { seat, kind: "DEAL" } }),
      (err: unknown) => {
        const { code, info } = errorInfo(err);
        assert.equal(code, Code.PermissionDenied);
        assert.equal(info?.reason, "SEAT_KEY_MISSING");
        return true;
      },
    );
  });

  test("the table plays a move itself (every event auto) and advises the next seat", async () => {
    const { table } = await playHand(client, () => {});
    const seq = table.seq;
    const { events, advice } = await autoPlayAndAdvise(client, table, () => {});
    assert.equal(table.seq, seq + 1n);
    assert.ok(events.length > 0 && events.every((e) => e.auto), JSON.stringify(events.map((e) => e.kind)));
    assert.equal(advice.seat, table.toAct[0]);
    assert.ok(advice.actions.length > 0);
    for (const entry of advice.actions) assert.ok(Math.abs(entry.win + entry.push + entry.lose - 1) < 1e-9);
  });

  test("an unknown auto-play policy is INVALID_ARGUMENT with reason UNKNOWN_POLICY", async () => {
    const created = await client.createTable({ game: "sette_e_mezzo", seats: [{ chips: 50n }, { chips: 50n }] });
    const seat = created.toAct[0];
    const keys = new Map(created.seatKeys.map((k) => [k.seat, k.key]));
    await assert.rejects(
      client.act({ tableId: created.tableId, state: created.state, autoPlay: "genius", seatKey: keys.get(seat) }),
      (err: unknown) => {
        const { code, info } = errorInfo(err);
        assert.equal(code, Code.InvalidArgument);
        assert.equal(info?.reason, "UNKNOWN_POLICY");
        return true;
      },
    );
  });
}
