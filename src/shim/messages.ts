// What the shim reads in and adds to the messages it relays: a prompt's idempotency key, an
// update's ledger seq, an answer saying another cluster node is busy with the session.
import { randomUUID } from "node:crypto";
import { ownMetaOf, withOwnMeta } from "../shared/hub-extension.js";

type Msg = Record<string, unknown>;

// An answer saying another live node of a cluster runs the session's turn (retryable).
export function busyElsewhere(reply: Msg): boolean {
  const data = (reply["error"] as { data?: Msg } | undefined)?.data;
  return data?.["retryable"] === true && nodeOf(reply) !== undefined;
}

// The node a busy answer names.
export function nodeOf(reply: Msg): string | undefined {
  const node = (reply["error"] as { data?: Msg } | undefined)?.data?.["node"];
  return typeof node === "string" ? node : undefined;
}

// The prompt's params with an idempotency key (the editor's own, else a new one).
export function withKey(params: unknown): Msg {
  const p = (params as Msg | undefined) ?? {};
  if (typeof ownMetaOf(p["_meta"]).idempotencyKey === "string") return p;
  return {
    ...p,
    _meta: withOwnMeta(p["_meta"], { idempotencyKey: randomUUID() }),
  };
}

// The ledger seq a relayed update carries, if any.
export function seqOf(params: Msg): number | undefined {
  const seq: unknown = ownMetaOf(params["_meta"]).seq;
  return typeof seq === "number" ? seq : undefined;
}
