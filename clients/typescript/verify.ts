// Checks a table's public record: its draws were committed before they were made, and every card dealt from a
// revealed pack is the one the open algorithm put at its place (docs/fairness.md, "Checking a record"). The same
// checks as `mazziere verify RECORD.ndjson` and `mazziere_client.verify_record(events)`, on the events in their
// REST / proto3 JSON form (mazziere.v1.Event: `draw`, `at`, `seat`, `target` numbers; `amount` a decimal string).
//
// Self-contained (only @noble/hashes: Web Crypto has no SHAKE-256, and is asynchronous), so that the web table
// (clients/web/src/verify.ts) carries the same file.
//
//     import { eventsFromNdjson, verifyRecord } from "@mazziere/client/verify";
//     const result = verifyRecord(eventsFromNdjson(text));
//     if (!result.ok) console.log(result.error); // "draw 3, place 5: the record shows 7d, the pack puts Rb there"

import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { shake256 } from "@noble/hashes/sha3.js";

/** A card of an event: `card` is absent (or empty) when the record's holder may not see its face. */
export interface JsonCard {
  card?: string;
  seenBy?: unknown;
}

/** One event of the record, as REST and StreamReplay/Watch write `mazziere.v1.Event` in JSON. */
export interface JsonEvent {
  kind: string;
  seat?: number;
  target?: number;
  cards?: JsonCard[];
  amount?: string | number;
  points?: string | number;
  seenBy?: unknown;
  auto?: boolean;
  draw?: number;
  at?: number[];
  data?: string;
}

export interface VerifyResult {
  /** True when no check failed. */
  ok: boolean;
  /** Draws whose seed was revealed and checked: packs recomputed and numbers drawn again. */
  checkedDraws: number;
  /** Cards dealt from the packs revealed, each at a place of its pack (hidden ones included: computable now);
   * those with a face in the record are the card the pack puts there. */
  checkedCards: number;
  /** Draws that cards were dealt from whose seed the record does not reveal (yet). */
  unrevealed: number[];
  /** With `partial`: draws revealed whose commitment is not in the record (committed before it began), or known
   * only from an update (its seed is checked against that, but entropy given before the record began may be
   * missing: the order is not recomputed). */
  unverifiable: number[];
  /** The first mismatch, by its place in the record, e.g. "draw 3, place 5: the record shows 7d, the pack puts
   * Rb there". */
  error?: string;
}

export interface VerifyOptions {
  /** The record may begin mid-table (a page that joined late): a draw whose commitment it lacks is
   * `unverifiable`, not a failure, and a card shown face up that it never saw dealt is not a failure either. */
  partial?: boolean;
  /** The seat whose entropy `gave` lists. */
  seat?: number;
  /** The entropy `seat` gave, in hex, by draw ("" for a draw it gave none to): each is checked against the record. */
  gave?: ReadonlyMap<number, string>;
  /** Seats the server plays (bots, the house), which may never give entropy. */
  serverSeats?: Iterable<number>;
}

// -- the algorithm (docs/fairness.md, "The algorithm") ---------------------------------------------------------

const SEED_DOMAIN = ascii("mazziere/seed/v2");
const COMMIT_DOMAIN = ascii("mazziere/commit/v2");
const MIX_DOMAIN = ascii("mazziere/mix/v2");
const DEAL_DOMAIN = ascii("mazziere/deal/v2");
const SPACE = 2 ** 32;
/** The dealing algorithms this verifier knows, by the number a COMMITTED event names in `amount` (a record written
 * before the number was told names none: algorithm 2, the same bytes). */
export const ALGORITHMS: ReadonlySet<number> = new Set([2]);
/** The kind `eventsOf` gives an update's `nextDraw` and `commitment`: a claim checked like an event. */
export const NEXT_DRAW = "NEXT_DRAW";
/** The kind `eventsOf` gives an update marked `closed` (the table was closed: every pack is gathered). */
export const CLOSED = "CLOSED";

/** seed_k = HMAC-SHA256(secret, "mazziere/seed/v2" || u64be(k)). */
export function drawSeed(secret: Uint8Array, draw: number | bigint): Uint8Array {
  const k = new Uint8Array(8);
  new DataView(k.buffer).setBigUint64(0, BigInt(draw));
  return hmac(sha256, secret, concat(SEED_DOMAIN, k));
}

/** commitment_k = SHA-256("mazziere/commit/v2" || seed_k). */
export function commitment(seed: Uint8Array): Uint8Array {
  return sha256(concat(COMMIT_DOMAIN, seed));
}

