// `acphub editors config zed|jetbrains|neovim`: prints (or with --write merges into the
// editor's file) what makes that editor launch acphub; the work is app/editor-files.ts.
import type { Command } from "commander";
import { act } from "./command-kit.js";
import { answer, out, withContext, type JsonOptions } from "./guard.js";
import type { ExitCode } from "./exit-codes.js";

interface EditorsOptions extends JsonOptions {
  hub?: string;
  tokenFile?: string;
  agent?: string;
  write?: boolean;
}

// Adds `editors config`.
export function addEditorsCommand(program: Command): void {
  program
    .command("editors")
    .description("set editors up to launch acphub")
    .command("config")
    .description(
      "the editor's settings that launch `acphub acp` for each agent (zed: settings.json agent_servers; jetbrains: ~/.jetbrains/acp.json; neovim: CodeCompanion and avante.nvim Lua)",
    )
    .argument("<editor>", "zed, jetbrains or neovim")
    .option("--hub <url>", "launch the shim to this running hub instead")
    .option("--token-file <file>", "the hub's bearer token (with --hub)")
    .option("-a, --agent <names>", "only these agents (comma-separated)")
    .option("--write", "merge into the editor's file (a backup is kept)")
    .option("--json", "print the answer as JSON")
    .action(act(program, () => import("./editors-cmd.js"), "editorsConfig"));
}

export function editorsConfig(
  editor: string,
  o: EditorsOptions,
): Promise<ExitCode> {
  return withContext(o, async (ctx) => {
    const { editorsConfig: build } = await import("../app/editor-files.js");
    const a = build(
      ctx.config,
      {
        editor,
        ...(o.hub ? { hub: o.hub } : {}),
        ...(o.tokenFile ? { tokenFile: o.tokenFile } : {}),
        ...(o.agent ? { agents: o.agent.split(",").map((s) => s.trim()) } : {}),
        ...(o.config ? { configFile: o.config } : {}),
      },
      o.write === true,
    );
    const w = a.written;
    if (o.json) return answer(true, a, "");
    if (w) {
      const kept = w.backup ? `; the old file is kept as ${w.backup}` : "";
      return out(
        `${w.created ? "created" : "updated"} ${w.file}: agent_servers ${w.names.join(", ")}${kept}\n`,
      );
    }
    // The snippet alone on stdout (ready to redirect); where it goes, on stderr.
    process.stderr.write(
      a.file
        ? `acphub: add this to ${a.file} (or run again with --write)\n`
        : "acphub: add this to your Neovim config (init.lua)\n",
    );
    out(
      typeof a.snippet === "string"
        ? a.snippet
        : `${JSON.stringify(a.snippet, null, 2)}\n`,
    );
  });
}
