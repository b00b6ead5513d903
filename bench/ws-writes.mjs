// What one socket write costs the hub: N WebSocket clients on 127.0.0.1 (in a child process, so
// their CPU is not counted), F update-sized frames sent to every socket per tick through `ws` on
// sockets coalesced as the hub's are (server/write-coalescing.ts: one system call per socket per
// tick), and the sender's CPU per frame, user and system apart. A committed ledger batch releases
// about F updates per streaming session at once: with 100 sessions under bench/serve.mjs about
// 3, with 300 about 1 — so this is the part of the hub's cost per update that grows with the
// sessions. (The pipe floor's agents write 64 lines per session per tick, so its sockets get
// bursts of up to 64 frames.) Usage: node bench/ws-writes.mjs (BENCH_FRAMES=300000).
import { fork } from "node:child_process";
import { createServer } from "node:http";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import WebSocket, { WebSocketServer } from "ws";
import { CLI } from "./common.mjs";

const TOTAL = Number(process.env.BENCH_FRAMES ?? 300000);
const SHAPES = [
  [300, 1],
  [100, 1],
  [100, 3],
  [300, 3],
  [300, 10],
];

// The child: N clients that read and drop every frame.
if (process.argv[2] === "clients") {
  const [port, n] = process.argv.slice(3).map(Number);
  for (let i = 0; i < n; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
    ws.on("message", () => {});
    ws.on("error", () => {});
  }
} else {
  const { coalesceWrites } = await import(
    new URL("../server/write-coalescing.js", new URL(`file://${CLI}`)).href
  );
  for (const [n, f] of SHAPES) console.log(await run(n, f, coalesceWrites));
  process.exit(0);
}

// Sends TOTAL frames, f per socket per tick, to n clients; CPU per frame.
async function run(n, f, coalesceWrites) {
  const server = createServer();
  server.on("connection", coalesceWrites);
  const wss = new WebSocketServer({ noServer: true });
  const sockets = [];
  server.on("upgrade", (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => sockets.push(ws)),
  );
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const self = fileURLToPath(import.meta.url);
  const port = server.address().port;
  const clients = fork(self, ["clients", String(port), String(n)]);
  while (sockets.length < n) await new Promise((r) => setTimeout(r, 20));
  let sent = 0;
  let written = 0;
  const done = () => (written += 1);
  const cpu = process.cpuUsage();
  while (sent < TOTAL) {
    for (let i = 0; i < f; i++)
      for (const ws of sockets) {
        const text = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-${sent % n}","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}},"_meta":{"acphub":{"seq":${sent}}}}}`;
        ws.send(Buffer.from(text), { binary: false }, done);
        sent += 1;
      }
    await new Promise((r) => setImmediate(r));
  }
  while (written < sent) await new Promise((r) => setImmediate(r));
  const used = process.cpuUsage(cpu);
  clients.kill();
  for (const ws of sockets) ws.terminate();
  await new Promise((r) => server.close(r));
  const per = (us) => (us / sent).toFixed(2);
  return `${String(n).padStart(3)} sockets × ${String(f).padStart(2)} frames a tick: ${per(used.user + used.system)} µs CPU per frame (user ${per(used.user)}, system ${per(used.system)}), load ${loadavg()[0].toFixed(1)}`;
}
