// acphub's answers to an agent's requests: files sandboxed to the session's roots, terminals
// under the command policy, permissions through the engine, every file and terminal action an
// audit event. Returns a ClientHost for the client core.
import { stat } from "node:fs/promises";
import type {
  ClientHost,
  HostContext,
  SessionFolders,
} from "../agents/host.js";
import { methods } from "../protocol/methods.js";
import { permissionDenied } from "../protocol/wire-errors.js";
import { filterEnv } from "../shared/env-filter.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import { SecretMasker } from "../shared/secrets.js";
import { withDefaults } from "../shared/defaults.js";
import {
  commandLine,
  refusal,
  type CommandPolicy,
  DEFAULT_ALLOWED_COMMANDS,
  DEFAULT_DENY_RULES,
} from "./command-policy.js";
import {
  DEFAULT_FS_LIMITS,
  readTextFile,
  writeTextFile,
  type FsLimits,
} from "./fs-service.js";
import type { Access, PermissionEngine } from "./permission-engine.js";
import { resolveInRoots } from "./sandbox-path.js";
import {
  DEFAULT_TERMINAL_LIMITS,
  TerminalManager,
  type CreateParams,
  type TerminalLimits,
} from "./terminals.js";

export interface HostOptions {
  engine: PermissionEngine;
  /** Roots from config, allowed in every session besides its cwd and additional folders. */
  roots?: string[];
  fsLimits?: Partial<FsLimits>;
  terminalLimits?: Partial<TerminalLimits>;
  commands?: Partial<CommandPolicy>;
  /** The environment terminals start from (filtered; default: this process's). */
  env?: Record<string, string | undefined>;
  logger?: Logger;
  masker?: SecretMasker;
}

export interface HostServices extends ClientHost {
  terminals: TerminalManager;
  close(): void;
}

type Params = Record<string, unknown>;

export function createHost(options: HostOptions): HostServices {
  const { engine } = options;
  const logger = options.logger ?? silentLogger();
  const source = options.env ?? process.env;
  const masker = options.masker ?? SecretMasker.fromEnv(source);
  const fsLimits = withDefaults(DEFAULT_FS_LIMITS, options.fsLimits);
  const policy: CommandPolicy = {
    allow: options.commands?.allow ?? DEFAULT_ALLOWED_COMMANDS,
    deny: options.commands?.deny ?? DEFAULT_DENY_RULES,
  };
  const terminals = new TerminalManager(
    withDefaults(DEFAULT_TERMINAL_LIMITS, options.terminalLimits),
  );
  const folders = new Map<string, SessionFolders>();
  const terminalEnv = filterEnv(source);

  const rootsOf = (sessionId: string) => {
    const f = folders.get(sessionId);
    return [
      ...(f ? [f.cwd, ...(f.additionalDirectories ?? [])] : []),
      ...(options.roots ?? []),
    ];
  };
  const workspaceOf = (sessionId: string) => folders.get(sessionId)?.cwd ?? "";

  const audit = (
    ctx: HostContext,
    entry: {
      action: "read" | "write" | "terminal";
      allowed: boolean;
      reason: string;
      path?: string;
      command?: string;
      bytes?: number;
    },
  ) => {
    const event = masker.maskValue({
      type: "audit" as const,
      sessionId: ctx.sessionId,
      ...entry,
    });
    ctx.emit(event);
    logger.info(event, "agent request");
  };

  // Policy first (mode, rules, grants), then the action; both outcomes are audited.
  const guarded = async <T extends object>(
    ctx: HostContext,
    access: Access,
    action: "read" | "write" | "terminal",
    subject: { path?: string; command?: string },
    run: () => Promise<T>,
  ) => {
    const verdict = await engine.check(
      ctx.sessionId,
      workspaceOf(ctx.sessionId),
      access,
      subject.path ?? subject.command ?? "",
      ctx.signal,
    );
    if (!verdict.allowed) {
      audit(ctx, {
        action,
        ...subject,
        allowed: false,
        reason: verdict.reason,
      });
      throw permissionDenied(`refused by policy: ${verdict.reason}`, {
        reason: verdict.reason,
      });
    }
    try {
      const result = await run();
      audit(ctx, {
        action,
        ...subject,
        allowed: true,
        reason: verdict.reason,
        bytes: (result as { bytes?: number }).bytes,
      });
      return result;
    } catch (error) {
      audit(ctx, {
        action,
        ...subject,
        allowed: false,
        reason: (error as Error).message,
      });
      throw error;
    }
  };

  const createTerminal = async (params: Params, ctx: HostContext) => {
    const p = params as unknown as CreateParams & { cwd?: string | null };
    const args = p.args ?? [];
    const command = masker.mask(commandLine(String(p.command), args));
    const refused = refusal(policy, String(p.command), args);
    if (refused) {
      audit(ctx, {
        action: "terminal",
        command,
        allowed: false,
        reason: refused,
      });
      throw permissionDenied(refused, { reason: refused });
    }
    const cwd = await resolveInRoots(
      p.cwd ?? workspaceOf(ctx.sessionId),
      rootsOf(ctx.sessionId),
    );
    if (!cwd.exists || !(await stat(cwd.real)).isDirectory())
      throw permissionDenied(
        `terminal cwd ${p.cwd ?? ""} is not an existing folder`,
      );
    const { terminalId } = await guarded(
      ctx,
      "execute",
      "terminal",
      { command },
      () => terminals.create(ctx.sessionId, p, cwd.real, terminalEnv),
    );
    return { terminalId };
  };

  const bridge = {
    [methods.client.fs.readTextFile]: (params: Params, ctx: HostContext) =>
      guarded(ctx, "read", "read", { path: String(params["path"]) }, () =>
        readTextFile(params as never, rootsOf(ctx.sessionId), fsLimits),
      ).then(({ content }) => ({ content })),
    [methods.client.fs.writeTextFile]: (params: Params, ctx: HostContext) =>
      guarded(ctx, "write", "write", { path: String(params["path"]) }, () =>
        writeTextFile(params as never, rootsOf(ctx.sessionId), fsLimits),
      ).then(() => ({})),
    [methods.client.terminal.create]: createTerminal,
    [methods.client.terminal.output]: (params: Params, ctx: HostContext) =>
      Promise.resolve(terminals.output(ctx.sessionId, params["terminalId"])),
    [methods.client.terminal.waitForExit]: (params: Params, ctx: HostContext) =>
      terminals.waitForExit(ctx.sessionId, params["terminalId"], ctx.signal),
    [methods.client.terminal.kill]: (params: Params, ctx: HostContext) =>
      Promise.resolve(terminals.kill(ctx.sessionId, params["terminalId"])),
    [methods.client.terminal.release]: (params: Params, ctx: HostContext) =>
      Promise.resolve(terminals.release(ctx.sessionId, params["terminalId"])),
  };

  return {
    terminals,
    bridge: bridge as ClientHost["bridge"],
    requestPermission: (request, ctx) =>
      engine.decide(request, workspaceOf(ctx.sessionId), ctx.signal),
    onSessionStart: (sessionId, f) => folders.set(sessionId, f),
    onTurnEnd: (sessionId) => engine.endTurn(sessionId),
    onSessionEnd: (sessionId) => {
      terminals.releaseSession(sessionId);
      engine.endTurn(sessionId);
      folders.delete(sessionId);
    },
    close: () => terminals.closeAll(),
  };
}
