// The second Ctrl-C of `run` and `chat` ("exit now"): the unfinished turn's span is sent first
// (bounded: about a second), then the process exits 130; a third Ctrl-C exits at once.
import type { LocalClient } from "../app/local-client.js";
import { EXIT_CODES } from "./exit-codes.js";

let leaving = false;

// Exits 130 once the client's spans are sent (or at once when there is no client yet).
export function exitNow(
  client: Pick<LocalClient, "exitNow"> | undefined,
): void {
  if (leaving || !client) process.exit(EXIT_CODES.interrupted);
  leaving = true;
  void client
    .exitNow()
    .catch(() => undefined)
    .finally(() => process.exit(EXIT_CODES.interrupted));
}
