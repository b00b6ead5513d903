// The session listing both ledgers run: newest first, optionally one cwd or only the sessions
// shared with a user (one query: no page is read to be thrown away), after a cursor, one row
// more than the page to know whether another page follows.
import type {
  ListFilter,
  ListPage,
  SessionRecord,
} from "../engine/ledger-port.js";
import { decodeCursor, encodeCursor, pageLimit } from "./cursor.js";
import type { Dialect } from "./dialect.js";
import { toSession } from "./row-checks.js";

export interface ListQuery {
  sql: string;
  args: unknown[];
  limit: number;
}

// Builds the query; its arguments in the order their placeholders appear.
export function listQuery(d: Dialect, filter: ListFilter): ListQuery {
  const limit = pageLimit(filter.limit);
  const after = decodeCursor(filter.cursor);
  const args: unknown[] = [];
  const arg = (value: unknown) => d.param(args.push(value));
  const where: string[] = [];
  if (filter.cwd) where.push(`cwd = ${arg(filter.cwd)}`);
  if (filter.sharedWith !== undefined)
    where.push(
      `id IN (SELECT session_id FROM ${d.access} WHERE user_name = ${arg(filter.sharedWith)})`,
    );
  if (after)
    where.push(
      `(updated_at < ${arg(after.updatedAt)} OR (updated_at = ${arg(after.updatedAt)} AND id > ${arg(after.id)}))`,
    );
  const sql = `SELECT * FROM ${d.sessionRows} ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
    ORDER BY updated_at DESC, id ASC LIMIT ${arg(limit + 1)}`;
  return { sql, args, limit };
}

// Turns the rows of a listing into a page (damaged rows left out).
export function toPage(rows: unknown[], limit: number): ListPage {
  const sessions = rows
    .slice(0, limit)
    .map(toSession)
    .filter((s): s is SessionRecord => s !== undefined);
  const last = sessions.at(-1);
  return {
    sessions,
    nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
  };
}
