// The opaque cursor of session listings: the last row's (updatedAt, id), base64url JSON.
import { HubError } from "../shared/errors.js";
import type { SessionRecord } from "../engine/ledger-port.js";

export function encodeCursor(s: SessionRecord): string {
  return Buffer.from(JSON.stringify([s.updatedAt, s.id])).toString("base64url");
}

// Reads a cursor back; one that acphub did not write is a usage error quoting it.
export function decodeCursor(
  cursor: string | null | undefined,
): { updatedAt: number; id: string } | undefined {
  if (!cursor) return undefined;
  try {
    const [updatedAt, id] = JSON.parse(
      Buffer.from(cursor, "base64url").toString(),
    ) as [unknown, unknown];
    if (typeof updatedAt === "number" && typeof id === "string")
      return { updatedAt, id };
  } catch {
    // fall through
  }
  throw new HubError("USAGE", `invalid cursor ${JSON.stringify(cursor)}`);
}

/** The page size asked for, within 1..500 (50 when absent). */
export function pageLimit(limit: number | undefined): number {
  return Math.min(Math.max(limit ?? 50, 1), 500);
}
