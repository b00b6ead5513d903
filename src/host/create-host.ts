// acphub's answers to an agent's requests, composed from parts with one job each: session
// folders, the audit trail, the policy guard, the fs and terminal handlers, and the
// permission path. Returns a ClientHost for the client core.
import type { ClientHost } from "../contracts/client-host.js";
import { filterEnv } from "../shared/env-filter.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import { SecretMasker } from "../shared/secrets.js";
import { withDefaults } from "../shared/defaults.js";
import { auditor } from "./audit.js";
import {
  type CommandPolicy,
  DEFAULT_ALLOWED_COMMANDS,
  DEFAULT_DENY_RULES,
} from "./command-policy.js";
import type { EditorBridge } from "./editor-bridge.js";
import { fsHandlers } from "./fs-handlers.js";
import { DEFAULT_FS_LIMITS, type FsLimits } from "./fs-service.js";
import type { PermissionEngine } from "./permission-engine.js";
import { pathPolicy } from "./path-policy.js";
import { permissionPath } from "./permission-path.js";
import { policyGuard } from "./policy-guard.js";
import { DEFAULT_SANDBOX, type SandboxSettings } from "./sandbox/settings.js";
import { recordBridgesWith } from "./sandbox/bridge-records.js";
import { terminalSandbox } from "./sandbox/terminal-sandbox.js";
import { SessionFolderBook } from "./session-folders.js";
import {
  startOwnTerminal,
  terminalHandlers,
  type TerminalHandlerDeps,
} from "./terminal-handlers.js";
import {
  type CreateParams,
  DEFAULT_TERMINAL_LIMITS,
  TerminalManager,
  type ProcessRecorder,
  type TerminalLimits,
} from "./terminals.js";

export type { EditorBridge } from "./editor-bridge.js";

export interface HostOptions {
  engine: PermissionEngine;
  /** Roots from config, allowed in every session besides its cwd and additional folders. */
  roots?: string[];
  /** Whether a session with this cwd gets `roots` (default: every session). */
  rootsWhen?: (cwd: string) => boolean;
  fsLimits?: Partial<FsLimits>;
  terminalLimits?: Partial<TerminalLimits>;
  /** Records terminals' process groups for the orphan reaper. */
  recorder?: ProcessRecorder;
  commands?: Partial<CommandPolicy>;
  /** The environment terminals start from (filtered; default: this process's). */
  env?: Record<string, string | undefined>;
  logger?: Logger;
  masker?: SecretMasker;
  /** An editor that serves some fs/terminal methods itself (after acphub's own checks). */
  editor?: EditorBridge;
  /** The OS sandbox for terminals (default: `auto`); `protect` adds paths nothing may read. */
  sandbox?: Partial<SandboxSettings> & { protect?: string[] };
}

export interface HostServices extends ClientHost {
  terminals: TerminalManager;
  /**
   * Starts a terminal acphub runs for itself in a session (a workflow's shell step): the
   * command policy, a cwd inside the session's roots and the OS sandbox, as an agent's.
   */
  startTerminal(
    sessionId: string,
    params: CreateParams & { cwd?: string },
    signal: AbortSignal,
    /** The workflow file pre-approves this literal command: no permission question. */
    preapproved?: boolean,
  ): Promise<{ terminalId: string }>;
  /** Set when terminals run without the OS sandbox it asked for (`auto`): show it once. */
  sandboxWarning?: string;
  close(): void;
}

// Wires the host's parts together from the options.
export function createHost(options: HostOptions): HostServices {
  const { engine, editor } = options;
  const source = options.env ?? process.env;
  const masker = options.masker ?? SecretMasker.fromEnv(source);
  const audit = auditor(masker, options.logger ?? silentLogger());
  const folders = new SessionFolderBook(options.roots, options.rootsWhen);
  const guard = policyGuard(engine, folders, audit);
  const permissions = permissionPath(engine, folders);
  if (options.recorder) recordBridgesWith(options.recorder);
  const terminals = new TerminalManager(
    withDefaults(DEFAULT_TERMINAL_LIMITS, options.terminalLimits),
    options.recorder,
  );
  const settings = withDefaults(DEFAULT_SANDBOX, options.sandbox);
  const protect = options.sandbox?.protect ?? [];
  const sandbox = terminalSandbox(settings, protect);
  const policy: CommandPolicy = {
    allow: options.commands?.allow ?? DEFAULT_ALLOWED_COMMANDS,
    deny: options.commands?.deny ?? DEFAULT_DENY_RULES,
    allowEnv: options.commands?.allowEnv ?? [],
  };
  const terminalDeps: TerminalHandlerDeps = {
    guard,
    audit,
    folders,
    policy,
    terminals,
    terminalEnv: filterEnv(source),
    masker,
    editor,
    sandbox,
    checkOwn: (ctx, command, keys, preapproved) =>
      engine.checkOwnCommand(
        ctx.sessionId,
        folders.workspaceOf(ctx.sessionId),
        command,
        ctx.signal,
        keys,
        preapproved,
      ),
  };
  const bridge = {
    ...fsHandlers({
      guard,
      folders,
      limits: withDefaults(DEFAULT_FS_LIMITS, options.fsLimits),
      editor,
      check: pathPolicy({ ...settings, protect }),
      audit,
    }),
    ...terminalHandlers(terminalDeps),
  };
  return {
    terminals,
    startTerminal: (sessionId, params, signal, preapproved) =>
      startOwnTerminal(
        terminalDeps,
        params,
        { sessionId, signal, emit: () => undefined },
        preapproved,
      ),
    sandboxWarning: sandbox.warning,
    bridge: bridge as ClientHost["bridge"],
    requestPermission: permissions.requestPermission,
    onSessionUpdate: permissions.onSessionUpdate,
    onSessionStart: (sessionId, f) => {
      folders.start(sessionId, f);
      permissions.openSession(sessionId);
    },
    onTurnEnd: (sessionId) => engine.endTurn(sessionId),
    onSessionEnd: (sessionId) => {
      terminals.releaseSession(sessionId);
      engine.endTurn(sessionId);
      permissions.closeSession(sessionId);
      folders.end(sessionId);
    },
    // The host's terminals end; the sandbox runtime is the process's, not the host's: it
    // stays for other hosts' terminals and is stopped when the process ends.
    close: () => terminals.closeAll(),
  };
}
