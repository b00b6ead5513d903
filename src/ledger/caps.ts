// What a ledger keeps: caps per ledger and per session, retention, and the options every
// implementation takes.
import type { Logger } from "../shared/logger.js";
import type { LedgerBatchReport } from "../engine/ledger-port.js";
import type { BatchBounds } from "./group-commit.js";

export interface LedgerCaps {
  /** Past this many sessions, the least recently updated go. */
  maxSessions: number;
  /** Past this many events in a session, the oldest go and the session is marked incomplete. */
  maxEventsPerSession: number;
  /** The same for the bytes of stored payloads. */
  maxBytesPerSession: number;
  /** Sessions not updated for this many days are deleted (on open, then daily); null: kept. */
  retentionDays: number | null;
}

export const DEFAULT_LEDGER_CAPS: LedgerCaps = {
  maxSessions: 10_000,
  maxEventsPerSession: 100_000,
  maxBytesPerSession: 64 * 1024 * 1024,
  retentionDays: null,
};

/** PostgreSQL: how long a write retries a lost connection before failing (config ledger.retryMs). */
export const DEFAULT_PG_RETRY_MS = 15_000;

export interface LedgerOptions {
  caps?: Partial<LedgerCaps>;
  logger?: Logger;
  /** Masks known secrets in a stored JSON text (the editor still gets the original). */
  mask?: (jsonText: string) => string;
  batch?: BatchBounds;
  /** Told of every batch written (tracing); must not throw. */
  onBatch?: (report: LedgerBatchReport) => void;
}

export const DAY_MS = 24 * 60 * 60 * 1000;
