// acphub's answers to an agent's requests: files sandboxed to the session's roots, terminals
// under the command policy, permissions through the engine, every file and terminal action an
// audit event. Returns a ClientHost for the client core.
import { stat } from "node:fs/promises";
import type {
  BridgeMethod,
  ClientHost,
  HostContext,
  SessionFolders,
} from "../contracts/client-host.js";
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
  /** An editor that serves some fs/terminal methods itself (after acphub's own checks). */
  editor?: EditorBridge;
}

export interface EditorBridge {
  handles(method: BridgeMethod): boolean;
  request(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown>;
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

  const editor = options.editor;
  const viaEditor = (method: BridgeMethod) => editor?.handles(method) === true;
  /** Terminal ids the editor created (their later calls go back to it). */
  const editorTerminals = new Set<string>();

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
    if (!cwd.exists || !(await stat(cwd.real)).isDirectory()) {
      throw permissionDenied(
        `terminal cwd ${p.cwd ?? ""} is not an existing folder`,
      );
    }
    return guarded(ctx, "execute", "terminal", { command }, async () => {
      if (!viaEditor(methods.client.terminal.create)) {
        const { terminalId } = await terminals.create(
          ctx.sessionId,
          p,
          cwd.real,
          terminalEnv,
        );
        return { terminalId };
      }
      const result = (await editor!.request(
        methods.client.terminal.create,
        params,
        ctx.signal,
      )) as { terminalId: string };
      editorTerminals.add(result.terminalId);
      return result;
    });
  };

  // Later terminal calls go where the terminal was created: the editor or acphub.
  const terminalCall =
    (
      method: BridgeMethod,
      local: (sessionId: string, id: unknown, signal: AbortSignal) => unknown,
    ) =>
    async (params: Params, ctx: HostContext) => {
      const id = String(params["terminalId"]);
      if (!editorTerminals.has(id))
        return local(ctx.sessionId, params["terminalId"], ctx.signal);
      if (method === methods.client.terminal.release)
        editorTerminals.delete(id);
      return editor!.request(method, params, ctx.signal);
    };

  const readFile = (params: Params, ctx: HostContext) =>
    guarded(ctx, "read", "read", { path: String(params["path"]) }, async () => {
      if (!viaEditor(methods.client.fs.readTextFile))
        return readTextFile(params as never, rootsOf(ctx.sessionId), fsLimits);
      await resolveInRoots(params["path"], rootsOf(ctx.sessionId));
      const { content } = (await editor!.request(
        methods.client.fs.readTextFile,
        params,
        ctx.signal,
      )) as { content: string };
      return { content, bytes: Buffer.byteLength(content ?? "") };
    }).then(({ content }) => ({ content }));

  const writeFile = (params: Params, ctx: HostContext) =>
    guarded(
      ctx,
      "write",
      "write",
      { path: String(params["path"]) },
      async () => {
        if (!viaEditor(methods.client.fs.writeTextFile))
          return writeTextFile(
            params as never,
            rootsOf(ctx.sessionId),
            fsLimits,
          );
        const bytes = Buffer.byteLength(String(params["content"] ?? ""));
        if (bytes > fsLimits.maxWriteBytes)
          throw permissionDenied(
            `content is ${bytes} bytes, over the write limit of ${fsLimits.maxWriteBytes}`,
          );
        await resolveInRoots(params["path"], rootsOf(ctx.sessionId));
        await editor!.request(
          methods.client.fs.writeTextFile,
          params,
          ctx.signal,
        );
        return { bytes };
      },
    ).then(() => ({}));

  const t = methods.client.terminal;
  const bridge = {
    [methods.client.fs.readTextFile]: readFile,
    [methods.client.fs.writeTextFile]: writeFile,
    [t.create]: createTerminal,
    [t.output]: terminalCall(t.output, (s, id) => terminals.output(s, id)),
    [t.waitForExit]: terminalCall(t.waitForExit, (s, id, signal) =>
      terminals.waitForExit(s, id, signal),
    ),
    [t.kill]: terminalCall(t.kill, (s, id) => terminals.kill(s, id)),
    [t.release]: terminalCall(t.release, (s, id) => terminals.release(s, id)),
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
