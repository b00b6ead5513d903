// Which commands an agent may run in a terminal: an allowlist of executables, and deny
// patterns matched against the whole command line (the script of `sh -c` included). A refusal
// names the rule that refused.
import { basename } from "node:path";
import { isShellLine, scriptCommands } from "./shell-script.js";

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
  allow: readonly string[];
  deny: readonly DenyRule[];
}

export const SHELLS: ReadonlySet<string> = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
]);

/** Shell keywords and builtins a script may use; `eval`, `exec` and `source` are not here. */
// prettier-ignore
const SHELL_WORDS: ReadonlySet<string> = new Set([
  "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
  "in", "function", "{", "}", "!", "[[", "]]", "time", "exit", "wait", "cd", "export", "set",
  "unset", "read", "trap", "return", "shift", "local", "true", "false", "test", "echo", "printf",
]);

// The command line as one string, for deny patterns and audit records.
export function commandLine(command: string, args: readonly string[]): string {
  if (isShellLine(command, args)) return command;
  return [command, ...args]
    .map((a) => (/[\s"'\\$]/.test(a) ? JSON.stringify(a) : a))
    .join(" ");
}

// The shell script a command runs, if any: `sh -c SCRIPT`, or a whole shell line with no args.
function scriptOf(command: string, args: readonly string[]) {
  if (isShellLine(command, args)) return command;
  if (!SHELLS.has(basename(command))) return undefined;
  const at = args.indexOf("-c");
  return at >= 0 ? args[at + 1] : undefined;
}

// Returns the reason the command is refused, or undefined when it may run. Under the OS
// sandbox only the deny rules apply: the sandbox, not the allowlist, is the boundary.
export function refusal(
  policy: CommandPolicy,
  command: string,
  args: readonly string[],
  sandboxed = false,
): string | undefined {
  const line = commandLine(command, args);
  for (const rule of policy.deny) {
    if (
      new RegExp(rule.pattern).test(line) ||
      new RegExp(rule.pattern).test([command, ...args].join(" "))
    ) {
      return `command refused by deny rule "${rule.name}" (/${rule.pattern}/)`;
    }
  }
  if (sandboxed) return undefined;
  const allowed = new Set(policy.allow);
  const script = scriptOf(command, args);
  const executables = isShellLine(command, args) ? ["sh"] : [basename(command)];
  if (script !== undefined)
    executables.push(...scriptCommands(script).map((w) => basename(w)));
  const missing = executables.find(
    (exe, i) => !allowed.has(exe) && !(i > 0 && SHELL_WORDS.has(exe)),
  );
  if (missing)
    return `command refused: "${missing}" is not in the allowed executables (terminals.allow)`;
  return undefined;
}
