// The output of one WebSocket connection, written by acphub itself: a relayed update to one
// client is written from its stored text, head and seq straight into the socket's buffer; any
// other notification (and an update to several) is one text frame of bytes built once for every
// client (hub/frames.ts), handed to the socket at once.
// Through the SDK it was serialized again per client, passed through a web stream, a router, a
// mailbox and a pump (several promises each), and stringified there. The SDK's own messages
// (answers, requests to the client) are serialized here too, when the SDK hands them over, so
// everything a client is sent leaves in the order it was written. The SDK still sees a small
// stand-in of each of its messages (id, method, session id), so that its routing and pending
// tables keep working; the socket the SDK is given drops the stand-ins when its pump sends them.
// A wire is made for each upgrade and passed to its connection explicitly (http-server.ts).
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import type { WebSocket } from "ws";
import type { Duplex } from "node:stream";
import type { Note } from "../hub/frames.js";
import type { OutboundQueue } from "./outbound-queue.js";
import { frameSink, type FrameSink } from "./write-coalescing.js";
import { textFrame } from "./ws-frame.js";

/** The first key of a stand-in: its JSON text starts with STAND_IN_PREFIX, a message's never does. */
const STAND_IN = "acphub:written";
const STAND_IN_PREFIX = `{"${STAND_IN}":`;
const TEXT_FRAME = { binary: false };

/** The socket's send once attached; frames written before that wait for it. */
export class SocketWire {
  private ws: WebSocket | undefined;
  private sink: FrameSink | undefined;
  private early: [Buffer | string, (() => void) | undefined][] = [];

  /** The upgraded request's socket: a note's whole frame (made once for every client) is
   *  written to it directly, in order with what `ws` writes there (write-coalescing.ts). */
  useSocket(socket: Duplex): void {
    this.sink = frameSink(socket);
  }

  /** Takes the socket the upgrade produced; returns the socket the SDK is given instead: the
   *  same socket, but its send drops the SDK's stand-ins. */
  attach(ws: WebSocket): SdkSocket {
    this.ws = ws;
    for (const [frame, written] of this.early.splice(0))
      this.write(frame, written);
    return sdkSocket(ws);
  }

  /** Writes one whole JSON-RPC message as one text frame; `written` once the socket took it
   *  (or failed to). */
  write(frame: Buffer | string, written?: () => void): void {
    const ws = this.ws;
    if (!ws) this.early.push([frame, written]);
    else ws.send(frame, TEXT_FRAME, written);
  }

  /** Writes a notification's frame at once (a reply written after it follows it), counted in
   *  `queue` until the socket takes it (a catch-up is not: the ledger's caps bound it). */
  writeNote(note: Note, queue?: OutboundQueue): void {
    if (queue && !queue.admit()) return;
    const written = queue?.add();
    const { ws, sink } = this;
    // Once the socket is closing, `ws` refuses the frame (and calls `written`) as before.
    if (!ws || !sink || ws.readyState !== ws.OPEN)
      this.write(note.bytes(), written);
    else if (note.stamp && note.fromParts)
      sink.writeStamped(note.stamp, written);
    else sink.writeFrame(note.framed(textFrame), written);
  }

  /** The SDK's stream for this connection, its output written here in order with the frames. */
  carry(stream: Stream): Stream {
    const inner = stream.writable.getWriter();
    const writable = new WritableStream<AnyMessage>({
      write: (message) => {
        this.write(JSON.stringify(message));
        inner.write(standIn(message) as AnyMessage).catch(() => undefined);
      },
      close: () => inner.close(),
      abort: (reason: unknown) => inner.abort(reason),
    });
    return { readable: stream.readable, writable };
  }
}

// What the SDK's router and its initialize wait read of a message: its kind, id, method, the
// session id of its params or result, and an error as it is.
function standIn(message: AnyMessage): Record<string, unknown> {
  const m = message as Record<string, unknown>;
  const out: Record<string, unknown> = { [STAND_IN]: 1, jsonrpc: "2.0" };
  if ("id" in m) out["id"] = m["id"];
  if ("method" in m) {
    out["method"] = m["method"];
    out["params"] = sessionOnly(m["params"]);
  }
  if ("result" in m) out["result"] = sessionOnly(m["result"]);
  if ("error" in m) out["error"] = m["error"];
  return out;
}

function sessionOnly(value: unknown): Record<string, unknown> {
  const id = (value as { sessionId?: unknown } | null | undefined)?.sessionId;
  return typeof id === "string" ? { sessionId: id } : {};
}

/** What the SDK's WebSocket session uses of a socket (its `WebSocketLike`). */
export interface SdkSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  on(type: string, listener: (...args: unknown[]) => void): unknown;
  off(type: string, listener: (...args: unknown[]) => void): unknown;
}

// The socket as the SDK sees it: everything passes through to `ws` except the stand-ins, which
// acphub has already written in their place.
function sdkSocket(ws: WebSocket): SdkSocket {
  return {
    get readyState() {
      return ws.readyState;
    },
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
    send(data) {
      if (!data.startsWith(STAND_IN_PREFIX)) ws.send(data);
    },
    close: (code, reason) => ws.close(code, reason),
    on: (type, listener) => ws.on(type, listener),
    off: (type, listener) => ws.off(type, listener),
  };
}
