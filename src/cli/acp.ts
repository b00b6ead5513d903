// `acphub acp`: serve the configured agent to an editor over stdio, with sessions recorded in
// the ledger. Logs go to stderr; stdout carries only protocol frames.
import { cliContext, type GlobalOptions } from "../app/context.js";
import { openStdioAcp, type StdioAcp } from "../app/acp.js";
import { workingDir } from "./cwd.js";
import { fail } from "./guard.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";

export interface AcpOptions extends GlobalOptions {
  agent?: string;
  cwd?: string;
  /** Present this workflow as the agent. */
  workflow?: string;
}

export async function acpCommand(options: AcpOptions): Promise<ExitCode> {
  let acp: StdioAcp;
  try {
    const ctx = cliContext(options);
    const cwd = options.cwd ? workingDir(options.cwd) : undefined;
    acp = await openStdioAcp(ctx, { ...options, cwd });
  } catch (error) {
    return fail(error);
  }
  const stop = async () => {
    await acp.stop();
    process.exit(EXIT_CODES.ok);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
  await acp.serve();
  await stop();
  return EXIT_CODES.ok;
}
