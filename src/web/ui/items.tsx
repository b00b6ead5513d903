// The session's transcript: user prompts, agent replies (Markdown), thoughts (collapsed under
// a toggle), notices and tool call cards, each re-rendered only when it changed.
import { memo } from "preact/compat";
import type { Item } from "../state/session-model.js";
import { Breakable } from "./long-words.js";
import { Markdown } from "./markdown.js";
import { ToolCard } from "./tool-card.js";

const ItemView = memo(
  function ItemView({ item }: { item: Item; rev: number }) {
    switch (item.kind) {
      case "user":
        return (
          <div class="msg user">
            <pre class="user-text">
              <Breakable text={item.text} />
            </pre>
          </div>
        );
      case "agent":
        return (
          <div class="msg agent">
            <Markdown text={item.text} />
          </div>
        );
      case "thought":
        return (
          <details class="thought">
            <summary>Thinking</summary>
            <pre>
              <Breakable text={item.text} />
            </pre>
          </details>
        );
      case "notice":
        return (
          <div class="notice" role="note">
            {item.text}
          </div>
        );
      case "tool":
        return <ToolCard item={item} rev={item.rev} />;
    }
  },
  (a, b) => a.item === b.item && a.rev === b.rev,
);

export function Transcript({ items }: { items: Item[] }) {
  return (
    <div class="transcript" aria-live="polite">
      {items.map((item) => (
        <ItemView key={item.id} item={item} rev={item.rev} />
      ))}
    </div>
  );
}
