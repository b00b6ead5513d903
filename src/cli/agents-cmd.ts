// `acphub agents list`: what would launch (`agents doctor` is in agents-doctor.ts).
import { agentRows } from "../app/agent-list.js";
import { cliContext, type GlobalOptions } from "../app/context.js";
import { fail } from "./guard.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";

const out = (text: string) => process.stdout.write(text);

export function agentsList(
  options: GlobalOptions & { json?: boolean },
): ExitCode {
  try {
    const rows = agentRows(cliContext(options).config);
    if (options.json) {
      out(JSON.stringify(rows) + "\n");
      return EXIT_CODES.ok;
    }
    for (const r of rows) {
      const state = r.installed
        ? "installed"
        : r.source === "npx"
          ? "via npx"
          : "not installed";
      const how = [r.command, ...r.args].join(" ");
      out(
        `${r.default ? "*" : " "} ${r.name.padEnd(10)} ${state.padEnd(14)} ${how}${r.installHint && !r.installed ? `   (${r.installHint})` : ""}\n`,
      );
    }
    return EXIT_CODES.ok;
  } catch (error) {
    return fail(error);
  }
}
