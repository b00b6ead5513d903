// The OS sandbox as the config asks for it: settings for the host's terminals, and an agent
// launch rewritten to start inside the sandbox when its entry says `sandbox: true`.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { quote } from "shell-quote";
import type { AgentLaunch } from "../agents/registry.js";
import type { Config } from "../config/schema.js";
import { checkSandbox, wrapInSandbox } from "../host/sandbox/os-sandbox.js";
import {
  AGENT_SANDBOX_PRESETS,
  DEFAULT_DENY_READ,
  type SandboxSettings,
} from "../host/sandbox/settings.js";
import { expandHome, missingText } from "../host/sandbox/terminal-sandbox.js";
import { HubError } from "../shared/errors.js";

export interface SandboxPaths {
  stateDir: string;
  configFile: string;
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
    allowedDomains: t.network?.allowedDomains,
    bwrapPath: t.bwrapPath,
    protect: [paths.stateDir, paths.configFile],
  };
}

// The launch itself when the agent's entry does not ask for the sandbox, else one that starts
// the agent inside it: writes to the cwd, the fs roots and the agent's state folders.
export async function sandboxedLaunch(
  launch: AgentLaunch,
  config: Config,
  paths: SandboxPaths,
  cwd: string,
): Promise<AgentLaunch> {
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
  const preset = AGENT_SANDBOX_PRESETS[launch.name];
  const home = launch.env["HOME"] ?? homedir();
  const stateDirs = [
    ...(preset?.stateDirs ?? []),
    ...(own.stateDirs ?? []),
  ].map((p) => expandHome(p, home));
  for (const dir of stateDirs)
    if (!dir.endsWith(".json")) mkdirSync(dir, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), "acphub-agent-"));
  process.once("exit", () => rmSync(tmp, { recursive: true, force: true }));
  const roots = [cwd, ...(config.fs?.roots ?? [])];
  const wrapped = await wrapInSandbox({
    script: `export TMPDIR=${quote([tmp])}; exec ${quote([launch.command, ...launch.args])}`,
    cwd,
    writable: [...roots, ...stateDirs, tmp],
    denyRead: [
      ...(t.denyRead ?? DEFAULT_DENY_READ).map((p) => expandHome(p, home)),
      paths.stateDir,
      paths.configFile,
      ...(t.allowEnvFiles ? [] : roots.map((r) => join(r, "**/.env*"))),
    ],
    allowedDomains: [...(preset?.domains ?? []), ...(own.allowedDomains ?? [])],
    bwrapPath: t.bwrapPath,
  });
  return { ...launch, command: wrapped.command, args: wrapped.args };
}
