// Committed dealing at the web table (docs/fairness.md): the page keeps the public record it has received, shows
// the commitment to the next draw, checks each pack when its seed is revealed (the TypeScript client's verify.ts,
// copied into src/gen by `npm run generate`), and gives this seat's own random bytes to each draw, once, with its first move after the commitment.
// The bytes offered for a draw are kept: a move refused and sent again offers the same ones (no last look), and the
// check finds each contribution the seat made in the record (a server that dropped one is caught).
//
// The record begins when the page does (a Watch starts with the table as it is now, without its past events; the
// owner's page also has the opening's events from OpenTable). A page that began later fetches the steps it lacks
// once (Watch from after_seq = -1, `history`), and its record is then whole; until they come, a draw committed
// before the record began is "not verifiable here", never a failure. A gap (a snapshot past the last step seen)
// starts it over.

import { toJson } from "@bufbuild/protobuf";
import type * as api from "./api";
import { EventSchema } from "./gen/mazziere/v1/table_pb";
import { CLOSED, type JsonEvent, NEXT_DRAW, toHex, verifyRecord } from "./gen/verify";

/** Bytes of entropy the page gives a draw (docs/fairness.md: 16 from crypto.getRandomValues). */
const ENTROPY_BYTES = 16;

export interface Verdict {
  /** true: verified; false: a mismatch; null: committed before this page's record began (not verifiable here). */
  ok: boolean | null;
  /** The draws revealed by the step checked, and those of them this page could check. */
  draws: number[];
  checked: number[];
  /** Whether packs were revealed (else numbers drawn only). */
  packs: boolean;
  /** Cards checked in all. */
  cards: number;
  /** The first mismatch, in the verifier's words. */
  error: string;
}

/** One draw of committed dealing, as the record tells it. */
export interface DrawRecord {
  draw: number;
  commitment: string;
  /** The seats that added their own chance (entropy) to it. */
  seats: number[];
  /** The seed, once revealed. */
  seed: string;
}

export class Fairness {
  /** The events received, in order, as REST writes them (the form the verifier reads). */
  record: JsonEvent[] = [];
  /** The step the record reaches (-1n: none yet). */
  seq = -1n;
  /** The last commitment told: to the table's next draw. */
  commitment: { draw: number; data: string } | undefined;
  verdict: Verdict | undefined;
  /** The draws this page's seat has given entropy to. */
  private given = new Set<number>();
  /** The bytes this page offered each draw (hex): offered again, never others, until the draw is made. */
  private offered = new Map<number, string>();
  /** The bytes a move of this seat carried into each draw, and landed with (hex): the check finds each in the record. */
  private mine = new Map<number, string>();
  /** The bytes offered while the next draw was not known here (the page joined late). */
  private blind = "";
  /** The seat this page plays (undefined: a spectator). */
  private seat: number | undefined;
  /** Seats the server plays (the table's bots): the check refuses entropy of theirs. */
  serverSeats: number[] = [];
  /** Entropy was sent while the next draw was not known here (the page joined late): not again until a commitment. */
  private sentBlind = false;
  /** The last step whose events the record lacks (it holds those after it); -1n: it holds the whole record. */
  private missing = -1n;
  private fetching = false;

  /** A snapshot at `seq` (with the update's next draw and its commitment): the record goes on if it reaches that
   * step, else it starts over (events were missed). */
  snapshot(seq: bigint, next?: { nextDraw?: number; commitment: string }): void {
    if (seq !== this.seq) this.restart(seq);
    this.claim(next);
  }

  /** The next draw and commitment an update showed: the commitment this seat's bytes go into, and a claim the
   * check holds the record to (on a late page, the seed revealed later must match it). */
  private claim(next?: { nextDraw?: number; commitment: string }): void {
    if (next?.nextDraw === undefined || !next.commitment) return;
    this.commitment = { draw: next.nextDraw, data: next.commitment };
    this.record.push({ kind: NEXT_DRAW, draw: next.nextDraw, data: next.commitment });
    this.sentBlind = false;
  }

  /** One step's events (the step `seq`), as the page's audience received them, with the update's next draw and
   * commitment, and whether it closed the table. */
  step(
    seq: bigint,
    events: api.GameEvent[],
    seat: number | undefined,
    next?: { nextDraw?: number; commitment: string },
    closed = false,
  ): void {
    if (this.seq >= 0n && seq !== this.seq + 1n) this.restart(seq - 1n);
    this.seq = seq;
    this.seat = seat;
    const revealed: number[] = [];
    let packs = false;
    for (const e of events) {
      this.record.push(toJson(EventSchema, e) as unknown as JsonEvent);
      if (e.kind === "COMMITTED" && e.draw !== undefined) {
        this.commitment = { draw: e.draw, data: e.data };
        this.sentBlind = false;
      } else if (e.kind === "ENTROPY" && e.draw !== undefined && e.seat === seat) {
        this.given.add(e.draw);
      } else if (e.kind === "SEED" && e.draw !== undefined) {
        revealed.push(e.draw);
        packs ||= e.cards.length > 0;
      }
    }
    this.claim(next);
    if (closed) this.record.push({ kind: CLOSED });
    if (revealed.length) this.check(revealed, packs);
  }

