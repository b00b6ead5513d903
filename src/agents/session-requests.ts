// What an agent asks acphub about one of its sessions: a permission decided by the host (or
// refused by default), and fs/terminal requests served by the host; each becomes a run event.
import { addAbortListener } from "node:events";
import {
  RequestError,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
} from "@agentclientprotocol/sdk";
import type {
  BridgeHandler,
  BridgeMethod,
  ClientHost,
  HostContext,
  PermissionAnswer,
} from "../contracts/client-host.js";
import type { PermissionDecider, RunEvent } from "../contracts/events.js";
import { outcomeFor } from "../protocol/permission-options.js";
import type { Params } from "../protocol/raw.js";
import { errorMessage } from "../shared/errors.js";

/** The session as its request handlers see it. */
export interface RequestScope {
  sessionId: string;
  host: ClientHost | undefined;
  emit(event: RunEvent): void;
  /** Whether the session's running turn was cancelled. */
  turnCancelled(): boolean;
  /** Aborted when the turn is cancelled or the connection fails. */
  aborts: Set<AbortController>;
}

function hostContext(scope: RequestScope, signal: AbortSignal): HostContext {
  return { sessionId: scope.sessionId, signal, emit: scope.emit };
}

// The host's answer, or the signal's reason when it aborts first (the listener is removed).
function askHost(
  scope: RequestScope,
  ask: NonNullable<ClientHost["requestPermission"]>,
  request: RequestPermissionRequest,
  signal: AbortSignal,
): Promise<PermissionAnswer> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<PermissionAnswer>((resolve, reject) => {
    const listener = addAbortListener(signal, () => reject(signal.reason));
    ask(request, hostContext(scope, signal))
      .then(resolve, reject)
      .finally(() => listener[Symbol.dispose]());
  });
}

// Answers `session/request_permission` through the host, or refuses deterministically.
export async function decidePermission(
  scope: RequestScope,
  request: RequestPermissionRequest,
  signal: AbortSignal,
): Promise<RequestPermissionResponse> {
  const controller = new AbortController();
  const abort = AbortSignal.any([signal, controller.signal]);
  scope.aborts.add(controller);
  let answer: PermissionAnswer;
  let decidedBy: PermissionDecider = "host";
  const askedAt = Date.now();
  try {
    if (scope.turnCancelled()) throw new Error("turn cancelled");
    const ask = scope.host?.requestPermission;
    if (ask) answer = await askHost(scope, ask, request, abort);
    else {
      decidedBy = "default";
      const reason = "no approver is configured; refused by default";
      answer = {
        outcome: outcomeFor("reject", request.options),
        reason,
        byPolicy: true,
      };
    }
  } catch (error) {
    decidedBy = "cancelled";
    answer = {
      outcome: { outcome: "cancelled" },
      reason: abort.aborted ? "turn cancelled" : errorMessage(error),
    };
  } finally {
    scope.aborts.delete(controller);
  }
  const { sessionId } = scope;
  const { byPolicy, ...said } = answer;
  scope.emit({
    type: "permission",
    sessionId,
    request,
    decidedBy,
    askedAt,
    ...said,
  });
  return byPolicy ? policyAnswer(answer) : { outcome: answer.outcome };
}

// An answer acphub's policy gave, marked as such (`_meta.acphub.decidedBy`): a hub this process
// answers for (`run --hub`) records it as the policy's, not as its user's own choice.
function policyAnswer(answer: PermissionAnswer): RequestPermissionResponse {
  return {
    outcome: answer.outcome,
    _meta: {
      acphub: {
        decidedBy: "policy",
        ...(answer.reason ? { reason: answer.reason } : {}),
      },
    },
  };
}

// Serves an `fs/*` or `terminal/*` request through the host and records it as an event.
export async function bridgeRequest(
  scope: RequestScope,
  method: BridgeMethod,
  params: Params,
  handler: BridgeHandler,
  signal: AbortSignal,
): Promise<unknown> {
  const base = {
    type: "client_request" as const,
    sessionId: scope.sessionId,
    method,
    params,
    startedAt: Date.now(),
  };
  try {
    const result = await handler(params, hostContext(scope, signal));
    scope.emit({ ...base, ok: true, ...terminalResult(method, result) });
    return result ?? {};
  } catch (error) {
    const wire =
      error instanceof RequestError
        ? error
        : RequestError.internalError(undefined, errorMessage(error));
    scope.emit({
      ...base,
      ok: false,
      error: { code: wire.code, message: wire.message },
    });
    throw wire;
  }
}

// The part of a terminal answer a trace shows (its id, its exit status); nothing else is kept.
function terminalResult(
  method: string,
  result: unknown,
): { result?: Record<string, unknown> } {
  if (method !== "terminal/create" && method !== "terminal/wait_for_exit")
    return {};
  if (!result || typeof result !== "object") return {};
  const { terminalId, exitCode, signal } = result as Record<string, unknown>;
  return { result: { terminalId, exitCode, signal } };
}
