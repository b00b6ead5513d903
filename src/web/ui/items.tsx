// The session's transcript: user prompts (with their authors when there are several), agent
// replies (Markdown), thoughts (collapsed under a toggle), notices and tool call cards, each
// re-rendered only when it changed, and only those near the view rendered at all (virtualized).
import type { RefObject } from "preact";
import { memo } from "preact/compat";
import type { Item } from "../state/session-model.js";
import { Breakable } from "./long-words.js";
import { Markdown } from "./markdown.js";
import { ToolCard } from "./tool-card.js";
import { useVirtualizer } from "./virtual.js";

const ItemView = memo(
  function ItemView({
    item,
    authors,
  }: {
    item: Item;
    rev: number;
    authors: boolean;
  }) {
    switch (item.kind) {
      case "user":
        return (
          <div class="msg user">
            {authors && item.author && (
              <div class="author" data-author={item.author}>
                {item.author}
              </div>
            )}
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
  (a, b) => a.item === b.item && a.rev === b.rev && a.authors === b.authors,
);

/** The transcript's top margin (px, styles.css): where its first item starts in the scroller. */
const TOP_PX = 12;

// The items near the view, in the normal flow between two spacers that stand for the rest;
// user messages name their author when `authors` (the session has several).
export function Transcript({
  items,
  scroller,
  authors = false,
  epoch,
  live,
}: {
  items: Item[];
  scroller: RefObject<HTMLDivElement | null>;
  authors?: boolean;
  /** Bumped when the items were rebuilt from another window of the history. */
  epoch: number;
  /** The items reach the session's live end (the view follows that end). */
  live: boolean;
}) {
  const v = useVirtualizer(
    scroller,
    items.length,
    (i) => items[i]!.id,
    TOP_PX,
    epoch,
    live,
  );
  const shown = v.getVirtualItems();
  const before = shown[0]?.start ?? TOP_PX;
  const after = shown.at(-1)?.end ?? TOP_PX;
  return (
    <div
      class="transcript"
      aria-live="polite"
      style={{
        paddingTop: `${before - TOP_PX}px`,
        paddingBottom: `${v.getTotalSize() - after}px`,
      }}
    >
      {shown.map((row) => {
        const item = items[row.index]!;
        return (
          <div
            key={item.id}
            class="row"
            data-index={row.index}
            ref={v.measureElement}
          >
            <ItemView item={item} rev={item.rev} authors={authors} />
          </div>
        );
      })}
    </div>
  );
}
