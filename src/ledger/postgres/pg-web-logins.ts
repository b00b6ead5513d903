// The web page's logins shared by a cluster's nodes (issue 38; contracts/web-logins.ts), in
// acphub_web_logins (schema 13): a code is taken by one DELETE … RETURNING, so it logs one
// browser in whichever node it reaches; a browser session is read at each request that shows it,
// so a logout or a removal on one node ends it on all.
import type { WebLogin, WebLoginStore } from "../../contracts/web-logins.js";
import type pg from "pg";

/** The ledger's retrying pool (PgConnection), as much as the store uses. */
interface Db {
  query<R extends pg.QueryResultRow>(
    sql: string,
    args?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

/** Rows kept at most (the oldest expiring go first past it): a flood of logins stays bounded. */
const MAX_ROWS = 10_000;

/** Schema 13: the table. */
export const WEB_LOGINS_SCHEMA_SQL = `CREATE TABLE acphub_web_logins (
     key_hash TEXT NOT NULL,
     kind TEXT NOT NULL,
     user_name TEXT NOT NULL,
     stamp TEXT NOT NULL,
     expires_at BIGINT NOT NULL,
     PRIMARY KEY (kind, key_hash)
   );
   CREATE INDEX acphub_web_logins_user ON acphub_web_logins (user_name);
   CREATE INDEX acphub_web_logins_expiry ON acphub_web_logins (expires_at);`;

type Row = { user_name: string; stamp: string; expires_at: string };

// A row as a login.
const loginOf = (row: Row | undefined): WebLogin | undefined =>
  row
    ? {
        user: row.user_name,
        stamp: row.stamp,
        expiresAt: Number(row.expires_at),
      }
    : undefined;

export function pgWebLogins(db: Db): WebLoginStore {
  return {
    put: async (kind, keyHash, login) => {
      await db.query("DELETE FROM acphub_web_logins WHERE expires_at < $1", [
        Date.now(),
      ]);
      await db.query(
        `DELETE FROM acphub_web_logins WHERE key_hash IN (SELECT key_hash FROM acphub_web_logins
           ORDER BY expires_at DESC OFFSET $1)`,
        [MAX_ROWS - 1],
      );
      await db.query(
        `INSERT INTO acphub_web_logins (key_hash, kind, user_name, stamp, expires_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (kind, key_hash) DO NOTHING`,
        [keyHash, kind, login.user, login.stamp, login.expiresAt],
      );
    },
    get: async (kind, keyHash, now) => {
      const { rows } = await db.query<Row>(
        `SELECT user_name, stamp, expires_at FROM acphub_web_logins
         WHERE kind = $1 AND key_hash = $2 AND expires_at > $3`,
        [kind, keyHash, now],
      );
      return loginOf(rows[0]);
    },
    take: async (kind, keyHash, now) => {
      const { rows } = await db.query<Row>(
        `DELETE FROM acphub_web_logins WHERE kind = $1 AND key_hash = $2
         RETURNING user_name, stamp, expires_at`,
        [kind, keyHash],
      );
      const login = loginOf(rows[0]);
      return login && login.expiresAt > now ? login : undefined;
    },
    delete: async (kind, keyHash) => {
      await db.query(
        "DELETE FROM acphub_web_logins WHERE kind = $1 AND key_hash = $2",
        [kind, keyHash],
      );
    },
    deleteUser: async (user) => {
      await db.query("DELETE FROM acphub_web_logins WHERE user_name = $1", [
        user,
      ]);
    },
  };
}
