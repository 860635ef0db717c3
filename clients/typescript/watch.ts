// A hosted table's updates (HostService.Watch) that come back by themselves after a cut connection or a server's
// restart, resuming from the last update delivered, so the reader sees every update once, in order. Imports nothing
// of Node: it runs over any Connect transport, in Node (gRPC, Connect, gRPC-Web) and in browsers.
//
//     for await (const answer of watch(connectHost(), tableId, invite)) {
//       if (answer.update) console.log(answer.update.seq, answer.update.update?.events.map((e) => e.kind));
//     }
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { HostService, WatchResponseSchema, type WatchResponse } from "./gen/mazziere/v1/host_pb.js";

export type HostClient = Client<typeof HostService>;

/** The header (gRPC metadata) of a hosted table's capability: an invite, the spectators' or the owner's. */
export const CAPABILITY_HEADER = "x-table-capability";

/**
 * How long `watch` waits before watching again: the n-th attempt in a row waits a random time between half and all
 * of min(maxMs, firstMs · 2^(n-1)) (0.125-0.25 s, 0.25-0.5 s, ... up to 2.5-5 s by default). Any answer received
 * starts the count again.
 */
export interface Backoff {
  firstMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { firstMs: 250, maxMs: 5_000 };

export interface WatchOptions {
  /** WatchRequest.afterSeq: 0n (the default) starts with the table as it is (a snapshot), -1n with every step from
   * the opening, n with the step after n. */
  afterSeq?: bigint;
  /** Stops watching: the iteration ends, without an error (as a `break` out of it does). */
  signal?: AbortSignal;
  backoff?: Partial<Backoff>;
  /** Told each time `watch` is about to watch again: why (undefined for a stream that ended without the closing
   * update, or that fell behind the table) and how long it waits first. */
  onRetry?: (error: ConnectError | undefined, delayMs: number) => void;
}

/**
 * Every WatchResponse of a hosted table that carries an update or a presence change, each update once and in order,
 * across reconnections; heartbeats are kept here. It watches again after a jittered backoff (`options.backoff`) when
 * the stream fails as Unavailable (a server shutting down, SHUTTING_DOWN, or one out of reach), breaks off in any
 * other way that is not a refusal (a cut connection), or ends without the table's closing update; and when a
 * heartbeat or a presence change says the table is past the last update delivered (this stream fell behind). Each
 * time it resumes after that update's seq.
 *
 * It ends after the table's closing update (`update.closed`) or when `options.signal` aborts, and throws the
 * ConnectError of a refusal (PermissionDenied: a wrong or revoked capability; NotFound: no such table;
 * InvalidArgument, FailedPrecondition, ...; read it with `errorInfo`).
 */
export async function* watch(
  host: Pick<HostClient, "watch">,
  tableId: string,
  capability: string,
  options: WatchOptions = {},
): AsyncGenerator<WatchResponse, void, undefined> {
  const order = new UpdateOrder(options.afterSeq ?? 0n);
  const backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
  const signal = options.signal;
  let attempt = 0;
  while (!signal?.aborted) {
    const stream = new AbortController();
    const stop = () => stream.abort();
    signal?.addEventListener("abort", stop, { once: true });
    let error: ConnectError | undefined;
    try {
      const request = { tableId, afterSeq: order.resumeFrom() };
      const call = { signal: stream.signal, headers: { [CAPABILITY_HEADER]: capability } };
      for await (const answer of host.watch(request, call)) {
        attempt = 0;
        const { deliver, behind } = order.take(answer);
        if (deliver) yield deliver;
        if (order.closed) return;
        if (behind) break;
      }
    } catch (err) {
      if (signal?.aborted) return;
      error = ConnectError.from(err);
      if (isRefusal(error)) throw error;
    } finally {
      signal?.removeEventListener("abort", stop);
      stream.abort();
    }
    attempt += 1;
    const delayMs = backoffDelay(backoff, attempt);
    options.onRetry?.(error, delayMs);
    await sleep(delayMs, signal);
  }
}

/** Which answers to hand on, given the last seq delivered: each update once, in order. */
export class UpdateOrder {
  delivered = false;
  closed = false;

  constructor(public last: bigint) {}

  /** The afterSeq to watch with: the caller's until an update is delivered, then the last update's seq. After seq 0
   * it is -1 (every step from the opening, seq 0 then dropped as a repeat), since afterSeq 0 would answer the table
   * as it is now and skip the steps between. */
  resumeFrom(): bigint {
    return this.delivered && this.last === 0n ? -1n : this.last;
  }

  /** The answer to deliver (undefined: nothing new in it; a presence change whose update was a repeat loses the
   * update), and whether to watch again from the last seq (the stream skipped a step, or says the table is further
   * on than this stream has come). */
  take(answer: WatchResponse): { deliver?: WatchResponse; behind: boolean } {
    const update = answer.update;
    if (update) {
      if (update.snapshot || update.seq === this.last + 1n) {
        this.last = update.seq;
        this.closed = update.closed;
        this.delivered = true;
        return { deliver: answer, behind: false };
      }
      const repeat = update.seq <= this.last;
      if (repeat && answer.presence.length) {
        return { deliver: create(WatchResponseSchema, { presence: answer.presence, seq: answer.seq }), behind: false };
      }
      return { behind: !repeat };
    }
    const behind = answer.seq > 0n && answer.seq > this.last;
    return { deliver: answer.presence.length ? answer : undefined, behind };
  }
}

const REFUSALS = new Set([
  Code.InvalidArgument,
  Code.NotFound,
  Code.AlreadyExists,
  Code.PermissionDenied,
  Code.FailedPrecondition,
  Code.Aborted,
  Code.OutOfRange,
  Code.Unimplemented,
  Code.Unauthenticated,
]);
const BUSY_REASONS = new Set(["OVERLOADED", "QUOTA_EXCEEDED"]);

/** Whether watching again could not help: a refusal, not a cut connection or a server going away. */
export function isRefusal(error: ConnectError): boolean {
  if (error.code === Code.ResourceExhausted) {
    const reasons = error.findDetails(ErrorInfoSchema).map((info) => info.reason);
    return !reasons.some((reason) => BUSY_REASONS.has(reason));
  }
  return REFUSALS.has(error.code);
}

function backoffDelay(backoff: Backoff, attempt: number): number {
  const ceiling = Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.min(attempt - 1, 32));
  return ceiling / 2 + (Math.random() * ceiling) / 2;
}

/** Waits `ms`, or less if `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
