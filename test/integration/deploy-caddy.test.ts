// Issue 38: the Caddy example docs/deploy.md quotes (deploy/Caddyfile), run for real as a plain
// process in front of `acphub serve` as the nginx one is (deploy-nginx.test.ts): TLS ends at
// Caddy, and through it an ACP turn over WebSocket, Streamable HTTP's updates while the turn
// still runs, the page's login (cookie `Secure`), no client-named user, and with
// serve.trustedProxies each client's own address (audit, lock-out). caddy is a test dependency
// (scripts/system-deps.mjs).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { connectClient, openSession, text, until } from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { TEAM_WORK, teamFixture } from "../helpers/team.js";
import { makeCert, type TestCert } from "../helpers/tls.js";
import { openLoginPage, postLogin, rawRequest } from "../helpers/web-login.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const EXAMPLE = readFileSync(join(ROOT, "deploy/Caddyfile"), "utf8");
const CADDY = ["/usr/bin/caddy", "/usr/sbin/caddy"].find(existsSync);

const fx = teamFixture();
const running: ChildProcess[] = [];
afterEach(async () => {
  for (const caddy of running.splice(0)) {
    const gone = new Promise((r) => caddy.once("exit", r));
    caddy.kill("SIGTERM");
    await gone;
  }
  await fx.cleanup();
});

// A port free on 127.0.0.1 a moment ago (Caddy is given it by its config).
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

// The example with this machine's values (each replaced line must be there as the docs show).
// The test client stands for a proxy in front of Caddy, so Caddy passes on the X-Forwarded-For
// it sends (client and Caddy share 127.0.0.1 here; in production Caddy writes the client's own).
function exampleFor(port: number, hubPort: number, cert: TestCert): string {
  const swaps: [string, string][] = [
    ["hub.example.com {", `https://127.0.0.1:${port} {`],
    [
      "reverse_proxy 127.0.0.1:8787 {",
      `reverse_proxy 127.0.0.1:${hubPort} {\n\t\ttrusted_proxies 127.0.0.1/32`,
    ],
    ["/etc/ssl/acphub/fullchain.pem", cert.certFile],
    ["/etc/ssl/acphub/privkey.pem", cert.keyFile],
  ];
  let conf = EXAMPLE;
  for (const [from, to] of swaps) {
    expect(conf, from).toContain(from);
    conf = conf.replace(from, to);
  }
  return conf;
}

// Caddy in the foreground with its files under `prefix`: no admin endpoint, no port-80 redirect.
async function startCaddy(
  prefix: string,
  site: string,
  port: number,
  ca: string,
) {
  if (!CADDY)
    throw new Error(
      "caddy is not installed: run `sudo apt-get install -y caddy` (npm test installs it as root)",
    );
  writeFileSync(join(prefix, "site.caddy"), site);
  writeFileSync(
    join(prefix, "Caddyfile"),
    `{\n\tadmin off\n\tauto_https disable_redirects\n\tstorage file_system ${prefix}/data\n}\nimport ${prefix}/site.caddy\n`,
  );
  const caddy = spawn(
    CADDY,
    ["run", "--config", join(prefix, "Caddyfile"), "--adapter", "caddyfile"],
    {
      stdio: ["ignore", "ignore", "pipe"],
      env: {
        PATH: process.env["PATH"] ?? "",
        HOME: prefix,
        XDG_DATA_HOME: join(prefix, "xdg-data"),
        XDG_CONFIG_HOME: join(prefix, "xdg-config"),
      },
    },
  );
  running.push(caddy);
  let stderr = "";
  caddy.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  let exited = false;
  caddy.once("exit", () => (exited = true));
  // Listening once a TLS request reaches the hub through it (bounded by the test's timeout).
  await until(async () => {
    if (exited) throw new Error(`caddy exited: ${stderr}`);
    return rawRequest(
      `https://127.0.0.1:${port}/healthz`,
      "GET",
      {},
      undefined,
      ca,
    )
      .then((a) => a.status === 200)
      .catch(() => false);
  });
}

it("docs/deploy.md quotes the Caddy example whole", () => {
  const doc = readFileSync(join(ROOT, "docs/deploy.md"), "utf8");
  expect(doc).toContain(`\`\`\`caddyfile\n${EXAMPLE}\`\`\``);
});

describe("acphub behind Caddy (deploy/Caddyfile)", { timeout: 120_000 }, () => {
  it("carries WebSocket, Streamable HTTP and the page's login over TLS, with each client's address", async () => {
    const prefix = tempDir("acphub-caddy-");
    const cert = makeCert(prefix);
    const port = await freePort();
    const publicUrl = `https://127.0.0.1:${port}`;
    const team = await fx.start(
      { alice: "member" },
      {
        serve: {
          publicUrl,
          trustedProxy: { addresses: ["127.0.0.1"] },
          trustedProxies: ["127.0.0.1"],
          maxFailedAuth: 2,
          authBackoffMs: 600_000,
        },
      },
    );
    const hubPort = Number(new URL(team.h.url).port);
    await startCaddy(prefix, exampleFor(port, hubPort, cert), port, cert.ca);
    const acpUrl = `${publicUrl}/acp`;
    const alice = { acpUrl, token: team.tokens["alice"]!, ca: cert.ca };

    // ACP over WebSocket (wss:// to Caddy, ws:// to acphub): a new session and a turn.
    const ws = connectClient(alice, "ws");
    const wsSession = await openSession(ws, TEAM_WORK);
    const wsTurn = await ws.agent.request<{ stopReason: string }>(
      "session/prompt",
      {
        sessionId: wsSession,
        prompt: text(steps({ text: "through caddy over wss" })),
      },
    );
    expect(wsTurn.stopReason).toBe("end_turn");
    expect(JSON.stringify(ws.updates(wsSession))).toContain(
      "through caddy over wss",
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
    http.close();

    // The page's login through Caddy: a Secure cookie that works for the page's requests.
    const loginUrl = (
      await runCli(["users", "login-link", "alice"], { home: team.home })
    ).stdout.split("\n")[0]!;
    expect(loginUrl.startsWith(`${publicUrl}/login?code=`)).toBe(true);
    const { page, nonceCookie, form } = await openLoginPage(loginUrl, cert.ca);
    expect(page.status).toBe(200);
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
    const auth = await rawRequest(
      `${publicUrl}/auth`,
      "GET",
      { Cookie: setCookie.split(";")[0]! },
      undefined,
      cert.ca,
    );
    expect(auth.status).toBe(204);

    // A client naming a user itself gets nowhere: Caddy drops the header acphub would trust.
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

    // The audit's login names the forwarded client; one client's wrong tokens lock out only it.
    const audit = JSON.parse(
      (await runCli(["audit", "--json"], { home: team.home })).stdout,
    ) as { action: string; detail: { address?: string } }[];
    expect(
      audit.filter((e) => e.action === "login").map((e) => e.detail.address),
    ).toEqual(["10.1.1.1"]);
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
  });
});
