// A table as this page knows it: what the host last showed its capability's holder (the view, its legal actions,
// who is to act and until when), who is connected, and the steps the page has of the table's history. Every step
// carries its sequence number: a step is applied once, whether it came from Play's answer or from the Watch
// stream, and a step older than the one shown is dropped.
//
// The log and the last hand's settlement are read from those steps (`chronicle.ts`), in the language of the
// moment; a page that begins late (a reload, a reconnect, a guest) fetches the steps from the table's opening
// once and reads them from there.

import * as api from "./api";
import { type HandEnd, lastHand, netChips, stepLines } from "./chronicle";
import { Fairness } from "./fairness";
import { picture, seatNames } from "./table";
import type { Connection } from "./watch";

/** Steps kept for the log (a long table's oldest are dropped; the log shows its last lines). */
const MOST_STEPS = 2000;

/** Where the page's record of the table's past stands. */
export type History = "whole" | "loading" | "partial";

/** Chips the last step moved, by seat, for the page to show them moving (until the next step). */
export interface Moved {
  seq: bigint;
  bySeat: Map<number, bigint>;
  at: number;
}

export class Session {
  game = "";
  /** The seat this page plays; undefined for a spectator (or the owner without a seat). */
  seat: number | undefined;
  /** The last step shown; `known` is false until the host first answered. */
  seq = 0n;
  known = false;
  update: api.SeatUpdate | undefined;
  toAct: number[] = [];
  isOver = false;
  closed = false;
  /** When the host plays the turn of the seats to act (Unix ms; 0: no timer). */
  turnEndsMs = 0;
  presence: api.Presence[] = [];
  /** The table's steps this page has, in order, from the opening when `history` is "whole". */
  steps: api.HostedUpdate[] = [];
  history: History = "whole";
  /** The view of the table when this page began (a snapshot): its results stand until a hand ends here. */
  private snapshotResults: string[] = [];
  /** Hands this page saw end live. */
  hands = 0;
  /** The last hand that ended while the page was open: for the toast. */
  ended: HandEnd | null = null;
  moved: Moved | null = null;
  connection: Connection = "connecting";
  /** The public record this page received: the commitment shown, each revealed pack checked, the seat's entropy. */
  fairness = new Fairness();

  constructor(
    readonly tableId: string,
    readonly capability: string,
    readonly owner: string | undefined,
  ) {}

  get names(): string[] {
    return seatNames(this.update?.view);
  }

  isBot(seat: number): boolean {
    return Boolean(this.presence.find((p) => p.seat === seat)?.bot);
  }

  get myTurn(): boolean {
    return this.seat !== undefined && this.toAct.includes(this.seat) && !this.isOver && !this.closed;
  }

  /** The opening step (OpenTable's answer, to the owner's page): the first of the record. */
  opening(u: api.HostedUpdate): void {
    this.fairness.step(u.seq, u.update?.events ?? [], undefined);
    this.steps = [u];
  }

  /** Applies one update of the host; answers the new lines of the log (empty for a step already shown). */
  apply(u: api.HostedUpdate): string[] {
    if (u.game) this.game = u.game;
    if (u.snapshot) {
      // The table as the host has it now: it replaces whatever the page showed. Steps missed in between are
      // fetched (the fairness record's gap), and the log read again from them.
      const missed = !this.steps.length || this.steps[this.steps.length - 1].seq !== u.seq;
      this.known = true;
      this.seq = u.seq;
      this.fairness.snapshot(u.seq, u.update);
      this.toAct = u.toAct;
      this.isOver = u.isOver;
      this.closed = u.closed;
      this.turnEndsMs = Number(u.turnEndsUnixMs);
      if (u.update) this.update = u.update;
      this.seat = u.update?.seat;
      if (missed) {
        this.steps = [];
        this.history = "loading";
        this.snapshotResults = picture(this.update?.view).results;
      }
      return [];
    }
    if (this.known && u.seq <= this.seq) return [];
    const before = this.steps[this.steps.length - 1];
    this.known = true;
    this.seq = u.seq;
    this.toAct = u.toAct;
    this.isOver = u.isOver;
    this.turnEndsMs = Number(u.turnEndsUnixMs);
    if (u.update) {
      this.update = u.update;
      if (u.update.seat !== undefined) this.seat = u.update.seat;
    }
    const events = u.update?.events ?? [];
    this.fairness.step(u.seq, events, this.seat, u.update, u.closed);
    this.steps = [...this.steps, u].slice(-MOST_STEPS);
    if (u.closed) this.closed = true;
    const names = this.names;
    this.moved = u.settlement.length ? { seq: u.seq, bySeat: netChips(u.settlement), at: Date.now() } : null;
    if (events.some((e) => e.kind === "HAND_OVER" || e.kind === "GAME_OVER")) {
      this.hands += 1;
      this.ended = lastHand(this.steps, names, this.seat);
    }
    const lines = stepLines(u, before, this.game, names, (seat) => this.isBot(seat));
    return lines.filter((line) => !line.fairness).map((line) => line.text);
  }

  /** The table's steps from its opening up to `upTo`, fetched once: the log and the settlement are read from
   * them (with the steps received since); `undefined`: they could not be had, the log starts where the page did. */
  past(steps: api.HostedUpdate[] | undefined, upTo: bigint): void {
    const before = steps?.filter((u) => u.seq <= upTo) ?? [];
    if (!steps || before.some((u, i) => u.seq !== BigInt(i)) || before.length !== Number(upTo) + 1) {
      if (this.history === "loading") this.history = "partial";
      return;
    }
    const after = this.steps.filter((u) => u.seq > upTo);
    this.steps = [...before, ...after].slice(-MOST_STEPS);
    this.history = "whole";
  }

  /** The log, in the page's language: each step's events and the chips it moved; the fairness lines apart. */
  chronicle(): { log: string[]; fairness: string[] } {
    const log: string[] = [];
    const fairness: string[] = [];
    const names = this.names;
    this.steps.forEach((u, i) => {
      for (const line of stepLines(u, this.steps[i - 1], this.game, names, (seat) => this.isBot(seat))) {
        (line.fairness ? fairness : log).push(line.text);
      }
    });
    return { log, fairness };
  }

  /** The last hand's settlement: its results (busts and points too) and every payment of the hand. */
  settlement(): { results: string[]; payments: string[] } | null {
    const hand = lastHand(this.steps, this.names, this.seat);
    if (hand) return hand;
    return this.snapshotResults.length ? { results: this.snapshotResults, payments: [] } : null;
  }

  setPresence(presence: api.Presence[]): void {
    this.presence = presence;
    // Bots are played by the server, which knows the seeds: the record may hold no entropy of theirs.
    this.fairness.serverSeats = presence.filter((p) => p.bot).map((p) => p.seat);
  }

  /** The table's hosted state (waiting, playing, paused); its clock supersedes the last update's. */
  state: api.TableState = api.TableState.PLAYING;
  /** The latest reaction of each seat, and when it stops being shown (ms). */
  reactions = new Map<number, { kind: string; until: number }>();

  setStatus(status: api.HostedStatus): void {
    this.state = status.state;
    this.turnEndsMs = Number(status.turnEndsUnixMs);
  }

  get waiting(): boolean {
    return this.state === api.TableState.WAITING;
  }

  get paused(): boolean {
    return this.state === api.TableState.PAUSED;
  }

  /** Whether the table plays this seat for its person now. */
  playedByTable(seat: number): boolean {
    return Boolean(this.presence.find((p) => p.seat === seat)?.playedByTable);
  }
}
