// The session ledger in SQLite (WAL): sessions and an append-only event log per session, with
// caps on sessions, events and bytes. Appends are synchronous, so an event is on disk before
// the caller relays it to the editor, and survives kill -9 of acphub.
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type {
  LedgerEvent,
  LedgerEventKind,
  LedgerPort,
  ListPage,
  NewSessionRecord,
  SessionRecord,
} from "../gateway/ports.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import { migrate } from "./migrations.js";
import { toEvent, toSession } from "./rows.js";

export interface LedgerCaps {
  maxSessions: number;
  maxEventsPerSession: number;
  maxBytesPerSession: number;
}

export const DEFAULT_LEDGER_CAPS: LedgerCaps = {
  maxSessions: 200,
  maxEventsPerSession: 5000,
  maxBytesPerSession: 16 * 1024 * 1024,
};

export class SqliteLedger implements LedgerPort {
  private readonly db: Database.Database;
  private readonly stmt;

  constructor(
    file: string,
    private readonly caps: LedgerCaps = DEFAULT_LEDGER_CAPS,
    private readonly logger: Logger = silentLogger(),
    /** Masks secrets in what is stored (payload values, titles); the editor still gets the original. */
    private readonly mask: <T>(value: T) => T = (value) => value,
  ) {
    if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("foreign_keys = ON");
    this.db.pragma("busy_timeout = 5000");
    migrate(this.db);
    this.stmt = {
      insertSession: this.db.prepare(
        `INSERT INTO sessions (id, agent, cwd, title, created_at, updated_at, state, agent_session_id, request, settings, forked_from)
         VALUES (@id, @agent, @cwd, @title, @createdAt, @updatedAt, @state, @agentSessionId, @request, @settings, @forkedFrom)`,
      ),
      getSession: this.db.prepare("SELECT * FROM sessions WHERE id = ?"),
      deleteSession: this.db.prepare("DELETE FROM sessions WHERE id = ?"),
      countSessions: this.db.prepare("SELECT COUNT(*) AS n FROM sessions"),
      oldestSessions: this.db.prepare(
        "SELECT id FROM sessions WHERE id != ? ORDER BY updated_at ASC, id ASC LIMIT ?",
      ),
      bump: this.db.prepare(
        `UPDATE sessions SET next_seq = next_seq + 1, event_count = event_count + 1, bytes = bytes + @bytes, updated_at = @at
         WHERE id = @id RETURNING next_seq - 1 AS seq, event_count, bytes`,
      ),
      insertEvent: this.db.prepare(
        "INSERT INTO events (session_id, seq, kind, payload, bytes, at) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      events: this.db.prepare(
        "SELECT seq, kind, payload, at FROM events WHERE session_id = ? ORDER BY seq",
      ),
      oldestEvents: this.db.prepare(
        "SELECT seq, bytes FROM events WHERE session_id = ? ORDER BY seq LIMIT ?",
      ),
      deleteEventsUpTo: this.db.prepare(
        "DELETE FROM events WHERE session_id = ? AND seq <= ?",
      ),
      saveSettings: this.db.prepare(
        "UPDATE sessions SET settings = ? WHERE id = ?",
      ),
      copyEvents: this.db.prepare(
        `INSERT INTO events (session_id, seq, kind, payload, bytes, at)
         SELECT @to, seq, kind, payload, bytes, at FROM events WHERE session_id = @from AND seq <= @upto`,
      ),
      recount: this.db.prepare(
        `UPDATE sessions SET
           event_count = (SELECT COUNT(*) FROM events WHERE session_id = @to),
           bytes = (SELECT COALESCE(SUM(bytes), 0) FROM events WHERE session_id = @to),
           next_seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = @to),
           incomplete = (SELECT incomplete FROM sessions WHERE id = @from)
         WHERE id = @to`,
      ),
      shrink: this.db.prepare(
        "UPDATE sessions SET event_count = event_count - ?, bytes = bytes - ?, incomplete = 1 WHERE id = ?",
      ),
    };
  }

  createSession(record: NewSessionRecord): void {
    this.db.transaction(() => {
      this.insertSession(record);
      this.evictSessions(record.id);
    })();
  }

  // Inserts the session row, masked; no eviction (the caller decides when).
  private insertSession(record: NewSessionRecord): void {
    this.stmt.insertSession.run({
      ...record,
      title: record.title === null ? null : this.mask(record.title),
      request: JSON.stringify(this.mask(record.request)),
      settings: record.settings ? JSON.stringify(record.settings) : null,
      forkedFrom: record.forkedFrom ?? null,
    });
  }

  // Past maxSessions, the least recently updated sessions go (never the one just created).
  private evictSessions(keep: string): void {
    const { n } = this.stmt.countSessions.get() as { n: number };
    const excess = n - this.caps.maxSessions;
    if (excess <= 0) return;
    for (const { id } of this.stmt.oldestSessions.all(keep, excess) as {
      id: string;
    }[]) {
      this.logger.info(
        { sessionId: id },
        "ledger: evicting the oldest session (maxSessions)",
      );
      this.stmt.deleteSession.run(id);
    }
  }

  getSession(id: string): SessionRecord | undefined {
    const row = this.stmt.getSession.get(id);
    const record = row === undefined ? undefined : toSession(row);
    if (row !== undefined && !record)
      this.logger.warn(
        { sessionId: id },
        "ledger: damaged session row ignored",
      );
    return record;
  }

