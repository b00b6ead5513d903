// Renders a turn on a terminal: agent text streamed with Markdown styling, thoughts dimmed
// (folded unless asked for), one line per tool call with a status mark updated in place, the
// plan as a checklist updated in place, a spinner while waiting, and a summary at the end.
import type { RunEvent } from "../../contracts/events.js";
import { CLEAR_LINE, UP, type Style } from "./ansi.js";
import { renderDiff } from "./diff.js";
import { MarkdownLines } from "./markdown.js";

export interface TurnRenderer {
  event(event: RunEvent): void;
  startTurn(): void;
  endTurn(summary: { stopReason?: string; error?: string }): void;
  /** Prints a whole line of the renderer's own (a notice, a chat message). */
  say(text: string): void;
  /** Stops the spinner and ends the current line, before asking a question. */
  hold(): void;
}

const MARKS: Record<string, (s: Style) => string> = {
  pending: (s) => s.dim("○"),
  in_progress: (s) => s.yellow("◐"),
  completed: (s) => s.green("✓"),
  failed: (s) => s.red("✗"),
};
const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

interface ToolState {
  title: string;
  kind: string;
  status: string;
  locations: string;
}

type Update = Record<string, unknown> & { sessionUpdate: string };

export function ttyRenderer(
  out: NodeJS.WriteStream,
  style: Style,
  options: { showThoughts?: boolean } = {},
): TurnRenderer {
  const s = style;
  const md = new MarkdownLines(s);
  const tools = new Map<string, ToolState>();
  let partial = ""; // the agent text of the current, unfinished line
  let last:
    | { kind: "tool"; id: string }
    | { kind: "plan"; lines: number }
    | { kind: "other" } = { kind: "other" };
  let spinner: NodeJS.Timeout | undefined;
  let spinning = false;
  let held = false;
  let started = 0;
  let thinking = 0;
  let usage: Record<string, unknown> | undefined;

  const write = (text: string) => out.write(text);
  const stopSpinner = () => {
    if (spinning) write(CLEAR_LINE);
    spinning = false;
  };
  const endLine = () => {
    stopSpinner();
    if (partial) {
      write(`${CLEAR_LINE}${md.line(partial)}\n`);
      partial = "";
    }
  };
  const block = (lines: string[], kind: typeof last) => {
    endLine();
    for (const l of lines) write(`${l}\n`);
    last = kind;
  };

  const toolLine = (t: ToolState) =>
    `${(MARKS[t.status] ?? MARKS["pending"]!)(s)} ${s.dim(t.kind.padEnd(8))}${t.title}${t.locations ? s.dim(` ${t.locations}`) : ""}`;

  function tool(update: Update) {
    const id = String(update["toolCallId"]);
    const known = tools.get(id);
    const locations = (
      update["locations"] as { path: string; line?: number }[] | undefined
    )
      ?.map((l) => (l.line ? `${l.path}:${l.line}` : l.path))
      .join(", ");
    const state: ToolState = {
      title: String(update["title"] ?? known?.title ?? id),
      kind: String(update["kind"] ?? known?.kind ?? "other"),
      status: String(update["status"] ?? known?.status ?? "pending"),
      locations: locations ?? known?.locations ?? "",
    };
    tools.set(id, state);
    if (
      known &&
      last.kind === "tool" &&
      last.id === id &&
      !partial &&
      !spinning
    )
      write(`${UP(1)}${CLEAR_LINE}${toolLine(state)}\n`);
    else block([toolLine(state)], { kind: "tool", id });
    for (const c of (update["content"] as
      Record<string, unknown>[] | undefined) ?? []) {
      if (c["type"] === "diff")
        block(
          renderDiff(
            String(c["path"]),
            c["oldText"] as string | null,
            String(c["newText"] ?? ""),
            s,
          ).map((l) => `    ${l}`),
          { kind: "other" },
        );
      if (c["type"] === "terminal")
        block([s.dim(`    ▸ terminal ${String(c["terminalId"])}`)], {
          kind: "other",
        });
    }
  }

  function plan(update: Update) {
    const entries =
      (update["entries"] as
        { content: string; status: string }[] | undefined) ?? [];
    const lines = [
      s.bold("Plan"),
      ...entries.map(
        (e) =>
          `  ${e.status === "completed" ? s.green("[x]") : e.status === "in_progress" ? s.yellow("[~]") : "[ ]"} ${e.content}`,
      ),
    ];
    if (last.kind === "plan" && !partial && !spinning)
      write(`${UP(last.lines)}`);
    if (last.kind === "plan" && !partial && !spinning) {
      for (const l of lines) write(`${CLEAR_LINE}${l}\n`);
      last = { kind: "plan", lines: lines.length };
    } else block(lines, { kind: "plan", lines: lines.length });
  }

  function text(chunk: string) {
    stopSpinner();
    last = { kind: "other" };
    const parts = chunk.split("\n");
    parts.forEach((part, i) => {
      if (i < parts.length - 1) {
        partial += part;
        write(`${CLEAR_LINE}${md.line(partial)}\n`);
        partial = "";
      } else if (part) {
        partial += part;
        write(part);
      }
    });
  }

  function update(u: Update) {
    const content = u["content"] as
      { type?: string; text?: string } | undefined;
    switch (u.sessionUpdate) {
      case "agent_message_chunk":
        if (content?.type === "text" && content.text) text(content.text);
        return;
      case "agent_thought_chunk":
        thinking += content?.text?.length ?? 0;
        if (options.showThoughts && content?.text)
          block([s.dim(content.text.trimEnd())], { kind: "other" });
        return;
      case "user_message_chunk":
        if (content?.type === "text")
          block([s.bold(`› ${content.text ?? ""}`)], { kind: "other" });
        return;
      case "tool_call":
      case "tool_call_update":
        return tool(u);
      case "plan":
        return plan(u);
      case "usage_update":
        usage = u;
        return;
      case "current_mode_update":
        return block([s.dim(`mode: ${String(u["currentModeId"])}`)], {
          kind: "other",
        });
      case "session_info_update":
        return u["title"]
          ? block([s.dim(`title: ${String(u["title"])}`)], { kind: "other" })
          : undefined;
      case "notice":
        return block([s.yellow(`! ${String(u["title"])}`)], { kind: "other" });
      default:
        return;
    }
  }

  return {
    event(event) {
      held = false;
      if (event.type === "session_update") update(event.update as Update);
      else if (event.type === "permission") {
        const allowed =
          event.outcome.outcome === "selected" &&
          /allow/.test(
            event.request.options.find(
              (o) =>
                o.optionId ===
                (event.outcome as { optionId?: string }).optionId,
            )?.kind ?? "",
          );
        const title =
          event.request.toolCall.title ?? event.request.toolCall.toolCallId;
        if (event.decidedBy !== "host" || !allowed)
          block(
            [
              (allowed ? s.green : s.red)(
                `permission ${allowed ? "allowed" : event.outcome.outcome === "cancelled" ? "cancelled" : "refused"}: ${title}${event.reason ? s.dim(` — ${event.reason}`) : ""}`,
              ),
            ],
            { kind: "other" },
          );
      } else if (event.type === "audit" && !event.allowed) {
        block(
          [
            s.red(
              `✗ ${event.action} ${event.path ?? event.command ?? ""} refused — ${event.reason}`,
            ),
          ],
          { kind: "other" },
        );
      }
    },
    startTurn() {
      started = Date.now();
      thinking = 0;
      usage = undefined;
      tools.clear();
      let frame = 0;
      spinner = setInterval(() => {
        if (partial || held) return;
        spinning = true;
        const thought =
          thinking && !options.showThoughts
            ? ` · thinking (${thinking} chars)`
            : "";
        write(
          `${CLEAR_LINE}${s.cyan(SPINNER[frame++ % SPINNER.length]!)} ${s.dim(`${((Date.now() - started) / 1000).toFixed(1)}s${thought}`)}`,
        );
      }, 100);
    },
    endTurn(summary) {
      clearInterval(spinner);
      endLine();
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const used =
        usage?.["used"] !== undefined
          ? ` · ${String(usage["used"])} tokens`
          : "";
      const cost = (
        usage?.["cost"] as { amount?: number; currency?: string } | undefined
      )?.amount;
      const money =
        cost !== undefined
          ? ` · ${cost} ${(usage?.["cost"] as { currency?: string }).currency ?? ""}`
          : "";
      const end = summary.error
        ? s.red(`error: ${summary.error}`)
        : (summary.stopReason ?? "");
      write(`${s.dim("— ")}${end}${s.dim(` · ${seconds}s${used}${money}`)}\n`);
      last = { kind: "other" };
    },
    say(line) {
      block([line], { kind: "other" });
    },
    hold() {
      endLine();
      held = true;
    },
  };
}
