// Runs a command's body: an error becomes one line on stderr and its exit code.
import { errorMessage } from "../shared/errors.js";
import { EXIT_CODES, toExitCode, type ExitCode } from "./exit-codes.js";
import { safeText } from "./tty/safe-text.js";

// An error's message may quote the agent (its error's message and data): made terminal-safe.
export function fail(error: unknown): ExitCode {
  process.stderr.write(`acphub: ${safeText(errorMessage(error))}\n`);
  return toExitCode(error);
}

export function guarded(body: () => void): ExitCode {
  try {
    body();
    return EXIT_CODES.ok;
  } catch (error) {
    return fail(error);
  }
}
