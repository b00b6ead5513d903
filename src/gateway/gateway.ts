// The ACP methods an editor calls, over the gateway core: every prompt and update recorded in
// the ledger before it reaches the editor, and sessions listed, loaded, resumed, closed and
// deleted from the ledger whatever the agent supports.
import { randomUUID } from "node:crypto";
import type { McpServer } from "@agentclientprotocol/sdk";
import { editorFacingCapabilities } from "../protocol/capabilities.js";
import { normalizeProtocolVersion } from "../protocol/version.js";
import { HubError } from "../shared/errors.js";
import { ACPHUB_VERSION } from "../shared/version.js";
import { GatewayCore, type Params, type Runtime } from "./gateway-core.js";
import { primingBlock, replayItems, titleFromPrompt } from "./history.js";
import { checkPromptSize } from "./limits.js";
import type { TurnPort } from "./ports.js";
import { relayEvent, tellEditor } from "./relay.js";
import {
  setSessionConfigOption,
  setSessionMode,
  setSessionModel,
} from "./session-controls.js";

export type { GatewayOptions } from "./gateway-core.js";

export class Gateway extends GatewayCore {
  async initialize(params: Params): Promise<Params> {
    const { normalized } = normalizeProtocolVersion(params["protocolVersion"]);
    if (normalized) {
      this.logger.warn(
        { protocolVersion: params["protocolVersion"] },
        "editor sent an unsupported protocolVersion; using 1",
      );
    }
    this.clientCapabilities = (params["clientCapabilities"] as Params) ?? {};
    const agent = await this.agent();
    this.initialized = true;
    const init = agent.initializeResponse;
    const info = init?.agentInfo;
    return {
      protocolVersion: 1,
      agentCapabilities: editorFacingCapabilities(init?.agentCapabilities),
      authMethods: init?.authMethods ?? [],
      agentInfo: {
        name: "acphub",
        title: `acphub → ${info?.title ?? info?.name ?? this.options.agentName}`,
        version: ACPHUB_VERSION,
      },
      ...(init?._meta ? { _meta: init._meta } : {}),
    };
  }

  async newSession(params: Params): Promise<Params> {
    this.requireInit();
    if (!this.limiter.take()) {
      throw new HubError(
        "LIMIT_EXCEEDED",
        `too many new sessions: the limit is ${this.limits.sessionsPerMinute} per minute`,
        { retryable: true },
      );
    }
    const agent = await this.agent();
    const { cwd, mcpServers, additionalDirectories, _meta } = params as {
      cwd: string;
      mcpServers?: McpServer[];
      additionalDirectories?: string[];
      _meta?: Params;
    };
    const session = await agent.newSession({
      cwd,
      mcpServers: mcpServers ?? [],
      additionalDirectories,
      meta: _meta,
    });
    const id = `hub-${randomUUID()}`;
    const now = Date.now();
    const request = {
      mcpServers: mcpServers ?? [],
      ...(additionalDirectories ? { additionalDirectories } : {}),
      ...(_meta ? { _meta } : {}),
    };
    this.ledger.createSession({
      id,
      agent: this.options.agentName,
      cwd,
      title: null,
      createdAt: now,
      updatedAt: now,
      state: "active",
      agentSessionId: session.id,
      request,
    });
    this.settings.merge(id, session.state);
    this.attach(id, agent, session, false);
    return { ...session.state, sessionId: id };
  }

  async prompt(params: Params, signal: AbortSignal): Promise<Params> {
    this.requireInit();
    const record = this.record(params["sessionId"]);
    const prompt = params["prompt"];
    if (!Array.isArray(prompt))
      throw new HubError("USAGE", "prompt must be an array of content blocks");
    checkPromptSize(prompt, this.limits.maxPromptBytes);
    const { runtime } = await this.live(record);
    if (runtime.turn) {
      if (this.limits.busyPrompt === "reject")
        throw new HubError(
          "PROMPT_IN_FLIGHT",
          `session ${record.id} already has a turn running`,
        );
      runtime.turn.cancel();
      await runtime.turnDone;
    }
    const meta = params["_meta"] as Params | undefined;
    this.ledger.append(record.id, "prompt", {
      prompt,
      ...(meta ? { meta } : {}),
    });
    if (record.title === null)
      this.ledger.updateSession(record.id, { title: titleFromPrompt(prompt) });
    const blocks = runtime.needsPriming
      ? [primingBlock(this.ledger.events(record.id).slice(0, -1)), ...prompt]
      : prompt;
    runtime.needsPriming = false;
    return this.runTurn(
      record.id,
      runtime,
      runtime.session.prompt(blocks as never[], { meta }),
      signal,
    );
  }

