// Every file and terminal action, allowed or refused, as an audit event in the turn's stream
// and a log line, with known secrets masked.
import type { HostContext } from "../contracts/client-host.js";
import type { AuditEvent } from "../contracts/events.js";
import type { Logger } from "../shared/logger.js";
import type { SecretMasker } from "../shared/secrets.js";

export type AuditEntry = Omit<AuditEvent, "type" | "sessionId">;
export type Audit = (ctx: HostContext, entry: AuditEntry) => void;

// Builds the audit function the host's handlers share.
export function auditor(masker: SecretMasker, logger: Logger): Audit {
  return (ctx, entry) => {
    const event = masker.maskValue({
      type: "audit" as const,
      sessionId: ctx.sessionId,
      ...entry,
    });
    ctx.emit(event);
    logger.info(event, "agent request");
  };
}
