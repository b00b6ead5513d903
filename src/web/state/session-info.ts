// What the page knows of a session besides its transcript: what session/list and the hub's
// change notifications say (title, folder, agent, age, state), for the sidebar and the header.
import type { Params } from "../acp/hub-client.js";
import { ownMetaOf } from "../../shared/hub-extension.js";

/** What the sidebar and the header know of a session (session/list, change notifications). */
export interface SessionInfo {
  sessionId: string;
  title?: string;
  cwd?: string;
  agent?: string;
  updatedAt?: string;
  state: SessionState;
  /** The client holding the session's open permission question, when it said its name. */
  askedOf?: string;
}

export type SessionState = "running" | "waiting" | "failed" | "idle";

// A session/list entry as the sidebar shows it (the hub adds agent and state in _meta.acphub).
export function infoOf(s: Params): SessionInfo {
  const acphub = ownMetaOf(s["_meta"]);
  const state = acphub["state"] as SessionState | undefined;
  return {
    sessionId: String(s["sessionId"]),
    title: (s["title"] as string | null | undefined) ?? undefined,
    cwd: s["cwd"] as string | undefined,
    agent: acphub["agent"] as string | undefined,
    updatedAt: s["updatedAt"] as string | undefined,
    state: state ?? (acphub["running"] === true ? "running" : "idle"),
    askedOf: acphub["askedOf"] as string | undefined,
  };
}

/** True for the hub's "no such session" error (JSON-RPC -32002). */
export function isNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === -32002;
}

/** A session's info after an `_acphub/sessions/changed` notification about it. */
export function changedInfo(
  infos: Map<string, SessionInfo>,
  params: Params,
): SessionInfo {
  const id = String(params["sessionId"]);
  const known = infos.get(id) ?? { sessionId: id, state: "idle" as const };
  const title = params["title"];
  return {
    ...known,
    state: (params["state"] as SessionState | undefined) ?? known.state,
    askedOf: params["askedOf"] as string | undefined,
    ...(typeof title === "string" && title ? { title } : {}),
  };
}
