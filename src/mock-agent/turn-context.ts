// What a mock-agent turn step works with: the client, the session, cancellation, and the
// helpers every step uses to send updates.
import type { AgentContext, PromptResponse } from "@agentclientprotocol/sdk";
import { methods } from "../protocol/methods.js";

export interface TurnContext {
  client: AgentContext;
  sessionId: string;
  /** Aborted by session/cancel. */
  signal: AbortSignal;
  /** Records an update for session/load replay. */
  remember: (update: Record<string, unknown>) => void;
  writeRaw: (line: string) => void;
  /** The session's history so far (user and agent updates), for the `history` step. */
  history?: () => Record<string, unknown>[];
  /** The session/prompt's own `_meta`, for the `promptMeta` step. */
  promptMeta?: unknown;
  /** What the `state` step reports: the client's capabilities and the session's settings. */
  report?: () => unknown;
  /** `shell` runs in this process (the mock's --own-shell), else through terminal/create. */
  ownShell?: boolean;
}

export class EndTurn {
  constructor(readonly stopReason: PromptResponse["stopReason"]) {}
}

export async function update(
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

export async function say(ctx: TurnContext, text: string) {
  await update(ctx, {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
  });
}
