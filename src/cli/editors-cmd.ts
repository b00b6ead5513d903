// `acphub editors config zed|jetbrains|neovim`: what makes the editor launch acphub, printed
// or (--write) merged into the editor's file; the work is in app/editor-files.ts.
import type { Command } from "commander";
import { act } from "./command-kit.js";
import { answer, out, withContext, type JsonOptions } from "./guard.js";
import type { ExitCode } from "./exit-codes.js";

type Options = JsonOptions & {
  hub?: string;
  tokenFile?: string;
  agent?: string;
  write?: boolean;
};

// Adds `editors config`.
export function addEditorsCommand(program: Command): void {
  program
    .command("editors")
    .description("set editors up to launch acphub")
    .command("config")
    .description(
      "the settings that make an editor launch `acphub acp` for each agent",
    )
    .argument("<editor>", "zed, jetbrains or neovim")
    .option("--hub <url>", "launch the shim to this running hub instead")
    .option("--token-file <file>", "the hub's bearer token (with --hub)")
    .option("-a, --agent <names>", "only these agents (comma-separated)")
    .option("--write", "merge into the editor's file (a backup is kept)")
    .option("--json", "print the answer as JSON")
    .action(act(program, () => import("./editors-cmd.js"), "editorsConfig"));
}

export function editorsConfig(editor: string, o: Options): Promise<ExitCode> {
  return withContext(o, async (ctx) => {
    const app = await import("../app/editor-files.js");
    const agents = o.agent?.split(",").map((s) => s.trim());
    const request = {
      editor,
      hub: o.hub,
      tokenFile: o.tokenFile,
      agents,
      configFile: o.config,
    };
    const a = app.editorsConfig(ctx.config, request, o.write === true);
    if (o.json) return answer(true, a, "");
    const text = app.editorsConfigText(a);
    if (text.note) process.stderr.write(`acphub: ${text.note}\n`);
    out(text.out);
  });
}
