// What the hub reads from `_meta.acphub` of a client's request (the keys: shared/hub-extension.ts).
import { ownMetaOf } from "../shared/hub-extension.js";

// `_meta.acphub.afterSeq` on session/resume: send what came after it first (a reconnect).
export function afterSeqOf(meta: unknown): number | undefined {
  const after: unknown = ownMetaOf(meta).afterSeq;
  return typeof after === "number" && after >= 0 ? after : undefined;
}

// `_meta.acphub.agent` on session/new: the agent to start.
export function agentOf(meta: unknown): string | undefined {
  const name: unknown = ownMetaOf(meta).agent;
  return typeof name === "string" && name !== "" ? name : undefined;
}
