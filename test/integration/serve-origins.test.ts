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
const canUnshare =
  spawnSync("unshare", ["-rn", "sh", "-c", NAMESPACE_UP, "sh", "true"])
    .status === 0;

// Probes the hub from inside its own namespace, connecting to `address`.
function probe(home: string, address: string, origins: string[]) {
  const run = spawnSync(
    "unshare",
    [
      "-rn",
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

// Skipped only off CI (a machine without user namespaces); in CI (root) it always runs, so a
// runner that loses `unshare -rn` fails here instead of silently checking less.
describe.skipIf(!canUnshare && !process.env["CI"])(
  "serve --host 0.0.0.0: its own origins",
  () => {
    it("accepts a browser origin on each reachable address and serve.publicUrl; prints a URL a browser can open", () => {
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
        expect(r.loginUrl).toMatch(
          /^https:\/\/hub\.example\.test\/login\?code=/,
        );
        for (const o of mine) expect([o, r.answers[o]]).toEqual([o, 101]);
        for (const o of foreign) expect([o, r.answers[o]]).toEqual([o, 403]);
      }
    });
  },
);
