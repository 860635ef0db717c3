// Committed dealing (docs/fairness.md), offline: verify.ts reproduces the test vectors of
// tests/data/fairness_vectors.json, accepts the engine's records in test/fairness_record.ndjson (written by
// test/make_fairness_record.py) and rejects them tampered with, and judges every record of
// tests/data/fairness_records.json as mazziere verify does, naming the same failure.
// npm run build && node --test dist/test/fairness.test.js
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import {
  ALGORITHMS,
  bytes,
  canonical,
  commitment,
  contribution,
  drawSeed,
  eventsFromNdjson,
  eventsOf,
  type JsonEvent,
  numberBelow,
  shuffleOrder,
  toHex,
  verifyRecord,
} from "../verify.js";

// From dist/test/ (compiled) or test/ (run by a TypeScript loader), the package's folder is the one with verify.ts.
const HERE = new URL(".", import.meta.url);
const PACKAGE = new URL(existsSync(new URL("../verify.ts", HERE)) ? "../" : "../../", HERE);
const VECTORS = new URL("../../tests/data/fairness_vectors.json", PACKAGE);
const RECORD = new URL("test/fairness_record.ndjson", PACKAGE);
const JUDGED = new URL("../../tests/data/fairness_records.json", PACKAGE);

interface Judged {
  name: string;
  options: { partial?: boolean; seat?: number; gave?: Record<string, string>; server_seats?: number[] };
  error: string | null;
  lines: unknown[];
}

test("judges every record of tests/data/fairness_records.json as mazziere verify does, naming what failed", () => {
  const { cases } = JSON.parse(readFileSync(JUDGED, "utf8")) as { cases: Judged[] };
  assert.ok(cases.length >= 15 && cases.some((c) => c.error === null), `${cases.length} records`);
  for (const c of cases) {
    const events = eventsFromNdjson(c.lines.map((line) => JSON.stringify(line)).join("\n"));
    const gave = c.options.gave ? new Map(Object.entries(c.options.gave).map(([d, h]) => [Number(d), h])) : undefined;
    const result = verifyRecord(events, {
      partial: c.options.partial,
      seat: c.options.seat,
      gave,
      serverSeats: c.options.server_seats,
    });
    assert.equal(result.error ?? null, c.error, c.name);
    assert.equal(result.ok, c.error === null, c.name);
  }
});

interface Vector {
  secret: string;
  draw: number;
  seed: string;
  commitment: string;
  contributions: { seat: number; entropy: string }[];
  entropy: string;
  orders: Record<string, string[]>;
  numbers: Record<string, number>;
}

test("reproduces every seed, commitment, entropy, order and number of the test vectors", () => {
  const vectors = JSON.parse(readFileSync(VECTORS, "utf8")) as { algorithm: number; canonical: Record<string, string[]>; draws: Vector[] };
  assert.ok(ALGORITHMS.has(vectors.algorithm), `algorithm ${vectors.algorithm}`);
  let orders = 0;
  for (const v of vectors.draws) {
    const where = `secret ${v.secret}, draw ${v.draw}`;
    const seed = drawSeed(bytes(v.secret), BigInt(v.draw));
    assert.equal(toHex(seed), v.seed, where);
    assert.equal(toHex(commitment(seed)), v.commitment, where);
    const entropy = new Uint8Array(v.contributions.flatMap((c) => [...contribution(c.seat, bytes(c.entropy))]));
    assert.equal(toHex(entropy), v.entropy, where);
    for (const [pack, order] of Object.entries(v.orders)) {
      const contents = vectors.canonical[pack];
      assert.deepEqual(canonical([...contents].reverse()), contents, pack);
      assert.deepEqual(shuffleOrder(contents, seed, entropy), order, `${where}, ${pack}`);
      orders += 1;
    }
    for (const [n, value] of Object.entries(v.numbers)) assert.equal(numberBelow(Number(n), seed, entropy), value, `${where}, below ${n}`);
  }
  assert.ok(vectors.draws.length >= 4 && orders >= 12, `${vectors.draws.length} draws, ${orders} orders`);
});

