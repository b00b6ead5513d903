// The ways in to the admin screen and the Usage view (issue 38): top-bar links (Admin for
// admins, Usage for everyone logged in as a user), and the pane each route shows.
import type { HubStore } from "../state/hub-store.js";
import { AdminScreen } from "./admin-screen.js";
import { UsageView } from "./admin-usage.js";

export function AdminLinks({ store }: { store: HubStore }) {
  const me = store.team.me;
  if (!me) return null;
  return (
    <>
      {me.role === "admin" && (
        <a class="button admin-link" href="#/admin">
          Admin
        </a>
      )}
      <a class="button usage-link" href="#/usage">
        Usage
      </a>
    </>
  );
}

export function AdminPane({ store, hash }: { store: HubStore; hash: string }) {
  return hash === "#/admin" ? (
    <AdminScreen store={store} />
  ) : (
    <UsageView asker={store} />
  );
}
