// The user menu's Secrets… dialog (issue 36): the names of this user's secrets and when each
// was set (never a value), a form to set one (the value in a password field, cleared once
// sent) and Remove for each. The hub keeps them encrypted and gives them only to this user's
// agents (`_acphub/secrets/*`).
import { useEffect, useRef, useState } from "preact/hooks";
import { HUB_METHOD } from "../../shared/hub-extension.js";
import type { HubStore } from "../state/hub-store.js";
import { messageOf } from "../state/hub-store.js";

interface SecretRow {
  name: string;
  updatedAt: number;
}

// The form: a name (an environment variable's) and its value; the hub checks both.
function SetForm({ run }: { run(name: string, value: string): Promise<void> }) {
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  return (
    <form
      class="secret-form"
      onSubmit={(e) => {
        e.preventDefault();
        void run(name.trim(), value).then(() => {
          setName("");
          setValue("");
        });
      }}
    >
      <label>
        Name{" "}
        <input
          name="secret-name"
          autoComplete="off"
          placeholder="ANTHROPIC_API_KEY"
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Value{" "}
        <input
          name="secret-value"
          type="password"
          autoComplete="off"
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit" disabled={!name.trim() || value === ""}>
        Set
      </button>
    </form>
  );
}

// The top bar's Secrets… button and the dialog it opens (on a hub, for whoever is logged in).
export function SecretsButton({ store }: { store: HubStore }) {
  const [open, setOpen] = useState(false);
  if (!store.team.me) return null;
  return (
    <>
      <button type="button" class="secrets" onClick={() => setOpen(true)}>
        Secrets…
      </button>
      {open && <SecretsDialog store={store} onClose={() => setOpen(false)} />}
    </>
  );
}

function SecretsDialog({
  store,
  onClose,
}: {
  store: HubStore;
  onClose(): void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [rows, setRows] = useState<SecretRow[]>([]);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const reload = () =>
    store
      .request<{ secrets: SecretRow[] }>(HUB_METHOD.secretsList, {})
      .then((a) => setRows(a.secrets));
  useEffect(() => {
    dialog.current?.showModal();
    void reload().catch((e: unknown) => setError(messageOf(e)));
  }, []);
  // Runs a change, then reads the names again; the hub's refusal is shown as it is.
  const act = (run: () => Promise<unknown>): Promise<void> => {
    setBusy(true);
    setError(undefined);
    return run()
      .then(reload)
      .catch((e: unknown) => {
        setError(messageOf(e));
        throw e;
      })
      .finally(() => setBusy(false));
  };
  const viewer = store.team.me?.role === "viewer";
  return (
    <dialog
      ref={dialog}
      class="secrets-dialog"
      aria-labelledby="secrets-title"
      onClose={onClose}
    >
      <h2 id="secrets-title">Your secrets</h2>
      <p class="hint">
        Given to your agents as environment variables; stored encrypted, never
        shown again.
      </p>
      <ul class="secret-list" aria-label="Your secrets">
        {rows.length === 0 && <li class="empty">No secrets yet.</li>}
        {rows.map((s) => (
          <li key={s.name} data-secret={s.name}>
            <code>{s.name}</code>{" "}
            <span class="when">{new Date(s.updatedAt).toLocaleString()}</span>{" "}
            <button
              type="button"
              disabled={busy}
              aria-label={`Remove ${s.name}`}
              onClick={() =>
                void act(() =>
                  store.request(HUB_METHOD.secretsRemove, { name: s.name }),
                ).catch(() => undefined)
              }
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      {!viewer && (
        <SetForm
          run={(name, value) =>
            act(() => store.request(HUB_METHOD.secretsSet, { name, value }))
          }
        />
      )}
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
