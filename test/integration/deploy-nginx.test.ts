// Issue 38: the nginx example docs/deploy.md quotes (deploy/nginx-acphub.conf), run for real as a
// plain process (no service) in front of `acphub serve`: TLS ends at nginx, and through it an ACP
// session over WebSocket (new + prompt), Streamable HTTP with its updates relayed while the turn
// still runs (no buffering), and the page's login (its cookie `Secure` behind HTTPS) all work; a
// client's own X-Forwarded-User never reaches acphub; with serve.trustedProxies on nginx's address
// each client is the address nginx forwards (its own lock-out, the audit's login address). nginx is a test dependency
// (scripts/system-deps.mjs installs it as root, and stops a non-root run with the line to run).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { runCli } from "../helpers/cli.js";
import { connectClient, openSession, text, until } from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { TEAM_WORK, teamFixture } from "../helpers/team.js";
import { makeCert, type TestCert } from "../helpers/tls.js";
import { openLoginPage, postLogin, rawRequest } from "../helpers/web-login.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const EXAMPLE = readFileSync(join(ROOT, "deploy/nginx-acphub.conf"), "utf8");
const NGINX = ["/usr/sbin/nginx", "/usr/bin/nginx"].find(existsSync);

const fx = teamFixture();
const running: ChildProcess[] = [];
afterEach(async () => {
  for (const nginx of running.splice(0)) {
    const gone = new Promise((r) => nginx.once("exit", r));
    nginx.kill("SIGTERM");
    await gone;
  }
  await fx.cleanup();
});

// A port free on 127.0.0.1 a moment ago (nginx is given it by its config).
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

// The example with this machine's values: each replaced line must be there as docs/deploy.md shows.
function exampleFor(port: number, hubPort: number, cert: TestCert): string {
  const swaps: [string, string][] = [
    ["listen 443 ssl;", `listen 127.0.0.1:${port} ssl;`],
    ["server 127.0.0.1:8787;", `server 127.0.0.1:${hubPort};`],
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

// nginx in the foreground with its files under `prefix`, the example included in its http {}.
async function startNginx(prefix: string, site: string, port: number) {
  if (!NGINX)
    throw new Error(
      "nginx is not installed: run `sudo apt-get install -y nginx` (npm test installs it as root)",
    );
  writeFileSync(join(prefix, "acphub.conf"), site);
  const temp = ["body", "proxy", "fastcgi", "uwsgi", "scgi"];
  for (const t of temp) mkdirSync(join(prefix, t));
  const root = process.getuid?.() === 0;
  writeFileSync(
    join(prefix, "nginx.conf"),
    `${root ? "user root;\n" : ""}worker_processes 1;
events { worker_connections 256; }
http {
  access_log ${prefix}/access.log;
${temp.map((t) => `  ${t === "body" ? "client_body" : t}_temp_path ${prefix}/${t};`).join("\n")}
  include ${prefix}/acphub.conf;
}
`,
  );
  const nginx = spawn(
    NGINX,
    [
      "-p",
      prefix,
      "-c",
      join(prefix, "nginx.conf"),
      "-e",
      join(prefix, "error.log"),
      "-g",
      `daemon off; pid ${join(prefix, "nginx.pid")};`,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  running.push(nginx);
  let stderr = "";
  nginx.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  let exited = false;
  nginx.once("exit", () => (exited = true));
  // Listening once a TLS request reaches the hub through it (bounded by the test's timeout).
  await until(async () => {
    if (exited) throw new Error(`nginx exited: ${stderr}`);
    return rawRequest(
      `https://127.0.0.1:${port}/healthz`,
      "GET",
      {},
      undefined,
      readCa(prefix),
    )
      .then((a) => a.status === 200)
      .catch(() => false);
  });
}

const readCa = (prefix: string) =>
  readFileSync(join(prefix, "cert.pem"), "utf8");

it("docs/deploy.md quotes the example whole", () => {
  const doc = readFileSync(join(ROOT, "docs/deploy.md"), "utf8");
  expect(doc).toContain(`\`\`\`nginx\n${EXAMPLE}\`\`\``);
});

describe(
  "acphub behind nginx (deploy/nginx-acphub.conf)",
  { timeout: 120_000 },
  () => {
    it("carries WebSocket, Streamable HTTP and the page's login over TLS", async () => {
      const prefix = tempDir("acphub-nginx-");
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
      await startNginx(prefix, exampleFor(port, hubPort, cert), port);
      const acpUrl = `${publicUrl}/acp`;
      const alice = { acpUrl, token: team.tokens["alice"]!, ca: cert.ca };

      // ACP over WebSocket (wss:// to nginx, ws:// to acphub): a new session and a turn.
      const ws = connectClient(alice, "ws");
      const wsSession = await openSession(ws, TEAM_WORK);
      const wsTurn = await ws.agent.request<{ stopReason: string }>(
        "session/prompt",
        {
          sessionId: wsSession,
          prompt: text(steps({ text: "through nginx over wss" })),
        },
      );
      expect(wsTurn.stopReason).toBe("end_turn");
      expect(JSON.stringify(ws.updates(wsSession))).toContain(
        "through nginx over wss",
      );
      ws.close();

      // Streamable HTTP: the first update arrives while the turn still waits (nothing buffered).
      const http = connectClient(alice, "http");
      const httpSession = await openSession(http, TEAM_WORK);
      const gate = join(tempDir(), "go");
      const turn = http.agent.request<{ stopReason: string }>(
        "session/prompt",
        {
          sessionId: httpSession,
          prompt: text(
            steps(
              { text: "streamed first" },
              { waitFile: gate },
              { text: "then the rest" },
            ),
          ),
        },
      );
      await until(() =>
        JSON.stringify(http.updates(httpSession)).includes("streamed first"),
      );
      expect(JSON.stringify(http.updates(httpSession))).not.toContain(
        "then the rest",
      );
      writeFileSync(gate, "");
      expect((await turn).stopReason).toBe("end_turn");
      expect(JSON.stringify(http.updates(httpSession))).toContain(
        "then the rest",
      );
      http.close();

      // The page's login: the link names the public URL; the cookie is Secure and works through
      // nginx for the page's requests and its WebSocket (Origin: the public origin).
      const link = (
        await runCli(["users", "login-link", "alice"], { home: team.home })
      ).stdout;
      expect(link.startsWith(`${publicUrl}/login?code=`)).toBe(true);
      const loginUrl = link.split("\n")[0]!;
      const { page, nonceCookie, form } = await openLoginPage(
        loginUrl,
        cert.ca,
      );
      expect(page.status).toBe(200);
      // Client and nginx share 127.0.0.1 here, so the test plays a client elsewhere by sending
      // the X-Forwarded-For nginx appends its $remote_addr to (in production: the client's own).
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

      // A client naming a user itself gets nowhere: nginx clears the header acphub would trust.
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

      // The audit's login names the client nginx forwarded, not nginx.
      const audit = JSON.parse(
        (await runCli(["audit", "--json"], { home: team.home })).stdout,
      ) as { action: string; detail: { address?: string } }[];
      expect(
        audit.filter((e) => e.action === "login").map((e) => e.detail.address),
      ).toEqual(["10.1.1.1"]);

      // One client's wrong tokens lock out that client only; another through nginx still gets
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
    });
  },
);

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
