// `watch`: its order and retries against scripted streams (no server), then against a real `mazziere serve` that
// stops (SIGTERM: SHUTTING_DOWN; SIGKILL: a cut connection) and starts again on the same store while one watcher
// per transport (gRPC, Connect, gRPC-Web) follows a table. $MAZZIERE_SERVE is the server's command (tests/clients
// passes it); without it the server's tests skip.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { connect, connectHost, errorInfo, type Transport } from "../client.js";
import { ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";
import {
  HostedUpdateSchema,
  PresenceSchema,
  WatchResponseSchema,
  type HostedUpdate,
  type OpenTableResponse,
  type WatchRequest,
  type WatchResponse,
} from "../gen/mazziere/v1/host_pb.js";
import { CAPABILITY_HEADER, watch, type HostClient, type WatchOptions } from "../watch.js";

// -- scripted streams ----------------------------------------------------------------------------------------------

/** A stream's script: answers, then its end ("open": until cancelled; "ended": without an error; or an error). */
interface Script {
  answers: WatchResponse[];
  end?: "open" | "ended" | ConnectError;
}

function scriptedHost(scripts: Script[]) {
  const asked: { afterSeqs: bigint[]; capabilities: Set<string> } = { afterSeqs: [], capabilities: new Set() };
  const host: Pick<HostClient, "watch"> = {
    watch(request: Partial<WatchRequest>, options?: { signal?: AbortSignal; headers?: HeadersInit }) {
      asked.afterSeqs.push(request.afterSeq ?? 0n);
      asked.capabilities.add(new Headers(options?.headers).get(CAPABILITY_HEADER) ?? "");
      const script = scripts.shift() ?? { answers: [] };
      return (async function* () {
        yield* script.answers;
        const end = script.end ?? "open";
        if (end instanceof ConnectError) throw end;
        if (end === "open") {
          const signal = options?.signal;
          if (!signal?.aborted) await once(signal!, "abort");
          throw new ConnectError("cancelled", Code.Canceled);
        }
      })();
    },
  };
  return { host, asked };
}

const step = (seq: bigint, fields: { snapshot?: boolean; closed?: boolean } = {}) =>
  create(WatchResponseSchema, { update: create(HostedUpdateSchema, { seq, ...fields }) });
const presence = (seq: bigint) =>
  create(WatchResponseSchema, { presence: [create(PresenceSchema, { seat: 0, connected: true })], seq });
const repeatWithPresence = (seq: bigint) =>
  create(WatchResponseSchema, { update: step(seq).update, presence: presence(0n).presence });
const heartbeat = (seq: bigint) => create(WatchResponseSchema, { heartbeat: true, seq });
const refusal = (code: Code, reason = "") => {
  const details = reason ? [{ desc: ErrorInfoSchema, value: { reason, domain: "mazziere.v1" } }] : [];
  return new ConnectError(reason || "no reason", code, undefined, details);
};

async function watchScripted(scripts: Script[], options: WatchOptions = {}) {
  const { host, asked } = scriptedHost(scripts);
  const seen = { seqs: [] as bigint[], snapshots: [] as bigint[], presences: 0, retries: [] as string[], ended: "" };
  try {
    for await (const answer of watch(host, "t_1", "invite", {
      backoff: { firstMs: 1, maxMs: 4 },
      onRetry: (error) => seen.retries.push(error ? `${Code[error.code]}/${errorInfo(error).info?.reason ?? ""}` : "-"),
      ...options,
    })) {
      assert.ok(!answer.heartbeat, "a heartbeat was delivered");
      if (answer.update) seen.seqs.push(answer.update.seq);
      if (answer.update?.snapshot) seen.snapshots.push(answer.update.seq);
      if (answer.presence.length) seen.presences += 1;
    }
    seen.ended = "done";
  } catch (err) {
    const { code, info } = errorInfo(err);
    seen.ended = `${Code[code]}/${info?.reason ?? ""}`;
  }
  return { seen, asked };
}

describe("watch against scripted streams", () => {
  test("delivers each update once, in order, across reconnects", async () => {
    const { seen, asked } = await watchScripted([
      { answers: [step(0n, { snapshot: true }), step(1n), step(2n)], end: refusal(Code.Unavailable, "SHUTTING_DOWN") },
      // a repeat with a presence change keeps the change; a heartbeat past the last step: this stream is behind
      { answers: [presence(0n), repeatWithPresence(2n), step(3n), heartbeat(5n), step(4n)] },
      { answers: [], end: "ended" },
      { answers: [step(4n), step(6n), step(5n)] }, // a step skipped: watch again
      { answers: [step(5n), presence(5n), step(6n), step(7n, { closed: true }), step(8n)] },
    ]);
    assert.deepEqual(seen.seqs, [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n]);
    assert.deepEqual(asked.afterSeqs, [0n, 2n, 3n, 3n, 4n]);
    assert.deepEqual(seen.retries, ["Unavailable/SHUTTING_DOWN", "-", "-", "-"]);
    assert.deepEqual([seen.presences, seen.snapshots, [...asked.capabilities]], [3, [0n], ["invite"]]);
    assert.equal(seen.ended, "done");
  });

  test("after seq 0 it watches again from the opening (-1), not the table as it is", async () => {
    const { seen, asked } = await watchScripted([
      { answers: [step(0n, { snapshot: true })], end: "ended" },
      { answers: [presence(0n), step(0n), step(1n, { closed: true })] },
    ]);
    assert.deepEqual([seen.seqs, asked.afterSeqs], [[0n, 1n], [0n, -1n]]);
  });

  test("delivers a snapshot the server answers", async () => {
    const { seen, asked } = await watchScripted(
      [
        { answers: [presence(0n), step(10n)], end: "ended" },
        { answers: [step(8n, { snapshot: true }), step(9n), step(10n, { closed: true })] }, // the store went back
      ],
      { afterSeq: 9n },
    );
    assert.deepEqual([seen.seqs, asked.afterSeqs], [[10n, 8n, 9n, 10n], [9n, 10n]]);
  });

  test("throws a refusal", async () => {
    for (const code of [Code.PermissionDenied, Code.NotFound, Code.InvalidArgument, Code.FailedPrecondition]) {
      const { seen, asked } = await watchScripted([
        { answers: [step(3n, { snapshot: true })], end: refusal(Code.Unavailable) },
        { answers: [], end: refusal(code, "REFUSED") },
      ]);
      assert.deepEqual([seen.ended, seen.seqs], [`${Code[code]}/REFUSED`, [3n]]);
      assert.deepEqual([seen.retries, asked.afterSeqs], [["Unavailable/"], [0n, 3n]]);
    }
  });

  test("waits for a busy server, not for an answer too large", async () => {
    const { seen } = await watchScripted([
      { answers: [], end: refusal(Code.ResourceExhausted, "OVERLOADED") },
      { answers: [], end: refusal(Code.ResourceExhausted, "RESPONSE_TOO_LARGE") },
    ]);
    assert.deepEqual(seen.retries, ["ResourceExhausted/OVERLOADED"]);
    assert.equal(seen.ended, "ResourceExhausted/RESPONSE_TOO_LARGE");
  });

  test("ends without an error when its signal aborts, while it waits for an answer", async () => {
    const abort = new AbortController();
    const { host, asked } = scriptedHost([{ answers: [step(0n, { snapshot: true }), step(1n)] }]);
    const seqs: bigint[] = [];
    for await (const answer of watch(host, "t_1", "invite", { signal: abort.signal })) {
      seqs.push(answer.update!.seq);
      if (seqs.length === 2) setTimeout(() => abort.abort(), 20);
    }
    assert.deepEqual([seqs, asked.afterSeqs], [[0n, 1n], [0n]]);
  });

  test("backs off exponentially with jitter, up to its longest wait", async () => {
    const delays: number[] = [];
    const scripts = Array.from({ length: 6 }, () => ({ answers: [], end: refusal(Code.Unavailable) }) as Script);
    scripts.push({ answers: [], end: refusal(Code.NotFound, "TABLE_NOT_FOUND") });
    const { host } = scriptedHost(scripts);
    const onRetry = (_: unknown, ms: number) => delays.push(ms);
    const watching = watch(host, "t_1", "invite", { backoff: { firstMs: 1, maxMs: 8 }, onRetry });
    await assert.rejects(watching.next());
    delays.forEach((ms, n) => {
      const ceiling = Math.min(8, 2 ** n);
      assert.ok(ms >= ceiling / 2 && ms <= ceiling, `attempt ${n + 1} waited ${ms} ms`);
    });
    assert.equal(delays.length, 6);
  });
});

// -- a real server, stopped and started again -----------------------------------------------------------------------

const PATIENCE_MS = 120_000;

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const address = probe.address();
  probe.close();
  return typeof address === "object" && address ? address.port : 0;
}