/** One seat's contribution as it is mixed in: u8(seat) || u8(length) || bytes. */
export function contribution(seat: number, entropy: Uint8Array): Uint8Array {
  if (!Number.isInteger(seat) || seat < 0 || seat > 255) throw new RangeError(`seat ${seat} is not a byte`);
  if (entropy.length > 255) throw new RangeError(`entropy of ${entropy.length} bytes is longer than 255`);
  return concat(Uint8Array.of(seat, entropy.length), entropy);
}

/** The 4-byte big-endian words of SHAKE-256("mazziere/deal/v2" || SHA-256("mazziere/mix/v2" || seed || entropy)). */
class Stream {
  private readonly xof: ReturnType<typeof shake256.create>;
  private buffer = new Uint8Array(0);
  private offset = 0;

  constructor(seed: Uint8Array, entropy: Uint8Array) {
    const key = sha256(concat(MIX_DOMAIN, seed, entropy));
    this.xof = shake256.create({}).update(concat(DEAL_DOMAIN, key));
  }

  /** An unbiased integer below `n` (rejection sampling: a word at or over 2^32 - (2^32 mod n) is skipped). */
  below(n: number): number {
    const limit = SPACE - (SPACE % n);
    for (;;) {
      if (this.offset + 4 > this.buffer.length) {
        this.buffer = this.xof.xof(256); // the next bytes of the same output stream
        this.offset = 0;
      }
      const b = this.buffer;
      const i = this.offset;
      const word = ((b[i] << 24) >>> 0) + (b[i + 1] << 16) + (b[i + 2] << 8) + b[i + 3];
      this.offset += 4;
      if (word < limit) return word % n;
    }
  }
}

/** `items` (a pack in canonical order) shuffled by a draw: Fisher-Yates from the last place down; place 0 is the
 * top card. */
export function shuffleOrder<T>(items: readonly T[], seed: Uint8Array, entropy: Uint8Array = new Uint8Array(0)): T[] {
  const out = [...items];
  const stream = new Stream(seed, entropy);
  for (let i = out.length - 1; i > 0; i--) {
    const j = stream.below(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** A number draw: one integer below `n` (1 <= n <= 2^32). */
export function numberBelow(n: number | bigint, seed: Uint8Array, entropy: Uint8Array = new Uint8Array(0)): number {
  const count = Number(n);
  if (!Number.isInteger(count) || count < 1 || count > SPACE) throw new RangeError(`cannot draw a number below ${n}`);
  return new Stream(seed, entropy).below(count);
}

/** Cards in canonical order: by their two-character notation, byte by byte ("2C" < "7d" < "AH" < "Rb"). */
export function canonical(cards: readonly string[]): string[] {
  return [...cards].sort(byBytes);
}

function byBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0; // UTF-16 code units: the bytes, for the ASCII notation
}

// -- reading a record -----------------------------------------------------------------------------------------

/** The events of NDJSON text, one JSON object a line: every `events` array in a line (depth first, in order),
 * or the line itself when it is an event (it has `kind`). Blank lines are skipped. */
export function eventsFromNdjson(text: string): JsonEvent[] {
  const events: JsonEvent[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new SyntaxError(`line ${i + 1}: not JSON (${(error as Error).message})`);
    }
    events.push(...eventsOf(value));
  });
  return events;
}

/** The events of one JSON value: itself if it is an event, else every `events` array in it, depth first. An
 * object with `nextDraw` (`next_draw`) and `commitment` (an update) adds, after its own events, a NEXT_DRAW event
 * naming them; one with `closed` true adds a CLOSED event. */
export function eventsOf(value: unknown): JsonEvent[] {
  const found: JsonEvent[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      v.forEach(walk);
    } else if (isObject(v)) {
      for (const [key, item] of Object.entries(v)) {
        if (key === "events" && Array.isArray(item)) found.push(...(item.filter(isObject) as unknown as JsonEvent[]));
        else walk(item);
      }
      found.push(...claims(v));
    }
  };
  if (isObject(value) && typeof value.kind === "string") return [value as unknown as JsonEvent];
  walk(value);
  return found;
}

