// Which commands an agent may run in a terminal: deny rules (text patterns over the whole
// command line, and the home/root rule over the words of each `rm`) everywhere; where no OS
// sandbox runs, also an allowlist of executables (resolved paths), no loader variables, and
// scripts read whole. A speed bump, not a boundary: the OS sandbox is the boundary. A refusal
// names the rule that refused.
import { loaderRefusal } from "../shared/env-filter.js";
import { allowedExecutables, onSearchPath } from "./command-path.js";
import { homeRefusal } from "./command-home.js";
import { runs, type Judged } from "./command-runners.js";
import { isShellLine, readScript } from "./shell-script.js";

export { SHELLS } from "./command-runners.js";

export interface DenyRule {
  name: string;
  pattern: string;
}

// prettier-ignore
export const DEFAULT_ALLOWED_COMMANDS: readonly string[] = [
  "sh", "bash", "zsh", "dash", "node", "npm", "npx", "pnpm", "yarn", "bun", "deno", "tsc",
  "python", "python3", "pip", "pip3", "uv", "pytest", "git", "make", "cmake", "ninja", "gcc",
  "g++", "cc", "c++", "clang", "clang++", "cargo", "rustc", "go", "java", "javac", "mvn",
  "gradle", "ls", "cat", "echo", "printf", "head", "tail", "wc", "grep", "egrep", "rg", "find",
  "fd", "sed", "awk", "sort", "uniq", "cut", "tr", "xargs", "diff", "patch", "mkdir", "touch",
  "cp", "mv", "rm", "ln", "pwd", "true", "false", "test", "[", "sleep", "date", "env", "which",
  "tee", "basename", "dirname", "realpath", "stat", "file", "du", "df", "jq", "yes", "seq",
];

/** Text rules; `rm-rf-root-or-home` is also judged on the words of each `rm` (command-home.ts),
 *  which knows the spellings a pattern cannot. */
export const DEFAULT_DENY_RULES: readonly DenyRule[] = [
  {
    name: "rm-rf-root-or-home",
    pattern: String.raw`\brm\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-[a-zA-Z]+\s+)*(/|/\*|~|~/|\$HOME|\$\{HOME\})(?=[\s;&|'")]|$)`,
  },
  { name: "rm-no-preserve-root", pattern: String.raw`--no-preserve-root` },
  { name: "mkfs", pattern: String.raw`\bmkfs(\.\w+)?\b` },
  { name: "dd-to-device", pattern: String.raw`\bdd\b.*\bof=/dev/` },
  {
    name: "write-to-disk-device",
    pattern: String.raw`>\s*/dev/(sd|nvme|hd|vd|xvd|mmcblk|disk)`,
  },
  { name: "fork-bomb", pattern: String.raw`:\s*\(\s*\)\s*\{.*:\s*\|\s*:.*\}` },
  {
    name: "download-piped-to-shell",
    pattern: String.raw`\b(curl|wget|fetch)\b[^|]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b`,
  },
  {
    name: "privilege-escalation",
    pattern: String.raw`(^|[\s;&|(])(sudo|su|doas|pkexec)(\s|$)`,
  },
  {
    name: "power-off",
    pattern: String.raw`(^|[\s;&|])(shutdown|reboot|halt|poweroff|init\s+0)(\s|$)`,
  },
  {
    name: "chmod-root-recursive",
    pattern: String.raw`\bch(mod|own)\s+-R\s+\S+\s+/(\s|$)`,
  },
  { name: "system-credentials", pattern: String.raw`/etc/(shadow|sudoers)\b` },
];

export interface CommandPolicy {
  /** Executable names (found on acphub's own PATH) or absolute paths. */
  allow: readonly string[];
  deny: readonly DenyRule[];
  /** Loader and shell-start variables an agent's terminal `env` may set anyway (by name). */
  allowEnv?: readonly string[];
  /** Where allowed names are looked up (default: acphub's own PATH). */
  searchPath?: string;
}

/** Builtins a script may use (`exec` and `command` run a command that is judged itself);
 *  `eval`, `source`, `alias`, `hash`, `declare` are not here. */
// prettier-ignore
const SHELL_WORDS: ReadonlySet<string> = new Set([
  "exit", "wait", "cd", "export", "set", "unset", "read", "trap", "return", "shift", "local",
  "true", "false", "test", "echo", "printf", ":", "[", "command", "exec", "break", "continue",
  "pwd", "umask",
]);

