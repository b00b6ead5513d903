// The prompts queued to run after the running turn (issue 37), under the transcript: who queued
// each and what it says, with a Revoke button for the ones this page may revoke (its user queued
// it, or owns the session, or is an admin).
import type { HubStore } from "../state/hub-store.js";
import { revokeQueued } from "../state/session-actions.js";

export function QueuedList({ store }: { store: HubStore }) {
  const m = store.model;
  if (!m || m.queued.size === 0) return null;
  const standing = store.team.standing(m.sessionId);
  const me = store.team.me?.name;
  const mayRevoke = (author?: string) =>
    standing === "owner" ||
    standing === "admin" ||
    (author !== undefined && author === me);
  return (
    <section class="queued" aria-label="Queued prompts">
      <h3>Queued to run after this turn</h3>
      <ol>
        {[...m.queued.values()].map((q) => (
          <li key={q.queueId} data-queue-id={q.queueId}>
            <span class="queued-text">{q.text}</span>
            {q.author && <small class="queued-by"> — {q.author}</small>}
            {mayRevoke(q.author) && (
              <button
                type="button"
                class="revoke"
                onClick={() => void revokeQueued(store, q.queueId)}
              >
                Revoke
              </button>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
