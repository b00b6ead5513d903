// The CLI as a hub's client (issue 38): `acphub acp --hub` ends quietly when its editor leaves
// (no "connection lost; reconnecting" on a normal shutdown); a prompt the hub refuses (a viewer
// prompting) says what was refused, in the hub's words, and exits with the documented code, not
// `agent "hub" answered … -32001` and 1; a hub whose TLS certificate is not trusted ends the
// shim, `run` and `chat` at once with a line that names the problem and NODE_EXTRA_CA_CERTS,
// and the documented code of a config error.
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { hubFixture, INIT, until } from "../helpers/hub.js";
import { CLI, steps, tempDir } from "../helpers/mock.js";
import { makeCert } from "../helpers/tls.js";
import { teamFixture, TEAM_WORK } from "../helpers/team.js";

const team = teamFixture();
const fx = hubFixture();
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  await team.cleanup();
  await fx.cleanup();
});

const init = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: INIT })}\n`;

// The CLI as an editor launches it: stdin kept open until the test ends it.
function editorOf(args: string[], env: Record<string, string>) {
  const home = tempDir();
  const child = spawn(process.execPath, [CLI, ...args], {
    env: {
      PATH: process.env["PATH"] ?? "",
      HOME: home,
      ACPHUB_HOME: home,
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  children.push(child);
  const exited = new Promise<number | null>((r) => child.on("close", r));
  return { child, exited, stdout: () => out, stderr: () => err };
}

describe("the CLI as a hub's client", { timeout: 90_000 }, () => {
  it("acp --hub ends quietly when the editor closes its input", async () => {
    const { h } = await fx.start();
    const shim = editorOf(["acp", "--hub", h.url], { ACPHUB_TOKEN: h.token });
    shim.child.stdin.write(init);
    await until(() => shim.stdout().includes('"id":1'));
    shim.child.stdin.end();
    expect(await shim.exited).toBe(0);
    expect(shim.stderr()).not.toMatch(/connection lost|reconnecting/);
  });

  it("a prompt the hub refuses says what was refused and exits 5", async () => {
    const t = await team.start({ alice: "member", vic: "viewer" });
    const alice = team.connect(t, "alice", "ws");
    await alice.agent.request("initialize", INIT);
    const { sessionId } = await alice.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    await alice.agent.request("_acphub/session/share", {
      sessionId,
      user: "vic",
      role: "viewer",
    });
    const tokenFile = join(tempDir(), "vic-token");
    writeFileSync(tokenFile, `${t.tokens["vic"]}\n`, { mode: 0o600 });
    const r = await runCli(
      [
        "run",
        "--hub",
        t.h.url,
        "--token-file",
        tokenFile,
        "--session",
        sessionId,
        "--cwd",
        TEAM_WORK,
        steps({ text: "let me in" }),
      ],
      { home: tempDir() },
    );
    expect(r.stderr).not.toContain('agent "hub"');
    expect(r.stderr).toMatch(/^acphub: you may only watch session .*\n$/);
    expect(r.code).toBe(5);
  });

  it("an untrusted TLS certificate ends acp --hub, run --hub and chat --hub at once: exit 2, naming NODE_EXTRA_CA_CERTS", async () => {
    const { h } = await fx.start({}, [], (home) => {
      const cert = makeCert(home);
      return ["--tls-cert", cert.certFile, "--tls-key", cert.keyFile];
    });
    const env = { ACPHUB_TOKEN: h.token };
    const problem =
      /^acphub: the hub's TLS certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate\); for a self-signed hub set NODE_EXTRA_CA_CERTS to its certificate file\n$/;
    // The shim, its editor still there: it gives up at once.
    const shim = editorOf(["acp", "--hub", h.url], env);
    shim.child.stdin.write(init);
    expect(await shim.exited).toBe(2);
    expect(shim.stderr()).toMatch(problem);
    shim.child.stdin.destroy();
    for (const [args, input] of [
      [["run", "--hub", h.url, "hello"], ""],
      [["chat", "--hub", h.url], "hello\n"],
    ] as const) {
      const r = await runCli([...args], { env, input, timeoutMs: 30_000 });
      expect(r.stderr, args[0]).toMatch(problem);
      expect(r.code, args[0]).toBe(2);
    }
  });
});
