// Create a Sette e mezzo table and play one hand: the bank deals, the player stakes and stands, the bank plays.
// Then the table plays the bank's next deal itself (auto-play, as a host's timer would) and the player asks for
// its odds (Advise).
// Run against a server (`make run` at the repository root): npm run build && npm run example
// The server address comes from $MAZZIERE_TARGET (default localhost:50051).
import { pathToFileURL } from "node:url";
import { Code, connect, errorInfo, type TableClient } from "./client.js";
import type { AdviseResponse } from "./gen/mazziere/v1/service_pb.js";
import type { Event, LegalAction, SeatUpdate } from "./gen/mazziere/v1/table_pb.js";

/** What a host keeps of a table: the latest state token, its sequence number and every seat's key. */
export interface Table {
  tableId: string;
  state: Uint8Array;
  seq: bigint;
  keys: Map<number, string>;
  toAct: number[];
}

function describe(event: Event): string {
  const parts = [event.auto ? `${event.kind} (auto)` : event.kind];
  if (event.seat !== undefined) parts.push(`seat ${event.seat}`);
  for (const card of event.cards) parts.push(card.card || "hidden");
  if (event.amount) parts.push(`amount ${event.amount}`);
  return parts.join(" ");
}

/** The move the example makes: the bank deals, a player stakes 10 (within the allowed range), then everyone stands. */
function choose(legal: LegalAction[]): { kind: string; amount: bigint } {
  const kinds = new Map(legal.map((action) => [action.kind, action]));
  const stake = kinds.get("STAKE");
  if (kinds.has("DEAL")) return { kind: "DEAL", amount: 0n };
  if (stake) {
    const amount = 10n < stake.minAmount ? stake.minAmount : 10n > stake.maxAmount ? stake.maxAmount : 10n;
    return { kind: "STAKE", amount };
  }
  if (kinds.has("STAND")) return { kind: "STAND", amount: 0n };
  throw new Error(`no move to make among ${[...kinds.keys()].join(", ")}`);
}

/** Plays one hand and returns the table after it and every event the acting seats saw. */
export async function playHand(
  client: TableClient,
  log: (line: string) => void = console.log,
): Promise<{ table: Table; events: Event[] }> {
  const created = await client.createTable({
    game: "sette_e_mezzo",
    seats: [
      { name: "Anna", chips: 100n },
      { name: "Bruno", chips: 100n },
    ],
  });
  const table: Table = {
    tableId: created.tableId,
    state: created.state,
    seq: created.seq,
    keys: new Map(created.seatKeys.map((k) => [k.seat, k.key])),
    toAct: created.toAct,
  };
  log(`table ${table.tableId}: ${created.updates[0].events.map(describe).join(", ")}`);
  const events: Event[] = [];
  let mine: SeatUpdate | undefined;
  for (let moves = 0; moves < 20 && !events.some((e) => e.kind === "HAND_OVER"); moves++) {
    const seat = table.toAct[0];
    // The acting seat's legal actions: a GetView for that seat, with its key.
    const view = await client.getView({ tableId: table.tableId, state: table.state, seat, seatKey: table.keys.get(seat) });
    const move = choose(view.update?.legalActions ?? []);
    const answer = await client.act({
      tableId: table.tableId,
      state: table.state,
      expectedSeq: table.seq,
      action: { seat, kind: move.kind, amount: move.amount },
      seatKey: table.keys.get(seat),
    });
    table.state = answer.state;
    table.seq = answer.seq;
    table.toAct = answer.toAct;
    mine = answer.updates[0];
    events.push(...mine.events);
    const paid = answer.settlement.map((t) => `${t.payer}->${t.payee} ${t.amount} (${t.reason})`);
    log(`seat ${seat} ${move.kind}${move.amount ? ` ${move.amount}` : ""} -> seq ${answer.seq}: ` +
      `${mine.events.map(describe).join(", ")}${paid.length ? `; paid ${paid.join(", ")}` : ""}`);
  }
  return { table, events };
}

/**
 * Lets the table play for the seat to act with the "cautious" policy (what a host does when a player's time is up;
 * the seat's key is needed as for any move), then asks the next seat to act for the odds of each of its actions.
 */
export async function autoPlayAndAdvise(
  client: TableClient,
  table: Table,
  log: (line: string) => void = console.log,
): Promise<{ events: Event[]; advice: AdviseResponse }> {
  const seat = table.toAct[0];
  const answer = await client.act({
    tableId: table.tableId,
    state: table.state,
    expectedSeq: table.seq,
    autoPlay: "cautious",
    seatKey: table.keys.get(seat),
  });
  table.state = answer.state;
  table.seq = answer.seq;
  table.toAct = answer.toAct;
  const events = answer.updates[0].events;
  log(`seat ${seat} played by the table: ${answer.action?.kind} -> seq ${answer.seq}: ${events.map(describe).join(", ")}`);
  const next = table.toAct[0];
  const advice = await client.advise({ tableId: table.tableId, state: table.state, seat: next, seatKey: table.keys.get(next) });
  for (const entry of advice.actions) {
    const amount = entry.action?.amount ? ` ${entry.action.amount}` : "";
    log(`advice for seat ${next}: ${entry.action?.kind}${amount}: expected ${entry.expectedValue.toFixed(2)} ` +
      `(win ${entry.win.toFixed(2)}, push ${entry.push.toFixed(2)}, lose ${entry.lose.toFixed(2)})`);
  }
  return { events, advice };
}

async function main(): Promise<void> {
  const client = connect();
  const { table } = await playHand(client);
  await autoPlayAndAdvise(client, table);
  // Acting on an old sequence number is refused with ABORTED, reason STALE_SEQUENCE.
  try {
    await client.act({
      tableId: table.tableId,
      state: table.state,
      expectedSeq: table.seq - 1n,
      action: { seat: table.toAct[0], kind: "DEAL" },
      seatKey: table.keys.get(table.toAct[0]),
    });
  } catch (err) {
    const { code, info } = errorInfo(err);
    console.log(`refused: ${Code[code]}, reason ${info?.reason}, metadata ${JSON.stringify(info?.metadata)}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
