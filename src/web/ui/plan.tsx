// The agent's plan as a checklist, replaced in place by each plan update; and usage / cost.
import { formatCost, formatCount } from "../../shared/format-numbers.js";
import type { Params } from "../state/session-model.js";

const MARK: Record<string, string> = {
  completed: "☑",
  in_progress: "◐",
  pending: "☐",
};

export function PlanView({ entries }: { entries: Params[] }) {
  return (
    <section class="plan" aria-label="Plan">
      <h3>Plan</h3>
      <ul>
        {entries.map((e, i) => {
          const status = String(e["status"] ?? "pending");
          return (
            <li key={i} class={`plan-${status}`} data-status={status}>
              <span aria-hidden="true">{MARK[status] ?? "☐"}</span>{" "}
              {String(e["content"] ?? "")}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

export function UsageView({ usage }: { usage: Params }) {
  const cost = usage["cost"] as
    { amount?: number; currency?: string } | undefined;
  const used = usage["used"];
  const size = usage["size"];
  return (
    <div class="usage" aria-label="Usage">
      {typeof used === "number" && (
        <span>
          {formatCount(used)}
          {typeof size === "number" ? ` / ${formatCount(size)}` : ""} tokens
        </span>
      )}
      {typeof cost?.amount === "number" && (
        <span> · {formatCost(cost.amount, cost.currency)}</span>
      )}
    </div>
  );
}
