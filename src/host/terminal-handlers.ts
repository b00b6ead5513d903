// terminal/*: a new terminal passes the command policy, a cwd inside the roots and the
// permission policy, then runs in acphub or in the editor; later calls for a terminal go where
// it was created.
import { stat } from "node:fs/promises";
import type { BridgeMethod, HostContext } from "../contracts/client-host.js";
import { methods } from "../protocol/methods.js";
import type { Params } from "../protocol/raw.js";
import { permissionDenied } from "../protocol/wire-errors.js";
import type { SecretMasker } from "../shared/secrets.js";
import type { Audit } from "./audit.js";
import { commandLine, refusal, type CommandPolicy } from "./command-policy.js";
import type { EditorBridge } from "./editor-bridge.js";
import type { Guard } from "./policy-guard.js";
import { resolveInRoots } from "./sandbox-path.js";
import type { TerminalSandbox } from "./sandbox/terminal-sandbox.js";
import type { SessionFolderBook } from "./session-folders.js";
import { terminalKeys } from "./tool-call-scope.js";
import type { CreateParams, TerminalManager } from "./terminals.js";

export interface TerminalHandlerDeps {
  guard: Guard;
  audit: Audit;
  folders: SessionFolderBook;
  policy: CommandPolicy;
  terminals: TerminalManager;
  terminalEnv: Record<string, string>;
  masker: SecretMasker;
  editor: EditorBridge | undefined;
  /** The OS sandbox acphub's own terminals run in (or not). */
  sandbox: TerminalSandbox;
  /** The permission policy for a command acphub runs itself (a workflow's shell step). */
  checkOwn: (
    ctx: HostContext,
    command: string,
    keys: string[],
    preapproved: boolean,
  ) => Promise<{ allowed: boolean; reason: string }>;
}

// Builds the five terminal handlers of the bridge.
export function terminalHandlers(deps: TerminalHandlerDeps) {
  const { terminals, editor } = deps;
  /** Terminal ids the editor created (their later calls go back to it). */
  const editorTerminals = new Set<string>();
  const t = methods.client.terminal;

  const create = async (params: Params, ctx: HostContext) => {
    const { response, viaEditor } = await createTerminal(deps, params, ctx);
    if (viaEditor) editorTerminals.add(response.terminalId);
    return response;
  };

  // Later terminal calls go where the terminal was created: the editor or acphub.
  const call =
    (
      method: BridgeMethod,
      local: (sessionId: string, id: unknown, signal: AbortSignal) => unknown,
    ) =>
    async (params: Params, ctx: HostContext) => {
      const id = String(params["terminalId"]);
      if (!editorTerminals.has(id))
        return local(ctx.sessionId, params["terminalId"], ctx.signal);
      if (method === t.release) editorTerminals.delete(id);
      return editor!.request(method, params, ctx.signal);
    };

  return {
    [t.create]: create,
    [t.output]: call(t.output, (s, id) => terminals.output(s, id)),
    [t.waitForExit]: call(t.waitForExit, (s, id, signal) =>
      terminals.waitForExit(s, id, signal),
    ),
    [t.kill]: call(t.kill, (s, id) => terminals.kill(s, id)),
    [t.release]: call(t.release, (s, id) => terminals.release(s, id)),
  };
}

// Checks and starts one terminal; says whether the editor runs it (its answer kept whole).
async function createTerminal(
  deps: TerminalHandlerDeps,
  params: Params,
  ctx: HostContext,
): Promise<{ response: { terminalId: string }; viaEditor: boolean }> {
  const p = params as unknown as CreateParams & { cwd?: string | null };
  const viaEditor =
    deps.editor?.handles(methods.client.terminal.create) === true;
  const cwd = await checkTerminal(deps, p, ctx, viaEditor);
  const keys = terminalKeys(String(p.command), p.args ?? []);
  return deps.guard(
    ctx,
    "execute",
    "terminal",
    { command: shownCommand(deps, p) },
    async () => {
      if (!viaEditor)
        return { response: await spawnLocal(deps, p, cwd, ctx), viaEditor };
      const response = (await deps.editor!.request(
        methods.client.terminal.create,
        params,
        ctx.signal,
      )) as { terminalId: string };
      return { response, viaEditor: true };
    },
    keys,
  );
}

// A terminal acphub starts for itself (a workflow's shell step), through the same command
// policy, permission policy and OS sandbox as an agent's; only a literal command the workflow
// file pre-approves skips the permission question.
export async function startOwnTerminal(
  deps: TerminalHandlerDeps,
  params: CreateParams & { cwd?: string | null },
  ctx: HostContext,
  preapproved = false,
): Promise<{ terminalId: string }> {
  const cwd = await checkTerminal(deps, params, ctx, false);
  const keys = terminalKeys(String(params.command), params.args ?? []);
  const command = shownCommand(deps, params);
  const verdict = await deps.checkOwn(ctx, command, keys, preapproved);
  auditTerminal(deps, ctx, params, verdict.allowed, verdict.reason);
  if (!verdict.allowed)
    throw permissionDenied(`refused by policy: ${verdict.reason}`, {
      reason: verdict.reason,
    });
  return spawnLocal(deps, params, cwd, ctx);
}

// The command as shown in audit records and permission questions (secrets masked).
function shownCommand(deps: TerminalHandlerDeps, p: CreateParams): string {
  return deps.masker.mask(commandLine(String(p.command), p.args ?? []));
}

// One audit record for a terminal, allowed or refused.
function auditTerminal(
  deps: TerminalHandlerDeps,
  ctx: HostContext,
  p: CreateParams,
  allowed: boolean,
  reason: string,
): void {
  deps.audit(ctx, {
    action: "terminal",
    command: shownCommand(deps, p),
    allowed,
    reason,
  });
}

// The command policy (the allowlist dropped only where acphub's own sandbox runs the command)
// and a cwd inside the session's roots; returns the cwd's real path.
async function checkTerminal(
  deps: TerminalHandlerDeps,
  p: CreateParams & { cwd?: string | null },
  ctx: HostContext,
  viaEditor: boolean,
): Promise<string> {
  const { folders } = deps;
  const sandboxed = deps.sandbox.active && !viaEditor;
  const cwd = await resolveInRoots(
    p.cwd ?? folders.workspaceOf(ctx.sessionId),
    folders.rootsOf(ctx.sessionId),
  );
  const refused = refusal(deps.policy, String(p.command), p.args ?? [], {
    sandboxed,
    env: Array.isArray(p.env) ? p.env : [],
    cwd: cwd.real,
  });
  if (refused) {
    auditTerminal(deps, ctx, p, false, refused);
    throw permissionDenied(refused, { reason: refused });
  }
  if (!cwd.exists || !(await stat(cwd.real)).isDirectory()) {
    throw permissionDenied(
      `terminal cwd ${p.cwd ?? ""} is not an existing folder`,
    );
  }
  return cwd.real;
}

// Spawns the terminal in acphub, inside the OS sandbox when there is one (refused under `os`
// without it).
async function spawnLocal(
  deps: TerminalHandlerDeps,
  p: CreateParams,
  cwd: string,
  ctx: HostContext,
): Promise<{ terminalId: string }> {
  const roots = deps.folders.rootsOf(ctx.sessionId);
  const { terminalId } = await deps.terminals.create(
    ctx.sessionId,
    p,
    cwd,
    deps.terminalEnv,
    (argv) => deps.sandbox.wrap(argv, cwd, roots, ctx.signal),
  );
  return { terminalId };
}
