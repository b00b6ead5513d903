// Agents name their permission options differently (`allow`, `once`, `proceed_once`, …):
// acphub picks by `kind` and always answers with the agent's own `optionId`.
import type {
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionOutcome,
} from "@agentclientprotocol/sdk";

export type Decision = "allow" | "reject";

const PREFERENCE: Record<Decision, PermissionOptionKind[]> = {
  allow: ["allow_once", "allow_always"],
  reject: ["reject_once", "reject_always"],
};

// The outcome for an automatic decision: the first option of a fitting kind, else cancelled.
export function outcomeFor(
  decision: Decision,
  options: readonly PermissionOption[],
): RequestPermissionOutcome {
  for (const kind of PREFERENCE[decision]) {
    const option = options.find((o) => o.kind === kind);
    if (option) return { outcome: "selected", optionId: option.optionId };
  }
  return { outcome: "cancelled" };
}

// Whether an outcome grants the request (a selected option of an allow kind).
export function isAllowed(
  outcome: RequestPermissionOutcome,
  options: readonly PermissionOption[],
): boolean {
  if (outcome.outcome !== "selected") return false;
  const chosen = options.find((o) => o.optionId === outcome.optionId);
  return chosen?.kind === "allow_once" || chosen?.kind === "allow_always";
}