  /** The entropy for this seat's next move, in hex (16 random bytes on its first move after each commitment;
   * else empty), and the draw it is for (undefined: the page has not seen the next draw's commitment). */
  entropy(): { entropy: string; draw: number | undefined } {
    const draw = this.commitment?.draw;
    if (draw === undefined ? this.sentBlind : this.given.has(draw)) return { entropy: "", draw };
    const fresh = (): string => toHex(crypto.getRandomValues(new Uint8Array(ENTROPY_BYTES)));
    if (draw === undefined) {
      this.blind ||= fresh();
      return { entropy: this.blind, draw };
    }
    const bytes = this.offered.get(draw) || this.blind || fresh(); // the same bytes again after a refusal
    this.offered.set(draw, bytes);
    this.blind = "";
    return { entropy: bytes, draw };
  }

  /** The move that carried `entropy` for `draw` was played (`landed`), or refused as INVALID_ENTROPY (given already,
   * or the seat gives none). */
  gave(draw: number | undefined, entropy = "", landed = false): void {
    if (draw !== undefined) {
      this.given.add(draw);
      if (landed && entropy) this.mine.set(draw, entropy);
    } else if (this.commitment === undefined) this.sentBlind = true;
  }

  /** The step up to which the record lacks the table's events, once (the page then fetches them), else undefined. */
  gap(): bigint | undefined {
    if (this.missing < 0n || this.fetching) return undefined;
    this.fetching = true;
    return this.missing;
  }

  /** The table's steps from its opening up to `upTo` (`gap`'s): the record is then whole, and every draw revealed
   * in it is checked. Nothing changes if they do not begin at the opening or the record started over meanwhile. */
  history(steps: api.HostedUpdate[], upTo: bigint, seat: number | undefined): void {
    this.fetching = false;
    const before = steps.filter((u) => u.seq <= upTo);
    if (upTo !== this.missing || before.some((u, i) => u.seq !== BigInt(i)) || before.length !== Number(upTo) + 1) return;
    const events = before.flatMap((u) => u.update?.events ?? []);
    const told = before.flatMap((u): JsonEvent[] => {
      const own = (u.update?.events ?? []).map((e) => toJson(EventSchema, e) as unknown as JsonEvent);
      const next = u.update?.nextDraw;
      return next !== undefined && u.update?.commitment ? [...own, { kind: NEXT_DRAW, draw: next, data: u.update.commitment }] : own;
    });
    this.record = [...told, ...this.record];
    this.missing = -1n;
    const revealed = this.record.filter((e) => e.kind === "SEED" && e.draw !== undefined);
    for (const e of events) if (e.kind === "ENTROPY" && e.draw !== undefined && e.seat === seat) this.given.add(e.draw);
    if (revealed.length) this.check(revealed.map((e) => e.draw as number), revealed.some((e) => e.cards?.length));
  }

  private restart(seq: bigint): void {
    this.record = [];
    this.seq = seq;
    this.missing = seq;
  }

  /** Checks the record when a step reveals `draws` (packs among them, or numbers drawn only). */
  private check(draws: number[], packs: boolean): void {
    const own = this.seat === undefined ? {} : { seat: this.seat, gave: this.mine };
    const result = verifyRecord(this.record, { partial: this.missing >= 0n, serverSeats: this.serverSeats, ...own });
    const checked = draws.filter((d) => !result.unverifiable.includes(d));
    let ok: boolean | null = true;
    if (!result.ok) ok = false;
    else if (!checked.length) ok = null;
    this.verdict = { ok, draws, checked, packs, cards: result.checkedCards, error: result.error ?? "" };
  }

  /** Every draw of the record: its commitment, the seats that gave it their chance, its seed once revealed. */
  draws(): DrawRecord[] {
    const found = new Map<number, DrawRecord>();
    const of = (draw: number) => {
      let record = found.get(draw);
      if (!record) found.set(draw, (record = { draw, commitment: "", seats: [], seed: "" }));
      return record;
    };
    for (const e of this.record) {
      if (e.draw === undefined) continue;
      if (e.kind === "COMMITTED") of(e.draw).commitment = e.data ?? "";
      else if (e.kind === "ENTROPY" && e.seat !== undefined) of(e.draw).seats.push(e.seat);
      else if (e.kind === "SEED") of(e.draw).seed = e.data ?? "";
    }
    return [...found.values()].sort((a, b) => a.draw - b.draw);
  }
}
