// Issue 38: the nginx example docs/deploy.md quotes (deploy/nginx-acphub.conf), run for real as a
// plain process (no service) in front of `acphub serve`: TLS ends at nginx, and through it an ACP
// session over WebSocket (new + prompt), Streamable HTTP with its updates relayed while the turn
// still runs (no buffering), and the page's login (its cookie `Secure` behind HTTPS) all work; a
// client's own X-Forwarded-User never reaches acphub; with serve.trustedProxies on nginx's address
// each client is the address nginx forwards (its own lock-out, the audit's login address). nginx is a test dependency
// (scripts/system-deps.mjs installs it as root, and stops a non-root run with the line to run).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../helpers/hub.js";
import { tempDir } from "../helpers/mock.js";
import { teamFixture } from "../helpers/team.js";
import { makeCert, type TestCert } from "../helpers/tls.js";
import { rawRequest } from "../helpers/web-login.js";
import {
  checkThroughProxy,
  freePort,
  proxiedConfig,
  stopAll,
  withSwaps,
} from "../helpers/proxy-checks.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const EXAMPLE = readFileSync(join(ROOT, "deploy/nginx-acphub.conf"), "utf8");
const NGINX = ["/usr/sbin/nginx", "/usr/bin/nginx"].find(existsSync);

const fx = teamFixture();
const running: ChildProcess[] = [];
afterEach(async () => {
  await stopAll(running);
  await fx.cleanup();
});

// The example with this machine's values: each replaced line must be there as docs/deploy.md shows.
function exampleFor(port: number, hubPort: number, cert: TestCert): string {
  const swaps: [string, string][] = [
    ["listen 443 ssl;", `listen 127.0.0.1:${port} ssl;`],
    ["server 127.0.0.1:8787;", `server 127.0.0.1:${hubPort};`],
    ["/etc/ssl/acphub/fullchain.pem", cert.certFile],
    ["/etc/ssl/acphub/privkey.pem", cert.keyFile],
  ];
  return withSwaps(EXAMPLE, swaps);
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
        proxiedConfig(publicUrl),
      );
      const hubPort = Number(new URL(team.h.url).port);
      await startNginx(prefix, exampleFor(port, hubPort, cert), port);
      await checkThroughProxy({ name: "nginx", team, publicUrl, ca: cert.ca });
    });
  },
);
