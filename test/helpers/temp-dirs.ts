// The folders tests make under the OS temp dir (homes, projects, ledgers), removed once their test
// file is done (./remove-temp-dirs.ts, a setup file of vitest.config.ts), so that a run does not
// leave hundreds of them behind. ACPHUB_KEEP_TMP=1 keeps them for a look after a failure.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made = new Set<string>();

export function tempDir(prefix = "acphub-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every folder tempDir made in this test file (and the members' workspaces a hub with
 *  one as its state folder made beside it: `{stateDir}-workspaces`, host/user-roots.ts); the
 *  ones it could not remove. */
export function removeTempDirs(): string[] {
  const left: string[] = [];
  for (const dir of [...made].flatMap((d) => [d, `${d}-workspaces`])) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      left.push(dir); // a process of the test still writing there; harmless to leave
    }
  }
  made.clear();
  return left;
}
