// SQLite failures turned into one clear line naming the ledger file: disk full, read-only
// folder, locked by another process, damaged file.
import { HubError, isHubError } from "../../shared/errors.js";

const REASONS: [RegExp, string][] = [
  [/^SQLITE_FULL/, "the disk is full"],
  [/^SQLITE_READONLY/, "it is read-only (check the folder's permissions)"],
  [/^SQLITE_CANTOPEN/, "it cannot be opened (missing or read-only folder?)"],
  [/^SQLITE_(BUSY|LOCKED)/, "it is locked by another process"],
  [/^SQLITE_(CORRUPT|NOTADB)/, "it is damaged or not a ledger"],
  [/^SQLITE_IOERR/, "a disk read or write failed"],
  [/^(EACCES|EPERM|EROFS)$/, "its folder is not writable"],
  [/^(ENOTDIR|EEXIST)$/, "its folder cannot be created"],
  [/^ENOSPC$/, "the disk is full"],
];

// Wraps an error from better-sqlite3 or the file system; HubErrors pass through unchanged.
export function ledgerError(file: string, error: unknown): HubError {
  if (isHubError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const text = typeof code === "string" ? code : "";
  const reason = REASONS.find(([pattern]) => pattern.test(text))?.[1];
  const detail = error instanceof Error ? error.message : String(error);
  return new HubError(
    "LEDGER_UNAVAILABLE",
    `ledger ${file}: ${reason ?? "it failed"} (${detail})`,
    { cause: error, retryable: /BUSY|LOCKED|FULL/.test(text) },
  );
}
