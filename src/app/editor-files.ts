// Where each editor keeps the file `editors config --write` merges into, and the merge: the
// user's other keys, comments and layout kept, a timestamped backup of the old file first, the
// new text written whole (a temporary file renamed over it). A file that is not valid JSON is
// refused and left byte for byte as it was.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { HubError } from "../shared/errors.js";
import type { Config } from "../config/schema.js";
import {
  editorEntries,
  editorOf,
  jetbrainsServers,
  neovimLua,
  zedServers,
  type Editor,
  type EditorEntry,
  type EditorRequest,
} from "./editor-config.js";
import { parseJsonc, setJsoncMembers } from "./jsonc.js";

type Env = Record<string, string | undefined>;

/** Zed's settings under its Flatpak's folder (Linux), relative to HOME. */
const ZED_FLATPAK_SETTINGS = ".var/app/dev.zed.Zed/config/zed/settings.json";

/** What --write did. */
export interface EditorWrite {
  file: string;
  /** The copy of the file as it was (absent when the file was created). */
  backup?: string;
  created: boolean;
  /** The `agent_servers` names written. */
  names: string[];
}

// The editor's file: Zed's settings.json (per platform), JetBrains' ~/.jetbrains/acp.json.
export function editorFile(
  editor: Editor,
  env: Env = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const home = env["HOME"] || homedir();
  if (editor === "jetbrains") return join(home, ".jetbrains", "acp.json");
  if (editor === "zed") {
    if (platform === "win32")
      return join(
        env["APPDATA"] || join(home, "AppData", "Roaming"),
        "Zed",
        "settings.json",
      );
    if (platform === "darwin")
      return join(home, ".config", "zed", "settings.json");
    const usual = join(
      env["XDG_CONFIG_HOME"] || join(home, ".config"),
      "zed",
      "settings.json",
    );
    // Zed installed from Flathub keeps its settings inside its sandbox's folder.
    const flatpak = join(home, ZED_FLATPAK_SETTINGS);
    return !existsSync(usual) && existsSync(flatpak) ? flatpak : usual;
  }
  throw new HubError(
    "USAGE",
    "Neovim's setup is Lua in your own config: run `acphub editors config neovim` without --write and paste it",
  );
}

// Merges the entries into the editor's `agent_servers`, keeping a backup of the file first.
export function writeEditorConfig(
  editor: Editor,
  entries: EditorEntry[],
  env: Env = process.env,
): EditorWrite {
  const file = editorFile(editor, env);
  const servers =
    editor === "zed" ? zedServers(entries) : jetbrainsServers(entries);
  const names = Object.keys(servers);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file,
      `${JSON.stringify({ agent_servers: servers }, null, 2)}\n`,
    );
    return { file, created: true, names };
  }
  // A settings file linked from a dotfiles folder stays a link: the file it names is rewritten.
  const real = realpathSync(file);
  const old = readFileSync(real, "utf8");
  if (editor === "jetbrains" && old.trim()) strictJson(old, file);
  const text = setJsoncMembers(
    old.trim() ? old : "{}\n",
    file,
    "agent_servers",
    servers,
  );
  parseJsonc(text, file); // what is written parses, or nothing is
  const backup = `${file}.acphub-backup-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  copyFileSync(real, backup);
  const tmp = `${real}.acphub-${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: statSync(real).mode & 0o777 });
  renameSync(tmp, real);
  return { file, backup, created: false, names };
}

// JetBrains reads plain JSON: comments or trailing commas there are refused.
function strictJson(text: string, file: string): void {
  try {
    JSON.parse(text);
  } catch (error) {
    throw new HubError(
      "CONFIG_INVALID",
      `${file} is not valid JSON (${(error as Error).message}); it was left untouched`,
    );
  }
}

/** What `editors config` answers: the snippet (an object, or Lua for Neovim) and its file. */
export interface EditorConfigAnswer {
  editor: Editor;
  /** The file the snippet belongs in (none for Neovim: the user's own Lua config). */
  file?: string;
  entries: EditorEntry[];
  snippet: Record<string, unknown> | string;
  /** What --write did. */
  written?: EditorWrite;
}

// The command's whole answer: the entries for the request, printed or merged into the file.
export function editorsConfig(
  config: Config,
  request: EditorRequest,
  write: boolean,
): EditorConfigAnswer {
  const editor = editorOf(request.editor);
  const entries = editorEntries(config, request);
  if (entries.length === 0)
    throw new HubError("USAGE", "no agent to set up: see acphub agents list");
  const snippet =
    editor === "neovim"
      ? neovimLua(entries)
      : {
          agent_servers:
            editor === "zed" ? zedServers(entries) : jetbrainsServers(entries),
        };
  const file = editor === "neovim" ? undefined : editorFile(editor);
  const written = write ? writeEditorConfig(editor, entries) : undefined;
  return {
    editor,
    ...(file ? { file } : {}),
    entries,
    snippet,
    ...(written ? { written } : {}),
  };
}

// The answer as people read it: the snippet alone for stdout (ready to redirect into a file),
// and where it goes (or what --write did) as a note.
export function editorsConfigText(a: EditorConfigAnswer): {
  out: string;
  note?: string;
} {
  const w = a.written;
  if (w) {
    const kept = w.backup ? `; the old file is kept as ${w.backup}` : "";
    const how = w.created ? "created" : "updated";
    return {
      out: `${how} ${w.file}: agent_servers ${w.names.join(", ")}${kept}\n`,
    };
  }
  return {
    out:
      typeof a.snippet === "string"
        ? a.snippet
        : `${JSON.stringify(a.snippet, null, 2)}\n`,
    note: a.file
      ? `add this to ${a.file} (or run again with --write)`
      : "add this to your Neovim config (init.lua)",
  };
}
