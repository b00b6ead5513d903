// What to do when PostgreSQL is away: name the ledger with its password masked, tell connection
// failures from other errors, and retry those with a bounded backoff.
import { setTimeout as sleep } from "node:timers/promises";
import { HubError, errorMessage, isHubError } from "../../shared/errors.js";

/** The URL as it may be shown: the password replaced by ***. */
export function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/:\/\/([^:/@]*):[^@/]*@/, "://$1:***@");
  }
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up)
  "08000",
  "08001",
  "08003",
  "08006",
]);

// True for failures that a server restart explains (worth retrying).
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
  return /Connection terminated|connection is closed|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(
    errorMessage(error),
  );
}

// The one error a failed ledger operation gives, naming the ledger.
export function pgError(where: string, error: unknown): HubError {
  if (isHubError(error)) return error;
  const reason = isConnectionError(error) ? "is unreachable" : "failed";
  return new HubError(
    "LEDGER_UNAVAILABLE",
    `ledger ${where} ${reason}: ${errorMessage(error)}`,
    {
      cause: error,
      retryable: isConnectionError(error),
    },
  );
}

// Runs `work`, retrying connection failures with a doubling delay until `budgetMs` is spent.
export async function withRetry<T>(
  where: string,
  budgetMs: number,
  work: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await work();
    } catch (error) {
      if (!isConnectionError(error) || Date.now() + delay > deadline)
        throw pgError(where, error);
      await sleep(delay);
    }
  }
}
