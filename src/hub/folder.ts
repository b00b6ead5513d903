// The hub refuses a new session in a folder that cannot be one: not an absolute path, not
// there, or not a directory — with an error that says which, before any agent is started.
import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { HubError } from "../shared/errors.js";

/** Throws a USAGE error unless `cwd` is an absolute path to an existing directory. */
export async function checkFolder(cwd: unknown): Promise<void> {
  if (typeof cwd !== "string" || !cwd)
    throw new HubError("USAGE", "the working folder (cwd) is missing");
  if (!isAbsolute(cwd))
    throw new HubError(
      "USAGE",
      `the working folder must be an absolute path: ${JSON.stringify(cwd)}`,
    );
  const found = await stat(cwd).catch(() => undefined);
  if (!found)
    throw new HubError(
      "USAGE",
      `the working folder does not exist: ${JSON.stringify(cwd)}`,
    );
  if (!found.isDirectory())
    throw new HubError(
      "USAGE",
      `the working folder is not a directory: ${JSON.stringify(cwd)}`,
    );
}
