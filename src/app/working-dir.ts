// The working folder a command was given, checked before any agent is spawned: a missing
// folder is the user's mistake (exit 2), not a missing program.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { HubError } from "../shared/errors.js";

// The absolute folder for `--cwd` (default: the current one); it must exist and be a folder.
export function workingDir(cwd: string | undefined): string {
  const dir = resolve(cwd ?? process.cwd());
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new HubError("USAGE", `no such directory: ${cwd ?? dir}`);
  }
  if (!isDir) throw new HubError("USAGE", `not a directory: ${cwd ?? dir}`);
  return dir;
}
