// Span attribute values from ACP's shapes: token usage and the text of content blocks.
import type { Attributes } from "@opentelemetry/api";
import type { RawContentBlock } from "../contracts/events.js";

const num = (v: unknown) =>
  typeof v === "number" && Number.isFinite(v) ? v : undefined;

// Usage from a usage_update ({used, size, cost}) or a prompt answer ({inputTokens, …}).
export function usageAttributes(u: Record<string, unknown>): Attributes {
  const out: Attributes = {};
  const put = (key: string, v: unknown) => {
    const n = num(v);
    if (n !== undefined) out[key] = n;
  };
  put("gen_ai.usage.input_tokens", u["inputTokens"]);
  put("gen_ai.usage.output_tokens", u["outputTokens"]);
  put("acphub.usage.total_tokens", u["totalTokens"]);
  put("acphub.usage.thought_tokens", u["thoughtTokens"]);
  put("acphub.usage.cached_read_tokens", u["cachedReadTokens"]);
  put("acphub.context.used_tokens", u["used"]);
  put("acphub.context.size_tokens", u["size"]);
  const cost = u["cost"] as
    { amount?: unknown; currency?: unknown } | undefined;
  if (cost && typeof cost === "object") {
    put("acphub.cost.amount", cost.amount);
    if (typeof cost.currency === "string")
      out["acphub.cost.currency"] = cost.currency;
  }
  return out;
}

// The text of a prompt's blocks (other kinds by their type), for captured content.
export function contentText(blocks: RawContentBlock[]): string {
  return blocks
    .map((b) => {
      const text = (b as { text?: unknown }).text;
      return typeof text === "string" ? text : `[${b.type}]`;
    })
    .join("\n");
}
