// The deny rule `rm-rf-root-or-home`, judged on the words of each `rm` the script runs rather
// than on its text: every spelling of home and root (`~`, `~/`, `~/*`, `~/.`, `$HOME`,
// `${HOME}`, `"$HOME"`, `/root`, `/`, `/*`, globs that match them, `..` climbing to them, a
// whole folder named only by an expansion), with flags in any order, combined or long, and `--`.
import { homedir } from "node:os";
import { basename, isAbsolute, posix, resolve } from "node:path";

export const HOME_RULE = "rm-rf-root-or-home";

// True for an `rm` that removes recursively (`-r`, `-R`, `-rf`, `-fr`, `--recursive`, any order).
function recursiveOperands(args: readonly string[]): string[] | undefined {
  let recursive = false;
  let options = true;
  const operands: string[] = [];
  for (const a of args) {
    if (options && a === "--") options = false;
    else if (options && a.startsWith("--"))
      recursive ||=
        a === "--recursive" || a === "--recursiv" || a === "--recur";
    else if (options && /^-[A-Za-z]/.test(a)) recursive ||= /[rR]/.test(a);
    else operands.push(a);
  }
  return recursive ? operands : undefined;
}

/** An expansion at the start of a word: `$X`, `${…}`, `$(…)`. */
const LEADING_EXPANSION =
  /^(\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$\(…\)|\$[0-9@*#?$!-])/;

// A glob as a test on one path (`*` and `?` within a component, `[…]` classes).
function globTest(pattern: string): (path: string) => boolean {
  const source = pattern
    .split("")
    .map((ch) =>
      ch === "*"
        ? "[^/]*"
        : ch === "?"
          ? "[^/]"
          : /[.+^${}()|\\]/.test(ch)
            ? `\\${ch}`
            : ch,
    )
    .join("");
  try {
    const re = new RegExp(`^${source}$`);
    return (path) => re.test(path);
  } catch {
    return () => true;
  }
}

// The folders whose removal takes home or root with them: `/`, home and its ancestors, /root.
function protectedFolders(home: string): string[] {
  const out = new Set(["/", "/root", "/home"]);
  for (let p = home; p !== "/" && p !== "."; p = posix.dirname(p)) out.add(p);
  return [...out];
}

// True when the operand names home, root or an ancestor of them, however it is spelled.
export function namesHomeOrRoot(
  word: string,
  home = homedir(),
  cwd?: string,
): boolean {
  let path = word.replace(/^(~|\$HOME|\$\{HOME\})(?=\/|$)/, home);
  if (path.startsWith("~")) return true; // ~user, ~+, ~-
  const expansion = LEADING_EXPANSION.exec(path);
  if (expansion) {
    // A whole folder named only by an expansion (`"$DIR"`, `$(…)/`, `${X}/*`): unknown.
    if (/^\/*(\.|\*|\.\*)?\/*$/.test(path.slice(expansion[0].length)))
      return true;
    path = "/unknown" + path.slice(expansion[0].length);
  }
  if (!isAbsolute(path)) {
    if (cwd === undefined) return false;
    path = resolve(cwd, path);
  }
  let normal = posix.normalize(path);
  for (;;) {
    const trimmed = normal.replace(/\/(\*|\.\*|\.)?$/, "");
    if (trimmed === normal) break;
    normal = trimmed;
  }
  if (normal === "") normal = "/";
  const test = globTest(normal);
  return protectedFolders(home).some((f) => f === normal || test(f));
}

// The refusal for an `rm` that removes home or root recursively, or undefined.
export function homeRefusal(
  argv: readonly string[],
  home = homedir(),
  cwd?: string,
): string | undefined {
  if (argv.length === 0 || basename(argv[0]!) !== "rm") return undefined;
  const operands = recursiveOperands(argv.slice(1)) ?? [];
  const hit = operands.find((o) => namesHomeOrRoot(o, home, cwd));
  if (hit === undefined) return undefined;
  return `command refused by deny rule "${HOME_RULE}": rm removes ${JSON.stringify(hit)} recursively, which is (or holds) the home folder or the root`;
}
