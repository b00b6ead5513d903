import { createServer, connect, type Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PassThrough } from "node:stream";
import {
  coalesceWrites,
  currentHold,
  FRAME_HOLD_MS,
  frameSink,
  MAX_HOLD_MS,
  WRITES_PER_SECOND,
} from "../../src/server/write-coalescing.js";
import { textFrame } from "../../src/server/ws-frame.js";
import { stampedText } from "../../src/engine/wire-updates.js";

type Counted = Socket & {
  _write: (...a: unknown[]) => void;
  _writev: (...a: unknown[]) => void;
};

const cleanups: (() => void)[] = [];
afterEach(() => {
  cleanups.splice(0).forEach((f) => f());
  vi.useRealTimers();
});

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
  const calls = { count: 0, chunks: 0 };
  for (const name of ["_write", "_writev"] as const) {
    const original = socket[name].bind(socket);
    socket[name] = (...a: unknown[]) => {
      calls.count += 1;
      calls.chunks += name === "_writev" ? (a[0] as unknown[]).length : 1;
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

  it("hands whole frames to the socket as one chunk per tick, in order with other writes", async () => {
    const { socket, calls, receive } = await pair(false);
    const sink = frameSink(socket);
    let written = 0;
    for (let i = 0; i < 20; i++)
      sink.writeFrame(Buffer.from(`frame ${i}\n`), () => (written += 1));
    socket.write("reply\n"); // written by someone else (ws): after the frames before it
    sink.writeFrame(Buffer.from("last\n"));
    const frames = Array.from({ length: 20 }, (_, i) => `frame ${i}\n`);
    await receive(`${frames.join("")}reply\nlast\n`);
    // One system call; three chunks (the gathered frames, the reply, the last frame), not 22.
    expect(calls).toEqual({ count: 1, chunks: 3 });
    expect(written).toBe(20);
  });

  it("writes a stamped update from its parts in order with whole frames, in the same chunk", async () => {
    const socket = new PassThrough();
    const chunks: Buffer[] = [];
    socket.on("data", (d: Buffer) => chunks.push(d));
    const sink = frameSink(socket);
    const update = { sessionId: "s1", text: '{"update":{"n":"é"}}', seq: 4 };
    let written = 0;
    sink.writeFrame(Buffer.from("first"), () => (written += 1));
    sink.writeStamped(update, () => (written += 1));
    sink.writeFrame(Buffer.from("last"));
    await new Promise((r) => setImmediate(r));
    expect(chunks).toHaveLength(1);
    const frame = textFrame(stampedText(update));
    expect(
      chunks[0]!.equals(
        Buffer.from([
          ...Buffer.from("first"),
          ...frame,
          ...Buffer.from("last"),
        ]),
      ),
    ).toBe(true);
    expect(written).toBe(2);
  });

  it("keeps one sink per socket, coalesced or not before", async () => {
    const { socket, calls, receive } = await pair(true);
    const sink = frameSink(socket);
    expect(frameSink(socket)).toBe(sink);
    socket.write("a");
    sink.writeFrame(Buffer.from("b"));
    sink.writeFrame(Buffer.from("c"));
    await new Promise((r) => setImmediate(r));
    sink.writeFrame(Buffer.from("d"));
    await receive("abcd");
    expect(calls).toEqual({ count: 2, chunks: 3 });
  });

  it("calls back the frames of a socket that was destroyed", async () => {
    const { socket } = await pair(false);
    const sink = frameSink(socket);
    socket.destroy();
    const written = new Promise<void>((resolve) =>
      sink.writeFrame(Buffer.from("lost"), resolve),
    );
    await expect(written).resolves.toBeUndefined();
  });

  it("holds a socket's next frames until FRAME_HOLD_MS after its last write; any other write takes them at once", async () => {
    // The clock and the hold's timer are the test's; the socket and its ticks are real.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const { socket, calls, receive, received } = await pair(false);
    const sink = frameSink(socket);
    const tick = () => new Promise((r) => setImmediate(r));
    sink.writeFrame(Buffer.from("a"));
    await receive("a"); // the first frame leaves at the tick's end
    sink.writeFrame(Buffer.from("b"));
    await tick();
    await tick();
    expect(received()).toBe("a"); // held: the socket was written less than the hold ago
    socket.write("r"); // a reply: the held frame goes before it, now
    await receive("abr");
    sink.writeFrame(Buffer.from("c"));
    await tick();
    expect(received()).toBe("abr");
    vi.advanceTimersByTime(FRAME_HOLD_MS);
    await receive("abrc"); // the hold is over
    vi.advanceTimersByTime(FRAME_HOLD_MS);
    sink.writeFrame(Buffer.from("d")); // after a pause: at the tick's end
    await receive("abrcd");
    expect(calls.count).toBe(4);
  });
});

describe("the hold with many sockets streaming", () => {
  it("grows so that all sockets together write about WRITES_PER_SECOND times a second", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const tick = () => new Promise((r) => setImmediate(r));
    const window = FRAME_HOLD_MS * 5;
    vi.advanceTimersByTime(window * 10); // a window of its own
    const sockets = Array.from({ length: 400 }, () => new PassThrough());
    cleanups.push(() => sockets.forEach((s) => s.destroy()));
    for (const s of sockets) frameSink(s).writeFrame(Buffer.from("a"));
    await tick(); // each handed over once in this window
    expect(currentHold()).toBe(FRAME_HOLD_MS);
    vi.advanceTimersByTime(window);
    const first = sockets[0]!;
    frameSink(first).writeFrame(Buffer.from("b")); // the next window: 400 streamed in the last
    await tick();
    const hold = (1000 * sockets.length) / WRITES_PER_SECOND;
    expect(currentHold()).toBe(Math.min(MAX_HOLD_MS, hold));
    expect(hold).toBeGreaterThan(FRAME_HOLD_MS);
    // so the socket's next frame waits the longer hold, not FRAME_HOLD_MS
    let read = "";
    first.on("data", (d: Buffer) => (read += d.toString()));
    frameSink(first).writeFrame(Buffer.from("c"));
    vi.advanceTimersByTime(FRAME_HOLD_MS);
    await tick();
    expect(read).toBe("ab");
    vi.advanceTimersByTime(currentHold() - FRAME_HOLD_MS);
    await tick();
    expect(read).toBe("abc");
    // a window in which few sockets streamed brings it back
    vi.advanceTimersByTime(window * 3);
    frameSink(first).writeFrame(Buffer.from("d"));
    await tick();
    expect(currentHold()).toBe(FRAME_HOLD_MS);
  });
});
