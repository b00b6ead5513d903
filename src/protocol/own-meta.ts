// acphub's own `_meta` namespace (`_meta.acphub`: a prompt's author, a notice, the hub's seq,
// a replayed answer, …) is acphub's word about a message. An agent must not be able to speak it
// (issue 34: an agent_message_chunk with `_meta.acphub.author` showed as another user's words),
// so it is removed from what agents send before anything stores or relays it; every other
// `_meta` key passes through unchanged.

import { OWN_META_KEY } from "../shared/hub-extension.js";

type Params = Record<string, unknown>;

// A `_meta` without acphub's key (the same object when it has none; absent when nothing else).
function withoutOwnKey(meta: unknown): unknown {
  if (meta === null || typeof meta !== "object" || !(OWN_META_KEY in meta))
    return meta;
  const { [OWN_META_KEY]: _own, ...rest } = meta as Params;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

// An object with its `_meta.acphub` removed (the same object when there is none).
export function withoutOwnMeta<T>(value: T): T {
  if (value === null || typeof value !== "object" || !("_meta" in value))
    return value;
  const { _meta, ...rest } = value as Params;
  const kept = withoutOwnKey(_meta);
  if (kept === _meta) return value;
  return (kept === undefined ? rest : { ...rest, _meta: kept }) as T;
}

// A session/update's params from an agent without acphub's `_meta` key, on the notification
// and on its update.
export function agentUpdateParams<T extends { update?: unknown }>(
  params: T,
): T {
  const outer = withoutOwnMeta(params);
  const update = withoutOwnMeta(outer.update);
  return update === outer.update ? outer : { ...outer, update };
}
