import { createServer, connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { coalesceWrites } from "../../src/server/write-coalescing.js";

type Counted = Socket & {
  _write: (...a: unknown[]) => void;
  _writev: (...a: unknown[]) => void;
};

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

// A connected pair on 127.0.0.1: the writing side (its system-call level writes counted) and
// everything the other side received.
async function pair(coalesce: boolean) {
  let received = "";
  let onData = () => {};
  const server = createServer((s) =>
    s.on("data", (d) => {
      received += d.toString();
      onData();
    }),
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  const socket = connect(port, "127.0.0.1") as Counted;
  await new Promise((r) => socket.once("connect", r));
  cleanups.push(() => {
    socket.destroy();
    server.close();
  });
  if (coalesce) coalesceWrites(socket);
  const calls = { count: 0 };
  for (const name of ["_write", "_writev"] as const) {
    const original = socket[name].bind(socket);
    socket[name] = (...a: unknown[]) => {
      calls.count += 1;
      original(...a);
    };
  }
  const receive = (text: string) =>
    new Promise<void>((resolve) => {
      onData = () => received === text && resolve();
      onData();
    });
  return { socket, calls, receive, received: () => received };
}

describe("coalesceWrites", () => {
  it("sends the writes of one tick in one system-call write, in order", async () => {
    const { socket, calls, receive } = await pair(true);
    for (let i = 0; i < 50; i++) socket.write(`frame ${i}\n`);
    const all = Array.from({ length: 50 }, (_, i) => `frame ${i}\n`).join("");
    await receive(all);
    expect(calls.count).toBe(1);
  });

  it("writes one call per write without it (what the coalescing removes)", async () => {
    const { socket, calls, receive } = await pair(false);
    for (let i = 0; i < 50; i++) socket.write(`frame ${i}\n`);
    await receive(
      Array.from({ length: 50 }, (_, i) => `frame ${i}\n`).join(""),
    );
    expect(calls.count).toBeGreaterThan(1);
  });

  it("keeps coalescing tick after tick, and once per socket", async () => {
    const { socket, calls, receive } = await pair(true);
    coalesceWrites(socket); // a second call changes nothing
    socket.write("a");
    socket.write("b");
    await new Promise((r) => setImmediate(r));
    socket.write("c");
    socket.write("d");
    await receive("abcd");
    expect(calls.count).toBe(2);
  });
});
