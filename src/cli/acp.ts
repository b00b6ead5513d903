// `acphub acp`: serve the configured agent to an editor over stdio, with sessions recorded in
// the ledger. Logs go to stderr; stdout carries only protocol frames.
import { resolve } from "node:path";
import { reapOrphans } from "../agents/orphans.js";
import { defaultAgentName, resolveAgent } from "../agents/registry.js";
import { serveStdio } from "../editors/stdio-server.js";
import { Gateway } from "../gateway/gateway.js";
import { relayedClientCapabilities } from "../protocol/capabilities.js";
import { DEFAULT_LIMITS } from "../agents/limits.js";
import { cliContext, type GlobalOptions } from "./context.js";
import { fail } from "./guard.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { buildGateway, buildHost, openLedger } from "./wiring.js";

export interface AcpOptions extends GlobalOptions {
  agent?: string;
  cwd?: string;
}

export async function acpCommand(options: AcpOptions): Promise<ExitCode> {
  let ctx;
  try {
    ctx = cliContext(options);
  } catch (error) {
    return fail(error);
  }
  const { config, paths, logger } = ctx;
  reapOrphans(paths.stateDir, logger);
  const name = options.agent ?? defaultAgentName(config);
  let launch;
  try {
    launch = resolveAgent(name, config);
  } catch (error) {
    return fail(error);
  }
  const ledger = openLedger(ctx);
  const limits = config.limits ?? {};
  // The host's callbacks reach the gateway declared below; they run only once it exists.
  const caps = () =>
    gateway.editorCapabilities as {
      fs?: { readTextFile?: boolean; writeTextFile?: boolean };
      terminal?: boolean;
    };
  const host = buildHost({
    config,
    stateDir: paths.stateDir,
    mode: config.permissions?.mode ?? "ask",
    logger,
    approver: async (request, signal) =>
      (
        await gateway.toEditor<{ outcome: never }>(
          "session/request_permission",
          request as never,
          signal,
        )
      ).outcome,
    editor: {
      handles: (method) => {
        const c = caps();
        if (method === "fs/read_text_file") return c.fs?.readTextFile === true;
        if (method === "fs/write_text_file")
          return c.fs?.writeTextFile === true;
        return c.terminal === true;
      },
      request: (method, params, signal) =>
        gateway.toEditor(method, params, signal),
    },
  });
  host.extensionFallback = (method, params, hostCtx) =>
    gateway.toEditor(method, params as never, hostCtx.signal);
  host.onExtNotification = (method, params) =>
    gateway.notifyEditor(method, params as never);
  host.relayedCapabilities = () =>
    relayedClientCapabilities(gateway.editorCapabilities);
  const gateway: Gateway = buildGateway({
    ctx,
    agentName: name,
    launch,
    ledger,
    host,
    cwd: options.cwd ? resolve(options.cwd) : undefined,
  });

  const stop = once(async () => {
    await gateway!
      .close()
      .catch((error: unknown) => logger.warn({ err: error }, "shutdown"));
    host.close();
    process.exit(EXIT_CODES.ok);
  });
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
  await serveStdio({
    gateway,
    logger,
    maxMessageBytes: limits.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes,
  });
  await stop();
  return EXIT_CODES.ok;
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}
