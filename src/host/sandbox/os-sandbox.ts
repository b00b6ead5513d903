// The OS sandbox around one command: bubblewrap on Linux (sandbox-exec on macOS) through
// @anthropic-ai/sandbox-runtime. Writes only to the given folders, reads everywhere but the
// denied ones, its own PID and network namespaces, network only through the runtime's proxy
// to the domains registered for this command.
import { randomBytes } from "node:crypto";
import { SandboxManager } from "@anthropic-ai/sandbox-runtime";
import which from "which";
import { errorMessage, HubError } from "../../shared/errors.js";
import { bridgesStarted, bridgesStopped } from "./bridge-records.js";
import { deathSignalPrefix, socatWithParent } from "./die-with-parent.js";
import { mountPointsOf } from "./mount-points.js";
import { runtimeStarted } from "./runtime-owner.js";

export interface SandboxCheck {
  available: boolean;
  /** What is missing, each with the package that provides it. */
  missing: string[];
}

export interface WrapRequest {
  /** A shell script (`sh -c`), already quoted where it came from argv. */
  script: string;
  cwd: string;
  /** Folders (or files) the command may write. */
  writable: readonly string[];
  /** Paths it may not read (absolute; globs allowed). */
  denyRead: readonly string[];
  /** Paths it may not write even inside a writable folder (acphub's own files). */
  denyWrite?: readonly string[];
  /** Domains it may reach. */
  allowedDomains: readonly string[];
  bwrapPath?: string;
  signal?: AbortSignal;
}

export interface WrappedCommand {
  command: string;
  args: string[];
  /** The empty files and folders bubblewrap makes for it (mount-points.ts): the runtime removes
   *  them, a kill -9 of acphub leaves them to the next acphub's reaper. */
  mountPoints: string[];
  /** Forgets the command's network allowances; call when it has exited. */
  release(): void;
}

// True when `program` is executable (on PATH, or at the path given).
const executable = (program: string): boolean =>
  which.sync(program, { nothrow: true }) !== null;

// What the sandbox needs on this system and what of it is missing.
export function checkSandbox(bwrapPath?: string): SandboxCheck {
  if (process.platform === "darwin")
    return { available: executable("/usr/bin/sandbox-exec"), missing: [] };
  if (process.platform !== "linux")
    return {
      available: false,
      missing: [`a supported system (this is ${process.platform})`],
    };
  const missing: string[] = [];
  const bwrap = bwrapPath ?? "bwrap";
  if (!executable(bwrap))
    missing.push(`${bwrap} (Debian/Ubuntu package bubblewrap)`);
  if (!executable("socat")) missing.push("socat (package socat)");
  if (!executable("rg")) missing.push("rg (package ripgrep)");
  return { available: missing.length === 0, missing };
}

let initialized: { bwrapPath?: string; done: Promise<void> } | undefined;

// The runtime is one per process (its proxies live here): started once, on first use, and
// stopped only by the process's owner (runtime-owner.ts) when the command ends.
function ensureStarted(bwrapPath?: string): Promise<void> {
  if (initialized && initialized.bwrapPath !== bwrapPath)
    throw new HubError("CONFIG_INVALID", "one bubblewrap path per process");
  if (initialized) return initialized.done;
  const done = socatWithParent()
    .then(async (socatPath) => {
      await SandboxManager.initialize({
        network: { allowedDomains: [], deniedDomains: [] },
        filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
        ...(bwrapPath ? { bwrapPath } : {}),
        ...(socatPath ? { socatPath } : {}),
      });
      runtimeStarted(stopSandbox);
      if (!socatPath) await recordUnguardedBridges();
    })
    .catch((error: unknown) => {
      // A failed start is not remembered: the next terminal tries again.
      if (initialized?.done === done) initialized = undefined;
      throw new HubError(
        "AGENT_SPAWN_FAILED",
        `the OS sandbox did not start: ${errorMessage(error)}`,
        { cause: error },
      );
    });
  initialized = { bwrapPath, done };
  return done;
}

// Bridges started without a death signal are recorded for the next acphub's reaper.
async function recordUnguardedBridges(): Promise<void> {
  if (process.platform !== "linux") return;
  await SandboxManager.waitForNetworkInitialization();
  const sockets = [
    SandboxManager.getLinuxHttpSocketPath(),
    SandboxManager.getLinuxSocksSocketPath(),
  ];
  bridgesStarted(sockets.filter((p): p is string => p !== undefined));
}

// Paths the runtime makes writable for its own convenience; acphub allows only what it names.
const CONVENIENCE_WRITES = ["/tmp/claude", "~/.npm/_logs", "~/.claude/debug"];

// Wraps a script so it runs inside the sandbox; the result is an argv to spawn (no shell).
export async function wrapInSandbox(req: WrapRequest): Promise<WrappedCommand> {
  await ensureStarted(req.bwrapPath);
  const commandId = randomBytes(16).toString("base64url");
  SandboxManager.registerCommandNetworkLists(commandId, {
    allowedDomains: [...req.allowedDomains],
  });
  try {
    const { argv } = await SandboxManager.wrapWithSandboxArgv(
      req.script,
      "sh",
      {
        filesystem: {
          denyRead: [...req.denyRead],
          allowWrite: [...req.writable],
          denyWrite: [...CONVENIENCE_WRITES, ...(req.denyWrite ?? [])],
        },
      },
      req.signal,
      req.cwd,
      { commandId, commandText: req.script },
    );
    // The shell around bubblewrap dies with acphub; bubblewrap's --die-with-parent does the rest.
    const [command, ...args] = [...(await deathSignalPrefix()), ...argv];
    return {
      command: command!,
      args,
      mountPoints: mountPointsOf(argv),
      // After the command: its network list goes, and the empty mount points bubblewrap
      // made for absent deny paths (removed once no sandboxed command is left running).
      release: () => {
        SandboxManager.unregisterCommandNetworkLists(commandId);
        SandboxManager.cleanupAfterCommand();
      },
    };
  } catch (error) {
    SandboxManager.unregisterCommandNetworkLists(commandId);
    throw error;
  }
}

/** Stops the runtime's proxies: the process's owner calls it once, at exit (never a host). */
export async function stopSandbox(): Promise<void> {
  if (!initialized) return;
  initialized = undefined;
  await SandboxManager.reset();
  bridgesStopped();
}
