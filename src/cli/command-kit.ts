// What every commander definition repeats, said once: an action loads its command's module when
// run (start-up stays fast), merges the global options, and sets the exit code.
import type { Command } from "commander";
import type { ExitCode } from "./exit-codes.js";

/** A command's function: commander's arguments, then the options (the global ones merged in). */
type Handler = (...args: never[]) => ExitCode | Promise<ExitCode>;

/** The names of a module's exports that are command functions. */
type HandlerOf<M> = {
  [K in keyof M]: M[K] extends Handler ? K : never;
}[keyof M];

// The action running `module[name]` with the command's arguments and the merged options.
export function act<M, K extends HandlerOf<M>>(
  program: Command,
  load: () => Promise<M>,
  name: K,
): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    // commander passes the declared arguments, then the options, then the command itself.
    const options = args.at(-2) as Record<string, unknown>;
    const run = (await load())[name] as (...a: unknown[]) => Promise<ExitCode>;
    const merged = { ...program.opts(), ...options };
    process.exitCode = await run(...args.slice(0, -2), merged);
  };
}
