// The hub users' secrets (issue 36) in SQL both ledgers run: SQLite (`user_secrets`) and
// PostgreSQL (`acphub_user_secrets`). The ledger keeps sealed text only: it holds no key and
// cannot read a value (the sealing is app/secrets-key.ts's).
import type {
  SealedSecret,
  SecretInfo,
  SecretStore,
} from "../contracts/user-secrets.js";
import type { SqlRunner } from "./user-store.js";

type Row = Record<string, unknown>;

export class SqlSecretStore implements SecretStore {
  private readonly table: string;

  constructor(
    private readonly db: SqlRunner,
    /** Table name prefix: "" on SQLite, "acphub_" on PostgreSQL. */
    prefix: string,
  ) {
    this.table = `${prefix}user_secrets`;
  }

  async putSecret(s: SealedSecret): Promise<void> {
    await this.db.run(
      `INSERT INTO ${this.table} (user_name, name, sealed, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_name, name) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`,
      [s.user, s.name, s.sealed, s.updatedAt],
    );
  }

  async sealedSecrets(user: string): Promise<SealedSecret[]> {
    const rows = await this.db.all(
      `SELECT * FROM ${this.table} WHERE user_name = $1 ORDER BY name`,
      [user],
    );
    return rows.map(toSealed);
  }

  async listSecrets(user: string): Promise<SecretInfo[]> {
    const rows = await this.db.all(
      `SELECT name, updated_at FROM ${this.table} WHERE user_name = $1 ORDER BY name`,
      [user],
    );
    return rows.map((r) => ({
      name: String(r["name"]),
      updatedAt: Number(r["updated_at"]),
    }));
  }

  async removeSecret(user: string, name: string): Promise<boolean> {
    const n = await this.db.run(
      `DELETE FROM ${this.table} WHERE user_name = $1 AND name = $2`,
      [user, name],
    );
    return n > 0;
  }

  async anySecret(): Promise<SealedSecret | undefined> {
    const rows = await this.db.all(`SELECT * FROM ${this.table} LIMIT 1`);
    return rows[0] ? toSealed(rows[0]) : undefined;
  }
}

function toSealed(r: Row): SealedSecret {
  return {
    user: String(r["user_name"]),
    name: String(r["name"]),
    sealed: String(r["sealed"]),
    updatedAt: Number(r["updated_at"]),
  };
}

/** The secrets table's DDL, with a table prefix. */
export function secretsSchemaSql(prefix: string): string {
  return `CREATE TABLE ${prefix}user_secrets (
     user_name TEXT NOT NULL,
     name TEXT NOT NULL,
     sealed TEXT NOT NULL,
     updated_at BIGINT NOT NULL,
     PRIMARY KEY (user_name, name)
   );`;
}
