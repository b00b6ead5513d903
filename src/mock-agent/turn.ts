// Runs one scenario turn of the mock agent against the client, step by step.
import {
  RequestError,
  type AgentContext,
  type PromptResponse,
} from "@agentclientprotocol/sdk";
import { methods } from "../protocol/methods.js";
import { sleep } from "../shared/abort.js";
import type { Scenario, Step } from "./scenario.js";

export interface TurnContext {
  client: AgentContext;
  sessionId: string;
  /** Aborted by session/cancel. */
  signal: AbortSignal;
  /** Records an update for session/load replay. */
  remember: (update: Record<string, unknown>) => void;
  writeRaw: (line: string) => void;
}

class EndTurn {
  constructor(readonly stopReason: PromptResponse["stopReason"]) {}
}

const DEFAULT_OPTIONS = [
  { optionId: "allow", name: "Allow", kind: "allow_once" },
  { optionId: "allow-always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
  { optionId: "reject-always", name: "Always reject", kind: "reject_always" },
];

async function update(
  ctx: TurnContext,
  body: Record<string, unknown>,
  meta?: unknown,
) {
  ctx.remember(body);
  const params = {
    sessionId: ctx.sessionId,
    update: body,
    ...(meta ? { _meta: meta } : {}),
  };
  await ctx.client.notify(methods.client.session.update as string, params);
}

function chunkText(text: string, chunks: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, chunks)));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [""];
}

async function say(ctx: TurnContext, text: string) {
  await update(ctx, {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
  });
}

// Calls the client and reports the outcome as text, so tests can read what happened.
async function callClient(
  ctx: TurnContext,
  label: string,
  method: string,
  params: object,
) {
  try {
    const result = await ctx.client.request<unknown>(method, {
      sessionId: ctx.sessionId,
      ...params,
    });
    return { ok: true as const, result };
  } catch (error) {
    const e = error as RequestError;
    await say(ctx, `${label} failed: ${e.code} ${e.message}\n`);
    return { ok: false as const };
  }
}

async function permission(
  ctx: TurnContext,
  spec: Record<string, unknown>,
  step: Step,
) {
  const toolCallId = (spec["toolCallId"] as string) ?? `perm-${Date.now()}`;
  const toolCall = {
    toolCallId,
    title: spec["title"] ?? "Mock action",
    kind: spec["kind"] ?? "edit",
    ...(spec["toolCall"] as object),
  };
  const options = (spec["options"] as unknown[]) ?? DEFAULT_OPTIONS;
  const response = await ctx.client.request<{
    outcome: { outcome: string; optionId?: string };
  }>(methods.client.session.requestPermission, {
    sessionId: ctx.sessionId,
    toolCall,
    options,
  });
  const { outcome } = response;
  if (outcome.outcome === "cancelled") throw new EndTurn("cancelled");
  const chosen = (options as { optionId: string; kind: string }[]).find(
    (o) => o.optionId === outcome.optionId,
  );
  const allowed = chosen?.kind.startsWith("allow") ?? false;
  await say(
    ctx,
    `permission ${allowed ? "granted" : "denied"} (${outcome.optionId})\n`,
  );
  if (!allowed && step["onReject"] !== "continue")
    throw new EndTurn("end_turn");
}

// Polls terminal/output until it contains `text` (at most 5 s).
async function outputContains(
  ctx: TurnContext,
  id: { terminalId: string },
  text: string,
) {
  const params = { sessionId: ctx.sessionId, ...id };
  for (let i = 0; i < 250; i++) {
    const r = await ctx.client.request<{ output: string }>(
      methods.client.terminal.output,
      params,
    );
    if (r.output.includes(text)) return;
    await sleep(20);
  }
}

async function terminal(ctx: TurnContext, spec: Record<string, unknown>) {
  const { kill, killWhenOutput, ...createParams } = spec;
  const created = await callClient(
    ctx,
    "terminal/create",
    methods.client.terminal.create,
    createParams,
  );
  if (!created.ok) return;
  const terminalId = (created.result as { terminalId: string }).terminalId;
  const toolCallId = `term-${terminalId}`;
  const content = [{ type: "terminal", terminalId }];
  await update(ctx, {
    sessionUpdate: "tool_call",
    toolCallId,
    title: String(spec["command"]),
    kind: "execute",
    status: "in_progress",
    content,
  });
  const id = { terminalId };
  if (typeof killWhenOutput === "string")
    await outputContains(ctx, id, killWhenOutput);
  if (kill || killWhenOutput !== undefined)
    await callClient(ctx, "terminal/kill", methods.client.terminal.kill, id);
  const exit = await callClient(
    ctx,
    "terminal/wait_for_exit",
    methods.client.terminal.waitForExit,
    id,
  );
  const output = await callClient(
    ctx,
    "terminal/output",
    methods.client.terminal.output,
    id,
  );
  await callClient(
    ctx,
    "terminal/release",
    methods.client.terminal.release,
    id,
  );
  await update(ctx, {
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: "completed",
  });
  await say(
    ctx,
    `terminal exit: ${JSON.stringify(exit.ok ? exit.result : null)}; output: ${JSON.stringify(output.ok ? output.result : null)}\n`,
  );
}

