// Issue 34, item 12, with real sockets on 127.0.0.1 and small bounds: credential-less and
// half-open sockets never keep the right token out (capped per address, the oldest closed, each
// closed at its handshake deadline), one member's WebSockets stop at serve.maxConnectionsPerUser,
// and the last serve.adminConnections slots are the admins' own.
import { connect, type Socket } from "node:net";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { teamFixture, type TeamHub } from "../helpers/team.js";

const fx = teamFixture();
const open: (WebSocket | Socket)[] = [];
afterEach(async () => {
  for (const s of open.splice(0))
    if (s instanceof WebSocket) s.terminate();
    else s.destroy();
  await fx.cleanup();
});

const CAPS = {
  maxConnections: 6,
  maxConnectionsPerUser: 2,
  adminConnections: 2,
  maxUnauthenticatedPerAddress: 8,
  maxUnauthenticated: 16,
  handshakeTimeoutMs: 1_500,
};

// A WebSocket to /acp as a user, kept open: "open", or the refused upgrade's status and text.
function socketAs(
  team: TeamHub,
  user: string,
): Promise<"open" | { status: number; body: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(team.h.acpUrl.replace(/^http/, "ws"), {
      headers: { Authorization: `Bearer ${team.tokens[user]}` },
    });
    open.push(ws);
    ws.on("open", () => resolve("open"));
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on("error", (error) => resolve({ status: -1, body: String(error) }));
  });
}

// A raw TCP socket that connects and then sends `bytes` (nothing: half-open) and no more.
function idleSocket(team: TeamHub, bytes: string): Promise<Socket> {
  const { hostname, port } = new URL(team.h.url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => {
      if (bytes) s.write(bytes);
      resolve(s);
    });
    s.on("error", () => undefined);
    s.once("error", reject);
    open.push(s);
  });
}

describe("acphub serve: connection bounds", { timeout: 120_000 }, () => {
  it("many credential-less and half-open sockets from one address neither keep the token out nor stay open past the handshake deadline", async () => {
    const team = await fx.start({ alice: "member" }, { serve: CAPS });
    const flood: Socket[] = [];
    // 520 as in the report: silent sockets, and ones stuck in their request headers.
    for (let i = 0; i < 520; i++)
      flood.push(
        await idleSocket(
          team,
          i % 2 ? "" : "GET /acp HTTP/1.1\r\nHost: x\r\nX-Slow: ",
        ),
      );
    expect(await socketAs(team, "admin")).toBe("open");
    expect(await socketAs(team, "alice")).toBe("open");
    // Every flooding socket is closed: the oldest to make room, the rest at the deadline.
    await Promise.all(
      flood.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (s.destroyed || s.readyState === "closed") return resolve();
            s.once("close", () => resolve());
          }),
      ),
    );
    // The authenticated ones are still there.
    expect(await socketAs(team, "admin")).toBe("open");
  });

  it("one member's sockets stop at maxConnectionsPerUser, members at the admins' slots, admins at maxConnections", async () => {
    const team = await fx.start(
      { alice: "member", bob: "member", carol: "viewer" },
      { serve: CAPS },
    );
    const alices = [];
    for (let i = 0; i < 10; i++) alices.push(await socketAs(team, "alice"));
    expect(alices.filter((a) => a === "open")).toHaveLength(2);
    expect(alices[2]).toEqual({
      status: 503,
      body: "too many connections for user alice (serve.maxConnectionsPerUser: 2)",
    });
    expect(await socketAs(team, "bob")).toBe("open");
    expect(await socketAs(team, "bob")).toBe("open");
    // 4 open: the last 2 of 6 are kept for admins.
    expect(await socketAs(team, "carol")).toEqual({
      status: 503,
      body: "too many connections (the last 2 are kept for admins)",
    });
    expect(await socketAs(team, "admin")).toBe("open");
    expect(await socketAs(team, "admin")).toBe("open");
    expect(await socketAs(team, "admin")).toEqual({
      status: 503,
      body: "too many connections",
    });
  });
});
