// `acphub serve`: the hub as a long-running network service. ACP over WebSocket and
// Streamable HTTP on /acp, bearer token on every request, one session hub shared by all.
import { HubError } from "../shared/errors.js";
import { cliContext } from "../app/context.js";
import { startServe, type ServeRequest, type Serving } from "../app/serve.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { fail, out, type JsonOptions } from "./guard.js";

export interface ServeOptions
  extends JsonOptions, Omit<ServeRequest, "host" | "port"> {
  host?: string;
  /** As typed; parsed here. */
  port?: string;
}

function portOf(value: string | undefined): number {
  const port = Number(value ?? "8787");
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new HubError("USAGE", `--port must be 0–65535, got ${value}`);
  return port;
}

// What serve prints once it listens: a JSON line, or how to reach it.
function announce(serving: Serving, json: boolean | undefined): void {
  const { url, tokenSource } = serving;
  const loginUrl = serving.loginUrl();
  if (json) {
    out(
      `${JSON.stringify({ event: "listening", url, pid: process.pid, tokenFrom: tokenSource, loginUrl })}\n`,
    );
    return;
  }
  out(
    `acphub serve listening on ${url} (ACP on ${url}/acp, WebSocket or Streamable HTTP)\n` +
      `Web page (this link logs one browser in, once): ${loginUrl}\n` +
      `Clients send "Authorization: Bearer <token>"; the token is in ${tokenSource}.\n` +
      `Editors: acphub acp --hub ${url.replace(/^http/, "ws")}/acp\n`,
  );
}

export async function serveCommand(o: ServeOptions): Promise<ExitCode> {
  let serving: Serving;
  try {
    const ctx = cliContext(o);
    serving = await startServe(ctx, {
      ...o,
      host: o.host ?? "127.0.0.1",
      port: portOf(o.port),
    });
  } catch (error) {
    return fail(error);
  }
  announce(serving, o.json);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await serving.close();
  if (o.json) out(`${JSON.stringify({ event: "stopped" })}\n`);
  return EXIT_CODES.ok;
}
