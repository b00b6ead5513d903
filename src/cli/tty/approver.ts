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

// Prints the question: what the agent wants and its options under number keys.
function printQuestion(
  shown: RequestPermissionRequest,
  renderer: TurnRenderer,
  style: Style,
): void {
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
    const { options } = shown;
    keys.beginQuestion(); // before printing: a key pressed once it shows is never lost
    try {
      printQuestion(shown, renderer, style);
      for (;;) {
        const key = await keys.next(signal);
        const index =
          key === "\u001b"
            ? options.findIndex((o) => o.kind === "reject_once")
            : Number(key) - 1;
        const chosen = request.options[index];
        if (key === "\u001b" && !chosen) return { outcome: "cancelled" };
        if (chosen) {
          if (key !== "\u001b")
            renderer.say(style.dim(`  → ${options[index]!.name}`));
          return { outcome: "selected", optionId: chosen.optionId };
        }
      }
    } finally {
      keys.endQuestion();
    }
  };
}