async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + PATIENCE_MS;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `mazziere serve` on two ports (gRPC, and the REST gateway for Connect and gRPC-Web) and one data folder (a SQLite
 * store), started again as often as needed with the same sealing keys, so that its stored tables open again. */
class Server {
  grpc = "";
  rest = "";
  private process: ChildProcess | undefined;
  private env: NodeJS.ProcessEnv = {};

  constructor(private readonly command: string) {}

  async start(): Promise<void> {
    if (!this.grpc) {
      const [port, restPort] = [await freePort(), await freePort()];
      [this.grpc, this.rest] = [`127.0.0.1:${port}`, `127.0.0.1:${restPort}`];
      this.env = {
        ...process.env,
        MAZZIERE_HOST: "127.0.0.1",
        MAZZIERE_PORT: String(port),
        MAZZIERE_REST_HOST: "127.0.0.1",
        MAZZIERE_REST_PORT: String(restPort),
        MAZZIERE_METRICS_PORT: "0",
        MAZZIERE_LOG_CALLS: "false",
        MAZZIERE_HEARTBEAT_SECONDS: "0.5",
        MAZZIERE_DATA_DIR: mkdtempSync(join(tmpdir(), "mazziere-watch-")),
        MAZZIERE_SEAL_KEYS: `k1:${randomBytes(32).toString("base64")}`,
      };
    }
    this.process = spawn(this.command, ["serve"], { env: this.env, stdio: "ignore" });
    const clients = [connect(this.grpc), connect(this.rest, { transport: "connect" })];
    await until("the server to start", async () => {
      const answers = await Promise.allSettled(clients.map((client) => client.listGames({})));
      return answers.every((answer) => answer.status === "fulfilled");
    });
  }

