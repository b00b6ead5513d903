// Usage against budgets (issue 38): each user's tokens and cost in their budget's period, the
// budget, what is LEFT and WHEN IT RESETS. An admin sees every user (the admin screen); a
// member or viewer their own (the Usage view), from the same `_acphub/usage`.
import { useEffect, useState } from "preact/hooks";
import type { UsageAnswer, UserUsage } from "../../shared/admin-answers.js";
import { messageOf } from "../state/hub-store.js";
import { admin, inTime, leftText, type Asker } from "../state/admin.js";

function Row({ u, now }: { u: UserUsage; now: number }) {
  const b = u.budget;
  const per = u.period === "day" ? "today (UTC)" : "this month (UTC)";
  return (
    <tr data-user={u.user}>
      <th scope="row">{u.user}</th>
      <td>
        {u.tokens.toLocaleString()} tokens
        {u.cost > 0 &&
          ` · ${u.cost.toFixed(4)}${u.currency ? ` ${u.currency}` : ""}`}{" "}
        <span class="hint">{per}</span>
      </td>
      <td data-cell="budget">
        {b
          ? [
              b.limit.tokens !== undefined &&
                `${b.limit.tokens.toLocaleString()} tokens`,
              b.limit.cost !== undefined && `${b.limit.cost} cost`,
            ]
              .filter(Boolean)
              .join(" · ") + ` per ${b.period}`
          : "no budget"}
      </td>
      <td data-cell="left">{b ? leftText(b) : "—"}</td>
      <td data-cell="resets">
        {b
          ? `${new Date(b.resetsAt).toLocaleString()} (${inTime(b.resetsAt, now)})`
          : "—"}
      </td>
    </tr>
  );
}

// The table of users' usage; `user` reads one user's only (a member's own: none needed).
export function UsageTable({ asker, title }: { asker: Asker; title: string }) {
  const [data, setData] = useState<UsageAnswer>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    admin
      .usage(asker)
      .then(setData)
      .catch((e: unknown) => setError(messageOf(e)));
  }, [asker]);
  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (!data) return <p class="hint">Reading usage…</p>;
  return (
    <table class="admin-table usage-table">
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">User</th>
          <th scope="col">Used</th>
          <th scope="col">Budget</th>
          <th scope="col">Left</th>
          <th scope="col">Resets</th>
        </tr>
      </thead>
      <tbody>
        {data.users.length === 0 && (
          <tr>
            <td colSpan={5}>No users.</td>
          </tr>
        )}
        {data.users.map((u) => (
          <Row key={u.user} u={u} now={data.now} />
        ))}
      </tbody>
    </table>
  );
}

// A member's (or viewer's) own usage and budget: the Usage view (#/usage).
export function UsageView({ asker }: { asker: Asker }) {
  return (
    <section class="admin usage-view" aria-labelledby="usage-title">
      <h1 id="usage-title">Your usage</h1>
      <UsageTable asker={asker} title="Your usage against your budget" />
      <p>
        <a href="#/">Back to sessions</a>
      </p>
    </section>
  );
}
