// The commands a command runs: `env X=1 git`, `xargs nc`, `find -exec nc {} ;`, `nice`,
// `timeout 5 nc`, `command nc`, `exec nc`, `trap 'nc' EXIT`, `sh -c '…'` all run another
// command, which the check must judge too; and the builtins that assign variables by name
// (`export`, `local`, `read`, `printf -v`), whose names the check must see.
import { basename } from "node:path";
import { readScript, type ScriptReading } from "./shell-script.js";

/** A command to judge, or a script it runs, or a reason it cannot be read. */
export type Judged =
  | { argv: string[] }
  | { script: ScriptReading }
  | { unreadable: string }
  | { assigns: string[] };

export const SHELLS: ReadonlySet<string> = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
]);

/** Options of `xargs` and `timeout`/`nice`/`stdbuf` that take a separate value. */
const VALUE_OPTIONS: Record<string, ReadonlySet<string>> = {
  xargs: new Set(["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s"]),
  timeout: new Set(["-k", "-s", "--kill-after", "--signal"]),
  nice: new Set(["-n", "--adjustment"]),
  stdbuf: new Set(["-i", "-o", "-e"]),
  command: new Set(),
  exec: new Set(["-a"]),
  nohup: new Set(),
  setsid: new Set(),
};
const ENV_FLAGS = new Set(["-i", "-0", "-v", "--ignore-environment", "--null"]);

// The argv after a runner's options (and, for timeout, its duration).
function afterOptions(name: string, args: string[]): string[] {
  const takes = VALUE_OPTIONS[name]!;
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-") && args[i] !== "-") {
    if (args[i] === "--") return args.slice(i + 1);
    i += takes.has(args[i]!) ? 2 : 1;
  }
  return name === "timeout" ? args.slice(i + 1) : args.slice(i);
}

// `env [opts] [NAME=V]… [cmd …]`: the assigned names and the command; options env could use
// to run something unseen (`-S`, `-P`) make it unreadable.
function envCommand(args: string[]): Judged[] {
  const assigns: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") continue;
    if (ENV_FLAGS.has(a)) continue;
    if (a === "-u" || a === "-C") i++;
    else if (/^--(unset|chdir)=/.test(a)) continue;
    else if (a.startsWith("-"))
      return [{ unreadable: `env option ${a} is not understood` }];
    else if (/^[^=]+=/.test(a)) assigns.push(a.slice(0, a.indexOf("=")));
    else break;
  }
  const rest = args.slice(i);
  return [{ assigns }, ...(rest.length ? runs(rest) : [])];
}

// `find … -exec cmd … ;`: each command find runs.
function findCommands(args: string[]): Judged[] {
  const out: Judged[] = [];
  for (let i = 0; i < args.length; i++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(args[i]!)) continue;
    const end = args.findIndex((a, j) => j > i && (a === ";" || a === "+"));
    const argv = args.slice(i + 1, end < 0 ? undefined : end);
    if (argv.length) out.push(...runs(argv));
    i = end < 0 ? args.length : end;
  }
  return out;
}

/** Shell options that take a value (`-o errexit`, `--rcfile FILE`). */
const SHELL_VALUES = new Set([
  "-o",
  "+o",
  "-O",
  "+O",
  "--rcfile",
  "--init-file",
]);

// The script a shell runs with `-c` (alone or in a cluster: `-lc`, `-ec`), read; a shell
// without `-c` reads a file or stdin, which the check cannot see.
function shellCommand(argv: string[]): Judged[] {
  let command = false;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (SHELL_VALUES.has(a)) i++;
    else if (a === "--" || a === "-") {
      const next = argv[i + 1];
      return command && next !== undefined
        ? [{ script: readScript(next) }]
        : [];
    } else if (/^[-+][A-Za-z]+$/.test(a)) command ||= a.includes("c");
    else if (a.startsWith("--")) continue;
    else return command ? [{ script: readScript(a) }] : [];
  }
  return command ? [{ unreadable: "a shell -c without its script" }] : [];
}

// Everything one simple command runs: itself and what it hands on to.
export function runs(argv: string[]): Judged[] {
  const [head, ...args] = argv;
  if (head === undefined) return [];
  const self: Judged = { argv };
  const name = basename(head);
  if (name === "env") return [self, ...envCommand(args)];
  if (name === "xargs") {
    const rest = afterOptions(name, args);
    return [self, ...(rest.length ? runs(rest) : [])];
  }
  if (name === "find") return [self, ...findCommands(args)];
  if (name in VALUE_OPTIONS) {
    const rest = afterOptions(name, args);
    return [self, ...(rest.length ? runs(rest) : [])];
  }
  if (head === "trap" && args[0] !== undefined && !args[0].startsWith("-"))
    return [self, { script: readScript(args[0]) }];
  if (SHELLS.has(name)) return [self, ...shellCommand(argv)];
  return [self, ...assigningBuiltin(head, args)];
}

/** Options of `read` that take a value. */
const READ_VALUES = new Set(["-d", "-i", "-n", "-N", "-p", "-t", "-u"]);

// The names `export`/`local`/`read`/`printf -v`/`unset` assign; a name made by an expansion
// cannot be judged.
function assigningBuiltin(head: string, args: string[]): Judged[] {
  let names: string[] = [];
  if (head === "export" || head === "local")
    names = args
      .filter((a) => !a.startsWith("-"))
      .map((a) => a.split(/\+?=/)[0]!);
  else if (head === "read") {
    for (let i = 0; i < args.length; i++) {
      if (READ_VALUES.has(args[i]!)) i++;
      else if (args[i] === "-a") names.push(args[++i] ?? "");
      else if (!args[i]!.startsWith("-")) names.push(args[i]!);
    }
  } else if (head === "printf") {
    const at = args.indexOf("-v");
    if (at >= 0) names.push(args[at + 1] ?? "");
  } else return [];
  const computed = names.find(
    (n) => !/^[A-Za-z_][A-Za-z0-9_]*(\[.*\])?$/.test(n),
  );
  if (computed !== undefined)
    return [
      {
        unreadable: `${head} assigns a variable whose name is not written out (${computed})`,
      },
    ];
  return [{ assigns: names.map((n) => n.replace(/\[.*$/, "")) }];
}
