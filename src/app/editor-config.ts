// `acphub editors config zed|jetbrains|neovim`: the entries that make an editor launch
// `acphub acp` for each configured agent (or the shim to a hub with --hub), in each editor's
// own format — Zed's `agent_servers` in settings.json, JetBrains' ~/.jetbrains/acp.json, and
// the Lua setup of Neovim's ACP clients (CodeCompanion, avante.nvim). docs/editors.md.
import { CLI_ENTRY } from "../agents/registry.js";
import { which } from "../agents/which.js";
import type { Config } from "../config/schema.js";
import { HubError } from "../shared/errors.js";
import { closest, didYouMean } from "../shared/did-you-mean.js";
import { agentRows } from "./agent-list.js";

export const EDITORS = ["zed", "jetbrains", "neovim"] as const;
export type Editor = (typeof EDITORS)[number];

/** How an editor starts acphub for one agent. */
export interface EditorEntry {
  /** The name the editor shows (`acphub claude`). */
  name: string;
  agent?: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface EditorRequest {
  editor: string;
  /** `--hub URL`: the shim to a running hub instead of an agent started here. */
  hub?: string;
  tokenFile?: string;
  /** `--agent`: only these agents (default: every configured or installed one). */
  agents?: string[];
  /** `--config FILE`, passed on so the editor's acphub reads the same config. */
  configFile?: string;
}

/** Names people type for an editor acphub sets up (Vim users mostly run Neovim's ACP clients). */
// prettier-ignore
const EDITOR_ALIASES: Readonly<Record<string, Editor>> = {
  vim: "neovim", nvim: "neovim", "zed-editor": "zed", zeditor: "zed", intellij: "jetbrains",
  idea: "jetbrains", pycharm: "jetbrains", webstorm: "jetbrains", goland: "jetbrains",
  rider: "jetbrains", clion: "jetbrains", rustrover: "jetbrains", phpstorm: "jetbrains",
};

// The editor closest to a name acphub does not know: an alias, a name containing or contained
// in it, else a near spelling.
function closestEditor(name: string): Editor | undefined {
  const n = name.toLowerCase();
  const aliased = EDITOR_ALIASES[n];
  if (aliased) return aliased;
  const within = EDITORS.find(
    (e) => n.length >= 3 && (e.includes(n) || n.includes(e)),
  );
  return within ?? (closest(n, EDITORS) as Editor | undefined);
}

// The editor's name checked against the three acphub knows.
export function editorOf(name: string): Editor {
  if ((EDITORS as readonly string[]).includes(name)) return name as Editor;
  const near = closestEditor(name);
  throw new HubError(
    "USAGE",
    `unknown editor ${name}: one of ${EDITORS.join(", ")}${near ? ` (did you mean "${near}"?)` : ""}`,
  );
}

// The agents an editor gets: those the config names or that are installed, and the default.
function chosenAgents(config: Config, only?: string[]): string[] {
  const rows = agentRows(config);
  if (only?.length) {
    const known = rows.map((r) => r.name);
    for (const name of only)
      if (!known.includes(name))
        throw new HubError(
          "USAGE",
          `no agent ${name} (see acphub agents list)${didYouMean(name, known)}`,
        );
    return only;
  }
  return rows
    .filter(
      (r) =>
        r.source === "config" ||
        r.default ||
        (r.installed && r.source !== "bundled"),
    )
    .map((r) => r.name);
}

// How to start this acphub from an editor: `acphub` on PATH (its full path: editors started
// from a desktop often lack the shell's PATH), else node with this installation's entry.
function acphubCommand(): { command: string; args: string[] } {
  const onPath = which("acphub");
  return onPath
    ? { command: onPath, args: [] }
    : { command: process.execPath, args: [CLI_ENTRY] };
}

// The entries for the request: one per agent, or one for the hub (the hub picks the agent).
export function editorEntries(config: Config, r: EditorRequest): EditorEntry[] {
  const base = acphubCommand();
  const env: Record<string, string> = process.env["ACPHUB_HOME"]
    ? { ACPHUB_HOME: process.env["ACPHUB_HOME"] }
    : {};
  const config_ = r.configFile ? ["--config", r.configFile] : [];
  if (r.hub) {
    const token = r.tokenFile ? ["--token-file", r.tokenFile] : [];
    return [
      {
        name: "acphub hub",
        command: base.command,
        args: [...base.args, ...config_, "acp", "--hub", r.hub, ...token],
        env,
      },
    ];
  }
  return chosenAgents(config, r.agents).map((agent) => ({
    name: `acphub ${agent}`,
    agent,
    command: base.command,
    args: [...base.args, ...config_, "acp", "--agent", agent],
    env,
  }));
}

// Zed's `agent_servers` members: custom agents launched with command, args and env.
export function zedServers(entries: EditorEntry[]): Record<string, unknown> {
  return Object.fromEntries(
    entries.map((e) => [
      e.name,
      { type: "custom", command: e.command, args: e.args, env: e.env },
    ]),
  );
}

// JetBrains' acp.json `agent_servers` members (the name is what AI Chat shows).
export function jetbrainsServers(
  entries: EditorEntry[],
): Record<string, unknown> {
  return Object.fromEntries(
    entries.map((e) => [
      e.name,
      { command: e.command, args: e.args, env: e.env },
    ]),
  );
}

// A Lua string literal (control characters as decimal escapes, which every Lua reads).
const lua = (s: string) =>
  `"${[...s]
    .map((c) => {
      const code = c.charCodeAt(0);
      if (c === "\\" || c === '"') return `\\${c}`;
      return code < 32 || code === 127
        ? `\\${String(code).padStart(3, "0")}`
        : c;
    })
    .join("")}"`;
const luaList = (list: string[]) => `{ ${list.map(lua).join(", ")} }`;
const luaEnv = (env: Record<string, string>) =>
  `{ ${Object.entries(env)
    .map(
      ([k, v]) =>
        `${/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : `[${lua(k)}]`} = ${lua(v)}`,
    )
    .join(", ")} }`;

// The Lua for Neovim: CodeCompanion's ACP adapters and avante.nvim's acp_providers.
export function neovimLua(entries: EditorEntry[]): string {
  const id = (e: EditorEntry) => e.name.replace(/[^A-Za-z0-9]+/g, "_");
  const adapters = entries
    .map(
      (e) => `      ${id(e)} = function()
        return require("codecompanion.adapters").extend("claude_code", {
          name = ${lua(id(e))},
          formatted_name = ${lua(e.name)},
          commands = { default = ${luaList([e.command, ...e.args])} },
          env = ${luaEnv(e.env)},
        })
      end,`,
    )
    .join("\n");
  const providers = entries
    .map(
      (e) => `    [${lua(e.name)}] = {
      command = ${lua(e.command)},
      args = ${luaList(e.args)},
      env = ${luaEnv(e.env)},
    },`,
    )
    .join("\n");
  return `-- CodeCompanion (olimorris/codecompanion.nvim): ACP adapters that start acphub
require("codecompanion").setup({
  adapters = {
    acp = {
${adapters}
    },
  },
})

-- avante.nvim (yetone/avante.nvim): ACP providers that start acphub
require("avante").setup({
  provider = ${lua(entries[0]?.name ?? "acphub")},
  acp_providers = {
${providers}
  },
})
`;
}
