// `acphub sessions share|unshare ID --with USER`: who else may see or drive a hub session
// (app/session-grants.ts changes it).
import { cliContext, type GlobalOptions } from "../app/context.js";
import { changeShare, shareRoleOf } from "../app/session-grants.js";
import { HubError } from "../shared/errors.js";
import type { ExitCode } from "./exit-codes.js";
import { guarded, out } from "./guard.js";

export interface ShareOptions extends GlobalOptions {
  with?: string;
  role?: string;
  json?: boolean;
}

// Grants (or with `unshare`, takes back) a user's access to a session, and audits it.
export function sessionsShare(
  id: string,
  o: ShareOptions,
  unshare = false,
): Promise<ExitCode> {
  return guarded(async () => {
    const user = o.with;
    if (!user) throw new HubError("USAGE", "--with USER is required");
    const role = unshare ? undefined : shareRoleOf(o.role);
    const { removed } = await changeShare(cliContext(o), id, user, role);
    const result = role
      ? { sessionId: id, user, role }
      : { sessionId: id, user, removed };
    out(
      o.json
        ? `${JSON.stringify(result)}\n`
        : role
          ? `shared ${id} with ${user} (${role})\n`
          : removed
            ? `unshared ${id} from ${user}\n`
            : `${user} had no access to ${id} to take back\n`,
    );
  });
}

// Takes back a user's access to a session (`sessions unshare`).
export function sessionsUnshare(
  id: string,
  o: ShareOptions,
): Promise<ExitCode> {
  return sessionsShare(id, o, true);
}
