#!/usr/bin/env node
// Makes sure the system programs the test suite drives are present before it runs: installs the
// missing Debian packages when running as root (CI, a fresh machine), otherwise stops with the one
// line to run. Each feature that needs a system program adds one row to NEEDS.
import { execFileSync, spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** program to look for → Debian package that provides it, and why the tests need it. */
const NEEDS = [
  {
    program: "python3",
    pkg: "python3",
    why: "pseudo-terminal tests of acphub chat",
  },
  {
    program: "bwrap",
    pkg: "bubblewrap",
    why: "the OS sandbox for terminals and agents",
  },
  { program: "socat", pkg: "socat", why: "the OS sandbox's network bridge" },
  { program: "rg", pkg: "ripgrep", why: "the OS sandbox's read-deny globs" },
  {
    // Debian keeps the server programs off PATH, under the major version's own folder.
    program: "/usr/lib/postgresql/15/bin/pg_ctl",
    pkg: "postgresql",
    why: "the ledger contract tests against a real PostgreSQL",
  },
  {
    program: "openssl",
    pkg: "openssl",
    why: "a self-signed certificate for the acphub serve TLS tests",
  },
  {
    program: "setpriv",
    pkg: "util-linux",
    why: "sandboxed processes die with acphub (no orphans after kill -9)",
  },
  {
    program: "/usr/bin/chromium",
    pkg: "chromium",
    why: "the web page's tests in a real browser",
  },
  {
    // Debian keeps it in /usr/sbin, off a plain user's PATH.
    program: "/usr/sbin/nginx",
    pkg: "nginx",
    why: "the reverse-proxy example (deploy/nginx-acphub.conf) run in front of acphub serve",
  },
  {
    program: "caddy",
    pkg: "caddy",
    why: "the Caddy example (deploy/Caddyfile) run in front of acphub serve",
  },
  {
    program: "/usr/bin/systemd-analyze",
    pkg: "systemd",
    why: "systemd-analyze verify of the hardened unit (deploy/acphub.service)",
  },
];

// True when `program` is an executable on PATH (or an absolute path that exists).
function found(program) {
  const dirs = program.includes("/")
    ? [""]
    : (process.env.PATH ?? "").split(delimiter);
  return dirs.some((dir) => {
    try {
      accessSync(dir ? join(dir, program) : program, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const missing = NEEDS.filter((n) => !found(n.program));
if (missing.length === 0) process.exit(0);
const pkgs = [...new Set(missing.map((n) => n.pkg))];
const list = missing.map((n) => `${n.program} (${n.why})`).join(", ");
if (process.getuid?.() !== 0) {
  process.stderr.write(
    `The tests need: ${list}.\nRun: sudo apt-get install -y ${pkgs.join(" ")}\n`,
  );
  process.exit(1);
}
process.stderr.write(`Installing ${pkgs.join(" ")} for the tests (${list})\n`);
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
execFileSync("apt-get", ["update", "-qq"], { stdio: ["ignore", 2, 2], env });
const r = spawnSync(
  "apt-get",
  ["install", "-y", "-qq", "--no-install-recommends", ...pkgs],
  { stdio: ["ignore", 2, 2], env },
);
process.exit(r.status ?? 1);
