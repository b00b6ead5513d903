// The empty files and folders bubblewrap makes on the host for one command: a bind whose
// destination is absent gets a mount point made there (the runtime's protected dotfiles that
// acphub's working folder lacks: .bashrc, .mcp.json, .claude, …), and absent directories are
// covered by an empty folder the runtime makes in the temp folder. The runtime removes them
// once no sandboxed command is left running; after a kill -9 of acphub nobody would, so they
// are recorded with the process (agents/orphans.ts) and the next acphub removes those still as
// bubblewrap made them (shared/mount-leftovers.ts).
import { lstatSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, resolve, sep } from "node:path";
import { parse } from "shell-quote";

const BINDS = new Set([
  "--bind",
  "--ro-bind",
  "--dev-bind",
  "--bind-try",
  "--ro-bind-try",
  "--dev-bind-try",
]);

const absent = (path: string) =>
  lstatSync(path, { throwIfNoEntry: false }) === undefined;

/** The mount points this process's commands made (the runtime keeps them while any runs). */
const made = new Set<string>();

/**
 * What bubblewrap will make or use for the wrapped `argv` (found before it runs): the
 * destinations of its binds that are absent or were made for an earlier command of this
 * process still running, and the temp folders bound onto them. The runtime hands bubblewrap
 * its options inside a `sh -c` script; options given as argv are read too.
 */
export function mountPointsOf(argv: readonly string[]): string[] {
  const temp = resolve(tmpdir()) + sep;
  const found = new Set<string>();
  const lists = [argv, ...argv.filter((a) => a.includes(" ")).map(words)];
  for (const list of lists)
    for (let i = 0; i + 2 < list.length && list[i] !== "--"; i++) {
      if (!BINDS.has(list[i]!)) continue;
      const [source, dest] = [list[i + 1]!, list[i + 2]!];
      i += 2;
      if (!isAbsolute(dest) || !(made.has(dest) || absent(dest))) continue;
      made.add(dest);
      found.add(dest);
      if (source.startsWith(temp)) found.add(source);
    }
  return [...found];
}

// A shell line's words (operators and globs kept as the text they stand for).
function words(line: string): string[] {
  return parse(line).map((w) =>
    typeof w === "string" ? w : "pattern" in w ? w.pattern : "",
  );
}
