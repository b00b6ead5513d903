// Every ACP method acphub knows, stable and unstable, and what acphub does with it: serves it
// itself, forwards it to the agent when the agent advertises it, relays it to the editor when
// the editor advertises it, or refuses it. The answer to `initialize` is derived from this
// table (see capabilities.ts), so nothing is advertised that is not served.
import type { RequestError } from "@agentclientprotocol/sdk";
import { LEGACY_METHODS, methods } from "./methods.js";
import { notServed } from "./wire-errors.js";

/** Who handles a method arriving at acphub. */
export type Handling =
  /** acphub answers (ids mapped, the ledger updated); always advertised. */
  | "served"
  /** Passed to the agent when the agent advertises `capability`; advertised only then. */
  | "forwarded"
  /** Agent → editor, passed on when the editor advertised `capability`; else refused. */
  | "relayed"
  /** Never advertised; answered with a clear error. */
  | "refused";

export interface MethodEntry {
  method: string;
  /** Who sends it to acphub. */
  from: "editor" | "agent" | "either";
  kind: "request" | "notification";
  stability: "stable" | "unstable" | "legacy";
  handling: Handling;
  /** Where the capability sits: in agentCapabilities for methods from the editor, in
   *  clientCapabilities for methods from the agent. */
  capability?: readonly string[];
  /** For people: what acphub does, or why it refuses. */
  note: string;
}

const a = methods.agent;
const c = methods.client;

