// Attacks on `acphub serve` (127.0.0.1 only, every loop bounded): each asserts the status the
// hub answers and that nothing ran behind it (no agent spawned, no session recorded).
import { request } from "node:http";
import { connect as tcpConnect } from "node:net";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import {
  hubFixture,
  processesWith,
  until,
  type RunningHub,
} from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {} },
};
const fx = hubFixture();
afterEach(() => fx.cleanup());
const hub = fx.start;

interface Answer {
  status: number;
  body: string;
}

// One raw HTTP request, with whatever headers and body the attacker chooses.
function post(
  url: string,
  headers: Record<string, string>,
  body: string | Buffer,
  method = "POST",
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: { "Content-Type": "application/json", ...headers } },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: text }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

// A WebSocket upgrade: the status it was refused with, or 101.
function upgrade(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; ws?: WebSocket }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url.replace(/^http/, "ws"), { headers });
    ws.on("unexpected-response", (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
    });
    ws.on("open", () => resolve({ status: 101, ws }));
    ws.on("error", () => undefined);
  });
}

const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const oneCharOff = (t: string) =>
  `${t.slice(0, -1)}${t.endsWith("A") ? "B" : "A"}`;

describe("acphub serve refuses what it must", () => {
  it("no token, a wrong token, a token one character off: 401 on POST and on upgrade; nothing ran", async () => {
    const { h, marker } = await hub();
    const body = JSON.stringify(INIT);
    for (const headers of [
      {},
      bearer("x".repeat(43)),
      bearer(oneCharOff(h.token)),
    ]) {
      expect((await post(h.acpUrl, headers, body)).status).toBe(401);
      expect((await upgrade(h.acpUrl, headers)).status).toBe(401);
    }
    expect(
      (await post(h.acpUrl, { Authorization: h.token }, body)).status,
    ).toBe(401);
    expect(processesWith(marker)).toEqual([]);
    const ok = await post(h.acpUrl, bearer(h.token), body);
    expect(ok.status).toBe(200);
  });

  it("cross-origin POST and WebSocket upgrade: 403 before any ACP processing; own origin passes", async () => {
    const { h, marker } = await hub();
    const evil = { ...bearer(h.token), Origin: "https://evil.example" };
    expect((await post(h.acpUrl, evil, JSON.stringify(INIT))).status).toBe(403);
    expect((await upgrade(h.acpUrl, evil)).status).toBe(403);
    const rebinding = {
      ...bearer(h.token),
      Origin: h.url.replace("127.0.0.1", "evil.example"),
      Host: h.url.replace("http://", "").replace("127.0.0.1", "evil.example"),
    };
    expect((await upgrade(h.acpUrl, rebinding)).status).toBe(403);
    expect(processesWith(marker)).toEqual([]);
    const own = await upgrade(h.acpUrl, { ...bearer(h.token), Origin: h.url });
    expect(own.status).toBe(101);
    own.ws!.close();
  });

  it("oversized body (413) and frame (closed 1009); malformed JSON (400 / parse error); nothing ran", async () => {
    const { h, marker } = await hub({
      maxBodyBytes: 64 * 1024,
      maxFrameBytes: 64 * 1024,
    });
    const big = JSON.stringify({
      ...INIT,
      params: { ...INIT.params, pad: "x".repeat(200_000) },
    });
    expect((await post(h.acpUrl, bearer(h.token), big)).status).toBe(413);
    expect((await post(h.acpUrl, bearer(h.token), "{not json")).status).toBe(
      400,
    );
    const { ws } = await upgrade(h.acpUrl, bearer(h.token));
    const replies: string[] = [];
    ws!.on("message", (d: Buffer) => replies.push(d.toString()));
    ws!.send("{not json");
    await until(() => replies.length > 0);
    expect(JSON.parse(replies[0]!)).toMatchObject({ error: { code: -32700 } });
    const closed = new Promise<number>((r) =>
      ws!.on("close", (code) => r(code)),
    );
    ws!.send(big);
    expect(await closed).toBe(1009);
    expect(processesWith(marker)).toEqual([]);
  });

  it("a request for another connection's id or session: refused, and the turn never ran", async () => {
    const { h, home } = await hub();
    const forged = await post(
      h.acpUrl,
      {
        ...bearer(h.token),
        "Acp-Connection-Id": "0b7e5d1a-0000-4000-8000-000000000000",
      },
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "session/list",
        params: {},
      }),
    );
    expect(forged.status).toBe(404);
    const owner = fx.connect(h, "ws");
    const other = fx.connect(h, "ws");
    await owner.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const { sessionId } = await owner.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: home, mcpServers: [] },
    );
    await other.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const error = await other.agent
      .request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: steps({ text: "SHOULD-NOT-RUN" }) }],
      })
      .catch((e: { code: number; message: string }) => e);
    expect(error).toMatchObject({ code: -32002 });
    expect((error as { message: string }).message).toMatch(
      /not open on this connection/,
    );
    const listed = await runCli(["sessions", "show", sessionId, "--json"], {
      home,
    });
    expect(listed.stdout).not.toContain("SHOULD-NOT-RUN");
  });

  it("1,000 wrong tokens in a bounded loop: 429 from the limit on, yet the right token is accepted", async () => {
    const { h } = await hub({
      maxFailedAuth: 20,
      authBackoffMs: 60_000,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 1000; i++)
      statuses.push(
        (await post(h.acpUrl, bearer(`guess-${i}-${"x".repeat(30)}`), "{}"))
          .status,
      );
    expect(statuses.slice(0, 19).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    const right = await post(h.acpUrl, bearer(h.token), JSON.stringify(INIT));
    expect(right.status).toBe(200);
    const ws = await upgrade(h.acpUrl, bearer(h.token));
    expect(ws.status).toBe(101);
    ws.ws?.close();
    const port = new URL(h.url).port;
    const wrongCookie = {
      Cookie: `acphub_session_${port}=forged-cookie-value`,
    };
    expect(
      (await post(`${h.url}/metrics`, wrongCookie, "", "GET")).status,
    ).toBe(429);
  });

  it("100 credential-less requests (page, /metrics, upgrade) never lock out the right token", async () => {
    const { h } = await hub({ maxFailedAuth: 5, authBackoffMs: 60_000 });
    const statuses = new Set<number>();
    for (let i = 0; i < 34; i++) {
      statuses.add((await post(`${h.url}/`, {}, "", "GET")).status);
      statuses.add((await post(`${h.url}/metrics`, {}, "", "GET")).status);
      statuses.add((await upgrade(h.acpUrl, {})).status);
    }
    expect([...statuses]).toEqual([401]);
    expect(
      (await post(`${h.url}/metrics`, bearer(h.token), "", "GET")).status,
    ).toBe(200);
    const ws = await upgrade(h.acpUrl, bearer(h.token));
    expect(ws.status).toBe(101);
    ws.ws?.close();
    // Wrong tokens still count and back off.
    const wrong: number[] = [];
    for (let i = 0; i < 6; i++)
      wrong.push(
        (await post(h.acpUrl, bearer(`wrong-${"y".repeat(30)}`), "{}")).status,
      );
    expect(wrong).toEqual([401, 401, 401, 401, 401, 429]);
    expect(
      (await post(h.acpUrl, bearer(h.token), JSON.stringify(INIT))).status,
    ).toBe(200);
  });

  it("a half-open connection that never sends headers is dropped after the headers timeout", async () => {
    const { h } = await hub({ headersTimeoutMs: 500 });
    const { port } = new URL(h.url);
    const socket = tcpConnect(Number(port), "127.0.0.1");
    socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"); // never finishes the headers
    let answer = "";
    socket.on("data", (d: Buffer) => (answer += d.toString()));
    await new Promise((r) => socket.on("close", r));
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it("past the connection bound a new connection gets 503", async () => {
    const { h } = await hub({ maxConnections: 2 });
    const first = await upgrade(h.acpUrl, bearer(h.token));
    const second = await upgrade(h.acpUrl, bearer(h.token));
    expect([first.status, second.status]).toEqual([101, 101]);
    await until(() => true);
    expect((await upgrade(h.acpUrl, bearer(h.token))).status).toBe(503);
    expect(
      (await post(h.acpUrl, bearer(h.token), JSON.stringify(INIT))).status,
    ).toBe(503);
    first.ws!.close();
    second.ws!.close();
  });

  it("a client that stops reading is disconnected with a reason; the turn goes on for everyone else", async () => {
    const scenario = join(tempDir(), "big.json");
    const big = { text: "y".repeat(8 * 1024 * 1000), chunks: 1000 };
    writeFileSync(scenario, JSON.stringify({ steps: [big, { text: "END" }] }));
    const { h, home } = await hub(
      { maxQueuedMessages: 50, maxBufferedBytes: 128 * 1024 },
      ["--scenario", scenario],
    );
    const { ws } = await upgrade(h.acpUrl, bearer(h.token));
    const replies: Record<string, unknown>[] = [];
    ws!.on("message", (d: Buffer) =>
      replies.push(JSON.parse(d.toString()) as Record<string, unknown>),
    );
    const send = (id: number, method: string, params: unknown) =>
      ws!.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    send(1, "initialize", INIT.params);
    send(2, "session/new", { cwd: home, mcpServers: [] });
    await until(() => replies.some((r) => r["id"] === 2));
    const sessionId = (
      replies.find((r) => r["id"] === 2)!["result"] as { sessionId: string }
    ).sessionId;
    const closed = new Promise<number>((r) =>
      ws!.on("close", (code) => r(code)),
    );
    const socket = (
      ws as unknown as { _socket: { pause(): void; resume(): void } }
    )._socket;
    socket.pause(); // stop reading
    send(3, "session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    await until(async () => (await gauge(h, "acphub_connections")) === 0);
    socket.resume();
    expect(await closed).toBeGreaterThan(1000);
    // The turn ends without its client. (A watcher attached while it still streamed would be
    // held to the same 50-message bound, and a loaded machine can make any reader that slow.)
    await until(
      async () =>
        (await gauge(h, 'acphub_turns_total{stop_reason="end_turn"}')) === 1,
    );
    const watcher = fx.connect(h, "ws");
    await watcher.agent.request("initialize", INIT.params);
    await watcher.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    const said = () =>
      watcher
        .updates(sessionId)
        .map((u) => JSON.stringify(u))
        .join("");
    await until(() => said().includes("END"));
    const other = await watcher.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: home, mcpServers: [] },
    );
    const done = await watcher.agent.request<{ stopReason: string }>(
      "session/prompt",
      {
        sessionId: other.sessionId,
        prompt: [{ type: "text", text: "again" }],
      },
    );
    expect(done.stopReason).toBe("end_turn");
  });

  it("refuses plain HTTP on a non-loopback address unless --allow-plain-http", async () => {
    const home = tempDir();
    writeFileSync(join(home, "config.json"), "{}");
    const result = await runCli(["serve", "--host", "0.0.0.0", "--port", "0"], {
      home,
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/refusing to serve plain HTTP on 0\.0\.0\.0/);
    expect(result.stdout).toBe("");
  });
});

// One metric's value from /metrics.
async function gauge(h: RunningHub, name: string): Promise<number> {
  const res = await fetch(`${h.url}/metrics`, { headers: bearer(h.token) });
  const line = (await res.text())
    .split("\n")
    .find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1]);
}
