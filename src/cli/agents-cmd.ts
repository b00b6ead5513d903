// `acphub agents list`: what would launch (`agents doctor` is in agents-doctor.ts).
import { agentRows } from "../app/agent-list.js";
import { out, withContext, type JsonOptions } from "./guard.js";
import type { ExitCode } from "./exit-codes.js";

export function agentsList(options: JsonOptions): Promise<ExitCode> {
  return withContext(options, (ctx) => {
    const rows = agentRows(ctx.config);
    if (options.json) return out(JSON.stringify(rows) + "\n");
    for (const r of rows) {
      const via = r.distribution ?? (r.source === "npx" ? "npx" : undefined);
      const state = r.installed
        ? "installed"
        : via
          ? `via ${via}`
          : "not installed";
      const from = [r.origin, r.version].filter(Boolean).join(" ");
      const how = [r.command, ...r.args].join(" ");
      out(
        `${r.default ? "*" : " "} ${r.name.padEnd(10)} ${state.padEnd(14)} ${from.padEnd(17)} ${how}${r.installHint && !r.installed ? `   (${r.installHint})` : ""}\n`,
      );
    }
  });
}
