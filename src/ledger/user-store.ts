// The users, login codes, session grants and audit log of issue 22, in SQL both ledgers run:
// SQLite (tables `users`, …) and PostgreSQL (`acphub_users`, …). Each operation is one
// statement or a short sequence whose partial result is still safe (a removed user is gone
// before their grants are).
import {
  ownerGrantUnchanged,
  type AuditEntry,
  type AuditFilter,
  type SessionGrant,
  type ShareRole,
  type UserLimits,
  type UserRecord,
  type UserRole,
  type UserStore,
} from "../contracts/users.js";
import { HubError } from "../shared/errors.js";

type Row = Record<string, unknown>;

/** How the store reaches its database: `$1, $2, …` placeholders, each used once, in order. */
export interface SqlRunner {
  all(sql: string, args?: unknown[]): Promise<Row[]>;
  /** Runs a statement; the number of rows it changed. */
  run(sql: string, args?: unknown[]): Promise<number>;
  /** True when an error is a unique-constraint violation. */
  isDuplicate(error: unknown): boolean;
  /** A write no other write reads (an audit line), held to the end of the tick and written
   *  with the others then; settled once committed. (None: `run`.) */
  later?(sql: string, args: unknown[]): Promise<void>;
}

/** At most this many audit lines per read. */
const MAX_AUDIT_ROWS = 10_000;

export class SqlUserStore implements UserStore {
  constructor(
    private readonly db: SqlRunner,
    /** Table name prefix: "" on SQLite, "acphub_" on PostgreSQL. */
    private readonly prefix: string,
  ) {}

  private t(name: string): string {
    return `${this.prefix}${name}`;
  }

  async addUser(u: UserRecord): Promise<void> {
    try {
      await this.db.run(
        `INSERT INTO ${this.t("users")} (name, role, token_hash, created_at, limits) VALUES ($1, $2, $3, $4, $5)`,
        [u.name, u.role, u.tokenHash, u.createdAt, limitsText(u.limits)],
      );
    } catch (error) {
      if (!this.db.isDuplicate(error)) throw error;
      throw new HubError("USAGE", `a user named ${u.name} already exists`);
    }
    await this.bump();
  }

  async getUser(name: string): Promise<UserRecord | undefined> {
    const rows = await this.db.all(
      `SELECT * FROM ${this.t("users")} WHERE name = $1`,
      [name],
    );
    return rows[0] ? toUser(rows[0]) : undefined;
  }

  async listUsers(): Promise<UserRecord[]> {
    const rows = await this.db.all(
      `SELECT * FROM ${this.t("users")} ORDER BY name`,
    );
    return rows.map(toUser);
  }

  async removeUser(name: string): Promise<boolean> {
    const gone = await this.db.run(
      `DELETE FROM ${this.t("users")} WHERE name = $1`,
      [name],
    );
    if (gone === 0) return false;
    await this.db.run(
      `DELETE FROM ${this.t("login_codes")} WHERE user_name = $1`,
      [name],
    );
    await this.db.run(
      `DELETE FROM ${this.t("session_access")} WHERE user_name = $1`,
      [name],
    );
    // A later user of the same name must not inherit these (issue 36).
    await this.db.run(
      `DELETE FROM ${this.t("user_secrets")} WHERE user_name = $1`,
      [name],
    );
    await this.bump();
    return true;
  }

