// Runs a command's body: an error becomes one line on stderr and its exit code.
import { errorMessage, isHubError } from "../shared/errors.js";
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

// A command's error for people (one line on stderr, its stack with --verbose) or, with --json,
// as an `error` line on stdout (run, flow run).
export function reportError(
  error: unknown,
  json: boolean,
  verbose = false,
): void {
  const code = isHubError(error) ? error.code : "INTERNAL";
  if (json)
    process.stdout.write(
      JSON.stringify({ type: "error", code, message: errorMessage(error) }) +
        "\n",
    );
  else
    process.stderr.write(
      `acphub: ${safeText(errorMessage(error))}\n${verbose && error instanceof Error && error.stack ? `${error.stack}\n` : ""}`,
    );
}
