// The bounds of `acphub serve`, with units in their names.
export interface ServerLimits {
  /** ACP connections open at once (WebSocket and Streamable HTTP). */
  maxConnections: number;
  /** ACP connections one member or viewer may hold open at once (admins: maxConnections). */
  maxConnectionsPerUser: number;
  /** Of maxConnections, the last ones only admins may take. */
  adminConnections: number;
  /** Sockets without an authenticated request yet, from one address (the oldest closed past it). */
  maxUnauthenticatedPerAddress: number;
  /** Such sockets from all addresses together. */
  maxUnauthenticated: number;
  /** Time a socket has from its accept to send an authenticated request before it is closed. */
  handshakeTimeoutMs: number;
  /** Largest HTTP request body. */
  maxBodyBytes: number;
  /** Largest WebSocket frame. */
  maxFrameBytes: number;
  /** Output held for one client before it counts as not reading (SDK transport bound). */
  maxBufferedBytes: number;
  /** Notifications queued for one client before it is disconnected as too slow. */
  maxQueuedMessages: number;
  /** New sessions one connection may open per minute. */
  sessionsPerMinute: number;
  /** Time a client has to send its request headers (slowloris). */
  headersTimeoutMs: number;
  /** Time a client has to send a whole request. */
  requestTimeoutMs: number;
  /** Idle keep-alive HTTP connections are closed after this. */
  keepAliveTimeoutMs: number;
  /** A WebSocket that answers no ping for this long is dropped. */
  idleTimeoutMs: number;
  /** Failed logins from one address before it gets 429. */
  maxFailedAuth: number;
  /** How long such an address is refused. */
  authBackoffMs: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  maxConnections: 256,
  maxConnectionsPerUser: 32,
  adminConnections: 16,
  maxUnauthenticatedPerAddress: 64,
  maxUnauthenticated: 1024,
  handshakeTimeoutMs: 5_000,
  maxBodyBytes: 4 * 1024 * 1024,
  maxFrameBytes: 4 * 1024 * 1024,
  maxBufferedBytes: 16 * 1024 * 1024,
  maxQueuedMessages: 10_000,
  sessionsPerMinute: 60,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 60_000,
  maxFailedAuth: 20,
  authBackoffMs: 60_000,
};
