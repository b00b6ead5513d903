// The admin screen (#/admin, issue 38): users, usage against budgets, the audit log and the
// nodes, each a section reached by its tab; for admins only (the hub refuses the methods to
// anyone else anyway).
import { useState } from "preact/hooks";
import type { HubStore } from "../state/hub-store.js";
import { UsersView } from "./admin-users.js";
import { UsageTable } from "./admin-usage.js";
import { AuditView } from "./admin-audit.js";
import { NodesView } from "./admin-nodes.js";

const TABS = [
  ["users", "Users"],
  ["usage", "Usage"],
  ["audit", "Audit log"],
  ["nodes", "Nodes"],
] as const;
type Tab = (typeof TABS)[number][0];

export function AdminScreen({ store }: { store: HubStore }) {
  const [tab, setTab] = useState<Tab>("users");
  if (store.team.me?.role !== "admin")
    return (
      <section class="admin">
        <h1>Admin</h1>
        <p>Only an admin may see this.</p>
      </section>
    );
  return (
    <section class="admin" aria-labelledby="admin-title">
      <h1 id="admin-title">Admin</h1>
      <nav class="admin-tabs" aria-label="Admin sections">
        {TABS.map(([key, label]) => (
          <button
            key={key}
            type="button"
            aria-pressed={tab === key}
            onClick={() => setTab(key)}
          >
            {label}
          </button>
        ))}
      </nav>
      {tab === "users" && <UsersView asker={store} />}
      {tab === "usage" && (
        <section aria-labelledby="usage-title">
          <h2 id="usage-title">Usage against budgets</h2>
          <UsageTable
            asker={store}
            title="Each user's usage in their budget's period"
          />
        </section>
      )}
      {tab === "audit" && <AuditView asker={store} />}
      {tab === "nodes" && <NodesView asker={store} />}
    </section>
  );
}
