// The transport half of an agent connection: its process, the ACP wire, and failure. Every
// call races the agent's death, so nothing waits on a dead process.
import {
  RequestError,
  type ClientConnection,
  type InitializeResponse,
} from "@agentclientprotocol/sdk";
import { frameLogger } from "../protocol/frame-log.js";
import { ndjsonStream } from "../protocol/ndjson.js";
import { deferred } from "../shared/abort.js";
import { HubError, isHubError } from "../shared/errors.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import { fromAgentError } from "./agent-errors.js";
import { AgentProcess, exitError } from "./agent-process.js";
import { buildClientApp } from "./client-app.js";
import type { ClientHost } from "../contracts/client-host.js";
import { resolveLimits, type ConnectionLimits } from "./limits.js";
import { forgetAgent, recordAgent } from "./orphans.js";
import type { AgentLaunch } from "./registry.js";
import { SessionRouter } from "./session-router.js";

export interface ConnectOptions extends Partial<ConnectionLimits> {
  launch: AgentLaunch;
  /** Working directory of the agent process (default: this process's). */
  cwd?: string;
  logger?: Logger;
  host?: ClientHost;
  /** When set, the agent's pid is recorded there so orphans can be reaped after a crash. */
  stateDir?: string;
  signal?: AbortSignal;
  /** An agent process spawned early (to overlap its start-up with acphub's); else one is spawned. */
  process?: AgentProcess;
}

const MAX_NOISE_LINES = 100;

export class ConnectionCore {
  readonly launch: AgentLaunch;
  readonly process: AgentProcess;
  readonly limits: ConnectionLimits;
  readonly host: ClientHost | undefined;
  readonly logger: Logger;
  readonly closed: Promise<void>;
  initializeResponse: InitializeResponse | undefined;
  protected readonly router: SessionRouter;
  private readonly sdk: ClientConnection;
  private readonly death = deferred<never>();
  private failure: HubError | undefined;
  private noiseLines = 0;
  private firstNoise: string | undefined;
  private closing = false;

  constructor(options: ConnectOptions) {
    this.launch = options.launch;
    this.limits = resolveLimits(options);
    this.host = options.host;
    this.logger = (options.logger ?? silentLogger()).child({
      agent: options.launch.name,
    });
    this.router = new SessionRouter(options.host, this.logger);
    this.death.promise.catch(() => undefined);
    this.process =
      options.process ??
      new AgentProcess(options.launch, {
        cwd: options.cwd,
        stderrTailBytes: this.limits.stderrTailBytes,
      });
    this.process.useLogger(this.logger);
    const { stdout, stdin } = this.process.child;
    const stream = ndjsonStream(stdout, stdin, {
      maxLineBytes: this.limits.maxMessageBytes,
      onNoise: (line) => this.onNoise(line),
      onError: (error) => this.fail(this.protocolError(error)),
      intercept: (message) => this.router.intercept(message),
      onFrame: frameLogger(this.logger, "agent"),
    });
    this.sdk = buildClientApp(this.router, "acphub").connect(stream);
    const { stateDir } = options;
    const pid = this.process.pid;
    if (stateDir && pid !== undefined)
      recordAgent(stateDir, pid, this.launch.name);
    this.closed = this.process.exited.then((info) => {
      if (stateDir && pid !== undefined) forgetAgent(stateDir, pid);
      const when = this.initializeResponse ? "" : "before initialize completed";
      this.fail(exitError(this.process, info, when));
      this.sdk.close();
    });
  }

  get sessions() {
    return this.router.sessions;
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
    for (const session of this.sessions.values()) {
      session.connectionFailed(error);
      this.host?.onSessionEnd?.(session.id);
    }
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

  // Sends a request, mapping agent errors to HubError and failing fast if the agent dies.
  async call<T>(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    if (this.failure) throw this.failure;
    const options = { cancellationSignal: signal };
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
      await Promise.race([
        this.closed,
        new Promise((r) => setTimeout(r, 500).unref()),
      ]);
      throw (
        this.failure ??
        new HubError("CLOSED", `connection to "${this.launch.name}" closed`)
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
