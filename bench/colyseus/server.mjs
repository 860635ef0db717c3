// A minimal Colyseus room server: a room per table, and per move one `broadcast` of {seq, turn} to the room's
// clients. No rules, no storage, no redaction: an upper bound for a room server, the reference bench.host_load
// prints beside the host.
//
//   node bench/colyseus/server.mjs PORT      (on 127.0.0.1; prints {"event":"listening"} once it serves)
import { Room, Server } from "@colyseus/core";
import { WebSocketTransport } from "@colyseus/ws-transport";

class Table extends Room {
  onCreate(options) {
    this.maxClients = options.clients;
    this.seq = 0;
    this.turn = 0;
    this.onMessage("move", (client, message) => {
      if (message.seq !== this.seq) return; // a move at a stale seq: dropped, as the host refuses it
      this.seq += 1;
      this.turn = (this.turn + 1) % this.maxClients;
      this.broadcast("step", { seq: this.seq, turn: this.turn });
    });
  }
}

const port = Number(process.argv[2]);
const server = new Server({ transport: new WebSocketTransport(), greet: false, gracefullyShutdown: true });
server.define("table", Table);
await server.listen(port, "127.0.0.1");
process.stdout.write(JSON.stringify({ event: "listening", port }) + "\n");
