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
  const { audit, folders, editor } = deps;
  const p = params as unknown as CreateParams & { cwd?: string | null };
  const args = p.args ?? [];
  const command = deps.masker.mask(commandLine(String(p.command), args));
  const viaEditor = editor?.handles(methods.client.terminal.create) === true;
  // The allowlist is dropped only where acphub's own sandbox will run the command.
  const sandboxed = deps.sandbox.active && !viaEditor;
  const refused = refusal(deps.policy, String(p.command), args, sandboxed);
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
    p.cwd ?? folders.workspaceOf(ctx.sessionId),
    folders.rootsOf(ctx.sessionId),
  );
  if (!cwd.exists || !(await stat(cwd.real)).isDirectory()) {
    throw permissionDenied(
      `terminal cwd ${p.cwd ?? ""} is not an existing folder`,
    );
  }
  const keys = terminalKeys(String(p.command), args);
  return deps.guard(
    ctx,
    "execute",
    "terminal",
    { command },
    async () => {
      if (!viaEditor) {
        const roots = folders.rootsOf(ctx.sessionId);
        const { terminalId } = await deps.terminals.create(
          ctx.sessionId,
          p,
          cwd.real,
          deps.terminalEnv,
          (argv) => deps.sandbox.wrap(argv, cwd.real, roots, ctx.signal),
        );
        return { response: { terminalId }, viaEditor: false };
      }
      const response = (await editor!.request(
        methods.client.terminal.create,
        params,
        ctx.signal,
      )) as { terminalId: string };
      return { response, viaEditor: true };
    },
    keys,
  );
}
