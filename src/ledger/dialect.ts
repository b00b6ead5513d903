// What tells one engine's SQL from the other's: table names, placeholders, and the pieces of the
// search query (search-query.ts) that read JSON, which each engine spells its own way.

/** The engine's way of reading a stored payload's text (the search's SQL). */
export interface SearchSql {
  /** A payload that can be read as JSON (SQLite stores text; PostgreSQL's column is json). */
  valid(payload: string): string;
  /** An update payload's `update.sessionUpdate`. */
  updateKind(payload: string): string;
  /** An update payload's `update.content.text`, when a string. */
  updateText(payload: string): string;
  /** A prompt payload's text blocks, in order, joined by newlines (null when none). */
  promptText(payload: string): string;
  /** The text lower-cased (Unicode, as JavaScript's toLowerCase). */
  fold(text: string): string;
  /** An aggregate: the texts of a group joined in `order`. */
  joined(text: string, order: string): string;
  /** Whether `haystack` holds `needle`. */
  contains(haystack: string, needle: string): string;
}

export interface Dialect {
  sessions: string;
  /** What a session's row is read from, counters exact (SQLite: a view, ./sqlite/counts.ts). */
  sessionRows: string;
  events: string;
  /** Every table that holds events (SQLite keeps a journal beside `events`). */
  eventTables: readonly string[];
  /** The users' grants on sessions (session_access, issue 22). */
  access: string;
  /** The usage table (one row per turn that ran: usage-table.ts). */
  usage: string;
  /** The placeholder of the nth argument, from 1 (`?` or `$n`). */
  param(n: number): string;
  /** A boolean as the engine binds it. */
  bool(value: boolean): unknown;
  search: SearchSql;
}