/** What an update claims beside its events: its next draw's commitment, and the table's close. */
export function claims(update: Record<string, unknown>): JsonEvent[] {
  const found: JsonEvent[] = [];
  const draw = update.nextDraw ?? update.next_draw;
  if (draw !== undefined && draw !== null && typeof update.commitment === "string" && update.commitment) {
    found.push({ kind: NEXT_DRAW, draw: Number(draw), data: update.commitment });
  }
  if (update.closed === true) found.push({ kind: CLOSED });
  return found;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

// -- the checks (docs/fairness.md, "Checking a record") -------------------------------------------------------

interface Pack {
  /** The cards in the order the seed and entropy put them (place 0 first); null for a number draw. */
  order: string[] | null;
  revealedAt: number;
}

interface Dealt {
  at: number; // the event's index
  draw: number;
  places: number[];
  faces: (string | undefined)[];
}

interface Shown {
  at: number;
  kind: string;
  face: string;
}

class Failures {
  first: { at: number; text: string } | null = null;
  add(at: number, text: string): void {
    if (!this.first || at < this.first.at) this.first = { at, text };
  }
}

/** The checks of docs/fairness.md ("Checking a record") over one table's record, in the order the events were told. */
export function verifyRecord(events: readonly JsonEvent[], options: VerifyOptions = {}): VerifyResult {
  const partial = Boolean(options.partial);
  const serverSeats = new Set(options.serverSeats ?? []);
  const fail = new Failures();
  const commitments = new Map<number, { data: string; at: number }>();
  const shownByUpdate = new Set<number>(); // draws whose commitment the record knows only from an update
  const entropy = new Map<number, Uint8Array[]>();
  const given = new Map<string, string>(); // `${draw}/${seat}` -> the entropy told, in hex
  let ended: { at: number; kind: string } | undefined; // the first GAME_OVER or close
  const firstCard = new Map<number, number>(); // draw -> index of its first card (or its number's SEED)
  const seeds = new Map<number, string>();
  const packs = new Map<number, Pack>();
  const unverifiable = new Set<number>();
  const dealt: Dealt[] = [];
  const shown: Shown[] = [];
  let checkedDraws = 0;
  let checkedCards = 0;

  events.forEach((event, t) => {
    const kind = String(event.kind ?? "");
    const draw = event.draw === undefined || event.draw === null ? undefined : Number(event.draw);
    const cards = Array.isArray(event.cards) ? event.cards : [];
    if (draw !== undefined) {
      if (!Number.isSafeInteger(draw) || draw < 0) {
        fail.add(t, `event ${t} (${kind}): draw ${String(event.draw)} is not a draw number`);
        return;
      }
    }
    if ((kind === "GAME_OVER" || kind === CLOSED) && !ended) ended = { at: t, kind };
    if (kind === "COMMITTED") {
      if (draw === undefined) return fail.add(t, `event ${t} (COMMITTED): no draw`);
      // 0. A record of an algorithm this verifier does not know.
      const algorithm = Number(event.amount ?? 0) || 2;
      if (!ALGORITHMS.has(algorithm)) {
        const known = [...ALGORITHMS].sort((a, b) => a - b).join(", ");
        return fail.add(t, `draw ${draw}: committed by dealing algorithm ${event.amount}, not one known here (${known})`);
      }
      const data = hex(event.data);
      const before = commitments.get(draw);
      // 1. No draw has two different commitments.
      if (before && before.data !== data) {
        if (shownByUpdate.has(draw)) {
          fail.add(t, `draw ${draw}: an update showed the commitment ${short(before.data)}, then ${short(data)}`);
        } else {
          fail.add(t, `draw ${draw}: two commitments, ${short(before.data)} and then ${short(data)}`);
        }
      } else if (!before || shownByUpdate.has(draw)) {
        commitments.set(draw, { data, at: t });
        shownByUpdate.delete(draw);
      }
      return;
    }
    if (kind === NEXT_DRAW) {
      // 6. An update's next draw and commitment are its draw's COMMITTED; on a late page, the commitment it was
      // shown stands for one (checked against the seed when it is revealed).
      if (draw === undefined) return fail.add(t, `event ${t} (${NEXT_DRAW}): no draw`);
      const data = hex(event.data);
      const before = commitments.get(draw);
      if (!before) {
        if (!partial) return fail.add(t, `draw ${draw}: an update names its commitment, but no COMMITTED for it came before`);
        commitments.set(draw, { data, at: t });
        shownByUpdate.add(draw);
      } else if (before.data !== data) {
        fail.add(t, `draw ${draw}: an update names the commitment ${short(data)}, the record committed ${short(before.data)}`);
      }
      return;
    }
    if (kind === "ENTROPY") {
      if (draw === undefined) return fail.add(t, `event ${t} (ENTROPY): no draw`);
      const seat = Number(event.seat);
      if (!commitments.has(draw)) {
        if (partial) return; // its draw began before the record
        // 2. Entropy comes after its draw's commitment.
        return fail.add(t, `draw ${draw}: entropy from seat ${seat} appears before the draw's commitment`);
      }
      // 2. No entropy for a draw appears after a card of that draw.
      if (firstCard.has(draw) || seeds.has(draw)) {
        fail.add(t, `draw ${draw}: entropy from seat ${seat} appears after the draw was dealt from or revealed`);
        return;
      }
      // 2. Once per seat and draw.
      if (given.has(`${draw}/${seat}`)) return fail.add(t, `draw ${draw}: seat ${seat} gives entropy twice`);
      // 7. Never from a seat the server plays.
      if (event.auto === true || serverSeats.has(seat)) {
        return fail.add(t, `draw ${draw}: entropy from seat ${seat}, on a move the server chose`);
      }
      try {
        const data = bytes(event.data);
        if (data.length < 1 || data.length > 32) {
          return fail.add(t, `draw ${draw}: entropy from seat ${seat} of ${data.length} bytes, not 1 to 32`);
        }
        const part = contribution(seat, data);
        entropy.set(draw, [...(entropy.get(draw) ?? []), part]);
        given.set(`${draw}/${seat}`, toHex(data));
      } catch (error) {
        fail.add(t, `draw ${draw}: entropy from seat ${seat}: ${(error as Error).message}`);
      }
      return;
    }
    if (kind === "SEED") {
      if (draw === undefined) return fail.add(t, `event ${t} (SEED): no draw`);
      const data = hex(event.data);
      const before = seeds.get(draw);
      if (before !== undefined) {
        if (before !== data) fail.add(t, `draw ${draw}: two seeds, ${short(before)} and then ${short(data)}`);
        return; // the same reveal told again
      }
      seeds.set(draw, data);
      const committed = commitments.get(draw);
      if (!committed) {
        if (partial) {
          unverifiable.add(draw);
          return;
        }
        // 3. Each SEED matches its commitment (which came first).
        return fail.add(t, `draw ${draw}: its seed is revealed, but no commitment to it came before`);
      }
      let seed: Uint8Array;
      try {
        seed = bytes(data);
      } catch {
        return fail.add(t, `draw ${draw}: the seed ${short(data)} is not hex`);
      }
      if (toHex(commitment(seed)) !== committed.data) {
        const what = shownByUpdate.has(draw) ? "the commitment an update showed" : "the commitment";
        return fail.add(t, `draw ${draw}: the seed ${short(data)} does not match ${what} ${short(committed.data)}`);
      }
      if (shownByUpdate.has(draw)) {
        unverifiable.add(draw); // its seed is the one committed; its entropy may have come before the record
        return;
      }
      const mix = concat(...(entropy.get(draw) ?? []));
      checkedDraws += 1;
      if (cards.length) {
        // 4. The pack's cards are distinct and in canonical order; its order is recomputed.
        const contents = cards.map((c) => c.card ?? "");
        for (let i = 0; i < contents.length; i++) {
          if (!contents[i]) return fail.add(t, `draw ${draw}: the revealed pack hides its card ${i}`);
          if (i && byBytes(contents[i - 1], contents[i]) >= 0) {
            const what = contents[i - 1] === contents[i] ? `holds ${contents[i]} twice` : "is not in canonical order";
            return fail.add(t, `draw ${draw}: the revealed pack ${what} (${contents[i - 1]}, ${contents[i]})`);
          }
        }
        packs.set(draw, { order: shuffleOrder(contents, seed, mix), revealedAt: t });
      } else {
        // 4. Every number drawn is recomputed.
        packs.set(draw, { order: null, revealedAt: t });
        firstCard.set(draw, firstCard.get(draw) ?? t);
        const n = Number(event.amount ?? 0);
        if (!Number.isInteger(n) || n < 1 || n > SPACE) return fail.add(t, `draw ${draw}: a number drawn below ${event.amount ?? "nothing"}`);
        if (event.target === undefined || event.target === null) return fail.add(t, `draw ${draw}: a number draw names no number`);
        const value = numberBelow(n, seed, mix);
        if (Number(event.target) !== value) {
          fail.add(t, `draw ${draw}: the record draws ${event.target} below ${n}, the seed draws ${value}`);
        }
      }
      return;
    }
    if (!cards.length) return;
    if (draw !== undefined) {
      const places = Array.isArray(event.at) ? event.at.map(Number) : [];
      if (places.length !== cards.length) {
        return fail.add(t, `event ${t} (${kind}): ${cards.length} cards of draw ${draw} but ${places.length} places`);
      }
      if (!commitments.has(draw)) {
        if (partial) return; // dealt from a pack shuffled before the record began
        // 1. Every card of pack k appears after pack k's commitment.
        return fail.add(t, `draw ${draw}: a card of it appears before its commitment`);
      }
      if (!firstCard.has(draw)) firstCard.set(draw, t);
      dealt.push({ at: t, draw, places, faces: cards.map((c) => c.card || undefined) });
      return;
    }
    for (const card of cards) if (card.card) shown.push({ at: t, kind, face: card.card });
  });

  // 4. Every card dealt with its face in the record is the card at its place in its revealed pack.
  const dealtBy = new Map<number, Dealt[]>();
  for (const d of dealt) {
    dealtBy.set(d.draw, [...(dealtBy.get(d.draw) ?? []), d]);
    const pack = packs.get(d.draw);
    if (!pack) continue;
    if (!pack.order) {
      fail.add(d.at, `draw ${d.draw}: cards dealt from a number draw`);
      continue;
    }
    d.places.forEach((place, i) => {
      if (!Number.isInteger(place) || place < 0 || place >= pack.order!.length) {
        fail.add(d.at, `draw ${d.draw}, place ${place}: the pack has ${pack.order!.length} places`);
        return;
      }
      checkedCards += 1;
      const face = d.faces[i];
      if (face === undefined) return;
      const there = pack.order![place];
      if (face !== there) fail.add(d.at, `draw ${d.draw}, place ${place}: the record shows ${face}, the pack puts ${there} there`);
    });
  }

  // 5. Every card shown face up later was dealt before, by a pack still in play when it is shown.
  for (const s of shown) {
    let found = false;
    let possible = false;
    for (const [draw, list] of dealtBy) {
      const pack = packs.get(draw);
      if (pack && pack.revealedAt < s.at) continue; // gathered before: no card of it is in play
      for (const d of list) {
        if (d.at >= s.at) break;
        d.places.forEach((place, i) => {
          const face = pack?.order ? pack.order[place] : d.faces[i];
          if (face === s.face) found = true;
          else if (face === undefined) possible = true; // face down, and its pack not revealed yet
        });
        if (found) break;
      }
      if (found) break;
    }
    if (!found && !possible && !partial) {
      fail.add(s.at, `event ${s.at} (${s.kind}): ${s.face} is shown face up, but no pack in play had dealt it`);
    }
  }

  const unrevealed = [...dealtBy.keys()].filter((k) => !seeds.has(k)).sort((a, b) => a - b);
  // 8. Once the game is over (GAME_OVER) or the table closed, every pack that dealt a card is revealed.
  if (ended) {
    const what = ended.kind === "GAME_OVER" ? "the game is over" : "the table is closed";
    for (const draw of unrevealed) fail.add(ended.at, `draw ${draw}: ${what}, but the pack it dealt is never revealed`);
  }
  // 9. The entropy this seat gave is in the record as it gave it, and none it did not give is told as its.
  if (options.seat !== undefined && options.gave) {
    const seat = options.seat;
    for (const [draw, gaveHex] of [...options.gave].sort((a, b) => a[0] - b[0])) {
      if (partial && !commitments.has(draw)) continue; // given before the record began: not in it
      const mine = hex(gaveHex);
      const told = given.get(`${draw}/${seat}`);
      if (mine && told === undefined) {
        fail.add(events.length, `draw ${draw}: the entropy seat ${seat} gave (${short(mine)}) is not in the record`);
      } else if (told !== undefined && told !== mine) {
        fail.add(events.length, `draw ${draw}: the record tells entropy ${short(told)} from seat ${seat}, which gave ${mine ? short(mine) : "none"}`);
      }
    }
  }
  const result: VerifyResult = {
    ok: fail.first === null,
    checkedDraws,
    checkedCards,
    unrevealed,
    unverifiable: [...unverifiable].sort((a, b) => a - b),
  };
  if (fail.first) result.error = fail.first.text;
  return result;
}

// -- bytes ----------------------------------------------------------------------------------------------------

function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let i = 0;
  for (const p of parts) {
    out.set(p, i);
    i += p.length;
  }
  return out;
}

/** Lower-case hex of `data`, as the record writes it. */
export function toHex(data: Uint8Array): string {
  return Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The bytes of hex text (RangeError if it is not hex). */
export function bytes(text: string | undefined): Uint8Array {
  const s = text ?? "";
  if (s.length % 2 || /[^0-9a-fA-F]/.test(s)) throw new RangeError(`${short(s)} is not hex`);
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function hex(text: string | undefined): string {
  return (text ?? "").toLowerCase();
}

function short(text: string): string {
  return text.length > 16 ? `${text.slice(0, 12)}…` : text || '""';
}
