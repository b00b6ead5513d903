// A permission question from the agent, shown prominently: what it asks (title, kind, the
// command, paths and diffs of its tool call) and the agent's own options as buttons.
import { useEffect, useRef } from "preact/hooks";
import type { PendingPermission } from "../state/hub-store.js";
import type { Params } from "../state/session-model.js";
import { DiffView } from "./tool-card.js";

export function PermissionCard({
  p,
  known,
}: {
  p: PendingPermission;
  known?: Params;
}) {
  const call = {
    ...known,
    ...((p.params["toolCall"] as Params | undefined) ?? {}),
  };
  const options = (p.params["options"] as Params[] | undefined) ?? [];
  const content = (call["content"] as Params[] | undefined) ?? [];
  const raw = call["rawInput"] as Params | undefined;
  const command = raw?.["command"];
  const locations = (call["locations"] as Params[] | undefined) ?? [];
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus(), []);
  return (
    <section
      class="permission"
      role="alertdialog"
      aria-label="Permission requested"
    >
      <h3>The agent asks: {String(call["title"] ?? "permission")}</h3>
      {call["kind"] !== undefined && (
        <div class="tool-kind">{String(call["kind"])}</div>
      )}
      {command !== undefined && (
        <pre class="command">
          {Array.isArray(command) ? command.join(" ") : String(command)}
        </pre>
      )}
      {locations.map((l, i) => (
        <div key={i} class="path">
          {String(l["path"])}
        </div>
      ))}
      {content
        .filter((c) => c["type"] === "diff")
        .map((c, i) => (
          <DiffView
            key={i}
            path={String(c["path"])}
            oldText={c["oldText"] as string}
            newText={String(c["newText"] ?? "")}
          />
        ))}
      <div class="options">
        {options.map((o, i) => (
          <button
            key={String(o["optionId"])}
            ref={i === 0 ? first : undefined}
            type="button"
            class={
              String(o["kind"] ?? "").startsWith("allow") ? "allow" : "reject"
            }
            data-option-id={String(o["optionId"])}
            onClick={() =>
              p.answer({
                outcome: { outcome: "selected", optionId: o["optionId"] },
              })
            }
          >
            {String(o["name"] ?? o["optionId"])}
          </button>
        ))}
      </div>
    </section>
  );
}
