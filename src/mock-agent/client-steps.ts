// Mock-agent steps that call the client: permission requests, files and terminals, each
// reporting its outcome as text so tests can read what happened.
import type { RequestError } from "@agentclientprotocol/sdk";
import { methods } from "../protocol/methods.js";
import { setTimeout as sleep } from "node:timers/promises";
import type { Step } from "./scenario.js";
import { EndTurn, say, update, type TurnContext } from "./turn-context.js";

const DEFAULT_OPTIONS = [
  { optionId: "allow", name: "Allow", kind: "allow_once" },
  { optionId: "allow-always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
  { optionId: "reject-always", name: "Always reject", kind: "reject_always" },
];

// Calls the client and reports the outcome as text, so tests can read what happened.
export async function callClient(
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

export async function permission(
  ctx: TurnContext,
  spec: Record<string, unknown>,
  step: Step,
) {
  const toolCallId = (spec["toolCallId"] as string) ?? `perm-${Date.now()}`;
  // `null` leaves the field out, as some real agents do.
  const field = (key: string, fallback: string) =>
    spec[key] === null ? {} : { [key]: spec[key] ?? fallback };
  const toolCall = {
    toolCallId,
    ...field("title", "Mock action"),
    ...field("kind", "edit"),
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

export async function terminal(
  ctx: TurnContext,
  spec: Record<string, unknown>,
) {
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

// Sends any request to the client (an extension, or a method acphub may refuse); the answer,
// or the error, is reported as text.
export async function extRequest(
  ctx: TurnContext,
  spec: Record<string, unknown>,
) {
  try {
    const result = await ctx.client.request<unknown>(
      String(spec["method"]),
      spec["params"] ?? {},
    );
    await say(ctx, `ext result: ${JSON.stringify(result)}\n`);
  } catch (error) {
    const e = error as RequestError;
    await say(ctx, `ext failed: ${e.code} ${e.message}\n`);
  }
}

// Asks the client for input (elicitation/create); with cancelAfterMs, withdraws the request
// with $/cancel_request after that long. The outcome is reported as text.
export async function elicit(ctx: TurnContext, spec: Record<string, unknown>) {
  const { cancelAfterMs, ...rest } = spec;
  const signal =
    typeof cancelAfterMs === "number"
      ? AbortSignal.timeout(cancelAfterMs)
      : undefined;
  const params = {
    sessionId: ctx.sessionId,
    message: "Mock question",
    mode: "form",
    requestedSchema: { type: "object", properties: {} },
    ...rest,
  };
  try {
    const result = await ctx.client.request<unknown>(
      methods.client.elicitation.create,
      params,
      { cancellationSignal: signal },
    );
    await say(ctx, `elicitation: ${JSON.stringify(result)}\n`);
  } catch (error) {
    const e = error as RequestError;
    await say(ctx, `elicitation failed: ${e.code} ${e.message}\n`);
  }
}
