// One ACP session on an agent: prompts (one at a time, or queued), permission decisions and
// bridged requests for it, and mode/config changes when the agent offered them.
import { addAbortListener } from "node:events";
import type {
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
  PromptResponse,
} from "@agentclientprotocol/sdk";
import type {
  BridgeHandler,
  BridgeMethod,
  ClientHost,
} from "../contracts/client-host.js";
import type { PromptResult, RunEvent } from "../contracts/events.js";
import { methods } from "../protocol/methods.js";
import { TurnGate, type TurnClaim } from "../engine/turn-gate.js";
import { isHubError, type HubError } from "../shared/errors.js";
import type { Logger } from "../shared/logger.js";
import { unsupported } from "./agent-errors.js";
import type { ConnectionLimits } from "./limits.js";
import {
  textDelta,
  toBlocks,
  toResult,
  type PromptInput,
} from "./prompt-content.js";
import { PromptRun } from "./prompt-run.js";
import {
  bridgeRequest,
  decidePermission,
  type RequestScope,
} from "./session-requests.js";

export interface PromptOptions {
  signal?: AbortSignal;
  /** Wait for a running turn to end instead of being refused (PROMPT_IN_FLIGHT). */
  queue?: boolean;
  /** `_meta` for the `session/prompt` request. */
  meta?: Record<string, unknown>;
}

/** The session fields an agent may answer new/load/resume with, kept as received. */
export type SessionState = Record<string, unknown> & {
  modes?: { currentModeId: string; availableModes: { id: string }[] } | null;
  configOptions?: { id: string }[] | null;
};

/** What a session needs of its connection: the wire, the host, and the limits of a turn. */
export interface SessionLink {
  agentName: string;
  /** The agent is an acphub hub: its answers' `_meta.acphub` is kept (see ConnectOptions). */
  agentIsHub?: boolean;
  limits: Pick<ConnectionLimits, "cancelGraceMs" | "maxQueuedEvents">;
  host: ClientHost | undefined;
  /** Where a listener's bug is reported (it must not fail the agent's stream). */
  logger: Logger;
  /** Unbounded: only session/prompt, which ends by session/cancel. */
  call<T>(method: string, params: unknown, signal?: AbortSignal): Promise<T>;
  /** Bounded by the signal and the request timeout: every other request. */
  callWithin<T>(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<T>;
  notify(method: string, params: unknown): void;
  /** Fails the whole connection (an agent that ignored a cancel is killed). */
  fail(error: HubError): void;
}

/** Events kept for the first listener of a session nobody listens to yet. */
const MAX_UNHEARD_EVENTS = 256;

export class AgentSession {
  private activeRun: PromptRun | undefined;
  /** Runs started or queued and not yet settled. */
  private pendingRuns = 0;
  /** The one turn gate's rule for this session (engine/turn-gate.ts), for library callers: the
   *  engine claims its own gate before it prompts, so this one is never contended there. */
  private readonly turns = new TurnGate();
  /** The claim held while runs are started or queued (queued runs share it). */
  private held: TurnClaim | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(event: RunEvent) => void>();
  /** Events that came while nobody listened (between session/new and the gateway attaching). */
  private unheard: RunEvent[] = [];
  private readonly permissionAborts = new Set<AbortController>();

  /** What the permission and bridge handlers see of this session. */
  private readonly scope: RequestScope;

  constructor(
    private readonly link: SessionLink,
    readonly id: string,
    public state: SessionState,
  ) {
    this.scope = {
      sessionId: id,
      host: link.host,
      emit: (event) => this.emit(event),
      turnCancelled: () => this.activeRun?.cancelled === true,
      aborts: this.permissionAborts,
    };
  }

  get busy(): boolean {
    return this.held !== undefined;
  }

  /** Receives events that arrive outside a turn (load replay, late command lists). */
  onEvent(listener: (event: RunEvent) => void): () => void {
    this.listeners.add(listener);
    const unheard = this.unheard.splice(0);
    for (const event of unheard) listener(event);
    return () => this.listeners.delete(listener);
  }