// Executes one step; throws EndTurn to finish the turn early.
async function runStep(ctx: TurnContext, step: Step): Promise<void> {
  const [kind, value] = Object.entries(step).find(
    ([k]) => !["chunks", "repeat", "onReject", "_meta"].includes(k),
  ) as [string, unknown];
  const spec = (value ?? {}) as Record<string, unknown>;
  switch (kind) {
    case "text":
    case "thought": {
      const sessionUpdate =
        kind === "text" ? "agent_message_chunk" : "agent_thought_chunk";
      for (const piece of chunkText(
        String(value),
        Number(step["chunks"] ?? 1),
      )) {
        await update(
          ctx,
          { sessionUpdate, content: { type: "text", text: piece } },
          step["_meta"],
        );
      }
      return;
    }
    case "toolCall":
      return update(
        ctx,
        { sessionUpdate: "tool_call", ...spec },
        step["_meta"],
      );
    case "toolCallUpdate":
      return update(
        ctx,
        { sessionUpdate: "tool_call_update", ...spec },
        step["_meta"],
      );
    case "plan":
      return update(ctx, { sessionUpdate: "plan", entries: value });
    case "usage":
      return update(ctx, { sessionUpdate: "usage_update", ...spec });
    case "sessionInfo":
      return update(ctx, { sessionUpdate: "session_info_update", ...spec });
    case "commands":
      return update(ctx, {
        sessionUpdate: "available_commands_update",
        availableCommands: value,
      });
    case "update":
      return update(ctx, spec, step["_meta"]);
    case "permission":
      return permission(ctx, spec, step);
    case "readFile": {
      const r = await callClient(
        ctx,
        "fs/read_text_file",
        methods.client.fs.readTextFile,
        spec,
      );
      if (r.ok)
        await say(
          ctx,
          `read: ${JSON.stringify((r.result as { content: string }).content)}\n`,
        );
      return;
    }
    case "writeFile": {
      const r = await callClient(
        ctx,
        "fs/write_text_file",
        methods.client.fs.writeTextFile,
        spec,
      );
      if (r.ok) await say(ctx, `wrote ${String(spec["path"])}\n`);
      return;
    }
    case "terminal":
      return terminal(ctx, spec);
    case "extRequest": {
      const result = await ctx.client.request<unknown>(
        String(spec["method"]),
        spec["params"] ?? {},
      );
      return say(ctx, `ext result: ${JSON.stringify(result)}\n`);
    }
    case "extNotification":
      return ctx.client.notify(String(spec["method"]), spec["params"] ?? {});
    case "sleep":
      try {
        await sleep(Number(value), ctx.signal);
      } catch {
        throw new EndTurn("cancelled");
      }
      return;
    case "hang":
      return new Promise<void>(() => setInterval(() => undefined, 60_000));
    case "exit":
      process.exit(Number(value));
    // falls through (never reached)
    case "env":
      return say(ctx, `env: ${Object.keys(process.env).sort().join(",")}\n`);
    case "stderr":
      process.stderr.write(String(value) + "\n");
      return;
    case "garbage":
      for (let i = 0; i < Number(step["repeat"] ?? 1); i++)
        ctx.writeRaw(String(value));
      return;
    case "oversized":
      return ctx.writeRaw("x".repeat(Number(value)));
    case "error":
      throw new RequestError(
        Number(spec["code"] ?? -32603),
        String(spec["message"] ?? "mock error"),
      );
    case "stop":
      throw new EndTurn(value as PromptResponse["stopReason"]);
  }
}

export async function runTurn(
  ctx: TurnContext,
  scenario: Scenario,
): Promise<PromptResponse> {
  try {
    for (const step of scenario.steps) {
      if (ctx.signal.aborted) throw new EndTurn("cancelled");
      await runStep(ctx, step);
    }
  } catch (error) {
    if (error instanceof EndTurn) return { stopReason: error.stopReason };
    throw error;
  }
  if (ctx.signal.aborted) return { stopReason: "cancelled" };
  const stopReason = (scenario.stopReason ??
    "end_turn") as PromptResponse["stopReason"];
  return {
    stopReason,
    ...(scenario.usage ? { usage: scenario.usage } : {}),
    ...(scenario._meta ? { _meta: scenario._meta } : {}),
  };
}
