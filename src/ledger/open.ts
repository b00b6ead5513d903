// Opens the ledger a location names: a postgres:// URL opens PostgreSQL, anything else is the
// path of a SQLite file. There is no fallback: a ledger that cannot be opened is an error.
import type { LedgerPort } from "../engine/ledger-port.js";
import type { LedgerOptions } from "./caps.js";
import type { PgConnectionOptions } from "./postgres/pg-connection.js";
import { PostgresLedger } from "./postgres/pg-ledger.js";
import { SqliteLedger } from "./sqlite/sqlite-ledger.js";
import type { UserStore } from "../contracts/users.js";
import type { ClusterStore } from "../contracts/cluster-store.js";
import type { SecretStore } from "../contracts/user-secrets.js";
import { HubError } from "../shared/errors.js";
import { warmRowChecks } from "./row-checks.js";

export function isPostgresUrl(where: string): boolean {
  return /^postgres(ql)?:\/\//i.test(where);
}

/**
 * A ledger as opened: the port, the users kept in its database, and — PostgreSQL only — the
 * store that `acphub serve` processes sharing it as a cluster use (nodes, leases, messages).
 */
export type OpenLedger = LedgerPort & {
  readonly users: UserStore;
  readonly secrets: SecretStore;
  readonly cluster?: ClusterStore;
};

export async function openLedgerAt(
  where: string,
  options: LedgerOptions & Pick<PgConnectionOptions, "retryMs"> = {},
): Promise<OpenLedger> {
  const opening = isPostgresUrl(where)
    ? PostgresLedger.open(where, options)
    : new SqliteLedger(where, options);
  warmRowChecks(); // while PostgreSQL connects
  return opening;
}

/** The users, grants and audit log kept in a ledger's database (both engines keep them). */
export function userStoreOf(ledger: LedgerPort): UserStore {
  if (ledger instanceof SqliteLedger || ledger instanceof PostgresLedger)
    return ledger.users;
  throw new HubError("USAGE", "this ledger keeps no users");
}

/** The users' sealed secrets kept in a ledger's database (issue 36; both engines keep them). */
export function secretStoreOf(ledger: LedgerPort): SecretStore {
  if (ledger instanceof SqliteLedger || ledger instanceof PostgresLedger)
    return ledger.secrets;
  throw new HubError("USAGE", "this ledger keeps no secrets");
}
