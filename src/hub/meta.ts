// What the hub reads from `_meta.acphub` of a client's request.

// `_meta.acphub.afterSeq` on session/resume: send what came after it first (a reconnect).
export function afterSeqOf(meta: unknown): number | undefined {
  const after = (meta as { acphub?: { afterSeq?: unknown } } | undefined)
    ?.acphub?.afterSeq;
  return typeof after === "number" && after >= 0 ? after : undefined;
}

export function agentOf(meta: unknown): string | undefined {
  const name = (meta as { acphub?: { agent?: unknown } } | undefined)?.acphub
    ?.agent;
  return typeof name === "string" && name !== "" ? name : undefined;
}
