// The audit log on the admin screen (issue 38): filters by user, session, action and a time
// range, newest first, a page at a time (`_acphub/audit`, as `acphub audit` reads it).
import { useEffect, useState } from "preact/hooks";
import type { Params } from "../acp/hub-client.js";
import type { AuditPage } from "../../shared/admin-answers.js";
import { messageOf } from "../state/hub-store.js";
import { admin, when, type Asker } from "../state/admin.js";

const PAGE = 25;
const FIELDS: [string, string, "text" | "datetime-local"][] = [
  ["user", "User", "text"],
  ["sessionId", "Session", "text"],
  ["action", "Action", "text"],
  ["since", "From", "datetime-local"],
  ["until", "Until", "datetime-local"],
];

// The filter as the hub takes it: empty fields left out, local times as ISO.
function filterOf(form: Record<string, string>): Params {
  const out: Params = {};
  for (const [key, , type] of FIELDS) {
    const v = form[key]?.trim();
    if (!v) continue;
    out[key] = type === "datetime-local" ? new Date(v).toISOString() : v;
  }
  return out;
}

export function AuditView({ asker }: { asker: Asker }) {
  const [form, setForm] = useState<Record<string, string>>({});
  const [applied, setApplied] = useState<Params>({});
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<AuditPage>();
  const [error, setError] = useState<string>();
  const set = (key: string, e: Event) =>
    setForm({ ...form, [key]: (e.target as HTMLInputElement).value });
  useEffect(() => {
    setError(undefined);
    admin
      .audit(asker, { ...applied, offset, limit: PAGE })
      .then(setPage)
      .catch((e: unknown) => setError(messageOf(e)));
  }, [asker, applied, offset]);
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      <form
        class="admin-filters"
        aria-label="Audit filters"
        onSubmit={(e) => {
          e.preventDefault();
          setOffset(0);
          setApplied(filterOf(form));
        }}
      >
        {FIELDS.map(([key, label, type]) => (
          <label key={key}>
            {label}{" "}
            {type === "text" ? (
              <input
                name={`audit-${key}`}
                type="text"
                value={form[key] ?? ""}
                onInput={(e) => set(key, e)}
              />
            ) : (
              <input
                name={`audit-${key}`}
                type="datetime-local"
                value={form[key] ?? ""}
                onInput={(e) => set(key, e)}
              />
            )}
          </label>
        ))}
        <button type="submit">Filter</button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <table class="admin-table audit-table">
        <caption>Newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">User</th>
            <th scope="col">Action</th>
            <th scope="col">Session</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {page?.entries.length === 0 && (
            <tr>
              <td colSpan={5}>No entries.</td>
            </tr>
          )}
          {page?.entries.map((e, i) => (
            <tr key={`${e.at}-${i}`} data-action={e.action} data-user={e.user}>
              <td>{when(e.at)}</td>
              <td>{e.user}</td>
              <td>{e.action}</td>
              <td>{e.sessionId ?? "—"}</td>
              <td>
                <code>{e.detail ? JSON.stringify(e.detail) : ""}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="admin-pager">
        <button
          type="button"
          disabled={offset === 0}
          onClick={() => setOffset(Math.max(0, offset - PAGE))}
        >
          Newer
        </button>
        <button
          type="button"
          disabled={!page?.more}
          onClick={() => setOffset(offset + PAGE)}
        >
          Older
        </button>
      </div>
    </section>
  );
}
