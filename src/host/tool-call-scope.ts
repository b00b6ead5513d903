// What an allowed tool call covers. An agent's own permission question and the fs/terminal
// requests that carry the action out are one action to the user, so an allowed permission
// grants the requests that match it — and nothing else:
//
// - Paths: every path the tool call names — rawInput `file_path`, `filePath`, `path`,
//   `abs_path`, `absPath`, `notebook_path`; `locations[].path`; the `path` of `diff` content —
//   resolved against the session's cwd. An fs request matches when its path, resolved the
//   same way, is one of them exactly (a folder does not cover the files inside it).
// - Commands: rawInput `command` (or `cmd`), a shell line or an argv array; for an argv that is
//   `<shell> -c SCRIPT` (`bash -lc …`) the script too. A terminal/create matches when its
//   `command` and `args` joined by spaces, or the script of a `<shell> -c SCRIPT` it runs, equals
//   one of them after runs of whitespace are collapsed.
//
// The grant lasts until the turn ends and covers only the accesses of the tool call's kind.
import { basename, resolve } from "node:path";
import type { ToolCallUpdate } from "@agentclientprotocol/sdk";
import { PATH_FIELDS } from "./tool-kind.js";

/** The subjects a tool call names: raw paths (unresolved) and normalized commands. */
export interface ToolSubjects {
  paths: string[];
  commands: string[];
}

const SHELLS = new Set(["sh", "bash", "zsh", "dash"]);
const MAX_SUBJECTS = 16;
const MAX_SUBJECT_CHARS = 8_192;

const normalize = (command: string) => command.trim().replace(/\s+/g, " ");

// The script of `<shell> -c SCRIPT` (also `-lc`, `-ic`), else undefined.
function shellScript(argv: readonly string[]): string | undefined {
  const [exe, ...rest] = argv;
  if (exe === undefined || !SHELLS.has(basename(exe))) return undefined;
  const flag = rest.findIndex((a) => /^-[a-z]*c$/.test(a));
  return flag === -1 ? undefined : rest[flag + 1];
}

// The ways one command can be written: the argv joined, and the script it hands a shell.
function commandForms(argv: readonly string[]): string[] {
  const script = shellScript(argv);
  return [argv.join(" "), ...(script === undefined ? [] : [script])].map(
    normalize,
  );
}

const bounded = (items: string[]) =>
  [...new Set(items)]
    .filter((s) => s.length > 0 && s.length <= MAX_SUBJECT_CHARS)
    .slice(0, MAX_SUBJECTS);

// The paths and commands a tool call (as announced, or as asked about) names.
export function subjectsOf(toolCall: Partial<ToolCallUpdate>): ToolSubjects {
  const raw = toolCall.rawInput;
  const input =
    raw !== null && typeof raw === "object" && !Array.isArray(raw)
      ? (raw as Record<string, unknown>)
      : {};
  const paths = PATH_FIELDS.map((f) => input[f]).filter(
    (p): p is string => typeof p === "string",
  );
  for (const l of toolCall.locations ?? []) paths.push(l.path);
  for (const c of (toolCall.content ?? []) as Record<string, unknown>[])
    if (c["type"] === "diff" && typeof c["path"] === "string")
      paths.push(c["path"]);
  const command = input["command"] ?? input["cmd"];
  const commands =
    typeof command === "string"
      ? [normalize(command)]
      : Array.isArray(command)
        ? commandForms(command.map(String))
        : [];
  return { paths: bounded(paths), commands: bounded(commands) };
}

/** Both lists of subjects, without repeats. */
export function mergeSubjects(a: ToolSubjects, b: ToolSubjects): ToolSubjects {
  return {
    paths: bounded([...a.paths, ...b.paths]),
    commands: bounded([...a.commands, ...b.commands]),
  };
}

/** The key a path is granted and looked up under: resolved against the session's cwd. */
export function pathKey(path: string, workspace: string): string {
  return resolve(workspace || "/", path);
}

/** The keys a terminal/create is looked up under (see the top of this file). */
export function terminalKeys(
  command: string,
  args: readonly string[],
): string[] {
  return commandForms([command, ...args]);
}
