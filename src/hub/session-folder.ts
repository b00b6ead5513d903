// The folder a client asks the hub to open a session in, checked before any agent sees it: the
// same rule as the CLI's --cwd (absolute, exists, a directory), as a clear invalid-params error.
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { HubUser } from "../contracts/users.js";
import { HubError } from "../shared/errors.js";

/**
 * Refuses a session's folders (cwd, additionalDirectories) outside the user's roots, or ones
 * that are never roots (`/`, $HOME, protected paths); `null` for the user: a session shared
 * with them, where only the never-roots rule applies. Built by app/ from `users.roots`.
 */
export type FolderCheck = (
  folders: { cwd: unknown; additionalDirectories?: unknown },
  user: HubUser | undefined | null,
) => Promise<void>;

// Throws a USAGE error (-32602 on the wire) unless `cwd` is an absolute path to a directory.
export function checkSessionFolder(cwd: unknown): void {
  if (typeof cwd !== "string" || cwd === "")
    throw new HubError("USAGE", "session/new needs cwd, an absolute folder");
  const quoted = JSON.stringify(cwd);
  if (!isAbsolute(cwd))
    throw new HubError(
      "USAGE",
      `the working folder (cwd) must be an absolute path: ${quoted}`,
    );
  let isDir: boolean;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    throw new HubError(
      "USAGE",
      `the working folder does not exist on the hub: ${quoted}`,
    );
  }
  if (!isDir)
    throw new HubError(
      "USAGE",
      `the working folder is not a directory: ${quoted}`,
    );
}
