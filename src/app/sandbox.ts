// The OS sandbox as the config asks for it: settings for the host's terminals, and an agent
// launch rewritten to start inside the sandbox when its entry says `sandbox: true`.
import { mkdirSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative, sep } from "node:path";
import type { AgentLaunch } from "../agents/registry.js";
import type { Config } from "../config/schema.js";
import { checkSandbox } from "../host/sandbox/os-sandbox.js";
import {
  AGENT_SANDBOX_PRESETS,
  DEFAULT_DENY_NAMES,
  DEFAULT_DENY_READ,
  type SandboxSettings,
} from "../host/sandbox/settings.js";
import {
  expandHome,
  missingText,
  readDenials,
  wrapWithTemp,
} from "../host/sandbox/sandbox-rules.js";
import { HubError } from "../shared/errors.js";

interface SandboxPaths {
  stateDir: string;
  configFile: string;
  /** More paths nothing may reach (a hub's token, TLS files, ledger). */
  protect?: readonly string[];
}

// acphub's own files: nothing sandboxed may read or write them.
function protectedOf(paths: SandboxPaths): string[] {
  return [paths.stateDir, paths.configFile, ...(paths.protect ?? [])];
}

// What an agent may not reach: acphub's own files — for a hub user's agent whose HOME is in the
// state folder ({stateDir}/homes/{user}, issue 36), every entry of the state folder but the ones
// holding that HOME (so other users' homes, the ledger and the token stay out of reach).
function protectedFor(paths: SandboxPaths, home: string): string[] {
  const homes = join(paths.stateDir, "homes");
  const rel = relative(homes, home);
  if (rel === "" || rel.startsWith("..") || rel.includes(sep))
    return protectedOf(paths);
  const around: string[] = [];
  let dir = paths.stateDir;
  for (const part of relative(paths.stateDir, home).split(sep)) {
    for (const name of readdirSync(dir))
      if (name !== part) around.push(join(dir, name));
    dir = join(dir, part);
  }
  return [...around, paths.configFile, ...(paths.protect ?? [])];
}

// The terminal sandbox settings from config; acphub's own state and config are always denied.
export function sandboxSettings(
  config: Config,
  paths: SandboxPaths,
): Partial<SandboxSettings> & { protect: string[] } {
  const t = config.terminals ?? {};
  return {
    mode: t.sandbox,
    denyRead: t.denyRead,
    allowEnvFiles: t.allowEnvFiles,
    denyNames: t.denyNames,
    allowedDomains: t.network?.allowedDomains,
    bwrapPath: t.bwrapPath,
    protect: protectedOf(paths),
  };
}

// The agent's state folders (preset and config), made if missing so the agent can write them.
function stateDirsOf(
  name: string,
  own: { stateDirs?: string[] },
  home: string,
): string[] {
  const preset = AGENT_SANDBOX_PRESETS[name]?.stateDirs ?? [];
  const dirs = [...preset, ...(own.stateDirs ?? [])].map((p) =>
    expandHome(p, home),
  );
  for (const dir of dirs)
    if (!dir.endsWith(".json")) mkdirSync(dir, { recursive: true });
  return dirs;
}

/** A launch inside the sandbox, with what releases its temp folder and network list. */
export interface SandboxedLaunch extends AgentLaunch {
  /** Once no process of this launch runs any more (a hub's retired agent process); at the
   *  latest when acphub exits. */
  release?: () => void;
}

// The releases still due when acphub exits, run from one listener: a hub makes a launch per
// agent process it starts, and a listener each went past Node's limit of ten.
const dueAtExit = new Set<() => void>();
let exitHooked = false;
function releasedAtExit(release: () => void): () => void {
  if (!exitHooked) {
    exitHooked = true;
    process.once("exit", () => {
      for (const due of dueAtExit) due();
    });
  }
  dueAtExit.add(release);
  return () => {
    if (dueAtExit.delete(release)) release();
  };
}

// The launch itself when the agent's entry does not ask for the sandbox, else one that starts
// the agent inside it: writes to the cwd, the fs roots and the agent's state folders.
export async function sandboxedLaunch(
  launch: AgentLaunch,
  config: Config,
  paths: SandboxPaths,
  cwd: string,
): Promise<SandboxedLaunch> {
  const entry = config.agents?.[launch.name]?.sandbox;
  if (!entry) return launch;
  const t = config.terminals ?? {};
  const check = checkSandbox(t.bwrapPath);
  if (!check.available)
    throw new HubError(
      "AGENT_SPAWN_FAILED",
      `agent ${launch.name} asks for sandbox: true, but ${missingText(check)}`,
    );
  const own = entry === true ? {} : entry;
  const home = launch.env["HOME"] ?? homedir();
  const roots = [cwd, ...(config.fs?.roots ?? [])];
  const rules = {
    denyRead: t.denyRead ?? DEFAULT_DENY_READ,
    protect: protectedFor(paths, home),
    allowEnvFiles: t.allowEnvFiles ?? false,
    denyNames: t.denyNames ?? DEFAULT_DENY_NAMES,
    home,
  };
  const wrapped = await wrapWithTemp({
    argv: launch,
    cwd,
    writable: [...roots, ...stateDirsOf(launch.name, own, home)],
    denyRead: readDenials(rules, roots),
    denyWrite: rules.protect,
    allowedDomains: [
      ...(AGENT_SANDBOX_PRESETS[launch.name]?.domains ?? []),
      ...(own.allowedDomains ?? []),
    ],
    bwrapPath: t.bwrapPath,
    prefix: "acphub-agent-",
  });
  return {
    ...launch,
    command: wrapped.command,
    args: wrapped.args,
    leftovers: wrapped.leftovers,
    release: releasedAtExit(() => wrapped.release()),
  };
}
