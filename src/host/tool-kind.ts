// The last resort for a permission request whose tool call names no kind and was never
// announced with one: a kind inferred from its rawInput, then from the verb its title starts with.
import type { ToolCallUpdate } from "@agentclientprotocol/sdk";

/** rawInput fields that carry a file path, across agents (Claude, Codex, Gemini, OpenCode, pi). */
export const PATH_FIELDS = [
  "file_path",
  "filePath",
  "path",
  "abs_path",
  "absPath",
  "notebook_path",
] as const;
const EDIT_FIELDS = [
  "content",
  "new_string",
  "old_string",
  "newText",
  "new_text",
  "edits",
  "patch",
  "diff",
];
const TITLE_VERBS: Record<string, string> = {
  write: "edit",
  edit: "edit",
  create: "edit",
  patch: "edit",
  update: "edit",
  replace: "edit",
  apply: "edit",
  modify: "edit",
  delete: "delete",
  remove: "delete",
  move: "move",
  rename: "move",
  read: "read",
  view: "read",
  open: "read",
  search: "search",
  grep: "search",
  glob: "search",
  find: "search",
  list: "search",
  fetch: "fetch",
  download: "fetch",
  run: "execute",
  execute: "execute",
  bash: "execute",
  shell: "execute",
  terminal: "execute",
  think: "think",
};

// A tool kind for a tool call that carries none, or undefined when nothing tells.
export function inferKind(toolCall: ToolCallUpdate): string | undefined {
  const raw = toolCall.rawInput;
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    const input = raw as Record<string, unknown>;
    const command = input["command"] ?? input["cmd"];
    if (typeof command === "string" || Array.isArray(command)) return "execute";
    const hasPath = PATH_FIELDS.some((f) => typeof input[f] === "string");
    if (hasPath && EDIT_FIELDS.some((f) => f in input)) return "edit";
  }
  const title = (toolCall.title ?? "").trim();
  if (/^`[^`]+`$/.test(title)) return "execute"; // a command shown as code
  const verb = /^[A-Za-z]+/.exec(title)?.[0]?.toLowerCase();
  return verb ? TITLE_VERBS[verb] : undefined;
}
