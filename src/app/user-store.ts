// The users store in the ledger's database (users, grants, audit log), opened for one command.
import type { UserStore } from "../contracts/users.js";
import { userStoreOf } from "../ledger/open.js";
import type { LedgerPort } from "../engine/ports.js";
import type { AppContext } from "../config/context.js";
import { withLedger } from "./sessions.js";

// Opens the ledger, runs `body` on its users store (and the ledger), closes it.
export function withUserStore<T>(
  ctx: AppContext,
  body: (store: UserStore, ledger: LedgerPort) => Promise<T>,
): Promise<T> {
  return withLedger(ctx, (ledger) => body(userStoreOf(ledger), ledger));
}
