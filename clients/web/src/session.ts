// A table as this page knows it: what the host last showed its capability's holder (the view, its legal actions,
// who is to act and until when), who is connected, and what the page saw happen (the log, the last settlement).
// Every step carries its sequence number: a step is applied once, whether it came from Play's answer or from the
// Watch stream, and a step older than the one shown is dropped.

import type * as api from "./api";
import { Fairness } from "./fairness";
import { picture, seatNames } from "./table";
import type { Connection } from "./watch";
import { eventText, transferText } from "./words";

const LOG_LINES = 300;

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
  log: string[] = [];
  /** The last hand that ended: its results (from the view) and the chips its last step moved. */
  settlement: string[] | null = null;
  /** Hands this page saw end. */
  hands = 0;
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

  /** Applies one update of the host; answers the new lines of the log (empty for a step already shown). */
  apply(u: api.HostedUpdate): string[] {
    if (u.game) this.game = u.game;
    if (u.snapshot) {
      // The table as the host has it now: it replaces whatever the page showed.
      this.known = true;
      this.seq = u.seq;
      this.fairness.snapshot(u.seq, u.update);
      this.toAct = u.toAct;
      this.isOver = u.isOver;
      this.closed = u.closed;
      this.turnEndsMs = Number(u.turnEndsUnixMs);
      if (u.update) this.update = u.update;
      this.seat = u.update?.seat;
      // A table whose hand has ended: its results stand as the settlement (the chips it moved are not in a snapshot).
      const results = picture(this.update?.view).results;
      if (!this.settlement && results.length) this.settlement = results;
      if (this.log.length) return [];
      this.log = ["Al tavolo: la cronaca comincia da qui (at the table: the log starts here)"];
      return this.log;
    }
    if (this.known && u.seq <= this.seq) return [];
    const before = this.toAct;
    this.known = true;
    this.seq = u.seq;
    this.toAct = u.toAct;
    this.isOver = u.isOver;
    this.turnEndsMs = Number(u.turnEndsUnixMs);
    if (u.update) {
      this.update = u.update;
      if (u.update.seat !== undefined) this.seat = u.update.seat;
    }
    const names = this.names;
    const events = u.update?.events ?? [];
    const lines: string[] = [];
    const late = before.length === 1 && !this.isBot(before[0]) && events.some((e) => e.auto);
    if (late) {
      const who = names[before[0]] ?? "";
      lines.push(`Tempo scaduto per ${who}: il tavolo gioca per lui con prudenza (${who}'s time ran out: the table plays a cautious move)`);
    }
    for (const e of events) lines.push(eventText(e, names, this.game));
    const verdict = this.fairness.verdict;
    this.fairness.step(u.seq, events, this.seat, u.update, u.closed);
    if (this.fairness.verdict !== verdict && this.fairness.verdict) lines.push(this.fairness.verdict.text);
    // The chips the step moved, in the words of the settlement: one wording, payer first.
    for (const t of u.settlement) lines.push(transferText(t, names));
    if (events.some((e) => e.kind === "HAND_OVER" || e.kind === "GAME_OVER")) {
      // What everyone at the table sees alike, whenever they sat down: the results the view holds and the chips
      // this last step moved (a bust's stake, paid when it happened, is in the results).
      this.hands += 1;
      this.settlement = [...picture(this.update?.view).results, ...u.settlement.map((t) => transferText(t, names))];
    }
    if (u.closed) {
      this.closed = true;
      lines.push("Il tavolo è stato chiuso da chi l'ha aperto (the owner closed the table)");
    }
    this.log = [...this.log, ...lines].slice(-LOG_LINES);
    return lines;
  }

  setPresence(presence: api.Presence[]): void {
    this.presence = presence;
    // Bots are played by the server, which knows the seeds: the record may hold no entropy of theirs.
    this.fairness.serverSeats = presence.filter((p) => p.bot).map((p) => p.seat);
  }
}
