// The transport half of an agent connection: its process, the ACP wire, what it advertised,
// and routing of the agent's messages to sessions. Every call races the agent's death, so nothing waits on a dead process.
import {
  RequestError,
  type AnyMessage,
  type ClientConnection,
  type InitializeResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import {
  isExtensionMethod,
  methods,
  PROTOCOL_VERSION,
} from "../protocol/methods.js";
import { ndjsonStream } from "../protocol/ndjson.js";
import { checkAgentProtocolVersion } from "../protocol/version.js";
import { deferred } from "../shared/abort.js";
import { HubError, isHubError } from "../shared/errors.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import { ACPHUB_VERSION } from "../shared/version.js";
import { AgentProcess, exitError } from "./agent-process.js";
import { buildClientApp, type ClientRouter } from "./client-app.js";
import { fromAgentError } from "./agent-errors.js";
import {
  hostCapabilities,
  type BridgeMethod,
  type ClientHost,
} from "./host.js";
import { forgetAgent, recordAgent } from "./orphans.js";
import type { AgentLaunch } from "./registry.js";
import { resolveLimits, type ConnectionLimits } from "./limits.js";
import type { AgentSession } from "./session.js";

export interface ConnectOptions extends Partial<ConnectionLimits> {
  launch: AgentLaunch;
  /** Working directory of the agent process (default: this process's). */
  cwd?: string;
  logger?: Logger;
  host?: ClientHost;
  /** When set, the agent's pid is recorded there so orphans can be reaped after a crash. */
  stateDir?: string;
  signal?: AbortSignal;
}

const MAX_NOISE_LINES = 100;

export class ConnectionCore implements ClientRouter {
  readonly launch: AgentLaunch;
  readonly process: AgentProcess;
  readonly limits: ConnectionLimits;
  readonly host: ClientHost | undefined;
  readonly logger: Logger;
  readonly closed: Promise<void>;
  initializeResponse: InitializeResponse | undefined;
  private readonly sdk: ClientConnection;
  private readonly death = deferred<never>();
  private failure: HubError | undefined;
  private noiseLines = 0;
  private firstNoise: string | undefined;
  private closing = false;
  readonly sessions = new Map<string, AgentSession>();

  constructor(options: ConnectOptions) {
    this.launch = options.launch;
    this.limits = resolveLimits(options);
    this.host = options.host;
    this.logger = (options.logger ?? silentLogger()).child({
      agent: options.launch.name,
    });
    this.death.promise.catch(() => undefined);
    this.process = new AgentProcess(options.launch, {
      cwd: options.cwd,
      logger: this.logger,
      stderrTailBytes: this.limits.stderrTailBytes,
    });
    const stream = ndjsonStream(
      this.process.child.stdout,
      this.process.child.stdin,
      {
        maxLineBytes: this.limits.maxMessageBytes,
        onNoise: (line) => this.onNoise(line),
        onError: (error) => this.fail(this.protocolError(error)),
        intercept: (message) => this.interceptNotification(message),
      },
    );
    this.sdk = buildClientApp(this, "acphub").connect(stream);
    const pid = this.process.pid;
    if (options.stateDir && pid !== undefined)
      recordAgent(options.stateDir, pid, this.launch.name);
    this.closed = this.process.exited.then((info) => {
      if (options.stateDir && pid !== undefined)
        forgetAgent(options.stateDir, pid);
      const error = this.closing
        ? new HubError("CLOSED", `agent "${this.launch.name}" was closed`)
        : exitError(
            this.process,
            info,
            this.initializeResponse ? "" : "before initialize completed",
          );
      this.fail(error);
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

  // Marks the connection failed (first reason wins), fails everything waiting, kills the agent.
  fail(error: HubError): void {
    if (this.failure) return;
    this.failure = error;
    this.death.reject(error);
    for (const session of this.sessions.values())
      session.connectionFailed(error);
    this.process.kill("SIGKILL");
  }

  private protocolError(error: unknown): HubError {
    if (isHubError(error, "LIMIT_EXCEEDED")) {
      return new HubError(
        "AGENT_PROTOCOL",
        `agent "${this.launch.name}" sent ${error.message}`,
        {
          cause: error,
        },
      );
    }
    return new HubError(
      "AGENT_PROTOCOL",
      `agent "${this.launch.name}" stdout failed`,
      {
        cause: error,
      },
    );
  }

  private onNoise(line: string): void {
    this.noiseLines += 1;
    this.firstNoise ??= line.slice(0, 200);
    this.logger.warn(
      { line: line.slice(0, 200) },
      "agent wrote non-JSON to stdout; ignored",
    );
    if (this.noiseLines > MAX_NOISE_LINES) {
      this.fail(
        new HubError(
          "AGENT_PROTOCOL",
          `agent "${this.launch.name}" wrote ${this.noiseLines} non-JSON lines to stdout ` +
            `(first: ${JSON.stringify(this.firstNoise)}); stdout must carry only ACP messages`,
        ),
      );
    }
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
    const request = this.sdk.agent.request<T>(method, params, {
      cancellationSignal: signal,
    });
    try {
      return await Promise.race([request, this.death.promise]);
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

  // Sends `initialize` with a timeout and checks the protocol version.
  async initialize(signal?: AbortSignal): Promise<InitializeResponse> {
    const timeout = AbortSignal.timeout(this.limits.initializeTimeoutMs);
    const onTimeout = () => {
      const ms = this.limits.initializeTimeoutMs;
      this.fail(
        new HubError(
          "INIT_TIMEOUT",
          `agent "${this.launch.name}" did not answer initialize within ${ms} ms${this.noiseHint()}`,
          {
            retryable: true,
            details: { stderrTail: this.process.stderrTail() },
          },
        ),
      );
    };
    timeout.addEventListener("abort", onTimeout, { once: true });
    const onAbort = () =>
      this.fail(new HubError("CLOSED", "connecting was aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await this.call<InitializeResponse>(
        methods.agent.initialize,
        {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: hostCapabilities(this.host),
          clientInfo: {
            name: "acphub",
            title: "acphub",
            version: ACPHUB_VERSION,
          },
        },
      );
      const version = checkAgentProtocolVersion(response.protocolVersion);
      if (!version.ok) {
        const error = new HubError("PROTOCOL_VERSION", version.reason);
        this.fail(error);
        throw error;
      }
      this.initializeResponse = response;
      return response;
    } finally {
      timeout.removeEventListener("abort", onTimeout);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  // ---- messages from the agent ----

  // session/update and extension notifications are taken off the raw stream: the SDK's own
  // router validates updates and drops variants it does not know (a gateway must pass those
  // through unchanged), and reading them here keeps them in wire order with the responses.
  private interceptNotification(message: AnyMessage): boolean {
    if (!("method" in message) || "id" in message) return false;
    if (isExtensionMethod(message.method)) {
      this.onExtNotification(message.method, message.params);
      return true;
    }
    if (message.method !== methods.client.session.update) return false;
    const params = message.params as Partial<SessionNotification> | undefined;
    if (
      typeof params?.sessionId === "string" &&
      params.update &&
      typeof params.update === "object"
    ) {
      this.onUpdate(params as SessionNotification);
    } else {
      this.logger.warn(
        { params },
        "malformed session/update from agent; dropped",
      );
    }
    return true;
  }

  onUpdate(notification: SessionNotification): void {
    const session = this.sessions.get(notification.sessionId);
    if (session) session.receiveUpdate(notification);
    else
      this.logger.debug(
        { sessionId: notification.sessionId },
        "update for unknown session",
      );
  }

  onPermission(
    request: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    const session = this.sessions.get(request.sessionId);
    if (!session) return Promise.resolve({ outcome: { outcome: "cancelled" } });
    return session.decidePermission(request, signal);
  }

  onBridge(
    method: BridgeMethod,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ) {
    const handler = this.host?.bridge?.[method];
    const session = this.sessions.get(String(params["sessionId"]));
    if (!handler || !session) throw RequestError.methodNotFound(method);
    return session.bridge(method, params, handler, signal);
  }

  async onExtRequest(
    method: string,
    params: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    const handler = this.host?.extensions?.[method];
    if (!handler) throw RequestError.methodNotFound(method);
    const sessionId = sessionIdOf(params);
    return handler(params, {
      sessionId,
      signal,
      emit: (e) => this.sessions.get(sessionId)?.emit(e),
    });
  }

  onExtNotification(method: string, params: unknown): void {
    const sessionId = sessionIdOf(params);
    const session = this.sessions.get(sessionId);
    if (session)
      session.emit({
        type: "extension_notification",
        sessionId,
        method,
        params,
      });
    else
      this.logger.debug({ method }, "extension notification outside a session");
  }

  /** Shuts the agent down: running turns fail with CLOSED, then stdin end → TERM → KILL. */
  async close(): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      if (!this.failure) {
        const error = new HubError(
          "CLOSED",
          `agent "${this.launch.name}" was closed`,
        );
        this.failure = error;
        this.death.reject(error);
        for (const session of this.sessions.values())
          session.connectionFailed(error);
      }
      await this.process.shutdown(this.limits.shutdownMs);
    }
    await this.closed;
  }
}

function sessionIdOf(params: unknown): string {
  const value = (params as { sessionId?: unknown } | null)?.sessionId;
  return typeof value === "string" ? value : "";
}
