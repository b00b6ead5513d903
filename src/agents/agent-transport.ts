// The transport of an agent connection: its process, the ACP wire, and failure. Every call
// races the agent's death, so nothing waits on a dead process. It knows nothing of sessions:
// what the agent sends goes to the router it is given, and failure to `onFail`.
import {
  RequestError,
  type AnyMessage,
  type ClientConnection,
  type InitializeResponse,
} from "@agentclientprotocol/sdk";
import { setTimeout as delay } from "node:timers/promises";
import { frameLogger } from "../protocol/frame-log.js";
import { ndjsonStream } from "../protocol/ndjson.js";
import { deferred } from "../shared/abort.js";
import { HubError, isHubError } from "../shared/errors.js";
import type { Logger } from "../shared/logger.js";
import { fromAgentError } from "./agent-errors.js";
import { AgentProcess, exitError } from "./agent-process.js";
import { AnswerWatch } from "./answer-watch.js";
import { buildClientApp, type ClientRouter } from "./client-app.js";
import type { ConnectionLimits } from "./limits.js";
import { forgetAgent, recordAgent } from "./orphans.js";
import type { AgentLaunch } from "./registry.js";

export interface TransportOptions {
  launch: AgentLaunch;
  limits: ConnectionLimits;
  logger: Logger;
  /** Where requests from the agent go; `intercept` takes notifications off the raw stream. */
  router: ClientRouter & { intercept(message: AnyMessage): boolean };
  /** Called once, when the connection stops working, before the agent is killed. */
  onFail: (error: HubError) => void;
  /** Working directory of the agent process (default: this process's). */
  cwd?: string;
  /** When set, the agent's pid is recorded there so orphans can be reaped after a crash. */
  stateDir?: string;
  /** An agent process spawned early; else one is spawned. */
  process?: AgentProcess;
}

const MAX_NOISE_LINES = 100;

export class AgentTransport {
  readonly launch: AgentLaunch;
  readonly process: AgentProcess;
  readonly limits: ConnectionLimits;
  readonly logger: Logger;
  readonly closed: Promise<void>;
  /** Set by the handshake; an exit before it is reported as such. */
  initializeResponse: InitializeResponse | undefined;
  /** Callbacks for answers read off the wire (before the SDK resolves them). */
  readonly answers = new AnswerWatch();
  private readonly onFail: (error: HubError) => void;
  private readonly sdk: ClientConnection;
  private readonly death = deferred<never>();
  private failure: HubError | undefined;
  private noiseLines = 0;
  private firstNoise: string | undefined;
  private closing = false;

