// The page's ACP connection to the hub: the SDK's client over the SDK's WebSocket stream (the
// browser's own WebSocket, so the session cookie goes along), asking for the hub's watch
// notifications. One connection per page; `reconnecting` re-dials it with capped back-off.
import { client, type ClientConnection } from "@agentclientprotocol/sdk";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";

export type Params = Record<string, unknown>;

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

const raw = (p: unknown) => (p ?? {}) as Params;

/** The hub's WebSocket URL for this page's origin. */
export function hubUrl(location: Location): string {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/acp`;
}

// Opens one connection and runs initialize; rejects when the hub cannot be reached.
export async function openHubSocket(
  url: string,
  h: HubHandlers,
): Promise<{ socket: HubSocket; initialize: Params }> {
  const app = client({ name: "acphub-web" })
    .onNotification("session/update", raw, ({ params }) => h.update(params))
    .onNotification("*", ({ method, params }) =>
      h.notification(method, raw(params)),
    )
    .onRequest("session/request_permission", raw, ({ params, signal }) =>
      h.permission(params, signal),
    );
  const connection: ClientConnection = app.connect(createWebSocketStream(url));
  const socket: HubSocket = {
    request: <T>(method: string, params: Params) =>
      connection.agent.request<T>(method, params),
    notify: (method, params) => connection.agent.notify(method, params),
    closed: connection.closed.then(
      () => undefined,
      () => undefined,
    ),
    close: () => connection.close(),
  };
  const initialize = await socket.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { _meta: { acphub: { watch: true } } },
    clientInfo: { name: "acphub-web", version: "1" },
  });
  return { socket, initialize };
}
