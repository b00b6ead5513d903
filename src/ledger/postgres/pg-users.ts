// The user store (issue 22) on the PostgreSQL ledger's pool (queries retried like the ledger's).
import { SqlUserStore, type SqlRunner } from "../user-store.js";
import type { PgConnection } from "./pg-connection.js";
import { SqlSecretStore } from "../secret-store.js";
import { GRANTS_CHANNEL } from "../../contracts/cluster-store.js";
import type { SessionGrant } from "../../contracts/users.js";

/** The users of the PostgreSQL ledger: a changed grant is also told to every node (issue 38),
 *  so that its user's open pages on any node hear of it, whoever changed it (hub or CLI). */
class PgUserStore extends SqlUserStore {
  constructor(private readonly pg: PgConnection) {
    super(pgRunner(pg), "acphub_");
  }

  override async grant(g: SessionGrant): Promise<void> {
    await super.grant(g);
    await this.tell({ sessionId: g.sessionId, user: g.user, role: g.role });
  }

  override async revoke(sessionId: string, user: string): Promise<boolean> {
    const removed = await super.revoke(sessionId, user);
    if (removed) await this.tell({ sessionId, user });
    return removed;
  }

  // A lost notice costs only liveness (a reload shows it): never the change itself.
  private async tell(notice: Record<string, string>): Promise<void> {
    await this.pg
      .query("SELECT pg_notify($1, $2)", [
        GRANTS_CHANNEL,
        JSON.stringify(notice),
      ])
      .catch(() => undefined);
  }
}

// The users' secrets (issue 36), sealed, through the same connection.
export function pgSecretStore(db: PgConnection): SqlSecretStore {
  return new SqlSecretStore(pgRunner(db), "acphub_");
}

export function pgUserStore(db: PgConnection): SqlUserStore {
  return new PgUserStore(db);
}

// Runs the stores' statements through the ledger's connection.
function pgRunner(db: PgConnection): SqlRunner {
  const runner: SqlRunner = {
    all: async (sql, args = []) => (await db.query(sql, args)).rows,
    run: async (sql, args = []) => (await db.query(sql, args)).rowCount ?? 0,
    isDuplicate: (error) =>
      (error as { cause?: { code?: unknown } }).cause?.code === "23505",
  };
  return runner;
}
