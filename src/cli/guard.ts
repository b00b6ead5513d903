// What every command does with its input and output: runs its body (an error becomes one line
// on stderr and its exit code), writes its answer, reads stdin.
import type { GlobalOptions } from "../app/context.js";
import type { AppContext } from "../config/context.js";
import { errorMessage, isHubError } from "../shared/errors.js";
import { EXIT_CODES, toExitCode, type ExitCode } from "./exit-codes.js";
import { inertJson, safeText } from "./tty/safe-text.js";

/** The options of a command that answers as JSON with `--json`. */
export interface JsonOptions extends GlobalOptions {
  json?: boolean;
}

// An error's message may quote the agent (its error's message and data): made terminal-safe.
export function fail(error: unknown): ExitCode {
  process.stderr.write(`acphub: ${safeText(errorMessage(error))}\n`);
  return toExitCode(error);
}

type Body<T extends unknown[]> = (
  ...args: T
) => ExitCode | void | Promise<ExitCode | void>;

// The body's exit code (0 unless it says otherwise), or its error's.
export async function guarded(body: Body<[]>): Promise<ExitCode> {
  try {
    return (await body()) ?? EXIT_CODES.ok;
  } catch (error) {
    return fail(error);
  }
}

// The same with the context the global options name (config, paths, logger); loaded when
// asked, so that `run`, which reports errors here too, starts its agent before loading it.
export function withContext(
  options: GlobalOptions,
  body: Body<[AppContext]>,
): Promise<ExitCode> {
  return guarded(async () => {
    const { cliContext } = await import("../app/context.js");
    return body(cliContext(options));
  });
}

/** Writes to stdout: what a command answers. */
export const out = (text: string): void => void process.stdout.write(text);

/** A command's answer: `value` as one JSON line with --json, else `text` for people. */
export function answer(
  json: boolean | undefined,
  value: unknown,
  text: string,
) {
  out(json ? `${JSON.stringify(value)}\n` : text);
}

// A listing: the rows as inert JSON with --json, else one terminal-safe line per row (or
// `none` when there are none).
export function outList<T>(
  json: boolean | undefined,
  rows: T[],
  none: string,
  line: (row: T) => string,
): void {
  if (json) out(`${inertJson(rows)}\n`);
  else if (rows.length === 0) out(none);
  else for (const row of rows) out(safeText(line(row)));
}

// All of stdin as text (`run -`, `sessions import -`).
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
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
    out(
      JSON.stringify({ type: "error", code, message: errorMessage(error) }) +
        "\n",
    );
  else
    process.stderr.write(
      `acphub: ${safeText(errorMessage(error))}\n${verbose && error instanceof Error && error.stack ? `${error.stack}\n` : ""}`,
    );
}
