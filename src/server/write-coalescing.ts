// One socket write per tick instead of one per message. The SDK's WebSocket pump and its
// Streamable HTTP streams hand each message to the socket on its own (a WebSocket frame, an SSE
// event), and a committed ledger batch releases hundreds at once: uncoalesced, each becomes its
// own writev system call. The first write of a tick corks the socket; the tick's end uncorks it,
// so what was written in that tick leaves in one call, in order. Nothing waits longer than the
// current tick, and backpressure is unchanged (corked bytes count in the socket's buffer).
//
// Frames written whole (`frameSink`: notifications framed once for every client, and relayed
// updates written from their parts, ws-frame.ts) go into one buffer per socket at once (so that
// no frame outlives the tick it was made in) and are handed to the socket as one chunk; a socket
// written less than the hold ago has its next frames held until that long after: each socket
// write costs the kernel a TCP send to the client (5-6 µs of system time here, whether it carries
// one frame or three), and with many sessions streaming a committed batch holds about one update
// per session — so without the hold every update was one write, and the cost per update grew
// with the number of sessions (bench/ws-writes.mjs). The hold is FRAME_HOLD_MS, longer when
// more sockets stream than WRITES_PER_SECOND allows at it (so that the writes per update do not
// grow with the sessions; at most MAX_HOLD_MS). A session's first frame after a pause still
// leaves at the tick's end. Any other write (a frame ws makes itself: a reply, a ping, a close)
// first hands over the frames held before it, so the bytes leave in the order they were written
// and a turn's answer is never held behind its updates.
import type { Duplex } from "node:stream";
import {
  frameHeadBytes,
  stampTail,
  type StampedUpdate,
} from "../engine/wire-updates.js";
import { headerSize, stampedPayload, writeStampedFrame } from "./ws-frame.js";

const COALESCED = Symbol("acphub.coalesced");
/** How long after a socket's last write its next relayed frames may wait (a display frame). */
export const FRAME_HOLD_MS = 20;
/** The longest hold, however many sockets stream. */
export const MAX_HOLD_MS = 100;
/** The socket writes per second, all sockets together, that the hold aims at. */
export const WRITES_PER_SECOND = 5000;
/** The hold's milliseconds per socket streaming. */
const MS_PER_WRITE = 1000 / WRITES_PER_SECOND;
/** The least first size of a socket's gathering buffer (small ones come from Node's shared pool);
 *  it starts a quarter larger than what the socket was handed last time (a buffer grown by
 *  doubling from the least copied its frames at each step: 1.5 % of a streaming hub's CPU). */
const GATHER_BYTES = 2048;

type Coalesced = Duplex & { [COALESCED]?: Gathered };

/** Whole frames written straight to a coalesced socket, in order with its other writes. */
export interface FrameSink {
  /** Copies `frame` for the tick's end, or up to the hold after the socket's last write;
   *  `written` is called once the socket took it (or failed to). */
  writeFrame(frame: Buffer, written?: () => void): void;
  /** The same for a stamped update's WebSocket frame, written from its parts (ws-frame.ts). */
  writeStamped(update: StampedUpdate, written?: () => void): void;
}

/**
 * The sockets handed frames in the last window of FRAME_HOLD_MS × 5 (each counted once), and
 * the hold that follows from them.
 */
const streaming = {
  window: 0,
  counted: 0,
  last: 0,
  hold: FRAME_HOLD_MS,
  /** Counts a socket's handing over; returns the window it was counted in. */
  count(counted: number, now: number): number {
    const window = Math.floor(now / (FRAME_HOLD_MS * 5));
    if (window !== this.window) {
      this.last = window === this.window + 1 ? this.counted : 0;
      this.window = window;
      this.counted = 0;
      // Whole milliseconds, from a product that is fractional from the first window on: a
      // quotient that had always come out whole threw the compiled hand-over away when one
      // did not (issue 39, fifteenth round).
      const ms = Math.ceil(Math.max(this.last, 1) * MS_PER_WRITE);
      this.hold = Math.min(MAX_HOLD_MS, Math.max(FRAME_HOLD_MS, ms));
    }
    if (counted !== window) this.counted += 1;
    return window;
  },
};

/** The hold now (FRAME_HOLD_MS unless more sockets stream than WRITES_PER_SECOND allows). */
export function currentHold(): number {
  return streaming.hold;
}

