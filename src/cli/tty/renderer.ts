// Renders a turn on a terminal: agent text streamed with Markdown styling, thoughts dimmed
// (folded unless asked for), one line per tool call with a status mark updated in place, the
// plan as a checklist updated in place, a spinner while waiting, and a summary at the end.
import type { RunEvent } from "../../contracts/events.js";
import { isAllowed } from "../../protocol/permission-options.js";
import { toolCallState, type ToolCallState } from "../../app/client-events.js";
import { CLEAR_LINE, type Style } from "./ansi.js";
import { renderDiff } from "./diff.js";
import { eraseTyped, LiveBlock } from "./live-block.js";
import { MarkdownLines } from "./markdown.js";
import { usageText } from "./usage-text.js";

export interface TurnRenderer {
  event(event: RunEvent): void;
  startTurn(): void;
  /** `usage`: the prompt answer's token usage, when the agent reported it. */
  endTurn(summary: {
    stopReason?: string;
    error?: string;
    usage?: Record<string, unknown> | null;
  }): void;
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

interface ToolState extends ToolCallState {
  /** The header and content lines as last printed, to print only what changed. */
  header?: string;
  body?: string;
  /** Whether the block printed last for this tool call shows its content. */
  showsBody?: boolean;
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
  const size = () => ({ columns: out.columns || 80, rows: out.rows || 24 });
  const write = (text: string) => out.write(text);
  const live = new LiveBlock(write, size);
  let partial = ""; // the agent text of the current, unfinished line
  let planShown: string | undefined;
  let spinner: NodeJS.Timeout | undefined;
  let spinning = false;
  let held = false;
  let started = 0;
  let thinking = 0;
  let usage: Record<string, unknown> | undefined;

  const stopSpinner = () => {
    if (spinning) write(CLEAR_LINE);
    spinning = false;
  };
  // Ends the line being typed out (`rest` not yet shown): styled in place when what is shown
  // can be reached, else completed as typed.
  const finishLine = (rest = "") => {
    const shown = partial;
    partial += rest;
    const styled = md.line(partial);
    const erase = shown ? eraseTyped(shown, size()) : CLEAR_LINE;
    write(erase === undefined ? `${rest}\n` : `${erase}${styled}\n`);
    partial = "";
    live.forget();
  };
  const endLine = () => {
    stopSpinner();
    if (partial) finishLine();
  };
  const block = (lines: string[]) => {
    endLine();
    live.print(undefined, lines);
  };

  const toolLine = (t: ToolState) => {
    const where = t.locations.map((l) =>
      l.line ? `${l.path}:${l.line}` : l.path,
    );
    return `${(MARKS[t.status] ?? MARKS["pending"]!)(s)} ${s.dim(t.kind.padEnd(8))}${t.title}${where.length ? s.dim(` ${where.join(", ")}`) : ""}`;
  };

  const contentLines = (content: Record<string, unknown>[]) =>
    content.flatMap((c) => {
      if (c["type"] === "diff")
        return renderDiff(
          String(c["path"]),
          c["oldText"] as string | null,
          String(c["newText"] ?? ""),
          s,
        ).map((l) => `    ${l}`);
      if (c["type"] === "terminal")
        return [s.dim(`    ▸ terminal ${String(c["terminalId"])}`)];
      return [];
    });

  // One block per tool call, updated in place while it is last; once something else was
  // printed, only what changed (the status line, new content) is printed again, below.
  function tool(update: Update) {
    const id = String(update["toolCallId"]);
    const key = `tool:${id}`;
    const known = tools.get(id);
    const state: ToolState = { ...known, ...toolCallState(update, known) };
    tools.set(id, state);
    const header = toolLine(state);
    const body = contentLines(state.content);
    const bodyKey = body.join("\n");
    const bodyChanged = bodyKey !== (known?.body ?? "");
    endLine();
    if (known && live.isLast(key)) {
      state.showsBody = (known.showsBody ?? false) || bodyChanged;
      live.redraw(key, [header, ...(state.showsBody ? body : [])]);
    } else if (!known || header !== known.header || bodyChanged) {
      state.showsBody = bodyChanged;
      live.print(key, [header, ...(bodyChanged ? body : [])]);
    }
    state.header = header;
    state.body = bodyKey;
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
    const shown = lines.join("\n");
    endLine();
    if (live.isLast("plan")) live.redraw("plan", lines);
    else if (shown !== planShown) live.print("plan", lines);
    planShown = shown;
  }

  function text(chunk: string) {
    stopSpinner();
    if (chunk) live.forget();
    const parts = chunk.split("\n");
    parts.forEach((part, i) => {
      if (i < parts.length - 1) finishLine(part);
      else if (part) {
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
          block([s.dim(content.text.trimEnd())]);
        return;
      case "user_message_chunk":
        if (content?.type === "text")
          block([s.bold(`› ${content.text ?? ""}`)]);
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
        return block([s.dim(`mode: ${String(u["currentModeId"])}`)]);
      case "session_info_update":
        return u["title"]
          ? block([s.dim(`title: ${String(u["title"])}`)])
          : undefined;
      case "notice":
        return block([s.yellow(`! ${String(u["title"])}`)]);
      default:
        return;
    }
  }

  return {
    event(event) {
      held = false;
      if (event.type === "session_update") update(event.update as Update);
      else if (event.type === "permission") {
        const allowed = isAllowed(event.outcome, event.request.options);
        const title =
          event.request.toolCall.title ?? event.request.toolCall.toolCallId;
        if (event.decidedBy !== "host" || !allowed)
          block([
            (allowed ? s.green : s.red)(
              `permission ${allowed ? "allowed" : event.outcome.outcome === "cancelled" ? "cancelled" : "refused"}: ${title}${event.reason ? s.dim(` — ${event.reason}`) : ""}`,
            ),
          ]);
      } else if (event.type === "audit" && !event.allowed) {
        block([
          s.red(
            `✗ ${event.action} ${event.path ?? event.command ?? ""} refused — ${event.reason}`,
          ),
        ]);
      }
    },
    startTurn() {
      started = Date.now();
      thinking = 0;
      usage = undefined;
      tools.clear();
      planShown = undefined;
      live.forget();
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
      const used = usageText(summary.usage, usage);
      const end = summary.error
        ? s.red(`error: ${summary.error}`)
        : (summary.stopReason ?? "");
      block([`${s.dim("— ")}${end}${s.dim(` · ${seconds}s${used}`)}`]);
    },
    say(line) {
      block([line]);
    },
    hold() {
      endLine();
      held = true;
    },
  };
}