// prettier-ignore
export const METHOD_TABLE: readonly MethodEntry[] = [
  { method: a.initialize, from: "editor", kind: "request", stability: "stable", handling: "served", note: "capabilities derived from this table" },
  { method: a.authenticate, from: "editor", kind: "request", stability: "stable", handling: "forwarded", note: "the agent's auth methods are offered as they are" },
  { method: a.logout, from: "editor", kind: "request", stability: "stable", handling: "forwarded", capability: ["auth", "logout"], note: "when the agent advertises auth.logout" },
  { method: a.auth.status, from: "editor", kind: "request", stability: "unstable", handling: "forwarded", capability: ["auth", "status"], note: "when the agent advertises auth.status" },
  { method: a.providers.list, from: "editor", kind: "request", stability: "unstable", handling: "forwarded", capability: ["providers"], note: "when the agent advertises providers" },
  { method: a.providers.set, from: "editor", kind: "request", stability: "unstable", handling: "forwarded", capability: ["providers"], note: "when the agent advertises providers" },
  { method: a.providers.disable, from: "editor", kind: "request", stability: "unstable", handling: "forwarded", capability: ["providers"], note: "when the agent advertises providers" },
  { method: a.session.new, from: "editor", kind: "request", stability: "stable", handling: "served", note: "recorded in the ledger; modes, models and config options kept" },
  { method: a.session.load, from: "editor", kind: "request", stability: "stable", handling: "served", capability: ["loadSession"], note: "replayed from the ledger, whatever the agent supports" },
  { method: a.session.list, from: "editor", kind: "request", stability: "stable", handling: "served", capability: ["sessionCapabilities", "list"], note: "from the ledger" },
  { method: a.session.resume, from: "editor", kind: "request", stability: "stable", handling: "served", capability: ["sessionCapabilities", "resume"], note: "restored onto the agent: resume, load or transcript priming" },
  { method: a.session.close, from: "editor", kind: "request", stability: "stable", handling: "served", capability: ["sessionCapabilities", "close"], note: "closed on the agent when it can; kept in the ledger" },
  { method: a.session.delete, from: "editor", kind: "request", stability: "stable", handling: "served", capability: ["sessionCapabilities", "delete"], note: "deleted from the ledger, and on the agent when it can" },
  { method: a.session.fork, from: "editor", kind: "request", stability: "unstable", handling: "served", capability: ["sessionCapabilities", "fork"], note: "a new session with a copy of the history; forked on the agent when it can" },
  { method: a.session.status, from: "editor", kind: "request", stability: "unstable", handling: "served", capability: ["sessionCapabilities", "status"], note: "open when live in acphub, saved when only in the ledger" },
  { method: a.session.setTitle, from: "editor", kind: "request", stability: "unstable", handling: "served", capability: ["sessionCapabilities", "title"], note: "stored in the ledger; passed to the agent when it advertises title" },
  { method: a.session.archive, from: "editor", kind: "request", stability: "unstable", handling: "refused", capability: ["sessionCapabilities", "archive"], note: "the ledger has no archive, and forwarding would not hide it: use close or delete" },
  { method: a.session.unarchive, from: "editor", kind: "request", stability: "unstable", handling: "refused", capability: ["sessionCapabilities", "archive"], note: "acphub's ledger has no archive state: no session is archived" },
  { method: a.session.setMode, from: "editor", kind: "request", stability: "stable", handling: "served", note: "passed to the agent; the current mode is kept in the ledger" },
  { method: a.session.setConfigOption, from: "editor", kind: "request", stability: "stable", handling: "served", note: "passed to the agent; the options it answers are kept in the ledger" },
  { method: LEGACY_METHODS.setModel, from: "editor", kind: "request", stability: "legacy", handling: "served", note: "passed to the agent when the session reported models; the current model is kept" },
  { method: a.session.prompt, from: "editor", kind: "request", stability: "stable", handling: "served", note: "recorded in the ledger before and while it runs" },
  { method: a.session.cancel, from: "editor", kind: "notification", stability: "stable", handling: "served", note: "cancels the running turn" },
  { method: a.mcp.message, from: "either", kind: "request", stability: "unstable", handling: "refused", capability: ["mcpCapabilities", "acp"], note: "MCP over ACP is not relayed; give the agent stdio or http MCP servers" },
  { method: "proxy/initialize", from: "editor", kind: "request", stability: "unstable", handling: "refused", note: "acphub is not a proxy in a proxy chain" },
  { method: "proxy/successor", from: "either", kind: "request", stability: "unstable", handling: "refused", note: "acphub is not a proxy in a proxy chain" },
  { method: methods.protocol.cancelRequest, from: "either", kind: "notification", stability: "stable", handling: "served", note: "cancels the matching request, and the request acphub made for it on the other side" },
  { method: c.session.update, from: "agent", kind: "notification", stability: "stable", handling: "served", note: "recorded in the ledger, then relayed unchanged (unknown variants too)" },
  { method: c.session.requestPermission, from: "agent", kind: "request", stability: "stable", handling: "served", note: "decided by acphub's policy, asking the editor when it must" },
  { method: c.fs.readTextFile, from: "agent", kind: "request", stability: "stable", handling: "served", capability: ["fs", "readTextFile"], note: "sandboxed to the session's folders, or the editor's buffer" },
  { method: c.fs.writeTextFile, from: "agent", kind: "request", stability: "stable", handling: "served", capability: ["fs", "writeTextFile"], note: "sandboxed to the session's folders, or the editor" },
  ...[c.terminal.create, c.terminal.output, c.terminal.waitForExit, c.terminal.kill, c.terminal.release].map(
    (method): MethodEntry => ({ method, from: "agent", kind: "request", stability: "stable", handling: "served", capability: ["terminal"], note: "run under acphub's command policy and sandbox, or by the editor" }),
  ),
  { method: c.elicitation.create, from: "agent", kind: "request", stability: "unstable", handling: "relayed", capability: ["elicitation"], note: "to the editor when it advertises elicitation" },
  { method: c.elicitation.complete, from: "agent", kind: "notification", stability: "unstable", handling: "relayed", capability: ["elicitation"], note: "to the editor when it advertises elicitation" },
  { method: c.auth.statusUpdate, from: "agent", kind: "notification", stability: "unstable", handling: "relayed", note: "to the editor" },
];

const BY_METHOD = new Map(METHOD_TABLE.map((e) => [e.method, e]));

/** The table entry for a method, when acphub knows it. */
export function methodEntry(method: string): MethodEntry | undefined {
  return BY_METHOD.get(method);
}

/** The entries for methods an editor sends to acphub. */
export function editorMethods(): MethodEntry[] {
  return METHOD_TABLE.filter((e) => e.from !== "agent");
}

/** The entries for methods an agent sends to acphub. */
export function agentMethods(): MethodEntry[] {
  return METHOD_TABLE.filter((e) => e.from !== "editor");
}

/** The error for a method the table refuses, or undefined when it does not refuse it. */
export function refusalOf(method: string): RequestError | undefined {
  const entry = BY_METHOD.get(method);
  return entry?.handling === "refused"
    ? notServed(method, entry.note)
    : undefined;
}

/** Whether acphub passes this agent → editor method on (relayed, or not known to acphub: a
 *  newer protocol's), rather than answering it itself. `$/` protocol methods never are. */
export function isRelayedFromAgent(method: string): boolean {
  if (method.startsWith("$/")) return false;
  const entry = BY_METHOD.get(method);
  return entry ? entry.handling === "relayed" : true;
}
