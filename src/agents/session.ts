// One ACP session on an agent: prompts (one at a time, or queued), permission decisions and
// bridged requests for it, and mode/config changes when the agent offered them.
import {
  RequestError,
  type PromptResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { methods } from "../protocol/methods.js";
import { outcomeFor } from "../protocol/permission-options.js";
import { raceSignal } from "../shared/abort.js";
import { errorMessage, HubError, isHubError } from "../shared/errors.js";
import type { ConnectionCore } from "./connection-core.js";
import type { PromptResult, RunEvent } from "../contracts/events.js";
import type {
  BridgeHandler,
  BridgeMethod,
  HostContext,
  PermissionAnswer,
} from "../contracts/client-host.js";
import { PromptRun } from "./prompt-run.js";
import { unsupported } from "./agent-errors.js";
import {
  textDelta,
  toBlocks,
  toResult,
  type PromptInput,
} from "./prompt-content.js";

export interface PromptOptions {
  signal?: AbortSignal;
  /** Wait for a running turn to end instead of failing with PROMPT_IN_FLIGHT. */
  queue?: boolean;
  /** `_meta` for the `session/prompt` request. */
  meta?: Record<string, unknown>;
}

/** The session fields an agent may answer new/load/resume with, kept as received. */
export type SessionState = Record<string, unknown> & {
  modes?: { currentModeId: string; availableModes: { id: string }[] } | null;
  configOptions?: { id: string }[] | null;
};

export class AgentSession {
  private activeRun: PromptRun | undefined;
  /** Runs started or queued and not yet settled. */
  private pendingRuns = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(event: RunEvent) => void>();
  private readonly permissionAborts = new Set<AbortController>();

  constructor(
    readonly connection: ConnectionCore,
    readonly id: string,
    public state: SessionState,
  ) {}

  get busy(): boolean {
    return this.pendingRuns > 0;
  }

  /** Receives events that arrive outside a turn (load replay, late command lists). */
  onEvent(listener: (event: RunEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: RunEvent): void {
    if (this.activeRun) this.activeRun.push(event);
    else for (const listener of this.listeners) listener(event);
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

  // Starts a turn. Throws PROMPT_IN_FLIGHT when one is running, unless `queue` is set.
  prompt(input: PromptInput, options: PromptOptions = {}): PromptRun {
    if (this.pendingRuns > 0 && !options.queue) {
      throw new HubError(
        "PROMPT_IN_FLIGHT",
        `session ${this.id} already has a prompt running`,
      );
    }
    const core = this.connection;
    const run = new PromptRun(
      {
        agentName: core.launch.name,
        cancelGraceMs: core.limits.cancelGraceMs,
        requestCancel: () => this.requestCancel(),
        onUnresponsive: (error) => core.fail(error),
        onSettle: () => (this.pendingRuns -= 1),
      },
      core.limits.maxQueuedEvents,
    );
    this.pendingRuns += 1;
    if (options.signal?.aborted) run.cancel();
    options.signal?.addEventListener("abort", () => run.cancel(), {
      once: true,
    });
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
      const response = await this.connection.call<PromptResponse>(
        methods.agent.session.prompt,
        params,
      );
      run.finish(toResult(response));
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
      this.connection.host?.onTurnEnd?.(this.id);
    }
  }

  private requestCancel(): void {
    this.connection.notify(methods.agent.session.cancel, {
      sessionId: this.id,
    });
    for (const controller of this.permissionAborts) controller.abort();
  }

  /** Cancels the running turn, if any. */
  cancel(): void {
    this.activeRun?.cancel();
  }

  // Answers `session/request_permission` through the host, or refuses deterministically.
  async decidePermission(
    request: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    const controller = new AbortController();
    const abort = AbortSignal.any([signal, controller.signal]);
    this.permissionAborts.add(controller);
    let answer: PermissionAnswer;
    let decidedBy: "host" | "default" | "cancelled" = "host";
    try {
      if (this.activeRun?.cancelled) throw new Error("turn cancelled");
      const ask = this.connection.host?.requestPermission;
      if (ask)
        answer = await raceSignal(ask(request, this.hostContext(abort)), abort);
      else {
        decidedBy = "default";
        const reason = "no approver is configured; refused by default";
        answer = { outcome: outcomeFor("reject", request.options), reason };
      }
    } catch (error) {
      decidedBy = "cancelled";
      answer = {
        outcome: { outcome: "cancelled" },
        reason: abort.aborted ? "turn cancelled" : errorMessage(error),
      };
    } finally {
      this.permissionAborts.delete(controller);
    }
    this.emit({
      type: "permission",
      sessionId: this.id,
      request,
      decidedBy,
      ...answer,
    });
    return { outcome: answer.outcome };
  }

  // Serves an `fs/*` or `terminal/*` request through the host and records it as an event.
  async bridge(
    method: BridgeMethod,
    params: Record<string, unknown>,
    handler: BridgeHandler,
    signal: AbortSignal,
  ): Promise<unknown> {
    const base = {
      type: "client_request" as const,
      sessionId: this.id,
      method,
      params,
    };
    try {
      const result = await handler(params as never, this.hostContext(signal));
      this.emit({ ...base, ok: true });
      return result ?? {};
    } catch (error) {
      const wire =
        error instanceof RequestError
          ? error
          : RequestError.internalError(undefined, errorMessage(error));
      this.emit({
        ...base,
        ok: false,
        error: { code: wire.code, message: wire.message },
      });
      throw wire;
    }
  }

  private hostContext(signal: AbortSignal): HostContext {
    return { sessionId: this.id, signal, emit: (event) => this.emit(event) };
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

  async setMode(modeId: string): Promise<void> {
    if (!this.state.modes)
      throw unsupported(
        this.connection.launch.name,
        "session/set_mode",
        "modes",
      );
    await this.connection.call(methods.agent.session.setMode, {
      sessionId: this.id,
      modeId,
    });
    this.state.modes = { ...this.state.modes, currentModeId: modeId };
  }

  async setConfigOption(configId: string, value: string): Promise<void> {
    if (!this.state.configOptions) {
      throw unsupported(
        this.connection.launch.name,
        "session/set_config_option",
        "configOptions",
      );
    }
    const params = { sessionId: this.id, configId, value };
    const response = await this.connection.call<{
      configOptions?: { id: string }[];
    }>(methods.agent.session.setConfigOption, params);
    if (response.configOptions)
      this.state.configOptions = response.configOptions;
  }
}
