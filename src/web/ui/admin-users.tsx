// The users on the admin screen (issue 38): the list (name, role, created, last seen), a form
// to add one (its login link shown once), a role to change, a login link to make (shown once,
// with Copy and its expiry), quotas, and Remove with a confirmation. Each is one of the hub's
// `_acphub/users/*` methods, the command line's own functions behind them.
import { useEffect, useState } from "preact/hooks";
import type { AdminUser } from "../../shared/admin-answers.js";
import { messageOf } from "../state/hub-store.js";
import { admin, when, type Asker } from "../state/admin.js";
import { LimitsForm } from "./admin-limits.js";

const ROLES = ["admin", "member", "viewer"];

/** A login link shown once: its URL, a Copy button, when it expires. */
export interface Shown {
  name: string;
  url: string;
  expiresAt: number;
  token?: string;
}

function LinkBox({ link, onDone }: { link: Shown; onDone(): void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div
      class="login-link"
      role="status"
      aria-label={`Login link for ${link.name}`}
    >
      <p>
        Login link for <strong>{link.name}</strong> — shown once, works once,
        expires {when(link.expiresAt)}:
      </p>
      <input
        readOnly
        aria-label={`Login link for ${link.name}`}
        name="login-link"
        value={link.url}
        onFocus={(e) => (e.target as HTMLInputElement).select()}
      />
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard
            ?.writeText(link.url)
            .then(() => setCopied(true))
            .catch(() => undefined)
        }
      >
        {copied ? "Copied" : "Copy"}
      </button>
      {link.token && (
        <p>
          Their token (for editors and the CLI; shown once):{" "}
          <code>{link.token}</code>
        </p>
      )}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

function AddForm({ run }: { run(name: string, role: string): Promise<void> }) {
  const [name, setName] = useState("");
  const [role, setRole] = useState("member");
  return (
    <form
      class="admin-add"
      aria-label="Add a user"
      onSubmit={(e) => {
        e.preventDefault();
        void run(name.trim(), role).then(() => setName(""));
      }}
    >
      <label>
        Name{" "}
        <input
          name="new-user"
          autoComplete="off"
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Role{" "}
        <select
          name="new-role"
          value={role}
          onChange={(e) => setRole((e.target as HTMLSelectElement).value)}
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={!name.trim()}>
        Add user
      </button>
    </form>
  );
}

// One user's row: role selector, Login link, Quotas…, Remove… (confirmed).
function UserRow({
  u,
  act,
  asker,
  show,
}: {
  u: AdminUser;
  act(run: () => Promise<unknown>): Promise<void>;
  asker: Asker;
  show(link: Shown): void;
}) {
  const [confirm, setConfirm] = useState(false);
  const [quotas, setQuotas] = useState(false);
  return (
    <tr data-user={u.name}>
      <th scope="row">{u.name}</th>
      <td>
        <select
          name={`role-${u.name}`}
          aria-label={`Role of ${u.name}`}
          value={u.role}
          onChange={(e) =>
            void act(() =>
              admin.role(asker, u.name, (e.target as HTMLSelectElement).value),
            ).catch(() => undefined)
          }
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </td>
      <td>{when(u.createdAt)}</td>
      <td>{when(u.lastSeen)}</td>
      <td class="admin-actions">
        <button
          type="button"
          aria-label={`Login link for ${u.name}`}
          onClick={() =>
            void act(() => admin.login(asker, u.name).then(show)).catch(
              () => undefined,
            )
          }
        >
          Login link
        </button>
        <button
          type="button"
          aria-expanded={quotas}
          aria-label={`Quotas of ${u.name}`}
          onClick={() => setQuotas(!quotas)}
        >
          Quotas…
        </button>
        {confirm ? (
          <span role="group" aria-label={`Remove ${u.name}?`}>
            Remove {u.name}?{" "}
            <button
              type="button"
              class="danger"
              onClick={() =>
                void act(() => admin.remove(asker, u.name)).catch(
                  () => undefined,
                )
              }
            >
              Yes, remove {u.name}
            </button>
            <button type="button" onClick={() => setConfirm(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button
            type="button"
            aria-label={`Remove ${u.name}…`}
            onClick={() => setConfirm(true)}
          >
            Remove…
          </button>
        )}
        {quotas && <LimitsForm asker={asker} name={u.name} />}
      </td>
    </tr>
  );
}

export function UsersView({ asker }: { asker: Asker }) {
  const [users, setUsers] = useState<AdminUser[]>([]);
  const [error, setError] = useState<string>();
  const [link, setLink] = useState<Shown>();
  const reload = () => admin.users(asker).then((a) => setUsers(a.users));
  useEffect(
    () => void reload().catch((e: unknown) => setError(messageOf(e))),
    [asker],
  );
  // Runs a change, then reads the users again; the hub's refusal is shown as it is.
  const act = (run: () => Promise<unknown>): Promise<void> => {
    setError(undefined);
    return run()
      .then(reload)
      .catch((e: unknown) => {
        setError(messageOf(e));
        void reload().catch(() => undefined);
        throw e;
      });
  };
  return (
    <section aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {link && <LinkBox link={link} onDone={() => setLink(undefined)} />}
      <table class="admin-table users-table">
        <caption>The hub's users</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Created</th>
            <th scope="col">Last seen</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {users.length === 0 && (
            <tr>
              <td colSpan={5}>
                No users yet (the serve token is the only login).
              </td>
            </tr>
          )}
          {users.map((u) => (
            <UserRow
              key={u.name}
              u={u}
              act={act}
              asker={asker}
              show={setLink}
            />
          ))}
        </tbody>
      </table>
      <AddForm
        run={(name, role) =>
          act(() => admin.add(asker, name, role).then((a) => setLink(a)))
        }
      />
    </section>
  );
}
