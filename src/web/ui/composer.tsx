// The prompt box: Enter sends, Shift+Enter is a newline, the agent's slash commands are
// offered as you type "/", Stop cancels the running turn; disabled (saying why) while another
// client's turn runs.
import { useEffect, useRef, useState } from "preact/hooks";
import type { Turn } from "../state/hub-store.js";
import type { Params } from "../state/session-model.js";

interface Props {
  turn: Turn;
  online: boolean;
  commands: Params[];
  /** Resolves false when the prompt was refused: its text comes back into the box. */
  onSend(text: string): Promise<boolean>;
  onStop(): void;
}

export function Composer({ turn, online, commands, onSend, onStop }: Props) {
  const [text, setText] = useState("");
  const box = useRef<HTMLTextAreaElement>(null);
  // A session opened on a desktop is ready to type into (not on phones: no keyboard pop-up).
  useEffect(() => {
    if (window.matchMedia("(min-width: 641px)").matches) box.current?.focus();
  }, []);
  const busyElsewhere = turn.running && !turn.own;
  const reason = !online
    ? "Reconnecting to the hub…"
    : busyElsewhere
      ? "Another client's turn is running in this session"
      : undefined;
  const send = () => {
    if (!text.trim() || turn.running || reason) return;
    const sent = text;
    setText("");
    // A refused prompt (a budget, a quota) is not lost: back in the box, unless more was typed.
    void onSend(sent).then((ok) => {
      if (!ok) setText((now) => (now.trim() ? now : sent));
    });
  };
  const matches =
    text.startsWith("/") && !text.includes(" ")
      ? commands.filter((c) => String(c["name"]).startsWith(text.slice(1)))
      : [];
  return (
    <form class="composer" onSubmit={(e) => (e.preventDefault(), send())}>
      {matches.length > 0 && (
        <ul class="commands" aria-label="Slash commands">
          {matches.map((c) => (
            <li key={String(c["name"])}>
              <button
                type="button"
                onClick={() => setText(`/${String(c["name"])} `)}
              >
                /{String(c["name"])}{" "}
                <small>{String(c["description"] ?? "")}</small>
              </button>
            </li>
          ))}
        </ul>
      )}
      {reason && (
        <div class="composer-reason" role="status">
          {reason}
        </div>
      )}
      <textarea
        ref={box}
        aria-label="Prompt"
        placeholder="Ask the agent… (Enter sends, Shift+Enter for a new line)"
        value={text}
        disabled={reason !== undefined}
        rows={3}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            send();
          }
        }}
      />
      {turn.own && turn.running ? (
        <button type="button" class="stop" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button
          type="submit"
          class="send"
          disabled={reason !== undefined || turn.running || !text.trim()}
        >
          Send
        </button>
      )}
    </form>
  );
}
