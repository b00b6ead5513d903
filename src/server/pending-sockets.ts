// Sockets that have not yet sent an authenticated request (issue 34, item 12). Each gets
// `deadlineMs` from its accept to do so, else it is closed; an address keeps at most
// `perAddress` of them and the server at most `total`, and past either bound the oldest such
// socket (of that address, or of all) is closed to make room: a flood of credential-less or
// half-open sockets, even from 127.0.0.1 that every local client shares, cannot keep the right
// token out, and such sockets never count against the authenticated connections' bound. A
// socket from a trusted proxy (serve.trustedProxies) carries many clients: it is counted under
// the client its first request names (`attribute`), never under the proxy's address.
import type { Socket } from "node:net";
import { plainAddress } from "../shared/address-ranges.js";

export interface PendingSocketLimits {
  /** Unauthenticated sockets one address may hold open at once. */
  perAddress: number;
  /** Unauthenticated sockets all addresses together may hold open at once. */
  total: number;
  /** Time a socket has, from its accept, to send an authenticated request. */
  deadlineMs: number;
}

interface Pending {
  socket: Socket;
  address: string;
  timer: NodeJS.Timeout;
}

/** A socket's key, the same for the TCP socket and the TLS socket over it. */
const keyOf = (s: { remoteAddress?: string; remotePort?: number }) =>
  `${s.remoteAddress ?? "?"}|${s.remotePort ?? 0}`;

export class PendingSockets {
  /** In accept order: the first is the oldest. */
  private readonly pending = new Map<string, Pending>();
  private readonly perAddress = new Map<string, number>();

  constructor(private readonly limits: PendingSocketLimits) {}

  // A new TCP socket: pending until `authenticated`; room made by closing the oldest. A trusted
  // proxy's (`viaProxy`) is bounded only by the total until its first request names its client.
  accept(socket: Socket, viaProxy = false): void {
    const peer = plainAddress(socket.remoteAddress ?? "?");
    const address = viaProxy ? `proxy ${peer}` : peer;
    const key = keyOf(socket);
    if (!viaProxy) this.makeRoom(address);
    if (this.pending.size >= this.limits.total) this.closeOldest();
    const timer = setTimeout(() => socket.destroy(), this.limits.deadlineMs);
    timer.unref();
    this.pending.set(key, { socket, address, timer });
    this.count(address, 1);
    socket.once("close", () => this.forget(key));
  }

  // A trusted proxy's socket is its request's client's (room made among that client's sockets);
  // a socket already counted under that address is left as it is.
  attribute(
    socket: { remoteAddress?: string; remotePort?: number },
    address: string,
  ): void {
    const key = keyOf(socket);
    const p = this.pending.get(key);
    if (!p || p.address === address) return;
    this.count(p.address, -1);
    this.makeRoom(address);
    p.address = address;
    this.count(address, 1);
  }

  // Closes the address's oldest pending socket when it holds as many as it may.
  private makeRoom(address: string): void {
    if ((this.perAddress.get(address) ?? 0) >= this.limits.perAddress)
      this.closeOldest(address);
  }

  private count(address: string, by: number): void {
    const n = (this.perAddress.get(address) ?? 0) + by;
    if (n > 0) this.perAddress.set(address, n);
    else this.perAddress.delete(address);
  }

  // The socket a request came on has authenticated: it is no longer pending.
  authenticated(socket: { remoteAddress?: string; remotePort?: number }): void {
    this.forget(keyOf(socket));
  }

  /** True while the socket a request came on has not authenticated. */
  isPending(socket: { remoteAddress?: string; remotePort?: number }): boolean {
    return this.pending.has(keyOf(socket));
  }

  /** Unauthenticated sockets open now. */
  get size(): number {
    return this.pending.size;
  }

  // Closes the oldest pending socket (of one address, when given).
  private closeOldest(address?: string): void {
    for (const [key, p] of this.pending)
      if (address === undefined || p.address === address) {
        this.forget(key);
        p.socket.destroy();
        return;
      }
  }

  private forget(key: string): void {
    const p = this.pending.get(key);
    if (!p) return;
    clearTimeout(p.timer);
    this.pending.delete(key);
    this.count(p.address, -1);
  }

  // Stops every deadline (the server is closing).
  stop(): void {
    for (const p of this.pending.values()) clearTimeout(p.timer);
  }
}
