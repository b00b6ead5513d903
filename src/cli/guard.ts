// Runs a command's body: an error becomes one line on stderr and its exit code.
import { errorMessage } from "../shared/errors.js";
import { EXIT_CODES, toExitCode, type ExitCode } from "./exit-codes.js";

export function fail(error: unknown): ExitCode {
  process.stderr.write(`acphub: ${errorMessage(error)}\n`);
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
