// Installs the lab's real agents by exact version into a cache folder outside the repository
// (ACPHUB_INTEROP_CACHE, default ~/.cache/acphub-interop), once per version set. An agent that
// cannot be installed is an error that names it: the stage fails, it never skips.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { AGENTS, AGENT_NAMES } from "./versions.mjs";

// The cache folder shared by every run on this machine.
export function cacheRoot() {
  return (
    process.env.ACPHUB_INTEROP_CACHE ??
    join(homedir(), ".cache", "acphub-interop")
  );
}

// The folder of one agent at its pinned versions (a new version gets a new folder).
export function agentDir(name) {
  const spec = AGENTS[name].packages.join("+").replace(/[@/]/g, "_");
  return join(cacheRoot(), `${name}-${spec}`);
}

// The agent's executable inside its install folder.
export function agentBin(name) {
  return join(agentDir(name), "node_modules", ".bin", AGENTS[name].bin);
}

// Installs one agent unless its stamp says this exact set is there already.
export function installAgent(name) {
  const dir = agentDir(name);
  const stamp = join(dir, ".installed");
  const want = JSON.stringify(AGENTS[name].packages);
  if (
    existsSync(stamp) &&
    readFileSync(stamp, "utf8") === want &&
    existsSync(agentBin(name))
  )
    return { name, dir, cached: true };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ private: true, name: `acphub-interop-${name}` }),
  );
  const r = spawnSync(
    "npm",
    [
      "install",
      "--save-exact",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      ...AGENTS[name].packages,
    ],
    {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, npm_config_yes: "true" },
    },
  );
  if (r.status !== 0 || !existsSync(agentBin(name)))
    throw new Error(
      `interop: could not install agent "${name}" (${AGENTS[name].packages.join(", ")}) into ${dir}: ` +
        `npm exited ${r.status ?? r.signal}${r.error ? ` (${r.error.message})` : ""}\n${(r.stderr ?? "").slice(-2000)}`,
    );
  writeFileSync(stamp, want);
  return { name, dir, cached: false };
}

// Installs every agent (or the ones named); throws on the first that fails.
export function installAll(names = AGENT_NAMES) {
  return names.map((n) => installAgent(n));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const names = process.argv.slice(2);
  try {
    for (const r of installAll(names.length ? names : AGENT_NAMES))
      process.stderr.write(
        `interop: ${r.name} ${r.cached ? "already installed" : "installed"} in ${r.dir}\n`,
      );
  } catch (error) {
    process.stderr.write(
      `${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
}
