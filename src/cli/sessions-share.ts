// `acphub sessions share|unshare ID --with USER`: who else may see or drive a hub session,
// written straight to the ledger (running hubs read grants from it on every access).
import { cliContext, type GlobalOptions } from "../app/context.js";
import { openLedger } from "../app/wiring.js";
import { userStoreOf } from "../ledger/open.js";
import { shareRoleOf } from "../hub/share.js";
import { HubError } from "../shared/errors.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { fail } from "./guard.js";

export interface ShareOptions extends GlobalOptions {
  with?: string;
  role?: string;
  json?: boolean;
}

const out = (text: string): void => void process.stdout.write(text);

// Grants (or with `unshare`, takes back) a user's access to a session, and audits it.
export async function sessionsShare(
  id: string,
  o: ShareOptions,
  unshare = false,
): Promise<ExitCode> {
  try {
    const user = o.with;
    if (!user) throw new HubError("USAGE", "--with USER is required");
    const role = unshare ? undefined : shareRoleOf(o.role);
    const ledger = await openLedger(cliContext(o));
    try {
      const store = userStoreOf(ledger);
      if (!(await ledger.getSession(id)))
        throw new HubError(
          "SESSION_NOT_FOUND",
          `no session ${JSON.stringify(id)}`,
        );
      if (!(await store.getUser(user)))
        throw new HubError("USAGE", `no user named ${JSON.stringify(user)}`);
      if (role) await store.grant({ sessionId: id, user, role });
      else await store.revoke(id, user);
      const action = role ? "session.share" : "session.unshare";
      await store.audit({
        at: Date.now(),
        user: "cli",
        action,
        sessionId: id,
        detail: { user, ...(role ? { role } : {}) },
      });
      const result = role
        ? { sessionId: id, user, role }
        : { sessionId: id, user, removed: true };
      out(
        o.json
          ? `${JSON.stringify(result)}\n`
          : role
            ? `shared ${id} with ${user} (${role})\n`
            : `unshared ${id} from ${user}\n`,
      );
    } finally {
      await ledger.close();
    }
    return EXIT_CODES.ok;
  } catch (error) {
    return fail(error);
  }
}
