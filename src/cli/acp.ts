// `acphub acp`: serve the configured agent to an editor over stdio, with sessions recorded in
// the ledger; with --hub, the stdio shim to a running `acphub serve` instead. Logs go to
// stderr; stdout carries only protocol frames. Each loads only what it uses (start-up).
import { cliContext, type GlobalOptions } from "../app/context.js";
import type { StdioAcp } from "../app/acp.js";
import { workingDir } from "../app/working-dir.js";
import { fail } from "./guard.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";

export interface AcpOptions extends GlobalOptions {
  agent?: string;
  cwd?: string;
  /** Present this workflow as the agent. */
  workflow?: string;
  /** Relay to a running hub (URL1,URL2,… fails over). */
  hub?: string;
  tokenFile?: string;
}

export async function acpCommand(options: AcpOptions): Promise<ExitCode> {
  if (typeof options.hub === "string")
    return acpHubCommand(options.hub, options);
  let acp: StdioAcp;
  try {
    const ctx = cliContext(options);
    const cwd = options.cwd ? workingDir(options.cwd) : undefined;
    const { openStdioAcp } = await import("../app/acp.js");
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

// `acphub acp --hub URL`: the stdio shim an editor launches to reach a running `acphub serve`.
async function acpHubCommand(hub: string, o: AcpOptions): Promise<ExitCode> {
  try {
    const { runShimTo } = await import("../app/hub-client.js");
    await runShimTo(cliContext(o), hub, o.tokenFile);
    return EXIT_CODES.ok;
  } catch (error) {
    return fail(error);
  }
}
