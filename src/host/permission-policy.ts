// Automatic answers to `session/request_permission` by mode. With nobody to ask, `ask`
// refuses deterministically and says so; it never allows by default.
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import type { PermissionMode } from "../config/schema.js";
import { outcomeFor } from "../protocol/permission-options.js";

export interface PolicyAnswer {
  outcome: ReturnType<typeof outcomeFor>;
  reason: string;
}

/** Tool kinds that only look: allowed under `approve-reads`. */
export const READ_KINDS: ReadonlySet<string> = new Set([
  "read",
  "search",
  "fetch",
  "think",
]);

export function decideByMode(
  mode: PermissionMode,
  request: RequestPermissionRequest,
): PolicyAnswer {
  const kind = request.toolCall.kind ?? "other";
  const title = request.toolCall.title ?? request.toolCall.toolCallId;
  const allow = (reason: string) => ({
    outcome: outcomeFor("allow", request.options),
    reason,
  });
  const reject = (reason: string) => ({
    outcome: outcomeFor("reject", request.options),
    reason,
  });
  switch (mode) {
    case "approve-all":
      return allow("approve-all mode");
    case "deny-all":
      return reject(`deny-all mode refused "${title}" (${kind})`);
    case "approve-reads":
      return READ_KINDS.has(kind)
        ? allow(`approve-reads mode allows ${kind}`)
        : reject(`approve-reads mode refused "${title}" (kind ${kind})`);
    case "ask":
      return reject(
        `nobody to ask (no terminal); refused "${title}" (${kind})`,
      );
  }
}