  // Hands an event to the running turn, else to each listener; a listener that throws is
  // logged and skipped: this runs inside the agent's stream, where a throw fails the agent.
  emit(event: RunEvent): void {
    if (this.activeRun) return this.activeRun.push(event);
    if (this.listeners.size === 0) {
      if (this.unheard.push(event) > MAX_UNHEARD_EVENTS) this.unheard.shift();
      return;
    }
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.link.logger.error(
          { err: error, sessionId: this.id, event: event.type },
          "a session event listener threw; the event was not delivered to it",
        );
      }
    }
  }

  receiveUpdate(notification: SessionNotification): void {
    const { update, _meta } = notification;
    this.emit({
      type: "session_update",
      sessionId: this.id,
      update,
      ...(_meta ? { meta: _meta } : {}),
    });
  }

  // Starts a turn. Refused (the gate's PROMPT_IN_FLIGHT) while one runs, unless `queue` is set:
  // then it runs after the ones before it, under their claim.
  prompt(input: PromptInput, options: PromptOptions = {}): PromptRun {
    if (!(options.queue && this.held)) this.held = this.turns.claim(this.id);
    const { link } = this;
    let listening: Disposable | undefined;
    const run = new PromptRun(
      {
        agentName: link.agentName,
        cancelGraceMs: link.limits.cancelGraceMs,
        requestCancel: () => this.requestCancel(),
        onUnresponsive: (error) => link.fail(error),
        onSettle: () => {
          this.pendingRuns -= 1;
          if (this.pendingRuns === 0) this.letGo();
          listening?.[Symbol.dispose]();
        },
      },
      link.limits.maxQueuedEvents,
    );
    this.pendingRuns += 1;
    const { signal } = options;
    if (signal?.aborted) run.cancel();
    else if (signal) listening = addAbortListener(signal, () => run.cancel());
    const previous = this.tail;
    this.tail = previous
      .then(() => this.execute(run, input, options))
      .catch(() => undefined);
    return run;
  }

  private async execute(
    run: PromptRun,
    input: PromptInput,
    options: PromptOptions,
  ) {
    if (run.isSettled) return;
    this.activeRun = run;
    run.markStarted();
    try {
      const params = {
        sessionId: this.id,
        prompt: toBlocks(input),
        ...(options.meta ? { _meta: options.meta } : {}),
      };
      const response = await this.link.call<PromptResponse>(
        methods.agent.session.prompt,
        params,
      );
      run.finish(toResult(response, this.link.agentIsHub === true));
    } catch (error) {
      if (run.cancelled && isHubError(error) && error.code === "AGENT_ERROR") {
        // Some agents answer a cancelled turn with an error (-32800) instead of `cancelled`.
        run.finish({
          stopReason: "cancelled",
          response: { stopReason: "cancelled" },
        });
      } else run.fail(error);
    } finally {
      if (this.activeRun === run) this.activeRun = undefined;
      this.link.host?.onTurnEnd?.(this.id);
    }
  }

  // No run is started or queued: the session's turn is free.
  private letGo(): void {
    this.held?.release();
    this.held = undefined;
  }

  private requestCancel(): void {
    this.link.notify(methods.agent.session.cancel, {
      sessionId: this.id,
    });
    for (const controller of this.permissionAborts) controller.abort();
  }

  /** Cancels the running turn, if any. */
  cancel(): void {
    this.activeRun?.cancel();
  }

  // Answers `session/request_permission` through the host, or refuses deterministically.
  decidePermission(
    request: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    return decidePermission(this.scope, request, signal);
  }

  // Serves an `fs/*` or `terminal/*` request through the host and records it as an event.
  bridge(
    method: BridgeMethod,
    params: Record<string, unknown>,
    handler: BridgeHandler,
    signal: AbortSignal,
  ): Promise<unknown> {
    return bridgeRequest(this.scope, method, params, handler, signal);
  }

  connectionFailed(error: HubError): void {
    for (const controller of this.permissionAborts) controller.abort();
    this.activeRun?.fail(error);
  }

  // One turn as plain text: collects agent message chunks.
  async chat(input: PromptInput, options: PromptOptions = {}) {
    const run = this.prompt(input, options);
    let text = "";
    for await (const event of run) text += textDelta(event);
    const result = await run.result;
    return { text, stopReason: result.stopReason, usage: result.usage };
  }

  // One turn as a stream of text deltas; the generator returns the turn's result.
  async *chatStream(
    input: PromptInput,
    options: PromptOptions = {},
  ): AsyncGenerator<string, PromptResult> {
    const run = this.prompt(input, options);
    for await (const event of run) {
      const delta = textDelta(event);
      if (delta) yield delta;
    }
    return run.result;
  }

  async setMode(modeId: string, signal?: AbortSignal): Promise<void> {
    if (!this.state.modes)
      throw unsupported(this.link.agentName, "session/set_mode", "modes");
    const params = { sessionId: this.id, modeId };
    await this.link.callWithin(methods.agent.session.setMode, params, signal);
    this.state.modes = { ...this.state.modes, currentModeId: modeId };
  }

  async setConfigOption(
    configId: string,
    value: string,
    signal?: AbortSignal,
  ): Promise<void> {
    if (!this.state.configOptions) {
      throw unsupported(
        this.link.agentName,
        "session/set_config_option",
        "configOptions",
      );
    }
    const params = { sessionId: this.id, configId, value };
    const response = await this.link.callWithin<{
      configOptions?: { id: string }[];
    }>(methods.agent.session.setConfigOption, params, signal);
    if (response.configOptions)
      this.state.configOptions = response.configOptions;
  }
}