  constructor(options: TransportOptions) {
    this.launch = options.launch;
    this.limits = options.limits;
    this.logger = options.logger;
    this.onFail = options.onFail;
    this.death.promise.catch(() => undefined);
    this.process =
      options.process ??
      new AgentProcess(options.launch, {
        cwd: options.cwd,
        stderrTailBytes: this.limits.stderrTailBytes,
      });
    this.process.useLogger(this.logger);
    const { stdout, stdin } = this.process.child;
    const logFrame = frameLogger(this.logger, "agent");
    const stream = ndjsonStream(stdout, stdin, {
      maxLineBytes: this.limits.maxMessageBytes,
      onNoise: (line) => this.onNoise(line),
      onError: (error) => this.fail(this.protocolError(error)),
      intercept: (message) => this.intercept(options.router, message),
      onFrame: (direction, message) => {
        logFrame?.(direction, message);
        if (direction === "out") this.answers.sent(message);
      },
    });
    this.sdk = buildClientApp(options.router, "acphub").connect(stream);
    const { stateDir } = options;
    const pid = this.process.pid;
    if (stateDir && pid !== undefined)
      recordAgent(stateDir, pid, this.launch.name, this.launch.leftovers);
    this.closed = this.process.exited.then((info) => {
      if (stateDir && pid !== undefined) forgetAgent(stateDir, pid);
      const when = this.initializeResponse ? "" : "before initialize completed";
      this.fail(exitError(this.process, info, when));
      this.sdk.close();
    });
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  /** The reason this connection stopped working, once it has. */
  get error(): HubError | undefined {
    return this.failure;
  }

  get alive(): boolean {
    return this.failure === undefined;
  }

  // Marks the connection failed (first reason wins), fails everything waiting on it, and
  // kills the agent unless a graceful shutdown is under way.
  fail(error: HubError): void {
    if (this.failure) return;
    this.failure = error;
    this.death.reject(error);
    this.onFail(error);
    if (!this.closing) this.process.kill("SIGKILL");
  }

  private protocolError(error: unknown): HubError {
    const what = isHubError(error, "LIMIT_EXCEEDED")
      ? `sent ${error.message}`
      : "stdout failed";
    return new HubError(
      "AGENT_PROTOCOL",
      `agent "${this.launch.name}" ${what}`,
      { cause: error },
    );
  }

  // Routes a notification off the raw stream; a consumer's bug is logged and the message
  // consumed, never a failure of the agent's stdout.
  private intercept(router: TransportOptions["router"], message: AnyMessage) {
    try {
      this.answers.read(message);
      return router.intercept(message);
    } catch (error) {
      this.logger.error(
        { err: error, method: (message as { method?: unknown }).method },
        "handling a message from the agent threw; the message was dropped",
      );
      return true;
    }
  }

  private onNoise(line: string): void {
    this.noiseLines += 1;
    this.firstNoise ??= line.slice(0, 200);
    this.logger.warn(
      { line: line.slice(0, 200) },
      "agent wrote non-JSON to stdout; ignored",
    );
    if (this.noiseLines <= MAX_NOISE_LINES) return;
    const first = JSON.stringify(this.firstNoise);
    this.fail(
      new HubError(
        "AGENT_PROTOCOL",
        `agent "${this.launch.name}" wrote ${this.noiseLines} non-JSON lines to stdout ` +
          `(first: ${first}); stdout must carry only ACP messages`,
      ),
    );
  }

  /** A hint for error messages when the agent printed non-protocol output. */
  noiseHint(): string {
    return this.firstNoise
      ? `; it wrote non-JSON to stdout: ${JSON.stringify(this.firstNoise)}`
      : "";
  }

  // Sends a request, mapping agent errors to HubError and failing fast if the agent dies; an
  // aborted signal stops the wait at once (the agent is sent $/cancel_request).
  async call<T>(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    if (this.failure) throw this.failure;
    const options = { cancellationSignal: signal, stopWaitingOnCancel: true };
    try {
      return await Promise.race([
        this.sdk.agent.request<T>(method, params, options),
        this.death.promise,
      ]);
    } catch (error) {
      if (error instanceof RequestError)
        throw fromAgentError(this.launch.name, method, error);
      if (this.failure) throw this.failure;
      // The stream closed before the exit was seen: give the exit a moment to explain it.
      await Promise.race([this.closed, delay(500, undefined, { ref: false })]);
      throw (
        this.failure ??
        new HubError("CLOSED", `connection to "${this.launch.name}" closed`)
      );
    }
  }

  // A request that must not block forever: it ends at the caller's signal, or with TIMEOUT
  // after requestTimeoutMs. Every request but session/prompt goes through here.
  async callWithin<T>(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    const ms = this.limits.requestTimeoutMs;
    const timeout = AbortSignal.timeout(ms);
    const either = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      return await this.call<T>(method, params, either);
    } catch (error) {
      if (!timeout.aborted || signal?.aborted) throw error;
      throw new HubError(
        "TIMEOUT",
        `agent "${this.launch.name}" did not answer ${method} within ${ms} ms (timeouts.requestMs)`,
        { retryable: true, details: { method, timeoutMs: ms } },
      );
    }
  }

  notify(method: string, params: unknown): void {
    if (this.failure) return;
    this.sdk.agent.notify(method, params).catch((error: unknown) => {
      this.logger.debug({ err: error, method }, "notification not sent");
    });
  }

  /** Shuts the agent down: running turns fail with CLOSED, then stdin end → TERM → KILL. */
  async close(): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      this.fail(
        new HubError("CLOSED", `agent "${this.launch.name}" was closed`),
      );
      await this.process.shutdown(this.limits.shutdownMs);
    }
    await this.closed;
  }
}
