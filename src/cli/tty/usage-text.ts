// The usage part of the dim line that ends a turn in `chat` (and `run` at a terminal): the
// tokens the agent's answer reported, the context in use from its last usage_update, and the
// session's cost so far — each only when the agent reported it.
import { formatCost, formatCount } from "../../shared/format-numbers.js";

const num = (v: unknown) =>
  typeof v === "number" && Number.isFinite(v) ? v : undefined;

// " · 1,234 tokens (1,000 in, 234 out) · context 12,000/200,000 · $0.25 so far"; "" when none.
export function usageText(
  answer: Record<string, unknown> | null | undefined,
  update: Record<string, unknown> | undefined,
): string {
  const parts: string[] = [];
  const input = num(answer?.["inputTokens"]);
  const output = num(answer?.["outputTokens"]);
  const total =
    num(answer?.["totalTokens"]) ??
    (input !== undefined || output !== undefined
      ? (input ?? 0) + (output ?? 0)
      : undefined);
  if (total !== undefined) {
    const split =
      input !== undefined && output !== undefined
        ? ` (${formatCount(input)} in, ${formatCount(output)} out)`
        : "";
    parts.push(`${formatCount(total)} tokens${split}`);
  }
  const used = num(update?.["used"]);
  const size = num(update?.["size"]);
  if (used !== undefined)
    parts.push(
      `context ${formatCount(used)}${size ? `/${formatCount(size)}` : ""}`,
    );
  const cost = update?.["cost"] as
    { amount?: unknown; currency?: unknown } | undefined;
  const amount = num(cost?.amount);
  if (amount !== undefined)
    parts.push(
      `${formatCost(amount, typeof cost?.currency === "string" ? cost.currency : undefined)} so far`,
    );
  return parts.map((p) => ` · ${p}`).join("");
}
