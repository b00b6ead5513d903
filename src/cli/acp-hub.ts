// `acphub acp --hub URL`: the stdio shim an editor launches to reach a running `acphub serve`.
import { cliContext, type GlobalOptions } from "../app/context.js";
import { runShimTo } from "../app/hub-client.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { fail } from "./guard.js";

export interface AcpHubOptions extends GlobalOptions {
  hub: string;
  tokenFile?: string;
}

export async function acpHubCommand(o: AcpHubOptions): Promise<ExitCode> {
  try {
    await runShimTo(cliContext(o), o.hub, o.tokenFile);
    return EXIT_CODES.ok;
  } catch (error) {
    return fail(error);
  }
}