  async stop(signal: NodeJS.Signals): Promise<void> {
    const exited = once(this.process!, "exit");
    this.process!.kill(signal);
    await exited;
    this.process = undefined;
  }
}

/** Plays `moves` moves, each the first legal move of the seat to act; the table's seq after them. */
async function play(host: HostClient, opened: OpenTableResponse, moves: number): Promise<bigint> {
  const invites = new Map(opened.invites.map((invite) => [invite.seat!, invite.capability]));
  const as = (capability: string) => ({ headers: { [CAPABILITY_HEADER]: capability } });
  let seq = 0n;
  for (let n = 0; n < moves; n++) {
    const now = await host.getHostedTable({ tableId: opened.tableId }, as(invites.get(0)!));
    const seat = now.update!.toAct[0];
    const mine = (await host.getHostedTable({ tableId: opened.tableId }, as(invites.get(seat)!))).update!;
    const legal = mine.update!.legalActions[0];
    const action = { seat, kind: legal.kind, amount: legal.minAmount, cards: legal.cards, target: legal.target };
    const played = await host.play({ tableId: opened.tableId, expectedSeq: mine.seq, action }, as(invites.get(seat)!));
    seq = played.update!.seq;
  }
  return seq;
}

/** A watcher over one transport: what it delivered, its retries, how it ended. */
function follow(server: Server, transport: Transport, opened: OpenTableResponse) {
  const seen = { updates: [] as HostedUpdate[], retries: [] as string[], ended: "" };
  const host = connectHost(transport === "grpc" ? server.grpc : server.rest, { transport });
  const onRetry = (error: ConnectError | undefined) =>
    seen.retries.push(error ? `${Code[error.code]}/${errorInfo(error).info?.reason ?? ""}` : "-");
  const done = (async () => {
    try {
      for await (const answer of watch(host, opened.tableId, opened.spectators!.capability, { onRetry })) {
        if (answer.update) seen.updates.push(answer.update);
      }
      seen.ended = "done";
    } catch (err) {
      seen.ended = String(err);
    }
  })();
  const last = () => seen.updates.at(-1)?.seq ?? -1n;
  const reach = (seq: bigint) =>
    until(`${transport} to reach seq ${seq} (${seen.retries})`, () => last() >= seq || !!seen.ended);
  return { seen, done, reach };
}

