// `acphub acp` built whole: the configured agent (or a workflow presented as the agent) served
// to one editor over stdio, its sessions recorded in the ledger.
import { budgetsOf } from "../telemetry/budgets.js";
import { reapOrphans } from "../agents/orphans.js";
import { defaultAgentName, resolveAgent } from "../agents/registry.js";
import { DEFAULT_LIMITS } from "../agents/limits.js";
import { serveStdio } from "../stdio/stdio-server.js";
import { EditorChannel } from "../engine/editor-channel.js";
import { SessionTable } from "../engine/session-table.js";
import { workflowAgent } from "../workflows/workflow-agent.js";
import { workflowCommands } from "../workflows/runtime/commands.js";
import { stopSandboxRuntime } from "../host/sandbox/runtime-owner.js";
import { once } from "../shared/once.js";
import type { AppContext } from "../config/context.js";
import { sandboxedLaunch } from "./sandbox.js";
import { stepTracing } from "./step-tracing.js";
import {
  buildGateway,
  hostForEditor,
  openLedger,
  runHostFactory,
  tracingFor,
} from "./wiring.js";

export interface AcpRequest {
  agent?: string;
  /** The session folder (default: the current one). */
  cwd?: string;
  /** Present this workflow as the agent. */
  workflow?: string;
}

export interface StdioAcp {
  /** Serves the editor on stdin/stdout until it closes them. */
  serve(): Promise<void>;
  /** Closes the gateway, tracing, host and sandbox runtime (once). */
  stop(): Promise<void>;
}

// Wired in one direction: the editor channel first, the host over it, the gateway over both.
export async function openStdioAcp(
  ctx: AppContext,
  o: AcpRequest,
): Promise<StdioAcp> {
  const { config, paths, logger } = ctx;
  reapOrphans(paths.stateDir, logger);
  const name = o.workflow
    ? `workflow:${o.workflow}`
    : (o.agent ?? defaultAgentName(config));
  // A workflow served as the agent starts only its steps' agents, when they run.
  const launch = o.workflow
    ? undefined
    : await sandboxedLaunch(
        resolveAgent(name, config),
        config,
        paths,
        o.cwd ?? process.cwd(),
      );
  const tracing = await tracingFor(ctx);
  const ledger = await openLedger(ctx, tracing);
  const editor = new EditorChannel(new SessionTable());
  const host = hostForEditor(ctx, editor, true);
  const workflow = o.workflow;
  const gateway = buildGateway({
    ctx,
    agentName: name,
    ...(launch ? { launch } : {}),
    ...(workflow ? { agent: async () => workflowAgent(workflow) } : {}),
    ledger,
    host,
    editor,
    commands: workflowCommands(
      ctx,
      ledger,
      runHostFactory(ctx),
      workflow,
      budgetsOf(config, ledger),
      tracing ? stepTracing(tracing) : undefined,
    ),
    cwd: o.cwd,
    ...(tracing ? { tracing } : {}),
  });
  return {
    serve: () =>
      serveStdio({
        gateway,
        logger,
        maxMessageBytes:
          config.limits?.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes,
      }),
    stop: once(async () => {
      await gateway
        .close()
        .catch((error: unknown) => logger.warn({ err: error }, "shutdown"));
      await tracing?.shutdown();
      host.close();
      await stopSandboxRuntime().catch((error: unknown) =>
        logger.warn({ err: error }, "stopping the sandbox runtime failed"),
      );
    }),
  };
}
