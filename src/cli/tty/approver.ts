// Asks the person at the terminal: what the agent wants (title, command, diff, a gate's text), the
// agent's own options under number keys; an "always" answer is remembered by the permission engine.
import type {
  RequestPermissionOutcome,
  RequestPermissionRequest,
} from "@agentclientprotocol/sdk";
import type { Approver } from "../../app/local-client.js";
import type { Style } from "./ansi.js";
import { renderDiff } from "./diff.js";
import type { KeyReader } from "./keys.js";
import { safeDeep } from "./safe-text.js";
import type { TurnRenderer } from "./renderer.js";

/** Lines of a question's text shown at most (a gate's text may carry a step's whole output). */
const MAX_TEXT_LINES = 40;

// A text content block's lines (a workflow gate's text), indented and capped.
function textLines(text: string, style: Style): string[] {
  const lines = text.replace(/\n+$/, "").split("\n");
  const shown = lines.slice(0, MAX_TEXT_LINES).map((l) => `  ${l}`);
  const more = lines.length - MAX_TEXT_LINES;
  if (more > 0) shown.push(style.dim(`  … ${more} more lines`));
  return shown;
}

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
    const inner = c["content"] as
      { type?: unknown; text?: unknown } | undefined;
    if (
      c["type"] === "content" &&
      inner?.type === "text" &&
      typeof inner.text === "string"
    )
      lines.push(...textLines(inner.text, style));
    else if (c["type"] === "diff")
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
