// The table's live updates: one HostService.Watch stream (Connect server streaming), resumed after a dropped
// connection from the last step received (`after_seq`), with backoff. The host sends a heartbeat every 15 s
// while the table is idle, so a stream silent for much longer is taken as dropped. No polling.

import * as api from "./api";

export type Connection = "connecting" | "live" | "reconnecting";

export interface WatchHandlers {
  /** The last step applied (0n: none yet, and the first answer is then the table now). */
  afterSeq(): bigint;
  update(update: api.HostedUpdate): void;
  presence(presence: api.Presence[]): void;
  connection(state: Connection, refusal?: api.Refusal): void;
  /** The host will never show this table to this capability again: no such table, a wrong invite, or (the stream
   * ended PERMISSION_DENIED `CAPABILITY_REVOKED`) the owner reissued this invite while it was open. The page says
   * which in plain words (words.ts, `goneText`). */
  lost(refusal: api.Refusal): void;
}

/** Longer than the host's 15 s between heartbeats, with room for a slow network. */
const SILENCE_MS = 40_000;
const FIRST_RETRY_MS = 500;
const LONGEST_RETRY_MS = 15_000;

export class Watcher {
  private stopped = false;
  private abort: AbortController | null = null;
  private wake: (() => void) | null = null;
  private readonly online = () => this.wake?.();

  constructor(
    private readonly tableId: string,
    private readonly capability: string,
    private readonly on: WatchHandlers,
  ) {}

  start(): void {
    window.addEventListener("online", this.online);
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    window.removeEventListener("online", this.online);
    this.abort?.abort();
    this.wake?.();
  }

  private async run(): Promise<void> {
    let failures = 0;
    let live = false;
    this.on.connection("connecting");
    while (!this.stopped) {
      const abort = new AbortController();
      this.abort = abort;
      let silence = setTimeout(() => abort.abort(), SILENCE_MS);
      try {
        const request = { tableId: this.tableId, afterSeq: this.on.afterSeq() };
        for await (const answer of api.host.watch(request, api.as(this.capability, { signal: abort.signal, stream: true }))) {
          clearTimeout(silence);
          silence = setTimeout(() => abort.abort(), SILENCE_MS);
          if (!live) this.on.connection("live");
          live = true;
          failures = 0;
          if (answer.presence.length) this.on.presence(answer.presence);
          if (answer.update) this.on.update(answer.update);
          if (answer.update?.closed) {
            this.stopped = true; // the table is closed: nothing more will come
            break;
          }
        }
      } catch (error) {
        if (this.stopped) break;
        const refused = api.refusal(error);
        if (api.isFinal(refused)) {
          this.stopped = true;
          this.on.lost(refused);
          break;
        }
        failures += 1;
        live = false;
        this.on.connection("reconnecting", refused);
      } finally {
        clearTimeout(silence);
      }
      if (this.stopped) break;
      if (live || !failures) {
        // The host ended the stream without an error (it is shutting down, say): come back after a pause.
        failures = 1;
        live = false;
        this.on.connection("reconnecting");
      }
      await this.pause(Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** (failures - 1)) * (0.75 + Math.random() / 2));
    }
  }

  /** Waits `ms`, or less if the browser comes back online or the watcher is stopped. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }
}

/** The table's steps from its opening up to `upTo`, as this capability's audience saw them (Watch from
 * after_seq = -1, closed once `upTo` arrives): what a page that joined late lacks of the public record. */
export async function pastSteps(tableId: string, capability: string, upTo: bigint): Promise<api.HostedUpdate[]> {
  const abort = new AbortController();
  const steps: api.HostedUpdate[] = [];
  try {
    const request = { tableId, afterSeq: -1n };
    for await (const answer of api.host.watch(request, api.as(capability, { signal: abort.signal, stream: true }))) {
      if (!answer.update) continue;
      steps.push(answer.update);
      if (answer.update.seq >= upTo) break;
    }
  } finally {
    abort.abort();
  }
  return steps;
}
