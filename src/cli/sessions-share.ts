// `acphub sessions share|unshare ID --with USER`: who else may see or drive a hub session
// (app/session-grants.ts changes it).
import { cliContext } from "../app/context.js";
import { changeShare, shareRoleOf } from "../app/session-grants.js";
import { HubError } from "../shared/errors.js";
import type { ExitCode } from "./exit-codes.js";
import { answer, guarded, type JsonOptions } from "./guard.js";

export interface ShareOptions extends JsonOptions {
  with?: string;
  role?: string;
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
    answer(
      o.json,
      result,
      role
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