// The command line as one string, for deny patterns and audit records.
export function commandLine(command: string, args: readonly string[]): string {
  if (isShellLine(command, args)) return command;
  return [command, ...args]
    .map((a) => (/[\s"'\\$]/.test(a) ? JSON.stringify(a) : a))
    .join(" ");
}

/** Where and how the command would run. */
export interface CommandContext {
  /** True under acphub's OS sandbox: only the deny rules apply. */
  sandboxed?: boolean;
  /** The agent's `env` for the terminal. */
  env?: readonly { name: string; value: string }[];
  /** The terminal's cwd, for relative paths. */
  cwd?: string;
}

// Every command the terminal would run, judged: the argv itself, scripts it runs, runners.
function judged(command: string, args: readonly string[]): Judged[] {
  if (isShellLine(command, args))
    return [{ argv: ["sh"] }, { script: readScript(command) }];
  return runs([command, ...args]);
}

// Returns the reason the command is refused, or undefined when it may run. Under the OS
// sandbox only the deny rules apply: the sandbox, not the allowlist, is the boundary.
export function refusal(
  policy: CommandPolicy,
  command: string,
  args: readonly string[],
  context: CommandContext | boolean = {},
): string | undefined {
  const ctx = typeof context === "boolean" ? { sandboxed: context } : context;
  const line = commandLine(command, args);
  for (const rule of policy.deny) {
    if (
      new RegExp(rule.pattern).test(line) ||
      new RegExp(rule.pattern).test([command, ...args].join(" "))
    ) {
      return `command refused by deny rule "${rule.name}" (/${rule.pattern}/)`;
    }
  }
  const all = flatten(judged(command, args));
  for (const argv of all.argv) {
    const home = homeRefusal(argv, undefined, ctx.cwd);
    if (home) return home;
  }
  if (ctx.sandboxed) return undefined;
  return unsandboxedRefusal(policy, ctx, all);
}

// What the check refuses where no OS sandbox runs: loader variables, unreadable scripts,
// executables not on the allowlist.
function unsandboxedRefusal(
  policy: CommandPolicy,
  ctx: CommandContext,
  all: Flat,
): string | undefined {
  const envName = loaderRefusal(
    (ctx.env ?? []).map((e) => e.name),
    policy.allowEnv,
  );
  if (envName)
    return `command refused by rule "loader-env": the agent's env may not set ${envName} (allow it by name in terminals.allowAgentEnv)`;
  if (all.unreadable)
    return `command refused: the script cannot be checked (${all.unreadable})`;
  const assigned = loaderRefusal(all.assigns, policy.allowEnv);
  if (assigned)
    return `command refused by rule "loader-env": the script sets ${assigned} (allow it by name in terminals.allowAgentEnv)`;
  const allowed = allowedExecutables(policy, ctx.cwd);
  // A function name counts only when no program of that name is there to run instead (a
  // function defined in a subshell or a branch not taken leaves the program to run).
  const fn = (exe: string) =>
    all.functions.has(exe) && !exe.includes("/") && !onSearchPath(policy, exe);
  const missing = all.argv
    .map((argv) => argv[0]!)
    .find((exe) => !fn(exe) && !SHELL_WORDS.has(exe) && !allowed(exe));
  if (missing !== undefined)
    return `command refused: "${missing}" is not in the allowed executables (terminals.allow; a name there means the program of that name on acphub's own PATH)`;
  return undefined;
}

interface Flat {
  argv: string[][];
  assigns: string[];
  functions: Set<string>;
  unreadable?: string;
}

// Flattens the judged commands and the scripts they run into one list.
function flatten(list: Judged[], out?: Flat): Flat {
  const flat = out ?? { argv: [], assigns: [], functions: new Set<string>() };
  for (const item of list) {
    if ("argv" in item) flat.argv.push(item.argv);
    else if ("assigns" in item) flat.assigns.push(...item.assigns);
    else if ("unreadable" in item) flat.unreadable ??= item.unreadable;
    else {
      const r = item.script;
      if (r.unreadable) flat.unreadable ??= r.unreadable;
      flat.assigns.push(...r.assigned);
      for (const f of r.functions) flat.functions.add(f);
      for (const c of r.commands) {
        flat.assigns.push(...c.assigns);
        flatten(runs(c.words), flat);
      }
    }
  }
  return flat;
}
