// Asks the person at the terminal: what the agent wants (title, command, diff), the agent's own
// options under number keys; an "always" answer is remembered by the permission engine.
import type {
  RequestPermissionOutcome,
  RequestPermissionRequest,
} from "@agentclientprotocol/sdk";
import type { Approver } from "../../host/permission-engine.js";
import type { Style } from "./ansi.js";
import { renderDiff } from "./diff.js";
import type { KeyReader } from "./keys.js";
import { safeDeep } from "./safe-text.js";
import type { TurnRenderer } from "./renderer.js";

function details(request: RequestPermissionRequest, style: Style): string[] {
  const lines: string[] = [];
  const raw = request.toolCall.rawInput as
    { command?: unknown; path?: unknown } | undefined;
  if (raw?.command !== undefined)
    lines.push(`  ${style.dim("command:")} ${[raw.command].flat().join(" ")}`);
  else if (typeof raw?.path === "string")
    lines.push(`  ${style.dim("path:")} ${raw.path}`);
  for (const c of (request.toolCall.content ?? []) as Record<
    string,
    unknown
  >[]) {
    if (c["type"] === "diff")
      lines.push(
        ...renderDiff(
          String(c["path"]),
          c["oldText"] as string | null,
          String(c["newText"] ?? ""),
          style,
        ).map((l) => `  ${l}`),
      );
  }
  return lines;
}

export function ttyApprover(
  keys: KeyReader,
  renderer: TurnRenderer,
  style: Style,
): Approver {
  return async (request, signal): Promise<RequestPermissionOutcome> => {
    renderer.hold();
    // Shown made terminal-safe; the answer carries the agent's own optionId.
    const shown = safeDeep(request);
    const { toolCall, options } = shown;
    renderer.say(
      style.bold(
        style.magenta(`? ${toolCall.title ?? "The agent asks for permission"}`),
      ) + style.dim(` (${toolCall.kind ?? "other"})`),
    );
    for (const line of details(shown, style)) renderer.say(line);
    renderer.say(
      options
        .map((o, i) => `  ${style.bold(String(i + 1))}) ${o.name}`)
        .join("   "),
    );
    renderer.say(style.dim(`  press 1-${options.length}, Esc to refuse`));
    for (;;) {
      const key = await keys.next(signal);
      if (key === "\u001b") {
        const reject = options.find((o) => o.kind === "reject_once");
        const index = reject ? options.indexOf(reject) : -1;
        return reject
          ? { outcome: "selected", optionId: request.options[index]!.optionId }
          : { outcome: "cancelled" };
      }
      const chosen = options[Number(key) - 1];
      if (chosen) {
        renderer.say(style.dim(`  → ${chosen.name}`));
        const { optionId } = request.options[Number(key) - 1]!;
        return { outcome: "selected", optionId };
      }
    }
  };
}
