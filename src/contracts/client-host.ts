// What the client core (agents/) asks of whoever answers an agent's requests (host/). Each
// handler present is advertised to the agent as a capability; absent ones are refused.
import type {
  RequestPermissionOutcome,
  RequestPermissionRequest,
} from "@agentclientprotocol/sdk";
import { methods } from "../protocol/methods.js";
import type { Params } from "../protocol/raw.js";
import type { RawSessionUpdate, RunEvent } from "./events.js";

export interface HostContext {
  sessionId: string;
  /** Aborted when the turn is cancelled or the connection closes. */
  signal: AbortSignal;
  /** Adds an event (an audit record, say) to the running prompt's stream. */
  emit: (event: RunEvent) => void;
}

export interface SessionFolders {
  cwd: string;
  additionalDirectories?: string[];
}

export interface PermissionAnswer {
  outcome: RequestPermissionOutcome;
  reason?: string;
  /** Decided by acphub's policy (a mode, a rule, a remembered decision), not by a person. */
  byPolicy?: boolean;
}

export const BRIDGE_METHODS = [
  methods.client.fs.readTextFile,
  methods.client.fs.writeTextFile,
  methods.client.terminal.create,
  methods.client.terminal.output,
  methods.client.terminal.waitForExit,
  methods.client.terminal.kill,
  methods.client.terminal.release,
] as const;

export type BridgeMethod = (typeof BRIDGE_METHODS)[number];

/** Serves one fs/terminal method; params are as the agent sent them (an object, unchecked).
 *  Declared as a method so a handler may name the request type it expects for its method. */
export type BridgeHandler = {
  serve(params: Params, ctx: HostContext): Promise<unknown>;
}["serve"];

export interface ClientHost {
  /** Decides `session/request_permission`; without it every request is refused. */
  requestPermission?: (
    request: RequestPermissionRequest,
    ctx: HostContext,
  ) => Promise<PermissionAnswer>;
  /** Serves `fs/*` and `terminal/*`; a method without a handler is not advertised. */
  bridge?: Partial<Record<BridgeMethod, BridgeHandler>>;
  /** Answers `_`-prefixed extension requests from the agent. */
  extensions?: Record<
    string,
    (params: unknown, ctx: HostContext) => Promise<unknown> | unknown
  >;
  /** Answers `_`-prefixed requests no entry in `extensions` handles (relays them, say). */
  extensionFallback?: (
    method: string,
    params: unknown,
    ctx: HostContext,
  ) => Promise<unknown>;
  /** Receives `_`-prefixed notifications that name no open session. */
  onExtNotification?: (method: string, params: unknown) => void;
  /** Client capabilities for what is relayed to the editor (elicitation), added to
   *  `initialize` toward the agent. */
  relayedCapabilities?: () => Record<string, unknown>;
  /** Called when a session opens (new, load, resume), with its working folders. */
  onSessionStart?: (sessionId: string, folders: SessionFolders) => void;
  /** Sees each session/update before it is relayed (to learn the tool calls a session announced). */
  onSessionUpdate?: (sessionId: string, update: RawSessionUpdate) => void;
  /** Called when a turn ends either way. */
  onTurnEnd?: (sessionId: string) => void;
  /** Called when the session ends or its agent dies, so the host can release what it holds. */
  onSessionEnd?: (sessionId: string) => void;
}

// The capabilities to advertise in `initialize`, from the handlers the host has.
export function hostCapabilities(host: ClientHost | undefined) {
  const has = (m: BridgeMethod) => typeof host?.bridge?.[m] === "function";
  const terminal = [
    methods.client.terminal.create,
    methods.client.terminal.output,
    methods.client.terminal.waitForExit,
    methods.client.terminal.kill,
    methods.client.terminal.release,
  ].every(has);
  return {
    fs: {
      readTextFile: has(methods.client.fs.readTextFile),
      writeTextFile: has(methods.client.fs.writeTextFile),
    },
    terminal,
  };
}
