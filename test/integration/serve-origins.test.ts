// `acphub serve --host 0.0.0.0` calls every address it can be reached at its own origin (each
// local interface, the hostname, localhost) plus serve.publicUrl, and prints a URL a browser
// can open. Run in a network namespace of its own (`unshare -rn`) so that it has an interface
// address besides loopback (10.200.0.1) without touching the machine's network.
import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { mockConfig } from "../helpers/editor.js";
import { CLI, tempDir } from "../helpers/mock.js";

const PROBE = fileURLToPath(
  new URL("../helpers/origin-probe.mjs", import.meta.url),
);
const NAMESPACE_UP =
  'ip link set lo up && ip addr add 10.200.0.1/24 dev lo && exec "$@"';
// Root makes the namespace itself; anyone else needs a user namespace around it.
const UNSHARE = process.getuid?.() === 0 ? ["-n"] : ["-rn"];
const namespaceWorks =
  spawnSync("unshare", [...UNSHARE, "sh", "-c", NAMESPACE_UP, "sh", "true"])
    .status === 0;
const NO_NAMESPACE =
  "this test runs the hub in a network namespace of its own (`unshare -rn`), which this machine refuses to a user: run the tests as root, or allow unprivileged user namespaces (Ubuntu: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0)";

// Probes the hub from inside its own namespace, connecting to `address`.
function probe(home: string, address: string, origins: string[]) {
  const run = spawnSync(
    "unshare",
    [
      ...UNSHARE,
      "sh",
      "-c",
      NAMESPACE_UP,
      "sh",
      process.execPath,
      PROBE,
      CLI,
      home,
      address,
      ...origins,
    ],
    { encoding: "utf8", timeout: 60_000 },
  );
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as {
    url: string;
    loginUrl: string;
    answers: Record<string, number>;
  };
}

// Never skipped: a machine that cannot make the namespace fails here with what to change.
describe("serve --host 0.0.0.0: its own origins", () => {
  it("accepts a browser origin on each reachable address and serve.publicUrl; prints a URL a browser can open", () => {
    expect(namespaceWorks, NO_NAMESPACE).toBe(true);
    const home = tempDir();
    mockConfig(home, [], {
      serve: { publicUrl: "https://hub.example.test/" },
    });
    const mine = [
      "http://127.0.0.1:PORT",
      "http://localhost:PORT",
      "http://10.200.0.1:PORT",
      `http://${hostname()}:PORT`,
      "https://hub.example.test",
    ];
    const foreign = ["http://evil.example", "http://0.0.0.0:PORT"];
    for (const address of ["127.0.0.1", "10.200.0.1"]) {
      const r = probe(home, address, [...mine, ...foreign]);
      expect(r.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(r.loginUrl).toMatch(/^https:\/\/hub\.example\.test\/login\?code=/);
      for (const o of mine) expect([o, r.answers[o]]).toEqual([o, 101]);
      for (const o of foreign) expect([o, r.answers[o]]).toEqual([o, 403]);
    }
  });
});
