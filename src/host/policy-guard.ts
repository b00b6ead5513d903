// Puts an fs or terminal request before the permission policy (mode, rules, grants), then
// runs it; both outcomes are audited, and a refusal is a wire error that says why.
import type { HostContext } from "../contracts/client-host.js";
import { permissionDenied } from "../protocol/wire-errors.js";
import type { Audit, AuditEntry } from "./audit.js";
import type { Access, PermissionEngine } from "./permission-engine.js";
import type { SessionFolderBook } from "./session-folders.js";

export interface GuardSubject {
  path?: string;
  command?: string;
}

export type Guard = <T extends object>(
  ctx: HostContext,
  access: Access,
  action: AuditEntry["action"],
  subject: GuardSubject,
  run: () => Promise<T>,
  /** The forms a terminal's command is matched against this turn's grants in. */
  commandKeys?: string[],
) => Promise<T>;

// Builds the guard the fs and terminal handlers run their work through.
export function policyGuard(
  engine: PermissionEngine,
  folders: SessionFolderBook,
  audit: Audit,
): Guard {
  return async (ctx, access, action, subject, run, commandKeys) => {
    const verdict = await engine.check(
      ctx.sessionId,
      folders.workspaceOf(ctx.sessionId),
      access,
      subject.path ?? subject.command ?? "",
      ctx.signal,
      commandKeys,
    );
    if (!verdict.allowed) {
      audit(ctx, {
        action,
        ...subject,
        allowed: false,
        reason: verdict.reason,
      });
      throw permissionDenied(`refused by policy: ${verdict.reason}`, {
        reason: verdict.reason,
      });
    }
    try {
      const result = await run();
      const bytes = (result as { bytes?: number }).bytes;
      audit(ctx, {
        action,
        ...subject,
        allowed: true,
        reason: verdict.reason,
        bytes,
      });
      return result;
    } catch (error) {
      const reason = (error as Error).message;
      audit(ctx, { action, ...subject, allowed: false, reason });
      throw error;
    }
  };
}
