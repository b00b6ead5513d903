// fs/read_text_file and fs/write_text_file: under the policy, confined to the session's roots,
// served by acphub or, when the editor serves them, relayed to it after acphub's own checks.
import type { BridgeMethod, HostContext } from "../contracts/client-host.js";
import { methods } from "../protocol/methods.js";
import type { Params } from "../protocol/raw.js";
import { permissionDenied } from "../protocol/wire-errors.js";
import type { Audit } from "./audit.js";
import type { EditorBridge } from "./editor-bridge.js";
import {
  readTextFile,
  resolveChecked,
  writeTextFile,
  type FsLimits,
} from "./fs-service.js";
import type { PathCheck } from "./path-policy.js";
import type { Guard } from "./policy-guard.js";
import { resolveInRoots } from "./sandbox-path.js";
import type { SessionFolderBook } from "./session-folders.js";

export interface FsHandlerDeps {
  guard: Guard;
  folders: SessionFolderBook;
  limits: FsLimits;
  editor: EditorBridge | undefined;
  /** The path policy (the OS sandbox's rules), applied in every mode before any question. */
  check: PathCheck;
  audit: Audit;
}

// Refuses a denied path before the permission policy is asked (no question for it); a path
// that does not resolve is left to the handler, which says why.
async function refuseDenied(
  deps: FsHandlerDeps,
  params: Params,
  ctx: HostContext,
  action: "read" | "write",
): Promise<void> {
  const roots = deps.folders.rootsOf(ctx.sessionId);
  const path = String(params["path"]);
  const resolved = await resolveInRoots(path, roots).catch(() => undefined);
  if (!resolved) return;
  try {
    await deps.check(resolved.real, resolved.root, path);
  } catch (error) {
    const reason = (error as Error).message;
    deps.audit(ctx, { action, path, allowed: false, reason });
    throw error;
  }
}

// Builds the two fs handlers of the bridge.
export function fsHandlers(deps: FsHandlerDeps) {
  const { guard, folders, limits, editor, check } = deps;
  const fs = methods.client.fs;
  const viaEditor = (method: BridgeMethod) => editor?.handles(method) === true;

  const readFile = async (params: Params, ctx: HostContext) => {
    await refuseDenied(deps, params, ctx, "read");
    return guard(
      ctx,
      "read",
      "read",
      { path: String(params["path"]) },
      async () => {
        const roots = folders.rootsOf(ctx.sessionId);
        if (!viaEditor(fs.readTextFile))
          return readTextFile(params, roots, limits, check);
        await resolveChecked(params["path"], roots, check);
        const { content } = (await editor!.request(
          fs.readTextFile,
          params,
          ctx.signal,
        )) as { content: string };
        return { content, bytes: Buffer.byteLength(content ?? "") };
      },
    ).then(({ content }) => ({ content }));
  };

  const writeFile = async (params: Params, ctx: HostContext) => {
    await refuseDenied(deps, params, ctx, "write");
    return guard(
      ctx,
      "write",
      "write",
      { path: String(params["path"]) },
      async () => {
        const roots = folders.rootsOf(ctx.sessionId);
        if (!viaEditor(fs.writeTextFile))
          return writeTextFile(params, roots, limits, check);
        const bytes = Buffer.byteLength(String(params["content"] ?? ""));
        if (bytes > limits.maxWriteBytes)
          throw permissionDenied(
            `content is ${bytes} bytes, over the write limit of ${limits.maxWriteBytes}`,
          );
        await resolveChecked(params["path"], roots, check);
        await editor!.request(fs.writeTextFile, params, ctx.signal);
        return { bytes };
      },
    ).then(() => ({}));
  };

  return { [fs.readTextFile]: readFile, [fs.writeTextFile]: writeFile };
}