  private async runTurn(
    hubId: string,
    runtime: Runtime,
    turn: TurnPort,
    signal: AbortSignal,
  ): Promise<Params> {
    runtime.turn = turn;
    const onAbort = () => turn.cancel();
    signal.addEventListener("abort", onAbort, { once: true });
    const done = (async () => {
      for await (const event of turn)
        await relayEvent(this.relay, hubId, event);
      return turn.result;
    })();
    runtime.turnDone = done.catch(() => undefined);
    try {
      const result = await done;
      this.ledger.append(hubId, "turn_end", { stopReason: result.stopReason });
      return result.response;
    } catch (error) {
      this.ledger.append(hubId, "turn_end", {
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    } finally {
      signal.removeEventListener("abort", onAbort);
      runtime.turn = undefined;
    }
  }

  /** The session's modes and config options as the agent last described them. */
  sessionState(sessionId: string): Params {
    return { ...this.settings.get(sessionId) };
  }

  async setMode(sessionId: string, modeId: string): Promise<void> {
    await setSessionMode(this.access, { sessionId, modeId });
  }

  async setConfigOption(
    sessionId: string,
    configId: string,
    value: string,
  ): Promise<void> {
    await setSessionConfigOption(this.access, { sessionId, configId, value });
  }

  async setModel(sessionId: string, modelId: string): Promise<void> {
    await setSessionModel(this.access, { sessionId, modelId });
  }

  cancel(params: Params): void {
    const runtime = this.runtimes.get(String(params["sessionId"]));
    runtime?.turn?.cancel();
  }

  listSessions(params: Params): Params {
    this.requireInit();
    let page;
    try {
      page = this.ledger.listSessions({
        cwd: params["cwd"] as string | undefined,
        cursor: params["cursor"] as string | undefined,
      });
    } catch (error) {
      throw new HubError("USAGE", (error as Error).message);
    }
    return {
      sessions: page.sessions.map((s) => ({
        sessionId: s.id,
        cwd: s.cwd,
        title: s.title,
        updatedAt: new Date(s.updatedAt).toISOString(),
      })),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  }

  async loadSession(params: Params): Promise<Params> {
    this.requireInit();
    const record = this.record(params["sessionId"]);
    if (record.incomplete)
      await tellEditor(
        this.editor,
        record.id,
        "older history of this session was trimmed (ledger caps); the replay starts later",
        this.notices,
      );
    for (const item of replayItems(this.ledger.events(record.id))) {
      await this.editor?.notify("session/update", {
        sessionId: record.id,
        update: item.update,
        ...(item.meta ? { _meta: item.meta } : {}),
      });
    }
    await this.live(record);
    this.ledger.updateSession(record.id, { state: "active" });
    return this.sessionState(record.id);
  }

  async resumeSession(params: Params): Promise<Params> {
    this.requireInit();
    const record = this.record(params["sessionId"]);
    await this.live(record);
    this.ledger.updateSession(record.id, { state: "active" });
    return this.sessionState(record.id);
  }

  async closeSession(params: Params): Promise<Params> {
    const record = this.record(params["sessionId"]);
    const runtime = this.runtimes.get(record.id);
    if (runtime) {
      runtime.turn?.cancel();
      runtime.unsubscribe();
      this.runtimes.delete(record.id);
      if (runtime.agent.alive && runtime.agent.supports("close"))
        await runtime.agent.closeSession(runtime.session.id);
    }
    this.ledger.updateSession(record.id, { state: "closed" });
    return {};
  }

  async deleteSession(params: Params): Promise<Params> {
    const record = this.record(params["sessionId"]);
    const runtime = this.runtimes.get(record.id);
    runtime?.turn?.cancel();
    runtime?.unsubscribe();
    this.runtimes.delete(record.id);
    const agent = runtime?.agent;
    if (agent?.alive && agent.supports("delete") && record.agentSessionId) {
      await agent
        .deleteSession(record.agentSessionId)
        .catch((error: unknown) =>
          this.logger.warn(
            { err: error },
            "agent could not delete the session",
          ),
        );
    }
    this.ledger.deleteSession(record.id);
    this.settings.forget(record.id);
    return {};
  }

  /** An editor's `_`-prefixed request or notification, relayed with the session id mapped. */
  async forwardExtension(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const agent = await this.agent();
    return agent.request(method, this.toAgentIds(params), signal);
  }

  async forwardExtensionNotification(
    method: string,
    params: unknown,
  ): Promise<void> {
    (await this.agent()).notify(method, this.toAgentIds(params));
  }

  async close(): Promise<void> {
    for (const runtime of this.runtimes.values()) runtime.turn?.cancel();
    await Promise.allSettled(
      [...this.runtimes.values()].map((r) => r.turnDone),
    );
    const agent = await this.agentPromise?.catch(() => undefined);
    await agent?.close();
    this.ledger.close();
  }
}
