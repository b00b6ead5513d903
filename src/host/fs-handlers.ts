// fs/read_text_file and fs/write_text_file: under the policy, confined to the session's roots,
// served by acphub or, when the editor serves them, relayed to it after acphub's own checks.
import type { BridgeMethod, HostContext } from "../contracts/client-host.js";
import { methods } from "../protocol/methods.js";
import type { Params } from "../protocol/raw.js";
import { permissionDenied } from "../protocol/wire-errors.js";
import type { EditorBridge } from "./editor-bridge.js";
import { readTextFile, writeTextFile, type FsLimits } from "./fs-service.js";
import type { Guard } from "./policy-guard.js";
import { resolveInRoots } from "./sandbox-path.js";
import type { SessionFolderBook } from "./session-folders.js";

export interface FsHandlerDeps {
  guard: Guard;
  folders: SessionFolderBook;
  limits: FsLimits;
  editor: EditorBridge | undefined;
}

// Builds the two fs handlers of the bridge.
export function fsHandlers({ guard, folders, limits, editor }: FsHandlerDeps) {
  const fs = methods.client.fs;
  const viaEditor = (method: BridgeMethod) => editor?.handles(method) === true;

  const readFile = (params: Params, ctx: HostContext) =>
    guard(ctx, "read", "read", { path: String(params["path"]) }, async () => {
      const roots = folders.rootsOf(ctx.sessionId);
      if (!viaEditor(fs.readTextFile))
        return readTextFile(params, roots, limits);
      await resolveInRoots(params["path"], roots);
      const { content } = (await editor!.request(
        fs.readTextFile,
        params,
        ctx.signal,
      )) as { content: string };
      return { content, bytes: Buffer.byteLength(content ?? "") };
    }).then(({ content }) => ({ content }));

  const writeFile = (params: Params, ctx: HostContext) =>
    guard(ctx, "write", "write", { path: String(params["path"]) }, async () => {
      const roots = folders.rootsOf(ctx.sessionId);
      if (!viaEditor(fs.writeTextFile))
        return writeTextFile(params, roots, limits);
      const bytes = Buffer.byteLength(String(params["content"] ?? ""));
      if (bytes > limits.maxWriteBytes)
        throw permissionDenied(
          `content is ${bytes} bytes, over the write limit of ${limits.maxWriteBytes}`,
        );
      await resolveInRoots(params["path"], roots);
      await editor!.request(fs.writeTextFile, params, ctx.signal);
      return { bytes };
    }).then(() => ({}));

  return { [fs.readTextFile]: readFile, [fs.writeTextFile]: writeFile };
}