/** The fixture's tables: every `events` array of each line, by the line's `table`. */
function records(): Map<string, JsonEvent[]> {
  const tables = new Map<string, JsonEvent[]>();
  for (const line of readFileSync(RECORD, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const table = (JSON.parse(line) as { table: string }).table;
    tables.set(table, [...(tables.get(table) ?? []), ...eventsFromNdjson(line)]);
  }
  return tables;
}

const copy = (events: JsonEvent[]): JsonEvent[] => JSON.parse(JSON.stringify(events)) as JsonEvent[];
const flip = (hex: string): string => (hex[0] === "0" ? "1" : "0") + hex.slice(1);

test("accepts the engine's records of every game, and rejects each of them tampered with", () => {
  const tables = records();
  assert.deepEqual([...tables.keys()].sort(), ["saltacavallo", "sette_e_mezzo", "trentuno"]);
  for (const [game, events] of tables) {
    const valid = verifyRecord(events);
    assert.equal(valid.error, undefined, game);
    assert.ok(valid.ok && valid.checkedDraws >= 5 && valid.checkedCards >= 20, `${game}: ${JSON.stringify(valid)}`);
    assert.ok(events.some((e) => e.kind === "ENTROPY"), game);
    const seeds = events.filter((e) => e.kind === "SEED");
    assert.equal(valid.checkedDraws, new Set(seeds.map((e) => e.draw)).size, game);

    // A face-up card dealt from a revealed pack, changed to another card of the pack.
    const revealed = new Set(seeds.map((e) => e.draw));
    const i = events.findIndex((e) => e.kind !== "SEED" && e.draw !== undefined && revealed.has(e.draw) && e.cards?.some((c) => c.card));
    assert.ok(i >= 0, game);
    const changed = copy(events);
    const j = changed[i].cards!.findIndex((c) => c.card);
    const place = changed[i].at![j];
    const was = changed[i].cards![j].card!;
    const other = seeds.find((e) => e.draw === events[i].draw)!.cards!.find((c) => c.card !== was)!.card!;
    changed[i].cards![j].card = other;
    const dealt = verifyRecord(changed);
    assert.equal(dealt.ok, false, game);
    assert.equal(dealt.error, `draw ${events[i].draw}, place ${place}: the record shows ${other}, the pack puts ${was} there`, game);

    // A commitment changed: a second, different commitment to the same draw; or the only one, not the seed's.
    const c = events.findIndex((e) => e.kind === "COMMITTED" && revealed.has(e.draw));
    const twice = copy(events);
    twice.splice(c + 1, 0, { ...twice[c], data: flip(twice[c].data!) });
    assert.match(verifyRecord(twice).error ?? "", new RegExp(`^draw ${events[c].draw}: two commitments`), game);
    const replaced = copy(events);
    replaced[c].data = flip(replaced[c].data!);
    assert.match(verifyRecord(replaced).error ?? "", new RegExp(`^draw ${events[c].draw}: the seed .* does not match`), game);

    // A seed changed (to the seed of another draw: then its commitment does not match).
    const s = events.findIndex((e) => e.kind === "SEED" && e.cards?.length);
    const seeded = copy(events);
    seeded[s].data = flip(seeded[s].data!);
    assert.match(verifyRecord(seeded).error ?? "", new RegExp(`^draw ${events[s].draw}: the seed .* does not match`), game);

    // Entropy changed, left out, or told after the draw was dealt from: the pack no longer deals the record's cards.
    const e = events.findIndex((x) => x.kind === "ENTROPY" && revealed.has(x.draw) && events.some((y) => y.draw === x.draw && y.kind !== "SEED" && y.cards?.some((card) => card.card)));
    assert.ok(e >= 0, game);
    const mixed = copy(events);
    mixed[e].data = flip(mixed[e].data!);
    // (the first mismatch: a face-up card dealt from the pack, or one shown later that it no longer dealt)
    const wrong = new RegExp(`^draw ${events[e].draw}, place \\d+: the record shows|is shown face up, but no pack in play had dealt it$`);
    assert.match(verifyRecord(mixed).error ?? "", wrong, game);
    const dropped = copy(events);
    dropped.splice(e, 1);
    assert.match(verifyRecord(dropped).error ?? "", wrong, game);
    const late = copy(events);
    const after = events.findIndex((x) => x.kind !== "SEED" && x.draw === events[e].draw && x.cards?.length);
    late.splice(after + 1, 0, late[e]);
    assert.match(verifyRecord(late).error ?? "", new RegExp(`^draw ${events[e].draw}: entropy from seat ${events[e].seat} appears after`), game);

    // A record that begins mid-table: a partial check leaves the draws committed before it unverified.
    const start = events.findIndex((x, k) => k > events.length / 2 && x.kind === "COMMITTED");
    const tail = events.slice(start);
    assert.equal(verifyRecord(tail).ok, false, game);
    const part = verifyRecord(tail, { partial: true });
    assert.ok(part.ok && part.unverifiable.length > 0, `${game}: ${JSON.stringify(part)}`);
  }
});

test("a card shown face up must have been dealt by a pack in play; a number drawn is recomputed", () => {
  const events = records().get("sette_e_mezzo")!;
  // 5. A card turned up that the pack never dealt (here: swapped for one the pack had dealt nowhere before).
  const k = events.findIndex((e) => e.kind === "REVEALED" && e.cards?.[0]?.card);
  const before = new Set(events.slice(0, k).flatMap((e) => (e.kind === "SEED" ? [] : (e.cards ?? []).map((c) => c.card))));
  const seed = events.find((e) => e.kind === "SEED" && e.cards?.length)!;
  const fresh = seed.cards!.map((c) => c.card!).find((card) => !before.has(card))!;
  const shown = copy(events);
  shown[k].cards![0].card = fresh;
  assert.match(verifyRecord(shown).error ?? "", /^draw \d+, place \d+|is shown face up, but no pack in play had dealt it$/);
  // 4. The number drawn at the table's opening (the first bank) is recomputed from its seed.
  const n = events.findIndex((e) => e.kind === "SEED" && !e.cards?.length);
  assert.ok(n >= 0);
  const number = copy(events);
  number[n].target = (Number(number[n].target) + 1) % Number(number[n].amount);
  assert.match(verifyRecord(number).error ?? "", new RegExp(`^draw ${events[n].draw}: the record draws`));
  // The NDJSON reader: a bare event counts as one; `events` arrays nested anywhere, depth first.
  assert.deepEqual(eventsOf({ kind: "COMMITTED", draw: 0, data: "00" }), [{ kind: "COMMITTED", draw: 0, data: "00" }]);
  const nested = eventsFromNdjson(
    '{"update":{"update":{"events":[{"kind":"A"}]}},"updates":[{"events":[{"kind":"B"}]},{"events":[{"kind":"C"}]}]}\n\n{"kind":"D"}\n',
  );
  assert.deepEqual(nested.map((e) => e.kind), ["A", "B", "C", "D"]);
});
