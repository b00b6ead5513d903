// Starting `acphub serve`: on a machine where acphub never ran (no state folder yet), and with
// TLS files that are missing, not PEM, or do not belong together — each a clear error that
// names the file, before anything listens.
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { startHub, type RunningHub } from "../helpers/hub.js";
import { tempDir } from "../helpers/mock.js";
import { makeCert } from "../helpers/tls.js";

const hubs: RunningHub[] = [];
afterEach(async () => {
  for (const h of hubs.splice(0)) {
    h.child.kill("SIGKILL");
    await h.exited;
  }
});

describe("acphub serve starts", () => {
  it("on a machine where acphub never ran: makes the state folder and the token (mode 0600)", async () => {
    const state = join(tempDir(), "not", "yet");
    const h = await startHub(state);
    hubs.push(h);
    expect(h.token.length).toBeGreaterThanOrEqual(16);
    expect(statSync(join(state, "serve-token")).mode & 0o777).toBe(0o600);
    const health = await fetch(`${h.url}/healthz`);
    expect(health.status).toBe(200);
  });
});

describe("acphub serve refuses bad TLS files, naming them", () => {
  const home = tempDir();
  const one = makeCert(tempDir());
  const other = makeCert(tempDir());
  const garbage = join(home, "garbage.pem");
  writeFileSync(garbage, "not a certificate\n");
  const missing = join(home, "missing.pem");
  it.each([
    [
      "a missing certificate",
      [missing, one.keyFile],
      /cannot read --tls-cert .*missing\.pem/,
    ],
    [
      "a certificate that is not PEM",
      [garbage, one.keyFile],
      /--tls-cert .*garbage\.pem is not a PEM certificate/,
    ],
    [
      "a key that is not PEM",
      [one.certFile, garbage],
      /--tls-key .*garbage\.pem is not a PEM private key/,
    ],
    [
      "the key given as the certificate",
      [one.keyFile, one.certFile],
      /--tls-cert .*key\.pem is not a PEM certificate/,
    ],
    [
      "another certificate's key",
      [one.certFile, other.keyFile],
      /--tls-key .*key\.pem is not the private key of the certificate in --tls-cert/,
    ],
  ] as const)("%s", async (_name, [cert, key], message) => {
    const r = await runCli(
      ["serve", "--port", "0", "--json", "--tls-cert", cert, "--tls-key", key],
      { home, timeoutMs: 15_000 },
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(message);
  });
});
