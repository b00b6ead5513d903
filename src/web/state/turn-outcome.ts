// How a turn whose runner died mid-turn (a cluster node killed, the hub restarted) reaches the
// page: its end says so (`_acphub/session/state`'s `interrupted`, a re-sent prompt's answer's
// `_meta.acphub.interrupted`), and the page says "interrupted: outcome unknown", not "stopped".
import { ownMetaOf } from "../../shared/hub-extension.js";

type Params = Record<string, unknown>;

/** A turn cut off by its runner's death; `node` ran it, when known. */
export interface Interrupted {
  node?: string;
}

// A prompt's answer from the record of a turn whose runner died, if it is one.
export function cutOff(result: Params): Interrupted | undefined {
  const own = ownMetaOf(result["_meta"]);
  return own.interrupted === true ? nodeOf(own.ranOn) : undefined;
}

// How a turn ended, as `_acphub/session/state` tells it.
export function endOf(params: Params): {
  stopReason: string;
  interrupted?: Interrupted;
} {
  const stopReason = params["stopReason"] as string;
  if (!params["interrupted"]) return { stopReason };
  return { stopReason, interrupted: nodeOf(params["node"]) };
}

// The node named, when there is one.
export function nodeOf(node: unknown): Interrupted {
  return typeof node === "string" && node ? { node } : {};
}
