// The session search (the web page's sidebar) as one query on either engine: the newest
// sessions a user may see, kept when their title or the text of a prompt or a message holds
// the words. A message's chunks are joined first (until its turn is compacted, a phrase can
// span two chunks): consecutive update events of the same kind make one message, each prompt
// is one on its own. Only text is searched, never JSON keys; case-insensitively.
import type { SearchFilter } from "../engine/ledger-port.js";
import type { Dialect, SearchSql } from "./dialect.js";

export interface SearchQuery {
  sql: string;
  args: unknown[];
}

// Builds the query; its arguments in the order their placeholders appear.
export function searchQuery(d: Dialect, filter: SearchFilter): SearchQuery {
  const args: unknown[] = [];
  const arg = (value: unknown) => d.param(args.push(value));
  const s = d.search;
  const needle = filter.text.toLowerCase();
  const shared =
    filter.sharedWith === undefined
      ? ""
      : `WHERE id IN (SELECT session_id FROM ${d.access} WHERE user_name = ${arg(filter.sharedWith)})`;
  const scanned = `SELECT id, title, updated_at FROM ${d.sessions} ${shared}
      ORDER BY updated_at DESC, id ASC LIMIT ${arg(Math.max(1, filter.scan))}`;
  const events = d.eventTables
    .map(
      (table) => `SELECT session_id, seq, kind, payload FROM ${table}
        WHERE session_id IN (SELECT id FROM scanned) AND kind IN ('prompt', 'update')
          AND ${s.valid("payload")}`,
    )
    .join(" UNION ALL ");
  const sql = `WITH scanned AS (${scanned}),
    stored AS (${events}),
    parts AS (${partsOf(s)}),
    marked AS (
      SELECT session_id, seq, body,
        CASE WHEN part IS NOT NULL AND part = LAG(part) OVER w THEN 0 ELSE 1 END AS starts
      FROM parts WINDOW w AS (PARTITION BY session_id ORDER BY seq)),
    messages AS (
      SELECT session_id, seq, body,
        SUM(starts) OVER (PARTITION BY session_id ORDER BY seq ROWS UNBOUNDED PRECEDING) AS n
      FROM marked),
    hits AS (
      SELECT session_id FROM messages WHERE body IS NOT NULL GROUP BY session_id, n
      HAVING ${s.contains(s.fold(s.joined("body", "seq")), arg(needle))})
    SELECT id FROM scanned
    WHERE ${s.contains(s.fold("title"), arg(needle))} OR id IN (SELECT session_id FROM hits)
    ORDER BY updated_at DESC, id ASC LIMIT ${arg(Math.max(1, filter.limit))}`;
  return { sql, args };
}

// Each event's part of a message (null: a prompt, a message of its own) and its text.
function partsOf(s: SearchSql): string {
  return `SELECT session_id, seq,
      CASE WHEN kind = 'prompt' THEN NULL ELSE COALESCE(${s.updateKind("payload")}, '') END AS part,
      CASE WHEN kind = 'prompt' THEN ${s.promptText("payload")} ELSE ${s.updateText("payload")} END AS body
    FROM stored`;
}

/** SQLite's JSON functions; `acphub_lower` is JavaScript's toLowerCase (sqlite-ledger.ts). */
export const SQLITE_SEARCH: SearchSql = {
  valid: (p) => `json_valid(${p})`,
  updateKind: (p) => `json_extract(${p}, '$.update.sessionUpdate')`,
  updateText: (p) =>
    `CASE WHEN json_type(${p}, '$.update.content.text') = 'text'
      THEN json_extract(${p}, '$.update.content.text') END`,
  // An element that is not an object is never read as JSON (CASE is evaluated lazily).
  promptText: (p) => `(SELECT group_concat(t, char(10) ORDER BY k) FROM (
      SELECT b.key AS k, CASE WHEN b.type = 'object' THEN
        CASE WHEN json_type(b.value, '$.text') = 'text' THEN json_extract(b.value, '$.text') END
      END AS t
      FROM json_each(CASE WHEN json_type(${p}, '$.prompt') = 'array' THEN ${p} END, '$.prompt') AS b)
    WHERE t <> '')`,
  fold: (x) => `acphub_lower(${x})`,
  joined: (x, order) => `group_concat(${x}, '' ORDER BY ${order})`,
  contains: (hay, needle) => `instr(${hay}, ${needle}) > 0`,
};

/** PostgreSQL's json operators (a key of a non-object is null, never an error). */
export const POSTGRES_SEARCH: SearchSql = {
  valid: () => "TRUE",
  updateKind: (p) => `(${p} -> 'update' ->> 'sessionUpdate')`,
  updateText: (p) =>
    `CASE WHEN json_typeof(${p} -> 'update' -> 'content' -> 'text') = 'string'
      THEN ${p} -> 'update' -> 'content' ->> 'text' END`,
  promptText: (
    p,
  ) => `(SELECT string_agg(b.value ->> 'text', chr(10) ORDER BY b.k)
      FROM json_array_elements(CASE WHEN json_typeof(${p} -> 'prompt') = 'array'
        THEN ${p} -> 'prompt' END) WITH ORDINALITY AS b(value, k)
      WHERE json_typeof(b.value -> 'text') = 'string' AND b.value ->> 'text' <> '')`,
  fold: (x) => `lower(${x})`,
  joined: (x, order) => `string_agg(${x}, '' ORDER BY ${order})`,
  contains: (hay, needle) => `strpos(${hay}, ${needle}) > 0`,
};