const command = process.env.MAZZIERE_SERVE;

const needsServer = { skip: command ? false : "MAZZIERE_SERVE is not set" };

describe("watch against a server that stops and starts again", needsServer, () => {
  test("every watcher delivers every seq once, in order, over each transport", { timeout: 600_000 }, async () => {
    const server = new Server(command!);
    await server.start();
    try {
      const players = () => connectHost(server.grpc); // a new one after each start: no connection of the old server
      const seats = [{ name: "Anna", chips: 100n }, { name: "Bruno", chips: 100n }];
      const opened = await players().openTable({ game: "sette_e_mezzo", seats, turnSeconds: 3600 });
      const transports: Transport[] = ["grpc", "connect", "grpc-web"];
      const watchers = transports.map((transport) => follow(server, transport, opened));
      await Promise.all(watchers.map((watcher) => watcher.reach(0n)));
      let seq = await play(players(), opened, 3);
      for (const signal of ["SIGTERM", "SIGKILL"] as NodeJS.Signals[]) {
        await Promise.all(watchers.map((watcher) => watcher.reach(seq))); // mid-stream when it stops
        await server.stop(signal);
        await server.start();
        seq = await play(players(), opened, 3); // maybe before the watchers are back: they read them from the store
      }
      const owner = { headers: { [CAPABILITY_HEADER]: opened.owner!.capability } };
      const closed = await players().closeTable({ tableId: opened.tableId }, owner);
      assert.equal(closed.seq, seq + 1n);
      await Promise.all(watchers.map((watcher) => watcher.done));
      for (const [n, { seen }] of watchers.entries()) {
        const what = `watcher ${n}: retries ${seen.retries}`;
        assert.equal(seen.ended, "done", what);
        const every = Array.from({ length: Number(closed.seq) + 1 }, (_, k) => BigInt(k));
        assert.deepEqual(seen.updates.map((update) => update.seq), every, what);
        assert.ok(seen.updates[0].snapshot && seen.updates.at(-1)!.closed, what);
        assert.ok(seen.retries.includes("Unavailable/SHUTTING_DOWN") && seen.retries.length >= 2, what);
      }
    } finally {
      await server.stop("SIGKILL").catch(() => {});
    }
  });

  test("a refusal is thrown, over each transport", { timeout: 2 * PATIENCE_MS }, async () => {
    const server = new Server(command!);
    await server.start();
    try {
      const seats = [{ name: "Anna", chips: 100n }, { name: "Bruno", chips: 100n }];
      const opened = await connectHost(server.grpc).openTable({ game: "sette_e_mezzo", seats });
      for (const transport of ["grpc", "connect", "grpc-web"] as Transport[]) {
        const host = connectHost(transport === "grpc" ? server.grpc : server.rest, { transport });
        const cases: [string, string, Code, string][] = [
          [opened.tableId, "not-a-capability", Code.PermissionDenied, "CAPABILITY_INVALID"],
          ["t_nosuchtable", opened.spectators!.capability, Code.NotFound, "TABLE_NOT_FOUND"],
        ];
        for (const [tableId, capability, code, reason] of cases) {
          await assert.rejects(watch(host, tableId, capability).next(), (err: unknown) => {
            const refused = errorInfo(err);
            const what = `${transport} ${tableId}`;
            assert.deepEqual([Code[refused.code], refused.info?.reason], [Code[code], reason], what);
            return true;
          });
        }
      }
    } finally {
      await server.stop("SIGKILL").catch(() => {});
    }
  });
});