  async setTokenHash(name: string, tokenHash: string): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE ${this.t("users")} SET token_hash = $1 WHERE name = $2`,
      [tokenHash, name],
    );
    if (changed > 0) {
      await this.db.run(
        `DELETE FROM ${this.t("login_codes")} WHERE user_name = $1`,
        [name],
      );
      await this.bump();
    }
    return changed > 0;
  }

  async setLimits(name: string, limits: UserLimits | null): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE ${this.t("users")} SET limits = $1 WHERE name = $2`,
      [limitsText(limits), name],
    );
    if (changed > 0) await this.bump();
    return changed > 0;
  }

  async setRole(name: string, role: UserRole): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE ${this.t("users")} SET role = $1 WHERE name = $2`,
      [role, name],
    );
    if (changed > 0) await this.bump();
    return changed > 0;
  }

  async usersVersion(): Promise<number> {
    const rows = await this.db.all(
      `SELECT version FROM ${this.t("users_version")}`,
    );
    return Number(rows[0]?.["version"] ?? 0);
  }

  private async bump(): Promise<void> {
    await this.db.run(
      `UPDATE ${this.t("users_version")} SET version = version + 1`,
    );
  }

  async addLoginCode(
    codeHash: string,
    user: string,
    expiresAt: number,
  ): Promise<void> {
    await this.db.run(
      `DELETE FROM ${this.t("login_codes")} WHERE expires_at < $1`,
      [Date.now()],
    );
    await this.db.run(
      `INSERT INTO ${this.t("login_codes")} (code_hash, user_name, expires_at) VALUES ($1, $2, $3)`,
      [codeHash, user, expiresAt],
    );
  }

  async peekLoginCode(
    codeHash: string,
    now: number,
  ): Promise<string | undefined> {
    const rows = await this.db.all(
      `SELECT user_name FROM ${this.t("login_codes")} WHERE code_hash = $1 AND expires_at >= $2`,
      [codeHash, now],
    );
    return rows[0] ? String(rows[0]["user_name"]) : undefined;
  }

  async redeemLoginCode(
    codeHash: string,
    now: number,
  ): Promise<string | undefined> {
    const rows = await this.db.all(
      `DELETE FROM ${this.t("login_codes")} WHERE code_hash = $1 RETURNING user_name, expires_at`,
      [codeHash],
    );
    const row = rows[0];
    if (!row || Number(row["expires_at"]) < now) return undefined;
    return String(row["user_name"]);
  }

  // Writes a grant; an owner's is never replaced by another role (refused, changing nothing),
  // whichever path asks: the share writer checks first, this holds against a race and any other.
  async grant(g: SessionGrant): Promise<void> {
    const table = this.t("session_access");
    const n = await this.db.run(
      `INSERT INTO ${table} (session_id, user_name, role) VALUES ($1, $2, $3)
       ON CONFLICT (session_id, user_name) DO UPDATE SET role = excluded.role
       WHERE ${table}.role <> 'owner' OR excluded.role = 'owner'`,
      [g.sessionId, g.user, g.role],
    );
    if (n === 0) throw ownerGrantUnchanged(g.user, g.sessionId);
  }

  async revoke(sessionId: string, user: string): Promise<boolean> {
    const n = await this.db.run(
      `DELETE FROM ${this.t("session_access")} WHERE session_id = $1 AND user_name = $2 AND role != 'owner'`,
      [sessionId, user],
    );
    return n > 0;
  }

  async grantsOf(sessionId: string): Promise<SessionGrant[]> {
    const rows = await this.db.all(
      `SELECT * FROM ${this.t("session_access")} WHERE session_id = $1 ORDER BY user_name`,
      [sessionId],
    );
    return rows.map((r) => ({
      sessionId: String(r["session_id"]),
      user: String(r["user_name"]),
      role: String(r["role"]) as ShareRole,
    }));
  }

  async audit(e: AuditEntry): Promise<void> {
    const sql = `INSERT INTO ${this.t("audit")} (at, user_name, action, session_id, detail) VALUES ($1, $2, $3, $4, $5)`;
    const detail = e.detail ? JSON.stringify(e.detail) : null;
    const args = [e.at, e.user, e.action, e.sessionId, detail];
    await (this.db.later ? this.db.later(sql, args) : this.db.run(sql, args));
  }

  async auditLog(f: AuditFilter): Promise<AuditEntry[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    const when = (sql: string, value: unknown) => {
      if (value === undefined) return;
      args.push(value);
      where.push(`${sql} $${args.length}`);
    };
    when("at >=", f.since);
    when("at <", f.until);
    when("user_name =", f.user);
    when("session_id =", f.sessionId);
    when("action =", f.action);
    args.push(Math.min(f.limit ?? MAX_AUDIT_ROWS, MAX_AUDIT_ROWS));
    const limit = `LIMIT $${args.length}`;
    args.push(Math.max(0, f.offset ?? 0));
    const rows = await this.db.all(
      `SELECT * FROM ${this.t("audit")} ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id${f.newestFirst ? " DESC" : ""} ${limit} OFFSET $${args.length}`,
      args,
    );
    return rows.map(toAudit);
  }
}

function limitsText(limits: UserLimits | null): string | null {
  return limits ? JSON.stringify(limits) : null;
}

// A users row as a record (limits kept only when they parse as an object).
function toUser(r: Row): UserRecord {
  let limits: UserLimits | null = null;
  try {
    const parsed = r["limits"]
      ? (JSON.parse(String(r["limits"])) as unknown)
      : null;
    if (parsed && typeof parsed === "object") limits = parsed as UserLimits;
  } catch {
    limits = null;
  }
  return {
    name: String(r["name"]),
    role: String(r["role"]) as UserRole,
    tokenHash: String(r["token_hash"]),
    createdAt: Number(r["created_at"]),
    limits,
  };
}

function toAudit(r: Row): AuditEntry {
  let detail: Record<string, unknown> | null = null;
  try {
    detail = r["detail"]
      ? (JSON.parse(String(r["detail"])) as Record<string, unknown>)
      : null;
  } catch {
    detail = null;
  }
  return {
    at: Number(r["at"]),
    user: String(r["user_name"]),
    action: String(r["action"]),
    sessionId: r["session_id"] === null ? null : String(r["session_id"]),
    detail,
  };
}

/** The users tables' DDL, with a table prefix and the engine's id column type. */
export function usersSchemaSql(
  prefix: string,
  serialId: string,
  json: string,
): string {
  const t = (n: string) => `${prefix}${n}`;
  return `CREATE TABLE ${t("users")} (
     name TEXT PRIMARY KEY,
     role TEXT NOT NULL,
     token_hash TEXT NOT NULL UNIQUE,
     created_at BIGINT NOT NULL,
     limits ${json}
   );
   CREATE TABLE ${t("users_version")} (version BIGINT NOT NULL);
   INSERT INTO ${t("users_version")} VALUES (0);
   CREATE TABLE ${t("login_codes")} (
     code_hash TEXT PRIMARY KEY,
     user_name TEXT NOT NULL,
     expires_at BIGINT NOT NULL
   );
   CREATE TABLE ${t("session_access")} (
     session_id TEXT NOT NULL REFERENCES ${t("sessions")} (id) ON DELETE CASCADE,
     user_name TEXT NOT NULL,
     role TEXT NOT NULL,
     PRIMARY KEY (session_id, user_name)
   );
   CREATE INDEX ${t("session_access_user")} ON ${t("session_access")} (user_name);
   CREATE TABLE ${t("audit")} (
     id ${serialId},
     at BIGINT NOT NULL,
     user_name TEXT NOT NULL,
     action TEXT NOT NULL,
     session_id TEXT,
     detail ${json}
   );
   CREATE INDEX ${t("audit_at")} ON ${t("audit")} (at);`;
}
