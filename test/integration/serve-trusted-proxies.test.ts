// Issue 38 (follow-up): behind a reverse proxy every client reaches acphub from the proxy's
// address. With serve.trustedProxies naming the proxy (here 127.0.0.1, the "proxy" being this
// test sending raw HTTP as nginx would), each client is the address X-Forwarded-For (or
// Forwarded) names: its own failed-login lock-out, its own share of the unauthenticated-socket
// bound, its address in the audit log and the log, its scheme and port for the login cookie. A
// peer not in the list (127.0.0.2, another loopback address) that sends the same headers is
// counted by its real address: no client can choose its own.
import { request } from "node:http";
import { writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { until } from "../helpers/hub.js";
import { tempDir } from "../helpers/mock.js";
import { teamFixture, type TeamHub } from "../helpers/team.js";
import type { Answer } from "../helpers/web-login.js";

const fx = teamFixture();
const open: Socket[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) s.destroy();
  await fx.cleanup();
});

const PROXY = "127.0.0.1";
const STRANGER = "127.0.0.2";

// One HTTP request to the hub from a chosen local address (the "proxy" or a stranger).
function from(
  localAddress: string,
  team: TeamHub,
  path: string,
  headers: Record<string, string>,
  method = "GET",
  body?: string,
): Promise<Answer> {
  const { hostname, port } = new URL(team.h.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, path, method, headers, localAddress, agent: false },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

// A wrong bearer token on /acp from `localAddress`, the forwarded headers as given: the status.
const wrongToken = (
  localAddress: string,
  team: TeamHub,
  forwarded: Record<string, string>,
) =>
  from(localAddress, team, "/acp", {
    Authorization: "Bearer not-the-token",
    ...forwarded,
  }).then((a) => a.status);

describe("acphub serve behind trusted proxies", { timeout: 120_000 }, () => {
  it("refuses to start with an entry that is no address or range: one line, exit 2", async () => {
    const home = tempDir();
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ serve: { trustedProxies: ["127.0.0.1", "nginx"] } }),
    );
    const r = await runCli(["serve", "--port", "0"], { home });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^acphub: config file .*: serve\.trustedProxies\.1: "nginx" is not an IP address or CIDR range/,
      ),
    ]);
  });

  it("locks out the forwarded client, not the proxy, and never a spoofed address", async () => {
    const team = await fx.start(
      {},
      {
        serve: {
          trustedProxies: [PROXY],
          maxFailedAuth: 2,
          authBackoffMs: 600_000,
        },
      },
    );
    const xff = (a: string) => ({ "X-Forwarded-For": a });
    // One person's typos through the proxy lock out their own address only.
    expect(await wrongToken(PROXY, team, xff("10.0.0.1"))).toBe(401);
    expect(await wrongToken(PROXY, team, xff("10.0.0.1"))).toBe(401);
    expect(await wrongToken(PROXY, team, xff("10.0.0.1"))).toBe(429);
    expect(await wrongToken(PROXY, team, xff("10.0.0.2"))).toBe(401);
    // The standard header names the same client; the right-most untrusted address is the
    // client (one the client wrote itself, further left, is not believed).
    expect(
      await wrongToken(PROXY, team, { Forwarded: 'for="10.0.0.1:5123"' }),
    ).toBe(429);
    expect(await wrongToken(PROXY, team, xff("10.0.0.1, 10.0.0.3"))).toBe(401);
    await until(() =>
      /too many wrong credentials[^\n]*10\.0\.0\.1|10\.0\.0\.1[^\n]*too many wrong credentials/.test(
        team.h.stderr(),
      ),
    );
    expect(team.h.stderr()).not.toMatch(
      /"address":"127\.0\.0\.1"[^\n]*too many wrong credentials/,
    );

    // A stranger's X-Forwarded-For is ignored: all its wrong tokens count against 127.0.0.2,
    // whichever address it claims, and it cannot lock anyone else out either.
    expect(await wrongToken(STRANGER, team, xff("10.0.0.7"))).toBe(401);
    expect(await wrongToken(STRANGER, team, xff("10.0.0.8"))).toBe(401);
    expect(await wrongToken(STRANGER, team, xff("10.0.0.9"))).toBe(429);
    expect(await wrongToken(PROXY, team, xff("10.0.0.7"))).toBe(401);
  });

  it("bounds unauthenticated sockets per forwarded client, and a stranger's by its own address", async () => {
    const team = await fx.start(
      {},
      {
        serve: {
          trustedProxies: [PROXY],
          maxUnauthenticatedPerAddress: 1,
          // Long enough that only the per-address bound closes a socket in this test.
          handshakeTimeoutMs: 600_000,
        },
      },
    );
    // A login post whose body is still coming: its socket stays unauthenticated. `100 Continue`
    // tells that the hub has read its headers (and so knows its client).
    const slowPost = async (localAddress: string, client: string) => {
      const s = await socketFrom(team, localAddress);
      const closed = new Promise<void>((r) => s.once("close", () => r()));
      let answer = "";
      s.on("data", (d: Buffer) => (answer += d.toString()));
      s.write(
        `POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: ${client}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n`,
      );
      await until(() => answer.includes("100 Continue") || s.destroyed);
      return { s, closed, answer: () => answer };
    };
    const a = await slowPost(PROXY, "10.0.0.1");
    const b = await slowPost(PROXY, "10.0.0.2");
    const c = await slowPost(PROXY, "10.0.0.1");
    // The second socket of 10.0.0.1 makes room by closing its first; 10.0.0.2's stays open and
    // is answered once its body is there (a post not from the login page: 403).
    await a.closed;
    expect(b.s.destroyed).toBe(false);
    b.s.write("code=x&n=y");
    await until(() => / 403 /.test(b.answer()));
    expect(c.s.destroyed).toBe(false);

    // From a peer that is no trusted proxy, the header changes nothing: one address, one socket.
    const d = await slowPost(STRANGER, "10.0.0.5");
    await slowPost(STRANGER, "10.0.0.6");
    await d.closed;
  });

  it("records the forwarded address in the audit log and makes the cookie for the browser's scheme and port", async () => {
    const team = await fx.start(
      { alice: "member" },
      { serve: { trustedProxies: [PROXY] } },
    );
    const origin = new URL(team.h.url).origin;
    const hubPort = new URL(team.h.url).port;
    // Through the proxy (HTTPS on port 8443 to the browser) and then straight from a stranger
    // claiming the same.
    const claims = {
      "X-Forwarded-For": "10.4.4.4",
      "X-Forwarded-Proto": "https",
      "X-Forwarded-Host": "hub.example.com:8443",
    };
    const viaProxy = await login(team, PROXY, claims, origin);
    expect(viaProxy).toMatch(/^acphub_session_8443=[^;]+;.*; Secure$/);
    const direct = await login(team, STRANGER, claims, origin);
    expect(direct).toMatch(new RegExp(`^acphub_session_${hubPort}=`));
    expect(direct).not.toMatch(/Secure/);

    const entries = JSON.parse(
      (await runCli(["audit", "--json"], { home: team.home })).stdout,
    ) as { user: string; action: string; detail: { address?: string } }[];
    const logins = entries.filter((e) => e.action === "login");
    expect(logins.map((e) => e.detail.address).sort()).toEqual([
      "10.4.4.4",
      STRANGER,
    ]);
  });
});