// What one socket gathers until it is handed over.
class Gathered implements FrameSink {
  private buffer: Buffer | undefined;
  private used = 0;
  /** The bytes handed over last time (where the next buffer's size starts). */
  private lastUsed = 0;
  /** The gathered frames' `written` callbacks (none: undefined, not a new empty array). */
  private callbacks: (() => void)[] | undefined;
  private scheduled = false;
  private holding = false;
  /** When frames were last handed over (performance.now()), and in which window counted. */
  private last = -Infinity;
  private window = -1;
  private corked = false;

  constructor(
    private readonly socket: Duplex,
    /** The socket's own write, under the wrapper. */
    private readonly write: (...args: unknown[]) => boolean,
  ) {}

  writeFrame(frame: Buffer, written?: () => void): void {
    const at = this.take(frame.length, written); // (before the buffer it may grow is read)
    frame.copy(this.buffer!, at);
  }

  writeStamped(update: StampedUpdate, written?: () => void): void {
    const head = frameHeadBytes(update.sessionId);
    const tail = stampTail(update.seq);
    const payload = stampedPayload(head, Buffer.byteLength(update.text), tail);
    const at = this.take(headerSize(payload) + payload, written);
    writeStampedFrame(this.buffer!, at, payload, head, update.text, tail);
  }

  /** Every write to the socket goes through here (the socket's `write` is replaced). */
  wrappedWrite(args: unknown[]): boolean {
    this.corkForTick();
    this.handOver();
    return this.write.apply(this.socket, args);
  }

  // Room for a frame of `size` bytes at the buffer's end (grown, doubled, when it does not fit),
  // handed over at the tick's end or once the hold is over; returns where the frame goes.
  // (The clock is read for a gathering's first frame only: later ones leave with it, at the
  // tick's end or the hold's timer. It was read for every frame, 0.7 % of a streaming hub.)
  private take(size: number, written: (() => void) | undefined): number {
    if (!this.scheduled && !this.holding) {
      const wait = this.last + streaming.hold - performance.now();
      if (wait <= 0) this.corkForTick();
      else {
        this.holding = true;
        setTimeout(this.release, wait).unref();
      }
    }
    if (written) (this.callbacks ??= []).push(written);
    const at = this.used;
    const capacity = this.buffer?.length ?? 0;
    if (at + size > capacity) {
      const grown = Buffer.allocUnsafe(
        Math.max(
          at + size,
          2 * capacity,
          GATHER_BYTES,
          capacity === 0 ? this.lastUsed + (this.lastUsed >> 2) : 0,
        ),
      );
      this.buffer?.copy(grown, 0, 0, at);
      this.buffer = grown;
    }
    this.used = at + size;
    return at;
  }

  // The first write of a tick corks the socket until the tick's end (a destroyed socket is not
  // corked, but its frames are still handed over then: their callbacks hear the error).
  private corkForTick(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.corked = !this.socket.destroyed;
    if (this.corked) this.socket.cork();
    process.nextTick(this.uncork);
  }

  private readonly uncork = (): void => {
    this.scheduled = false;
    this.handOver();
    if (this.corked && !this.socket.destroyed) this.socket.uncork();
    this.corked = false;
  };

  // The hold is over: what is held leaves at this tick's end.
  private readonly release = (): void => {
    this.holding = false;
    this.corkForTick();
  };

  // The frames gathered so far, to the socket as one chunk (the buffer is the socket's now).
  private handOver(): void {
    if (this.used === 0) return;
    this.last = performance.now();
    this.window = streaming.count(this.window, this.last);
    const chunk = this.buffer!.subarray(0, this.used);
    const callbacks = this.callbacks;
    this.buffer = undefined;
    this.lastUsed = this.used;
    this.used = 0;
    this.callbacks = undefined;
    this.write.call(
      this.socket,
      chunk,
      callbacks && (() => callbacks.forEach(call)),
    );
  }
}

const call = (f: () => void) => f();

/** Makes every write to `socket` within one tick leave in one system call. Idempotent. */
export function coalesceWrites(socket: Duplex): void {
  frameSink(socket);
}

/** The socket's frame sink (its writes coalesced from now on, if they were not yet). */
export function frameSink(socket: Duplex): FrameSink {
  const s = socket as Coalesced;
  const known = s[COALESCED];
  if (known) return known;
  const gathered = new Gathered(s, s.write as (...args: unknown[]) => boolean);
  s[COALESCED] = gathered;
  s.write = function (...args: unknown[]): boolean {
    return gathered.wrappedWrite(args);
  } as Duplex["write"];
  return gathered;
}
