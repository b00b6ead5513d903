// What the hub reads from `_meta.acphub` of a client's request, and the ledger as each of the
// hub's gateways sees it.
import type { LedgerPort } from "../engine/ports.js";

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

// The ledger as each gateway sees it: the hub closes it once, after every gateway.
export function unclosable(ledger: LedgerPort): LedgerPort {
  return new Proxy(ledger, {
    get(target, key, receiver) {
      if (key === "close") return () => undefined;
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === "function"
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}
