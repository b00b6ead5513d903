// Who the page is logged in as (top bar), and the marker of a session this page may only
// watch (in place of the composer).
import type { Me } from "../state/team.js";

export function Who({ me }: { me?: Me }) {
  if (!me) return null;
  return (
    <span
      class="who"
      data-user={me.name}
      data-role={me.role}
      title={`Logged in as ${me.name} (${me.role})`}
    >
      <span class="who-label">Logged in as </span>
      <strong>{me.name}</strong> <span class="who-role">({me.role})</span>
    </span>
  );
}

// The place of the composer for a viewer: why there is nothing to type into.
export function ReadOnly() {
  return (
    <div class="read-only" role="status" data-read-only="true">
      <strong>Read only</strong> — you may watch this session, not prompt,
      answer its questions or change its settings.
    </div>
  );
}

// The header's marker of a session this page may only watch.
export function ReadOnlyBadge() {
  return (
    <span class="read-only-badge" title="You may watch this session only">
      read only
    </span>
  );
}