  updateSession(
    id: string,
    patch: Partial<
      Pick<SessionRecord, "title" | "state" | "agentSessionId" | "updatedAt">
    >,
  ): void {
    const columns: Record<string, string> = {
      title: "title",
      state: "state",
      agentSessionId: "agent_session_id",
      updatedAt: "updated_at",
    };
    const sets = Object.keys(patch).filter((k) => k in columns);
    if (sets.length === 0) return;
    const sql = `UPDATE sessions SET ${sets.map((k) => `${columns[k]} = @${k}`).join(", ")} WHERE id = @id`;
    const title = patch.title ? this.mask(patch.title) : patch.title;
    this.db
      .prepare(sql)
      .run({ ...patch, ...("title" in patch ? { title } : {}), id });
  }

  deleteSession(id: string): boolean {
    return this.stmt.deleteSession.run(id).changes > 0;
  }

  listSessions(filter: {
    cwd?: string;
    cursor?: string | null;
    limit?: number;
  }): ListPage {
    const limit = Math.min(Math.max(filter.limit ?? 50, 1), 500);
    const after = decodeCursor(filter.cursor);
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.cwd) {
      where.push("cwd = ?");
      args.push(filter.cwd);
    }
    if (after) {
      where.push("(updated_at < ? OR (updated_at = ? AND id > ?))");
      args.push(after.updatedAt, after.updatedAt, after.id);
    }
    const sql = `SELECT * FROM sessions ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY updated_at DESC, id ASC LIMIT ?`;
    const rows = this.db.prepare(sql).all(...args, limit + 1);
    const sessions = rows
      .slice(0, limit)
      .map(toSession)
      .filter((s): s is SessionRecord => s !== undefined);
    const last = sessions.at(-1);
    const nextCursor = rows.length > limit && last ? encodeCursor(last) : null;
    return { sessions, nextCursor };
  }

  append(
    sessionId: string,
    kind: LedgerEventKind,
    payload: Record<string, unknown>,
  ): number {
    const text = JSON.stringify(this.mask(payload));
    const bytes = Buffer.byteLength(text);
    const at = Date.now();
    return this.db.transaction(() => {
      const row = this.stmt.bump.get({ id: sessionId, bytes, at }) as
        { seq: number; event_count: number; bytes: number } | undefined;
      if (!row) throw new Error(`ledger: no session ${sessionId}`);
      this.stmt.insertEvent.run(sessionId, row.seq, kind, text, bytes, at);
      if (
        row.event_count > this.caps.maxEventsPerSession ||
        row.bytes > this.caps.maxBytesPerSession
      ) {
        this.trim(sessionId, row.event_count, row.bytes);
      }
      return row.seq;
    })();
  }

  // Drops the oldest events until the session is within its caps, and marks it incomplete.
  private trim(sessionId: string, count: number, bytes: number): void {
    const overCount = Math.max(0, count - this.caps.maxEventsPerSession);
    const candidates = this.stmt.oldestEvents.all(
      sessionId,
      Math.max(overCount, 1) + 64,
    ) as { seq: number; bytes: number }[];
    let dropped = 0;
    let droppedBytes = 0;
    let lastSeq = 0;
    for (const event of candidates) {
      if (
        count - dropped <= this.caps.maxEventsPerSession &&
        bytes - droppedBytes <= this.caps.maxBytesPerSession
      )
        break;
      dropped += 1;
      droppedBytes += event.bytes;
      lastSeq = event.seq;
    }
    if (dropped === 0) return;
    this.stmt.deleteEventsUpTo.run(sessionId, lastSeq);
    this.stmt.shrink.run(dropped, droppedBytes, sessionId);
    if (bytes - droppedBytes > this.caps.maxBytesPerSession)
      this.trim(sessionId, count - dropped, bytes - droppedBytes);
  }

  events(sessionId: string): LedgerEvent[] {
    const out: LedgerEvent[] = [];
    for (const row of this.stmt.events.iterate(sessionId)) {
      const event = toEvent(row);
      if (event) out.push(event);
      else this.logger.warn({ sessionId }, "ledger: damaged event row skipped");
    }
    return out;
  }

  saveSettings(sessionId: string, settings: Record<string, unknown>): void {
    this.stmt.saveSettings.run(JSON.stringify(settings), sessionId);
  }

  copySession(
    fromId: string,
    record: NewSessionRecord,
    uptoSeq = Number.MAX_SAFE_INTEGER,
  ): void {
    this.db.transaction(() => {
      this.insertSession(record);
      const ids = { from: fromId, to: record.id };
      this.stmt.copyEvents.run({ ...ids, upto: uptoSeq });
      this.stmt.recount.run(ids);
      this.evictSessions(record.id);
    })();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function encodeCursor(s: SessionRecord): string {
  return Buffer.from(JSON.stringify([s.updatedAt, s.id])).toString("base64url");
}

function decodeCursor(
  cursor: string | null | undefined,
): { updatedAt: number; id: string } | undefined {
  if (!cursor) return undefined;
  try {
    const [updatedAt, id] = JSON.parse(
      Buffer.from(cursor, "base64url").toString(),
    ) as [number, string];
    if (typeof updatedAt === "number" && typeof id === "string")
      return { updatedAt, id };
  } catch {
    // fall through
  }
  throw new RangeError(`invalid cursor ${JSON.stringify(cursor)}`);
}