// A raw TCP socket to the hub from a chosen local address.
function socketFrom(team: TeamHub, localAddress: string): Promise<Socket> {
  const { hostname, port } = new URL(team.h.url);
  return new Promise((resolve, reject) => {
    const s = connect({ port: Number(port), host: hostname, localAddress });
    s.once("connect", () => resolve(s));
    s.once("error", reject);
    s.on("error", () => undefined);
    open.push(s);
  });
}

// Logs alice in with a fresh login link, every request from `localAddress` with `headers`: the
// session cookie's Set-Cookie line.
async function login(
  team: TeamHub,
  localAddress: string,
  headers: Record<string, string>,
  origin: string,
): Promise<string> {
  const link = (
    await runCli(["users", "login-link", "alice"], { home: team.home })
  ).stdout.split("\n")[0]!;
  const path = new URL(link).pathname + new URL(link).search;
  const page = await from(localAddress, team, path, headers);
  expect(page.status).toBe(200);
  const nonce = [page.headers["set-cookie"] ?? []]
    .flat()
    .find((c) => /^acphub_login(_\d+)?=/.test(c))!
    .split(";")[0]!;
  const field = (name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`).exec(page.body)![1]!;
  const form = new URLSearchParams({
    code: field("code"),
    nonce: field("nonce"),
  });
  const answer = await from(
    localAddress,
    team,
    "/login",
    {
      ...headers,
      Origin: origin,
      Cookie: nonce,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    "POST",
    form.toString(),
  );
  expect(answer.status).toBe(303);
  return [answer.headers["set-cookie"] ?? []]
    .flat()
    .find((c) => /^acphub_session(_\d+)?=/.test(c))!;
}
