// The page's own JSON-RPC client (src/web/acp/rpc-socket.ts) against a real WebSocket server
// (the `ws` library standing in for the hub): answers matched to their requests, errors with
// their code, the hub's messages held until the page's handlers attach (in order), the hub's
// requests answered (or refused when unknown), `$/cancel_request` ending a question, and a
// dropped connection failing what still waits.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocket as NodeWebSocket, WebSocketServer } from "ws";
import type { WebSocket as ServerSide } from "ws";
import { RpcError, RpcSocket } from "../../src/web/acp/rpc-socket.js";

let server: WebSocketServer;
let url: string;
const opened: RpcSocket[] = [];

beforeAll(async () => {
  // The browser's WebSocket, as the page uses it (addEventListener, readyState, OPEN).
  (globalThis as { WebSocket?: unknown }).WebSocket ??= NodeWebSocket;
  server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await once(server, "listening");
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => opened.splice(0).forEach((s) => s.close()));
afterAll(() => new Promise<void>((done) => server.close(() => done())));

// A connection from the page and the server's side of it, with the frames it received.
async function connect(): Promise<{
  socket: RpcSocket;
  peer: ServerSide;
  frames: Record<string, unknown>[];
}> {
  const peerP = once(server, "connection");
  const socket = await RpcSocket.open(url);
  opened.push(socket);
  const [peer] = (await peerP) as [ServerSide];
  const frames: Record<string, unknown>[] = [];
  peer.on("message", (data) =>
    frames.push(JSON.parse(String(data)) as Record<string, unknown>),
  );
  return { socket, peer, frames };
}

const send = (peer: ServerSide, m: object) =>
  peer.send(JSON.stringify({ jsonrpc: "2.0", ...m }));

// Waits (bounded) until the server received n frames.
async function received(frames: unknown[], n: number): Promise<void> {
  for (let i = 0; i < 200 && frames.length < n; i++)
    await new Promise((r) => setTimeout(r, 10));
  expect(frames.length).toBeGreaterThanOrEqual(n);
}

describe("the page's JSON-RPC client", () => {
  it("matches answers to requests in any order; an error answer rejects with its code and message", async () => {
    const { socket, peer, frames } = await connect();
    const a = socket.request("a", { x: 1 });
    const b = socket.request("b", {});
    await received(frames, 2);
    expect(frames.map((f) => [f["method"], f["params"]])).toEqual([
      ["a", { x: 1 }],
      ["b", {}],
    ]);
    send(peer, {
      id: frames[1]!["id"],
      error: { code: -32002, message: "no such session", data: { s: 1 } },
    });
    send(peer, { id: frames[0]!["id"], result: { ok: true } });
    await expect(a).resolves.toEqual({ ok: true });
    const error = (await b.catch((e: unknown) => e)) as RpcError;
    expect(error).toBeInstanceOf(RpcError);
    expect([error.code, error.message, error.data]).toEqual([
      -32002,
      "no such session",
      { s: 1 },
    ]);
  });

  it("holds the hub's notifications and requests until the handlers attach, then hands them over in order", async () => {
    const { socket, peer, frames } = await connect();
    send(peer, { method: "first", params: { n: 1 } });
    send(peer, { id: 7, method: "ask", params: { n: 2 } });
    send(peer, { method: "third", params: { n: 3 } });
    // Answers are not held: a request made meanwhile completes.
    const pong = socket.request("ping", {});
    await received(frames, 1);
    send(peer, { id: frames[0]!["id"], result: "pong" });
    await expect(pong).resolves.toBe("pong");
    const seen: string[] = [];
    socket.attach({
      notification: (method, params) => seen.push(`${method} ${params["n"]}`),
      request: (method, params) => {
        seen.push(`${method} ${params["n"]}`);
        return Promise.resolve({ answered: params["n"] });
      },
    });
    expect(seen).toEqual(["first 1", "ask 2", "third 3"]);
    await received(frames, 2);
    expect(frames[1]).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { answered: 2 },
    });
  });

  it("refuses a request its handler fails with the handler's code; $/cancel_request aborts a question", async () => {
    const { socket, peer, frames } = await connect();
    let signal: AbortSignal | undefined;
    socket.attach({
      notification: () => undefined,
      request: (method, _params, s) => {
        if (method !== "question")
          return Promise.reject(
            new RpcError(-32601, `"Method not found": ${method}`),
          );
        signal = s;
        return new Promise((resolve) =>
          s.addEventListener("abort", () => resolve({ outcome: "cancelled" })),
        );
      },
    });
    send(peer, { id: 1, method: "fs/read_text_file", params: {} });
    send(peer, { id: 2, method: "question", params: {} });
    await received(frames, 1);
    expect(frames[0]).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32601, message: '"Method not found": fs/read_text_file' },
    });
    expect(signal?.aborted).toBe(false);
    send(peer, { method: "$/cancel_request", params: { requestId: 2 } });
    await received(frames, 2);
    expect(signal?.aborted).toBe(true);
    expect(frames[1]).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { outcome: "cancelled" },
    });
  });

  it("a dropped connection fails the requests still waiting and settles `closed`; a request after it fails at once", async () => {
    const { socket, peer, frames } = await connect();
    const waiting = socket.request("slow", {});
    await received(frames, 1);
    peer.terminate();
    await expect(waiting).rejects.toThrow(/closed/);
    await socket.closed;
    await expect(socket.request("late", {})).rejects.toThrow(/closed/);
  });

  it("rejects the dial when nothing listens", async () => {
    await expect(RpcSocket.open("ws://127.0.0.1:1")).rejects.toThrow(
      /could not be opened/,
    );
  });
});
