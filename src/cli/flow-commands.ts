// Workflows as commands of `acphub acp` sessions: advertised next to the agent's own, run
// inside the session with gates asked of the editor (`session/request_permission`).
import { randomUUID } from "node:crypto";
import type { RequestPermissionOutcome } from "@agentclientprotocol/sdk";
import type {
  HubCommand,
  HubCommandContext,
  HubCommandsPort,
  LedgerPort,
} from "../gateway/ports.js";
import { listWorkflows, findWorkflow } from "../workflows/discover.js";
import { loadWorkflowFile } from "../workflows/load.js";
import type { GatePort } from "../workflows/ports.js";
import { outcomeError, runWorkflow } from "../workflows/runner.js";
import { clientPermissionRequest } from "../workflows/updates.js";
import type { CliContext } from "./context.js";
import {
  loadOptions,
  secretMasker,
  templateEnv,
  workflowDirs,
} from "./flow-setup.js";
import { ledgerJournal, shellPort, stepAgents } from "./flow-ports.js";
import { createRunSession } from "./flow-run.js";
import { buildHost } from "./wiring.js";

const GATE_OPTIONS = [
  { optionId: "approve", name: "Approve", kind: "allow_once" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

// The workflows of a folder that load, as commands.
function commandsIn(ctx: CliContext, cwd: string): HubCommand[] {
  const out: HubCommand[] = [];
  for (const entry of listWorkflows(workflowDirs(ctx.paths, cwd))) {
    try {
      const { spec } = loadWorkflowFile(entry.file, loadOptions(ctx.config));
      out.push({
        name: spec.name,
        description: spec.description ?? `workflow ${spec.name}`,
        ...(spec.input
          ? { input: { hint: spec.input.description ?? "input" } }
          : {}),
      });
    } catch (error) {
      ctx.logger.warn(
        { file: entry.file, err: error },
        "workflow not offered: it does not load",
      );
    }
  }
  return out;
}

// A gate is a permission question to the editor: approve or reject, the text as content.
function editorGate(
  c: HubCommandContext,
  shown: () => Promise<void>,
): GatePort {
  return {
    ask: async (q, signal) => {
      // Everything shown so far reaches the editor first (updates are stored, then sent).
      await shown();
      const { outcome } = await c.request<{
        outcome: RequestPermissionOutcome;
      }>(
        "session/request_permission",
        {
          sessionId: c.sessionId,
          toolCall: {
            toolCallId: q.toolCallId,
            title: q.title,
            kind: "other",
            status: "pending",
            content: [
              { type: "content", content: { type: "text", text: q.text } },
            ],
          },
          options: GATE_OPTIONS,
        },
        signal,
      );
      if (outcome.outcome !== "selected") return undefined;
      return outcome.optionId === "approve";
    },
  };
}

export function workflowCommands(
  ctx: CliContext,
  ledger: LedgerPort,
  exclusive?: string,
): HubCommandsPort {
  return {
    list: (cwd) => (exclusive ? [] : commandsIn(ctx, cwd)),
    ...(exclusive ? { exclusive } : {}),
    run: (name, c) => runInSession(ctx, ledger, name, c),
  };
}

// One run inside an editor's session; its step agents ask the editor through this session.
async function runInSession(
  ctx: CliContext,
  ledger: LedgerPort,
  name: string,
  c: HubCommandContext,
) {
  const workflow = findWorkflow(
    name,
    workflowDirs(ctx.paths, c.cwd),
    loadOptions(ctx.config),
  );
  const runId = randomUUID();
  const host = buildHost({
    config: ctx.config,
    stateDir: ctx.paths.stateDir,
    configFile: ctx.paths.configFile,
    mode: ctx.config.permissions?.mode ?? "ask",
    logger: ctx.logger,
    approver: async (request, signal) =>
      (
        await c.request<{ outcome: RequestPermissionOutcome }>(
          "session/request_permission",
          { ...clientPermissionRequest(request), sessionId: c.sessionId },
          signal,
        )
      ).outcome,
  });
  host.onSessionStart?.(runId, { cwd: c.cwd });
  await createRunSession(ledger, runId, workflow, c.cwd, c.input, c.sessionId);
  const journal = ledgerJournal(ledger, runId);
  await journal.record({
    type: "run_start",
    runId,
    workflow: name,
    file: workflow.file,
    input: c.input,
    cwd: c.cwd,
  });
  let shown = Promise.resolve();
  const masker = secretMasker();
  try {
    const outcome = await runWorkflow({
      runId,
      workflow,
      input: c.input,
      cwd: c.cwd,
      env: templateEnv(ctx.config),
      mask: (text) => masker.mask(text),
      agents: stepAgents({
        ctx,
        host,
        ledger,
        runId,
        editorServers: c.mcpServers,
        logger: ctx.logger,
      }),
      shell: shellPort(host, runId),
      gate: editorGate(c, () => shown),
      sink: {
        update: (u) => {
          shown = shown
            .then(() => c.send(masker.maskValue(u)))
            .catch(() => undefined);
        },
      },
      journal,
      signal: c.signal,
    });
    await shown;
    const error = outcomeError(outcome);
    if (error) throw error;
    return {
      stopReason: outcome.status === "cancelled" ? "cancelled" : "end_turn",
    };
  } finally {
    host.close();
  }
}
