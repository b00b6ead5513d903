// `acphub acp`: serve the configured agent to an editor over stdio, with sessions recorded in
// the ledger. Logs go to stderr; stdout carries only protocol frames.
import { budgetsOf } from "../telemetry/budgets.js";
import { reapOrphans } from "../agents/orphans.js";
import { defaultAgentName, resolveAgent } from "../agents/registry.js";
import { sandboxedLaunch } from "../app/sandbox.js";
import { serveStdio } from "../stdio/stdio-server.js";
import { EditorChannel } from "../engine/editor-channel.js";
import { SessionTable } from "../engine/session-table.js";
import { DEFAULT_LIMITS } from "../agents/limits.js";
import { once } from "../shared/once.js";
import { cliContext, type GlobalOptions } from "../app/context.js";
import { workingDir } from "./cwd.js";
import { fail } from "./guard.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { workflowAgent } from "../workflows/workflow-agent.js";
import { workflowCommands } from "../workflows/runtime/commands.js";
import {
  buildGateway,
  hostForEditor,
  openLedger,
  runHostFactory,
  tracingFor,
} from "../app/wiring.js";
import { stopSandboxRuntime } from "../host/sandbox/runtime-owner.js";

export interface AcpOptions extends GlobalOptions {
  agent?: string;
  cwd?: string;
  /** Present this workflow as the agent. */
  workflow?: string;
}

export async function acpCommand(options: AcpOptions): Promise<ExitCode> {
  let ctx;
  let cwd: string | undefined;
  try {
    ctx = cliContext(options);
    if (options.cwd) cwd = workingDir(options.cwd);
  } catch (error) {
    return fail(error);
  }
  const { config, paths, logger } = ctx;
  reapOrphans(paths.stateDir, logger);
  const name = options.workflow
    ? `workflow:${options.workflow}`
    : (options.agent ?? defaultAgentName(config));
  let launch;
  try {
    // A workflow served as the agent starts only its steps' agents, when they run.
    if (!options.workflow)
      launch = await sandboxedLaunch(
        resolveAgent(name, config),
        config,
        paths,
        cwd ?? process.cwd(),
      );
  } catch (error) {
    return fail(error);
  }
  let ledger, tracing;
  try {
    tracing = await tracingFor(ctx);
    ledger = await openLedger(ctx, tracing);
  } catch (error) {
    return fail(error);
  }
  // Wired in one direction: the editor channel first, the host over it, the gateway over both.
  const editor = new EditorChannel(new SessionTable());
  const host = hostForEditor(ctx, editor, true);
  const gateway = buildGateway({
    ctx,
    agentName: name,
    ...(launch ? { launch } : {}),
    ...(options.workflow
      ? { agent: async () => workflowAgent(options.workflow!) }
      : {}),
    ledger,
    host,
    editor,
    commands: workflowCommands(
      ctx,
      ledger,
      runHostFactory(ctx),
      options.workflow,
      budgetsOf(ctx.config, ledger),
    ),
    cwd,
    ...(tracing ? { tracing } : {}),
  });
  const stop = once(async () => {
    await gateway
      .close()
      .catch((error: unknown) => logger.warn({ err: error }, "shutdown"));
    await tracing?.shutdown();
    host.close();
    await stopSandboxRuntime().catch((error: unknown) =>
      logger.warn({ err: error }, "stopping the sandbox runtime failed"),
    );
    process.exit(EXIT_CODES.ok);
  });
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
  const limits = config.limits ?? {};
  await serveStdio({
    gateway,
    logger,
    maxMessageBytes: limits.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes,
  });
  await stop();
  return EXIT_CODES.ok;
}
