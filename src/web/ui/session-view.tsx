// One session: its transcript (history replayed, then live), the plan, usage, the permission
// questions waiting for an answer, mode/config selectors and the composer.
import { useEffect, useMemo } from "preact/hooks";
import type { HubStore } from "../state/hub-store.js";
import { Composer } from "./composer.js";
import { PermissionCard } from "./permission-card.js";
import { PlanView, UsageView } from "./plan.js";
import { SettingsBar } from "./settings-bar.js";
import { Transcript } from "./items.js";
import {
  TerminalReader,
  type ReadTerminal,
  type TerminalOutput,
} from "./terminal-view.js";

export function SessionView({
  store,
  sessionId,
}: {
  store: HubStore;
  sessionId: string;
}) {
  useEffect(() => {
    void store.open(sessionId);
  }, [sessionId]);
  // Tool cards read this session's terminals from the hub.
  const readTerminal = useMemo<ReadTerminal>(
    () => (terminalId) =>
      store.request<TerminalOutput>("_acphub/terminal/output", {
        sessionId,
        terminalId,
      }),
    [store, sessionId],
  );
  const m = store.model;
  if (!m || m.sessionId !== sessionId)
    return <p class="loading">Loading session…</p>;
  const mine = store.permissions.filter(
    (p) => p.params["sessionId"] === sessionId,
  );
  return (
    <div class="session" data-session-id={sessionId}>
      <div class="session-head">
        <h2 class="session-title">
          {m.title ?? store.titles.get(sessionId) ?? sessionId}
        </h2>
        <SettingsBar model={m} store={store} />
      </div>
      {store.replaying && <p class="loading">Replaying the history…</p>}
      <TerminalReader.Provider value={readTerminal}>
        <Transcript items={m.items} />
      </TerminalReader.Provider>
      {m.plan && <PlanView entries={m.plan} />}
      {mine.map((p) => {
        const id = (p.params["toolCall"] as { toolCallId?: string } | undefined)
          ?.toolCallId;
        return (
          <PermissionCard
            key={p.id}
            p={p}
            known={id ? m.tools.get(id)?.call : undefined}
          />
        );
      })}
      {store.error && (
        <div class="error" role="alert">
          {store.error}
        </div>
      )}
      <div
        class="turn-state"
        data-running={String(store.turn.running)}
        data-stop-reason={store.turn.stopReason ?? ""}
      >
        {store.turn.running
          ? "The agent is working…"
          : store.turn.stopReason
            ? `Turn ended: ${store.turn.stopReason}`
            : ""}
      </div>
      {m.usage && <UsageView usage={m.usage} />}
      <Composer
        turn={store.turn}
        online={store.status === "online"}
        commands={m.commands}
        onSend={(text) => void store.prompt(text)}
        onStop={() => store.cancel()}
      />
    </div>
  );
}
