// Issue 38: the Caddy example docs/deploy.md quotes (deploy/Caddyfile), run for real as a plain
// process in front of `acphub serve` as the nginx one is (deploy-nginx.test.ts): TLS ends at
// Caddy, and through it an ACP turn over WebSocket, Streamable HTTP's updates while the turn
// still runs, the page's login (cookie `Secure`), no client-named user, and with
// serve.trustedProxies each client's own address (audit, lock-out). caddy is a test dependency
// (scripts/system-deps.mjs).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
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
const EXAMPLE = readFileSync(join(ROOT, "deploy/Caddyfile"), "utf8");
const CADDY = ["/usr/bin/caddy", "/usr/sbin/caddy"].find(existsSync);

const fx = teamFixture();
const running: ChildProcess[] = [];
afterEach(async () => {
  await stopAll(running);
  await fx.cleanup();
});

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
  return withSwaps(EXAMPLE, swaps);
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
    const team = await fx.start({ alice: "member" }, proxiedConfig(publicUrl));
    const hubPort = Number(new URL(team.h.url).port);
    await startCaddy(prefix, exampleFor(port, hubPort, cert), port, cert.ca);
    await checkThroughProxy({ name: "caddy", team, publicUrl, ca: cert.ca });
  });
});
