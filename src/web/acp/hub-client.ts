// The page's ACP connection to the hub: JSON-RPC over the browser's own WebSocket (so the
// session cookie goes along), asking for the hub's watch notifications. One connection per
// page; `reconnecting` re-dials it with capped back-off. The first one may be dialled by the
// page's first script, before the rest of the page has loaded (see early.ts).
import { RpcError, RpcSocket, type Params } from "./rpc-socket.js";

export type { Params };
export { RpcError };

export interface HubHandlers {
  /** Every session/update, raw (unknown variants and _meta kept). */
  update(params: Params): void;
  /** `_acphub/*` and other notifications. */
  notification(method: string, params: Params): void;
  /** session/request_permission: resolves with the outcome; the signal ends the question. */
  permission(params: Params, signal: AbortSignal): Promise<Params>;
}

export interface HubSocket {
  request<T = Params>(method: string, params: Params): Promise<T>;
  notify(method: string, params: Params): Promise<void>;
  closed: Promise<void>;
  close(): void;
}

/** A connection opened and initialized, its handlers not yet attached. */
export interface Dialled {
  socket: RpcSocket;
  initialize: Params;
}

/** The hub's WebSocket URL for this page's origin. */
export function hubUrl(location: Location): string {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/acp`;
}

// Opens one connection and runs initialize; rejects when the hub cannot be reached. `behind`
// sends requests right behind initialize, without waiting for its answer (one round trip less).
export async function dialHub(
  url: string,
  behind?: (socket: RpcSocket) => void,
): Promise<Dialled> {
  const socket = await RpcSocket.open(url);
  try {
    const answer = socket.request<Params>("initialize", {
      protocolVersion: 1,
      clientCapabilities: { _meta: { acphub: { watch: true } } },
      clientInfo: { name: "acphub-web", version: "1" },
    });
    behind?.(socket);
    return { socket, initialize: await answer };
  } catch (error) {
    socket.close();
    throw error;
  }
}

/** Gives a dialled connection the page's handlers: the hub's messages go to them from now on. */
export function attachHub(socket: RpcSocket, h: HubHandlers): HubSocket {
  socket.attach({
    notification: (method, params) =>
      method === "session/update"
        ? h.update(params)
        : h.notification(method, params),
    request: (method, params, signal) =>
      method === "session/request_permission"
        ? h.permission(params, signal)
        : Promise.reject(new RpcError(-32601, `"Method not found": ${method}`)),
  });
  return socket;
}
