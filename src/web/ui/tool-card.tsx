// One tool call as a card: kind, title, status (pending → running → done / failed), locations
// as path:line, its content (text, diffs as a coloured unified diff, terminals).
import { memo } from "preact/compat";
import { useState } from "preact/hooks";
import type { Item, Params } from "../state/session-model.js";
import { contentText } from "../state/session-model.js";
import { lineDiff } from "./line-diff.js";
import { Breakable } from "./long-words.js";
import { TerminalView } from "./terminal-view.js";

const STATUS_LABEL: Record<string, string> = {
  pending: "pending",
  in_progress: "running",
  completed: "done",
  failed: "failed",
  interrupted: "interrupted: outcome unknown",
};

export function DiffView({
  path,
  oldText,
  newText,
}: {
  path: string;
  oldText?: string | null;
  newText: string;
}) {
  const lines = lineDiff(oldText ?? "", newText);
  return (
    <div class="diff" aria-label={`diff of ${path}`}>
      <div class="diff-path">{path}</div>
      <pre>
        {lines.map((l, i) => (
          <div
            key={i}
            class={l.sign === "+" ? "add" : l.sign === "-" ? "del" : "ctx"}
          >
            {l.sign}
            <Breakable text={l.text} />
          </div>
        ))}
      </pre>
    </div>
  );
}

function Content({ c, running }: { c: Params; running: boolean }) {
  if (c["type"] === "diff")
    return (
      <DiffView
        path={String(c["path"] ?? "")}
        oldText={c["oldText"] as string | null}
        newText={String(c["newText"] ?? "")}
      />
    );
  if (c["type"] === "terminal")
    return (
      <TerminalView
        terminalId={String(c["terminalId"] ?? "")}
        running={running}
      />
    );
  return <ToolOutput text={unfenced(contentText(c["content"]))} />;
}

/** Lines shown before "Show all". */
const FOLDED_LINES = 20;

/** Terminal text an agent wrapped in a Markdown fence (```console … ```), without it. */
export function unfenced(text: string): string {
  const m = /^\s*(`{3,}|~{3,})[\w+-]*[ \t]*\n([\s\S]*?)\n?\1\s*$/.exec(text);
  return m ? m[2]! : text;
}

// Tool output as plain text, its end shown when long, with a button to show all of it.
function ToolOutput({ text }: { text: string }) {
  const [all, setAll] = useState(false);
  const lines = text.split("\n");
  const folded = !all && lines.length > FOLDED_LINES;
  return (
    <div class="tool-output-wrap">
      {folded && (
        <button type="button" class="show-all" onClick={() => setAll(true)}>
          Show all {lines.length} lines
        </button>
      )}
      <pre class="tool-output">
        <Breakable
          text={folded ? lines.slice(-FOLDED_LINES).join("\n") : text}
        />
      </pre>
    </div>
  );
}

// A call its turn's runner died under (issue 38): the hub ended it failed, outcome unknown.
function statusOf(call: Params): string {
  const status = String(call["status"] ?? "pending");
  const meta = call["_meta"] as { acphub?: Params } | undefined;
  return status === "failed" && meta?.acphub?.["interrupted"]
    ? "interrupted"
    : status;
}

function locationText(l: Params): string {
  return l["line"] !== undefined
    ? `${String(l["path"])}:${String(l["line"])}`
    : String(l["path"]);
}

export const ToolCard = memo(
  function ToolCard({ item }: { item: Item; rev: number }) {
    const call = item.call ?? {};
    const status = statusOf(call);
    const locations = (call["locations"] as Params[] | undefined) ?? [];
    const content = (call["content"] as Params[] | undefined) ?? [];
    return (
      <section
        class={`tool status-${status}`}
        data-tool-id={String(call["toolCallId"] ?? "")}
      >
        <header>
          <span class="tool-kind">{String(call["kind"] ?? "other")}</span>
          <span class="tool-title">
            <Breakable text={String(call["title"] ?? "tool call")} />
          </span>
          <span class="tool-status" data-status={status}>
            {STATUS_LABEL[status] ?? status}
          </span>
        </header>
        {locations.length > 0 && (
          <ul class="locations">
            {locations.map((l, i) => (
              <li key={i}>{locationText(l)}</li>
            ))}
          </ul>
        )}
        {content.map((c, i) => (
          <Content
            key={i}
            c={c}
            running={status === "pending" || status === "in_progress"}
          />
        ))}
      </section>
    );
  },
  (a, b) => a.item === b.item && a.rev === b.rev,
);
