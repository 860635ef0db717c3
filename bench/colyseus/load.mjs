// The load generator of the Colyseus room server (server.mjs), the same shape as bench.host_load's: ROOMS rooms of
// CLIENTS clients (@colyseus/sdk, one WebSocket each), a move every INTERVAL seconds per room (room i starts at
// i/ROOMS of an interval), sent by the client whose turn the last step named once that client has the step; push is
// the time from just before the move is sent to the moment the room's last client has the step it makes.
//
//   node bench/colyseus/load.mjs PORT ROOMS CLIENTS INTERVAL WARMUP SECONDS
//
// It prints one JSON line per event, for bench.host_load to read: "connected" (every client joined), "window"
// (the measured window begins), "end" (it ends), then "result" (the window's figures). Every loop is bounded in
// count and time; it exits by itself.
import { Client } from "@colyseus/sdk";

const [port, rooms, clients, interval, warmup, seconds] = process.argv.slice(2).map(Number);
const JOIN_IN_FLIGHT = Number(process.env.JOINS || 32);
const READY_MS = 30_000; // how long a room waits for its last step to reach the client to act
const DRAIN_MS = 5_000; // after the window, for the pushes still on their way

const say = (event, fields = {}) => process.stdout.write(JSON.stringify({ event, ...fields }) + "\n");
const now = () => performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

const run = { pushes: [], moves: 0, skipped: 0, stopped: 0, errors: {}, window: [Infinity, Infinity] };
const measured = (sent) => run.window[0] <= sent && sent < run.window[1];
const error = (what) => (run.errors[what] = (run.errors[what] || 0) + 1);

class Table {
  constructor(index) {
    this.index = index;
    this.members = []; // the rooms of its clients, in the order they joined (a client's turn is its index)
    this.seq = 0; // the latest step any client has
    this.turn = 0;
    this.latest = []; // by client: the last seq it received
    this.sent = new Map(); // by the seq a move makes: the time just before it was sent
    this.arrived = new Map(); // by seq: the clients that have it
    this.changed = null; // resolves when a client receives a step
  }

  received(member, message) {
    const at = now();
    this.latest[member] = message.seq;
    if (message.seq > this.seq) [this.seq, this.turn] = [message.seq, message.turn];
    const sent = this.sent.get(message.seq);
    if (sent !== undefined) {
      const count = (this.arrived.get(message.seq) || 0) + 1;
      if (member === this.actor(message.seq) && measured(sent)) run.moves += 1;
      if (count === this.members.length) {
        this.sent.delete(message.seq);
        this.arrived.delete(message.seq);
        if (measured(sent)) run.pushes.push(at - sent);
      } else this.arrived.set(message.seq, count);
    }
    if (this.changed) this.changed();
  }

  actor(seq) {
    return (seq - 1 + this.members.length) % this.members.length; // the client that sent the move making seq
  }

  ready() {
    return this.latest[this.turn] === this.seq;
  }

  async play() {
    let due = run.start + (interval * 1000 * this.index) / rooms;
    while (due < run.window[1]) {
      await sleep(due - now());
      const readyBy = now() + READY_MS;
      while (!this.ready()) {
        if (now() > readyBy) return void (run.stopped += 1);
        await Promise.race([new Promise((resolve) => (this.changed = resolve)), sleep(READY_MS)]);
      }
      const sent = now();
      this.sent.set(this.seq + 1, sent);
      this.members[this.turn].send("move", { seq: this.seq });
      due += interval * 1000;
      const late = now() - due;
      if (late > interval * 1000) {
        const missed = Math.floor(late / (interval * 1000));
        due += missed * interval * 1000;
        if (measured(due)) run.skipped += missed;
      }
    }
  }
}

async function join(client, table, member) {
  const room = member === 0
    ? await client.create("table", { clients })
    : await client.joinById(table.members[0].roomId, { clients });
  table.members[member] = room;
  table.latest[member] = 0;
  room.onMessage("step", (message) => table.received(member, message));
  room.onError((code) => error(`room error ${code}`));
  room.onLeave((code) => code !== 4000 && error(`left ${code}`));
}

async function limited(count, work) {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(JOIN_IN_FLIGHT, count) }, worker));
}

const client = new Client(`http://127.0.0.1:${port}`);
const tables = Array.from({ length: rooms }, (_, i) => new Table(i));
let began = now();
await limited(rooms, (i) => join(client, tables[i], 0));
await limited(rooms * (clients - 1), (j) => join(client, tables[j % rooms], 1 + Math.floor(j / rooms)));
say("connected", { seconds: (now() - began) / 1000, clients: rooms * clients });

run.start = now() + 500;
run.window = [run.start + warmup * 1000, run.start + (warmup + seconds) * 1000];
const windowed = (async () => {
  await sleep(run.window[0] - now());
  say("window");
  const cpu = process.cpuUsage();
  const wall = now();
  await sleep(run.window[1] - now());
  const used = process.cpuUsage(cpu);
  run.ownCpu = (used.user + used.system) / 1000 / (now() - wall);
  run.connectedAtEnd = tables.reduce((n, t) => n + t.members.filter((room) => room.connection.isOpen).length, 0);
  say("end");
})();
await Promise.all([...tables.map((t) => t.play()), windowed]);
began = now();
const pending = () => tables.reduce((n, t) => n + [...t.sent.values()].filter(measured).length, 0);
while (now() - began < DRAIN_MS && pending() > 0) await sleep(100);
say("result", {
  pushes_ms: run.pushes,
  moves: run.moves,
  skipped: run.skipped,
  stopped: run.stopped,
  incomplete: pending(),
  errors: run.errors,
  own_cpu: run.ownCpu,
  connected_at_end: run.connectedAtEnd,
});
// Past 64 KiB (a pipe's buffer) the result is still being written: exit once stdout has taken all of it.
process.stdout.write("", () => process.exit(0));
