// The page's one connection to the hub, kept up: dialled on first use, re-dialled with capped,
// jittered exponential back-off when it drops, and given up (status "logged-out") once the hub says this
// browser is no longer logged in. Its owner re-attaches what it had in `onUp`.
import {
  attachHub,
  dialHub,
  type Dialled,
  type HubHandlers,
  type HubSocket,
} from "../acp/hub-client.js";

export type Status = "connecting" | "online" | "offline" | "logged-out";

export interface HubLinkOptions {
  url: string;
  handlers: HubHandlers;
  /** A new connection is up (the first or after a drop): re-attach, before it counts as online. */
  onUp(socket: HubSocket): Promise<void>;
  /** The connection dropped. */
  onDown(): void;
  /** The status changed. */
  onStatus(): void;
  /** A connection dialled before the link existed (the page's first script), if any. */
  early?(): Promise<Dialled> | undefined;
}

export class HubLink {
  status: Status = "connecting";
  private socket?: HubSocket;
  private ready?: Promise<HubSocket>;
  private attempt = 0;

  constructor(private readonly o: HubLinkOptions) {}

  /** The open socket, if any (for notifications that may be dropped). */
  get current(): HubSocket | undefined {
    return this.socket;
  }

  // The connection, dialled (and re-dialled after a drop) on first use.
  connection(): Promise<HubSocket> {
    this.ready ??= this.dial();
    return this.ready;
  }

  private setStatus(status: Status): void {
    this.status = status;
    this.o.onStatus();
  }

  private async dial(): Promise<HubSocket> {
    for (;;) {
      try {
        const socket = await this.up();
        this.attempt = 0;
        this.setStatus("online");
        return socket;
      } catch {
        this.attempt += 1;
        // Asked at once: a removed user's page must not keep their name and transcript up.
        if (!(await loggedIn())) {
          this.setStatus("logged-out");
          throw new Error("not logged in");
        }
        this.setStatus("offline");
        await new Promise((r) => setTimeout(r, backOff(this.attempt)));
      }
    }
  }

  // One connection, counted as up only once its owner re-attached; closed when that fails.
  private async up(): Promise<HubSocket> {
    const dialled = await (this.o.early?.() ?? dialHub(this.o.url));
    const socket = attachHub(dialled.socket, this.o.handlers);
    try {
      await this.o.onUp(socket);
    } catch (error) {
      socket.close();
      throw error;
    }
    this.socket = socket;
    void socket.closed.then(() => this.dropped(socket));
    return socket;
  }

  // The socket went away: tell the owner, show the banner and dial again.
  private dropped(socket: HubSocket): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.o.onDown();
    this.setStatus("offline");
    this.ready = this.dial();
    void this.ready.catch(() => undefined);
  }
}

/** The wait before attempt n+1 (ms): doubling from 1 s, capped at 15 s, each drawn between
 *  half and all of that ("equal jitter"), so at most 5 attempts fit in any 10 s. */
export function backOff(attempt: number): number {
  const ceiling = Math.min(15_000, 1000 * 2 ** (attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

// Whether this browser is still logged in (a network error counts as yes: keep trying).
async function loggedIn(): Promise<boolean> {
  try {
    return (
      (await fetch("/auth", { credentials: "same-origin" })).status !== 401
    );
  } catch {
    return true;
  }
}

/** True when a failed request failed because its connection went (worth resending). */
export function closedSoon(socket: HubSocket): Promise<boolean> {
  return Promise.race([
    socket.closed.then(() => true),
    new Promise<boolean>((r) => setTimeout(() => r(false), 300)),
  ]);
}
