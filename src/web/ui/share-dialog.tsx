// The sharing dialog of a session's owner (or an admin): who has access and as what, a form
// to share with a user as viewer (watches) or driver (prompts too), and unshare for each.
import { useEffect, useRef, useState } from "preact/hooks";
import type { HubStore } from "../state/hub-store.js";
import { messageOf } from "../state/hub-store.js";
import { sortGrants, type Grant, type GrantRole } from "../state/team.js";

const ROLE_WORDS: Record<GrantRole, string> = {
  owner: "owner",
  driver: "driver (may prompt)",
  viewer: "viewer (watches only)",
};

// One user with access; everyone but the owner can be unshared.
function GrantRow({
  grant,
  busy,
  onUnshare,
}: {
  grant: Grant;
  busy: boolean;
  onUnshare(): void;
}) {
  return (
    <li data-user={grant.user} data-role={grant.role}>
      <span class="grant-user">{grant.user}</span>{" "}
      <span class="grant-role">{ROLE_WORDS[grant.role]}</span>
      {grant.role !== "owner" && (
        <button
          type="button"
          disabled={busy}
          aria-label={`Unshare with ${grant.user}`}
          onClick={onUnshare}
        >
          Unshare
        </button>
      )}
    </li>
  );
}

// The form: a user name and a role; the hub refuses an unknown user with a clear message.
function ShareForm({ run }: { run(user: string, role: GrantRole): void }) {
  const [user, setUser] = useState("");
  const [role, setRole] = useState<GrantRole>("viewer");
  return (
    <form
      class="share-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (user.trim()) run(user.trim(), role);
      }}
    >
      <label>
        User{" "}
        <input
          name="user"
          autoComplete="off"
          value={user}
          onInput={(e) => setUser((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Role{" "}
        <select
          value={role}
          onChange={(e) =>
            setRole((e.target as HTMLSelectElement).value as GrantRole)
          }
        >
          <option value="viewer">Viewer (watches only)</option>
          <option value="driver">Driver (may prompt)</option>
        </select>
      </label>
      <button type="submit" disabled={!user.trim()}>
        Share
      </button>
    </form>
  );
}

// The header's Share… button (for the owner or an admin) and the dialog it opens.
export function ShareButton({
  store,
  sessionId,
}: {
  store: HubStore;
  sessionId: string;
}) {
  const [open, setOpen] = useState(false);
  if (!store.team.mayShare(sessionId)) return null;
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Share…
      </button>
      {open && (
        <ShareDialog
          store={store}
          sessionId={sessionId}
          onClose={() => setOpen(false)}
        />
      )}
    </>
  );
}

function ShareDialog({
  store,
  sessionId,
  onClose,
}: {
  store: HubStore;
  sessionId: string;
  onClose(): void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => {
    dialog.current?.showModal();
    void store.team.load(sessionId).catch((e) => setError(messageOf(e)));
  }, [sessionId]);
  // Runs a share or unshare, keeping the dialog open with the hub's answer.
  const act = (run: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    run()
      .catch((e: unknown) => setError(messageOf(e)))
      .finally(() => setBusy(false));
  };
  const grants = sortGrants(store.team.grantsOf(sessionId) ?? []);
  return (
    <dialog
      ref={dialog}
      class="share-dialog"
      aria-labelledby="share-title"
      onClose={onClose}
    >
      <h2 id="share-title">Share this session</h2>
      <ul class="grants" aria-label="Who has access">
        {grants.map((g) => (
          <GrantRow
            key={g.user}
            grant={g}
            busy={busy}
            onUnshare={() => act(() => store.team.unshare(sessionId, g.user))}
          />
        ))}
      </ul>
      <ShareForm
        run={(user, role) => act(() => store.team.share(sessionId, user, role))}
      />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <button type="button" onClick={() => dialog.current?.close()}>
        Close
      </button>
    </dialog>
  );
}
