// What a reverse proxy in front of `acphub serve` must carry, checked the same way for each
// tested example (deploy-nginx, deploy-caddy): an ACP turn over WebSocket, Streamable HTTP's
// updates while the turn still runs, the page's login (a Secure cookie that works for the page's
// requests and its WebSocket), no client-named user, and with serve.trustedProxies on the
// proxy's address each client's own address (the audit's login, a lock-out of its own).
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { expect } from "vitest";
import WebSocket from "ws";
import { runCli } from "./cli.js";
import { connectClient, openSession, text, until } from "./hub.js";
import { steps, tempDir } from "./mock.js";
import { TEAM_WORK, type TeamHub } from "./team.js";
import { openLoginPage, postLogin, rawRequest } from "./web-login.js";

// A port free on 127.0.0.1 a moment ago (the proxy is given it by its config).
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

// Stops the proxies a test started, each waited for.
export async function stopAll(running: ChildProcess[]): Promise<void> {
  for (const proxy of running.splice(0)) {
    const gone = new Promise((r) => proxy.once("exit", r));
    proxy.kill("SIGTERM");
    await gone;
  }
}

// A documented example with this machine's values: each replaced line must be there as shown.
export function withSwaps(example: string, swaps: [string, string][]): string {
  let conf = example;
  for (const [from, to] of swaps) {
    expect(conf, from).toContain(from);
    conf = conf.replace(from, to);
  }
  return conf;
}

/** A team hub reached through a proxy at publicUrl (TLS trusted by ca), alice a member. */
export interface Proxied {
  name: string;
  team: TeamHub;
  publicUrl: string;
  ca: string;
}

/** The hub's config for checkThroughProxy: the proxy (on 127.0.0.1) trusted, two wrong tokens. */
export const proxiedConfig = (publicUrl: string) => ({
  serve: {
    publicUrl,
    trustedProxy: { addresses: ["127.0.0.1"] },
    trustedProxies: ["127.0.0.1"],
    maxFailedAuth: 2,
    authBackoffMs: 600_000,
  },
});

// Runs every check through the proxy, on a hub started with proxiedConfig.
export async function checkThroughProxy(p: Proxied): Promise<void> {
  const { name, team, publicUrl } = p;
  const cert = { ca: p.ca };
  const acpUrl = `${publicUrl}/acp`;
  const alice = { acpUrl, token: team.tokens["alice"]!, ca: cert.ca };

  // ACP over WebSocket (wss:// to the proxy, ws:// to acphub): a new session and a turn.
  const ws = connectClient(alice, "ws");
  const wsSession = await openSession(ws, TEAM_WORK);
  const wsTurn = await ws.agent.request<{ stopReason: string }>(
    "session/prompt",
    {
      sessionId: wsSession,
      prompt: text(steps({ text: `through ${name} over wss` })),
    },
  );
  expect(wsTurn.stopReason).toBe("end_turn");
  expect(JSON.stringify(ws.updates(wsSession))).toContain(
    `through ${name} over wss`,
  );
  ws.close();

  // Streamable HTTP: the first update arrives while the turn still waits (nothing buffered).
  const http = connectClient(alice, "http");
  const httpSession = await openSession(http, TEAM_WORK);
  const gate = join(tempDir(), "go");
  const turn = http.agent.request<{ stopReason: string }>("session/prompt", {
    sessionId: httpSession,
    prompt: text(
      steps(
        { text: "streamed first" },
        { waitFile: gate },
        { text: "then the rest" },
      ),
    ),
  });
  await until(() =>
    JSON.stringify(http.updates(httpSession)).includes("streamed first"),
  );
  expect(JSON.stringify(http.updates(httpSession))).not.toContain(
    "then the rest",
  );
  writeFileSync(gate, "");
  expect((await turn).stopReason).toBe("end_turn");
  expect(JSON.stringify(http.updates(httpSession))).toContain("then the rest");
  http.close();

  // The page's login: the link names the public URL; the cookie is Secure and works through
  // the proxy for the page's requests and its WebSocket (Origin: the public origin).
  const link = (
    await runCli(["users", "login-link", "alice"], { home: team.home })
  ).stdout;
  expect(link.startsWith(`${publicUrl}/login?code=`)).toBe(true);
  const loginUrl = link.split("\n")[0]!;
  const { page, nonceCookie, form } = await openLoginPage(loginUrl, cert.ca);
  expect(page.status).toBe(200);
  // Client and proxy share 127.0.0.1 here, so the test plays a client elsewhere by sending
  // the X-Forwarded-For the proxy appends its peer to (in production: the client's own).
  const answer = await postLogin(
    loginUrl,
    form!,
    { Cookie: nonceCookie!, "X-Forwarded-For": "10.1.1.1" },
    cert.ca,
  );
  expect(answer.status).toBe(303);
  const setCookie = [answer.headers["set-cookie"] ?? []]
    .flat()
    .find((c) => /^acphub_session(_\d+)?=/.test(c))!;
  expect(setCookie).toMatch(/; Secure/);
  const cookie = setCookie.split(";")[0]!;
  const auth = await rawRequest(
    `${publicUrl}/auth`,
    "GET",
    { Cookie: cookie },
    undefined,
    cert.ca,
  );
  expect(auth.status).toBe(204);
  const who = await whoamiWithCookie(
    acpUrl.replace(/^https/, "wss"),
    cookie,
    publicUrl,
    cert.ca,
  );
  expect(who).toEqual({ name: "alice", role: "member" });

  // A client naming a user itself gets nowhere: the proxy clears the header acphub would trust.
  const forged = await rawRequest(
    acpUrl,
    "POST",
    {
      "X-Forwarded-User": "alice",
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    }),
    cert.ca,
  );
  expect(forged.status).toBe(401);

  // The audit's login names the client the proxy forwarded, not the proxy.
  const audit = JSON.parse(
    (await runCli(["audit", "--json"], { home: team.home })).stdout,
  ) as { action: string; detail: { address?: string } }[];
  expect(
    audit.filter((e) => e.action === "login").map((e) => e.detail.address),
  ).toEqual(["10.1.1.1"]);

  // One client's wrong tokens lock out that client only; another through the proxy still gets
  // its plain 401 (without serve.trustedProxies both are 127.0.0.1, and the second gets 429).
  const wrong = (client: string) =>
    rawRequest(
      acpUrl,
      "POST",
      { Authorization: "Bearer wrong", "X-Forwarded-For": client },
      "{}",
      cert.ca,
    ).then((a) => a.status);
  expect(await wrong("10.2.0.1")).toBe(401);
  expect(await wrong("10.2.0.1")).toBe(401);
  expect(await wrong("10.2.0.1")).toBe(429);
  expect(await wrong("10.2.0.2")).toBe(401);
}

// The page's WebSocket: its login cookie and its origin, then who the hub says it is.
async function whoamiWithCookie(
  url: string,
  cookie: string,
  origin: string,
  ca: string,
): Promise<unknown> {
  const socket = new WebSocket(url, {
    headers: { Cookie: cookie, Origin: origin },
    ca,
  });
  try {
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const answers = new Map<number, Record<string, unknown>>();
    socket.on("message", (data) => {
      const m = JSON.parse(String(data)) as { id?: number };
      if (typeof m.id === "number")
        answers.set(m.id, m as Record<string, unknown>);
    });
    const send = (id: number, method: string, params: unknown) =>
      socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    send(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
    await until(() => answers.has(1));
    send(2, "_acphub/whoami", {});
    await until(() => answers.has(2));
    return answers.get(2)!["result"];
  } finally {
    socket.close();
  }
}
