// `acphub serve --tls-cert/--tls-key`: the hub serves HTTPS and WSS with a certificate made at
// test time; the SDK's own clients (trusting only that certificate) drive whole turns over wss
// and https, the CLI's shim does the same, and a client that does not trust it gets a clear
// error at once.
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { hubFixture, openSession, text } from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";
import { makeCert, trustingFetch, type TestCert } from "../helpers/tls.js";

const fx = hubFixture();
afterEach(() => fx.cleanup());

// A hub over TLS; the client side gets the CA to trust.
async function tlsHub() {
  let cert: TestCert | undefined;
  const started = await fx.start({}, [], (home) => {
    cert = makeCert(home);
    return ["--tls-cert", cert.certFile, "--tls-key", cert.keyFile];
  });
  return { ...started, cert: cert!, hub: { ...started.h, ca: cert!.ca } };
}

describe.each(["ws", "http"] as const)("acphub serve over TLS, %s", (t) => {
  it("listens on https and runs a full turn for a client that trusts the certificate", async () => {
    const { h, home, hub } = await tlsHub();
    expect(h.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const c = fx.connect(hub, t);
    const sessionId = await openSession(c, home);
    const result = await c.agent.request<{ stopReason: string }>(
      "session/prompt",
      { sessionId, prompt: text(steps({ text: "over tls" })) },
    );
    expect(result.stopReason).toBe("end_turn");
    expect(JSON.stringify(c.updates(sessionId))).toContain("over tls");
  });
});

describe("acphub serve over TLS: the edges", () => {
  it("speaks only TLS: plain HTTP to the port gets no answer, and the token is still required", async () => {
    const { h, cert } = await tlsHub();
    const get = trustingFetch(cert.ca);
    const health = await get(`${h.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    expect((await get(`${h.url}/metrics`)).status).toBe(401);
    const metrics = await get(`${h.url}/metrics`, {
      headers: { Authorization: `Bearer ${h.token}` },
    });
    expect(metrics.status).toBe(200);
    await expect(
      fetch(`${h.url.replace("https:", "http:")}/healthz`),
    ).rejects.toThrow();
    // Node's own fetch does not trust a self-signed certificate.
    await expect(fetch(`${h.url}/healthz`)).rejects.toThrow();
  });

  it("acphub run --hub wss://… runs a turn when NODE_EXTRA_CA_CERTS names the certificate", async () => {
    const { h, home, cert } = await tlsHub();
    const r = await runCli(
      ["run", "--hub", h.url, steps({ text: "shim over tls" })],
      {
        home,
        env: { ACPHUB_TOKEN: h.token, NODE_EXTRA_CA_CERTS: cert.certFile },
      },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("shim over tls");
  });

  it("a shim that does not trust the certificate fails at once with a clear error", async () => {
    const { h, home } = await tlsHub();
    // Without the fix the shim retried for five minutes; runCli kills it (code null) first.
    const r = await runCli(["run", "--hub", h.url, "hello"], {
      home,
      env: { ACPHUB_TOKEN: h.token },
      timeoutMs: 15_000,
    });
    expect(r.code).not.toBeNull();
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/certificate/i);
    expect(r.stderr).toContain("NODE_EXTRA_CA_CERTS");
  });
});
