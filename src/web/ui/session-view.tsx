// One session: its header, the transcript (history replayed, then live, followed while the
// reader is at its end), the current plan, the permission questions waiting for this page's
// answer, what the agent is doing, and the composer (a "read only" marker for a viewer). A
// session that does not exist says so. Long sessions are paged: older history is read as the
// reader nears the top, newer again as they come back down (history-pager.ts).
import type { RefObject } from "preact";
import { useEffect, useMemo, useRef } from "preact/hooks";
import type { HubStore } from "../state/hub-store.js";
import { currentPlan } from "../state/session-model.js";
import { Composer } from "./composer.js";
import { useFollow } from "./follow.js";
import { PermissionCard } from "./permission-card.js";
import { PlanView } from "./plan.js";
import { SessionHeader } from "./session-header.js";
import { Transcript } from "./items.js";
import {
  TerminalReader,
  type ReadTerminal,
  type TerminalOutput,
} from "./terminal-view.js";
import { TurnState } from "./turn-state.js";
import { QueuedList } from "./queued-list.js";
import { queuePrompt } from "../state/session-actions.js";
import { ReadOnly } from "./who.js";
import { HUB_METHOD } from "../../shared/hub-extension.js";

// The screen for a link to a session the hub does not have (deleted, or another hub's).
function NotFound({ sessionId }: { sessionId: string }) {
  return (
    <div class="not-found" role="region" aria-label="Session not found">
      <h2>Session not found</h2>
      <p>
        This hub has no session <code>{sessionId}</code>. It may have been
        deleted, or the link comes from another hub.
      </p>
      <a class="button" href="#/" ref={(el) => el?.focus()}>
        Back to the sessions
      </a>
    </div>
  );
}

/** How near an end of the transcript (px) the next page is read. */
const PAGE_AHEAD_PX = 2000;

// Reads the next page when the view nears an end of the window that is not the session's.
function usePaging(
  store: HubStore,
  scroller: RefObject<HTMLDivElement | null>,
) {
  const check = () => {
    const el = scroller.current;
    const w = store.model?.window;
    if (!el || !w || store.replaying || store.pager.busy) return;
    if (el.scrollTop < PAGE_AHEAD_PX && w.hasOlder) store.pager.older();
    else if (
      el.scrollHeight - el.scrollTop - el.clientHeight < PAGE_AHEAD_PX &&
      !w.atLive
    )
      store.pager.newer();
  };
  useEffect(() => {
    const el = scroller.current;
    el?.addEventListener("scroll", check, { passive: true });
    return () => el?.removeEventListener("scroll", check);
  });
  // A page just joined may leave the view still near the end: read on.
  useEffect(() => {
    const id = requestAnimationFrame(check);
    return () => cancelAnimationFrame(id);
  }, [store.version]);
}

export function SessionView({
  store,
  sessionId,
}: {
  store: HubStore;
  sessionId: string;
}) {
  // The session's opening (its history, then session/resume): reads that need the session
  // attached on this connection wait for it.
  const opened = useRef<Promise<void>>(Promise.resolve());
  useEffect(() => {
    opened.current = store.open(sessionId);
  }, [sessionId]);
  // Tool cards read this session's terminals from the hub, once it is attached (a card replayed
  // from history asks at once; asked before session/resume's answer, the hub says "not open").
  const readTerminal = useMemo<ReadTerminal>(
    () => async (terminalId) => {
      await opened.current;
      return store.request<TerminalOutput>(HUB_METHOD.terminalOutput, {
        sessionId,
        terminalId,
      });
    },
    [store, sessionId],
  );
  const m = store.model;
  const shown = m?.sessionId === sessionId;
  const live = !shown || m.window.atLive;
  const follow = useFollow(sessionId, shown && !store.replaying, live);
  usePaging(store, follow.scroller);
  if (shown && store.notFound) return <NotFound sessionId={sessionId} />;
  if (!m || !shown) return <p class="loading">Loading session…</p>;
  // A viewer only watches: no composer, no permission answers (issue 22).
  const readOnly = store.team.readOnly(sessionId);
  const mine = readOnly
    ? []
    : store.permissions.filter((p) => p.params["sessionId"] === sessionId);
  const plan = currentPlan(m);
  return (
    <div class="session" data-session-id={sessionId}>
      <SessionHeader store={store} />
      <div
        class="scroller"
        ref={follow.scroller}
        tabIndex={0}
        role="region"
        aria-label="Transcript"
        onKeyDown={(e) => {
          // Home and End go all the way at once: the browser's smooth scroll there stops
          // part-way when rows measured on the way move the view. End follows again.
          if (e.altKey || e.shiftKey) return;
          if (e.key === "Home") {
            e.preventDefault();
            follow.scroller.current?.scrollTo({ top: 0, behavior: "instant" });
          } else if (e.key === "End") {
            e.preventDefault();
            store.pager.latest();
            follow.jump();
          }
        }}
      >
        <div class="scroll-content" ref={follow.content}>
          {store.replaying && <p class="loading">Replaying the history…</p>}
          <TerminalReader.Provider value={readTerminal}>
            <Transcript
              items={m.items}
              scroller={follow.scroller}
              authors={m.authors.size > 1}
              epoch={m.window.epoch}
              live={live}
            />
          </TerminalReader.Provider>
          {plan && <PlanView entries={plan} />}
          {mine.map((p) => {
            const id = (
              p.params["toolCall"] as { toolCallId?: string } | undefined
            )?.toolCallId;
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
          <TurnState store={store} mine={mine.length > 0} />
          <QueuedList store={store} />
        </div>
      </div>
      {!follow.following && (
        <button
          type="button"
          class="jump"
          onClick={() => {
            store.pager.latest();
            follow.jump();
          }}
        >
          Jump to latest ↓
        </button>
      )}
      {readOnly ? (
        <ReadOnly />
      ) : (
        <Composer
          key={sessionId}
          turn={store.turn}
          online={store.status === "online"}
          commands={m.commands}
          onSend={(text) => {
            store.pager.latest();
            follow.jump();
            return store.prompt(text);
          }}
          onQueue={(text) => void queuePrompt(store, text)}
          onStop={() => store.cancel()}
        />
      )}
    </div>
  );
}
